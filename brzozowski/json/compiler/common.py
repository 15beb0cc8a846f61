"""What every part of the schema compiler shares: keyword lists, JSON types, `_Inexact`, small helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...budget import check_deadline
from ...core.terms import K_ALT, Term, alt, literal
from ...errors import TimeBudgetError
from ..leaf_terms import json_string_term
from ..merge import ANNOTATIONS
from ..strings import PLAIN_KEY_BITS

DEFAULT_MAX_DEPTH = 8
"""How deeply arrays and objects may nest in a document of a recursive schema or of "any JSON value".
A bounded nesting is what makes those languages regular; 8 covers the tool calls, configs and
Pydantic trees of the corpus, and the lazy DFA only builds the states a generation visits."""

MAX_WHITESPACE = 20
"""The most whitespace bytes per gap with ``any_whitespace=True``: enough for a newline and the
indentation of pretty-printed JSON 4 levels deep (indent 4), and a bound on how long a model can
stall in whitespace."""

#: The slots of other properties: the empty key, then each plain-ASCII first character, ascending.
_FIRST_CHARACTERS = [None] + [b for b in range(0x20, 0x7F) if (PLAIN_KEY_BITS >> b) & 1]

TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")

_ALL_TYPES = frozenset(TYPES)

_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")

_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")

_ARRAY_KEYWORDS = ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains",
                   "minContains", "maxContains", "uniqueItems", "unevaluatedItems")

_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties",
                    "propertyNames", "minProperties", "maxProperties", "dependentRequired",
                    "dependentSchemas", "dependencies", "unevaluatedProperties")

#: Keywords that apply subschemas to the instance in place (their annotations reach
#: unevaluatedProperties).
_IN_PLACE = ("$ref", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "dependencies", "not",
             "$dynamicRef", "$recursiveRef")

_NUMBER_ARGUMENTS = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
                     "exclusiveMaximum": "exclusive_maximum", "multipleOf": "multiple_of"}

_APPLICATORS = ("$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "type", "enum", "const")

_HANDLED = frozenset(_STRING_KEYWORDS + _NUMBER_KEYWORDS + _ARRAY_KEYWORDS + _OBJECT_KEYWORDS + _APPLICATORS)

#: Standard keywords refused whatever `unknown_keywords` says, with what to write instead.
_REFUSED = {
    "$dynamicRef": "write a plain $ref to the definition",
    "$recursiveRef": "write a plain $ref to the definition",
}

#: The formats of JSON Schema's vocabulary (draft 2020-12 §7.3): one that the leaves do not
#: implement is refused (``FormatChecker`` may check it); any other format name is unknown.
_STANDARD_FORMATS = frozenset({
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
})

_ISSUE_12 = "needs intersection or complement of languages (issue 12), not available yet"

#: JSON's decimal digits, and the texts of the numbers of the universe C (see `exact._Exact.universe`).
_DIGIT_BITS = sum(1 << b for b in b"0123456789")

_C_FRACTION_DIGITS = 15
"""A number of C with a fraction has at most this many digits: a decimal of at most 15 significant
digits round-trips through a double (DBL_DIG = 15), so ``json.loads`` never turns a C text with a
non-zero fraction into an integer-valued float (``5.0000000000000001`` would be ``5.0``: an integer
for ``jsonschema``)."""

_UNIVERSE_NOTE = ("complement taken within the universe C: numbers there have no exponent, and those "
                  f"with a fraction have a non-zero last digit and at most {_C_FRACTION_DIGITS} digits "
                  "(also inside arrays); other values are written as elsewhere")

#: The keywords whose complement `exact._Exact.complete` can take exactly, beside the combinators.
_EXACT_KEYWORDS = frozenset({"type", "enum", "const", "minLength", "maxLength", "pattern", "minimum",
                             "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "items",
                             "prefixItems", "additionalItems", "minItems", "maxItems", "then", "else"})

#: How deep `negation._Negation.negations` follows $ref, allOf, anyOf, oneOf and if in place.
_MAX_NEGATION_HOPS = 40

class _Inexact(Exception):
    """A subschema's term would miss documents of C it allows, so its complement would be unsound:
    `pointer` and `keyword` name the narrowing, `reason` says what it is."""

    def __init__(self, pointer: str, keyword: str | None, reason: str) -> None:
        super().__init__(reason)
        self.pointer = pointer
        self.keyword = keyword
        self.reason = reason

def schema_key(value: Any, pointer_of: Callable[[Any], str | None]) -> Any:
    """A hashable key of a schema made while compiling (a merge, the rest of a schema beside a
    keyword): equal exactly when the two compile alike, so key order and ``1`` vs ``1.0`` count
    (property order and the written number differ), unlike `brzozowski.json.merge.json_key`. A
    subschema of the document inside it is keyed by its pointer (`pointer_of`), not walked: made
    schemas are mostly a few keywords over the document's subschemas."""
    if isinstance(value, dict):
        own = pointer_of(value)
        if own is not None:
            return ("at", own)
        return ("object", tuple((k, schema_key(v, pointer_of)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(schema_key(v, pointer_of) for v in value))
    try:
        hash(value)
    except TypeError:  # not JSON: refused when compiled; its text tells it apart meanwhile
        return (type(value).__name__, repr(value))
    return (type(value).__name__, value)


MAX_ACTIVE_SCHEMAS = 150
"""The most subschemas being compiled inside one another (through arrays, objects and references
at once): past it the schema is refused, before the interpreter's stack runs out (each level costs
up to five frames; Python's default stack holds 1,000)."""

MAX_REF_HOPS = 20
"""How many plain ``$ref`` hops the look-ahead helpers follow (possible types, oneOf tags, finite
enum values); past it they answer "unknown", the safe side (all types, no tags, not finite)."""


def _is_true(schema: Any) -> bool:
    return schema is True or (isinstance(schema, dict) and not (set(schema) - ANNOTATIONS))

class _Pieces:
    """The flattened parts of an allOf that do not merge structurally, and why."""

    def __init__(self, pieces: list[Any], reason: str) -> None:
        self.pieces = pieces
        self.reason = reason

_ANY: dict = {}  # the schema of any JSON value; one object, so "any value" is memoized once per depth

_QUOTE_BIT = 1 << ord('"')

def _without_strings_inside_every_string(union: Term) -> Term:
    """`union`, less its operands that only hold strings when one operand holds every string.

    ``anyOf: [{"type": "string"}, {"enum": ["a", "b"]}]`` (pydantic's ``Literal["a", "b"] | str``)
    is every string; left in, the enum's operands would keep their own states beside the string's
    (the union of ``a"`` and the rest of any string is not the state inside a string), so the
    string-interior mask tables (`brzozowski.json.string_masks`) would not recognize them. An operand
    whose every text starts with ``"`` (its `first`; a superset with ``&``/``~``) holds JSON strings
    only, written as this compiler writes them, each of which the plain string term holds."""
    everything = json_string_term()
    if union.kind != K_ALT or everything not in union.children:
        return union
    return alt(*[t for t in union.children if t is everything or t.first != _QUOTE_BIT])

def _expand(names: Any) -> frozenset:
    names = {names} if isinstance(names, str) else set(names)
    if "number" in names:
        names.add("integer")
    return frozenset(names) & _ALL_TYPES

def _type_of(value: Any) -> list[str]:
    if value is None:
        return ["null"]
    if isinstance(value, bool):
        return ["boolean"]
    if isinstance(value, str):
        return ["string"]
    if isinstance(value, list):
        return ["array"]
    if isinstance(value, dict):
        return ["object"]
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return ["integer", "number"]
    return ["number"]

def _scalar_literals(types: frozenset) -> list[Term]:
    """The terms of ``null`` and of ``true``/``false``, for those of the two types in `types`."""
    terms = [literal(b"null")] if "null" in types else []
    if "boolean" in types:
        terms.append(alt(literal(b"true"), literal(b"false")))
    return terms

def _type_names(given: Any) -> list[str] | None:
    """The type names a ``type`` keyword lists, or None if it is not a name or a list of names."""
    names = [given] if isinstance(given, str) else given
    if not isinstance(names, list) or not all(isinstance(n, str) and n in TYPES for n in names):
        return None
    return names


def build_leaf(build: Callable[..., Term], ptr: str, notes: list[str], **keywords: Any) -> Term:
    """``build(notes=notes, **keywords)``: a leaf's term. A deadline that passes inside the leaf
    (whose error names no pointer) is raised again naming `ptr`."""
    try:
        return build(notes=notes, **keywords)
    except TimeBudgetError:
        check_deadline(ptr)
        raise
