"""Objects: the listed properties, each at most once, and the other members (`members` orders them).

The listed names' values merge the patternProperties schemas whose patterns they match. Other keys
are exact sets of keys built with intersection and complement: every key but the listed names (in
every spelling), within propertyNames, split by the set of patternProperties patterns they match
(each such set a kind of member whose value satisfies those patterns' schemas; no pattern:
additionalProperties). Other members are written loose (any number, any order, between the listed
ones) or, where a count must hold or keys must be unique, in slots of distinct plain-ASCII first
characters in ascending order (`members`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...budget import check_deadline
from ...core.derivatives import derivative, matches
from ...automata.lazy import is_empty
from ...core.terms import EMPTY, Term, alt, byte, compl, concat, inter, literal
from ...errors import SchemaError, StateBudgetError
from ..ecma_regex import wide_pattern_term
from ..leaf_terms import _narrows, json_string_term
from ..strings import spelled_string
from ..refs import pointer_append
from .common import _ANY, _FIRST_CHARACTERS, _is_true, build_leaf
from .writer import _plain_keys_except


MAX_PATTERN_REGIONS = 32
"""The most sets of patternProperties patterns that other keys are split by (`_Objects._regions`):
each set is a kind of member, and each split asks whether a language is empty."""

_QUOTE = byte(0x22)


def _spelled_names(names: list[str]) -> Term:
    """Every JSON spelling of every name of `names` (quotes included): what JSON decodes to a name
    (a lone surrogate by its escapes; a name no text decodes to is excluded harmlessly)."""
    return alt(*(spelled_string(name) for name in names))


def _empty(term: Term) -> bool:
    """Whether `term`'s language is empty; a search past the state budget says no (a kind of key
    with no key is harmless: the automaton never enters it)."""
    try:
        return is_empty(term)
    except StateBudgetError:
        return False


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
        if len(names) > 1 and self.property_order == "any":
            self.note(ptr, "listed properties in any order, each at most once (property_order='any')")
        elif len(names) > 1:
            self.note(ptr, f"properties are written in the schema's order: {', '.join(names)} "
                           "(property_order='schema')")

        kinds = self._other_kinds(node, ptr, base, depth, names, patterns, extra, key_check, names_rule)
        counted = self.unique_keys or most is not None or least > 1
        if kinds and counted and node is _ANY:
            self.notes.setdefault("any JSON value ({}, true, items or values without a schema): object "
                                  "keys start with distinct plain-ASCII characters, ascending", None)
        elif kinds and counted:
            self.note(ptr, "other property names start with distinct plain-ASCII characters, in ascending "
                           "order, after the listed properties, so no two keys are equal (unique_keys=True, "
                           "minProperties above 1 or maxProperties)")
        elif kinds and node is _ANY:
            self.notes.setdefault("any JSON value ({}, true, items or values without a schema): object "
                                  "keys in any order; a key may repeat (JSON keeps the last value)", None)
        elif kinds:
            self.note(ptr, "other properties in any order, before, between and after the listed ones; a "
                           "key may repeat (JSON keeps the last value, which satisfies the same schema)")
        others = self._by_first_character(kinds) if counted else kinds
        index = {name: i for i, name in enumerate(names)}
        needs = {index[d]: frozenset(index[n] for n in ns) for d, ns in depends.items()}
        build = self._any_order if self.property_order == "any" else self._members
        return build(members, [index[r] for r in required], needs, others, counted, least, most, ptr)

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
        when none are written. Exact but for the notes: an other key is no listed name (in no
        spelling), satisfies propertyNames, and its value satisfies the schema of every
        patternProperties pattern the key matches, or additionalProperties if it matches none
        (`_regions` splits the keys by the patterns they match)."""
        if extra is None and self.closed and (names or patterns):
            self.note(ptr, "closed object: only the listed properties are written "
                           "(closed_objects=True and no additionalProperties)")
            return []
        if names_rule is False:
            return []
        extra_ptr = pointer_append(ptr, "additionalProperties")
        if not patterns and names and key_check is None:
            if extra is False:
                return []
            self.note(ptr, "other property names are written as plain ASCII without escapes, never equal "
                           "to a listed name")
            return [(_plain_keys_except(names), self.term(True if extra is None else extra, extra_ptr,
                                                          base, depth - 1))]
        keys: dict[str, tuple[Term, Term]] = {}
        for pattern in patterns:
            where = pointer_append(pointer_append(ptr, "patternProperties"), pattern)
            key = self._pattern_key(where, pattern, names)
            if key is None:
                self.note(where, "no other properties are written: this pattern is not compiled and a "
                                 "listed name matches it")
                return []
            keys[pattern] = key
        universe = self._leaf(ptr, json_string_term) if key_check is None else key_check
        if names:
            universe = inter(universe, compl(_spelled_names(names)))
        kinds: list[tuple[Term, Term]] = []
        for key, sure, unsure in self._regions(universe, keys, ptr):
            value = self._region_value(patterns, sure, unsure, extra, ptr, base, depth)
            if value is not EMPTY:
                kinds.append((key, value))
        return kinds

    def _region_value(self, patterns: dict, sure: frozenset, unsure: frozenset, extra: Any, ptr: str,
                      base: str, depth: int) -> Term:
        """The values of keys that match the patterns `sure` (in both dialects) and maybe `unsure`
        (in one of ECMA-262 and Python's re): every such pattern's schema, and
        additionalProperties unless a pattern surely matches."""
        at = pointer_append(ptr, "patternProperties")
        sources = [(patterns[p], pointer_append(at, p)) for p in patterns if p in sure or p in unsure]
        if not sure:
            sources.append((True if extra is None else extra, pointer_append(ptr, "additionalProperties")))
        distinct: list[tuple[Any, str]] = []  # (schema, its pointer), each schema once, `true` left out
        for schema, where in sources:
            if schema is not True and schema != {} and all(schema != seen for seen, _ in distinct):
                distinct.append((schema, where))
        if unsure:
            self.note(ptr, "keys that ECMA-262 and Python's re read differently for a patternProperties "
                           "pattern (\\d, ., $, ...) take the schemas of both readings")
        if len(distinct) <= 1:
            schema, where = distinct[0] if distinct else (True, sources[0][1])
            return self.term(schema, where, base, depth - 1)
        return self._merged_term([schema for schema, _ in distinct], distinct[0][1], base, depth - 1)

    def _pattern_key(self, where: str, pattern: str, names: list[str]) -> tuple[Term, Term] | None:
        """The keys matching a patternProperties pattern: (those both ECMA-262 and Python's re find
        it in, those either does: its complement is the keys that neither matches); None if it
        cannot be compiled but a listed name matches it (the listed property compiles: its schema
        merges this pattern's)."""
        notes: list[str] = []
        try:
            term = build_leaf(json_string_term, where, notes, pattern=pattern)
            wide = concat(_QUOTE, wide_pattern_term(pattern), _QUOTE) if _narrows(pattern) else term
        except SchemaError as e:
            if any(self._name_matches(name, pattern) for name in names):
                return None
            self.refuse(pointer_append(where, e.keyword) if e.keyword else where, e.keyword, e.message)
            return EMPTY, EMPTY
        for text in notes:
            self.note(where, text)
        return term, wide

    def _regions(self, universe: Term, keys: dict[str, tuple[Term, Term]],
                 ptr: str) -> list[tuple[Term, frozenset, frozenset]]:
        """The keys of `universe` split by the patterns they match: `keys` maps each pattern to
        (the keys both ECMA-262 and Python's re find it in, the keys either does); a region is
        (its keys, the patterns they surely match, those they match in one dialect only), for
        each non-empty region. Past `MAX_PATTERN_REGIONS` regions, each pattern's sure keys are one
        region matched by every pattern (narrower: its values satisfy every pattern's schema),
        and keys that one dialect matches are not written, both noted."""
        regions = [(universe, frozenset(), frozenset())]
        for pattern, (surely, maybe) in keys.items():
            split = []
            for region, sure, unsure in regions:
                check_deadline(ptr)
                parts = [(inter(region, surely), sure | {pattern}, unsure),
                         (inter(region, compl(maybe)), sure, unsure)]
                if maybe is not surely:
                    parts.append((inter(region, maybe, compl(surely)), sure, unsure | {pattern}))
                split.extend(part for part in parts if not _empty(part[0]))
            regions = split
            if len(regions) > MAX_PATTERN_REGIONS:
                self.note(ptr, f"values under each patternProperties pattern satisfy every pattern's schema, "
                               f"and keys that only one of ECMA-262 and Python's re matches are not written "
                               f"(the keys match more than {MAX_PATTERN_REGIONS} sets of patterns)")
                every, nothing = frozenset(keys), frozenset()
                outside = inter(universe, compl(alt(*(maybe for _, maybe in keys.values()))))
                return [(inter(universe, k), every, nothing) for k, _ in keys.values()] + [(outside, nothing, nothing)]
        return regions

    def _by_first_character(self, kinds: list[tuple[Term, Term]]) -> list[Term]:
        """For each possible first character of a key (the empty key first, then printable ASCII
        ascending), the members of `kinds` (key term, value term) whose key starts with it."""
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
                    options.append(concat(_QUOTE, byte(first), tail))
            member = alt(*options)
            if member is not EMPTY:
                members.append(member)
        return members
