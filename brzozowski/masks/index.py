"""Token masks: which tokens of a vocabulary may come next in each automaton state.

For a state s and a token t with bytes β(t), the mask is (docs: the mask rule)

    mask_s[t] = δ*(s, β(t)) ≠ DEAD,        mask_s[eos] = s is accepting,

and empty or special (``None``) tokens are never allowed. A token is allowed when it keeps the
text a prefix of some string of the language; it need not complete one. `TokenIndex` answers
``mask(state)`` and ``bitmask(state)`` for anything with the automaton interface (``start``,
``row(s)``, ``is_accepting(s)``, ``step(s, data)``: a `brzozowski.automata.dfa.DFA` or a
`brzozowski.automata.lazy.LazyDFA`) over a `brzozowski.vocab.vocabulary.Vocabulary`.

>>> from brzozowski.automata.dfa import regex_to_dfa
>>> from brzozowski.vocab.vocabulary import Vocabulary
>>> vocab = Vocabulary([b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts",
...                     b"x", None, b""], eos_id=13)
>>> index = TokenIndex(regex_to_dfa("(cat|car|dog)s?"), vocab)
>>> [int(t) for t in index.mask(0).nonzero()[0]]
[0, 4, 8, 9, 10]
>>> [int(t) for t in index.mask(5).nonzero()[0]], index.next_state(3, 11)
([7, 13], 6)

The core and its strategies
---------------------------
The rule above is always answered by one walk of the vocabulary's trie from the state
(`brzozowski.masks.walk`), correct for every automaton. Everything else is a *strategy*: an object
whose ``try_mask(state, term, form)`` returns the state's `TokenSet` when it can prove it equal to
the walk's answer, None when the state is not its kind, or `WALK` when it is its kind but only the
walk answers (then no later strategy is tried). The index tries its strategies in one explicit
order and walks when none serves; it counts a strategy only when it serves (``served``), and the
counts never steer anything. A strategy owns its tables and memos (bounded, `BoundedCache`);
every threshold is a field of the index's `Tuning`.

The core knows no JSON. A package above it adds its strategies with `register_strategies` when it
is imported (`brzozowski.json` does, and `brzozowski` imports it): each index builds them, in
registration order, after the core's own. Dispatch order, with `brzozowski.json` registered:

1. ``end`` (core): no byte goes on from the state's term: EOS alone, one array per vocabulary.
2. ``words`` (json): options that each begin with a byte string, a quote among their first bytes
   followed by another byte string (a closed object's key, ``":"``): read along the strings.
3. ``counted strings`` (json): inside a string bounded by a length and a pattern or format: the
   mask of its uncounted twin (one per pattern state), filtered by per-token character counts.
4. ``named keys`` (json): an open object's key state read off its term (listed names, other keys).
5. ``leaves`` (json): a leaf's state (a format's string, a number): its per-vocabulary tables.
6. ``strings`` (json): the inside of a JSON string: its tables plus the tokens past the quote.
7. ``keys`` (json): an open object's key state on a DFA: a walk of the listed names' prefixes.
8. ``opening`` (json): a state whose quote opens a string: the string's tables beside a walk.
9. ``literals`` (json, read by the core's walker): options that each begin with a byte string.
10. ``options`` (json): a union of leaves and words: the union of their masks.

Caching, threads, deadlines
---------------------------
Masks are computed the first time a state is asked for and kept in a `BoundedCache` bounded in
bytes (``cache_bytes``): ``bitmask(s)`` keeps only the packed bits, ``mask(s)`` the bool mask
(unpacked from cached bits when there are some). An evicted mask is recomputed, the same: eviction
costs time, never correctness. One index may be shared between threads: cache reads and writes
happen under one lock, mask computations under a second (they also grow a lazy automaton), so a
thread asking for a cached mask never waits for another's walk. Each computation runs under the
``mask_seconds`` deadline of the index's `Limits` (`brzozowski.budget.open_deadline`); the walk checks
it once per level. Reference: Willard & Louf, "Efficient Guided Generation for Large Language
Models" (2023), for the per-state index idea.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from ..budget import DEFAULT_LIMITS, Limits, close_deadline, open_deadline
from ..core.alphabet import DEAD, Automaton
from ..core.terms import Term
from ..errors import InputTypeError, MaskError, StateError, TokenError, VocabularyError
from ..vocab.vocabulary import VocabTrie, Vocabulary, checked_eos, checked_token_bytes, shared_class_trie, vocab_trie
from .cache import BY_NBYTES, BoundedCache
from .tokenset import Form, TokenSet, packed, unpacked
from .tuning import DEFAULT_TUNING, Tuning
from .walk import EXPANSIONS, TRIES, Walker

__all__ = ["DEFAULT_CACHE_BYTES", "DENSE_FRACTION", "WALK", "Strategy", "TokenIndex", "register_strategies"]

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""Default mask-cache budget: enough bool masks over a large tokenizer for far more states than a
long generation visits; pass ``cache_bytes`` to change it."""

DENSE_FRACTION = DEFAULT_TUNING.dense_fraction
"""(Kept for the public API: `Tuning.dense_fraction`.)"""

WALK = TokenSet(ids=[])
"""What a strategy returns for a state of its kind that only the walk answers (no later strategy tried)."""


class Strategy(Protocol):
    """A way to compute some states' masks, equal to the walk's wherever it answers."""

    name: str

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        """The tokens allowed in `state` (`term`: its term over a lazy automaton, else None), or None
        (not this strategy's state), or `WALK`."""


_REGISTERED: list[Callable[[Walker], tuple[Strategy, ...]]] = []


def register_strategies(build: Callable[[Walker], tuple[Strategy, ...]]) -> None:
    """Add the strategies `build(walker)` makes, in its order, after the core's and those already
    registered, to every index built from now on (a package does it once, on import). A strategy
    reaches the index's automaton, trie, tuning and walks through its `Walker`, and holds no
    reference to the index (no cycle: an index is freed as soon as it is dropped)."""
    if build not in _REGISTERED:
        _REGISTERED.append(build)


class EndOfText:
    """A state no byte goes on from (its term's first bytes are none: a document's end, accepting)
    allows EOS alone: one read-only array per vocabulary, EOS and form, shared by every schema."""

    name = "end"

    def __init__(self, walker: Walker, eos_id: int | None) -> None:
        self.walker, self.eos_id = walker, eos_id

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        if term is None or term.first:
            return None
        trie, eos = self.walker.trie, self.eos_id
        found = trie.kept((EndOfText, eos, form),
                          lambda: TokenSet(ids=[]).finish(form, trie.vocab_size, eos, True, self.walker.tuning))
        return TokenSet(array=found, final=True)


class TokenIndex:
    """Masks and next states of one vocabulary over one automaton (see the module docstring).

    `automaton`: a DFA or LazyDFA. `vocabulary`: a `Vocabulary`, or the token list itself (token id
    -> bytes, or None for a token that is never allowed) or a `VocabTrie`, with `eos_id` beside it.
    `eos_id`: the end-of-sequence token, allowed exactly in accepting states; with a `Vocabulary`,
    leave it out (or pass its own). `cache_bytes`: the mask cache budget in bytes. `tuning`: the
    engine's thresholds (masks are the same whatever they are). `limits`: ``mask_seconds`` bounds
    each mask computation, ``max_token_bytes`` each token.
    """

    def __init__(self, automaton: Automaton, vocabulary: Vocabulary | Sequence[bytes | None] | VocabTrie,
                 eos_id: int | None = None, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 tuning: Tuning = DEFAULT_TUNING, limits: Limits = DEFAULT_LIMITS) -> None:
        for name in ("start", "row", "is_accepting", "step"):
            if not hasattr(automaton, name):
                raise InputTypeError(
                    f"{automaton!r:.80} ({type(automaton).__name__}) is not an automaton: it has no "
                    f"{name!r} (pass a brzozowski DFA or LazyDFA)"
                )
        if not isinstance(tuning, Tuning) or not isinstance(limits, Limits):
            raise InputTypeError(f"tuning must be a Tuning and limits a Limits, not {tuning!r}, {limits!r}")
        self.automaton, self.tuning, self.limits = automaton, tuning, limits
        if isinstance(vocabulary, Vocabulary):
            if eos_id is not None and checked_eos(eos_id, len(vocabulary)) != vocabulary.eos_id:
                raise VocabularyError(
                    f"eos_id {eos_id} differs from the vocabulary's own ({vocabulary.eos_id}): "
                    "leave eos_id out when passing a Vocabulary"
                )
            checked_token_bytes(vocabulary.trie, limits.max_token_bytes)
        else:
            trie = vocab_trie(vocabulary, limits.max_token_bytes)
            vocabulary = Vocabulary(trie, checked_eos(eos_id, trie.vocab_size))
        self.vocabulary = vocabulary
        self.trie: VocabTrie = vocabulary.trie
        self.vocab_size = self.trie.vocab_size
        self.eos_id = vocabulary.eos_id
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
            raise MaskError(f"cache_bytes must be a non-negative int, not {cache_bytes!r}")
        self.cache_bytes = cache_bytes
        self._cache = BoundedCache(cache_bytes, BY_NBYTES)
        self._cache_lock = threading.Lock()
        self._walk_lock = threading.Lock()
        self.walker = Walker(automaton, self.trie, tuning)
        self._known_states = int(automaton.n_states)  # states below this exist (lazy: grows)
        self._next_memo = BoundedCache(tuning.next_state_memo)  # state * V + token -> next state
        self.walks = 0  # how many masks were computed (cache misses)
        self.served: Counter[str] = Counter()  # per strategy: how many masks it gave
        self.strategies: tuple[Strategy, ...] = (EndOfText(self.walker, self.eos_id),)
        for build in _REGISTERED:
            self.strategies += build(self.walker)
        self._active = self.strategies

    @property
    def walked_trie(self):
        """The trie walks go through: the byte trie, or the pattern's class-string trie."""
        return self.walker.walked_trie

    def strategy(self, name: str) -> Strategy:
        """The strategy called `name` (`KeyError` if none)."""
        for found in self.strategies:
            if found.name == name:
                return found
        raise KeyError(name)

    def set_strategy(self, expansion: str = "auto", trie: str = "auto", strings: bool = True) -> None:
        """Force how masks are computed (tests, benchmarks, notebooks: the masks are the same).
        `expansion`: "auto" (Python while few nodes live, then sparse or dense per level), "sparse"
        or "dense" (numpy from the root). `trie`: "auto" (bytes, then classes once they pay off),
        "bytes", or "classes" (needs an automaton that knows its ``byte_classes``). `strings`: use
        the registered strategies (False: the core's alone)."""
        if expansion not in EXPANSIONS:
            raise MaskError(f"expansion must be one of {EXPANSIONS}, not {expansion!r}")
        if trie not in TRIES:
            raise MaskError(f"trie must be one of {TRIES}, not {trie!r}")
        walked = self.trie
        if trie == "classes":
            classes = getattr(self.automaton, "byte_classes", None)
            if classes is None:
                raise MaskError("trie='classes' needs a DFA or a LazyDFA (their byte classes)")
            walked = shared_class_trie(self.trie, classes)
        with self._walk_lock:
            self.walker.expansion, self.walker.trie_choice, self.walker.walked_trie = expansion, trie, walked
            self._active = self.strategies if strings else self.strategies[:1]

    def __repr__(self) -> str:
        return (f"TokenIndex({type(self.automaton).__name__}, vocab_size={self.vocab_size}, "
                f"eos_id={self.eos_id}, cached={len(self._cache)})")

    # -- masks -----------------------------------------------------------------------------------

    def mask(self, state: int) -> np.ndarray:
        """The allowed tokens in `state`: a read-only bool array of length vocab_size."""
        state = self._check_state(state)
        with self._cache_lock:  # (the warm path, inline: one lookup, no call)
            found = self._cache.get(2 * state)
        return found if found is not None else self._missing(state, Form.BOOL)

    def bitmask(self, state: int) -> np.ndarray:
        """The mask packed in int32 words: token t is bit t % 32 of word t // 32 (read-only).

        Only the bits are cached (a bool mask computed for them is not): an engine that asks
        for bitmasks alone keeps 1/8 of the memory per state."""
        state = self._check_state(state)
        with self._cache_lock:
            found = self._cache.get(2 * state + 1)
        return found if found is not None else self._missing(state, Form.PACKED)

    def _missing(self, state: int, form: Form) -> np.ndarray:
        """A mask not found in the cache: under the walk lock, found there after all (another
        thread's), or made from the other form's cached array, or computed; then stored."""
        key = 2 * state + (form is Form.PACKED)  # even keys: a state's bool mask, odd keys: its packed bitmask
        with self._walk_lock:
            with self._cache_lock:
                found = self._cache.get(key)
                other = self._cache.get(key ^ 1) if found is None else None
            if found is None:
                if other is None:
                    found = self._compute(state, form)
                else:
                    found = unpacked(other, self.vocab_size) if form is Form.BOOL else packed(other)
                self._store(key, found)
        return found

    def next_state(self, state: int, token_id: int) -> int:
        """The state after `token_id` in `state`: DEAD if the token is not allowed there.

        EOS does not move the automaton: ``next_state(s, eos_id)`` is s itself when s accepts,
        DEAD otherwise (`brzozowski.runtime.constraint.Constraint` turns an accepted EOS into "done").
        ``None`` and empty tokens are never allowed, so they give DEAD.
        """
        return self.next_state_unchecked(self._check_state(state), self.check_token(token_id))

    def next_state_unchecked(self, state: int, token_id: int) -> int:
        """`next_state` for a caller that has already checked both arguments (`check_token`; a
        state this index gave out): no checks, the memoized answer."""
        key = state * self.vocab_size + token_id
        found = self._next_memo.get(key)
        if found is None:
            if token_id == self.eos_id:
                found = state if self.automaton.is_accepting(state) else DEAD
            else:
                data = self.trie.tokens[token_id]
                opened = open_deadline(self.limits.mask_seconds, "mask_seconds", "advance from state", state)
                try:
                    found = int(self.automaton.step(state, data)) if data else DEAD
                finally:
                    close_deadline(opened)
            self._next_memo.put(key, found)
        return found

    def check_token(self, token_id: int) -> int:
        """`token_id` as an int inside the vocabulary; `TokenError` otherwise."""
        if type(token_id) is int and 0 <= token_id < self.vocab_size:  # the fast, usual case
            return token_id
        if isinstance(token_id, bool) or not isinstance(token_id, (int, np.integer)):
            raise TokenError(f"a token id is an int, not {token_id!r}")
        token_id = int(token_id)
        if not 0 <= token_id < self.vocab_size:
            raise TokenError(f"token id {token_id} is outside the vocabulary (ids 0..{self.vocab_size - 1})")
        return token_id

    def is_accepting(self, state: int) -> bool:
        """Whether `state` accepts (the text so far is in the language)."""
        return bool(self.automaton.is_accepting(self._check_state(state)))

    @property
    def start(self) -> int:
        """The automaton's start state."""
        return int(self.automaton.start)

    @property
    def string_masks(self) -> int:
        return self.served["strings"]

    @property
    def key_masks(self) -> int:
        return self.served["named keys"] + self.served["keys"]

    @property
    def leaf_masks(self) -> int:
        return self.served["leaves"] + self.served["options"]

    def cache_info(self) -> dict[str, int]:
        """The mask cache (entries, bytes, budget), how many masks were computed (``walks``; of
        them ``string_masks`` from the JSON-string tables, ``key_masks`` from the plain-key tables,
        ``leaf_masks`` from a leaf's, ``served`` per strategy), and the memory of the shared byte
        trie, of the class-string trie walked (0 if none), of the transition table."""
        with self._cache_lock:
            walked = self.walker.walked_trie
            return {"entries": len(self._cache), "bytes": int(self._cache.currsize),
                    "budget": self.cache_bytes, "walks": self.walks, "string_masks": self.string_masks,
                    "key_masks": self.key_masks, "leaf_masks": self.leaf_masks, "served": dict(self.served),
                    "trie_bytes": self.trie.nbytes,
                    "class_trie_bytes": walked.nbytes if walked is not self.trie else 0,
                    "table_bytes": self.walker.table.table.nbytes}

    # -- internals -------------------------------------------------------------------------------

    def _check_state(self, state: int) -> int:
        if type(state) is int and 0 <= state < self._known_states:  # the fast, usual case
            return state
        if isinstance(state, bool) or not isinstance(state, (int, np.integer)):
            raise MaskError(f"a state is an int, not {state!r}")
        state = int(state)
        n = self._known_states = int(self.automaton.n_states)  # a lazy automaton grows
        if state == DEAD:
            raise StateError("state -1 is DEAD: no token continues from it, so it has no mask")
        if not 0 <= state < n:
            raise StateError(f"state {state} does not exist (states 0..{n - 1}; DEAD is -1)")
        return state

    def _store(self, key: int, value: np.ndarray) -> None:
        with self._cache_lock:
            self._cache.put(key, value)

    def _compute(self, state: int, form: Form) -> np.ndarray:
        """The mask of `state` in `form`: from the first strategy that serves, else by a walk
        (the caller holds the walk lock); read-only."""
        opened = open_deadline(self.limits.mask_seconds, "mask_seconds", "state", state)
        try:
            term = self.automaton.term(state) if self.walker.state_of is not None else None
            found = None
            for strategy in self._active:
                found = strategy.try_mask(state, term, form)
                if found is WALK:
                    found = None
                    break
                if found is not None:
                    self.served[strategy.name] += 1
                    break
            if found is None:
                found = self.walker.walk(state)
            self.walks += 1
            accepting = bool(self.automaton.is_accepting(state))
            return found.finish(form, self.vocab_size, self.eos_id, accepting, self.tuning)
        finally:
            close_deadline(opened)


