"""Strategies for states whose term is options that each begin with a byte string (the names a
closed object lists, enum values, literals, ``":"`` before a value): read along those strings'
paths in the trie (`brzozowski.masks.walk.Walker.literal_tokens`), no derivative of their union
taken (walked, every prefix of the names would be a new alternation, derived by every class).

`Words` goes first: when a quote among the options' first bytes is followed by another byte string
(a closed object's key, ``":"`` then a value), no other strategy can serve the state (no string
opens there, nor an open object's other keys), so none is tried: it answers, or the walk does.
`Literals` serves the other such states after the strategies that know their kind.
"""

from __future__ import annotations

from ...core.terms import EPSILON, Term
from ...masks.index import WALK
from ...masks.moves import is_word, split
from ...masks.tokenset import Form, TokenSet
from ...masks.walk import literal_options

__all__ = ["Literals", "Words", "plain_words"]

_QUOTE_BIT = 1 << 0x22


def plain_words(term: Term) -> bool:
    """Whether `term` is options that each begin with a byte string, and a quote among their first
    bytes is followed by another byte string: none opens a string, nor an open object's other keys."""
    found = literal_options(term)
    if found is None:
        return False
    if term.first & _QUOTE_BIT:
        for option in found[0]:
            head, tail = split(option)
            if head.bits == _QUOTE_BIT and (tail is EPSILON or not is_word(tail)):
                return False
    return True


class Literals:
    """A lazy automaton's state of options that each begin with a byte string, read along them;
    None for another state, or when what follows a path is wide (left to the walk)."""

    name = "literals"

    def __init__(self, walker) -> None:
        self.walker = walker

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        if term is None or self.walker.expansion != "auto":
            return None
        return self.walker.literal_tokens(term)


class Words:
    """A state of `plain_words`: read along them (`Literals`), or `WALK`: nothing else serves it."""

    name = "words"

    def __init__(self, walker, literals: Literals) -> None:
        self.literals = literals

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        if term is None or not plain_words(term):
            return None
        found = self.literals.try_mask(state, term, form)
        return WALK if found is None else found
