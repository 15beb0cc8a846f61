"""Instructions executed by the corpus's mask steps and first masks, counted by callgrind: an A/B
measure that does not move with the machine's load (CPU time on a shared machine moved by up to
1.4x between runs of the same code; these counts move by ~0.05%).

    PYTHONPATH=<tree> python benchmarks/bench_instructions.py [--corpus DIR] [--phase steps|first|lockstep]
                                                               [--engine ours|ours-strict] [--exclude NAMES]
                                                               [--only NAMES] [--no-mask-deadline]

Every schema of the corpus with a document is compiled (`bench_corpus.OURS_OPTIONS`) and its first
bitmask taken (phase ``first``); then every document is walked, bitmask then advance per token, EOS
last (phase ``steps``). ``--engine ours-strict`` compiles through the strict front door instead
(`bench_corpus`'s secondary column, ``LazyDFA(json_schema_to_regex(schema))``, 40 schemas): a
version that changed `compile_json_schema`'s language (issue 37's other keys) but not the strict
regex walks the very same automata there, so that phase compares the mask engines alone (check that
both versions write the same regexes). ``--exclude`` leaves out the corpus schemas named (comma
separated, as `bench_corpus` names them): those whose masks differ between the two versions
compared, so that both walk the same language. ``--only`` keeps the schemas named alone, with the
documents the whole corpus draws for them (a document is drawn by its schema's place in the
corpus: a folder holding one schema would draw another). ``--no-mask-deadline`` turns the mask
deadline off (``Limits.mask_seconds=None``): the difference is the deadline's share of the count.
Only the phase asked for runs under callgrind's
instrumentation (started and stopped by a two-function shim compiled with ``cc`` against valgrind's
``callgrind.h``); the other runs uninstrumented, at a few times native speed. Needs valgrind and a C
compiler (not a CPU time benchmark: numpy's bulk operations are many cheap instructions, the
interpreter's fewer dear ones; compare versions with it, not libraries). ~45 s per phase over
`benchmarks/corpus/`.

Phase ``lockstep`` walks as `bench_corpus` does, each schema compiled, then each step of ours
followed by llguidance's, under callgrind's cache simulation (L1 32 kB, last level 1 MB: this
machine's L2): llguidance's steps are simulated but not counted, so they cool the caches ours
meet, as on the machine. It prints our steps' instructions and cache misses, and an estimate of
their cycles, Ir + 10 x L1 misses + 40 x last-level misses: deterministic (±0.1%), where the
lockstep CPU time of the same code moves by ±5% between runs. ~5 minutes.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHIM = """#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; }
void stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
"""
CACHES = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,8,64"]


def worker(args: argparse.Namespace) -> None:
    """Compile, first-mask and walk the corpus, with callgrind's instrumentation on for ``args.phase``."""
    corpus, phase, shim, engine = args.corpus, args.phase, args.worker, args.engine
    exclude, only = (frozenset(filter(None, names.split(","))) for names in (args.exclude, args.only))
    sys.path.insert(0, str(HERE))
    import bench_corpus as B

    from brzozowski import Constraint, LazyDFA

    cg = ctypes.CDLL(shim)
    items = [item for item in B.prepare(B.load_corpus(corpus, 0))
             if item["tokens"] is not None and item["name"] not in exclude and (not only or item["name"] in only)]
    _time_limits_that_never_fire(None if args.no_mask_deadline else 1e9)
    make, compilers, eos = B._ours_factory()
    compile_schema = compilers[engine]
    Constraint(make(LazyDFA("q"))).bitmask()  # one-time process costs, as bench_corpus
    gc.collect()
    gc.freeze()
    if phase == "lockstep":
        lockstep(items, make, compile_schema, eos, cg)
        return
    walks = []
    if phase == "first":
        cg.start()
    for item in items:
        try:
            constraint = Constraint(make(compile_schema(item["schema"])))
            constraint.bitmask()
        except ValueError:  # a refused schema
            continue
        walks.append((item, constraint))
    if phase == "first":
        cg.stop()
        return
    gc.collect()
    cg.start()
    for item, constraint in walks:
        try:
            for token in item["tokens"] + [eos]:
                constraint.bitmask()
                constraint.advance(token)
        except ValueError:  # a document the language refuses mid-walk
            continue
    cg.stop()


def _time_limits_that_never_fire(mask_seconds: float | None = 1e9) -> None:
    """Set the default time limits (``compile_seconds``, ``mask_seconds``, where the tree has them)
    too long to fire, still checked as they are (`mask_seconds` None: no mask deadline). Callgrind
    runs the worker tens of times slower, so a default limit would refuse some compiles in one run
    and not in the next, and the counts would move with the machine's load. In place, in this
    worker only: every version of the library reads its defaults from there
    (`brzozowski.budget.DEFAULT_LIMITS`, the `Limits` defaults)."""
    import dataclasses

    try:
        from brzozowski import budget
    except ImportError:  # (a tree from before the time limits)
        return
    fields = [field.name for field in dataclasses.fields(budget.Limits)]
    defaults = list(budget.Limits.__init__.__defaults__)
    for name, seconds in (("compile_seconds", 1e9), ("mask_seconds", mask_seconds)):
        if name in fields:
            object.__setattr__(budget.DEFAULT_LIMITS, name, seconds)
            defaults[fields.index(name)] = seconds
    budget.Limits.__init__.__defaults__ = tuple(defaults)


def lockstep(items: list[dict], make, compile_schema, eos: int, cg: ctypes.CDLL) -> None:
    """`bench_corpus`'s lockstep walk, instrumented throughout, our steps alone collected."""
    import bench_corpus as B

    tok, _bits, ptr, nbytes = B.llguidance_mask_buffer(eos)
    cg.start()
    for item, constraint, matcher in B.both_started(items, make, compile_schema, tok, ptr, nbytes):
        try:
            for token in item["tokens"] + [eos]:
                cg.toggle()
                try:
                    constraint.bitmask()
                    constraint.advance(token)
                finally:  # (a document refused mid-walk must not leave the collection on)
                    cg.toggle()
                matcher.unsafe_compute_mask_ptr(ptr, nbytes)
                matcher.consume_token(token)
        except ValueError:  # a document the language refuses mid-walk
            continue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    parser.add_argument("--phase", choices=["steps", "first", "lockstep"], default="steps")
    parser.add_argument("--engine", choices=["ours", "ours-strict"], default="ours",
                        help="the schema front door: compile_json_schema (default) or the strict regex")
    parser.add_argument("--exclude", default="", help="corpus schemas left out, by name, comma separated")
    parser.add_argument("--only", default="", help="the corpus schemas kept, by name, comma separated (default: all)")
    parser.add_argument("--no-mask-deadline", action="store_true",
                        help="no mask deadline (Limits.mask_seconds=None): its share of the count")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        source, shim = Path(tmp) / "shim.c", Path(tmp) / "shim.so"
        source.write_text(SHIM)
        built = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(shim), str(source)],
                               capture_output=True, text=True)
        if built.returncode:
            raise SystemExit(f"cannot build the callgrind shim (valgrind's headers?): {built.stderr.strip()}")
        simulated = CACHES + ["--collect-atstart=no"] if args.phase == "lockstep" else []
        run = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", *simulated,
                              f"--callgrind-out-file={tmp}/callgrind.out", sys.executable, __file__,
                              "--corpus", str(args.corpus), "--phase", args.phase, "--engine", args.engine,
                              "--exclude", args.exclude, "--only", args.only, "--worker", str(shim),
                              *(["--no-mask-deadline"] if args.no_mask_deadline else [])],
                             capture_output=True, text=True)
        found = re.search(r"Collected : ([\d ]+)", run.stderr)
        if run.returncode or not found:
            raise SystemExit(f"callgrind run failed (exit {run.returncode}): {run.stderr.strip()[-500:]}")
        counts = [int(n) for n in found.group(1).split()]
        if args.phase != "lockstep":
            print(json.dumps({"phase": args.phase, "engine": args.engine, "instructions": counts[0]}))
            return
        events = re.search(r"^events: (.+)$", Path(f"{tmp}/callgrind.out").read_text(), re.M).group(1).split()
        totals = dict(zip(events, counts))
        l1 = totals["I1mr"] + totals["D1mr"] + totals["D1mw"]
        last = totals["ILmr"] + totals["DLmr"] + totals["DLmw"]
        print(json.dumps({"phase": args.phase, "instructions": totals["Ir"], "l1_misses": l1,
                          "last_level_misses": last, "estimated_cycles": totals["Ir"] + 10 * l1 + 40 * last}))


if __name__ == "__main__":
    main()
