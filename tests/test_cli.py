"""The `brzozowski compile` command: the canonical table, JSON and DOT views, located errors with no
traceback; and the console script itself, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from brzozowski import regex_to_dfa
from brzozowski.cli import main

HAND = "(cat|car|dog)s?"


def test_compile_prints_the_canonical_table(capsys):
    assert main(["compile", HAND]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "7 states, start 0, accepting [5, 6]"
    assert out[1].split() == ["0:", "c", "->", "1,", "d", "->", "2"]
    assert out[4].split() == ["3:", "[rt]", "->", "5"]
    assert out[7].split() == ["*", "6:", "(no", "edges)"]


def test_compile_json_round_trips_the_tables(capsys):
    assert main(["compile", HAND, "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    dfa = regex_to_dfa(HAND)
    assert tables["n_states"] == 7
    assert np.array_equal(np.array(tables["trans"], dtype=np.int32), dfa.trans)
    assert tables["accept"] == dfa.accept.tolist()


def test_compile_dot(capsys):
    assert main(["compile", "a[bc]", "--dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph DFA {") and '1 -> 2 [label="[bc]"]' in dot


def test_bad_pattern_prints_a_located_error_and_no_traceback(capsys):
    assert main(["compile", "ab(c"]) == 2
    err = capsys.readouterr().err
    assert "missing ), unterminated subpattern at offset 2" in err
    assert "  ab(c\n    ^" in err
    assert "Traceback" not in err


def test_state_budget_from_the_command_line(capsys):
    assert main(["compile", "(a|b)*a(a|b){12}", "--max-states", "100"]) == 2
    assert "state budget" in capsys.readouterr().err


def test_console_script_runs_as_a_process():
    done = subprocess.run(
        [sys.executable, "-m", "brzozowski.cli", "compile", "x{2,1}"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "minimum is greater than the maximum" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "brzozowski.cli", "compile", "x+"], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.startswith("2 states")
