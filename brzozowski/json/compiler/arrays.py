"""Arrays: prefix items and the rest, bounds on the count, ``contains`` counted, ``uniqueItems`` by slots.

``contains`` alone writes the matching items first; with ``maxContains`` each item is decided by
the exact term of ``contains`` and the matches are counted (`_Arrays._counting`); ``uniqueItems``
gives each item a distinct slot in a fixed order, so no two can be equal.
"""

from __future__ import annotations

from typing import Any

from ...budget import check_deadline
from ...core.derivatives import derivative, derivative_of_string, matches
from ...core.terms import EMPTY, EPSILON, Term, alt, byte, concat, literal, repeat, star
from ..refs import pointer_append
from .common import _ALL_TYPES, _ANY, _FIRST_CHARACTERS, _UNIVERSE_NOTE


class _Arrays:
    """The arrays part of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def _count(self, node: dict, ptr: str, keyword: str) -> int | None:
        value = node.get(keyword)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
            self.refuse(pointer_append(ptr, keyword), keyword, f"{keyword} must be a non-negative integer, got {value!r}")
            return None
        return int(value)

    def _array(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        if depth == 0:
            if node is not _ANY:  # "any value" is bounded everywhere: the root note says so
                self.note(ptr, f"arrays nested deeper than max_depth={self.max_depth} are not written")
            return EMPTY
        least = self._count(node, ptr, "minItems") or 0
        most = self._count(node, ptr, "maxItems")
        prefix: list[tuple[Any, str]] = []
        items: Any = node.get("items", node.get("unevaluatedItems", True))
        items_ptr = pointer_append(ptr, "items")
        if isinstance(items, list):  # draft 4-7: items is the tuple, additionalItems the rest
            prefix = [(s, pointer_append(items_ptr, i)) for i, s in enumerate(items)]
            items, items_ptr = node.get("additionalItems", node.get("unevaluatedItems", True)), pointer_append(ptr, "additionalItems")
        elif isinstance(node.get("prefixItems"), list):
            prefix = [(s, pointer_append(pointer_append(ptr, "prefixItems"), i))
                      for i, s in enumerate(node["prefixItems"])]
        if items is False:
            most = len(prefix) if most is None else min(most, len(prefix))
        unique = node.get("uniqueItems") is True and (most is None or most > 1)
        if unique and (prefix or "contains" in node):
            return self.refuse(pointer_append(ptr, "uniqueItems"), "uniqueItems",
                               "uniqueItems: true beside prefixItems or contains can fail (two equal "
                               "items) and is not a regular constraint; write maxItems: 1 or drop it")
        prefix_terms = [self.term(s, p, base, depth - 1) for s, p in prefix]
        rest = EMPTY if items is False else self.term(items, items_ptr, base, depth - 1)
        if unique:
            return self._unique(node, ptr, base, items, rest, least, most)
        if "contains" in node and "maxContains" in node:
            if prefix:
                return self.refuse(pointer_append(ptr, "contains"), "contains", "contains and maxContains "
                                   "beside prefixItems: write the matching items into prefixItems instead")
            return self._counted(node, ptr, base, depth, items, items_ptr, least, most)
        if "contains" in node:
            contained = self._contains(node, ptr, base, depth, prefix, items)
            if contained is None:
                return EMPTY
            prefix_terms = contained + prefix_terms
            least = max(least, len(contained))
        return self._sequence(prefix_terms, rest, least, most)

    def _unique(self, node: dict, ptr: str, base: str, items: Any, rest: Term, least: int,
                most: int | None) -> Term:
        """uniqueItems: the items fill distinct slots in a fixed order, so no two can be equal: one
        slot per value of a finite enum, else one per kind (null, true, false, a number, an array,
        an object, the empty string, a string per plain-ASCII first character)."""
        values = self._finite_values(items, base)
        if values is not None:
            derived: list[Term] = []  # derivatives of `rest` alive across the values
            slots = [self.w.value(v) for v in values if derivative_of_string(rest, self.w.text(v), derived).nullable]
            self.note(pointer_append(ptr, "uniqueItems"), "uniqueItems: each allowed value at most once, "
                                                          "in the order of the enum")
        else:
            slots = [literal(word) if matches(rest, word) else EMPTY for word in (b"null", b"true", b"false")]
            slots.append(alt(*(concat(byte(d), derivative(rest, d)) for d in b"-0123456789")))
            slots += [concat(byte(b), derivative(rest, b)) for b in b"[{"]
            slots.append(literal(b'""') if matches(rest, b'""') else EMPTY)
            inside = derivative(rest, 0x22)
            slots += [concat(byte(0x22), byte(c), derivative(inside, c)) for c in _FIRST_CHARACTERS[1:]]
            self.note(pointer_append(ptr, "uniqueItems"), "uniqueItems: at most one null, true, false, "
                      "number, array and object; strings start with distinct plain-ASCII characters, ascending")
        slots = [slot for slot in slots if slot is not EMPTY]
        cap = min(max(least, 1 if most is None else most + 1), len(slots) + 1)
        inside = self._others(slots, cap, least, most)[0, True, 0]
        return self.w.container("[", inside, least == 0, "]")

    def _contains(self, node: dict, ptr: str, base: str, depth: int, prefix: list, items: Any) -> list[Term] | None:
        """The items that satisfy ``contains``, written first (minContains of them)."""
        where = pointer_append(ptr, "contains")
        at_least = self._count(node, ptr, "minContains")
        at_least = 1 if at_least is None else at_least
        if at_least == 0:
            return []
        if prefix:
            self.refuse(where, "contains", "contains beside prefixItems: write the matching item into "
                                           "prefixItems instead")
            return None
        self.note(where, f"the {at_least} item(s) that match contains are written first")
        return [self._merged_term([items, node["contains"]], where, base, depth - 1)] * at_least

    def _counted(self, node: dict, ptr: str, base: str, depth: int, items: Any, items_ptr: str, least: int,
                 most: int | None) -> Term:
        """contains with maxContains: each item satisfies contains (Y) or fails it (N), decided with
        the exact term of contains; minContains..maxContains of them are Y, in any position."""
        where = pointer_append(ptr, "contains")
        at_least = self._count(node, ptr, "minContains")
        at_least = 1 if at_least is None else at_least
        at_most = self._count(node, ptr, "maxContains")
        exact = self._exact_or_refuse(node["contains"], where, base, depth - 1, "maxContains")
        if exact is None or at_most is None:
            return EMPTY
        if at_least > at_most:
            self.note(where, "minContains is above maxContains: no array is written")
            return EMPTY
        self.note(where, f"contains with maxContains: {_UNIVERSE_NOTE}")

        def compiled(kinds: frozenset) -> Term:
            return EMPTY if items is False else self.term(items, items_ptr, base, depth - 1, kinds)

        yes = self._decide(compiled, exact, node["contains"], base, depth - 1, _ALL_TYPES, keep=True)
        no = self._decide(compiled, exact, node["contains"], base, depth - 1, _ALL_TYPES, keep=False)
        return self._counting(yes, no, at_least, at_most, least, most, where)

    def _counting(self, yes: Term, no: Term, at_least: int, at_most: int | None, least: int,
                  most: int | None, where: str) -> Term:
        """Arrays of `least`..`most` items, each from `yes` or `no` (disjoint), at_least..at_most
        of them from `yes` (at_most None: no upper bound)."""
        sep = self.w.item_sep
        top = at_least if at_most is None else at_most  # matches counted up to here
        # after[n, c]: what may follow once n items (capped at `cap`) are written, c of them matching.
        cap = max(least, 1) if most is None else most
        after: dict[tuple[int, int], Term] = {}
        for n in range(cap, 0, -1):
            check_deadline(where)
            for c in range(top, -1, -1):
                end = EPSILON if c >= at_least and n >= least else EMPTY
                if most is not None and n == most:
                    after[n, c] = end
                    continue
                if n == cap and c == top and at_most is None:  # enough matches, and items: any
                    after[n, c] = concat(star(concat(sep, alt(yes, no))), end)
                    continue
                if c < top:
                    more = concat(sep, yes, after[min(n + 1, cap), c + 1])
                else:
                    more = EMPTY if at_most is not None else concat(sep, yes, after[min(n + 1, cap), c])
                if n == cap:  # most is None: the count of items no longer matters
                    after[n, c] = concat(star(concat(sep, no)), alt(end, more))
                else:
                    after[n, c] = alt(end, more, concat(sep, no, after[n + 1, c]))
        if cap == 0:
            inside = EMPTY
        else:
            inside = alt(concat(no, after[1, 0]), concat(yes, after[1, min(1, top)]) if at_most != 0 else EMPTY)
        return self.w.container("[", inside, at_least == 0 and least == 0, "]")

    def _sequence(self, prefix: list[Term], rest: Term, least: int, most: int | None) -> Term:
        """``[`` p1, p2, …, then items of `rest` ``]``, least..most items in all."""
        if most is not None and most < least:
            return EMPTY
        sep = self.w.item_sep
        usable = len(prefix) if most is None else min(len(prefix), most)
        # tail: what may follow once i items are written, built from i = usable down to i = 1.
        tail = repeat(concat(sep, rest), max(least - usable, 0), None if most is None else most - usable)
        for i in range(usable - 1, 0, -1):
            step = concat(sep, prefix[i], tail)
            tail = alt(EPSILON, step) if i >= least else step
        if usable:
            first = concat(prefix[0], tail)
        elif most == 0:
            first = EMPTY
        else:
            first = concat(rest, repeat(concat(sep, rest), max(least - 1, 0), None if most is None else most - 1))
        return self.w.container("[", first, least == 0, "]")
