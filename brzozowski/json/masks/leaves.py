"""Strategies for the states inside a leaf (a format's string, a number), and unions of leaves.

A lazy automaton's state inside a leaf is a term ``ℓ·T``: the atom of leaf state q, then what
follows the leaf's value. What a token does inside the leaf depends on the vocabulary and q alone
(`brzozowski.json.leaf_masks`: per-vocabulary tables shared by every schema), so ``ℓ·T`` allows the
tokens the leaf reads whole, and those that leave it where T reads their rest: a wide state by its
string tables and `PastTheQuote`, a narrow one by its listed exits. A value that may be one of
several leaves or words is the union of its options' masks (exact: a token lives iff it lives in
one option).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.derivatives import derivative_of_string
from ...core.terms import K_CONCAT, K_LEAF, Term, alt, concat
from ...masks.cache import BoundedCache
from ...masks.moves import is_word, live_term, split
from ...masks.tokenset import Form, TokenSet, set_tokens
from ...masks.walk import options_of
from ..leaf_masks import NUMERAL_BITS, leaf_exits, leaf_inside_bits, leaf_tables, numeral_leaf
from .past import PastTheQuote

__all__ = ["Leaves", "Options"]

_QUOTE_BIT = 1 << 0x22


def _byte_flags(bits: int) -> np.ndarray:
    """A 256-bit set as a bool per byte."""
    return np.unpackbits(np.frombuffer(bits.to_bytes(32, "little"), dtype=np.uint8), bitorder="little").view(bool)


class Leaves:
    """A lazy automaton's state inside a leaf: its per-vocabulary tables (None for another state,
    or a leaf state the tables do not serve)."""

    name = "leaves"

    def __init__(self, walker, past: PastTheQuote) -> None:
        self.walker, self.past = walker, past
        self.after_leaves = BoundedCache(walker.tuning.index_memo_entries)  # term -> `after_leaf`

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        if term is None or self.walker.expansion != "auto":
            return None
        return self.term_mask(term, form)

    def term_mask(self, term: Term, form: Form) -> TokenSet | None:
        """The mask of a term ``ℓ·T``; None for another term or a leaf state the tables do not serve."""
        head, after = split(term)
        if head.kind != K_LEAF:
            return None
        if head.first.bit_count() >= self.walker.tuning.wide_leaf_bytes:
            return self.tables_mask(head.table, head.lo, after, form)
        return self.exits_mask(head, after, form)

    def tables_mask(self, automaton, q: int, after: Term, form: Form) -> TokenSet | None:
        """Wide leaf state q followed by `after`, from the tables of q; None if it has none (it
        does not close as a string)."""
        tables = leaf_tables(self.walker.trie, automaton, q)
        if tables is None:
            return None
        inside = form.pick(tables.inside, tables.inside_bits)
        if live_term(after, self.walker.automaton.max_states):
            return TokenSet(array=inside | self.past.mask(tables, ("leaf", automaton.id, q), after, form))
        return TokenSet(array=inside.copy())

    def exits_mask(self, leaf: Term, after: Term, form: Form) -> TokenSet | None:
        """Narrow leaf state q followed by `after`, from the exits of q: those the leaf reads whole;
        if q accepts, those `after` allows (walked, kept per term) when no byte both continues the
        leaf and begins `after` (else None: walked whole); and those that leave the leaf midway and
        whose rest `after` reads. Packed, when the leaf reads many tokens whole: their kept packed
        set copied and the others set."""
        walker = self.walker
        trie, tuning = walker.trie, walker.tuning
        exits = leaf_exits(trie, leaf.table, leaf.lo)
        found = [exits.inside]
        max_states = walker.automaton.max_states
        if live_term(after, max_states):
            if after.first & NUMERAL_BITS and numeral_leaf(leaf.table):  # (its exits before a numeral not listed)
                return None
            if exits.accepts:
                if leaf.first & after.first:
                    return None
                found.append(self.after_leaf(after))
            if exits.exit_rests is not None:  # every exit closes the string: rests read per T
                if len(exits.exit_tokens):  # (none, far from the closing quote: T not read)
                    found.append(exits.exit_tokens[self.past.live_rests(after)[0][exits.exit_rests]])
            elif len(exits.exit_tokens):
                starts = _byte_flags(after.first)[exits.exit_bytes]
                tokens = trie.tokens
                for t, d in zip(exits.exit_tokens[starts].tolist(), exits.exit_offsets[starts].tolist()):
                    if live_term(derivative_of_string(after, tokens[t][d:]), max_states):
                        found.append(np.array([t], dtype=np.intp))
        if form is Form.PACKED and len(exits.inside) > tuning.few_tokens:
            mask = leaf_inside_bits(trie, leaf.table, leaf.lo).copy()
            if len(found) > 1:  # (`found` begins with the inside)
                set_tokens(mask, np.concatenate(found[1:]), tuning)
            return TokenSet(array=mask)
        ids = np.concatenate(found) if len(found) > 1 else found[0]  # (a token in two: set twice)
        if len(ids) <= tuning.few_tokens:
            return TokenSet(ids=ids.tolist())
        mask = np.zeros(trie.vocab_size, dtype=bool)
        mask[ids] = True
        return TokenSet(array=mask)

    def after_leaf(self, after: Term) -> np.ndarray:
        """The tokens `after` allows (its term walked as a state's; kept per term, ids ascending)."""
        found = self.after_leaves.get(after)
        if found is None:
            walked = self.walker.literal_tokens(after)
            if walked is None:
                walked = self.walker.walk(after)
            found = self.after_leaves.put(after, walked.token_ids())
        return found


class Options:
    """``(o₁ | … | oₖ)·T`` (T None: none), k > 1, where a leaf or a byte string begins each option
    (a bounded integer or null, ``anyOf``): the union of each leaf's ``oᵢ·T`` mask and of the
    words', those of more than one byte read together (a long enum: one read). None if an option is
    neither, or a mask would be walked (the state is walked whole: no union is cheaper)."""

    name = "options"

    def __init__(self, walker, leaves: Leaves) -> None:
        self.walker, self.leaves = walker, leaves

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        found = None if term is None else options_of(term)
        if found is None or len(found[0]) <= 1:
            return None
        return self.union(*found, form)

    def others_than_strings(self, term: int | Term, form: Form) -> TokenSet | None:
        """The tokens of a term's options that do not begin with the quote (null, an integer leaf:
        beside a string that `Opening` serves); None if an option begins with the quote and another
        byte, or one of the others is not served so."""
        found = options_of(term) if term.__class__ is Term else None
        if found is None:
            return None
        options, then = found
        others = [option for option in options if not option.first & _QUOTE_BIT]
        if any(option.first & _QUOTE_BIT and option.first != _QUOTE_BIT for option in options) or not others:
            return None
        return self.union(others, then, form)

    def union(self, options: Sequence[Term], then: Term | None, form: Form) -> TokenSet | None:
        """The union of the options' masks (see the class docstring); packed if one of them is."""
        words, leaves = [], []
        for option in options:
            if is_word(option):
                words.append(option)
            elif split(option)[0].kind == K_LEAF:
                leaves.append(option)
            else:
                return None
        longer = [word for word in words if word.kind == K_CONCAT]
        parts = [(alt(*longer), False)] if longer else []  # (`alt` would merge single bytes)
        parts += [(word, False) for word in words if word.kind != K_CONCAT]
        parts += [(option, True) for option in leaves]
        found: list[TokenSet] = []
        for term, leaf in parts:
            term = term if then is None else concat(term, then)
            mask = self.leaves.term_mask(term, form) if leaf else self.walker.literal_tokens(term)
            if mask is None:
                return None
            found.append(mask)
        arrays = [mask for mask in found if mask.array is not None]
        if not arrays:
            return TokenSet(ids=[t for mask in found for t in mask.ids])
        # each option's array is a new one of its own, written into: a packed one if one is
        union = next((mask for mask in arrays if mask.is_packed), arrays[0])
        for mask in found:
            if mask is not union:
                union.add(mask, self.walker.tuning)
        return union
