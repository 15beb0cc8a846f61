"""Where a step's time goes, ours against llguidance's: masks computed, masks cached, advances.

    PYTHONPATH=$PWD $BENCH_VENV/bin/python benchmarks/step_split.py [--corpus DIR] [--save OUT.json]

One process, pinned to one CPU, both libraries in lockstep over `bench_corpus`'s documents
(o200k_base, compact JSON, `bench_corpus.OURS_OPTIONS` and ``LLG_COMPACT``), CPU time of each
call: per schema, our bitmask (split into the steps that computed a mask and those the cache
answered) and our advance, against llguidance's mask (``unsafe_compute_mask_ptr``) and its
``consume_token``. Printed: the corpus's totals per part, and the median over schemas of the
per-schema ratios (the figure issue 36 holds to 1.1x) for the whole step, the masks alone and the
advances alone, and what that median would be were one of our parts free: which part of the step
the gap lives in. Only schemas both compile, with a document both accept to its end.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as C  # noqa: E402
import bench_corpus as B  # noqa: E402

PARTS = ("computed", "cached", "advance", "llg_mask", "llg_consume")


def walk(items: list[dict]) -> list[dict]:
    """Per schema: the CPU seconds of each part (`PARTS`) over its document, and its step count."""
    from brzozowski import Constraint, LazyDFA

    make, compilers, eos = B._ours_factory()
    compile_schema = compilers["ours"]
    tok, _bits, ptr, nbytes = B.llguidance_mask_buffer(eos)
    Constraint(make(LazyDFA("q"))).bitmask()  # one-time process costs, as bench_corpus
    gc.collect()
    gc.freeze()
    clock = time.process_time
    rows = []
    for item, constraint, matcher in B.both_started(items, make, compile_schema, tok, ptr, nbytes):
        try:
            index, row = constraint.index, dict.fromkeys(PARTS, 0.0)
            for token in item["tokens"] + [eos]:
                walks = index.walks
                a = clock()
                constraint.bitmask()
                b = clock()
                constraint.advance(token)
                c = clock()
                row["computed" if index.walks != walks else "cached"] += b - a
                row["advance"] += c - b
                a = clock()
                matcher.unsafe_compute_mask_ptr(ptr, nbytes)
                b = clock()
                accepted = matcher.consume_token(token)
                c = clock()
                row["llg_mask"] += b - a
                row["llg_consume"] += c - b
                if not accepted or matcher.is_error():
                    raise ValueError("llguidance refused the document")
        except ValueError:  # a document one of the two refuses mid-walk
            continue
        rows.append({"name": item["name"], "steps": len(item["tokens"]) + 1, **row})
    return rows


def summary(rows: list[dict]) -> str:
    """The totals per part, and the median per-schema ratios of the whole step and its parts."""
    def ours(r: dict, free: str = "") -> float:
        return sum(r[part] for part in ("computed", "cached", "advance") if part != free)

    def llg(r: dict) -> float:
        return r["llg_mask"] + r["llg_consume"]

    def ratio(f, g) -> str:
        return C.fmt_ratio(C.median([f(r) / g(r) for r in rows if g(r) > 0]))

    totals = [[part, C.fmt_ms(sum(r[part] for r in rows))] for part in PARTS]
    ratios = [
        ["whole step (mask + advance)", ratio(ours, llg)],
        ["masks alone (ours computed + cached / llguidance's masks)",
         ratio(lambda r: r["computed"] + r["cached"], lambda r: r["llg_mask"])],
        ["advances alone (ours / llguidance's consume_token)",
         ratio(lambda r: r["advance"], lambda r: r["llg_consume"])],
        ["whole step, were our advances free", ratio(lambda r: ours(r, "advance"), llg)],
        ["whole step, were our computed masks free", ratio(lambda r: ours(r, "computed"), llg)],
        ["share of advances in our step", f"{C.median([r['advance'] / ours(r) for r in rows if ours(r)]):.0%}"],
        ["share of consume_token in llguidance's step",
         f"{C.median([r['llg_consume'] / llg(r) for r in rows if llg(r)]):.0%}"],
    ]
    return "\n\n".join([f"{len(rows)} schemas, {sum(r['steps'] for r in rows)} steps",
                        C.table(["part (corpus total, CPU)", "time"], totals),
                        C.table(["per-schema ratio, median over schemas", "ours / llguidance"], ratios)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    parser.add_argument("--save", type=Path, default=None, help="write the per-schema rows as JSON")
    args = parser.parse_args()
    C.pin_one_core()
    items = [item for item in B.prepare(B.load_corpus(args.corpus, 0)) if item["tokens"] is not None]
    rows = walk(items)
    if args.save:
        args.save.write_text(json.dumps(rows, indent=1), "utf-8")
    print(summary(rows))


if __name__ == "__main__":
    main()
