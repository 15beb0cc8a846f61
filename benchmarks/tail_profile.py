"""Where a slow mask step goes: one schema, a seeded walk over o200k_base, each step timed, then a
profile of a few more steps.

    PYTHONPATH=<tree> python benchmarks/tail_profile.py SCHEMA_JSON [--steps 60] [--profiled 10] [--seed 0]

The walk draws each token among the first few thousand allowed ids (short, plain tokens in a string's
inside), so it goes deep into a long string, where issue 36's tail lies. Printed: the step times
(max, mean, how many over 10 ms), then the profile of `--profiled` further steps by total time and by
cumulative time, with the share of the emptiness searches (`automata.lazy.is_empty`).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import time

import numpy as np

from brzozowski import TokenIndex, Vocabulary, compile_json_schema, load_tiktoken_vocab


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("schema", help="the schema, as JSON text")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--profiled", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tokens, eos = load_tiktoken_vocab("o200k_base")
    index = TokenIndex(compile_json_schema(json.loads(args.schema)), Vocabulary(tokens, eos))
    rng = random.Random(args.seed)
    state = index.automaton.start

    def step(state: int) -> int:
        allowed = [t for t in np.flatnonzero(index.mask(state))[:5000] if t != eos]
        return index.next_state(state, rng.choice(allowed))

    times = []
    for _ in range(args.steps):
        began = time.perf_counter()
        index.mask(state)
        times.append(time.perf_counter() - began)
        state = step(state)
    print(f"{len(times)} steps: slowest {max(times) * 1e3:.1f} ms, mean {np.mean(times) * 1e3:.1f} ms, "
          f"over 10 ms: {sum(t > 0.01 for t in times)}")
    profile = cProfile.Profile()
    for _ in range(args.profiled):
        profile.enable()
        index.mask(state)
        profile.disable()
        state = step(state)
    stats = pstats.Stats(profile)
    total = sum(entry[2] for entry in stats.stats.values())  # type: ignore[attr-defined]
    empty = sum(entry[3] for (path, _, name), entry in stats.stats.items()  # type: ignore[attr-defined]
                if name == "is_empty" and path.endswith("lazy.py"))
    print(f"profiled {args.profiled} steps: {total:.3f} s, of which is_empty (cumulative) {empty:.3f} s "
          f"({empty / total:.0%})")
    stats.sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
