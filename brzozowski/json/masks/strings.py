"""Strategies for the states inside a JSON string, and for a state whose quote opens one.

Claim (`brzozowski.json.string_masks`): a state that behaves as S-state r of the string automaton S
with after-state q allows exactly the tokens S reads from r without dying or closing (the
per-vocabulary table ``inside``) and those that close the string on a prefix whose rest lives from
q (`PastTheQuote`). A state is recognized so either by its term (a lazy automaton's string as
`brzozowski.json.strings.string_term` writes it, a length bound included: per-token character counts
apply it) or by checking the automaton against S (`recognize`); never assumed.
"""

from __future__ import annotations

import numpy as np

from ...core.alphabet import DEAD
from ...core.derivatives import derivative
from ...core.terms import Term
from ...masks.cache import BoundedCache
from ...masks.moves import live_term
from ...masks.tokenset import Form, TokenSet, clear_tokens
from ..string_masks import (count_bound_bits, count_tables, kept_on, over_bound, recognize, recognize_counted,
                            string_automaton, string_tables)
from .past import PastTheQuote

__all__ = ["Opening", "Strings"]

_UNSEEN = object()
_QUOTE = 0x22


class Strings:
    """The inside of a JSON string: its tables, plus the tokens past its closing quote."""

    name = "strings"

    def __init__(self, walker, past: PastTheQuote) -> None:
        self.walker, self.past = walker, past
        self.states = BoundedCache(walker.tuning.index_memo_entries)  # state -> `string_state`

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        found = self.string_state(state)
        return None if found is None else TokenSet(array=self.string_mask(*found, form))

    def string_state(self, state: int) -> tuple[int, int | Term | None, int, int | None] | None:
        """(S-state, after-state, fewest, most characters) if `state` behaves as the inside of a
        JSON string, else None. The after-state is as the walks in Python hold it (a term over a
        lazy automaton: not numbered), None for DEAD."""
        found = self.states.get(state, _UNSEEN)
        if found is not _UNSEEN:
            return found  # type: ignore[return-value]
        walker = self.walker
        s = walker.held(state)
        if s.__class__ is not int:
            counted = self.counted_string(s)
            if counted is not None:
                return self.states.put(state, counted)
        # "a", " " and the backslash go on in a string's body (not in a key's)
        live = walker.expander.live_bytes(s)
        if (live >> 0x61) & 1 and (live >> 0x20) & 1 and (live >> 0x5C) & 1:
            automaton = walker.automaton
            # a lazy automaton's states are checked by the quote first (a DFA's rows cost nothing)
            quote = None if walker.state_of is None else lambda y: automaton.next_state(y, _QUOTE)
            recognized = recognize(automaton.row, state, walker.tuning.max_paired, quote)
            if recognized is not None:
                paired, after = recognized
                held = None if after == DEAD else walker.held(after)
                for y, r in paired.items():
                    if y not in self.states:
                        self.states.put(y, (r, held, 0, None))
        found = self.states.get(state, _UNSEEN)  # (recognized just now among the paired states)
        return self.states.put(state, None) if found is _UNSEEN else found  # type: ignore[return-value]

    def counted_string(self, term: Term) -> tuple[int, Term | None, int, int | None] | None:
        """`string_state` of a lazy automaton's term, read off the term (`recognize_counted`)."""
        counted = recognize_counted(term)
        if counted is None:
            return None
        r, fewest, most, rest = counted
        return r, rest if live_term(rest, self.walker.automaton.max_states) else None, fewest, most

    def string_mask(self, r: int, after: int | Term | None, fewest: int, most: int | None,
                    form: Form) -> np.ndarray:
        """The tokens allowed in a state that behaves as S-state r with after-state `after` (None:
        DEAD), `fewest` to `most` more characters allowed before the closing quote: ``inside``
        (less the tokens that begin too many characters), plus the tokens that close the string
        after an allowed number of characters and whose rest lives from `after`. A new array."""
        trie, tuning = self.walker.trie, self.walker.tuning
        tables = string_tables(trie, r)
        inside = form.pick(tables.inside, tables.inside_bits)
        if not fewest and most is None:
            if after is None:
                return inside.copy()
            return inside | self.past.mask(tables, ("json-string", r), after, form)
        mask = inside.copy()
        token_counts, closing_counts = count_tables(trie, r)
        if most is not None:
            over = over_bound(trie, r, most, tuning.few_over_bound)
            if over is None:
                mask &= count_bound_bits(trie, r, most) if form is Form.PACKED else token_counts <= most
            else:
                clear_tokens(mask, over)
        if after is not None:  # the closing nodes after an allowed number of characters:
            highest = kept_on(trie, ("json-string-closing-most", r),  # (a bound above all: none)
                              lambda: (int(closing_counts.max(initial=0)),))[0]
            most = most if most is not None and most < highest else None

            def allowed() -> np.ndarray:
                within = closing_counts >= fewest
                if most is not None:
                    within &= closing_counts <= most
                return within

            bounded = fewest > 0 or most is not None
            mask |= self.past.mask(tables, ("json-string", r), after, form, allowed if bounded else None,
                                   (fewest, most) if bounded else ())
        return mask


class Opening:
    """A state whose quote opens a JSON string (a value that may be a string): the tokens that
    begin with the quote from the string tables of S's state before its opening quote (bounds and
    what follows applied as inside the string), the others by `Options` or a walk that leaves the
    quote's subtree out; None unless the quote leads to a string's body that `Strings` recognizes
    (walked, that subtree would number a state per character count and UTF-8 or escape position)."""

    name = "opening"

    def __init__(self, walker, strings: Strings, options) -> None:
        self.walker, self.strings, self.options = walker, strings, options

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        walker = self.walker
        if walker.expansion != "auto" or walker.walked_trie is not self.walker.trie:
            return None  # (a class trie's quote node may hold other bytes)
        s = walker.held(state)
        if s.__class__ is int:
            moves = walker.expander.moves(s)
            quote, other_bytes = moves.targets[moves.class_of[_QUOTE]], moves.live != 1 << _QUOTE
            opened = None if quote is None else self.strings.string_state(quote)
        else:  # a term: derived by the quote alone (a key's closing quote is no string's opening)
            if not (s.first >> _QUOTE) & 1:
                return None  # (no string may open here: no derivative taken to know it)
            quote, other_bytes = derivative(s, _QUOTE, walker.expander.recent), s.first != 1 << _QUOTE
            max_states = self.walker.automaton.max_states
            opened = self.strings.counted_string(quote) if live_term(quote, max_states) else None
        strings = string_automaton()
        if opened is None or opened[0] != strings.body:
            return None
        _, after, fewest, most = opened
        mask = TokenSet(array=self.strings.string_mask(strings.opening, after, fewest, most, form))
        if other_bytes:  # a number, an object, null... may come instead (walked: none, if none lives)
            others = self.options.others_than_strings(s, form)
            if others is None:
                others = walker.walk(state, skip=_QUOTE)
            mask.add(others, self.walker.tuning)
        return mask
