"""Intersection and complement: cold compile times of boolean terms, and of plain patterns (which
must not pay for the emptiness test: they skip it on a flag set at construction).

Usage (from the repository root; only brzozowski itself is needed):

    PYTHONPATH=$PWD python benchmarks/bench_boolean.py [--repeats 5]

Protocol: every measurement runs in a fresh interpreter (terms and derivatives are memoized for
the life of a process, so a second compile is not a compile), which builds the term and then times
one ``regex_to_dfa``. The table shows the minimum and the median over ``--repeats`` interpreters,
and the canonical DFA's state count.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CASES = {
    "plain: date": 'parse(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")',
    "plain: e-mail": 'parse(r"[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}")',
    "plain: weather schema": 'parse(json_schema_to_regex({"type": "object", "properties": '
                             '{"city": {"type": "string"}, "days": {"type": "integer"}}, '
                             '"required": ["city"]}))',
    "name & ~keyword": 'parse(r"[a-z_][a-z0-9_]*") & ~parse("if|in|def|for|class|import|return")',
    "oneOf(integer, non-negative)": (
        '(lambda i, n: (i | n) & ~(i & n))(parse(json_schema_to_regex({"type": "integer"})), '
        'parse(r"(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))'),
    "(ab|cd)* & ~(.*cd.*)": 'parse("(ab|cd)*") & ~parse(".*cd.*")',
    "[ab]*a[ab]{8} & [ab]*b[ab]{7}": 'parse("[ab]*a[ab]{8}") & parse("[ab]*b[ab]{7}")',
    "~(.*aa.*) & .*a.*": '~parse(".*aa.*") & parse(".*a.*")',
}

WORKER = """
import time
from brzozowski import json_schema_to_regex, parse, regex_to_dfa
regex_to_dfa("q")
term = {expression}
start = time.perf_counter()
dfa = regex_to_dfa(term)
print(time.perf_counter() - start, dfa.n_states)
"""


def cold(expression: str) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", WORKER.format(expression=expression)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'term':32} {'states':>6} {'min ms':>8} {'median ms':>10}")
    for name, expression in CASES.items():
        runs = [cold(expression) for _ in range(args.repeats)]
        times = [t * 1e3 for t, _ in runs]
        print(f"{name:32} {runs[0][1]:6} {min(times):8.2f} {statistics.median(times):10.2f}")


if __name__ == "__main__":
    main()
