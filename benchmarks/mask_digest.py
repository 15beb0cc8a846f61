"""Digests of every mask a tree of brzozowski computes over a fixed workload: proof that a change
(a redesign of the mask engine, a layout move) keeps every mask bit-identical.

    PYTHONPATH=<tree> python benchmarks/mask_digest.py --out DIGEST.json [--limit N] [--only SUBSTR]
    python benchmarks/mask_digest.py --compare A.json B.json      # exit 1 on any difference

Only the top-level API is used (``brzozowski.compile_json_schema``, ``regex_to_dfa``, ``LazyDFA``,
``TokenIndex``, ``Vocabulary``, ``load_tiktoken_vocab``, ``json_schema_to_regex``, and the golden
case list ``brzozowski.golden.cases``, whose path every layout keeps), so one script digests the old
flat layout and the layered one alike. The workload is fixed by this script's own checkout: the
corpus folder beside it (``benchmarks/corpus/``), its documents (``bench_corpus.prepare``: the same
seeded instances, o200k_base tokens) and ``tests/corpus.py``, whatever tree PYTHONPATH imports.

Cases (a JSON object: case name -> one entry per step; ``_meta`` is not a case):

- ``doc/<schema>``: every corpus schema through ``compile_json_schema(schema, **OURS_OPTIONS)``
  (bench_corpus.py's options), its document walked token by token, EOS last.
- ``walk<k>/<schema>``: seeded random walks over the same automaton (numpy Generator seeded by the
  case name): at each step a token drawn from the allowed ones, preferring by turns tokens with
  JSON structure, backslashes, bytes >= 0x80 or digits (so the walks reach escapes, half
  characters and numbers the documents never do); EOS, when allowed, ends a walk with probability
  0.15; at most ``--walk-steps`` steps.
- ``pattern/<name>/<vocab>/<dfa|lazy>``: every state (up to ``MAX_PATTERN_STATES``) of
  ``regex_to_dfa(p)`` and of ``LazyDFA(p)`` (explored breadth first by its rows) for the patterns of
  tests/corpus.py and of the golden cases (schemas via ``json_schema_to_regex``; ``lazy-schema``:
  ``compile_json_schema``), over o200k_base, the golden o200k subset, the golden edge vocabulary and
  the hand vocabulary.
- ``strategy/<expansion>-<trie>-<strings>/<case>``: the first ``--strategy-schemas`` document walks
  and the o200k lazy pattern cases again, under every ``TokenIndex.set_strategy`` combination. The masks
  must not depend on it: the summary counts the entries that differ from the same case's default.

Each step's entry is ``<sha256 of mask(s) as bool bytes>:<sha256 of bitmask(s)>:<next>:<raw next>``.
The mask and the bitmask come from two indexes over the same automaton (one asked only for masks,
one only for bitmasks, so both computations run, not one unpacked from the other's cache), and the
run checks that they agree (``packed != mask`` in the summary). ``next`` is the state after the
step's token numbered by first appearance in the case (invariant to the order a lazy automaton
discovers states in; ``raw`` is ``next_state``'s own id, which a change may renumber without
changing any language: ``--compare --ignore-raw-ids`` leaves it out); ``-`` where a case has no
token (pattern cases digest every state). A refused schema is one entry ``refused:<error class>``;
an error mid-case ends the case with ``error:<class>``; a document token refused ends it with
``dead``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_corpus as B  # noqa: E402  (the corpus, its documents, the compile options)

SEED = 35
MAX_PATTERN_STATES = 400
EXPANSIONS = ("auto", "sparse", "dense")
TRIES = ("auto", "bytes", "classes")
STRUCTURE = b'{}[]":,'


def sha(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def _load_test_corpus():
    """tests/corpus.py of this script's checkout (by path: not the tree PYTHONPATH imports)."""
    spec = importlib.util.spec_from_file_location("_digest_test_corpus", HERE.parent / "tests" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Digest:
    """The run: vocabularies, the cases written so far and the counters of the summary line."""

    def __init__(self, args: argparse.Namespace) -> None:
        import brzozowski

        self.bz = brzozowski
        self.args = args
        self.out: dict[str, list[str]] = {}
        self.steps = self.masks = self.inconsistent = self.refused = self.errors = 0
        self.dead = [0, 0]  # documents / random walks that met a token their state refuses
        self.vocabs: dict[str, object] = {}
        self.token_flags: dict[str, dict[str, np.ndarray]] = {}

    # -- vocabularies ----------------------------------------------------------------------------

    def vocabulary(self, name: str):
        if name not in self.vocabs:
            bz = self.bz
            if name == "o200k":
                tokens, eos = bz.load_tiktoken_vocab(B.VOCAB)
            else:
                from brzozowski.golden import cases as G

                if name == "subset":
                    tokens, eos, _ = G.tiktoken_subset()
                elif name == "edge":
                    tokens, eos = G.EDGE_VOCAB, 12
                else:
                    tokens, eos = G.HAND_VOCAB, 13
            self.vocabs[name] = bz.Vocabulary(tokens, eos)
        return self.vocabs[name]

    def flags(self, name: str) -> dict[str, np.ndarray]:
        """Per token of vocabulary `name`: holds JSON structure / a backslash / a byte >= 0x80 / a digit."""
        if name not in self.token_flags:
            tokens = self.vocabulary(name).tokens
            def has(test):
                return np.array([bool(t) and test(t) for t in tokens], dtype=bool)
            self.token_flags[name] = {
                "structure": has(lambda t: len(t.translate(None, STRUCTURE)) < len(t)),
                "backslash": has(lambda t: b"\\" in t),
                "high": has(lambda t: not t.isascii()),
                "digit": has(lambda t: any(48 <= c <= 57 for c in t)),
            }
        return self.token_flags[name]

    # -- one case --------------------------------------------------------------------------------

    def indexes(self, automaton, vocab: str, strategy: tuple | None):
        """Two fresh indexes over `automaton`: one for masks, one for bitmasks."""
        pair = [self.bz.TokenIndex(automaton, self.vocabulary(vocab)) for _ in range(2)]
        if strategy is not None:
            for index in pair:
                index.set_strategy(expansion=strategy[0], trie=strategy[1], strings=strategy[2])
        return pair

    def entry(self, masks, bits, state: int, numbering: dict[int, int] | None, nxt: int | None) -> tuple[str, np.ndarray]:
        mask = masks.mask(state)
        bitmask = bits.bitmask(state)
        packed = np.packbits(mask, bitorder="little")
        raw = bitmask.view(np.uint8)
        if raw[: packed.size].tobytes() != packed.tobytes() or raw[packed.size :].any():
            self.inconsistent += 1
        self.masks += 1
        if nxt is None:
            return f"{sha(mask)}:{sha(bitmask)}:-:-", mask
        self.steps += 1
        canon = numbering.setdefault(nxt, len(numbering)) if nxt >= 0 else -1
        return f"{sha(mask)}:{sha(bitmask)}:{canon}:{nxt}", mask

    def walk(self, name: str, automaton, vocab: str, tokens=None, rng=None, strategy=None) -> None:
        """A document walk (`tokens`, EOS appended) or a random walk (`rng`)."""
        entries: list[str] = []
        self.out[name] = entries
        try:
            masks, bits = self.indexes(automaton, vocab, strategy)
            eos = masks.eos_id
            flags = self.flags(vocab) if rng is not None else None
            state = masks.start
            numbering = {state: 0}
            steps = tokens + [eos] if tokens is not None else range(self.args.walk_steps)
            for i, tok in enumerate(steps):
                mask = masks.mask(state)
                if rng is not None:
                    tok = self.choose(rng, mask, eos, flags)
                    if tok is None:
                        e, _ = self.entry(masks, bits, state, numbering, None)
                        entries.append(e)
                        break
                nxt = bits.next_state(state, tok)
                e, _ = self.entry(masks, bits, state, numbering, nxt)
                entries.append(e)
                if nxt < 0:
                    entries.append("dead")
                    self.dead[rng is not None] += 1
                    break
                if tok == eos:
                    break
                state = nxt
        except Exception as exc:  # noqa: BLE001 - recorded, and counted in the summary
            entries.append(f"error:{type(exc).__name__}")
            self.errors += 1

    @staticmethod
    def choose(rng: np.random.Generator, mask: np.ndarray, eos: int | None, flags: dict) -> int | None:
        if eos is not None and mask[eos] and rng.random() < 0.15:
            return eos
        allowed = mask.copy()
        if eos is not None:
            allowed[eos] = False
        r = rng.random()
        kind = "structure" if r < 0.3 else "backslash" if r < 0.4 else "high" if r < 0.55 else "digit" if r < 0.65 else None
        if kind is not None:
            preferred = np.flatnonzero(allowed & flags[kind])
            if preferred.size:
                return int(preferred[rng.integers(preferred.size)])
        ids = np.flatnonzero(allowed)
        if not ids.size:
            return eos if eos is not None and mask[eos] else None
        return int(ids[rng.integers(ids.size)])

    def states(self, name: str, automaton, vocab: str, lazy: bool, strategy=None) -> None:
        """Every state of `automaton` (a lazy one explored breadth first by its rows), in order."""
        entries: list[str] = []
        self.out[name] = entries
        try:
            if lazy:
                seen = 0
                while seen < automaton.n_states and automaton.n_states < MAX_PATTERN_STATES:
                    automaton.row(seen)
                    seen += 1
            n = min(automaton.n_states, MAX_PATTERN_STATES)
            masks, bits = self.indexes(automaton, vocab, strategy)
            for state in range(n):
                entries.append(self.entry(masks, bits, state, None, None)[0])
        except Exception as exc:  # noqa: BLE001
            entries.append(f"error:{type(exc).__name__}")
            self.errors += 1

    # -- the workload ----------------------------------------------------------------------------

    def wanted(self, name: str) -> bool:
        return self.args.only is None or self.args.only in name

    def corpus(self) -> list[dict]:
        items = B.prepare(B.load_corpus(B.HERE / "corpus", 0))
        return items[: self.args.limit] if self.args.limit is not None else items

    def run_schemas(self, items: list[dict]) -> None:
        bz = self.bz
        for item in items:
            name = item["name"]
            names = [f"doc/{name}"] + [f"walk{k}/{name}" for k in range(self.args.walks)]
            if not any(self.wanted(n) for n in names):
                continue
            try:
                automaton = bz.compile_json_schema(item["schema"], **B.OURS_OPTIONS)
            except ValueError as exc:  # a refused schema (BrzozowskiError)
                for n in names:
                    if self.wanted(n):
                        self.out[n] = [f"refused:{type(exc).__name__}"]
                self.refused += 1
                continue
            if item["tokens"] is not None and self.wanted(names[0]):
                self.walk(names[0], automaton, "o200k", tokens=list(item["tokens"]))
            for n in names[1:]:
                if self.wanted(n):
                    rng = np.random.default_rng([SEED, zlib.crc32(n.encode())])
                    self.walk(n, automaton, "o200k", rng=rng)

    def patterns(self) -> list[tuple[str, str, bool]]:
        """(name, pattern or schema text, is a schema)."""
        tc = _load_test_corpus()
        found: list[tuple[str, str, bool]] = []
        for key, p in tc.REAL_PATTERNS.items():
            found.append((f"real-{key}", p, False))
        for group in ("SYNTAX_PATTERNS", "DRAWN_PATTERNS", "TWO_LETTER_PATTERNS"):
            for i, p in enumerate(getattr(tc, group)):
                found.append((f"{group.split('_')[0].lower()}{i}", p, False))
        try:
            from brzozowski.golden.cases import CASES
        except ImportError:
            CASES = ()
        for spec in CASES:
            if spec.pattern is not None:
                found.append((f"golden-{spec.name}", spec.pattern, False))
            else:
                found.append((f"golden-{spec.name}", spec.schema, True))
        seen, unique = set(), []
        for name, text, schema in found:  # (HAND is in three lists)
            if (text, schema) not in seen:
                seen.add((text, schema))
                unique.append((name, text, schema))
        return unique

    def pattern_automata(self, text: str, schema: bool):
        """(kind, make automaton) of one pattern; None where the tree cannot build it."""
        bz = self.bz
        if schema:
            value = json.loads(text)
            regex = bz.json_schema_to_regex(value)
            return [("dfa", lambda: bz.regex_to_dfa(regex)), ("lazy", lambda: bz.LazyDFA(regex)),
                    ("lazy-schema", lambda: bz.compile_json_schema(value))]
        return [("dfa", lambda: bz.regex_to_dfa(text)), ("lazy", lambda: bz.LazyDFA(text))]

    def run_patterns(self, vocabs=("o200k", "subset", "edge", "hand"), strategy=None, prefix="",
                     kinds=("dfa", "lazy", "lazy-schema")) -> None:
        for pname, text, schema in self.patterns():
            for kind, make in self.pattern_automata(text, schema):
                if kind not in kinds:
                    continue
                for vocab in vocabs:
                    name = f"{prefix}pattern/{pname}/{vocab}/{kind}"
                    if not self.wanted(name):
                        continue
                    try:
                        automaton = make()
                    except ValueError as exc:
                        self.out[name] = [f"refused:{type(exc).__name__}"]
                        self.refused += 1
                        continue
                    self.states(name, automaton, vocab, kind != "dfa", strategy)

    def run_strategies(self, items: list[dict]) -> int:
        """The strategy cases; returns how many entries differ from their default case's."""
        walked = [i for i in items if i["tokens"] is not None][: self.args.strategy_schemas]
        automata = {}
        for item in walked:
            try:
                automata[item["name"]] = self.bz.compile_json_schema(item["schema"], **B.OURS_OPTIONS)
            except ValueError:
                continue
        differ = 0
        for expansion in EXPANSIONS:
            for trie in TRIES:
                for strings in (True, False):
                    combo = (expansion, trie, strings)
                    prefix = f"strategy/{expansion}-{trie}-{'strings' if strings else 'nostrings'}/"
                    for item in walked:
                        name = prefix + f"doc/{item['name']}"
                        if item["name"] in automata and self.wanted(name):
                            self.walk(name, automata[item["name"]], "o200k", tokens=list(item["tokens"]),
                                      strategy=combo)
                    self.run_patterns(("o200k",), combo, prefix, kinds=("lazy", "lazy-schema"))
        for name, entries in self.out.items():
            if name.startswith("strategy/"):
                default = self.out.get(name.split("/", 2)[2])
                if default is not None and default != entries:
                    differ += sum(a != b for a, b in zip(default, entries)) + abs(len(default) - len(entries))
        return differ


def compare(a_path: Path, b_path: Path, ignore_raw: bool, common: bool) -> int:
    a, b = (json.loads(Path(p).read_text("utf-8")) for p in (a_path, b_path))
    if common:  # a quick run (--only, --limit) against a full one: the cases both hold
        shared = (set(a) & set(b)) - {"_meta"}
        print(f"--common: {len(shared)} cases in both; left out: {len(set(a) - shared) - 1} of A, "
              f"{len(set(b) - shared) - 1} of B")
        a, b = ({k: v for k, v in x.items() if k in shared} for x in (a, b))
    fields = ("mask", "bitmask", "next", "raw next")
    differences = 0
    for name in sorted(set(a) | set(b)):
        if name.startswith("_"):
            continue
        if name not in a or name not in b:
            print(f"{name}: only in {a_path if name in a else b_path}")
            differences += 1
            continue
        x, y = a[name], b[name]
        for i in range(max(len(x), len(y))):
            p = x[i] if i < len(x) else "(none)"
            q = y[i] if i < len(y) else "(none)"
            if p == q:
                continue
            ps, qs = p.split(":"), q.split(":")
            if len(ps) == len(qs) == 4:
                which = [f for f, u, v in zip(fields, ps, qs) if u != v]
                if ignore_raw and which == ["raw next"]:
                    continue
                print(f"{name} step {i}: {', '.join(which)} differ ({p[:12]}.. vs {q[:12]}..; "
                      f"next {ps[2]}/{ps[3]} vs {qs[2]}/{qs[3]})")
            else:
                print(f"{name} step {i}: {p[:80]} vs {q[:80]}")
            differences += 1
    steps = sum(len(v) for k, v in a.items() if not k.startswith("_"))
    print(f"compared {len([k for k in a if not k.startswith('_')])} / {len([k for k in b if not k.startswith('_')])} "
          f"cases ({steps} entries in A): {differences} differences")
    return 1 if differences else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the digests here (JSON)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"),
                        help="print every case/step where two digest files differ; exit 1 if any")
    parser.add_argument("--ignore-raw-ids", action="store_true",
                        help="with --compare: a renumbered next state (same canonical one) is no difference")
    parser.add_argument("--common", action="store_true",
                        help="with --compare: only the cases both files hold (a quick run against a full one)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N corpus schemas")
    parser.add_argument("--only", default=None, help="only the cases whose name contains SUBSTR")
    parser.add_argument("--walks", type=int, default=6, help="random walks per corpus schema")
    parser.add_argument("--walk-steps", type=int, default=128, help="steps of a random walk at most")
    parser.add_argument("--strategy-schemas", type=int, default=16,
                        help="corpus documents walked under every set_strategy combination")
    parser.add_argument("--no-strategies", action="store_true")
    parser.add_argument("--no-patterns", action="store_true")
    args = parser.parse_args()
    if args.compare:
        raise SystemExit(compare(*args.compare, args.ignore_raw_ids, args.common))
    if args.out is None:
        parser.error("--out or --compare is required")
    start = time.perf_counter()
    run = Digest(args)
    items = run.corpus()
    t = time.perf_counter()
    run.run_schemas(items)
    timings = [f"schemas {time.perf_counter() - t:.0f} s"]
    if not args.no_patterns:
        t = time.perf_counter()
        run.run_patterns()
        timings.append(f"patterns {time.perf_counter() - t:.0f} s")
    differ = None
    if not args.no_strategies:
        t = time.perf_counter()
        differ = run.run_strategies(items)
        timings.append(f"strategies {time.perf_counter() - t:.0f} s")
    distinct = len({e.split(":")[0] for v in run.out.values() for e in v if e.count(":") == 3})
    summary = (f"cases {len(run.out)}, steps {run.steps}, masks {run.masks} ({distinct} distinct), "
               f"refused {run.refused}, errors {run.errors}, packed != mask {run.inconsistent}, "
               f"documents refused mid-walk {run.dead[0]}, random walks dead (a mask allowed a token "
               f"next_state refuses) {run.dead[1]}, "
               f"strategy entries differing from default {differ if differ is not None else '-'}; "
               f"{time.perf_counter() - start:.0f} s ({', '.join(timings)})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out = {"_meta": [f"brzozowski {run.bz.__file__}", summary, " ".join(sys.argv[1:])], **run.out}
    args.out.write_text(json.dumps(out, indent=0), "utf-8")
    print(summary)


if __name__ == "__main__":
    main()
