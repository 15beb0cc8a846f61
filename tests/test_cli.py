"""The `brzozowski compile` command: the canonical table, JSON and DOT views, located errors with no
traceback; and the console script itself, run as a user would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brzozowski import regex_to_dfa
from brzozowski.cli import main

from .corpus import HAND


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


# -- the command line as a user meets it ---------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brzozowski.cli", *args], capture_output=True, text=True)


def test_version(capsys):
    import brzozowski

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"brzozowski {brzozowski.__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", brzozowski.__version__)
    pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'attr = "brzozowski.__version__"' in pyproject


def test_help_shows_examples_and_exit_statuses():
    done = _run("--help")
    assert done.returncode == 0
    assert "examples:" in done.stdout and "brzozowski compile '-?[0-9]+'" in done.stdout
    assert "brzozowski golden --check" in done.stdout and "2 bad input" in done.stdout
    for command in ("compile", "masks", "golden", "schema", "demo"):
        assert command in done.stdout


def test_a_pattern_starting_with_a_dash(capsys):
    """argparse reads '-a' as an option it does not know; the command takes it as the pattern."""
    for argv in (["compile", "-a"], ["compile", "--", "-a"]):
        assert main(argv) == 0
        assert capsys.readouterr().out.startswith("3 states, start 0, accepting [2]")
    for argv in (["compile", "--json", "-?[0-9]"], ["compile", "-?[0-9]", "--json"],
                 ["compile", "--json", "--", "-?[0-9]"]):
        assert main(argv) == 0
        assert json.loads(capsys.readouterr().out)["trans"][0][ord("-")] == 1
    assert main(["compile", "--", "-h"]) == 0  # a pattern that is also an option needs '--'
    assert capsys.readouterr().out.startswith("3 states")
    done = _run("compile", "-a", "-b")  # two unknown arguments: which one is the pattern?
    assert done.returncode == 2 and "can always follow '--'" in done.stderr
    done = _run("compile", "--jsno", "a")  # a mistyped long option stays an error
    assert done.returncode == 2 and "unrecognized arguments: --jsno" in done.stderr
    done = _run("compile")
    assert done.returncode == 2 and "the compile command needs a pattern" in done.stderr
    done = _run("golden", "-x")
    assert done.returncode == 2 and "unrecognized arguments: -x" in done.stderr and "'--'" not in done.stderr


def test_a_closed_pipe_is_quiet():
    """`brzozowski compile ... | head -1`: the reader leaves early; no BrokenPipeError traceback."""
    # ~800 kB of JSON: far more than a pipe holds, so the writer meets the closed pipe
    process = subprocess.Popen([sys.executable, "-m", "brzozowski.cli", "compile", "--json", "[0-9]{0,1000}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.read(100)
    process.stdout.close()  # what head does after its line
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    process.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert process.returncode in (0, 1)


def test_many_accepting_states_are_wrapped(capsys):
    assert main(["compile", "[0-9]{0,300}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = [line for line in lines if not re.match(r"[ *]+\d+:", line)]
    assert header[0].startswith("301 states, start 0, accepting [0, 1, 2,")
    assert len(header) > 5 and all(len(line) <= 100 for line in header)
    numbers = [int(n) for n in re.findall(r"\d+", " ".join(header).split("accepting", 1)[1])]
    assert numbers == list(range(301))


def test_the_state_budget_message_names_the_flag(capsys):
    assert main(["compile", "(a|b)*a(a|b){12}", "--max-states", "100"]) == 2
    assert "--max-states" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["compile", "a{" + "9" * 5000 + "}"], "repeat count 999999...999 (5000 digits) is over the limit"),
        (["compile", r"\77"], r"backreference \77"),
        (["compile", "a", "--max-states", "1.5"], "argument --max-states: not an integer"),
        (["compile", "a", "--max-states", "0"], "argument --max-states: must be at least 1"),
        (["compile", "a", "--max-states", "9" * 5000], "argument --max-states: not an integer"),
        (["masks", "a", "--vocab", "o200k_base", "--repeats", "0"], "argument --repeats: must be at least 1"),
        (["masks", "a", "--vocab", "o200k_base", "--states", "-1"], "argument --states: must be at least 0"),
        (["masks", "a", "--vocab", "/nonexistent/tokenizer.json"], "/nonexistent/tokenizer.json"),
        (["golden", "--path", "/nonexistent/g.json"], "cannot write the golden file /nonexistent/g.json"),
        (["golden"], "name it with --path"),
        (["golden", "--check", "--path", "/nonexistent/g.json"], "cannot read the golden file"),
        (["golden", "--check", "--automaton", "nfa"], "invalid choice: 'nfa'"),
        (["schema", "/nonexistent/s.json"], "cannot read the schema file"),
        (["schema", "{deep}", "-n", "-2"], "argument -n: must be at least 0"),
        (["demo", "-n", "0"], "argument -n: must be at least 1"),
        (["nosuch"], "invalid choice: 'nosuch'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_every_subcommand_refuses_bad_input_with_status_2(tmp_path, args, says):
    done = _run(*args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert says in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr) < 2000


def test_schema_files_that_are_not_schemas_exit_2(tmp_path):
    cases = {
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "broken.json": "{",
        "surrogate.json": '{"const": "\\ud800"}',
        "draft4.json": '{"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}',
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        done = _run("schema", str(tmp_path / name))
        assert done.returncode == 2 and "Traceback" not in done.stderr, (name, done.stderr)


def test_golden_regenerates_only_where_told(tmp_path):
    target = tmp_path / "g.json"
    assert main(["golden", "--path", str(target)]) == 0
    from brzozowski.golden import DEFAULT_GOLDEN_PATH

    assert target.read_bytes() == DEFAULT_GOLDEN_PATH.read_bytes()
    assert main(["golden", "--check", "--path", str(target), "--case", "hand_example"]) == 0
