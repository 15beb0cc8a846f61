"""A subset of JSON Schema compiled to one regex over bytes: the compact JSON documents the schema allows.

Constrained generation needs a *regular* language: `json_schema_to_regex(schema)` turns a schema of
the supported subset into a pattern of our regex subset (Python `re` syntax for bytes, full match,
ASCII-only text; non-ASCII bytes are written ``\\xHH``). The documents it matches are compact JSON,
written the way ``json.dumps(v, separators=(",", ":"))`` writes them: no whitespace anywhere, object
members in the order the schema lists them.

Invariant (soundness): every byte string the regex matches is well-formed UTF-8, ``json.loads``
accepts it (without duplicate keys, NaN or lone surrogates), and ``jsonschema`` validates the result
against the schema. Conversely every instance that uses only the listed properties, in the listed
order, matches once dumped as ``json.dumps(v, separators=(",", ":"))`` writes it; free strings also
accept raw UTF-8 (``ensure_ascii=False``), while enum/const values and property names are spelled
only the ``ensure_ascii`` way. Anything the regex cannot express exactly is refused with
`SchemaError`, never ignored: an ignored keyword would let the model emit what the schema forbids.

The subset:

- ``"type"``: ``"string"``, ``"integer"``, ``"number"``, ``"boolean"``, ``"null"``, ``"array"``,
  ``"object"``, or a list of them (an alternation).
- string: ``"`` then characters then ``"``. A character is printable ASCII except ``"`` and ``\\``,
  or DEL (0x7F: RFC 8259 allows it unescaped and ``json.loads`` accepts it), or a well-formed UTF-8
  sequence of 2 to 4 bytes (RFC 3629 table 3.7: no overlong forms, no surrogates, nothing above
  U+10FFFF), or an escape ``\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`` (hex digits in either case).
  A ``\\uXXXX`` naming a UTF-16 surrogate must be a high surrogate followed by a low one, as
  ``json.dumps`` writes characters beyond the BMP; a lone surrogate escape is refused because it
  decodes to a string that cannot be encoded as UTF-8. No raw byte below 0x20.
- integer ``-?(0|[1-9][0-9]*)``; number adds ``(\\.[0-9]+)?([eE][+-]?[0-9]+)?``; boolean; null.
- ``enum`` / ``const``: an alternation of the values' compact JSON (``ensure_ascii``), filtered by
  ``"type"`` when both are given.
- array: ``items`` (required: "any JSON value" is not a regular language), ``minItems``,
  ``maxItems`` (each at most `MAX_ITEMS`).
- object: ``properties`` in the given order, each at most once, the ``required`` ones always, the
  optional ones in any subset, no other keys. ``additionalProperties`` must be absent or ``false``;
  absent is read as "we emit only the listed properties" (a sound subset of what the schema
  allows), so ``{"type": "object"}`` alone matches only ``{}``. The regex is built from the end,
  so its size is quadratic, not exponential, in the property count.
- ``anyOf``: an alternation (not combined with ``type``/``enum``/``const`` in the same schema).
- Pure annotations (``title``, ``description``, ``$comment``, ``examples``, ``default``) are
  accepted and ignored. ``$schema``, where given, must name a dialect in `DIALECTS` (draft-06,
  draft-07, 2019-09, 2020-12): drafts 3 and 4 mean other things by the same keywords (``1.0`` is
  not an integer there) and are refused, as is any other URI.
- ``enum``/``const`` values must be JSON: string keys only, strings encodable as UTF-8 (no lone
  surrogates, nor in property names), finite numbers, integers of at most
  ``sys.get_int_max_str_digits()`` (4,300) digits, nesting at most `MAX_VALUE_DEPTH` deep; checked
  without recursion, refused with the pointer of the offending part.
- Digits: ``"type": "integer"``/``"number"`` put no bound on the digits of a number. Python's
  ``json.loads`` refuses integers of more than 4,300 digits, so a generated document can only be
  parsed by it while its integers stay under that; cap the tokens of a generation (a real one
  never comes near).

Every other keyword, a ``required`` name that is not a property, an unknown type, a malformed
schema, and a schema nested deeper than `MAX_DEPTH` or whose regex would exceed `MAX_REGEX_LENGTH`
raise `SchemaError(message, pointer, keyword)`. The pointer (RFC 6901) is the place of the
offending value in the schema (``/properties/city/pattern``, ``/required/1``), or the place of the
schema that lacks something (an array without ``items``).

>>> import re
>>> rx = json_schema_to_regex({"type": "object", "properties": {"a": {"type": "integer"},
...                            "b": {"type": "boolean"}}, "required": ["b"]})
>>> [bool(re.fullmatch(rx.encode(), d)) for d in (b'{"a":1,"b":true}', b'{"b":false}', b'{"a":1}')]
[True, True, False]

References: RFC 8259 (JSON), RFC 3629 (UTF-8), RFC 6901 (JSON Pointer),
JSON Schema Validation (draft 2020-12), https://json-schema.org/draft/2020-12/json-schema-validation.
"""

from __future__ import annotations

import json
import math
import reprlib
import sys
from typing import Any

from ..errors import SchemaError
from .user_schemas import as_json_schema
from ..core.syntax import MAX_REPEAT_COUNT

__all__ = ["json_schema_to_regex"]

#: Keywords that constrain nothing (JSON Schema "annotations"): accepted and ignored.
ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "$schema"})

#: The seven JSON Schema types, all supported.
TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")

#: The largest minItems/maxItems: the regex writes "item (,item){lo-1,hi-1}" and the regex syntax
#: refuses repeat counts over MAX_REPEAT_COUNT (larger bounds would cost that many automaton states).
MAX_ITEMS = MAX_REPEAT_COUNT + 1

#: The longest regex built. A list repeats its item ("item(,item)*") and an object repeats its
#: members after leading optional ones (the from-the-end construction), so nesting multiplies the
#: size; past this length parsing alone takes seconds, and a SchemaError names the place instead.
MAX_REGEX_LENGTH = 4_000_000

#: The deepest nesting of schemas accepted. Real tool schemas nest a few levels; a deeper (or a
#: cyclic, Python-built) schema gets a SchemaError here instead of a RecursionError.
MAX_DEPTH = 64

#: The deepest nesting of arrays and objects inside an ``enum`` or ``const`` value. The value is
#: checked without recursion; past this depth a SchemaError names the place (Python's own JSON
#: encoder and decoder recurse, so deeper values could not round-trip anyway).
MAX_VALUE_DEPTH = 256

#: The ``$schema`` dialects whose meaning of the supported keywords is the one compiled here
#: (draft 6 onward: ``1.0`` is an integer, ``const`` exists). Given without a trailing ``#``, either
#: scheme. Draft 4 and 3 differ (``1.0`` is not an integer there, ``const`` does not exist) and are
#: refused with a SchemaError, as is any other ``$schema``.
DIALECTS = frozenset({
    "json-schema.org/draft-06/schema",
    "json-schema.org/draft-07/schema",
    "json-schema.org/draft/2019-09/schema",
    "json-schema.org/draft/2020-12/schema",
})

_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties")
_ARRAY_KEYWORDS = ("items", "minItems", "maxItems")
_VALUE_KEYWORDS = ("type", "enum", "const", "anyOf")
SUPPORTED_KEYWORDS = frozenset(_VALUE_KEYWORDS + _OBJECT_KEYWORDS + _ARRAY_KEYWORDS) | ANNOTATIONS

# Hints for the keywords people reach for most; every unsupported keyword is refused either way.
_HINTS = {
    "$ref": "references are not supported: inline the referenced schema",
    "$defs": "definitions are only useful with $ref, which is not supported: inline them",
    "definitions": "definitions are only useful with $ref, which is not supported: inline them",
    "oneOf": "oneOf is not supported: use anyOf if the branches cannot overlap",
    "allOf": "allOf (an intersection) is not supported: merge the schemas by hand",
    "not": "not (a complement) is not supported",
    "pattern": "string patterns are not supported",
    "format": "formats are not supported",
    "minLength": "string length bounds are not supported",
    "maxLength": "string length bounds are not supported",
    "minimum": "numeric bounds are not supported",
    "maximum": "numeric bounds are not supported",
    "exclusiveMinimum": "numeric bounds are not supported",
    "exclusiveMaximum": "numeric bounds are not supported",
    "multipleOf": "multipleOf is not supported",
    "patternProperties": "only the listed properties can be generated",
    "propertyNames": "only the listed properties can be generated",
    "uniqueItems": "uniqueness is not a regular constraint",
    "prefixItems": "tuple arrays are not supported: use items",
}

# --- the pieces of compact JSON, as regex text -------------------------------------------------------

#: One byte of a JSON string written raw: printable ASCII except `"` (0x22) and `\` (0x5C), plus DEL.
_RAW_ASCII = r"[\x20\x21\x23-\x5b\x5d-\x7f]"
#: A well-formed multi-byte UTF-8 sequence, RFC 3629 table (section 4), one branch per row.
_UTF8_MULTI = (
    r"[\xc2-\xdf][\x80-\xbf]"
    r"|\xe0[\xa0-\xbf][\x80-\xbf]"
    r"|[\xe1-\xec\xee\xef][\x80-\xbf][\x80-\xbf]"
    r"|\xed[\x80-\x9f][\x80-\xbf]"
    r"|\xf0[\x90-\xbf][\x80-\xbf][\x80-\xbf]"
    r"|[\xf1-\xf3][\x80-\xbf][\x80-\xbf][\x80-\xbf]"
    r"|\xf4[\x80-\x8f][\x80-\xbf][\x80-\xbf]"
)
_HEX = r"[0-9A-Fa-f]"
#: Escapes: the two-character ones, \\u of a non-surrogate, or a high+low surrogate pair.
_ESCAPE = (
    r'\\["\\/bfnrt]'
    rf"|\\u([0-9A-Ca-cEFef]{_HEX}{_HEX}{_HEX}|[Dd][0-7]{_HEX}{_HEX})"
    rf"|\\u[Dd][89ABab]{_HEX}{_HEX}\\u[Dd][C-Fc-f]{_HEX}{_HEX}"
)
STRING = rf'"({_RAW_ASCII}|{_UTF8_MULTI}|{_ESCAPE})*"'
INTEGER = r"-?(0|[1-9][0-9]*)"
NUMBER = r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([Ee][+\-]?[0-9]+)?"
BOOLEAN = r"(true|false)"
NULL = r"null"

# Characters written as themselves in a literal; regex metacharacters get a backslash; anything else
# (DEL, and control bytes if they ever occur) is written \xHH so the pattern text stays printable.
_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\"',:;<=>@!%&~/_ -#`")
_META = frozenset(".^$*+?{}[]\\|()")


def regex_literal(text: str) -> str:
    """The regex text matching exactly the ASCII string `text`.

    >>> regex_literal('{"a":[1.5]}')
    '\\\\{"a":\\\\[1\\\\.5\\\\]\\\\}'
    """
    out = []
    for ch in text:
        if ch in _PLAIN:
            out.append(ch)
        elif ch in _META:
            out.append("\\" + ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        else:  # pragma: no cover - callers only pass json.dumps(..., ensure_ascii=True) output
            raise ValueError(f"non-ASCII character {ch!r} in a literal")
    return "".join(out)


def compact(value: Any) -> str:
    """`value` as compact ASCII JSON, the way the regex spells it (raises TypeError/ValueError)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 60
_repr.maxlevel = 3


def _show(value: Any) -> str:
    """A short repr of a value from the schema for a message (bounded in length and depth)."""
    return _repr.repr(value)


def _check_json_value(value: Any, ptr: str, kw: str) -> None:
    """Refuse (SchemaError at the JSON pointer of the offending part) anything in an enum/const
    value that is not JSON: keys that are not strings, strings that cannot be encoded as UTF-8
    (lone surrogates), NaN and infinities, integers Python's JSON parser refuses (more digits than
    ``sys.get_int_max_str_digits()``), other Python types, nesting deeper than `MAX_VALUE_DEPTH`.
    Iterative: the depth of the value costs no stack."""
    stack = [(value, ptr, 0)]
    while stack:
        v, where, depth = stack.pop()
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, str):
            _check_text(v, where, kw, "a string")
        elif isinstance(v, int):
            try:
                str(v)
            except ValueError:  # beyond sys.get_int_max_str_digits(): json.loads would refuse it
                raise SchemaError(
                    f"{kw} value is an integer of more than {sys.get_int_max_str_digits():,} digits, "
                    "which Python's JSON parser refuses", where, kw) from None
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise SchemaError(f"{kw} value {v!r} is not JSON (no NaN or infinity)", where, kw)
        elif isinstance(v, (list, dict)):
            if depth >= MAX_VALUE_DEPTH:
                raise SchemaError(f"{kw} value nests deeper than {MAX_VALUE_DEPTH} levels", where, kw)
            if isinstance(v, list):
                stack.extend((item, _pointer(where, i), depth + 1) for i, item in enumerate(v))
                continue
            for key, item in v.items():
                if not isinstance(key, str):
                    raise SchemaError(f"{kw} value has the object key {_show(key)}: JSON keys are strings",
                                      where, kw)
                _check_text(key, where, kw, "an object key")
                stack.append((item, _pointer(where, key), depth + 1))
        else:
            raise SchemaError(f"{kw} value {_show(v)} of type {type(v).__name__} is not JSON "
                              "(null, true/false, numbers, strings, lists and dicts)", where, kw)


def _check_text(text: str, where: str, kw: str | None, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise SchemaError(f"{what} {_show(text)} holds a lone surrogate (U+{ord(text[e.start]):04X} at "
                          f"index {e.start}): it cannot be encoded as UTF-8", where, kw) from None


def _check_dialect(node: dict, ptr: str) -> None:
    uri = node["$schema"]
    where = _pointer(ptr, "$schema")
    if not isinstance(uri, str):
        raise SchemaError(f"$schema must be a URI string, got {_show(uri)}", where, "$schema")
    bare = uri.rstrip("#").removeprefix("https://").removeprefix("http://")
    if bare in DIALECTS:
        return
    if bare in ("json-schema.org/draft-04/schema", "json-schema.org/draft-03/schema"):
        raise SchemaError(
            f"$schema {uri!r} is not followed: in drafts 3 and 4, 1.0 is not an integer and const does "
            "not exist, so this compiler would allow what the schema forbids; use draft-06 or later "
            "(e.g. https://json-schema.org/draft/2020-12/schema)", where, "$schema")
    raise SchemaError(f"unknown $schema {_show(uri)}: the dialects followed are draft-06, draft-07, "
                      "2019-09 and 2020-12", where, "$schema")


def _pointer(parent: str, token: str | int) -> str:
    """RFC 6901: append one reference token, escaping ~ as ~0 and / as ~1."""
    return parent + "/" + str(token).replace("~", "~0").replace("/", "~1")


def _group(alternatives: list[str]) -> str:
    return alternatives[0] if len(alternatives) == 1 else "(" + "|".join(alternatives) + ")"


def _repeat(body: str, lo: int, hi: int | None) -> str:
    """`body` (already a single group or atom) repeated lo..hi times (hi None: unbounded)."""
    if hi == 0:
        return ""
    if (lo, hi) == (0, None):
        return body + "*"
    if (lo, hi) == (1, None):
        return body + "+"
    if (lo, hi) == (0, 1):
        return body + "?"
    if (lo, hi) == (1, 1):
        return body
    if hi is None:
        return f"{body}{{{lo},}}"
    if lo == hi:
        return f"{body}{{{lo}}}"
    return f"{body}{{{lo},{hi}}}"


def _json_type_of(value: Any, t: str) -> bool:
    """Whether `value` is of JSON Schema type `t` (as jsonschema decides: 1.0 is an integer, True is not)."""
    if t == "null":
        return value is None
    if t == "boolean":
        return isinstance(value, bool)
    if t == "string":
        return isinstance(value, str)
    if t == "array":
        return isinstance(value, (list, tuple))
    if t == "object":
        return isinstance(value, dict)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if t == "number":
        return True
    return isinstance(value, int) or value.is_integer()  # "integer"


class _Compiler:
    """One recursive pass over the schema; `ptr` is always the JSON pointer of the node at hand."""

    def __init__(self) -> None:
        self.depth = 0

    def schema(self, node: Any, ptr: str, holder: str | None) -> str:
        if self.depth >= MAX_DEPTH:
            raise SchemaError(f"schemas nest deeper than {MAX_DEPTH} levels (or the schema is cyclic)", ptr, holder)
        self.depth += 1
        try:
            regex = self._schema(node, ptr, holder)
        finally:
            self.depth -= 1
        if len(regex) > MAX_REGEX_LENGTH:
            raise SchemaError(
                f"the regex of this schema would be longer than {MAX_REGEX_LENGTH:,} characters "
                "(nested arrays and objects with leading optional properties repeat their contents)",
                ptr,
                holder,
            )
        return regex

    def _schema(self, node: Any, ptr: str, holder: str | None) -> str:
        if not isinstance(node, dict):
            what = "a boolean schema" if isinstance(node, bool) else type(node).__name__
            raise SchemaError(
                f"a schema must be a JSON object, got {what} (true/false schemas are not supported)",
                ptr,
                holder,
            )
        for key in node:
            if not isinstance(key, str):
                raise SchemaError(f"schema keys must be strings, got {_show(key)}", ptr, None)
            if key not in SUPPORTED_KEYWORDS:
                hint = _HINTS.get(key, "it is outside the supported subset of JSON Schema")
                raise SchemaError(
                    f"unsupported keyword {_show(key)}: {hint}; refusing it rather than ignoring a constraint",
                    _pointer(ptr, key),
                    key,
                )

        if "$schema" in node:
            _check_dialect(node, ptr)
        types = self._types(node, ptr)
        has_values = "enum" in node or "const" in node
        if "anyOf" in node:
            for other in ("type", "enum", "const") + _OBJECT_KEYWORDS + _ARRAY_KEYWORDS:
                if other in node:
                    raise SchemaError(
                        f"anyOf cannot be combined with {other!r} in the same schema "
                        "(an intersection); move it into each branch",
                        _pointer(ptr, "anyOf"),
                        "anyOf",
                    )
            return self._any_of(node["anyOf"], _pointer(ptr, "anyOf"))

        for kw in _OBJECT_KEYWORDS + _ARRAY_KEYWORDS:
            if kw not in node:
                continue
            if has_values:
                raise SchemaError(
                    f"{kw!r} cannot be combined with enum/const (the allowed values are listed already)",
                    _pointer(ptr, kw),
                    kw,
                )
            needed = "object" if kw in _OBJECT_KEYWORDS else "array"
            if types is None or needed not in types:
                raise SchemaError(
                    f"{kw!r} applies to {needed}s but the schema's type is {types!r}: say "
                    f'"type": "{needed}" (without a type the schema allows any JSON value)',
                    _pointer(ptr, kw),
                    kw,
                )

        if has_values:
            return self._values(node, ptr, types)
        if types is None:
            raise SchemaError(
                "the schema does not say which values are allowed (give type, enum, const or anyOf); "
                "any JSON value is not a regular language",
                ptr,
                "type",
            )
        return _group([self._typed(node, ptr, t) for t in types if not (t == "integer" and "number" in types)])

    def _types(self, node: dict, ptr: str) -> list[str] | None:
        if "type" not in node:
            return None
        t = node["type"]
        where = _pointer(ptr, "type")
        if isinstance(t, str):
            names, places = [t], [where]
        elif isinstance(t, list) and t:
            names, places = t, [_pointer(where, i) for i in range(len(t))]
        else:
            raise SchemaError(f"type must be a type name or a non-empty list of them, got {_show(t)}", where, "type")
        for name, place in zip(names, places):
            if not isinstance(name, str) or name not in TYPES:
                raise SchemaError(f"unknown type {_show(name)} (the types are {', '.join(TYPES)})", place, "type")
        if len(set(names)) != len(names):
            raise SchemaError(f"type lists a type twice: {_show(names)}", where, "type")
        return list(names)

    def _values(self, node: dict, ptr: str, types: list[str] | None) -> str:
        if "enum" in node and "const" in node:
            raise SchemaError("give either enum or const, not both", _pointer(ptr, "const"), "const")
        if "const" in node:
            kw, values = "const", [node["const"]]
            places = [_pointer(ptr, "const")]
        else:
            kw, values = "enum", node["enum"]
            if not isinstance(values, list) or not values:
                raise SchemaError(f"enum must be a non-empty list, got {_show(values)}", _pointer(ptr, "enum"), "enum")
            places = [_pointer(_pointer(ptr, "enum"), i) for i in range(len(values))]
        texts: dict[str, None] = {}  # insertion-ordered: de-duplication in linear time
        for value, place in zip(values, places):
            _check_json_value(value, place, kw)
            text = compact(value)
            if types is not None and not any(_json_type_of(value, t) for t in types):
                continue  # the schema's type excludes this value (an intersection, as JSON Schema means)
            texts[text] = None
        if not texts:
            raise SchemaError(f"no {kw} value has the schema's type {types!r}: nothing is allowed", _pointer(ptr, kw), kw)
        return _group([regex_literal(text) for text in texts])

    def _any_of(self, branches: Any, ptr: str) -> str:
        if not isinstance(branches, list) or not branches:
            raise SchemaError(f"anyOf must be a non-empty list of schemas, got {_show(branches)}", ptr, "anyOf")
        alts: dict[str, None] = {}  # insertion-ordered: de-duplication in linear time
        for i, branch in enumerate(branches):
            alts[self.schema(branch, _pointer(ptr, i), "anyOf")] = None
        return _group(list(alts))

    def _typed(self, node: dict, ptr: str, t: str) -> str:
        if t == "string":
            return STRING
        if t == "integer":
            return INTEGER
        if t == "number":
            return NUMBER
        if t == "boolean":
            return BOOLEAN
        if t == "null":
            return NULL
        if t == "array":
            return self._array(node, ptr)
        return self._object(node, ptr)

    def _bound(self, node: dict, ptr: str, kw: str) -> int | None:
        if kw not in node:
            return None
        v = node[kw]
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise SchemaError(f"{kw} must be a non-negative integer, got {_show(v)}", _pointer(ptr, kw), kw)
        return v

    def _array(self, node: dict, ptr: str) -> str:
        lo = self._bound(node, ptr, "minItems") or 0
        hi = self._bound(node, ptr, "maxItems")
        if hi is not None and lo > hi:
            raise SchemaError(f"minItems {lo} > maxItems {hi}: no array is allowed", _pointer(ptr, "minItems"), "minItems")
        for kw, bound in (("minItems", lo), ("maxItems", hi)):
            if bound is not None and bound > MAX_ITEMS:
                raise SchemaError(
                    f"{kw} {bound} is over the limit of {MAX_ITEMS} (the regex repeats the item "
                    f"{{n-1}} times, and repeat counts stop at {MAX_REPEAT_COUNT})",
                    _pointer(ptr, kw),
                    kw,
                )
        if "items" not in node:
            raise SchemaError(
                'an array schema needs "items" (any JSON value is not a regular language)', ptr, "items"
            )
        if isinstance(node["items"], list):
            raise SchemaError(
                "tuple-form items (a list of schemas) is not supported: give one schema",
                _pointer(ptr, "items"),
                "items",
            )
        item = self.schema(node["items"], _pointer(ptr, "items"), "items")
        if hi == 0:
            return r"\[\]"
        # [ item (,item){lo-1,hi-1} ]   -- and all of the inside optional when lo == 0
        rest = _repeat(f"(,{item})", max(lo - 1, 0), None if hi is None else hi - 1)
        inside = f"({item}{rest})"
        return r"\[" + (inside + "?" if lo == 0 else inside) + r"\]"

    def _object(self, node: dict, ptr: str) -> str:
        props = node.get("properties", {})
        pptr = _pointer(ptr, "properties")
        if not isinstance(props, dict):
            raise SchemaError(f"properties must be an object, got {_show(props)}", pptr, "properties")
        if "additionalProperties" in node and node["additionalProperties"] is not False:
            raise SchemaError(
                "additionalProperties must be absent or false: only the listed properties can be generated",
                _pointer(ptr, "additionalProperties"),
                "additionalProperties",
            )
        required = node.get("required", [])
        rptr = _pointer(ptr, "required")
        if not isinstance(required, list):
            raise SchemaError(f"required must be a list of property names, got {_show(required)}", rptr, "required")
        seen: set[str] = set()
        for i, name in enumerate(required):
            if not isinstance(name, str) or name not in props:
                raise SchemaError(
                    f"required names {_show(name)}, which is not one of the properties {_show(list(props))}",
                    _pointer(rptr, i),
                    "required",
                )
            if name in seen:
                raise SchemaError(f"required lists {_show(name)} twice", _pointer(rptr, i), "required")
            seen.add(name)

        members = []
        for key, sub in props.items():
            if not isinstance(key, str):  # only possible for a dict built in Python
                raise SchemaError(f"property names must be strings, got {_show(key)}", pptr, "properties")
            _check_text(key, pptr, "properties", "the property name")  # the name itself: not in the pointer
            value = self.schema(sub, _pointer(pptr, key), "properties")
            members.append((regex_literal(compact(key)) + ":" + value, key in required))

        # Built from the end. For the members i..n-1:
        #   after   the rest once something was written: each member ",m" (optional: "(,m)?")
        #   first   the rest when nothing was written yet, without its empty alternative
        #   nullable whether first may also be empty (all of i..n-1 optional)
        after, first, nullable = "", None, True
        for member, is_required in reversed(members):
            with_it = member + after
            if is_required:
                first, nullable = with_it, False
            else:
                first = with_it if first is None else f"{with_it}|{first}"
            after = (f",{member}" if is_required else f"(,{member})?") + after
        if first is None:
            return r"\{\}"
        return r"\{(" + first + ")" + ("?" if nullable else "") + r"\}"


def json_schema_to_regex(schema: dict) -> str:
    """The regex (our subset, ASCII text) of the compact JSON documents `schema` allows; see the module doc.

    Raises `SchemaError` naming the keyword and the JSON pointer of anything outside the subset.

    >>> json_schema_to_regex({"enum": ["a", 1, None]})
    '("a"|1|null)'
    """
    return _Compiler().schema(as_json_schema(schema), "", None)
