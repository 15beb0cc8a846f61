"""Objects: listed properties in schema order, each at most once, then the other members.

A state of `_Objects._members` is (members written, capped; names that must still come; names that
must not); other members are written loose (any number, any order) or, where a count must hold or
keys must be unique, in slots of distinct plain-ASCII first characters in ascending order.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...budget import check_deadline
from ...core.derivatives import derivative, matches
from ...core.terms import EMPTY, EPSILON, Term, alt, byte, concat, literal, star
from ...errors import SchemaError
from ..leaf_terms import json_string_term
from ..refs import pointer_append
from .common import _ANY, _FIRST_CHARACTERS, _ISSUE_12, _is_true
from .writer import _key_spellings, _plain_keys_except


class _Objects:
    """The objects part of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def _object(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        if depth == 0:
            if node is not _ANY:  # "any value" is bounded everywhere: the root note says so
                self.note(ptr, f"objects nested deeper than max_depth={self.max_depth} are not written")
            return EMPTY
        props = node.get("properties", {})
        required = node.get("required", [])
        patterns = node.get("patternProperties", {})
        if not isinstance(props, dict):
            return self.refuse(pointer_append(ptr, "properties"), "properties", "properties must be an object")
        if not isinstance(patterns, dict):
            return self.refuse(pointer_append(ptr, "patternProperties"), "patternProperties",
                               "patternProperties must be an object")
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return self.refuse(pointer_append(ptr, "required"), "required", "required must be a list of names")
        depends: dict[str, list[str]] = {}
        for keyword in ("dependentRequired", "dependencies"):
            value = node.get(keyword, {})
            if not isinstance(value, dict):
                return self.refuse(pointer_append(ptr, keyword), keyword, f"{keyword} must be an object")
            for name, needed in value.items():
                if isinstance(needed, (list, str)):  # draft 3 allowed one name as a string
                    depends.setdefault(name, []).extend([needed] if isinstance(needed, str) else needed)
        names = list(dict.fromkeys(list(props) + required + [n for d, ns in depends.items() for n in [d, *ns]]))
        extra = node.get("additionalProperties", node.get("unevaluatedProperties"))
        names_rule = node.get("propertyNames", True)
        least = self._count(node, ptr, "minProperties") or 0
        most = self._count(node, ptr, "maxProperties")

        key_check = None if _is_true(names_rule) else self.term(
            names_rule, pointer_append(ptr, "propertyNames"), base, depth, frozenset({"string"}))
        members: list[tuple[str, Term]] = []  # (name, value): `_members` writes each onto what follows
        for name in names:
            where = pointer_append(pointer_append(ptr, "properties"), name) if name in props else ptr
            check_deadline(where)
            parts = [props[name]] if name in props else []
            parts += [schema for pattern, schema in patterns.items() if self._name_matches(name, pattern)]
            if not parts:
                parts = [True if extra is None else extra]
            if len(parts) == 1:
                value = self.term(parts[0], where, base, depth - 1)
            else:
                value = self._merged_term(parts, where, base, depth - 1)
            if key_check is not None and not matches(key_check, json.dumps(name).encode()):
                self.note(where, "this name fails propertyNames: it is never written")
                value = EMPTY
            members.append((name, value))
        if len(names) > 1:
            self.note(ptr, f"properties are written in the schema's order: {', '.join(names)}")

        kinds = self._other_kinds(node, ptr, base, depth, names, patterns, extra, key_check, names_rule)
        counted = self.unique_keys or most is not None or least > 1
        if kinds and counted and node is _ANY:
            self.notes.setdefault("any JSON value ({}, true, items or values without a schema): object "
                                  "keys start with distinct plain-ASCII characters, ascending", None)
        elif kinds and counted:
            self.note(ptr, "other property names start with distinct plain-ASCII characters, in ascending "
                           "order, so no two keys are equal (unique_keys=True, minProperties above 1 or "
                           "maxProperties)")
        elif kinds and node is _ANY:
            self.notes.setdefault("any JSON value ({}, true, items or values without a schema): object "
                                  "keys in any order; a key may repeat (JSON keeps the last value)", None)
        elif kinds:
            self.note(ptr, "other properties in any order, after the listed ones; a key may repeat (JSON "
                           "keeps the last value, which satisfies the same schema)")
        others = self._by_first_character(kinds) if counted else kinds
        index = {name: i for i, name in enumerate(names)}
        needs = {index[d]: frozenset(index[n] for n in ns) for d, ns in depends.items()}
        return self._members(members, [index[r] for r in required], needs, others, counted, least, most, ptr)

    def _merged_term(self, parts: list[Any], ptr: str, base: str, depth: int) -> Term:
        return self.merged_term(parts, ptr, base, depth, own=0)

    def _name_matches(self, name: str, pattern: str) -> bool:
        """Whether the property name matches a patternProperties regex (when unsure: yes, the safe side)."""
        try:
            if re.search(pattern, name):
                return True
        except re.error:
            return True
        try:
            return matches(json_string_term(pattern=pattern), json.dumps(name).encode())
        except SchemaError:
            return False

    def _other_kinds(self, node: dict, ptr: str, base: str, depth: int, names: list[str],
                     patterns: dict, extra: Any, key_check: Term | None, names_rule: Any) -> list[tuple[Term, Term]]:
        """The members beside the listed properties, as (key term, value term) pairs; an empty list
        when none are written."""
        if extra is None and self.closed and (names or patterns):
            self.note(ptr, "closed object: only the listed properties are written "
                           "(closed_objects=True and no additionalProperties)")
            return []
        if names_rule is False:
            return []
        kinds: list[tuple[Term, Term]] = []
        if key_check is not None and (names or patterns):
            self.note(ptr, "no properties beyond the listed ones are written (propertyNames beside "
                           f"listed properties {_ISSUE_12})")
            return []
        if extra is not False:
            if patterns:
                self.note(ptr, "properties matching no patternProperties are not written (that needs "
                               "the complement of the patterns)")
            else:
                if names:
                    key = _plain_keys_except(names)
                    self.note(ptr, "other property names are written as plain ASCII without escapes, "
                                   "never equal to a listed name")
                else:
                    key = key_check if key_check is not None else self._leaf(ptr, json_string_term)
                value = self.term(True if extra is None else extra,
                                  pointer_append(ptr, "additionalProperties"), base, depth - 1)
                kinds.append((key, value))
        distinct = [s for i, s in enumerate(patterns.values()) if all(s != t for t in list(patterns.values())[:i])]
        for pattern, schema in patterns.items():
            where = pointer_append(pointer_append(ptr, "patternProperties"), pattern)
            if any(self._name_matches(name, pattern) for name in names):
                self.note(where, "no other names matching this pattern are written: a listed name matches it")
                continue
            key = self._leaf(where, json_string_term, pattern=pattern)
            if len(distinct) > 1:
                value = self._merged_term(distinct, where, base, depth - 1)
                self.note(where, "values under this pattern also satisfy every other patternProperties "
                                 "schema (a name may match several patterns)")
            else:
                value = self.term(schema, where, base, depth - 1)
            kinds.append((key, value))
        return kinds

    def _by_first_character(self, kinds: list[tuple[Term, Term]]) -> list[Term]:
        """For each possible first character of a key (the empty key first, then printable ASCII
        ascending), the members of `kinds` (key term, value term) whose key starts with it."""
        quote = byte(0x22)
        insides = [derivative(key, 0x22) for key, _ in kinds]
        tails: list[dict[Term, Term]] = [{} for _ in kinds]  # rest of the key -> it, ':' and the value
        members = []
        for first in _FIRST_CHARACTERS:
            options = []
            for (key, value), inside, after in zip(kinds, insides, tails):
                if first is None:
                    if matches(key, b'""'):
                        options.append(concat(literal(b'""'), self.w.key_sep, value))
                    continue
                rest = derivative(inside, first)
                if rest is not EMPTY:
                    tail = after.get(rest)
                    if tail is None:  # most first characters leave the same rest: built once
                        tail = after[rest] = concat(rest, self.w.key_sep, value)
                    options.append(concat(quote, byte(first), tail))
            member = alt(*options)
            if member is not EMPTY:
                members.append(member)
        return members

    def _members(self, members: list[tuple[str, Term]], required: list[int], needs: dict[int, frozenset],
                 others: list, counted: bool, least: int, most: int | None, where: str) -> Term:
        """The object: listed members in order (required, optional, dependentRequired), then others.

        A state is (members written so far, capped; names that must still come; names that must
        not); built backwards over the states reachable forwards. With a count to keep
        (`counted`: maxProperties, minProperties above 1, or unique_keys), `others` are slots of
        distinct first characters in ascending order (`_by_first_character`), so every key is
        different and the count exact; else they are the (key, value) kinds, written any number of
        times in any order (`_loose`).
        """
        n = len(members)
        cap = min(max(least, 1 if most is None else most + 1), n + len(others) + 1)
        forced_out = {i: frozenset(z for z, ns in needs.items() if i in ns and z > i) for i in range(n)}
        must_have = set(required)
        layers: list[set] = [{(0, frozenset(), frozenset())}]
        for i in range(n):
            nxt = set()
            for c, must, must_not in layers[i]:
                if i not in must_not and (most is None or c + 1 <= most):
                    nxt.add((min(c + 1, cap), (must | {j for j in needs.get(i, ()) if j > i}) - {i},
                             must_not - {i}))
                if i not in must_have and i not in must:
                    nxt.add((c, must, (must_not - {i}) | forced_out[i]))
            layers.append(nxt)
        sep = self.w.item_sep
        tails = self._others(others, cap, least, most) if counted else self._loose(others)
        later: dict[tuple, Term] = {}
        for state in layers[n]:
            c, must, _ = state
            later[state] = EMPTY if must else tails[0, c == 0, c]
        for i in range(n - 1, -1, -1):
            check_deadline(where)
            here: dict[tuple, Term] = {}
            written: dict[tuple, Term] = {}  # member i then the state after it: its spine built once
            for state in layers[i]:
                c, must, must_not = state
                options = []
                if i not in must_not and (most is None or c + 1 <= most):
                    after = (min(c + 1, cap), (must | {j for j in needs.get(i, ()) if j > i}) - {i},
                             must_not - {i})
                    then = written.get(after)
                    if then is None:
                        name, value = members[i]
                        then = written[after] = _key_spellings(name, concat(self.w.key_sep, value, later[after]))
                    options.append(concat(sep, then) if c else then)
                if i not in must_have and i not in must:
                    options.append(later[(c, must, (must_not - {i}) | forced_out[i])])
                here[state] = alt(*options)
            later = here
        inside = later[(0, frozenset(), frozenset())]
        empty_ok = not required and least == 0
        return self.w.container("{", inside, empty_ok, "}")

    def _loose(self, kinds: list[tuple[Term, Term]]) -> dict:
        """`_others`' two cells without a count: any number of other members, each of any kind, in
        any order. A key may repeat: JSON keeps the last value, and every value written under a key
        satisfies that key's schema, so the document still validates. One term per kind, where
        distinct ascending first characters (`_by_first_character`) would build ~95 slots and make
        the state after each key's quote depend on its first character."""
        member = alt(*(concat(key, self.w.key_sep, value) for key, value in kinds))
        later = star(concat(self.w.item_sep, member))  # once something was written
        return {(0, True, 0): concat(member, later), (0, False, 1): later}

    def _others(self, others: list[Term], cap: int, least: int, most: int | None) -> dict:
        """What may follow from slot i of `others` on, by (i, nothing written yet, members written
        so far): the end needs `least` members, and something written (the empty object is
        spelled apart). Without a count to keep (no maxProperties, at most one member needed) only
        slot 0 is asked for, and one cell per slot is built, not one per (slot, first, count).
        (Not a chain of optional slots, linear in size: every derivative by the separator would
        rebuild each later slot's concatenation with its tail; measured in benchmarks/README.md.)"""
        sep = self.w.item_sep
        if most is None and least <= 1:  # nothing to count: one cell per slot
            later = EPSILON  # once something was written: nothing more, or a separator and `members`
            members = EMPTY  # a member of slot i or later, then `later` of its slot
            for slot in reversed(others):
                members = alt(concat(slot, later), members)
                later = alt(EPSILON, concat(sep, members))
            return {(0, True, 0): members, (0, False, 1): later}
        memo: dict[tuple[int, bool, int], Term] = {}
        # Built from the last slot backwards; slot i is the i-th first character.
        for i in range(len(others), -1, -1):
            for first in (True, False):
                for n in range(cap + 1):
                    if i == len(others):
                        memo[i, first, n] = EMPTY if first or n < least else EPSILON
                        continue
                    skip = memo[i + 1, first, n]
                    if most is not None and n + 1 > most:
                        memo[i, first, n] = skip
                        continue
                    take = concat(EPSILON if first else sep, others[i], memo[i + 1, False, min(n + 1, cap)])
                    memo[i, first, n] = alt(skip, take)
        return memo
