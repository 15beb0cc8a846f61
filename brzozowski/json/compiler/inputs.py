"""The size and depth limits a schema must keep before any compiling starts (`brzozowski.budget.Limits`).

`check_schema_input(schema, limits, max_depth)` walks the schema document once, with an explicit
stack (never recursion: the document's depth is what is being checked), and raises:

- `SchemaError` at the pointer of the first place that nests deeper than ``max_schema_depth``
  (objects and arrays, ``const``/``enum`` values included; a document that contains itself nests
  without end and is caught the same way);
- `InputLimitError` naming the limit, its value and the pointer when a schema object lists more
  properties than ``max_properties``, an ``enum`` more values than ``max_enum_members``, a
  ``const``/``enum`` string or a property name is longer than ``max_literal_length``, a
  ``minContains``/``maxContains`` is above ``max_contains_count``, the compact JSON text is longer
  than ``max_schema_bytes`` (counted on the walk, without writing it: strings and names by their
  UTF-8 length with quotes, escapes left out; integers by their digits, from their bit length, so a
  huge integer is never converted to text), or ``max_depth`` is above ``max_document_depth``.

Which values are subschemas follows `brzozowski.json.refs` (the same keyword lists): a property
*named* ``enum`` is a name, not a keyword. Once the walk passes, every later recursion over the
document (the compiler's, the merge's, ``json.dumps``') is bounded by ``max_schema_depth``.
"""

from __future__ import annotations

import math
from typing import Any

from ...budget import Limits
from ...errors import InputLimitError, SchemaError
from ..refs import SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, SCHEMA_ONE_KEYWORDS, pointer_append

__all__ = ["check_schema_input"]

#: The keywords whose ``properties``-like maps count towards `Limits.max_properties`.
_PROPERTY_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SCHEMA, _VALUE = 0, 1  # what a value on the walk's stack is: a subschema, or data (const/enum/annotation)


def _refuse(limit: str, value: int, found: int, what: str, ptr: str) -> InputLimitError:
    return InputLimitError(f"Limits.{limit} ({value}) exceeded at {ptr or '(root)'}: {what} ({found})")


def check_schema_input(schema: Any, limits: Limits, max_depth: int) -> None:
    """Raise where `schema` (compiled with ``max_depth``) breaks a limit of `limits` (see the module doc)."""
    if (limits.max_document_depth is not None and isinstance(max_depth, int)  # (its type: `_Compiler`'s check)
            and max_depth > limits.max_document_depth):
        raise _refuse("max_document_depth", limits.max_document_depth, max_depth,
                      "max_depth, the nesting of documents", "(root)")
    deepest = limits.max_schema_depth
    stack: list[tuple[Any, str, int, int, bool]] = [(schema, "", 0, _SCHEMA, False)]
    size = 0
    while stack:
        value, ptr, depth, kind, literal = stack.pop()
        size += _text_length(value)
        if deepest is not None and depth > deepest:
            raise SchemaError(f"the schema nests more than {deepest} levels deep here (objects and "
                              "arrays, const/enum values included; Limits.max_schema_depth)", ptr, None)
        if isinstance(value, dict):
            if kind == _SCHEMA:
                _check_keywords(value, ptr, limits)
            for key, sub in value.items():
                size += _text_length(key) + 1  # and its colon
                if literal:
                    _check_literal(key, ptr, limits)
                where = pointer_append(ptr, key)
                if kind != _SCHEMA:
                    stack.append((sub, where, depth + 1, _VALUE, literal))
                    continue
                if key in SCHEMA_MAP_KEYWORDS and isinstance(sub, dict):
                    for name, item in sub.items():
                        if key == "properties":
                            _check_literal(name, where, limits)
                        stack.append((item, pointer_append(where, name), depth + 2, _SCHEMA, False))
                elif key in SCHEMA_LIST_KEYWORDS and isinstance(sub, list):
                    stack.extend((item, pointer_append(where, i), depth + 2, _SCHEMA, False)
                                 for i, item in enumerate(sub))
                elif key in SCHEMA_ONE_KEYWORDS:
                    stack.append((sub, where, depth + 1, _SCHEMA, False))
                else:
                    stack.append((sub, where, depth + 1, _VALUE, key in ("const", "enum")))
        elif isinstance(value, list):
            stack.extend((item, pointer_append(ptr, i), depth + 1, kind, literal) for i, item in enumerate(value))
        elif literal and isinstance(value, str):
            _check_literal(value, ptr, limits)
    if limits.max_schema_bytes is not None and size > limits.max_schema_bytes:
        raise _refuse("max_schema_bytes", limits.max_schema_bytes, size, "bytes of compact JSON", "(root)")


_LOG10_2 = math.log10(2)


def _text_length(value: Any) -> int:
    """The bytes `value` itself adds to the compact JSON text (its own punctuation and a separator;
    not its members'), as the module doc says."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) + 3
    if isinstance(value, bool) or value is None:
        return 6
    if isinstance(value, int):
        return int(value.bit_length() * _LOG10_2) + 3
    if isinstance(value, (dict, list)):
        return 3
    return 25  # a float's repr, or a value json.dumps cannot write (the compiler refuses it)


def _check_keywords(node: dict, ptr: str, limits: Limits) -> None:
    if limits.max_properties is not None:
        for keyword in _PROPERTY_MAPS:
            listed = node.get(keyword)
            if isinstance(listed, dict) and len(listed) > limits.max_properties:
                raise _refuse("max_properties", limits.max_properties, len(listed), f"names in {keyword}",
                              pointer_append(ptr, keyword))
    members = node.get("enum")
    if limits.max_enum_members is not None and isinstance(members, list) and len(members) > limits.max_enum_members:
        raise _refuse("max_enum_members", limits.max_enum_members, len(members), "enum values",
                      pointer_append(ptr, "enum"))
    if limits.max_contains_count is not None:
        for keyword in ("minContains", "maxContains"):
            count = node.get(keyword)
            if isinstance(count, (int, float)) and not isinstance(count, bool) and count > limits.max_contains_count:
                raise _refuse("max_contains_count", limits.max_contains_count, count, keyword,
                              pointer_append(ptr, keyword))


def _check_literal(text: Any, ptr: str, limits: Limits) -> None:
    if limits.max_literal_length is not None and isinstance(text, str) and len(text) > limits.max_literal_length:
        raise _refuse("max_literal_length", limits.max_literal_length, len(text), "characters in one literal string", ptr)
