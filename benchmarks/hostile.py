"""Issue 39's hostile cases that land in the automata and core layers, each in its own process.

Usage:

    python benchmarks/hostile.py [--before DIR] [--timeout 60] [--only NAME ...]

Every case runs in a fresh interpreter (the tree this script lives in, and with ``--before DIR``
also a checkout of an earlier commit, e.g. ``git archive fee89c5 | tar -x -C DIR``), with a wall
time cap (``--timeout``: the child is killed, the row says so) and an address-space cap of 4 GiB.
Each row reports the outcome (the result, or the class of the error raised), the wall time of the
case and the child's peak resident memory (``ru_maxrss`` from ``os.wait4``). It prints a Markdown
table; `benchmarks/record/` keeps dated copies. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

TREE = Path(__file__).resolve().parent.parent
MEMORY_CAP = 4 << 30

_WORDS = """
import random
rng = random.Random(39)
WORDS = sorted({"".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
                for _ in range(100_000)})
"""

CASES: dict[str, str] = {
    "regex literal of 10^6 bytes (regex_to_dfa)": 'regex_to_dfa("a" * 10**6)',
    "alternation of 10^5 words (LazyDFA)": _WORDS + 'LazyDFA("|".join(WORDS))',
    "alternation of 10^5 words (regex_to_dfa)": _WORDS + 'regex_to_dfa("|".join(WORDS))',
    "alternation of 13,000 words, ~100 kB (regex_to_dfa)":
        'import random\nrng = random.Random(36)\n'
        'words = sorted({"".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 9))) for _ in range(13_000)})\n'
        'regex_to_dfa("|".join(words))',
    "`.*a.{17}` (regex_to_dfa)": 'regex_to_dfa(".*a.{17}")',
    "`.*a.{6}.*b.{6}.*c.{6}.*d.{6}.*e.{6}` (regex_to_dfa)": 'regex_to_dfa(".*a.{6}.*b.{6}.*c.{6}.*d.{6}.*e.{6}")',
    "`(.*[a-m].{4}|.*[n-z].{5}|.*[0-4].{6}|.*[5-9].{7}){3}` (regex_to_dfa)":
        'regex_to_dfa("(.*[a-m].{4}|.*[n-z].{5}|.*[0-4].{6}|.*[5-9].{7}){3}")',
    "groups nested 10^5 deep (regex_to_dfa)": 'regex_to_dfa("(?:" * 10**5 + "a" + ")" * 10**5)',
    "`((a)*b)*b…` 2,000 deep, 12 kB: a quadratic derivative (regex_to_dfa)":
        'regex_to_dfa("(?:" * 2000 + "a" + ")*b" * 2000)',
    '`DFA.matches("text")`': 'regex_to_dfa("text").matches("text")',
    '`LazyDFA.matches("text")`': 'LazyDFA("text").matches("text")',
    "`check_golden([...])`": 'from brzozowski import check_golden\ncheck_golden([{"cases": []}])',
    '`alt(parse("a"), "b")`': 'from brzozowski import alt, parse\nalt(parse("a"), "b")',
}

WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import brzozowski
assert brzozowski.__file__.startswith(sys.argv[1]), brzozowski.__file__
from brzozowski import LazyDFA, regex_to_dfa
code = sys.argv[2]
*setup, last = code.split("\n")
exec("\n".join(setup))
start = time.perf_counter()
try:
    result = eval(last)
    outcome = f"result: {result!r:.40}"
except Exception as error:
    outcome = type(error).__name__
print(f"{time.perf_counter() - start:.2f}\t{outcome}")
"""


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run(tree: Path, code: str, timeout: float) -> tuple[str, str, str]:
    """(outcome, wall seconds, peak RSS) of one case in a fresh interpreter over `tree`."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", WORKER, str(tree), code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=_cap_memory)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            child.kill()
            pid, status, usage = os.wait4(child.pid, 0)
            child.returncode = -9
            return f"killed after {timeout:g} s", f"> {timeout:g}", f"{usage.ru_maxrss / 1024:,.0f} MB"
        time.sleep(0.02)
    out, err = child.stdout.read(), child.stderr.read()
    rss = f"{usage.ru_maxrss / 1024:,.0f} MB"
    if not out.strip():
        return f"crashed: {err.strip().splitlines()[-1][:60] if err.strip() else status}", "", rss
    seconds, outcome = out.strip().split("\t", 1)
    return outcome, seconds, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout of the commit to compare with")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--only", action="append", help="run the cases whose name contains this")
    args = parser.parse_args()
    trees = ([("before", args.before)] if args.before else []) + [("now", TREE)]
    header = "| case | " + " | ".join(f"{name}: outcome | s | peak RSS" for name, _ in trees) + " |"
    print(header)
    print("|---|" + "---|---|---|" * len(trees))
    for case, code in CASES.items():
        if args.only and not any(part in case for part in args.only):
            continue
        cells = []
        for _, tree in trees:
            cells += run(tree, code, args.timeout)
        row = [case, *cells]
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |", flush=True)


if __name__ == "__main__":
    main()
