"""Exact terms for complements: the universe C and `complete` (C ∩ Valid(S) ⊆ T ⊆ Valid(S)).

Complements are taken only within C (see the package doc): `_Exact.universe` builds C per depth,
`_Exact.complete` the exact term of a subschema without object keywords, format, contains-in-prefix
or uniqueItems, raising `_Inexact` at the first keyword whose language would miss a document of C.
"""

from __future__ import annotations

import math
from typing import Any

from ...budget import check_deadline
from ...core.terms import (
    EMPTY, EPSILON, Term, alt, byte, byte_set, compl, concat, inter, literal, repeat, star,
)
from ...errors import SchemaError
from ..leaf_terms import json_integer_term, json_number_term, json_string_term
from ..merge import ANNOTATIONS
from ..refs import child_base, pointer_append
from ..strings import spelled_string
from .common import (
    build_leaf,
    MAX_ACTIVE_SCHEMAS, _ALL_TYPES, _ARRAY_KEYWORDS, _C_FRACTION_DIGITS, _DIGIT_BITS, _EXACT_KEYWORDS,
    _HANDLED, _Inexact, _OBJECT_KEYWORDS, _REFUSED, _expand, _scalar_literals, _type_names,
)


class _Exact:
    """The exact part of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def universe(self, depth: int) -> Term:
        """C: the JSON values (nesting at most `depth`) in which complements are taken.

        null, true, false; integers; numbers with a fraction whose last digit is not 0 and with at
        most `_C_FRACTION_DIGITS` digits, never an exponent; every string (every spelling); arrays of
        C; objects as "any JSON value" writes them (a complemented subschema never looks into an
        object: `complete` refuses object keywords, and `_decide` takes objects by their type). Being
        the very terms the compiler writes elsewhere, they cancel in intersections: no state deep
        inside a document stays a product of two object languages."""
        found = self._universe.get(depth)
        if found is None:
            digit = byte_set(_DIGIT_BITS)
            minus = alt(EPSILON, byte(ord("-")))
            natural = alt(byte(ord("0")), concat(byte_set(_DIGIT_BITS & ~(1 << ord("0"))), star(digit)))
            fraction = concat(minus, natural, byte(ord(".")), star(digit),
                              byte_set(_DIGIT_BITS & ~(1 << ord("0"))))
            short = concat(minus, repeat(byte_set(_DIGIT_BITS | (1 << ord("."))), 2, _C_FRACTION_DIGITS + 1))
            parts = [literal(b"null"), literal(b"true"), literal(b"false"), concat(minus, natural),
                     inter(fraction, short), json_string_term()]
            if depth > 0:
                item = self.universe(depth - 1)
                parts.append(self.w.container("[", concat(item, star(concat(self.w.item_sep, item))), True, "]"))
                parts.append(self.any_value(depth, frozenset({"object"})))
            found = self._universe[depth] = alt(*parts)
        return found

    def outside(self, term: Term, depth: int) -> Term:
        """C minus `term`: the documents of C that fail a schema whose `complete` term is `term`."""
        return inter(self.universe(depth), compl(term))

    def complete(self, node: Any, ptr: str, base: str, depth: int) -> Term:
        """A term T with C ∩ Valid(node) ⊆ T ⊆ Valid(node): its complement within C is exact.

        Raises `_Inexact` naming the first keyword whose language would miss some document of C
        (object keywords, format, contains, uniqueItems, enum values that are arrays or objects,
        numeric bounds that are rounded), so the caller can refuse or negate structurally.
        """
        if node is True:
            return self.universe(depth)
        if node is False:
            return EMPTY
        if not isinstance(node, dict):
            raise _Inexact(ptr, None, "not a schema")
        check_deadline(ptr)
        key = (self.node_key(node, ptr), base, depth)
        found = self._complete.get(key)
        if found is not None:
            return found
        if key in self._completing or len(self._completing) > MAX_ACTIVE_SCHEMAS:
            raise _Inexact(ptr, "$ref", "a $ref cycle without an array in between")
        self._completing.add(key)
        try:
            found = self._complete_schema(node, ptr, child_base(base, node), depth)
        finally:
            self._completing.discard(key)
        self._complete[key] = found
        return found

    def _resolve_or_inexact(self, ref: Any, base: str, where: str) -> tuple[Any, str, str]:
        """`SchemaIndex.resolve`, with an unresolvable reference reported as `_Inexact`."""
        try:
            return self.index.resolve(ref, base, where)
        except SchemaError as e:
            raise _Inexact(e.pointer, e.keyword, e.message) from None

    def _complete_schema(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        parts: list[Term] = []
        for key, value in node.items():
            where = pointer_append(ptr, key)
            if key in ANNOTATIONS or key in _EXACT_KEYWORDS:
                continue
            if key == "$ref":
                target, target_ptr, target_base = self._resolve_or_inexact(value, base, where)
                parts.append(self.complete(target, target_ptr, target_base, depth))
            elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list) and value:
                terms = [self.complete(sub, pointer_append(where, i), base, depth) for i, sub in enumerate(value)]
                if key == "allOf":
                    parts.extend(terms)
                elif key == "anyOf":
                    parts.append(alt(*terms))
                else:
                    parts.append(alt(*(inter(t, *(self.outside(u, depth) for j, u in enumerate(terms) if j != i))
                                       for i, t in enumerate(terms))))
            elif key == "not":
                parts.append(self.outside(self.complete(value, where, base, depth), depth))
            elif key == "if":
                condition = self.complete(value, where, base, depth)
                then = self.complete(node.get("then", True), pointer_append(ptr, "then"), base, depth)
                otherwise = self.complete(node.get("else", True), pointer_append(ptr, "else"), base, depth)
                parts.append(alt(inter(condition, then), inter(self.outside(condition, depth), otherwise)))
            elif key == "format":
                raise _Inexact(where, key, "a format's language is narrower than what FormatChecker "
                                           "accepts; write a pattern instead")
            elif key == "uniqueItems" and value is False:
                continue
            elif key in ("contains", "minContains", "maxContains"):
                continue  # `_complete_array` counts the items that match
            elif key in _OBJECT_KEYWORDS:
                raise _Inexact(where, key, f"{key}: object keywords are written in one property order, so "
                                           "their language misses objects of other key orders")
            elif key in _HANDLED or key in _REFUSED or not self.ignore_unknown:
                raise _Inexact(where, key, f"{key} is compiled narrower than it validates")
        parts.append(self._complete_flat(node, ptr, base, depth))
        return inter(*parts)

    def _complete_flat(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        """The type, enum/const and leaf keywords of `node`, every document of C they allow."""
        types = _ALL_TYPES
        if "type" in node:
            names = _type_names(node["type"])
            if names is None:
                raise _Inexact(pointer_append(ptr, "type"), "type", "not a valid type")
            types = _expand(names)
        terms = _scalar_literals(types)
        if "number" in types or "integer" in types:
            bounds = self._bounds(node, ptr)
            if bounds is None:
                raise _Inexact(ptr, None, "invalid numeric keywords")
            build = json_number_term if "number" in types else json_integer_term
            terms.append(self._exact_leaf(ptr, build, **bounds))
        if "string" in types:
            terms.append(self._exact_leaf(ptr, json_string_term, min_length=node.get("minLength", 0),
                                          max_length=node.get("maxLength"), pattern=node.get("pattern")))
        if "array" in types and depth > 0:
            terms.append(self._complete_array(node, ptr, base, depth))
        if "object" in types and depth > 0:
            terms.append(self.any_value(depth, frozenset({"object"})))
        flat = alt(*terms)
        if "enum" in node or "const" in node:
            values = [node["const"]] if "const" in node else node["enum"]
            if not isinstance(values, list):
                raise _Inexact(pointer_append(ptr, "enum"), "enum", "enum must be a list")
            keyword = "const" if "const" in node else "enum"
            flat = inter(flat, alt(*(self._every_spelling(v, pointer_append(ptr, keyword), keyword) for v in values)))
        return flat

    def _exact_leaf(self, ptr: str, build, place: tuple[str, str] | None = None, **keywords) -> Term:
        """A leaf term, or `_Inexact` at the keyword of its first narrowing note (or at `place`,
        a (pointer, keyword) pair). No narrowing within C: "without an exponent" (C has none),
        "decimals that only round onto the bound" (they lie within 1e-90 of zero, where the only
        decimal of C is 0, an integer, which the bounds compare exactly), and "multipleOf k: only
        integers" for an integer k (a fraction of C is never integer-valued, so never a multiple)."""
        notes: list[str] = []
        try:
            term = build_leaf(build, ptr, notes, **keywords)
        except SchemaError as e:
            raise _Inexact(place[0] if place else ptr, place[1] if place else e.keyword, e.message) from None
        for text in notes:
            integer_divisor = isinstance(keywords.get("multiple_of"), int)
            if not (text.endswith("numbers are written without an exponent") or "satisfies" in text
                    or "decimals that only round onto the bound" in text
                    or (integer_divisor and text.startswith("multipleOf"))):
                word = text.split(":")[0].split()[0]
                raise _Inexact(*(place or (pointer_append(ptr, word), word)), text)
        return term

    def _every_spelling(self, value: Any, ptr: str, keyword: str) -> Term:
        """Every text of C that ``jsonschema`` finds equal to the scalar `value`."""
        if value is None:
            return literal(b"null")
        if isinstance(value, bool):
            return literal(b"true" if value else b"false")
        if isinstance(value, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
                raise _Inexact(ptr, keyword, "a string with a lone surrogate")
            return spelled_string(value)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return self._exact_leaf(ptr, json_number_term, (ptr, keyword), minimum=value, maximum=value)
        raise _Inexact(ptr, keyword, f"{keyword} values that are arrays or objects are written in one "
                                     "spelling and key order; list scalar values, or negate by properties")

    def _complete_array(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        least = self._count(node, ptr, "minItems") or 0
        most = self._count(node, ptr, "maxItems")
        items = node.get("items", True)
        prefix: list[tuple[Any, str]] = []
        items_ptr = pointer_append(ptr, "items")
        if isinstance(items, list):
            prefix = [(s, pointer_append(items_ptr, i)) for i, s in enumerate(items)]
            items, items_ptr = node.get("additionalItems", True), pointer_append(ptr, "additionalItems")
        elif isinstance(node.get("prefixItems"), list):
            where = pointer_append(ptr, "prefixItems")
            prefix = [(s, pointer_append(where, i)) for i, s in enumerate(node["prefixItems"])]
        if items is False:
            most = len(prefix) if most is None else min(most, len(prefix))
        prefix_terms = [self.complete(s, p, base, depth - 1) for s, p in prefix]
        rest = EMPTY if items is False else self.complete(items, items_ptr, base, depth - 1)
        if "contains" not in node:
            return self._sequence(prefix_terms, rest, least, most)
        if prefix:
            raise _Inexact(pointer_append(ptr, "contains"), "contains", "contains beside prefixItems")
        at_least = self._count(node, ptr, "minContains")
        contained = self.complete(node["contains"], pointer_append(ptr, "contains"), base, depth - 1)
        return self._counting(inter(rest, contained), inter(rest, self.outside(contained, depth - 1)),
                              1 if at_least is None else at_least, self._count(node, ptr, "maxContains"),
                              least, most, pointer_append(ptr, "contains"))

    def _looks_into_arrays(self, node: Any, base: str, seen: set | None = None) -> bool:
        """Whether an exact subschema has an array keyword anywhere in place (if not, every array
        satisfies it or none does)."""
        seen = set() if seen is None else seen
        if not isinstance(node, dict) or id(node) in seen:
            return False
        seen.add(id(node))
        if any(k in node for k in _ARRAY_KEYWORDS if k != "uniqueItems") or node.get("uniqueItems") is True:
            return True
        if any(isinstance(v, (list, dict)) for v in node.get("enum", []) if isinstance(node.get("enum"), list)):
            return True
        if isinstance(node.get("const"), (list, dict)):
            return True
        subs = [node.get(k) for k in ("not", "if", "then", "else")]
        subs += [s for k in ("allOf", "anyOf", "oneOf") if isinstance(node.get(k), list) for s in node[k]]
        if "$ref" in node:
            try:
                subs.append(self.index.resolve(node["$ref"], child_base(base, node))[0])
            except SchemaError:
                return True
        return any(self._looks_into_arrays(sub, base, seen) for sub in subs)
