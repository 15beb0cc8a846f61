"""One schema without combinators, by type; ``enum``/``const``; the string and number leaves.

`_Leaves._flat` writes each type the schema allows with the keywords of that type; ``enum`` and
``const`` values are written as this writer writes them when they satisfy the other keywords as
written; strings and numbers are `brzozowski.json.leaf_terms`, whose narrowing notes are kept.
"""

from __future__ import annotations

from typing import Any

from ...budget import check_deadline
from ...core.derivatives import derivative_of_string
from ...core.terms import EMPTY, Term, alt
from ...errors import SchemaError
from ..leaf_terms import FORMATS, json_integer_term, json_number_term, json_string_term
from ..merge import json_equal
from ..refs import pointer_append
from .common import (
    build_leaf,
    TYPES, _NUMBER_ARGUMENTS, _NUMBER_KEYWORDS, _STANDARD_FORMATS, _expand, _scalar_literals, _type_names,
    _type_of,
)


class _Leaves:
    """The leaves part of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def _flat(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        if "type" in node:
            given = node["type"]
            names = _type_names(given)
            if names is None:
                return self.refuse(pointer_append(ptr, "type"), "type",
                                   f"type must be one of {', '.join(TYPES)} or a list of them, got {given!r}")
            types = types & _expand(names)
        if "enum" in node or "const" in node:
            return self._values(node, ptr, base, depth, types)
        terms = _scalar_literals(types)
        if "number" in types or "integer" in types:
            terms.append(self._number(node, ptr, "number" if "number" in types else "integer"))
        if "string" in types:
            terms.append(self._string(node, ptr))
        if "array" in types:
            terms.append(self._array(node, ptr, base, depth))
        if "object" in types:
            terms.append(self._object(node, ptr, base, depth))
        return alt(*terms)

    def _values(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """enum/const: the listed values that also satisfy the schema's other keywords, as written."""
        candidates: list[tuple[Any, str]] = []
        if "enum" in node:
            values = node["enum"]
            if not isinstance(values, list):
                return self.refuse(pointer_append(ptr, "enum"), "enum", f"enum must be a list, got {values!r}")
            candidates = [(v, pointer_append(pointer_append(ptr, "enum"), i)) for i, v in enumerate(values)]
        if "const" in node:
            const = node["const"]
            if "enum" in node:
                candidates = [(v, p) for v, p in candidates if json_equal(v, const)]
            else:
                candidates = [(const, pointer_append(ptr, "const"))]
        rest = {k: v for k, v in node.items() if k not in ("enum", "const")}
        # Values of a type outside `types` are left out exactly (the caller splits by type): no note.
        candidates = [(v, p) for v, p in candidates if types & frozenset(_type_of(v))]
        types = types & frozenset(t for v, _ in candidates for t in _type_of(v))
        if not candidates:
            return EMPTY
        others = self.term(rest, ptr, base, depth, types) if rest else self.any_value(depth, types)
        kept: list[Term] = []
        derived: list[Term] = []  # derivatives of `others` alive across the values: shared prefixes
        for value, where in candidates:
            check_deadline(where)
            try:
                text = self.w.text(value)
            except (TypeError, ValueError) as e:
                self.refuse(where, "enum" if "enum" in node else "const", f"not a JSON value ({e})")
                continue
            if derivative_of_string(others, text, derived).nullable:
                kept.append(self.w.value(value, where))
            else:
                self.note(where, "this value is not written: it fails the schema's other keywords as "
                                 "written (type, bounds, property order, depth)")
        if not kept:
            self.note(ptr, "no enum/const value is allowed here: nothing is written")
        return alt(*kept)

    def _leaf(self, ptr: str, build, **keywords) -> Term:
        notes: list[str] = []
        try:
            term = build_leaf(build, ptr, notes, **keywords)
        except SchemaError as e:
            return self.refuse(pointer_append(ptr, e.keyword) if e.keyword else ptr, e.keyword, e.message)
        for text in notes:
            self.note(ptr, text)
        return term

    def _string(self, node: dict, ptr: str) -> Term:
        fmt = node.get("format")
        if fmt is not None and fmt not in FORMATS:
            where = pointer_append(ptr, "format")
            if fmt in _STANDARD_FORMATS or not self.ignore_unknown:
                return self.refuse(where, "format", f"format {fmt!r} is not supported (supported: "
                                                    f"{', '.join(sorted(FORMATS)) or 'none yet'}); "
                                                    "remove it or write a pattern")
            self.note(where, f"unknown format {fmt!r} ignored (validators ignore it too)")
            fmt = None
        for keyword in ("minLength", "maxLength"):
            if keyword in node and (isinstance(node[keyword], bool) or not isinstance(node[keyword], int)
                                    or node[keyword] < 0):
                return self.refuse(pointer_append(ptr, keyword), keyword,
                                   f"{keyword} must be a non-negative integer, got {node[keyword]!r}")
        return self._leaf(ptr, json_string_term, min_length=node.get("minLength", 0),
                          max_length=node.get("maxLength"), pattern=node.get("pattern"), format=fmt)

    def _bounds(self, node: dict, ptr: str) -> dict[str, Any] | None:
        """The numeric keywords as `json_number_term` arguments, or None after refusing a bad one."""
        given = {keyword: node.get(keyword) for keyword in _NUMBER_KEYWORDS}
        for plain, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if given[exclusive] is True:  # draft 4: a flag that makes minimum/maximum exclusive
                given[exclusive], given[plain] = given[plain], None
            elif given[exclusive] is False:
                given[exclusive] = None
        bounds: dict[str, Any] = {}
        for keyword, value in given.items():
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.refuse(pointer_append(ptr, keyword), keyword, f"{keyword} must be a number, got {value!r}")
                return None
            bounds[_NUMBER_ARGUMENTS[keyword]] = value
        return bounds

    def _number(self, node: dict, ptr: str, kind: str) -> Term:
        bounds = self._bounds(node, ptr)
        if bounds is None:
            return EMPTY
        build = json_number_term if kind == "number" else json_integer_term
        return self._leaf(ptr, build, **bounds)
