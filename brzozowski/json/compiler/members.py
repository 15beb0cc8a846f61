"""The members of an object, in one of two property orders, with the other members beside them.

``property_order="schema"``: the listed properties come in the schema's order, each at most once
(`_Members._members`). ``property_order="any"``: each listed property at most once, in any order,
the required ones present (`_Members._any_order`): a state per subset of the listed properties
written, so the term has up to 2^n parts for n listed properties; the subsets are counted before
anything is built and more of them than the state budget (``max_states``) is a `StateBudgetError`
naming the pointer.

Other members (keys that are no listed name) are written *loose* or *counted*:

- loose (no count to keep): any number of them, of any kind, anywhere between, before and after
  the listed ones. A key may repeat: JSON keeps the last value, and every value written under a
  key satisfies that key's schema, so the document still validates.
- counted (``maxProperties``, ``minProperties`` above 1, or ``unique_keys``): slots of distinct
  plain-ASCII first characters in ascending order (`_Objects._by_first_character`), after the
  listed ones, so every key is different and the count exact.

Loose others attach after the last listed member written (or at the start), never to a skipped
one: a document has one parse, so the derivatives stay small.
"""

from __future__ import annotations

from ...budget import check_deadline
from ...core.terms import EMPTY, EPSILON, Term, alt, concat, star
from ...errors import StateBudgetError, TimeBudgetError
from .writer import _key_spellings

#: The property orders `compile_json_schema` writes.
PROPERTY_ORDERS = ("schema", "any")


class _Members:
    """The member sequences of the schema compiler (a mixin of `brzozowski.json.compiler.driver._Compiler`)."""

    def _ends(self, others: list, counted: bool, cap: int, least: int, most: int | None):
        """(what may close the object after `c` members were written, the loose others' member
        term, their loop ``(sep member)*``); the last two None when counted or there are none."""
        if counted:
            tails = self._others(others, cap, least, most)
            return (lambda c: tails[0, c == 0, c]), None, None
        member = alt(*(concat(key, self.w.key_sep, value) for key, value in others))

        def close(c: int) -> Term:  # the object may end once something was written
            return EPSILON if c else EMPTY

        if member is EMPTY:
            return close, None, None
        return close, member, star(concat(self.w.item_sep, member))

    def _written(self, listed: tuple[str, Term], rest: Term, loop: Term | None, c: int) -> Term:
        """A listed member (name, value) written after `c` members, then the loose others' `loop`
        (if any), then `rest`."""
        name, value = listed
        then = _key_spellings(name, concat(self.w.key_sep, value, rest if loop is None else concat(loop, rest)))
        return concat(self.w.item_sep, then) if c else then

    def _opened(self, later: dict, start: tuple, member: Term | None, loop: Term | None, empty_ok: bool) -> Term:
        """The object whose inside starts in state `start` of `later`, or with loose others (`member`,
        then `loop`) and then the same state with something written (count 1)."""
        inside = later[start]
        if member is not None:
            inside = alt(inside, concat(member, loop, later[(1, *start[1:])]))
        return self.w.container("{", inside, empty_ok, "}")

    def _members(self, members: list[tuple[str, Term]], required: list[int], needs: dict[int, frozenset],
                 others: list, counted: bool, least: int, most: int | None, where: str) -> Term:
        """The object: listed members in schema order (required, optional, dependentRequired), with others.

        A state is (members written so far, capped; names that must still come; names that must
        not); built backwards over the states reachable forwards. Loose others (see the module
        doc) may follow any written member, or open the object; counted ones follow the last.
        """
        n = len(members)
        cap = min(max(least, 1 if most is None else most + 1), n + len(others) + 1)
        forced_out = {i: frozenset(z for z, ns in needs.items() if i in ns and z > i) for i in range(n)}
        must_have = set(required)
        end, member, loop = self._ends(others, counted, cap, least, most)
        start = (0, frozenset(), frozenset())
        layers: list[set] = [{start} | ({(1, frozenset(), frozenset())} if loop is not None else set())]
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
        later: dict[tuple, Term] = {state: EMPTY if state[1] else end(state[0]) for state in layers[n]}
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
                        then = written[after] = self._written(members[i], later[after], loop, 0)
                    options.append(concat(sep, then) if c else then)
                if i not in must_have and i not in must:
                    options.append(later[(c, must, (must_not - {i}) | forced_out[i])])
                here[state] = alt(*options)
            later = here
        return self._opened(later, start, member, loop, not required and least == 0)

    def _any_order(self, members: list[tuple[str, Term]], required: list[int], needs: dict[int, frozenset],
                   others: list, counted: bool, least: int, most: int | None, where: str) -> Term:
        """The object: each listed member at most once, in any order; the required ones and those
        that written members depend on (dependentRequired) present at the end; others as in
        `_members`. A state per subset of the listed members written (and a count, capped)."""
        try:
            return self._any_order_built(members, required, needs, others, counted, least, most, where)
        except TimeBudgetError as e:
            raise TimeBudgetError(f"{e} (property_order='any': {len(members)} listed properties, a state per "
                                  "subset of them; use property_order='schema')") from e

    def _any_order_built(self, members: list[tuple[str, Term]], required: list[int], needs: dict[int, frozenset],
                         others: list, counted: bool, least: int, most: int | None, where: str) -> Term:
        n = len(members)
        cap = min(max(least, 1 if most is None else most + 1), n + len(others) + 1)
        end, member, loop = self._ends(others, counted, cap, least, most)
        subsets = self._subsets(members, most, where)
        must_have = frozenset(required)
        done: dict[tuple, Term] = {}
        for written in reversed(subsets):
            check_deadline(where)
            for c in ([0, 1] if not written and loop is not None else [min(len(written), cap)]):
                options = []
                if must_have <= written and all(needs.get(d, written) <= written for d in written):
                    options.append(end(c))
                for j, listed in enumerate(members):
                    nxt = written | {j}
                    if j in written or (len(nxt), nxt) not in done:
                        continue
                    options.append(self._written(listed, done[len(nxt), nxt], loop, c))
                done[c if not written else len(written), written] = alt(*options)
        later = {(c, frozenset(), frozenset()): done[c, frozenset()] for c in (0, 1) if (c, frozenset()) in done}
        return self._opened(later, (0, frozenset(), frozenset()), member, loop, not required and least == 0)

    def _subsets(self, members: list[tuple[str, Term]], most: int | None, where: str) -> list[frozenset]:
        """The subsets of listed members that can be written (at most `most`; a member whose value
        is impossible never), smallest first; more than ``max_states`` is a `StateBudgetError`."""
        possible = [j for j, (_, value) in enumerate(members) if value is not EMPTY]
        layer = [frozenset()]
        subsets = list(layer)
        while layer and (most is None or len(layer[0]) < most):
            layer = list(dict.fromkeys(s | {j} for s in layer for j in possible if j not in s and j > max(s, default=-1)))
            subsets.extend(layer)
            check_deadline(where)
            if len(subsets) > self.max_states:
                raise StateBudgetError(
                    f"property_order='any' at {where or '(root)'}: the {len(members)} listed properties "
                    f"can be written in more than max_states={self.max_states} combinations (one state "
                    "each); use property_order='schema', list fewer properties or raise max_states")
        return subsets

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
