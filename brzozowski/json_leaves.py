"""The leaf languages of `compile_json_schema`: JSON strings, integers and numbers under their keywords.

Each function returns the `Term` of the JSON *text* of the values a leaf schema allows (a string
with its quotes, a number as written). The unconstrained languages are exactly those of the strict
compiler in `brzozowski.schema`: strings of RFC 3629 UTF-8, raw DEL, the JSON escapes and ``\\u``
surrogates only as high+low pairs; integers ``-?(0|[1-9][0-9]*)``; numbers with optional fraction
and exponent.

Invariant (soundness): every text a returned term matches is accepted by ``json.loads``, and the
decoded value is valid against the keywords given (as ``jsonschema``, Draft 2020-12 with
``FormatChecker``, decides). Where the language is narrower than the keyword, one human-readable
line goes to `notes`; what cannot be done is refused with `SchemaError` (empty pointer: the
caller knows where the keyword sits), never ignored.

>>> from brzozowski.derivatives import matches
>>> string = json_string_term()
>>> matches(string, b'"caf\\xc3\\xa9 \\\\u00e9"'), matches(string, b'"\\\\ud800"')
(True, False)

References: RFC 8259 (JSON), RFC 3629 (UTF-8), JSON Schema Validation (draft 2020-12).
"""

from __future__ import annotations

from .errors import SchemaError
from .ecma_regex import pattern_term
from .json_formats import FORMAT_PATTERNS, NARROWER, format_term
from .json_numbers import integer_term, number_term
from .json_strings import string_term
from .terms import Term, byte, concat

__all__ = ["FORMATS", "json_integer_term", "json_number_term", "json_string_term"]

#: The values of ``format`` that `json_string_term` implements.
FORMATS: frozenset[str] = frozenset(FORMAT_PATTERNS)

_QUOTE = byte(ord('"'))


def json_string_term(*, min_length: int = 0, max_length: int | None = None, pattern: str | None = None,
                     format: str | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the strings allowed by the string keywords.

    Length bounds count decoded characters (`brzozowski.json_strings`); `pattern` is an ECMA-262
    search (`brzozowski.ecma_regex`); `format` one of `FORMATS` (`brzozowski.json_formats`). Two of
    them together need an intersection of languages, which terms do not have yet: refused.
    """
    given = [kw for kw, value in (("pattern", pattern), ("format", format), ("minLength", None if min_length == 0 and not isinstance(min_length, bool) else min_length),
                                  ("maxLength", max_length)) if value is not None]
    if len(given) > 1 and given[:2] != ["minLength", "maxLength"]:
        raise SchemaError(
            f"{given[0]} together with {given[1]} needs an intersection of languages, which is not available "
            f"yet: keep one of them (a pattern can often say both, e.g. ^[a-z]{{1,8}}$)", "", given[1])
    if format is not None:
        if not isinstance(format, str) or format not in FORMATS:
            raise SchemaError(f"format {format!r} is not implemented (implemented: {', '.join(sorted(FORMATS))})",
                              "", "format")
        if notes is not None and format in NARROWER:
            notes.append(f"format {format}: {NARROWER[format]}")
        return concat(_QUOTE, format_term(format), _QUOTE)
    if pattern is not None:
        if notes is not None and _narrows(pattern):
            notes.append(f"pattern: \\d, \\w, \\s, '.' and '$' take the meaning ECMA-262 and Python's re "
                         "share (ASCII digits and word characters, no line terminators, '$' only at the end)")
        return concat(_QUOTE, pattern_term(pattern), _QUOTE)
    return string_term(min_length, max_length)


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
