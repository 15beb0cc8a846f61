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
from .json_numbers import integer_term, number_term
from .schema import STRING
from .syntax import parse
from .terms import Term

__all__ = ["FORMATS", "json_integer_term", "json_number_term", "json_string_term"]

#: The values of ``format`` that `json_string_term` implements.
FORMATS: frozenset[str] = frozenset()

_STRING = parse(STRING)


def _refuse_given(keywords: dict[str, object]) -> None:
    for keyword, value in keywords.items():
        if value is not None:
            raise SchemaError(f"{keyword} is not supported yet: remove it", "", keyword)


def json_string_term(*, min_length: int = 0, max_length: int | None = None, pattern: str | None = None,
                     format: str | None = None, notes: list[str] | None = None) -> Term:
    """The JSON texts of the strings allowed by the string keywords (see the module doc)."""
    _refuse_given({"minLength": min_length or None, "maxLength": max_length, "pattern": pattern,
                   "format": format})
    return _STRING


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
