"""Every mask of bench_tail's generated schemas (strings bounded by a length and a pattern or a
format) against the plain walk: the proof that the counted strings' shortcut keeps every mask.

    PYTHONPATH=<tree> python benchmarks/counted_diff.py [--schemas 40] [--seed 36]

For each generated schema (`bench_tail.generated_items`, the first document of each), two indexes
over o200k_base: the default one, and one with its strategies off (`set_strategy(strings=False)`:
every mask walked) over an automaton of its own (the plain walk numbers a state per count and may
run out of the state budget; its document is then checked up to there). Each step compares the
two bitmasks; the summary counts the steps, the differences (exit 1 if any), the masks the
``counted strings`` strategy served and the documents the plain walk could not finish.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_corpus as BC  # noqa: E402
import bench_tail as BT  # noqa: E402

from brzozowski import TokenIndex  # noqa: E402
from brzozowski.errors import BudgetError  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", type=int, default=40)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    items, _ = BT.generated_items(args.schemas, 1, args.seed)
    make, compilers, eos = BC._ours_factory()
    steps = differences = served = cut_short = 0
    for item in items:
        automaton, plain_automaton = compilers["ours"](item["schema"]), compilers["ours"](item["schema"])
        index = make(automaton)
        plain = TokenIndex(plain_automaton, index.vocabulary)
        plain.set_strategy(strings=False)
        for doc in item["docs"]:
            state, plain_state = automaton.start, plain_automaton.start
            for token in [*doc, eos]:
                try:
                    expected = plain.bitmask(plain_state)
                except BudgetError:
                    cut_short += 1
                    break
                steps += 1
                if not np.array_equal(index.bitmask(state), expected):
                    differences += 1
                    print(f"difference: {item['name']}, step {steps}, state {state}", flush=True)
                if token == eos:
                    break
                state, plain_state = index.next_state(state, token), plain.next_state(plain_state, token)
        served += index.served["counted strings"]
    print(f"{len(items)} schemas, {steps} steps: {differences} differences; counted strings served "
          f"{served} masks; documents the plain walk could not finish (its budget): {cut_short}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
