"""The recursion over a schema: memoized subschemas, ``$ref``, ``allOf`` merged, ``anyOf``, ``dependentSchemas``.

`_Recursion.term` is the one entry for a subschema: it dispatches on the keywords (`_schema`),
memoizes per (subschema, base URI, depth left, types), and refuses what can never end: a node met
again inside itself without an array or object in between, the same parts merged again inside
their own merge, and more than `MAX_CHAIN` schemas nested through references and combinators at
one depth. Every subschema compiled is a unit of work of the compile's deadline.
"""

from __future__ import annotations

import json
from typing import Any

from ...budget import check_deadline
from ...core.derivatives import alphabet_classes, keep_derivatives
from ...core.terms import EMPTY, Term, alt, inter
from ...errors import SchemaError
from ..merge import ANNOTATIONS, Unmergeable, json_equal, json_key, merge_schemas
from ..refs import child_base, pointer_append
from .common import (
    MAX_ACTIVE_SCHEMAS, MAX_REF_HOPS, schema_key, _ALL_TYPES, _ANY, _HANDLED, _IN_PLACE, _ISSUE_12,
    _Pieces, _REFUSED, _expand, _is_true, _type_of, _without_strings_inside_every_string,
)

MAX_CHAIN = 64
"""The most schemas that may nest through ``$ref``, ``allOf``, ``anyOf`` and ``oneOf`` without an
array or object in between (a reference chain, combinators in combinators). A ``$ref`` cycle
through ``allOf`` merges a new schema at each turn: `merged_term` catches the same parts merged
again; this bound catches any other endless turn before the interpreter's stack or the machine's
memory runs out."""

MAX_ANY_VALUES = 64
"""How many "any JSON value" terms (one per punctuation, depth and set of types) `_ANY_VALUES` keeps
(then each new one evicts the oldest): a handful per writer in practice. Each holds its derivatives
(`brzozowski.core.derivatives.keep_derivatives`). An evicted term costs time, never results."""

_ANY_VALUES: dict[tuple, tuple[Term, list[str]]] = {}


class _Recursion:
    """The recursion part of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def node_key(self, node: Any, ptr: str) -> tuple:
        """What the memos know a subschema by: its JSON pointer in the document, or, for a schema
        made while compiling (merged parts, the rest beside a keyword), the pointer it is compiled
        at and its content (`schema_key`, the document's subschemas inside it by pointer)."""
        key = schema_key(node, self.index.pointer_of)
        return key if key[0] == "at" else ("made", ptr, key)

    def term(self, node: Any, ptr: str, base: str, depth: int, types: frozenset = _ALL_TYPES) -> Term:
        if node is True:
            return self.any_value(depth, types)
        if node is False:
            return EMPTY
        if not isinstance(node, dict):
            return self.refuse(ptr, None, f"a schema must be an object or true/false, got {json.dumps(node)[:40]}")
        check_deadline(ptr)
        key = (self.node_key(node, ptr), base, depth, types)
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._active:
            return self.refuse(ptr, "$ref", "this $ref chain loops back to itself without an array or "
                                            "object in between: no document can ever end; break the cycle")
        if len(self._active) >= MAX_ACTIVE_SCHEMAS:
            return self.refuse(ptr, "$ref", f"more than {MAX_ACTIVE_SCHEMAS} subschemas nest inside one another "
                                            "here (references through arrays and objects): lower max_depth "
                                            "or shorten the chain of references")
        if self._chain.get(depth, 0) >= MAX_CHAIN:  # (merged schemas are new nodes: no key repeats)
            return self.refuse(ptr, "$ref", f"more than {MAX_CHAIN} schemas nest here through $ref, allOf, "
                                            "anyOf and oneOf without an array or object in between (a $ref "
                                            "cycle through allOf, merged anew at each turn?); break the cycle")
        self._active.add(key)
        self._chain[depth] = self._chain.get(depth, 0) + 1
        try:
            result = self._schema(node, ptr, child_base(base, node), depth, types)
        finally:
            self._active.discard(key)
            self._chain[depth] -= 1
        self._memo[key] = result
        return result

    def any_value(self, depth: int, types: frozenset = _ALL_TYPES) -> Term:
        """Any JSON value of `types` nesting at most `depth` levels, written as this writer writes.

        The same for every schema compiled with the same punctuation, so it is built once per
        process (`_ANY_VALUES`, with the notes it makes) by a compiler of its own: open objects and
        values without a schema would otherwise rebuild its ~30,000 terms in every compilation (and
        `LazyDFA` walk them for the pattern's byte classes: those are memoized on it too)."""
        key = (self.w.item_sep, self.w.key_sep, depth, types, self.unique_keys)
        found = _ANY_VALUES.get(key)
        if found is None:
            alone = type(self)(_ANY, self.w, self.closed, "refuse", self.max_depth, self.unique_keys)
            found = (alone.term(_ANY, "", alone.index.root_base, depth, types), list(alone.notes))
            alphabet_classes(found[0])  # memoized on the term: every automaton's walk stops there
            keep_derivatives(found[0])  # and its derivatives last while the cache holds it
            while len(_ANY_VALUES) >= MAX_ANY_VALUES:  # full: the oldest goes
                _ANY_VALUES.pop(next(iter(_ANY_VALUES)), None)
            _ANY_VALUES[key] = found
        term, notes = found
        for text in notes:
            self.notes.setdefault(text, None)
        return term

    def _schema(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        for key in node:
            if key in ANNOTATIONS or key in _HANDLED:
                continue
            where = pointer_append(ptr, key)
            if key in _REFUSED:
                self.refuse(where, key, f"{key} is not supported: {_REFUSED[key]}")
            elif self.ignore_unknown:
                self.note(where, f"unknown keyword {key!r} ignored (unknown_keywords='ignore')")
            else:
                self.refuse(where, key, f"unknown keyword {key!r}: remove it, or pass "
                                        "unknown_keywords='ignore' to ignore keywords outside JSON Schema")
        if "allOf" in node and not isinstance(node["allOf"], list):
            return self.refuse(pointer_append(ptr, "allOf"), "allOf", "allOf must be a list of schemas")
        if "$ref" in node and "allOf" not in node and _is_true({k: v for k, v in node.items() if k != "$ref"}):
            where = pointer_append(ptr, "$ref")
            try:
                target, target_ptr, target_base = self.index.resolve(node["$ref"], base, where)
            except SchemaError as e:
                return self.refuse(e.pointer, e.keyword, e.message)
            return self.term(target, target_ptr, target_base, depth, types)
        if "$ref" in node or "allOf" in node:
            return self.merged_term([node], ptr, base, depth, types)
        if "anyOf" in node:
            return self._union(node, "anyOf", ptr, base, depth, types)
        if "oneOf" in node:
            if self._disjoint(node["oneOf"], base):
                self.note(pointer_append(ptr, "oneOf"), "oneOf compiled as anyOf: the branches are disjoint")
                return self._union(node, "oneOf", ptr, base, depth, types)
            return self._one_of(node, ptr, base, depth, types)
        if "not" in node:
            return self._not(node, ptr, base, depth, types)
        if "if" in node and (node["if"] is False or _is_true(node["if"])):
            chosen = node.get("then" if node["if"] is not False else "else", True)
            rest = {k: v for k, v in node.items() if k not in ("if", "then", "else")}
            return self.merged_term([rest, chosen], ptr, base, depth, types)
        if "if" in node and ("then" in node or "else" in node):
            return self._if_then_else(node, ptr, base, depth, types)
        dependent = self._dependent_schemas(node)
        if dependent and "object" in types:
            return self._split_dependent(node, dependent, ptr, base, depth, types)
        return self._flat(node, ptr, base, depth, types)

    def merged_term(self, parts: list[Any], ptr: str, base: str, depth: int,
                    types: frozenset = _ALL_TYPES, own: int = 1) -> Term:
        """The term of all of `parts`: merged structurally, or, where that would need an
        intersection, each flattened part compiled alone and the terms intersected (sound: each
        part's language is within what that part allows).

        Merging the same parts again inside their own merge, at the same depth, would loop for
        ever (a ``$ref`` cycle through ``allOf`` merges a new schema at each turn, so `term`'s
        check by node never sees it repeat): refused, the parts compared by content."""
        key = (json_key(parts), base, depth, types, own)
        if key in self._merging:
            return self.refuse(ptr, "$ref", "this $ref chain loops back to itself through allOf without an "
                                            "array or object in between: no document can ever end; break the cycle")
        self._merging.add(key)
        try:
            merged = self.merge(parts, ptr, base, own, intersect=True)
            if merged is None:
                return EMPTY
            if isinstance(merged, _Pieces):
                self.note(ptr, f"allOf: {merged.reason}: the parts are compiled apart and intersected "
                               "(each object part keeps its own property order)")
                return inter(*(self.term(piece, ptr, base, depth, types) for piece in merged.pieces))
            return self.term(merged, ptr, base, depth, types)
        finally:
            self._merging.discard(key)

    def merge(self, parts: list[Any], ptr: str, base: str, own: int = 1, intersect: bool = False) -> Any:
        """`parts` resolved ($ref, allOf flattened) and merged structurally, or None (refused).

        The first `own` parts are the keywords of the schema at `ptr` itself; the others are its
        subschemas, whose ``unevaluatedProperties`` sees only their own properties: it becomes
        their ``additionalProperties`` before the merge.
        """
        flat: list[Any] = []
        seen: set[int] = set()

        def visit(part: Any, at: str, part_base: str, top: bool) -> list[tuple] | None:
            """Append `part`'s own keywords to `flat`; its $ref target and allOf parts to visit next,
            in order, or None when it is refused."""
            check_deadline(at)
            if isinstance(part, bool):
                flat.append(part)
                return []
            if not isinstance(part, dict):
                self.refuse(at, None, f"a schema must be an object or true/false, got {json.dumps(part)[:40]}")
                return None
            if id(part) in seen:
                self.refuse(at, "$ref", "allOf/$ref loops back to itself: this schema includes itself")
                return None
            seen.add(id(part))
            part_base = child_base(part_base, part)
            if part_base != base:
                self.refuse(at, "allOf", "allOf or $ref siblings across schemas with different $id "
                                         "bases cannot be merged; inline the referenced schema")
                return None
            rest = {k: v for k, v in part.items() if k not in ("$ref", "allOf")
                    and (k in _HANDLED or k in _REFUSED or not self.ignore_unknown)}
            for unevaluated, plain in (("unevaluatedProperties", "additionalProperties"),
                                       ("unevaluatedItems", "items")):
                if top or unevaluated not in rest:
                    continue
                if any(k in part for k in _IN_PLACE) or isinstance(rest.get("items"), list):
                    self.refuse(pointer_append(at, unevaluated), unevaluated,
                                f"{unevaluated} in a referenced or combined schema that has "
                                f"applicators of its own: write {plain} instead")
                    return None
                rest.setdefault(plain, rest.pop(unevaluated))
            flat.append(rest)
            children: list[tuple] = []
            if "$ref" in part:
                where = pointer_append(at, "$ref")
                try:
                    target, target_ptr, target_base = self.index.resolve(part["$ref"], part_base, where)
                except SchemaError as e:
                    self.refuse(e.pointer, e.keyword, e.message)
                    return None
                children.append((target, target_ptr, part_base if target_base == base else target_base, False))
            children += [(sub, pointer_append(pointer_append(at, "allOf"), i), part_base, False)
                         for i, sub in enumerate(part.get("allOf", []))]
            return children

        # Depth first in document order, on an explicit stack: a $ref/allOf chain as long as the
        # schema allows never deepens Python's stack.
        pending = [(part, ptr, base, i < own) for i, part in enumerate(parts)][::-1]
        while pending:
            children = visit(*pending.pop())
            if children is None:
                return None
            pending.extend(reversed(children))
        try:
            merged = merge_schemas(flat)
        except Unmergeable as e:
            if intersect:
                return _Pieces(flat, e.reason)
            self.refuse(pointer_append(ptr, "allOf"), e.keyword,
                        f"allOf: {e.reason}; {_ISSUE_12} — merge the parts by hand")
            return None
        return merged

    def _union(self, node: dict, keyword: str, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        branches = node[keyword]
        where = pointer_append(ptr, keyword)
        if not isinstance(branches, list) or not branches:
            return self.refuse(where, keyword, f"{keyword} must be a non-empty list of schemas")
        rest = {k: v for k, v in node.items() if k != keyword}
        terms = []
        for i, branch in enumerate(branches):
            bptr = pointer_append(where, i)
            if _is_true(rest):
                terms.append(self.term(branch, bptr, base, depth, types))
            else:
                terms.append(self.merged_term([rest, branch], bptr, base, depth, types))
        return _without_strings_inside_every_string(alt(*terms))

    def _types_of(self, node: Any, base: str, hops: int = 0) -> frozenset:
        """The JSON types a schema can possibly allow (an over-approximation)."""
        if node is False:
            return frozenset()
        if not isinstance(node, dict) or hops > MAX_REF_HOPS:
            return _ALL_TYPES
        found = _ALL_TYPES
        if isinstance(node.get("type"), (str, list)):
            found = _expand(node["type"])
        if "const" in node:
            found &= frozenset(_type_of(node["const"]))
        if isinstance(node.get("enum"), list):
            found &= frozenset(t for v in node["enum"] for t in _type_of(v))
        if "$ref" in node:
            try:
                target, _, target_base = self.index.resolve(node["$ref"], child_base(base, node))
            except SchemaError:
                return found
            found &= self._types_of(target, target_base, hops + 1)
        for sub in node.get("allOf", []) if isinstance(node.get("allOf"), list) else []:
            found &= self._types_of(sub, base, hops + 1)
        return found

    def _disjoint(self, branches: Any, base: str) -> bool:
        """Whether no instance can match two of `branches`: for each pair, their possible types do
        not meet, or both are objects that require one property with disjoint const/enum values
        (a discriminator, as Pydantic writes tagged unions)."""
        if not isinstance(branches, list):
            return False
        types = [self._types_of(branch, base) for branch in branches]
        tags = [self._tags(branch, base) for branch in branches]
        objects = frozenset({"object"})
        for i in range(len(branches)):
            for j in range(i):
                if not types[i] & types[j]:
                    continue
                if not (types[i] | types[j]) <= objects:
                    return False
                if not any(not any(json_equal(a, b) for a in tags[i][k] for b in tags[j][k])
                           for k in tags[i].keys() & tags[j].keys()):
                    return False
        return True

    def _tags(self, branch: Any, base: str) -> dict[str, list[Any]]:
        """The required properties of a branch whose values are a const or an enum: name -> values."""
        for _ in range(MAX_REF_HOPS):
            if not isinstance(branch, dict) or "$ref" not in branch:
                break
            try:
                branch, _, base = self.index.resolve(branch["$ref"], child_base(base, branch))
            except SchemaError:
                return {}
        if not isinstance(branch, dict) or not isinstance(branch.get("properties"), dict):
            return {}
        required = branch.get("required", [])
        tags = {}
        for name, schema in branch["properties"].items():
            values = self._finite_values(schema, base) if isinstance(required, list) and name in required else None
            if values is not None:
                tags[name] = values
        return tags

    def _finite_values(self, schema: Any, base: str) -> list[Any] | None:
        """The distinct values of an enum/const schema (through plain $refs), or None."""
        for _ in range(MAX_REF_HOPS):
            if not isinstance(schema, dict):
                return None
            if "enum" in schema and isinstance(schema["enum"], list):
                values = schema["enum"] if "const" not in schema else [schema["const"]]
                distinct: dict[Any, Any] = {}
                for value in values:
                    distinct.setdefault(json_key(value), value)
                return list(distinct.values())
            if "const" in schema:
                return [schema["const"]]
            if "$ref" not in schema:
                return None
            try:
                schema, _, base = self.index.resolve(schema["$ref"], child_base(base, schema))
            except SchemaError:
                return None
        return None

    def _dependent_schemas(self, node: dict) -> dict[str, Any]:
        found = {}
        for keyword in ("dependentSchemas", "dependencies"):
            value = node.get(keyword)
            if isinstance(value, dict):
                found.update({name: s for name, s in value.items()
                              if isinstance(s, (dict, bool)) and not _is_true(s)})
        return found

    def _split_dependent(self, node: dict, dependent: dict, ptr: str, base: str, depth: int,
                         types: frozenset) -> Term:
        """Objects with the first dependent name absent, or present and valid against its schema."""
        name, schema = next(iter(dependent.items()))
        rest = dict(node)
        for keyword in ("dependentSchemas", "dependencies"):
            if isinstance(rest.get(keyword), dict) and isinstance(rest[keyword].get(name), (dict, bool)):
                rest[keyword] = {k: v for k, v in rest[keyword].items() if k != name}
        others = self.term(rest, ptr, base, depth, types - {"object"})
        objects = frozenset({"object"})
        absent = self.merged_term([rest, {"properties": {name: False}}], ptr, base, depth, objects, own=2)
        present = self.merged_term([rest, {"required": [name]}, schema], ptr, base, depth, objects, own=2)
        return alt(others, absent, present)
