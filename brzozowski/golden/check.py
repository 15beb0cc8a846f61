"""Holding our `TokenIndex`, `Constraint` and canonical tables to the golden file.

`check_golden()` walks every recorded path with our `TokenIndex` and `Constraint` over
``regex_to_dfa(regex)`` (or over a `LazyDFA`) and compares the masks, the completeness flags and
the canonical tables; every difference becomes a `Mismatch` naming the case, path, step, and the
extra and missing token ids.

Invariant: whatever the document holds, checking it returns mismatches and never raises from
inside. The shape of every vocabulary and case is validated first, explicitly (types, id and
state ranges, lengths; see fixtures/README.md); a malformed part is one "format" mismatch that
names its place as a JSON pointer, and only well-formed cases are replayed. Nothing is caught
wholesale, so a bug of ours is a traceback, not a "format" mismatch.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from ..errors import BrzozowskiError, GoldenError, GoldenMismatchError, InputTypeError, SchemaError
from .document import DEFAULT_GOLDEN_PATH, load_golden, ranges_to_ids, rows_to_trans, unhex_tokens

__all__ = ["Mismatch", "assert_golden", "check_golden", "format_report"]

AUTOMATA = ("dfa", "lazy")

_show = reprlib.Repr()
_show.maxstring = _show.maxother = 40
_show.maxlevel = 3


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
        where = self.case if self.case.startswith(("vocabulary ", "(")) else f"case {self.case!r}"
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


# -- the shape of the document ---------------------------------------------------------------------


class _Malformed(Exception):
    """Internal: the first place where a part of the document does not have the documented shape."""

    def __init__(self, pointer: str, expected: str, value: Any) -> None:
        super().__init__(f"malformed at {pointer}: expected {expected}, found {_show.repr(value)}")


def _is_int(value: Any) -> bool:
    return type(value) is int  # not bool, not float (JSON's 1.0, Infinity and NaN are floats)


def _need(ok: bool, pointer: str, expected: str, value: Any) -> None:
    if not ok:
        raise _Malformed(pointer, expected, value)


def _member(obj: dict, key: str, pointer: str, kind: type, expected: str) -> Any:
    value = obj.get(key)
    _need(type(value) is bool if kind is bool else isinstance(value, kind), _pointer(pointer, key), expected, value)
    return value


def _pointer(parent: str, token: str | int) -> str:
    """RFC 6901: append one reference token, escaping ~ as ~0 and / as ~1."""
    return parent + "/" + str(token).replace("~", "~0").replace("/", "~1")


def _int_in(value: Any, lo: int, hi: int, pointer: str, what: str) -> int:
    _need(_is_int(value) and lo <= value <= hi, pointer, f"{what}, an integer in {lo}..{hi}", value)
    return value


def _id_set(ranges: Any, size: int, pointer: str) -> None:
    """An id set: ``[[lo, hi], ...]`` ascending and disjoint, ids in 0..size-1."""
    _need(isinstance(ranges, list), pointer, "a list of [lo, hi] ranges", ranges)
    previous = -1
    for i, pair in enumerate(ranges):
        where = f"{pointer}/{i}"
        _need(isinstance(pair, list) and len(pair) == 2, where, "a range [lo, hi]", pair)
        lo = _int_in(pair[0], previous + 1, size - 1, f"{where}/0", "an id above the previous range")
        _int_in(pair[1], lo, size - 1, f"{where}/1", "an id >= lo")
        previous = pair[1]


def _vocabulary_shape(vocabulary: Any, pointer: str) -> tuple[list[bytes | None], int]:
    _need(isinstance(vocabulary, dict), pointer, "a vocabulary object", vocabulary)
    tokens = _member(vocabulary, "tokens", pointer, list, "a list of hex strings or null")
    for t, h in enumerate(tokens):
        ok = h is None or isinstance(h, str) and len(h) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in h)
        _need(ok, f"{pointer}/tokens/{t}", "a hex string or null", h)
    _need(len(tokens) > 0, f"{pointer}/tokens", "at least one token", tokens)
    eos_id = _int_in(vocabulary.get("eos_id"), 0, len(tokens) - 1, f"{pointer}/eos_id", "a token id")
    return unhex_tokens(tokens), eos_id


def _case_shape(case: Any, pointer: str, vocabularies: dict[str, tuple[list[bytes | None], int]]) -> None:
    _need(isinstance(case, dict), pointer, "a case object", case)
    _member(case, "name", pointer, str, "a string")
    _member(case, "regex", pointer, str, "a string")
    source = _member(case, "source", pointer, dict, "an object")
    kind = source.get("kind")
    _need(kind in ("regex", "json_schema"), f"{pointer}/source/kind", '"regex" or "json_schema"', kind)
    _member(source, "pattern" if kind == "regex" else "schema", f"{pointer}/source", str, "a string")
    name = _member(case, "vocabulary", pointer, str, "a string")
    _need(name in vocabularies, f"{pointer}/vocabulary", "the name of a well-formed vocabulary", name)
    size = len(vocabularies[name][0])
    tables = _member(case, "tables", pointer, dict, "an object")
    n = _int_in(tables.get("n_states"), 1, 2**31 - 1, f"{pointer}/tables/n_states", "a state count")
    accepting = _member(tables, "accepting", f"{pointer}/tables", list, "a list of states")
    for i, s in enumerate(accepting):
        _int_in(s, 0, n - 1, f"{pointer}/tables/accepting/{i}", "a state")
    trans = _member(tables, "trans", f"{pointer}/tables", list, "a list of rows")
    for s, runs in enumerate(trans):
        _need(isinstance(runs, list), f"{pointer}/tables/trans/{s}", "a list of [lo, hi, target] runs", runs)
        for r, run in enumerate(runs):
            where = f"{pointer}/tables/trans/{s}/{r}"
            _need(isinstance(run, list) and len(run) == 3, where, "a run [lo, hi, target]", run)
            lo = _int_in(run[0], 0, 255, f"{where}/0", "a byte")
            _int_in(run[1], lo, 255, f"{where}/1", "a byte >= lo")
            _int_in(run[2], 0, n - 1, f"{where}/2", "a state")
    masks = _member(case, "masks", pointer, list, "a list of id sets")
    for m, ranges in enumerate(masks):
        _id_set(ranges, size, f"{pointer}/masks/{m}")
    eos_id = vocabularies[name][1]
    paths = _member(case, "paths", pointer, list, "a list of paths")
    for p, path in enumerate(paths):
        where = f"{pointer}/paths/{p}"
        _need(isinstance(path, dict), where, "a path object", path)
        tokens = _member(path, "tokens", where, list, "a list of token ids")
        for k, t in enumerate(tokens):
            _int_in(t, 0, size - 1, f"{where}/tokens/{k}", "a token id")
            _need(t != eos_id or k == len(tokens) - 1, f"{where}/tokens/{k}",
                  "EOS only as the last token (nothing follows EOS)", t)
        ends_with_eos = _member(path, "ends_with_eos", where, bool, "true or false")
        _need(ends_with_eos == (bool(tokens) and tokens[-1] == eos_id), f"{where}/ends_with_eos",
              "whether the last token is EOS", ends_with_eos)
        for k, m in enumerate(_member(path, "mask", where, list, "a list of mask indices")):
            _int_in(m, 0, len(masks) - 1, f"{where}/mask/{k}", "an index into masks")
        for k, flag in enumerate(_member(path, "complete", where, list, "a list of true/false")):
            _need(type(flag) is bool, f"{where}/complete/{k}", "true or false", flag)


# -- replaying a well-formed case ------------------------------------------------------------------


def _check_tables(name: str, dfa: Any, tables: dict[str, Any]) -> list[Mismatch]:
    out: list[Mismatch] = []
    n = tables["n_states"]
    if n != dfa.n_states or len(tables["trans"]) != n:
        return [Mismatch(name, "n_states", detail=f"we have {dfa.n_states} states, the file {n} "
                         f"(and {len(tables['trans'])} rows)")]
    ours = set(int(s) for s in np.flatnonzero(dfa.accept))
    theirs = set(tables["accepting"])
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


def _compile(case: dict[str, Any]) -> tuple[Any, list[Mismatch]]:
    """The case's DFA (None if its regex does not compile) and the regex/source mismatches."""
    from ..automata.dfa import regex_to_dfa
    from ..json.strict import json_schema_to_regex

    name, regex, source = case["name"], case["regex"], case["source"]
    out: list[Mismatch] = []
    compiled = source["pattern"] if source["kind"] == "regex" else None
    if compiled is None:
        try:
            schema = json.loads(source["schema"])
        except (json.JSONDecodeError, RecursionError) as error:
            compiled = f"(not JSON: {type(error).__name__}: {_show.repr(str(error))})"
        else:
            try:
                compiled = json_schema_to_regex(schema)
            except SchemaError as error:
                compiled = f"(a SchemaError: {_show.repr(str(error))})"
    if compiled != regex:
        out.append(Mismatch(name, "regex", detail=f"the source compiles to {compiled!r:.200}, the file "
                            f"records {regex!r:.200}"))
    try:
        return regex_to_dfa(regex), out
    except BrzozowskiError as error:  # a regex outside the subset, or a state explosion
        return None, out + [Mismatch(name, "regex", detail=f"the file's regex does not compile: {error}")]


def _check_case(case: dict[str, Any], vocab: list[bytes | None], eos_id: int,
                automaton: str) -> list[Mismatch]:
    from ..runtime.constraint import Constraint
    from ..automata.lazy import LazyDFA
    from ..masks.index import TokenIndex

    name = case["name"]
    dfa, out = _compile(case)
    if dfa is None:
        return out
    out += _check_tables(name, dfa, case["tables"])
    index = TokenIndex(dfa if automaton == "dfa" else LazyDFA(case["regex"]), vocab, eos_id=eos_id)
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
            if c.is_complete() != complete:
                out.append(Mismatch(name, "complete", p, k,
                                    detail=f"we say {c.is_complete()}, the file says {complete}"))
            if k < len(tokens):
                if tokens[k] != eos_id and vocab[tokens[k]]:
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

    `data`: the parsed document or a path (`GoldenMismatchError` if it cannot be read as a golden
    file; `InputTypeError` for anything else, or for `cases` that are not names). `cases`: the
    names to check (default all). `automaton`: "dfa" (TokenIndex over regex_to_dfa) or "lazy"
    (over a LazyDFA).
    """
    if not isinstance(automaton, str) or automaton not in AUTOMATA:
        raise GoldenError(f"automaton must be 'dfa' or 'lazy', not {_show.repr(automaton)}")
    if not isinstance(data, (dict, str, PurePath)):
        raise InputTypeError(f"data must be a golden document (a dict) or a path, not "
                             f"{type(data).__name__}: {_show.repr(data)}")
    if isinstance(cases, (str, bytes)) or not (cases is None or isinstance(cases, Iterable)):
        raise InputTypeError(f"cases must be a list of case names, not {type(cases).__name__}: "
                             f"{_show.repr(cases)}")
    wanted = None if cases is None else set(cases)
    if wanted is not None and not all(isinstance(name, str) for name in wanted):
        raise InputTypeError(f"cases must be case names (str), not {_show.repr(sorted(map(repr, wanted)))}")
    if not isinstance(data, dict):
        data = load_golden(data)
    out: list[Mismatch] = []
    vocabularies: dict[str, tuple[list[bytes | None], int]] = {}
    all_vocabularies = data.get("vocabularies")
    all_cases = data.get("cases")
    if not isinstance(all_vocabularies, dict) or not isinstance(all_cases, list):
        return [Mismatch("(document)", "format", detail=(
            f"\"vocabularies\" must be an object and \"cases\" a list; found "
            f"{type(all_vocabularies).__name__} and {type(all_cases).__name__}"))]
    for name, vocabulary in sorted(all_vocabularies.items()):
        try:
            vocab, eos_id = _vocabulary_shape(vocabulary, _pointer("/vocabularies", name))
        except _Malformed as error:
            out.append(Mismatch(f"vocabulary {name}", "format", detail=str(error)))
            continue
        vocabularies[name] = vocab, eos_id
        nulls = [t for t, data in enumerate(vocab) if data is None]
        if vocabulary.get("special_ids") != nulls:
            out.append(Mismatch(f"vocabulary {name}", "format", detail=(
                f"special_ids {_show.repr(vocabulary.get('special_ids'))} should be the null tokens {nulls}")))
    known = set()
    for i, case in enumerate(all_cases):
        name = case.get("name") if isinstance(case, dict) else None
        label = name if isinstance(name, str) else f"(case {i})"
        known.add(label)
        if wanted is not None and label not in wanted:
            continue
        try:
            _case_shape(case, f"/cases/{i}", vocabularies)
        except _Malformed as error:
            out.append(Mismatch(label, "format", detail=str(error)))
            continue
        out += _check_case(case, *vocabularies[case["vocabulary"]], automaton)
    if wanted is not None:
        for missing in sorted(wanted - known):
            out.append(Mismatch(missing, "format", detail="no such case in the golden file"))
    return out


def assert_golden(data: dict[str, Any] | str | Path = DEFAULT_GOLDEN_PATH, **kwargs: Any) -> None:
    """`check_golden`, raising `GoldenMismatchError` with the report when anything differs."""
    mismatches = check_golden(data, **kwargs)
    if mismatches:
        source = str(data) if not isinstance(data, dict) else "the golden document"
        raise GoldenMismatchError(format_report(mismatches, source))
