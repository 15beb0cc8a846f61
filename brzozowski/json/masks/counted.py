"""A strategy for the states inside a string bounded by a length and a pattern or a format: the
count kept outside the state.

Such a string's inside is a term ``T = (X & K) "R``: X the pattern's state (it does not count),
``K = P C{0,h}`` the counted characters (P the rest of a begun character, C any character, h the
characters still allowed), R what follows the string; with a format, the atom of
``X & K"`` (X then holds the closing quote) followed by R. Every character read makes a new K, so
T has a state per (pattern state, count), and a walk from each meets fresh states all the way
down. X holds only whole characters (a pattern's strings are string contents,
`brzozowski.json.ecma_regex`; a format's are contents and the closing quote), so ``X & P C*`` is X
itself and T's *uncounted twin* is ``U = X "R``: one state per pattern state, which recurs at
every count. Claim: with ``c_t`` the characters token t begins before it ends or closes the
string (`brzozowski.json.string_masks.chars_to_end`), ``B = completion_bound(X)``
(`brzozowski.automata.fewest`: every state X reaches can end within B more bytes), and the
string's lower bound met (``C{0,h}``):

- t is refused by T if U refuses it (T's language is inside U's) or if ``c_t > h``;
- t that reads the closing quote, ``c_t <= h``, allowed by U: allowed (the characters before the
  quote are t's own, and U checked the pattern's end and R);
- t that stays inside, ``c_t + B <= h``, allowed by U: allowed (X, after t, ends within B bytes,
  so within B characters: at most h in all);
- t that stays inside, ``h - B < c_t <= h``, allowed by U: allowed iff ``c_t + n <= h`` for n the
  fewest characters X needs after t to end (`fewest_repeats`; a character t leaves begun is
  finished first, `fewest_repeats_after`), X's state after t read on its derivatives or, for many
  tokens, in one pass of X's own automaton over the trie (kept per X and shared by every index
  of the vocabulary, `brzozowski.json.masks.passes`: a string near its bound meets the same X at
  every count, and other schemas meet the same patterns). A token whose n the search does not
  find is read on T's own derivatives, while few (`Tuning.counted_exact_tokens`; else the state
  is walked).

A pattern that counts characters of one class, ``C{0,k}``, is read as ``C*`` under the lesser of
k and h (`CountedStrings.counted`): the same language, one twin for every count of both. So is a
pattern whose counts the h characters left cannot reach (``(\\S+\\s+){0,49}\\S+`` with 60 left):
those repeats unbounded (`brzozowski.automata.sandwich.unbounded_within`), one twin per position.

So T's mask is U's mask less a comparison of per-token counts. U's mask is cached: a format's is
read off its leaf tables; a pattern's is the mask of ``X "Σ*``, less the tokens past the closing
quote whose rest R refuses (`brzozowski.json.masks.past.PastTheQuote`). ``X "Σ*`` needs no walk of
its own: a token lives in it iff X lives after the token, or X accepts just before one of its
quotes (anything may follow), so the pass of X's own automaton over the trie that gives X's state
after every token gives this mask too (in an automaton of the patterns met, never the index's
own: its states know nothing of R, so every string of the pattern shares them). A pattern
that counts (``(\\S+\\s+){0,49}\\S+`` is a new state at every word) reads it off its sandwich
(`brzozowski.automata.sandwich`: the tight side's tokens, and the few between the sides checked
on X's derivatives) instead. A term whose X holds an intersection, a complement or a leaf over a
term has no completion bound; it, and a string before its lower bound, is walked.
"""

from __future__ import annotations

import weakref

import numpy as np

from ...automata.fewest import completion_bound, fewest_repeats, fewest_repeats_after
from ...automata.lazy import LazyDFA, is_empty
from ...automata.sandwich import repeat_sandwich, unbounded_within
from ...core.derivatives import derivative_of_string
from ...core.alphabet import ALL_BYTES
from ...core.terms import (EMPTY, EPSILON, K_CONCAT, K_INTER, K_LEAF, K_REPEAT, Term, byte, byte_set, compl, concat,
                           inter, star)
from ...errors import StateBudgetError
from ...masks.cache import BY_NBYTES, BoundedCache
from ...masks.index import WALK
from ...masks.moves import live_term
from ...masks.tokenset import Form, TokenSet
from ...masks.walk import Walker
from ...vocab.vocabulary import distinct
from ..string_masks import (CharsToEnd, chars_to_end, recognize_counted, rest_of_character, string_automaton,
                            string_tables)
from ..strings import ANY_CHAR
from .leaves import Leaves
from .passes import Walked, pattern_passes

__all__ = ["CountedStrings"]

_QUOTE = byte(0x22)
_ANYTHING = star(byte_set(ALL_BYTES))
_BODY = string_automaton().body


class CountedStrings:
    """The inside of a string bounded by a length and a pattern or a format, past its lower bound
    (see the module docstring): its uncounted twin's mask, filtered by per-token character counts."""

    name = "counted strings"

    def __init__(self, walker: Walker, leaves: Leaves) -> None:
        self.walker, self.leaves = walker, leaves
        tuning = walker.tuning
        self.recognized = BoundedCache(tuning.index_memo_entries)  # term -> `counted` (or None)
        self.twin_masks = BoundedCache(tuning.counted_masks_bytes, BY_NBYTES)  # twin -> bool mask
        self.wide_sandwiches = BoundedCache(tuning.index_memo_entries)  # (tight, loose) -> True: too many between
        self.shadow: Walker | None = None  # walks over the twins' own automaton

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        if term is None or self.walker.expansion != "auto":
            return None
        head = term.children[0] if term.kind == K_CONCAT else term
        if head.kind != K_INTER and (head.kind != K_LEAF or not isinstance(head.table.dfa, LazyDFA)):
            return None
        found = self.recognized.get(term, self)
        if found is self:
            found = self.recognized.put(term, self.counted(term))
        if found is None:
            return None
        twin, pattern, ending, rest, r, most, bound = found
        base = self.twin_mask(twin, pattern, rest, r)
        if base is None:
            return None
        trie = self.walker.trie
        counts = chars_to_end(trie, r)
        if most >= counts.most + bound:
            return TokenSet(array=base.copy())  # (a bool array: `TokenSet.finish` sets EOS and packs it)
        return self._near_the_bound(term, pattern, ending, base, counts, string_tables(trie, r).inside, most, bound)

    def _near_the_bound(self, term: Term, pattern: Term, ending: Term, base: np.ndarray, counts: CharsToEnd,
                        inside: np.ndarray, most: int, bound: int) -> TokenSet:
        """The twin's mask less the tokens over the bound, each token within `bound` of it decided
        by the fewest characters the pattern needs after it (`fewest_repeats`, from S's state
        after the token: a character it leaves begun is finished first). Many such tokens: first
        those the pattern's sandwich sides settle (`_settled_by_sides`). Then the pattern's state
        after each token: its derivatives one by one while the tokens are few, else one pass of
        the pattern automaton over the trie. A token whose count the search does not find is
        read on the state's own derivatives while they are few; else `WALK`."""
        tuning, tokens = self.walker.tuning, self.walker.trie.tokens
        mask = base & (counts.chars <= most)
        unsure = np.flatnonzero(mask & inside & (counts.chars > most - bound))
        if len(unsure) > tuning.counted_checked_tokens:
            unsure = self._settled_by_sides(pattern, ending, unsure, counts, mask, most)
        if len(unsure) <= tuning.counted_checked_tokens:
            fewest = np.array([self._fewest(derivative_of_string(pattern, tokens[t]), end, ending) for t, end in
                               zip(unsure.tolist(), counts.ends[unsure].tolist())], dtype=np.int32)
        else:
            fewest = self._fewest_after(pattern, unsure, counts.ends[unsure], ending)
            if fewest is None:
                return WALK
        known = fewest >= 0
        mask[unsure[known]] = counts.chars[unsure[known]] + fewest[known] <= most
        slow = unsure[~known]
        if len(slow) > tuning.counted_exact_tokens:
            return WALK
        self._read_one_by_one(term, slow, mask)
        return TokenSet(array=mask)

    def _settled_by_sides(self, pattern: Term, ending: Term, unsure: np.ndarray, counts: CharsToEnd,
                          mask: np.ndarray, most: int) -> np.ndarray:
        """The `unsure` tokens that the pattern's sandwich (`repeat_sandwich`, its sides' passes
        kept from its mask) leaves undecided; each of the others is set in `mask`. After a token,
        tight ⊆ X ⊆ loose still (a derivative keeps inclusions), so the fewest characters X needs
        to end is at most the tight side's (where tight lives) and at least the loose side's: a
        token whose count plus tight's is within the bound is allowed, one whose count plus
        loose's is over it refused."""
        sides = repeat_sandwich(pattern, self.walker.tuning.counted_repeat_cap)
        if sides is None:
            return unsure
        ends = counts.ends[unsure]
        tight, loose = (self._fewest_after(side, unsure, ends, ending) for side in sides)
        if tight is None or loose is None:
            return unsure
        chars = counts.chars[unsure]
        allowed = (tight >= 0) & (chars + tight <= most)
        refused = (loose >= 0) & (chars + loose > most)
        mask[unsure[refused]] = False
        return unsure[~(allowed | refused)]

    def _read_one_by_one(self, term: Term, ids: np.ndarray, mask: np.ndarray) -> None:
        """Set ``mask[t]`` for each token t of `ids`: whether `term`'s derivative by it leads anywhere."""
        tokens, max_states = self.walker.trie.tokens, self.walker.automaton.max_states
        for t in ids.tolist():
            mask[t] = live_term(derivative_of_string(term, tokens[t]), max_states)

    @staticmethod
    def _fewest(x: Term, r: int, ending: Term) -> int:
        """The fewest characters `x` begins before it can end, S in state r (-1: not found)."""
        if x is EMPTY:
            return -1
        if r == _BODY:
            found = fewest_repeats(x, ANY_CHAR, ending)
        else:
            rest = rest_of_character(r)
            found = None if rest is None else fewest_repeats_after(x, rest, ANY_CHAR, ending)
        return -1 if found is None else found

    def _fewest_after(self, pattern: Term, tokens: np.ndarray, ends: np.ndarray, ending: Term) -> np.ndarray | None:
        """Per token of `tokens` (S in state ``ends[i]`` after it): the fewest characters the pattern
        begins after it before it can end (-1: it refuses the token, or the search does not find
        one), from the pattern's state after each token (`_walked`); None past the pattern
        automaton's state budget."""
        walked = self._walked(pattern)
        if walked is None:
            return None
        width = int(ends.max(initial=0)) + 1
        pairs, keys = distinct(walked.after[tokens].astype(np.int64) * width + ends)
        term = walked.automaton.term
        fewest = [self._fewest(term(int(p) // width - 1) if p >= width else EMPTY, int(p) % width, ending)
                  for p in pairs.tolist()]
        return np.array(fewest, dtype=np.int32)[keys]

    def _walked(self, pattern: Term) -> Walked | None:
        """The pass of the pattern's automaton over the trie from `pattern` (`Walked`, shared by
        every index of the vocabulary: `brzozowski.json.masks.passes`); None past the state budget."""
        automaton = self.walker.automaton
        return pattern_passes(self.walker.trie, automaton.max_states, automaton.limits,
                              self.walker.tuning).walked(pattern)

    def counted(self, term: Term) -> tuple[Term, Term, Term, Term, int, int, int] | None:
        """(the twin U, X, what ends X's strings (ε, or the closing quote when X holds it), R (what
        follows the closing quote, when X does not hold it), the S-state r of the counted
        characters, h, B) if `term` is ``(X & K) R``
        or ``⟨(X & K)⟩ R`` (the atom of a format's intersection with the bounds, K then ends with the
        closing quote) with K's lower bound met and X a term with a completion bound; else None.
        A pattern that counts characters of one class, ``C{0,k}`` (every string of C one
        character), at a character's start is X = C* with h the lesser of h and k: the same
        language, and one twin for every count of both. And X's repeats that h characters cannot
        take to their bound are unbounded (`unbounded_within`: the same strings of at most h + 1
        characters, the begun one counted too), so a pattern that counts its words under a bound
        that binds first has one twin per position, not per word."""
        head, outside = term.children if term.kind == K_CONCAT else (term, EPSILON)
        if head.kind == K_LEAF:
            head, after = head.table.term_of(head.lo), EPSILON
            if head.kind != K_INTER:
                return None
        else:
            after, outside = outside, EPSILON
        operands = head.children
        for i, counted in enumerate(operands):
            found = recognize_counted(concat(counted, after))
            if found is None:
                continue
            r, fewest, most, rest = found
            if fewest or most is None:
                return None
            pattern = inter(*(x for j, x in enumerate(operands) if j != i))
            if r == _BODY and pattern.kind == K_REPEAT and not pattern.lo and _one_character(pattern.children[0]):
                pattern, most = star(pattern.children[0]), min(most, pattern.hi)  # (C{0,k} & K = C* & K')
            pattern = unbounded_within(pattern, most + 1, _fewest_characters)  # (+ 1: a character begun)
            bound = completion_bound(pattern)
            if bound is None:
                return None
            ending = EPSILON if after is not EPSILON else _QUOTE
            return concat(pattern, after, outside), pattern, ending, rest, r, most, bound
        return None

    def twin_mask(self, twin: Term, pattern: Term, rest: Term, r: int) -> np.ndarray | None:
        """The tokens the twin ``X "R`` allows (a read-only bool array; cached); None if X's
        automaton is over its state budget. A format's table leaf: its tables. A pattern: the
        tokens ``X "Σ*`` allows (X's pass, `_walked`, or its sandwich) that stay inside the
        string or whose rest after the closing quote lives from R (`PastTheQuote`); exact, since X
        holds only whole characters, so the quote that closes the string is the first X can read."""
        found = self.twin_masks.get(twin)
        if found is not None:
            return found
        if pattern.kind == K_LEAF:  # (a format's: X holds the closing quote)
            walked = self.leaves.term_mask(twin, Form.BOOL)
            mask = None if walked is None else self._as_mask(walked)
        else:
            mask = self._pattern_mask(pattern)
            if mask is not None:
                tables = string_tables(self.walker.trie, r)
                mask = mask & (tables.inside | self.leaves.past.mask(tables, ("json-string", r), rest, Form.BOOL))
        if mask is None:
            mask = self._shadow_mask(twin)
            if mask is None:
                return None
        mask.setflags(write=False)
        return self.twin_masks.put(twin, mask)

    def _pattern_mask(self, pattern: Term) -> np.ndarray | None:
        """The tokens ``X "Σ*`` allows, or None past the patterns automaton's state budget: from
        X's sandwich while few tokens lie between its sides (`_sandwiched`), else from X's own
        pass over the trie (`_walked`). The sandwiched masks are cached apart from the passes
        (kept by pattern among the twins'): a pass costs far more, and a pattern that counts its
        words meets a new state at every word."""
        sides = repeat_sandwich(pattern, self.walker.tuning.counted_repeat_cap)
        if sides is not None and self.wide_sandwiches.get(sides) is None:
            found = _kept(self.twin_masks, pattern, lambda: self._sandwiched(sides, pattern))
            if found is not None:
                return found
        walked = self._walked(pattern)
        return None if walked is None else walked.allowed

    def _sandwiched(self, sides: tuple[Term, Term], pattern: Term) -> np.ndarray | None:
        """The tokens ``X "Σ*`` allows, from X's `repeat_sandwich` (tight ⊆ X ⊆ loose, both
        forgetting the counts over `Tuning.counted_repeat_cap`, so that the states of a pattern
        that counts its words share them): the tokens the tight side allows, and those between
        the sides that X's own derivatives allow; None past the patterns automaton's state
        budget, or if more than `Tuning.counted_checked_tokens` tokens lie between the sides
        (then remembered, and never tried again for those sides)."""
        tight, loose = (self._walked(side) for side in sides)
        if tight is None or loose is None:
            return None
        between = np.flatnonzero(loose.allowed & ~tight.allowed)
        if len(between) > self.walker.tuning.counted_checked_tokens:
            self.wide_sandwiches.put(sides, True)
            return None
        mask = tight.allowed.copy()
        self._read_one_by_one(concat(pattern, _QUOTE, _ANYTHING), between, mask)
        return mask

    def _shadow_mask(self, term: Term) -> np.ndarray | None:
        """The tokens `term` allows, walked in the shadow automaton (None: over its state budget)."""
        walked = self._shadow_walk(term)
        return None if walked is None else self._as_mask(walked)

    def _as_mask(self, walked: TokenSet) -> np.ndarray:
        """A walk's or a strategy's tokens as a read-only bool mask (no EOS: the index sets it)."""
        return walked.finish(Form.BOOL, self.walker.trie.vocab_size, None, False, self.walker.tuning)

    def _shadow_walk(self, twin: Term) -> TokenSet | None:
        """The twin's tokens by a walk over the shadow automaton (None: over its state budget)."""
        try:
            if self.shadow is None:
                automaton = self.walker.automaton
                shadow = LazyDFA(twin, max_states=automaton.max_states, limits=automaton.limits)
                self.shadow, state = Walker(shadow, self.walker.trie, self.walker.tuning), shadow.start
            else:
                state = self.shadow.automaton.state_of(twin)
            return self.shadow.walk(state)
        except StateBudgetError:
            return None


def _kept(cache: BoundedCache, key: Term, compute) -> np.ndarray | None:
    """`cache`'s mask for `key`, else `compute()`'s (None: over a state budget, not kept), read-only."""
    found = cache.get(key)
    if found is None:
        found = compute()
        if found is not None:
            found.setflags(write=False)
            cache.put(key, found)
    return found


def _fewest_characters(body: Term) -> int | None:
    """The fewest characters of a string of `body` (None: the search did not find it)."""
    return fewest_repeats(body, ANY_CHAR, EPSILON)


_ONE_CHARACTER: weakref.WeakKeyDictionary[Term, bool] = weakref.WeakKeyDictionary()


def _one_character(c: Term) -> bool:
    """Whether every string of `c` is one JSON character, spelled in any way (``c ⊆ ANY_CHAR``);
    memoized per term."""
    found = _ONE_CHARACTER.get(c)
    if found is None:
        found = _ONE_CHARACTER[c] = is_empty(inter(c, compl(ANY_CHAR)))
    return found
