"""What the deadline checks cost: the same workloads on two source trees, in alternating subprocesses.

Usage:

    python benchmarks/deadline_overhead.py --base /tmp/base_tree [--rounds 7]

`--base` is a checkout of the commit before the checks (``git archive fee89c5 | tar -x -C DIR``);
the tree this script lives in is the other one. Each round runs every workload once per tree, each
in a fresh interpreter with that tree first on ``sys.path``, alternating which tree goes first (load
on a shared machine hits both alike); a row's figure is the fastest of its rounds.

Workloads (each repeated inside its worker so that a run lasts ~0.2-1 s):
- ``compile``: `regex_to_dfa` of bench_compile.py's rows (parse, exploration, minimization), every
  derivative and state under the compile deadline that `regex_to_dfa` now opens.
- ``lazy walk``: a fresh `LazyDFA` of the 10-property schema (`compile_json_schema`) stepped byte
  by byte through a document, so that every step creates its transition (a derivative, a class
  map, maybe a state): outside any deadline, and inside one (``within(60, ...)``: the checks then
  read the clock).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent

WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[2])
import brzozowski
assert brzozowski.__file__.startswith(sys.argv[1]), brzozowski.__file__
import _common as C
from brzozowski import regex_to_dfa, compile_json_schema
workload = sys.argv[3]
if workload == "compile":
    patterns = [p for p in C.compile_patterns().values() if p]
    start = time.perf_counter()
    for _ in range(3):
        for p in patterns:
            regex_to_dfa(p)
elif workload.startswith("lazy walk"):
    schema = C.load_schema("ten_properties")
    user = {"id": 12, "name": "Ada Lovelace", "email": "ada@example.org", "age": 36, "score": 9.5,
            "active": True, "role": "admin", "address": {"street": "1 Main St", "city": "London"},
            "tags": ["math", "engines"], "notes": None}
    document = json.dumps(user, separators=(",", ":")).encode()
    def walk():
        for _ in range(100):
            lazy = compile_json_schema(schema)
            state = lazy.start
            for b in document:
                state = lazy.next_state(state, b)
            assert lazy.is_accepting(state)
    start = time.perf_counter()
    if workload == "lazy walk, in a deadline":
        try:
            from brzozowski.budget import within
        except ImportError:
            walk()
        else:
            with within(60, "mask_seconds"):
                walk()
    else:
        walk()
print(json.dumps(time.perf_counter() - start))
"""

WORKLOADS = ("compile", "lazy walk", "lazy walk, in a deadline")


def run(tree: Path, workload: str) -> float:
    out = subprocess.run([sys.executable, "-c", WORKER, str(tree), str(HERE), workload],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", choices=WORKLOADS, action="append", help="run only these workloads")
    args = parser.parse_args()
    workloads = args.only or WORKLOADS
    best: dict[tuple[str, str], float] = {}
    for r in range(args.rounds):
        trees = [("base", args.base), ("checks", TREE)]
        if r % 2:
            trees.reverse()
        for workload in workloads:
            for name, tree in trees:
                t = run(tree, workload)
                best[name, workload] = min(best.get((name, workload), t), t)
    print("| workload | before (s) | with the checks (s) | change |")
    print("|---|---|---|---|")
    for workload in workloads:
        before, after = best["base", workload], best["checks", workload]
        print(f"| {workload} | {before:.3f} | {after:.3f} | {100 * (after / before - 1):+.1f} % |")


if __name__ == "__main__":
    main()
