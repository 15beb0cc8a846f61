"""``not``, overlapping ``oneOf`` and ``if``/``then``/``else``: exact complements, or structural negations.

A subschema with an exact term (`brzozowski.json.compiler.exact`) is negated within C; otherwise
`_Negation.negations` splits its failure into cases (a required name missing, a property failing
its schema, the other keywords' ``not``; combinators by De Morgan), each merged into the enclosing
schema. Neither possible: refused at the narrowing's pointer.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from ...budget import check_deadline
from ...core.derivatives import matches
from ...core.terms import EMPTY, Term, alt, inter
from ..merge import ANNOTATIONS, MAX_ANYOF_PRODUCT
from ..refs import child_base, pointer_append
from .common import _Inexact, _MAX_NEGATION_HOPS, _OBJECT_KEYWORDS, _UNIVERSE_NOTE, _is_true


class _Negation:
    """The negation part of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def _decide(self, compiled, exact: Term, node: Any, base: str, depth: int, types: frozenset,
                keep: bool) -> Term:
        """The documents of `compiled(types)` that satisfy (`keep`) or fail the exact subschema
        `node` (its `complete` term `exact`). Objects are decided by their type alone (an exact
        subschema has no object keywords), arrays too when it has no array keywords; the rest is
        intersected with `exact` or its complement within C."""
        side = exact if keep else self.outside(exact, depth)
        parts = [inter(compiled(types - {"array", "object"}), side)]
        for kind, empty in (("object", b"{}"), ("array", b"[]")):
            if kind not in types or depth == 0:
                continue
            if kind == "array" and self._looks_into_arrays(node, base):
                parts.append(inter(compiled(frozenset({kind})), side))
            elif matches(exact, empty) == keep:
                parts.append(compiled(frozenset({kind})))
        return alt(*parts)

    def _exact_or_refuse(self, node: Any, ptr: str, base: str, depth: int, keyword: str) -> Term | None:
        """`complete`, or None after refusing with the narrowing that prevents the complement."""
        try:
            return self.complete(node, ptr, base, depth)
        except _Inexact as e:
            self.refuse(e.pointer, e.keyword, f"{keyword} needs the complement of the subschema at "
                                              f"{ptr or '(root)'}, which cannot be exact: {e.reason}")
            return None

    def negations(self, node: Any, ptr: str, base: str, depth: int, hops: int = 0) -> list[list[Any]]:
        """Cases whose union is the documents failing `node`: each case a list of schemas that,
        merged with the enclosing schema, imply the failure. An exact subschema is one case
        ``[{"not": node}]``; otherwise it is split structurally: ``required`` name k missing
        (``properties: {k: false}``), a present property k failing its schema (``not`` of it, again
        split if need be), and the other keywords' ``not``; combinators by De Morgan.
        Raises `_Inexact` where neither works."""
        check_deadline(ptr)
        if _is_true(node):
            return []
        if node is False:
            return [[]]
        try:
            self.complete(node, ptr, base, depth)
            return [[{"not": node}]]
        except _Inexact as e:
            if not isinstance(node, dict) or hops > _MAX_NEGATION_HOPS or child_base(base, node) != base:
                raise
            first = e.with_traceback(None)  # kept past the handler: its traceback (or its context's)
            first.__context__ = None        # would hold this frame, a reference cycle
        cases: list[list[Any]] = []
        plain: dict[str, Any] = {}
        for key, value in node.items():
            where = pointer_append(ptr, key)
            if key in ANNOTATIONS or key in ("then", "else"):
                continue
            if key == "$ref":
                target, target_ptr, target_base = self._resolve_or_inexact(value, base, where)
                if target_base != base:
                    raise first
                cases += self.negations(target, target_ptr, base, depth, hops + 1)
            elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list) and value:
                each = [self.negations(sub, pointer_append(where, i), base, depth, hops + 1)
                        for i, sub in enumerate(value)]
                if key == "allOf":
                    cases += [case for alternatives in each for case in alternatives]
                else:
                    cases += self._all_fail(each, where)
                    if key == "oneOf":
                        cases += [[a, b] for i, a in enumerate(value) for b in value[i + 1:]]
            elif key == "not":
                cases.append([value])
            elif key == "if":
                then = self.negations(node.get("then", True), pointer_append(ptr, "then"), base, depth, hops + 1)
                otherwise = self.negations(node.get("else", True), pointer_append(ptr, "else"), base, depth, hops + 1)
                cases += [[value, *case] for case in then]
                cases += [a + b for a in self.negations(value, where, base, depth, hops + 1) for b in otherwise]
            elif key == "required" and isinstance(value, list) and all(isinstance(n, str) for n in value):
                cases += [[{"type": "object", "properties": {name: False}}] for name in value]
            elif key == "properties" and isinstance(value, dict):
                cases += [[{"type": "object", "required": [name], "properties": {name: {"not": sub}}}]
                          for name, sub in value.items() if not _is_true(sub)]
            elif key == "additionalProperties" and _is_true(value):
                continue
            elif (key == "additionalProperties" and value is False and not node.get("patternProperties")
                  and isinstance(node.get("properties", {}), dict)):
                listed = len(node.get("properties", {}))
                self.note(where, f"failing additionalProperties: false is written only as an object with "
                                 f"more than {listed} properties (so one is unlisted)")
                cases.append([{"type": "object", "minProperties": listed + 1}])
            elif key in _OBJECT_KEYWORDS:
                raise _Inexact(where, key, f"the complement of {key} is not compiled (only of properties, "
                                           "required and additionalProperties: false); express the "
                                           "alternatives with properties and required")
            else:
                plain[key] = value
        if not _is_true(plain):
            self.complete(plain, ptr, base, depth)  # raises where the other keywords are not exact
            cases.append([{"not": plain}])
        if len(cases) > MAX_ANYOF_PRODUCT:
            raise _Inexact(ptr, None, f"its complement has {len(cases)} cases, over the limit of {MAX_ANYOF_PRODUCT}")
        return cases

    def _all_fail(self, each: list[list[list[Any]]], where: str) -> list[list[Any]]:
        """The cases where every branch fails: one case of each branch's, merged together."""
        total = math.prod(len(cases) for cases in each)
        if total > MAX_ANYOF_PRODUCT:
            raise _Inexact(where, where.rsplit("/", 1)[-1], f"failing every branch makes {total} cases, "
                                                           f"over the limit of {MAX_ANYOF_PRODUCT}")
        return [[schema for case in combination for schema in case] for combination in itertools.product(*each)]

    def _negated_or_refuse(self, node: Any, ptr: str, base: str, depth: int, keyword: str) -> bool:
        """Whether `node` can be negated (exactly, or structurally); refuses where it cannot."""
        try:
            self.negations(node, ptr, base, depth)
            return True
        except _Inexact as e:
            self.refuse(e.pointer, e.keyword, f"{keyword} needs the documents failing the subschema at "
                                              f"{ptr or '(root)'}, which cannot be compiled exactly: {e.reason}")
            return False

    def _not(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """``not``: within C minus the subschema's exact term, or, where that term is not exact
        (objects with properties), as the cases of `negations` merged into the schema at hand."""
        negated, where = node["not"], pointer_append(ptr, "not")
        rest = {k: v for k, v in node.items() if k != "not"}
        if negated is False:
            return self.term(rest, ptr, base, depth, types)
        if _is_true(negated):
            return EMPTY
        try:
            exact = self.complete(negated, where, base, depth)
        except _Inexact:
            if not self._negated_or_refuse(negated, where, base, depth, "not"):
                return EMPTY
            if not _is_true(rest.get("unevaluatedProperties", True)):
                # The cases list properties, but a failing subschema evaluates none.
                return self.refuse(pointer_append(ptr, "unevaluatedProperties"), "unevaluatedProperties",
                                   "unevaluatedProperties beside not, if/then/else or oneOf over object "
                                   "properties: write additionalProperties, or the properties, instead")
            self.note(where, "not: compiled as the cases that fail it (a required property missing, a "
                             "property failing its schema), each merged into this schema: one object, "
                             "in this schema's property order")
            return alt(*(self.merged_term([rest, *case], ptr, base, depth, types)
                         for case in self.negations(negated, where, base, depth)))
        self.note(where, _UNIVERSE_NOTE)
        return self._decide(lambda kinds: self.term(rest, ptr, base, depth, kinds), exact, negated, base,
                            depth, types, keep=False)

    def _one_of(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """Overlapping ``oneOf``: ⋃ᵢ (branch i and not any other branch), each merged with the rest."""
        branches, where = node["oneOf"], pointer_append(ptr, "oneOf")
        if not isinstance(branches, list) or not branches:
            return self.refuse(where, "oneOf", "oneOf must be a non-empty list of schemas")
        if not all([self._negated_or_refuse(b, pointer_append(where, i), base, depth, "oneOf")
                    for i, b in enumerate(branches)]):
            return EMPTY
        rest = {k: v for k, v in node.items() if k != "oneOf"}
        self.note(where, "oneOf: each branch merged with the complement of the others (a not of their "
                         "anyOf) and with this schema, in this schema's property order")
        terms = []
        for i, branch in enumerate(branches):
            others = [{"not": b} for j, b in enumerate(branches) if j != i]
            terms.append(self.merged_term([rest, branch, *others], pointer_append(where, i), base, depth, types))
        return alt(*terms)

    def _if_then_else(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """(if and then) or (not if and else), each merged with the rest of the schema."""
        condition, where = node["if"], pointer_append(ptr, "if")
        if not self._negated_or_refuse(condition, where, base, depth, "if"):
            return EMPTY
        rest = {k: v for k, v in node.items() if k not in ("if", "then", "else")}
        negated = {"not": condition}
        self.note(where, "if/then/else: (if and then) or (not if and else), each merged into this "
                         "schema: one object, in the merged property order")
        return alt(self.merged_term([rest, condition, node.get("then", True)], ptr, base, depth, types),
                   self.merged_term([rest, negated, node.get("else", True)], ptr, base, depth, types))
