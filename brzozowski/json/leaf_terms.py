"""The leaf languages of `compile_json_schema`: JSON strings, integers and numbers under their keywords.

Each function returns the `Term` of the JSON *text* of the values a leaf schema allows (a string
with its quotes, a number as written). Without keywords the languages are exactly those of the
strict compiler in `brzozowski.json.strict`: strings of RFC 3629 UTF-8, raw DEL, the JSON escapes and
``\\u`` surrogates only as high+low pairs; integers ``-?(0|[1-9][0-9]*)``; numbers with optional
fraction and exponent. The work is done by one module per job: `brzozowski.json.numbers` (bounds,
``multipleOf``), `brzozowski.json.strings` (the spellings of characters, lengths),
`brzozowski.json.ecma_regex` (``pattern``) and `brzozowski.json.formats` (``format``).

Invariant (soundness): every text a returned term matches is accepted by ``json.loads``, and the
decoded value is valid against the keywords given (as ``jsonschema``, Draft 2020-12 with
``FormatChecker``, decides). Where the language is narrower than the keywords, one human-readable
line goes to `notes`; keywords that leave no value give ∅ and a note (another type or ``anyOf``
branch may still allow something); what cannot be done is refused with `SchemaError` (empty
pointer: the caller knows where the keyword sits), never ignored. Keywords given together
(``pattern``, ``format`` and length bounds; ``multipleOf`` and bounds) are intersected with
`brzozowski.core.terms.inter`, and a combination whose language is empty (`brzozowski.automata.lazy.is_empty`)
gives ∅ and a note.

>>> from brzozowski.core.derivatives import matches
>>> string = json_string_term()
>>> matches(string, b'"caf\\xc3\\xa9 \\\\u00e9"'), matches(string, b'"\\\\ud800"')
(True, False)

References: RFC 8259 (JSON), RFC 3629 (UTF-8), JSON Schema Validation (draft 2020-12).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable

from .ecma_regex import Piece, parse_pattern
from ..errors import EmptyLanguageError, SchemaError
from .format_tables import FormatTable, format_dfa
from .formats import FORMAT_PATTERNS, NARROWER, parse_format
from .numbers import integer_parts, integer_table, integer_term, number_term
from .strings import ANY_CHAR, string_term
from ..automata.lazy import is_empty
from ..automata.leaves import shared_leaf, table_leaf
from .format_tables import format_leaf
from ..core.terms import EMPTY, Term, byte, concat, inter, repeat

__all__ = ["FORMATS", "json_integer_term", "json_number_term", "json_string_term"]

#: The values of ``format`` that `json_string_term` implements.
FORMATS: frozenset[str] = frozenset(FORMAT_PATTERNS)

_QUOTE = byte(ord('"'))


def json_string_term(*, min_length: int = 0, max_length: int | None = None, pattern: str | None = None,
                     format: str | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the strings allowed by the string keywords.

    Length bounds count decoded characters (`brzozowski.json.strings`); `pattern` is an ECMA-262
    search (`brzozowski.json.ecma_regex`); `format` one of `FORMATS` (`brzozowski.json.formats`). Given
    together, their languages are intersected (over the encoded text, which is exact: each language
    holds every spelling of its decoded strings), except where the lengths a pattern or format
    allows already lie inside the bounds. A format with a shipped table is its atom
    (`brzozowski.json.format_tables.format_leaf`), intersected with the rest, if any, as one shared automaton.
    """
    lengths = string_term(min_length, max_length)  # checks the bounds
    lengths_given = min_length != 0 or max_length is not None
    parts: list[Piece] = []
    table = None  # the format's shipped table (its strings: one atom, `brzozowski.automata.leaves`)
    if format is not None:
        if not isinstance(format, str) or format not in FORMATS:
            raise SchemaError(f"format {format!r} is not implemented (implemented: {', '.join(sorted(FORMATS))})",
                              "", "format")
        if notes is not None and format in NARROWER:
            notes.append(f"format {format}: {NARROWER[format]}")
        table = format_dfa(format)
        if table is None:
            parts.append(parse_format(format))
        elif pattern is None and (not lengths_given or _lengths_implied(table.fewest, table.most,
                                                                        min_length, max_length)):
            return format_leaf(format)  # the format's term is never built
    if pattern is not None:
        parts.append(parse_pattern(pattern))
        if notes is not None and _narrows(pattern):
            notes.append("pattern: \\d, \\w, \\s, '.' and '$' take the meaning ECMA-262 and Python's re "
                         "share (ASCII digits and word characters, no line terminators, '$' only at the end)")
    if not parts and table is None:
        term = lengths
    else:
        bounds = [piece[1:] for piece in parts] + ([(table.fewest, table.most)] if table else [])
        fewest = max(lo for lo, _ in bounds)
        most = min((hi for _, hi in bounds if hi is not None), default=None)
        inside = [piece[0] for piece in parts]
        if lengths_given and not _lengths_implied(fewest, most, min_length, max_length):
            crossed = max_length is not None and min_length > max_length  # minLength > maxLength
            inside.append(EMPTY if crossed else repeat(ANY_CHAR, min_length, max_length))
        term = concat(_QUOTE, inter(*inside), _QUOTE)
        if table is not None:  # "x" in both iff x in both: string contents hold no raw quote
            term = inter(term, format_leaf(format))
    if format is not None and term is not EMPTY:  # the same language in every schema that names it
        try:
            return shared_leaf(term)  # (one automaton: its search of the emptiness kept what it derived)
        except EmptyLanguageError:
            term = EMPTY
    if (term is EMPTY or is_empty(term)) and notes is not None:
        given = [k for k, v in (("pattern", pattern), ("format", format)) if v is not None]
        given += ["minLength/maxLength"] if lengths_given else []
        dialects = " (in both ECMA-262 and Python's re)" if pattern else ""
        notes.append(f"{' with '.join(given)}: no string satisfies {'them' if len(given) > 1 else 'it'}{dialects}")
        return EMPTY
    return term


def _lengths_implied(fewest: int, most: int | None, lo: int, hi: int | None) -> bool:
    """Whether every string of fewest..most characters (most None: no limit) has lo..hi characters."""
    return fewest >= lo and (hi is None or (most is not None and most <= hi))


def _narrows(pattern: str) -> bool:
    """Whether the pattern uses a construct whose ECMA and Python meanings differ."""
    return any(marker in pattern for marker in ("\\d", "\\D", "\\w", "\\W", "\\s", "\\S", ".", "$"))


def json_integer_term(*, minimum: float | None = None, maximum: float | None = None,
                      exclusive_minimum: float | None = None, exclusive_maximum: float | None = None,
                      multiple_of: float | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the integers allowed by the numeric keywords (see `brzozowski.json.numbers`)."""
    return _numbers(integer_term, notes, minimum=minimum, maximum=maximum,
                    exclusive_minimum=exclusive_minimum, exclusive_maximum=exclusive_maximum,
                    multiple_of=multiple_of)


def json_number_term(*, minimum: float | None = None, maximum: float | None = None,
                     exclusive_minimum: float | None = None, exclusive_maximum: float | None = None,
                     multiple_of: float | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the numbers allowed by the numeric keywords (see `brzozowski.json.numbers`)."""
    return _numbers(number_term, notes, minimum=minimum, maximum=maximum,
                    exclusive_minimum=exclusive_minimum, exclusive_maximum=exclusive_maximum,
                    multiple_of=multiple_of)


MAX_NUMBER_LEAVES = 64
"""How many number and integer terms (with their notes) `json_number_term` and `json_integer_term`
keep, by keywords: real schemas repeat a few (no bounds, ``minimum: 0``, ``exclusiveMinimum: 0``,
whose decimals reach a double's 324 digits), built once per process instead of once
per schema. Full, each new one evicts the oldest; each entry holds its terms only (a few hundred
for most bounds; for bounded integers the atom of a table of a few states), not their derivatives:
kept derivatives (`brzozowski.core.derivatives.keep_derivatives`) hold the automaton's loops strongly
(∂0 of ``[0-9]*`` is itself), so an evicted entry would be cyclic garbage for the next full
collection, and bounds churn more than patterns do."""

_NUMBER_LEAVES: dict[tuple, tuple[Term, tuple[str, ...]]] = {}

_PLAIN_NUMBERS: dict[Term, Term] = {}
"""The integers and the numbers without keywords (the most common leaves of all: half of the
benchmark corpus's numeric schemas) as leaves (`brzozowski.automata.leaves.shared_leaf`), kept for the life
of the process: every `brzozowski.vocab.vocabulary.Vocabulary` prepares their states' exits
(`brzozowski.json.leaf_masks.prepare_leaves`), so a mask inside a number reads them instead of walking
the ~1,100 digit tokens. (Bounded integers are leaves too, each bound its own table
(`_integer_leaf`), whose exits a mask step reads off the vocabulary's numerals; bounded numbers
with fractions stay terms.)"""


def _integer_leaf(keywords: dict[str, object]) -> Term | None:
    """The integers under bounds `keywords` as the atom of their own automaton, built from the
    bounds (`brzozowski.json.numbers.integer_table`: neither `integer_term` nor any derivative of it
    is made, in the schema's automaton or in a mask), one per language (`_INTEGER_LEAVES`); None
    with ``multipleOf``, a bound too long, or no integer allowed (`integer_term` then says why)."""
    if keywords["multiple_of"] is not None:
        return None
    parts = integer_parts(**{name: value for name, value in keywords.items() if name != "multiple_of"})
    if parts is None:
        return None
    found = _INTEGER_LEAVES.get(parts)
    if found is None:
        positive, negative = parts
        written = ([] if negative is None else [f"{'' if negative[1] is None else -negative[1]}..{-negative[0]}"]) \
            + ([] if positive is None else [f"{positive[0]}..{'' if positive[1] is None else positive[1]}"])
        found = _kept(_INTEGER_LEAVES, parts, table_leaf(FormatTable(*integer_table(parts)),
                                                         f"integer {' '.join(written)}"))
    return found


def _kept(cache: dict, key: Hashable, value: object) -> object:
    """`value` kept under `key` in `cache` (at most `MAX_NUMBER_LEAVES` entries, the oldest out
    first), or what another thread kept there meanwhile: one thread at a time evicts and inserts."""
    with _CACHE_LOCK:
        found = cache.get(key)
        if found is not None:
            return found
        while len(cache) >= MAX_NUMBER_LEAVES:
            cache.pop(next(iter(cache)))
        cache[key] = value
        return value


_CACHE_LOCK = threading.Lock()


_INTEGER_LEAVES: dict[tuple, Term] = {}
"""The bounded integers' atoms by their `brzozowski.json.numbers.integer_parts` (at most
`MAX_NUMBER_LEAVES`, the oldest out first): one automaton per language, whatever keywords spell it."""


def _numbers(build, notes: list[str] | None, **keywords: object) -> Term:
    """`build(**keywords)` (`integer_term` or `number_term`), from `_NUMBER_LEAVES` when it is there."""
    key = (build, *((type(value), value) for value in keywords.values()))  # 1, 1.0 and True apart
    try:
        found = _NUMBER_LEAVES.get(key)
    except TypeError:  # an unhashable keyword value: the build refuses it
        found, key = None, None
    if found is None:
        made: list[str] = []
        plain = all(value is None for value in keywords.values())
        term = _integer_leaf(keywords) if build is integer_term and not plain else None
        if term is None:
            term = build(notes=made, **keywords)
        if plain:
            term = _PLAIN_NUMBERS.setdefault(term, shared_leaf(term))
        found = (term, tuple(made))
        if key is not None:
            found = _kept(_NUMBER_LEAVES, key, found)
    if notes is not None:
        notes.extend(found[1])
    return found[0]
