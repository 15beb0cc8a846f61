"""Structural ``allOf``: several schemas merged into one whose keywords say the same, when that is exact.

`merge_schemas(parts)` takes schemas without ``$ref`` or ``allOf`` at their top (the compiler
resolves those first) and returns one schema that allows exactly the instances every part allows,
or raises `Unmergeable` naming the keyword that would need a true intersection (issue 12: ``&`` of
terms). Keywords merge the way the validation rules compose:

- ``type``: the common types (``integer`` is in ``number``); ``required``, ``dependentRequired``:
  the union; ``enum``/``const``: the common values; lower bounds: the largest; upper bounds: the
  smallest; ``uniqueItems``: either; ``items``, ``propertyNames``, ``contains`` of one part and
  subschemas of one property name: an ``allOf`` of the parts' subschemas (merged in turn when
  compiled);
- ``properties`` with ``additionalProperties``: a name listed by one part and not another gets, from
  that other part, its ``additionalProperties`` (what JSON Schema applies there), so
  ``{"properties": {"a": …}, "additionalProperties": false}`` merged with a part listing ``b``
  forbids ``b``, exactly as the validator does;
- ``anyOf`` in several parts: the ``anyOf`` of every combination (at most `MAX_ANYOF_PRODUCT`);
- ``not`` in several parts: one ``not`` of their ``anyOf`` (failing each is failing their union);
- a keyword given by one part only is taken as it is; equal values are kept once; anything else
  (two different ``pattern``s, ``patternProperties`` beside another part's properties, ...) is
  `Unmergeable`.

>>> merge_schemas([{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
...                {"properties": {"b": {"type": "string"}}, "required": ["b"]}])["required"]
['a', 'b']
>>> merge_schemas([{"type": ["integer", "string"]}, {"type": "number", "minimum": 1}])
{'type': ['integer'], 'minimum': 1}
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

__all__ = ["ANNOTATIONS", "MAX_ANYOF_PRODUCT", "Unmergeable", "all_of", "json_equal", "json_key",
           "merge_schemas"]

#: Keywords that constrain nothing: dropped from merged schemas, accepted everywhere.
ANNOTATIONS = frozenset({
    "title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly",
    "$schema", "$id", "id", "contentMediaType", "contentEncoding", "contentSchema", "$anchor",
    "$dynamicAnchor", "$vocabulary", "$defs", "definitions",
})

#: The most branches a merge of several ``anyOf`` may produce (their product): beyond it the
#: schema grows exponentially, and the merge is refused instead.
MAX_ANYOF_PRODUCT = 64

_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_SUBSCHEMA = ("items", "propertyNames", "additionalItems")
_TYPE_ORDER = ("null", "boolean", "object", "array", "number", "integer", "string")


class Unmergeable(Exception):
    """Two parts constrain `keyword` in a way only an intersection of languages can express."""

    def __init__(self, keyword: str, reason: str) -> None:
        super().__init__(reason)
        self.keyword = keyword
        self.reason = reason


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values as JSON Schema means it: 1 == 1.0, but true != 1 and key order is moot."""
    return json_key(a) == json_key(b)


def json_key(value: Any) -> Any:
    """A hashable key of a JSON value, equal for values JSON Schema calls equal (`json_equal`): to
    find equal values among many by hashing, not pair by pair."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", value)  # 1 == 1.0, and they hash alike
    if isinstance(value, list):
        return ("array", tuple(json_key(x) for x in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, json_key(x)) for k, x in value.items()))
    return (type(value).__name__, value)


def _is_true(schema: Any) -> bool:
    return schema is True or (isinstance(schema, dict) and not (set(schema) - ANNOTATIONS))


def all_of(schemas: list[Any]) -> Any:
    """The schema that is all of `schemas`: `false` if one is, one schema if only one constrains."""
    kept: list[Any] = []
    for schema in schemas:
        if schema is False:
            return False
        if not _is_true(schema) and not any(s is schema or s == schema for s in kept):
            kept.append(schema)
    if not kept:
        return True
    return kept[0] if len(kept) == 1 else {"allOf": kept}


def _types(value: Any) -> set[str]:
    names = {value} if isinstance(value, str) else set(value)
    if "number" in names:
        names.add("integer")
    return names


def merge_schemas(parts: list[Any]) -> Any:
    """One schema equivalent to all of `parts` (see the module doc); raises `Unmergeable`."""
    dicts: list[dict] = []
    for part in parts:
        if part is False:
            return False
        if not _is_true(part):
            dicts.append(part)
    if not dicts:
        return True
    if len(dicts) == 1:
        return dicts[0]
    merged: dict[str, Any] = {}
    _merge_objects(dicts, merged)
    _merge_arrays(dicts, merged)
    for key in dict.fromkeys(k for d in dicts for k in d):
        if key in ANNOTATIONS or key in merged or key in ("properties", "additionalProperties",
                                                           "patternProperties", "prefixItems", "items",
                                                           "additionalItems"):
            continue
        if key == "const" and merged.get("enum") == []:
            continue  # two different constants: the enum [] says nothing is allowed
        values = [d[key] for d in dicts if key in d]
        if len(values) == 1 or all(json_equal(values[0], v) for v in values[1:]):
            merged[key] = values[0]
        else:
            merged[key] = _merge_values(key, values)
    return merged


def _merge_values(key: str, values: list[Any]) -> Any:
    if key == "type":
        common = set.intersection(*(_types(v) for v in values))
        return [t for t in _TYPE_ORDER if t in common]
    if key in ("required", "enum"):
        if key == "required":
            return list(dict.fromkeys(name for v in values for name in v))
        others = [{json_key(y) for y in v} for v in values[1:]]
        return [x for x in values[0] if all(json_key(x) in keys for keys in others)]
    if any(isinstance(v, bool) for v in values) and key in _LOWER + _UPPER:
        raise Unmergeable(key, f"draft-4 boolean {key} in several parts: write the bound once")
    if key in _LOWER:
        return max(values)
    if key in _UPPER:
        return min(values)
    if key == "uniqueItems":
        return any(values)
    if key in _SUBSCHEMA and not any(isinstance(v, list) for v in values):
        return all_of(values)
    if key == "multipleOf" and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return math.lcm(*values)
    if key == "dependentRequired":
        return {name: list(dict.fromkeys(n for v in values for n in v.get(name, [])))
                for name in dict.fromkeys(k for v in values for k in v)}
    if key == "not":
        return {"anyOf": values}
    if key == "anyOf":
        combinations = math.prod(len(v) for v in values)
        if combinations > MAX_ANYOF_PRODUCT:
            raise Unmergeable(key, f"anyOf in several parts makes {combinations} combinations, over "
                                   f"the limit of {MAX_ANYOF_PRODUCT}")
        return [all_of(list(branches)) for branches in itertools.product(*values)]
    raise Unmergeable(key, f"{key} differs between the parts ({_short(values[0])} and "
                           f"{_short(values[1])}); only one value can be compiled without intersection")


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _merge_objects(dicts: list[dict], merged: dict[str, Any]) -> None:
    """properties / additionalProperties / patternProperties of all parts, as the module doc says."""
    with_patterns = [d for d in dicts if "patternProperties" in d]
    with_objects = [d for d in dicts if "properties" in d or not _is_true(d.get("additionalProperties", True))]
    if with_patterns and (len(with_patterns) > 1 or any(d not in with_patterns for d in with_objects)):
        raise Unmergeable("patternProperties", "patternProperties beside another part's properties or "
                                               "additionalProperties needs an intersection")
    if with_patterns:
        merged["patternProperties"] = with_patterns[0]["patternProperties"]
    names = list(dict.fromkeys(name for d in dicts for name in d.get("properties", {})))
    if names:
        merged["properties"] = {
            name: all_of([d["properties"][name] if name in d.get("properties", {})
                          else d.get("additionalProperties", True) for d in dicts])
            for name in names
        }
    extras = [d["additionalProperties"] for d in dicts if "additionalProperties" in d]
    if extras:
        merged["additionalProperties"] = all_of(extras)
    if any("const" in d for d in dicts):
        consts = [d["const"] for d in dicts if "const" in d]
        if not all(json_equal(consts[0], c) for c in consts[1:]):
            merged["enum"] = []  # nothing equals two different constants


def _merge_arrays(dicts: list[dict], merged: dict[str, Any]) -> None:
    """prefixItems / items of all parts: a part's items also covers another part's prefix positions."""
    if any(isinstance(d.get("items"), list) or "additionalItems" in d for d in dicts):
        with_arrays = [d for d in dicts if "items" in d or "prefixItems" in d or "additionalItems" in d]
        if len(with_arrays) > 1:
            raise Unmergeable("items", "array-form items (draft 7) in several parts needs an intersection")
        for key in ("items", "additionalItems", "prefixItems"):
            if with_arrays and key in with_arrays[0]:
                merged[key] = with_arrays[0][key]
        return
    with_prefix = [d for d in dicts if "prefixItems" in d]
    if len(with_prefix) > 1 and not all(json_equal(with_prefix[0]["prefixItems"], d["prefixItems"])
                                        for d in with_prefix[1:]):
        raise Unmergeable("prefixItems", "prefixItems in several parts needs an intersection")
    items = [d["items"] for d in dicts if "items" in d]
    if with_prefix:
        owner = with_prefix[0]
        others = [d["items"] for d in dicts if "items" in d and "prefixItems" not in d]
        merged["prefixItems"] = [all_of([p, *others]) for p in owner["prefixItems"]]
    if items:
        merged["items"] = all_of(items)
