"""The leaf languages of `compile_json_schema`: JSON strings, integers and numbers under their keywords.

Each function returns the `Term` of the JSON *text* of the values a leaf schema allows (a string
with its quotes, a number as written). Without keywords the languages are exactly those of the
strict compiler in `brzozowski.schema`: strings of RFC 3629 UTF-8, raw DEL, the JSON escapes and
``\\u`` surrogates only as high+low pairs; integers ``-?(0|[1-9][0-9]*)``; numbers with optional
fraction and exponent. The work is done by one module per job: `brzozowski.json_numbers` (bounds,
``multipleOf``), `brzozowski.json_strings` (the spellings of characters, lengths),
`brzozowski.ecma_regex` (``pattern``) and `brzozowski.json_formats` (``format``).

Invariant (soundness): every text a returned term matches is accepted by ``json.loads``, and the
decoded value is valid against the keywords given (as ``jsonschema``, Draft 2020-12 with
``FormatChecker``, decides). Where the language is narrower than the keywords, one human-readable
line goes to `notes`; keywords that leave no value give ∅ and a note (another type or ``anyOf``
branch may still allow something); what cannot be done is refused with `SchemaError` (empty
pointer: the caller knows where the keyword sits), never ignored. Refused today: two of
``pattern``/``format``/length bounds together, and ``multipleOf`` with bounds (each needs the
intersection of two languages, which terms do not have yet).

>>> from brzozowski.derivatives import matches
>>> string = json_string_term()
>>> matches(string, b'"caf\\xc3\\xa9 \\\\u00e9"'), matches(string, b'"\\\\ud800"')
(True, False)

References: RFC 8259 (JSON), RFC 3629 (UTF-8), JSON Schema Validation (draft 2020-12).
"""

from __future__ import annotations

from .ecma_regex import parse_pattern
from .errors import SchemaError
from .json_formats import FORMAT_PATTERNS, NARROWER, parse_format
from .json_numbers import integer_term, number_term
from .json_strings import string_term
from .terms import EMPTY, Term, byte, concat

__all__ = ["FORMATS", "json_integer_term", "json_number_term", "json_string_term"]

#: The values of ``format`` that `json_string_term` implements.
FORMATS: frozenset[str] = frozenset(FORMAT_PATTERNS)

_QUOTE = byte(ord('"'))


def json_string_term(*, min_length: int = 0, max_length: int | None = None, pattern: str | None = None,
                     format: str | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the strings allowed by the string keywords.

    Length bounds count decoded characters (`brzozowski.json_strings`); `pattern` is an ECMA-262
    search (`brzozowski.ecma_regex`); `format` one of `FORMATS` (`brzozowski.json_formats`). Length
    bounds beside a pattern or format are exact when the pattern's own lengths lie inside them (or
    all outside: ∅); otherwise, as for pattern with format, the intersection of two languages is
    needed, which terms do not have yet: refused.
    """
    if pattern is not None and format is not None:
        raise SchemaError("format together with pattern needs an intersection of languages, which is not "
                          "available yet: keep one of them", "", "format")
    term = string_term(min_length, max_length)  # checks the bounds
    lengths_given = min_length != 0 or max_length is not None
    if format is not None or pattern is not None:
        if format is not None:
            if not isinstance(format, str) or format not in FORMATS:
                raise SchemaError(f"format {format!r} is not implemented (implemented: {', '.join(sorted(FORMATS))})",
                                  "", "format")
            keyword, (inside, fewest, most) = "format", parse_format(format)
            if notes is not None and format in NARROWER:
                notes.append(f"format {format}: {NARROWER[format]}")
        else:
            keyword, (inside, fewest, most) = "pattern", parse_pattern(pattern)
            if notes is not None and _narrows(pattern):
                notes.append("pattern: \\d, \\w, \\s, '.' and '$' take the meaning ECMA-262 and Python's re "
                             "share (ASCII digits and word characters, no line terminators, '$' only at the end)")
        term = concat(_QUOTE, inside, _QUOTE)
        if lengths_given:
            term = _with_lengths(term, keyword, fewest, most, min_length, max_length)
    if term is EMPTY and notes is not None:
        given = [k for k, v in (("pattern", pattern), ("format", format)) if v is not None]
        given += ["minLength/maxLength"] if lengths_given else []
        notes.append(f"{' with '.join(given)}: no string satisfies "
                     + ("them" if len(given) > 1 else "it") + (" (in both ECMA-262 and Python's re)" if pattern else ""))
    return term


def _with_lengths(term: Term, keyword: str, fewest: int, most: int | None, lo: int, hi: int | None) -> Term:
    """`term` (of a pattern or format whose strings have fewest..most characters) under length bounds."""
    if (most is not None and most < lo) or (hi is not None and fewest > hi):
        return EMPTY  # no string of the pattern has an allowed length
    if fewest >= lo and (hi is None or (most is not None and most <= hi)):
        return term  # every string of the pattern has an allowed length
    bound = "minLength" if fewest < lo else "maxLength"
    longest = "any number of" if most is None else f"up to {most}"
    raise SchemaError(
        f"{bound} together with {keyword} needs an intersection of languages, which is not available yet "
        f"(the {keyword} allows strings of {fewest} to {longest} characters): say the length in the "
        "pattern instead, e.g. ^[a-z]{1,8}$", "", bound)


def _narrows(pattern: str) -> bool:
    """Whether the pattern uses a construct whose ECMA and Python meanings differ."""
    return any(marker in pattern for marker in ("\\d", "\\D", "\\w", "\\W", "\\s", "\\S", ".", "$"))


def json_integer_term(*, minimum: float | None = None, maximum: float | None = None,
                      exclusive_minimum: float | None = None, exclusive_maximum: float | None = None,
                      multiple_of: float | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the integers allowed by the numeric keywords (see `brzozowski.json_numbers`)."""
    return integer_term(minimum=minimum, maximum=maximum, exclusive_minimum=exclusive_minimum,
                        exclusive_maximum=exclusive_maximum, multiple_of=multiple_of, notes=notes)


def json_number_term(*, minimum: float | None = None, maximum: float | None = None,
                     exclusive_minimum: float | None = None, exclusive_maximum: float | None = None,
                     multiple_of: float | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the numbers allowed by the numeric keywords (see `brzozowski.json_numbers`)."""
    return number_term(minimum=minimum, maximum=maximum, exclusive_minimum=exclusive_minimum,
                       exclusive_maximum=exclusive_maximum, multiple_of=multiple_of, notes=notes)
