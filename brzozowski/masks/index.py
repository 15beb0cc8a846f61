"""Token masks: which tokens of a vocabulary may come next in each automaton state.

For a state s and a token t with bytes β(t), the mask is (docs: the mask rule)

    mask_s[t] = δ*(s, β(t)) ≠ DEAD,        mask_s[eos] = s is accepting,

and empty or special (``None``) tokens are never allowed. A token is allowed when it keeps the
text a prefix of some string of the language; it need not complete one. `TokenIndex` answers
``mask(state)`` for a `brzozowski.automata.dfa.DFA` or a `brzozowski.automata.lazy.LazyDFA` (anything with the
automaton interface: ``start``, ``row(s)``, ``is_accepting(s)``, ``step(s, data)``), over a
`brzozowski.vocab.vocabulary.Vocabulary` built once per tokenizer.

>>> from brzozowski.automata.dfa import regex_to_dfa
>>> from brzozowski.vocab.vocabulary import Vocabulary
>>> vocab = Vocabulary([b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts",
...                     b"x", None, b""], eos_id=13)
>>> index = TokenIndex(regex_to_dfa("(cat|car|dog)s?"), vocab)
>>> [int(t) for t in index.mask(0).nonzero()[0]]
[0, 4, 8, 9, 10]
>>> [int(t) for t in index.mask(5).nonzero()[0]], index.next_state(3, 11)
([7, 13], 6)

How a mask is computed
----------------------
A mask is one *walk* of the vocabulary's byte trie (`brzozowski.vocab.vocabulary.TokenTrie`) from the
state, level by level. A node's automaton state is kept as an int32 *code*, ``(s + 1) * 256``,
with DEAD = 0, so that code + byte is directly the index of the transition in a flat table whose
first row is DEAD -> DEAD (`brzozowski.automata.codes.TransitionTable`). The live nodes of a level (the
*frontier*) are expanded to the next level in one of two vectorized ways:

- *sparse*: only the children of the live nodes: one gather through the table for them. A dead
  node's subtree is never visited, since every token under it starts with a dead prefix.
  Restrictive states (a date, a number, JSON punctuation) touch a few hundred nodes.
- *dense*: when at least 1/`DENSE_FRACTION` of the level above is alive, or the level is small,
  the whole level with one gather (children of dead nodes come out DEAD through the DEAD row,
  without a branch): a few ns per node against ~25 ns per child sparse.

The mask is then either a scatter of the few tokens ending at live nodes, or one gather of node
liveness over the vocabulary. Over a `LazyDFA` the table is filled with ``automaton.row(s)`` the
first time a frontier holds state s; over a `DFA` it is the complete ``trans`` table, re-coded.

Five shortcuts keep masks the same and make them cheaper:

- **Strings.** A state that behaves as the inside of a JSON string (checked against the automaton,
  `brzozowski.json.string_masks`) gets its mask from a per-vocabulary table plus a walk of only the
  tokens that reach past the closing quote: tens to hundreds of microseconds instead of a dense
  walk of the whole trie. Those past the quote are one mask per set of rests that live on from
  the state after the string, kept per vocabulary (`TokenIndex._past_mask`): the next string
  followed by the same bytes, in this document or another schema's, ORs it into the table's.
  Over a `LazyDFA`, a string as `brzozowski.json.strings.string_term` writes it is recognized by
  its state's term (no state inside it is created), and per-token character counts apply a
  length bound. A state whose quote opens such a string (a value that
  may be a string) takes the tokens that begin with the quote from the tables of the string's
  state before its opening quote, and walks only the others (`TokenIndex._opening_mask`). A state
  inside a ``format``'s string is a leaf's state followed by what comes after the string
  (`brzozowski.automata.leaves`): the leaf state's tables, per vocabulary and shared by every schema that
  names the format, give its mask the same way (`TokenIndex._leaf_mask`); so do the states of a
  number without keywords and of a bounded integer (leaves too). A value that may be one of
  several such (an integer or null, a string or an integer) is the union of its options' masks
  (`TokenIndex._options_mask`; beside a string, of the options other than it). Where a bitmask
  is asked for, these masks are composed packed: the tables' ``inside`` as a bitmask, the few
  tokens past the quote set by byte; a leaf that reads many tokens whole (a number's first
  digits) its kept bitmask of those (`brzozowski.json.leaf_masks.leaf_inside_bits`), and a union of
  options a bitmask too.
- **Keys.** A state at or inside an open object's key (listed names, then any other plain-ASCII
  key) gets its mask from the per-vocabulary plain-key tables
  (`brzozowski.json.string_masks.key_tables`): every token of plain bytes, and the tokens past a plain
  key's quote whose rest lives from the one state after it. Over a `LazyDFA` the state's term
  says which names the other keys leave out and what follows each listed name
  (`TokenIndex._named_key_mask`; the schema compiler registers the trie of other keys it built,
  `brzozowski.json.strings.PLAIN_KEY_TRIES`, so its shape is not checked again): their closing
  quotes are found in the trie by their bytes, and
  no derivative of the state or of any state along the names is taken. Otherwise (a `DFA`, names
  with escapes or UTF-8) a walk in Python follows the listed names' prefixes, checking the claim
  at every node (`TokenIndex._key_mask`).
- **Terms.** Over a `LazyDFA`, the parts of a walk done in plain Python (the first levels, a key
  state's walk, the walk past a closing quote) hold states as terms, not numbers: a node's
  children come from one derivative per derivative class of its term (`_Moves`), or, at a node
  of at most `FEW_CHILDREN` children or for a term that begins with at most that many bytes, from
  one derivative per byte (no classes computed), and a term b·r
  (a property name, a literal: one live byte) goes on to its tail r at once; a child where every
  token ends needs no derivative (it lives iff a term without ``&`` or ``~`` begins with its byte),
  so a value's first bytes past ``":`` cost none (`_expand_below`), nor the leaves below ``,"``
  after a value (`_few_children`). A state is numbered
  (``state_of``, which builds its row of 256 transitions when the numpy levels need it) only when
  the walk hands a level over to numpy: the states inside the names a key state's tokens reach
  into, inside the value after them, and after a string's closing quote are not created. Memos
  are weak, so the index holds the last `RECENT_DERIVATIVES` derivatives its walks computed: the
  advance by the chosen token and the next mask find them.
- **Words.** Over a `LazyDFA`, a state whose term is options that each begin with a byte string
  (a closed object's listed names, enum values, literals) is read along those strings' paths in
  the trie, one option at a time, and what follows each path's end the same way or by a walk in
  Python within a budget (`TokenIndex._literal_mask`): no derivative of the options' union, whose
  every prefix would be a new alternation. No other shortcut serves such a state (a quote among
  its first bytes followed by another byte string: ``":"`` before a value, not a string's opening
  nor an open object's other keys: `_plain_words`), so none is tried first. What follows a number
  and the rests after a string's closing quote are read so too. A state no byte goes on from (a
  document's end) shares one mask per index: EOS alone.
- **Class strings.** Bytes of one class of the pattern's ``byte_classes`` lead everywhere to the
  same states, so the trie of the tokens' class strings (`brzozowski.vocab.vocabulary.class_trie`) can be
  walked instead. Building it costs tens of milliseconds over o200k_base, so an index starts on the
  byte trie and switches once its walks have looked at `CLASS_TRIE_PAYOFF` byte tries' worth of
  nodes (and only when the class trie has at most `COMPRESS_BELOW` of the byte trie's nodes).

Measurements: benchmarks/README.md.

Caching and eviction
--------------------
Masks are computed the first time a state is asked for and kept in a least-recently-used cache
(`_MaskCache`) bounded in bytes (``cache_bytes``, the sum of ``ndarray.nbytes`` of the cached
masks and bitmasks). ``bitmask(s)`` keeps only the packed bits (25 kB over o200k_base), ``mask(s)`` the bool
mask (200 kB), unpacked from the bits when they are cached. When the budget is exceeded the least recently used entry is evicted; an evicted mask
is simply recomputed on its next request, and the result is always the same (the automaton and
the vocabulary are immutable), so eviction costs time, never correctness. A mask larger than the
whole budget is computed and returned but not cached.

Thread safety: one index may be shared between threads. Cache reads and writes happen under a
lock; mask computations are serialized by a second lock (they also grow the local rows of a lazy
automaton), so a thread asking for a cached mask never waits for another thread's walk.

Reference: Willard & Louf, "Efficient Guided Generation for Large Language Models" (2023) for the
per-state index idea.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..core.alphabet import ALL_BYTES, DEAD, Automaton, ByteClasses, partition_of
from ..automata.codes import TransitionTable
from ..core.derivatives import derivative, derivative_classes, derivative_of_string
from ..errors import InputTypeError, MaskError, StateError, TokenError, VocabularyError
from ..json.strings import PLAIN_KEY_BITS, PLAIN_KEY_TRIES
from ..automata.lazy import is_empty
from ..json.leaf_masks import NUMERAL_BITS, WIDE_LEAF_BYTES, leaf_exits, leaf_inside_bits, leaf_tables, numeral_leaf
from ..json.string_masks import (StringTables, count_bound_bits, count_tables, kept_in_cache, key_tables, kept_on,
                           over_bound, packed, packed_ids, quote_suffixes, recognize, recognize_counted,
                           set_bits, string_automaton, string_tables)
from ..core.terms import EMPTY, EPSILON, K_ALT, K_BYTES, K_CONCAT, K_LEAF, K_STAR, Term, alt, byte_set, concat, star
from ..vocab.vocabulary import TokenTrie, VocabTrie, Vocabulary, checked_eos, shared_class_trie, vocab_trie

if TYPE_CHECKING:
    from ..automata.leaves import LeafAutomaton

__all__ = ["DEFAULT_CACHE_BYTES", "DENSE_FRACTION", "TokenIndex"]

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""Default mask-cache budget: 256 MiB holds about 1,300 bool masks over o200k_base (200 kB each),
far more states than a long generation visits; pass ``cache_bytes`` to change it."""

DENSE_FRACTION = 8
"""A level is expanded densely when at least 1/DENSE_FRACTION of the level above is alive
(measured: a dense node costs about a fifth of a sparse one)."""

SMALL_TRIE = 1 << 16
"""Tries with at most this many nodes (class-string tries of simple patterns) record liveness in one
array from the start of a walk."""

SMALL_LEVEL = 1024
"""Levels this small are always expanded densely: a handful of numpy calls, whatever is alive."""

NEXT_STATE_MEMO = 1 << 16
"""How many (state, token) -> next state results `TokenIndex.next_state` remembers (a few MB); when
full, the memo is cleared and refilled on demand."""

CLASS_TRIE_PAYOFF = 32
"""An index switches to the class-string trie once its walks have looked at this many byte tries'
worth of nodes (building the class trie costs about as much as 30 dense walks of the byte trie)."""

COMPRESS_BELOW = 0.8
"""Walk the class-string trie only when it has at most this fraction of the byte trie's nodes."""

COMPRESS_MAX_CLASSES = 100
"""Patterns with more byte classes than this do not even try the class-string trie (measured: 51
classes still merge o200k_base's 421,661 nodes to 221,719; with hundreds little would merge)."""

PYTHON_FRONTIER = 48
"""A walk proceeds in plain Python while a level has at most this many live nodes ..."""

PYTHON_WORK = 4096
"""... and while it has looked at fewer children than this; then numpy takes over (each numpy call
costs a microsecond or more, a child looked at in Python ~0.1 us)."""

FEW_TOKENS = 256
"""A walk that ends in plain Python with at most this many allowed tokens sets them one by one
(a bool array over the vocabulary and its packing cost ~20 us)."""

_EXPANSIONS = ("auto", "sparse", "dense")
_NO_CODES = np.zeros(0, dtype=np.int32)
_PLAIN_KEY_AND_QUOTE = PLAIN_KEY_BITS | 1 << 0x22
_QUOTE_BIT = 1 << 0x22
_ANY_PLAIN_KEY = star(byte_set(PLAIN_KEY_BITS))  # held here: interned, so compared by identity
_TRIES = ("auto", "bytes", "classes")
_UNSEEN = object()

KEY_WORK = 20_000
"""The most children `TokenIndex._key_mask` looks at in Python before it gives the state back to
the usual walk (a key state's walk looks at a few thousand: the listed names' prefixes)."""


class _MaskCache:
    """Arrays by int key, bounded by the sum of their ``nbytes``, least recently used out first:
    `cachetools.LRUCache` with ``getsizeof=nbytes``, at a fraction of its cost per call (a miss
    and a store cost ~5 us there, once per new state; a hit ~0.8 us, once per step). The caller
    holds a lock around each call and stores no array larger than the budget."""

    __slots__ = ("budget", "currsize", "_entries")

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.currsize = 0
        self._entries: OrderedDict[int, np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: int) -> np.ndarray | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def __setitem__(self, key: int, value: np.ndarray) -> None:
        entries = self._entries
        old = entries.pop(key, None)
        if old is not None:
            self.currsize -= old.nbytes
        self.currsize += value.nbytes
        while self.currsize > self.budget:
            self.currsize -= entries.popitem(last=False)[1].nbytes
        entries[key] = value


class _Frontier:
    """The live nodes of one trie level (``lo:lo + size``), in one of two forms: *dense*, a code
    per node of the level (``codes``, DEAD = 0, ``nodes`` None), or *sparse*, the live nodes
    (absolute numbers) and their codes. ``n_live`` counts the live nodes either way."""

    __slots__ = ("codes", "lo", "n_live", "nodes", "size")

    def __init__(self, lo: int, size: int, nodes: np.ndarray | None, codes: np.ndarray,
                 n_live: int) -> None:
        self.lo, self.size, self.nodes, self.codes, self.n_live = lo, size, nodes, codes, n_live

    @classmethod
    def root(cls, state: int) -> _Frontier:
        return cls(0, 1, None, np.full(1, (state + 1) * 256, dtype=np.int32), 1)

    def dense_codes(self) -> np.ndarray:
        """A code per node of the level (spreading a sparse frontier out)."""
        if self.nodes is None:
            return self.codes
        codes = np.zeros(self.size, dtype=np.int32)
        codes[self.nodes - self.lo] = self.codes
        return codes

    def sparse(self) -> tuple[np.ndarray, np.ndarray]:
        """The live nodes (absolute numbers) and their codes (listing a dense frontier's)."""
        if self.nodes is not None:
            return self.nodes, self.codes
        live = np.flatnonzero(self.codes)
        return live + self.lo, self.codes[live]


class _Reached:
    """The live nodes a walk has found: a list of arrays while they are few, one bool per node
    once a large level went dense (or from the start, for a small trie)."""

    def __init__(self, trie: TokenTrie) -> None:
        self.trie = trie
        self.small = trie.n_nodes <= SMALL_TRIE
        self.found: list[np.ndarray] = []
        self.alive = np.zeros(trie.n_nodes + 1, dtype=bool) if self.small else None  # + sentinel

    def add(self, frontier: _Frontier) -> None:
        if frontier.nodes is not None:
            if self.alive is None:
                self.found.append(frontier.nodes)
            else:
                self.alive[frontier.nodes] = True
        elif self.alive is None and frontier.size <= SMALL_LEVEL:
            self.found.append(np.flatnonzero(frontier.codes) + frontier.lo)
        else:
            if self.alive is None:
                self.alive = np.zeros(self.trie.n_nodes + 1, dtype=bool)
                for nodes in self.found:
                    self.alive[nodes] = True
            lo = frontier.lo
            np.not_equal(frontier.codes, 0, out=self.alive[lo:lo + frontier.size])

    def tokens(self) -> np.ndarray:
        """The tokens ending at a live node (a new, writable bool array over the vocabulary)."""
        trie = self.trie
        if self.alive is not None and not self.small:  # a large level went dense: many live
            return self.alive.take(trie.token_node)
        if self.small:
            nodes = np.flatnonzero(self.alive)
        else:
            nodes = np.concatenate(self.found) if self.found else np.zeros(0, dtype=np.intp)
        counts = trie.token_count[nodes]
        total = int(counts.sum())
        if total * 8 > trie.vocab_size:  # many: one gather is cheaper than a scatter
            alive = self.alive
            if alive is None:
                alive = np.zeros(trie.n_nodes + 1, dtype=bool)
                alive[nodes] = True
            return alive.take(trie.token_node)
        mask = np.zeros(trie.vocab_size, dtype=bool)
        if total:
            mask[trie.tokens_at(nodes)[0]] = True
        return mask


def _few_tokens(trie: TokenTrie, nodes: list[int]) -> list[int] | None:
    """The ids of the tokens ending at `nodes`, or None if more than `FEW_TOKENS`."""
    token_lo, token_count, token_ids = trie.token_view()
    ids: list[int] = []
    for node in nodes:
        count = token_count[node]
        if count == 1:  # (a byte trie's node holds one token at most, but for twins)
            ids.append(token_ids[token_lo[node]])
        elif count:
            lo = token_lo[node]
            ids += token_ids[lo:lo + count].tolist()
        else:
            continue
        if len(ids) > FEW_TOKENS:
            return None
    return ids


FEW_BITS = 48
"""`_set_tokens` sets at most this many tokens' bits in a bitmask one by one in Python: a numpy
``bitwise_or.at`` costs ~6 µs however few they are, and 25-40 µs on caches a model's step between
two masks has cooled (40 bits in Python: ~6 µs, ~15 cold)."""


FEW_INNER = 16
"""`_below` derives a term by each live child's byte (not by each of its derivative classes) when
at most this many live children have children of their own (the others need no derivative)."""


FEW_CHILDREN = 4
"""`_expand` derives a term whose moves are not known by each child's byte when the node has at most
this many children, or by each byte the term begins with when it begins with at most this many,
without computing the term's derivative classes (which cost more than a few derivatives for a wide
term: an open object's key after ``,"``, what follows a member's value)."""


PAST_MASKS = 8 * 1024 * 1024
"""How much memory a vocabulary's cache of masks past a closing quote (`TokenIndex._past_mask`)
may hold: a bitmask is 25 kB over o200k_base, a bool mask 200 kB; least recently used first out.
The benchmark corpus's 125 documents build ~110 of them (25 sets of live rests)."""


RECENT_DERIVATIVES = 64
"""The walks in Python hold the last this many derivatives they computed (a term's memoized
derivatives are held weakly, so those of a walk died with it): the advance by the token chosen and
the next state's mask derive the same terms again right after (by the comma and the quote of
what follows a value, for one). All of them kept: the same instructions saved, memory unbounded."""


FEW_PAIRS = 64
"""`_Moves` lists its live (byte, target) pairs when at most this many bytes live (a walk then finds
each among a node's children rather than scanning them)."""


class _Moves:
    """One state's transitions as the walks in plain Python read them: the class of every byte
    (``class_of``, a bytes object), the classes (byte sets, ``classes``), the target of each class
    (``targets``: a state, or None for DEAD), the live bytes (``live``, a 256-bit set) and, when
    few, the live (byte, target) pairs (``pairs``, else None).

    A state is a number over a `brzozowski.automata.dfa.DFA` (the moves read off its row) and a term over a
    `brzozowski.automata.lazy.LazyDFA` (one derivative per derivative class, `_term_moves`): the walks in
    Python then number no state they pass through, and build no row for it."""

    __slots__ = ("class_of", "classes", "live", "pairs", "targets")

    def __init__(self, class_of: bytes, classes: tuple[int, ...], targets: list, live: int) -> None:
        self.class_of, self.classes, self.targets, self.live = class_of, classes, targets, live
        self.pairs: list[tuple[int, object]] | None = None
        if live.bit_count() <= FEW_PAIRS:
            self.pairs = []
            for bits, target in zip(classes, targets):
                if target is not None:
                    _add_pairs(bits, target, self.pairs)


def _add_pairs(bits: int, target: object, pairs: list) -> None:
    """Append (b, target) to `pairs` for every byte b of the set `bits`, ascending."""
    while bits:
        low = bits & -bits
        bits ^= low
        pairs.append((low.bit_length() - 1, target))


def _live_term(term: Term, max_states: int) -> bool:
    """Whether a derivative leads anywhere: not ∅, and (under ``&`` or ``~``) not empty."""
    return term is not EMPTY and not (term.boolean and is_empty(term, max_states))


def _term_moves(term: Term, max_states: int, keep: deque) -> _Moves:
    """The moves of a lazy automaton's state from its term: ∂b term for one byte b of each
    derivative class that `first` holds; ∅ (or an empty language, under ``&`` and ``~``) is DEAD.
    `keep` gets the derivatives computed (`TokenIndex._recent`)."""
    classes = derivative_classes(term)
    first = term.first
    targets: list[Term | None] = []
    live = 0
    for bits in classes:
        target = None
        here = bits & first
        if here:
            derived = derivative(term, (here & -here).bit_length() - 1, keep)
            if _live_term(derived, max_states):
                target = derived
                live |= here
        targets.append(target)
    return _Moves(ByteClasses.of(classes).class_bytes, classes, targets, live)


def _row_moves(row: np.ndarray) -> _Moves:
    """The moves of a numbered state from its row of 256 transitions (bytes grouped by target)."""
    groups: dict[int, int] = {}
    for b, target in enumerate(row.tolist()):
        groups[target] = groups.get(target, 0) | 1 << b
    classes = partition_of(list(groups.values()))
    targets = [int(row[(bits & -bits).bit_length() - 1]) for bits in classes]
    return _Moves(ByteClasses.of(classes).class_bytes, classes,
                  [None if target == DEAD else target for target in targets],
                  ALL_BYTES ^ groups.get(DEAD, 0))


def _children_with(bits: int, labels: bytes, lo: int, count: int) -> list[int]:
    """The children ``lo:lo + count`` of a node (their bytes in `labels`, ascending) whose byte is in
    the 256-bit set `bits`, ascending: each byte found among the labels (for a few bytes)."""
    children = []
    while bits:
        low = bits & -bits
        bits ^= low
        child = labels.find(low.bit_length() - 1, lo, lo + count)
        if child >= 0:
            children.append(child)
    return children


def _byte_flags(bits: int) -> np.ndarray:
    """A 256-bit set as a bool per byte."""
    return np.unpackbits(np.frombuffer(bits.to_bytes(32, "little"), dtype=np.uint8),
                         bitorder="little").view(bool)


def _set_tokens(mask: np.ndarray, ids: Sequence[int] | np.ndarray) -> None:
    """Allow the tokens `ids` in `mask`: a bool array over the vocabulary, or a bitmask (int32
    words, `brzozowski.json.string_masks.packed`), its bits set by byte: in Python for at most
    `FEW_BITS` ids (a listed name's tokens, a leaf's exits), by one `bitwise_or.at` for more (a
    table path's tokens past a closing quote, a few hundred at most), or through a bool array if
    many."""
    if mask.dtype == bool:
        mask[ids] = True
        return
    if len(ids) <= FEW_BITS:
        by_byte = memoryview(mask).cast("B")
        for t in ids if ids.__class__ is list else ids.tolist():
            by_byte[t >> 3] |= 1 << (t & 7)  # bit t % 32 of little-endian word t // 32
        return
    ids = np.asarray(ids, dtype=np.intp)
    if 16 * len(ids) > 8 * mask.nbytes:  # (one in 16 of the vocabulary: scatter, then pack)
        many = np.zeros(8 * mask.nbytes, dtype=bool)
        many[ids] = True
        mask |= packed(many)
    elif len(ids):
        set_bits(mask.view(np.uint8), ids)


def _add_tokens(mask: np.ndarray, other: np.ndarray | list[int]) -> None:
    """Allow in `mask` (a bool array over the vocabulary, or a bitmask) the tokens of `other`: a
    list of ids, a mask of the same kind, or a bool mask into a bitmask (packed first)."""
    if other.__class__ is list:
        _set_tokens(mask, other)
    elif other.dtype != mask.dtype:
        mask |= packed(other)
    else:
        mask |= other


def _listed_name(option: Term) -> tuple[bytes, Term] | None:
    """(w, Tw) if `option` is a listed name of a key state, ``w"·Tw`` (w plain key bytes one by one),
    else None."""
    head, rest = _split(option)
    name = bytearray()
    while head.kind == K_BYTES and head.bits & (head.bits - 1) == 0 and head.bits & PLAIN_KEY_BITS:
        name.append(head.bits.bit_length() - 1)
        head, rest = _split(rest)
    if head.kind != K_BYTES or head.bits != _QUOTE_BIT:
        return None
    return bytes(name), rest


def _clear_tokens(mask: np.ndarray, ids: np.ndarray) -> None:
    """Leave the tokens `ids` out of `mask`: a bool array over the vocabulary, or a bitmask (int32
    words, `brzozowski.json.string_masks.packed`), its bits cleared by byte."""
    if mask.dtype == bool:
        mask[ids] = False
    elif len(ids):
        np.bitwise_and.at(mask.view(np.uint8), ids >> 3, ~np.left_shift(1, ids & 7).astype(np.uint8))


def _options_of(term: Term) -> tuple[tuple[Term, ...], Term | None] | None:
    """(options, T or None) if `term` is ``o₁ | … | oₖ``, possibly all followed by T, or one option
    that begins with a single byte, and holds no ``&`` or ``~``; else None."""
    if term.boolean:
        return None
    if term.kind == K_ALT:
        return term.children, None
    if term.kind == K_CONCAT and term.children[0].kind == K_ALT:
        return term.children[0].children, term.children[1]
    return ((term,), None) if _is_word(term) else None


def _is_word(term: Term) -> bool:
    """Whether `term` begins with a single byte (a byte string's first: ``b`` or ``b·r``)."""
    head = term.children[0] if term.kind == K_CONCAT else term
    return head.kind == K_BYTES and not head.bits & (head.bits - 1)


def _literal_options(term: Term) -> tuple[tuple[Term, ...], Term | None] | None:
    """`_options_of` if every option begins with a single byte; else None."""
    split = _options_of(term)
    return split if split is not None and all(_is_word(option) for option in split[0]) else None


def _plain_words(term: Term) -> bool:
    """Whether `term` is options that each begin with a byte string, and a quote among their first
    bytes is followed by another byte string (a closed object's key, ``":"`` then a value): none
    opens a string, nor an open object's other keys."""
    split = _literal_options(term)
    if split is None:
        return False
    if term.first & _QUOTE_BIT:
        for option in split[0]:
            head, tail = _split(option)
            if head.bits == _QUOTE_BIT and (tail is EPSILON or not _is_word(tail)):
                return False
    return True


def _loops_on(term: Term, b: int) -> bool:
    """Whether ∂b term is `term` itself, known without deriving it: ``S*·T`` where T does not begin
    with b and ∂b S is ε, as S's memo already says (a string's body by a character of one byte:
    past ``":"`` the string's term is read by such bytes below the path's end)."""
    if term.kind != K_CONCAT:
        return False
    head, tail = term.children
    if head.kind != K_STAR or (tail.first >> b) & 1:
        return False
    memo = head.children[0].derivatives
    ref = None if memo is None else memo.get(b)
    return ref is not None and ref() is EPSILON


def _split(term: Term) -> tuple[Term, Term]:
    """A term as head and tail: a concatenation's two children, else the term and ε."""
    return term.children if term.kind == K_CONCAT else (term, EPSILON)


def _key_children(term: Term) -> dict[int, Term] | None:
    """If `term` is one node of a trie of plain keys (as `_plain_keys_except` of
    `brzozowski.json.compiler` builds it), its children by byte; else None. A node is ε or not,
    and options ``S·[plain]*`` (S a set of plain bytes: the keys that leave the trie) and ``c·child``
    (c one plain byte), every plain byte in exactly one S or c; or ``[plain]*`` itself (no child).
    Its language is then every plain key but a finite set of names: ε if the node is not ε (a name
    ends there), and c·(the names of child c)."""
    if term is _ANY_PLAIN_KEY:
        return {}
    leaving = child_bits = 0
    children: dict[int, Term] = {}
    for option in term.children if term.kind == K_ALT else (term,):
        if option is EPSILON:
            continue
        if option.kind != K_CONCAT:
            return None
        head, rest = option.children
        bits = head.bits
        if head.kind != K_BYTES or bits & ~PLAIN_KEY_BITS:
            return None
        if rest is _ANY_PLAIN_KEY:
            leaving |= bits
        elif bits & (bits - 1) == 0 and not bits & child_bits:
            children[bits.bit_length() - 1] = rest
            child_bits |= bits
        else:
            return None
    if leaving & child_bits or leaving | child_bits != PLAIN_KEY_BITS:
        return None
    return children


class TokenIndex:
    """Masks and next states of one vocabulary over one automaton (see the module docstring).

    `automaton`: a DFA or LazyDFA. `vocabulary`: a `Vocabulary` (built once per tokenizer: this
    index then costs microseconds), or the token list itself (token id -> bytes, or None for a
    token that is never allowed) or a `VocabTrie`, with `eos_id` beside it. `eos_id`: the
    end-of-sequence token, allowed exactly in accepting states (its bytes, if any, are ignored);
    with a `Vocabulary`, leave it out (or pass the vocabulary's own). `cache_bytes`: the mask
    cache budget in bytes.
    """

    def __init__(
        self,
        automaton: Automaton,
        vocabulary: Vocabulary | Sequence[bytes | None] | VocabTrie,
        eos_id: int | None = None,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        for name in ("start", "row", "is_accepting", "step"):
            if not hasattr(automaton, name):
                raise InputTypeError(
                    f"{automaton!r:.80} ({type(automaton).__name__}) is not an automaton: it has no "
                    f"{name!r} (pass a brzozowski DFA or LazyDFA)"
                )
        self.automaton = automaton
        if isinstance(vocabulary, Vocabulary):
            if eos_id is not None and checked_eos(eos_id, len(vocabulary)) != vocabulary.eos_id:
                raise VocabularyError(
                    f"eos_id {eos_id} differs from the vocabulary's own ({vocabulary.eos_id}): "
                    "leave eos_id out when passing a Vocabulary"
                )
        else:
            trie = vocab_trie(vocabulary)
            vocabulary = Vocabulary(trie, checked_eos(eos_id, trie.vocab_size))
        self.vocabulary = vocabulary
        self.trie: VocabTrie = vocabulary.trie
        self.vocab_size = self.trie.vocab_size
        self.eos_id = vocabulary.eos_id
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
            raise MaskError(f"cache_bytes must be a non-negative int, not {cache_bytes!r}")
        self.cache_bytes = cache_bytes
        self._cache = _MaskCache(cache_bytes)
        self._cache_lock = threading.Lock()
        self._walk_lock = threading.Lock()
        self._table = TransitionTable(automaton)
        self.walked_trie: TokenTrie = self.trie
        """The trie walks go through: the byte trie, or the pattern's class-string trie."""
        self._expansion, self._trie_choice, self._strings = "auto", "auto", True
        self._walked_nodes = 0  # nodes of the byte trie looked at by walks (class-trie payoff)
        self._class_trie_tried = False
        self._string_states: dict[int, tuple | None] = {}  # state -> `_string_state`
        self._state_of = getattr(automaton, "state_of", None)  # a LazyDFA: walks in Python hold terms
        self._move_memo: dict = {}  # state (a number, or a lazy automaton's term) -> `_Moves`
        self._recent: deque[Term] = deque(maxlen=RECENT_DERIVATIVES)  # (see RECENT_DERIVATIVES)
        self._known_states = int(automaton.n_states)  # states below this exist (lazy: grows)
        self._next_memo: dict[int, int] = {}  # state * V + token -> next state (dict ops are atomic)
        self.walks = 0  # how many masks were computed (cache misses): for tests and benchmarks
        self.string_masks = 0  # how many of them came from the JSON-string tables
        self.leaf_masks = 0  # how many from a leaf's tables (brzozowski.json.leaf_masks)
        self.key_masks = 0  # how many from the plain-key tables (inside an open object's key)
        self._key_steps: dict = {}  # state -> `_key_step` (inside open objects' keys)
        self._key_afters: dict = {}  # state -> `_key_after`
        self._key_nodes: dict = {}  # term -> `_key_node`
        self._listed_names: dict = {}  # option -> `_listed_name` (a key state's listed names)
        self._handled: dict = {}  # (O, start) -> `_names_closing`
        self._rests: dict = {}  # state (a number, or a term) -> `_live_rests` (past a closing quote)
        self._after_leaves: dict = {}  # term -> `_after_leaf`

    def set_strategy(self, expansion: str = "auto", trie: str = "auto", strings: bool = True) -> None:
        """Force how masks are computed (for tests, benchmarks and notebooks: the masks are the
        same whatever the choice). `expansion`: "auto" (plain Python while few nodes are alive,
        then sparse or dense per level), "sparse" or "dense" (numpy from the root).
        `trie`: "auto" (bytes, then classes once they pay off), "bytes", or "classes" (needs an
        automaton that knows its ``byte_classes``). `strings`: use the JSON-string and plain-key tables."""
        if expansion not in _EXPANSIONS:
            raise MaskError(f"expansion must be one of {_EXPANSIONS}, not {expansion!r}")
        if trie not in _TRIES:
            raise MaskError(f"trie must be one of {_TRIES}, not {trie!r}")
        walked = self.trie
        if trie == "classes":
            classes = getattr(self.automaton, "byte_classes", None)
            if classes is None:
                raise MaskError("trie='classes' needs a DFA or a LazyDFA (their byte classes)")
            walked = shared_class_trie(self.trie, classes)
        with self._walk_lock:
            self._expansion, self._trie_choice, self._strings = expansion, trie, bool(strings)
            self.walked_trie = walked

    def __repr__(self) -> str:
        return (
            f"TokenIndex({type(self.automaton).__name__}, vocab_size={self.vocab_size}, "
            f"eos_id={self.eos_id}, cached={len(self._cache)})"
        )

    # -- masks -----------------------------------------------------------------------------------

    def mask(self, state: int) -> np.ndarray:
        """The allowed tokens in `state`: a read-only bool array of length vocab_size."""
        state = self._check_state(state)
        key = 2 * state  # cache keys: 2s for the mask of s, 2s + 1 for its bitmask (no tuples)
        found = self._cached(key)
        if found is None:
            with self._walk_lock:
                found = self._cached(key)
                if found is None:
                    bits = self._cached(key + 1)
                    found = self._compute(state, False) if bits is None else self._unpack(bits)
                    self._store(key, found)
        return found

    def bitmask(self, state: int) -> np.ndarray:
        """The mask packed in int32 words: token t is bit t % 32 of word t // 32 (read-only).

        Only the bits are cached (a bool mask computed for them is not): an engine that asks
        for bitmasks alone keeps 1/8 of the memory per state."""
        state = self._check_state(state)
        key = 2 * state + 1
        found = self._cached(key)
        if found is None:
            with self._walk_lock:
                found = self._cached(key)
                if found is None:
                    mask = self._cached(key - 1)
                    found = self._compute(state, True) if mask is None else packed(mask)
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
                found = int(self.automaton.step(state, data)) if data else DEAD
            if len(self._next_memo) >= NEXT_STATE_MEMO:
                self._next_memo.clear()  # a crude bound: results never change, only speed does
            self._next_memo[key] = found
        return found

    def check_token(self, token_id: int) -> int:
        """`token_id` as an int inside the vocabulary; `TokenError` otherwise."""
        if type(token_id) is int and 0 <= token_id < self.vocab_size:  # the fast, usual case
            return token_id
        if isinstance(token_id, bool) or not isinstance(token_id, (int, np.integer)):
            raise TokenError(f"a token id is an int, not {token_id!r}")
        token_id = int(token_id)
        if not 0 <= token_id < self.vocab_size:
            raise TokenError(
                f"token id {token_id} is outside the vocabulary (ids 0..{self.vocab_size - 1})"
            )
        return token_id

    def is_accepting(self, state: int) -> bool:
        """Whether `state` accepts (the text so far is in the language)."""
        return bool(self.automaton.is_accepting(self._check_state(state)))

    @property
    def start(self) -> int:
        """The automaton's start state."""
        return int(self.automaton.start)

    def cache_info(self) -> dict[str, int]:
        """The mask cache (entries, bytes, budget), how many masks were computed (``walks``; of
        them ``string_masks`` from the JSON-string tables, ``key_masks`` from the plain-key tables
        and ``leaf_masks`` from a leaf's), and the memory of the shared byte trie, of the
        class-string trie walked (0 if none), of the table."""
        with self._cache_lock:
            return {"entries": len(self._cache), "bytes": int(self._cache.currsize),
                    "budget": self.cache_bytes, "walks": self.walks,
                    "string_masks": self.string_masks, "key_masks": self.key_masks,
                    "leaf_masks": self.leaf_masks,
                    "trie_bytes": self.trie.nbytes,
                    "class_trie_bytes": (self.walked_trie.nbytes
                                         if self.walked_trie is not self.trie else 0),
                    "table_bytes": self._table.table.nbytes}

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

    def _cached(self, key: int) -> np.ndarray | None:
        with self._cache_lock:
            return self._cache.get(key)

    def _unpack(self, bits: np.ndarray) -> np.ndarray:
        mask = np.unpackbits(bits.view(np.uint8), count=self.vocab_size, bitorder="little").view(bool)
        mask.setflags(write=False)
        return mask

    def _store(self, key: int, value: np.ndarray) -> None:
        with self._cache_lock:
            if value.nbytes <= self.cache_bytes:
                self._cache[key] = value

    def _compute(self, state: int, bits: bool) -> np.ndarray:
        """The mask of `state` (its bitmask if `bits`), from the JSON-string tables or by a walk
        (caller holds the walk lock); read-only."""
        mask = None
        term = self.automaton.term(state) if self._state_of is not None else None
        if term is not None and not term.first:  # no byte goes on (a document's end: it accepts)
            self.walks += 1
            # EOS alone: one read-only array per vocabulary, for every such state of every schema
            return kept_on(self.trie, ("end-mask", self.eos_id, bits),
                           lambda: (self._from_ids([], True, bits),))[0]
        if term is not None and self._strings and _plain_words(term):  # (no other shortcut serves it)
            mask = self._literal_mask(state)
        elif self._strings:  # (a key state's structure first: it needs no derivative of the state)
            mask = self._named_key_mask(state, bits)
            if mask is None:
                mask = self._leaf_mask(state, bits)
            if mask is None:
                string = self._string_state(state)
                if string is not None:
                    mask = self._string_mask(*string, bits=bits)
                    self.string_masks += 1
                else:
                    mask = self._key_mask(state, bits)
                    if mask is None:
                        mask = self._opening_mask(state, bits)
                    if mask is None:
                        mask = self._literal_mask(state)
                    if mask is None and term is not None:
                        split = _options_of(term)
                        if split is not None and len(split[0]) > 1:
                            mask = self._options_mask(*split, bits)
        if mask is None:
            mask = self._walk(state)
        self.walks += 1
        accepting = bool(self.automaton.is_accepting(state))
        if mask.__class__ is list:
            return self._from_ids(mask, accepting, bits)
        if mask.dtype != bool:  # already a bitmask (from the tables' packed ``inside``)
            if self.eos_id is not None:
                eos, by_byte = self.eos_id, memoryview(mask).cast("B")
                bit = 1 << (eos & 7)
                by_byte[eos >> 3] = by_byte[eos >> 3] & ~bit | (bit if accepting else 0)
            mask.setflags(write=False)
            return mask
        if self.eos_id is not None:
            mask[self.eos_id] = accepting
        if bits:
            return packed(mask)
        mask.setflags(write=False)
        return mask

    def _from_ids(self, ids: list[int], accepting: bool, bits: bool) -> np.ndarray:
        """The mask (or bitmask) of a few allowed token ids, with EOS as `accepting` says: set
        by `_set_tokens`, not through a bool array over the vocabulary packed for a bitmask."""
        eos = self.eos_id
        if eos is not None:
            if eos in ids:
                ids = [t for t in ids if t != eos]
            if accepting:
                ids.append(eos)
        if bits:
            out = np.zeros(-(-self.vocab_size // 32), dtype=np.int32)
        else:
            out = np.zeros(self.vocab_size, dtype=bool)
        if ids:
            _set_tokens(out, ids)
        out.setflags(write=False)
        return out

    def _walk(self, state: int, skip: int = -1) -> np.ndarray | list[int]:
        """The tokens allowed in `state`, by one level-by-level walk of the trie from its root:
        in plain Python while the frontier is small, then vectorized. A walk that ended in Python
        with at most `FEW_TOKENS` tokens gives their ids as a list. `skip`: a first byte whose
        tokens are left out (answered otherwise: `_opening_mask`)."""
        trie = self.walked_trie if skip >= 0 else self._trie_to_walk()
        depth, frontier, work, found = self._walk_few(trie, state, skip)
        ids = _few_tokens(trie, found) if frontier is None else None
        if ids is None:
            reached = _Reached(trie)
            if found:
                reached.add(_Frontier(0, 0, np.array(found, dtype=np.intp), _NO_CODES, len(found)))
            for view in trie.level_views[depth:] if frontier is not None else ():
                if self._dense_next(frontier, view):
                    frontier = self._expand_dense(frontier, view)
                    work += frontier.size
                else:
                    frontier = self._expand_sparse(trie, frontier, view)
                    work += frontier.n_live
                if frontier.n_live == 0:
                    break
                reached.add(frontier)
        if trie is self.trie:
            self._walked_nodes += work
        return reached.tokens() if ids is None else ids

    def _walk_few(self, trie: TokenTrie, state: int,
                  skip: int = -1) -> tuple[int, _Frontier | None, int, list[int]]:
        """Walk in plain Python from the root while levels have few live nodes (restrictive
        states: JSON punctuation, property names, numbers), each node's children by `_expand`, over
        a lazy automaton on terms (see the module docstring). Returns (depth, None, work, found)
        when the walk is over, or (d, the frontier at level d, work, found) to hand over to the
        vectorized levels (its states numbered then); work counts the children looked at, found
        lists the live nodes below the root met so far."""
        if self._expansion != "auto":
            return 0, _Frontier.root(state), 0, []
        labels, child_lo, child_count = trie.python_view()
        nodes, states, found = [0], [self._walk_state(state)], []
        depth = work = 0
        while nodes:
            if len(nodes) > PYTHON_FRONTIER or work > PYTHON_WORK:
                lo = int(trie.level_start[depth])
                state_of = self._state_of
                if state_of is None:
                    numbers = states
                else:  # each distinct state numbered once, in order of first appearance
                    numbered = dict.fromkeys(states)
                    for s in numbered:
                        numbered[s] = DEAD if s is None else state_of(s)  # (None: a leaf, `_few_children`)
                    numbers = [numbered[s] for s in states]
                codes = (np.array(numbers, dtype=np.int32) + 1) * 256
                frontier = _Frontier(lo, int(trie.level_start[depth + 1]) - lo,
                                     np.array(nodes, dtype=np.intp), codes, len(nodes))
                break
            next_nodes: list = []
            next_states: list = []
            for node, s in zip(nodes, states):
                count = child_count[node]
                if count:
                    work += self._expand(s, child_lo[node], count, labels, next_nodes, next_states, child_count)
            if depth == 0 and skip >= 0:  # the root's child of that byte left out, with its subtree
                kept = [i for i, node in enumerate(next_nodes) if labels[node] != skip]
                next_nodes, next_states = [next_nodes[i] for i in kept], [next_states[i] for i in kept]
            found += next_nodes
            nodes, states = next_nodes, next_states
            depth += 1
        else:
            frontier = None
        return depth, frontier, work, found

    def _walk_state(self, state: int | Term) -> int | Term:
        """How the walks in Python hold `state`: its term over a lazy automaton, else its number
        (a term given is held as it is)."""
        if self._state_of is None or state.__class__ is not int:
            return state
        return self.automaton.term(state)

    def _expand(self, s: int | Term, lo: int, count: int, labels: bytes, nodes: list, states: list,
                child_count: Sequence[int] | None = None) -> int:
        """Append to `nodes` and `states` the children of a node in state `s` (its children are
        ``lo:lo + count``, their bytes in `labels`) that `s` does not send to DEAD, with their
        states. A term b·r (a property name, a literal: one live byte) goes on to r at once; a term
        whose moves are not known is derived by each child's byte when the node has at most
        `FEW_CHILDREN` children or far fewer than the term has derivative classes (`_few_children`),
        and by each byte it begins with when those are at most `FEW_CHILDREN` (`_first_bytes`);
        otherwise, from its `_moves`, each byte `s` allows is found
        among the sorted labels (``bytes.find``) when it allows fewer than the node has children,
        else the children are scanned. On a class trie a label is the lowest byte of its class, so
        finding every allowed byte finds exactly the allowed classes. Given the trie's
        `child_count`, a child without children of its own gets no derivative from
        `_few_children` and `_first_bytes` (its state is None: it is never expanded). Returns how
        many children were looked at."""
        if s.__class__ is not int and s.kind == K_CONCAT:
            head = s.children[0]
            if head.kind == K_BYTES and head.bits & (head.bits - 1) == 0:
                child = labels.find(head.bits.bit_length() - 1, lo, lo + count)
                if child >= 0:
                    nodes.append(child)
                    states.append(s.children[1])
                return 1
        moves = self._move_memo.get(s)
        if moves is None:
            if s.__class__ is not int:
                leaves = None if s.boolean else child_count  # (a term with & or ~ may derive to nothing)
                if count <= FEW_CHILDREN:
                    return self._few_children(s, lo, count, labels, nodes, states, leaves)
                if s.first.bit_count() <= FEW_CHILDREN:
                    return self._first_bytes(s, lo, count, labels, nodes, states, leaves)
                if 2 * count < len(derivative_classes(s)):
                    return self._few_children(s, lo, count, labels, nodes, states, leaves)
            moves = self._moves(s)
        pairs = moves.pairs
        if pairs is not None and len(pairs) < count:
            for b, target in pairs:
                child = labels.find(b, lo, lo + count)
                if child >= 0:
                    nodes.append(child)
                    states.append(target)
            return len(pairs)
        class_of, targets = moves.class_of, moves.targets
        for child in range(lo, lo + count):
            target = targets[class_of[labels[child]]]
            if target is not None:
                nodes.append(child)
                states.append(target)
        return count

    def _few_children(self, term: Term, lo: int, count: int, labels: bytes, nodes: list, states: list,
                      leaves: Sequence[int] | None = None) -> int:
        """`_expand` for a node of at most `FEW_CHILDREN` children, or of far fewer than its
        term's derivative classes (past a quote, a value's first bytes): the derivative by each
        child's byte, not one per class (nor are the moves kept). `leaves`: the trie's child
        counts, for a term without ``&`` or ``~`` (which derives to ∅ exactly by the bytes outside
        its `first`): a child without children lives iff the term begins with its byte, and gets
        no derivative (its state is None; after a value, ``,"`` is followed by leaves only)."""
        first = term.first
        max_states = self.automaton.max_states
        for child in range(lo, lo + count):
            b = labels[child]
            if (first >> b) & 1:
                if leaves is not None and not leaves[child]:
                    nodes.append(child)
                    states.append(None)
                    continue
                derived = derivative(term, b, self._recent)
                if _live_term(derived, max_states):
                    nodes.append(child)
                    states.append(derived)
        return count

    def _first_bytes(self, term: Term, lo: int, count: int, labels: bytes, nodes: list, states: list,
                     leaves: Sequence[int] | None = None) -> int:
        """`_expand` for a term that begins with at most `FEW_CHILDREN` bytes: each of them found
        among the labels, and the term derived by it; no derivative classes computed (nor moves
        kept). `leaves`: as in `_few_children`."""
        max_states = self.automaton.max_states
        for child in _children_with(term.first, labels, lo, count):
            if leaves is not None and not leaves[child]:
                nodes.append(child)
                states.append(None)
                continue
            derived = derivative(term, labels[child], self._recent)
            if _live_term(derived, max_states):
                nodes.append(child)
                states.append(derived)
        return term.first.bit_count()

    def _expand_below(self, term: int | Term, lo: int, count: int, labels: bytes, child_count: Sequence[int],
                      nodes: list, states: list) -> int:
        """`_expand` for `_below`, where only the children with children of their own need a
        state: of a term without ``&`` or ``~`` (which derives to ∅ exactly by the bytes outside
        its `first`) whose moves are not known, a child where every token ends lives iff the term
        begins with its byte, no derivative taken (its state is None), and the others are derived
        by their byte, or by class past `FEW_INNER` of them. At a node of many children where the
        term begins with few bytes (a quote's node, the value after it), those bytes are found
        among the labels rather than every child looked at."""
        if term.__class__ is not Term or term.boolean or _is_word(term) or term in self._move_memo:
            return self._expand(term, lo, count, labels, nodes, states)
        first = term.first
        children: Sequence[int] = range(lo, lo + count)
        if first.bit_count() < count // 8:  # a wide node, few bytes allowed: each found
            children = _children_with(first, labels, lo, count)
        start, inner = len(nodes), 0
        for child in children:
            b = labels[child]
            if (first >> b) & 1:
                if child_count[child]:
                    inner += 1
                    if inner > FEW_INNER:  # a wide node: one derivative per class instead
                        del nodes[start:], states[start:]
                        return self._expand(term, lo, count, labels, nodes, states)
                    states.append(term if _loops_on(term, b) else derivative(term, b, self._recent))
                else:
                    states.append(None)
                nodes.append(child)
        return count

    def _moves(self, s: int | Term) -> _Moves:
        """The moves of `s` (a state number, or a lazy automaton's term), kept per index."""
        found = self._move_memo.get(s)
        if found is None:
            if s.__class__ is int:
                found = _row_moves(self.automaton.row(s))
            else:
                found = _term_moves(s, self.automaton.max_states, self._recent)
            self._move_memo[s] = found
        return found

    def _dense_next(self, frontier: _Frontier, view: tuple[int, int, np.ndarray, np.ndarray]) -> bool:
        """Whether to expand the next level densely: a dense node costs ~3 ns, a sparse child
        ~25 ns plus more calls per level."""
        if self._expansion != "auto":
            return self._expansion == "dense"
        lo, hi = view[0], view[1]
        return frontier.n_live * DENSE_FRACTION >= frontier.size or hi - lo <= SMALL_LEVEL

    def _expand_dense(self, frontier: _Frontier,
                      view: tuple[int, int, np.ndarray, np.ndarray]) -> _Frontier:
        """Every node of the next level, with its code (DEAD = 0): one gather through the table."""
        lo, hi, local_parent, level_bytes = view
        index = frontier.dense_codes().take(local_parent)
        index += level_bytes
        flat = self._table.ensure(index)
        codes = flat.take(index, mode="clip")
        return _Frontier(lo, hi - lo, None, codes, int(np.count_nonzero(codes)))

    def _expand_sparse(self, trie: TokenTrie, frontier: _Frontier,
                       view: tuple[int, int, np.ndarray, np.ndarray]) -> _Frontier:
        """The live children of the frontier's live nodes, with their codes."""
        lo, hi = view[0], view[1]
        nodes, codes = frontier.sparse()
        children, counts = trie.children_of(nodes)
        children, codes = self._step(trie, children, np.repeat(codes, counts))
        return _Frontier(lo, hi - lo, children, codes, len(children))

    def _step(self, trie: TokenTrie, children: np.ndarray,
              parent_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The live ones of `children` and their codes, given their parents' codes."""
        flat = self._table.ensure(parent_codes)
        index = parent_codes + trie.byte[children]
        found = flat[index]
        alive = found.nonzero()[0]
        return children[alive], found[alive]

    def _trie_to_walk(self) -> TokenTrie:
        """The byte trie, or the class-string trie once the walks have paid for it."""
        if (self._trie_choice == "auto" and not self._class_trie_tried
                and self._walked_nodes >= CLASS_TRIE_PAYOFF * self.trie.n_nodes):
            self._class_trie_tried = True  # whatever the outcome: decided once
            classes = getattr(self.automaton, "byte_classes", None)
            if classes is not None and classes.max() < COMPRESS_MAX_CLASSES:
                merged = shared_class_trie(self.trie, classes)
                if merged.n_nodes <= COMPRESS_BELOW * self.trie.n_nodes:
                    self.walked_trie = merged
        return self.walked_trie

    # -- states inside JSON strings (brzozowski.json.string_masks) ------------------------------------

    def _string_state(self, state: int) -> tuple[int, int | Term | None, int, int | None] | None:
        """(S-state, after-state, fewest, most characters) if `state` behaves as the inside of a
        JSON string (known from a lazy automaton's term, or checked on the automaton), else None.
        The after-state is as the walks in Python hold it (a term over a lazy automaton: not
        numbered), None for DEAD."""
        found = self._string_states.get(state, _UNSEEN)
        if found is not _UNSEEN:
            return found  # type: ignore[return-value]
        s = self._walk_state(state)
        if s.__class__ is not int:
            counted = self._counted_string(s)
            if counted is not None:
                return self._string_states.setdefault(state, counted)
        # "a", " " and the backslash go on in a string's body (not in a key's: `_key_mask`); a term
        # without & or ~ begins with exactly its `first` bytes (no derivative taken to know it)
        live = s.first if s.__class__ is not int and not s.boolean else self._moves(s).live
        if (live >> 0x61) & 1 and (live >> 0x20) & 1 and (live >> 0x5C) & 1:
            recognized = recognize(self.automaton.row, state)
            if recognized is not None:
                paired, after = recognized
                held = None if after == DEAD else self._walk_state(after)
                for y, r in paired.items():
                    self._string_states.setdefault(y, (r, held, 0, None))
        return self._string_states.setdefault(state, None)

    def _counted_string(self, term: Term) -> tuple[int, Term | None, int, int | None] | None:
        """`_string_state` of a lazy automaton's term, read off the term (`recognize_counted`)."""
        counted = recognize_counted(term)
        if counted is None:
            return None
        r, fewest, most, rest = counted
        return r, rest if _live_term(rest, self.automaton.max_states) else None, fewest, most

    def _opening_mask(self, state: int, bits: bool = False) -> np.ndarray | None:
        """The mask of a state whose quote opens a JSON string (a value that may be a string): the
        tokens that begin with the quote from the string tables of S's state before its opening
        quote (the string's length bounds and what follows it applied as inside the string), the
        others by a walk that leaves the quote's subtree out; None unless the quote leads to a
        string's body as `_string_state` recognizes it. (Walked, the subtree of the quote's
        node numbered a state per character count and UTF-8 or escape position it reached: 98
        states, 2.7 ms, for a ``"maxLength": 1000`` string or null.)"""
        if self._expansion != "auto" or self.walked_trie is not self.trie:
            return None  # (a class trie's quote node may hold other bytes)
        s = self._walk_state(state)
        if s.__class__ is int:
            moves = self._moves(s)
            quote, other_bytes = moves.targets[moves.class_of[0x22]], moves.live != 1 << 0x22
            opened = None if quote is None else self._string_state(quote)
        else:  # a term: derived by the quote alone (a key's closing quote is no string's opening)
            if not (s.first >> 0x22) & 1:
                return None  # (no string may open here: no derivative taken to know it)
            quote, other_bytes = derivative(s, 0x22, self._recent), s.first != 1 << 0x22
            opened = self._counted_string(quote) if _live_term(quote, self.automaton.max_states) else None
        strings = string_automaton()
        if opened is None or opened[0] != strings.body:
            return None
        _, after, fewest, most = opened
        mask = self._string_mask(strings.opening, after, fewest, most, bits)
        if other_bytes:  # a number, an object, null... may come instead (walked: none, if none lives)
            others = self._others_than_strings(s, bits)
            if others is None:
                others = self._walk(state, skip=0x22)
            _add_tokens(mask, others)
        return mask

    def _others_than_strings(self, term: int | Term, bits: bool = False) -> np.ndarray | list[int] | None:
        """For `_opening_mask`: the tokens of a term's options that do not begin with the quote,
        by `_options_mask` (null, an integer leaf; with `bits`, maybe a bitmask); None if an option
        begins with the quote and another byte, or one of the others is not served so."""
        split = _options_of(term) if term.__class__ is Term else None
        if split is None:
            return None
        options, then = split
        others = [option for option in options if not option.first & _QUOTE_BIT]
        if any(option.first & _QUOTE_BIT and option.first != _QUOTE_BIT for option in options) or not others:
            return None
        return self._options_mask(others, then, bits)

    def _literal_mask(self, state: int) -> np.ndarray | list[int] | None:
        """The mask of a state whose term is options that each begin with a byte string (the
        names an object lists, enum values, literals: ``w₁·r₁ | … | wₖ·rₖ``, possibly all followed
        by one tail T), read along those strings' paths in the trie (`_read_below`): no
        derivative of their union is taken (walked, every prefix of the names was a new
        alternation, derived by every class). None for any other state, or when what follows a
        path is wide (the usual walk hands wide levels to numpy)."""
        if self._state_of is None or self._expansion != "auto":
            return None
        return self._literal_tokens(self.automaton.term(state))

    def _literal_tokens(self, term: Term) -> np.ndarray | list[int] | None:
        """`_literal_mask` of a term (a state's, or what follows a leaf: `_after_leaf`)."""
        if _literal_options(term) is None:
            return None
        labels, child_lo, child_count = self.trie.python_view()
        found = self._read_below(labels, child_lo, child_count, 0, term, PYTHON_WORK)
        if found is None:
            return None
        found = list(dict.fromkeys(found))
        ids = _few_tokens(self.trie, found)
        if ids is not None:
            return ids
        mask = np.zeros(self.vocab_size, dtype=bool)
        mask[self.trie.tokens_at(np.array(found, dtype=np.intp))[0]] = True
        return mask

    def _read_below(self, labels: bytes, child_lo: Sequence[int], child_count: Sequence[int], node: int,
                    term: Term, budget: int | None = None) -> list[int] | None:
        """`_below` for a term (possibly found more than once), option by option (`_options_of`):
        an option that begins with a byte string is read along the string's path, one byte and
        one node at a time, its tokens' nodes live (a prefix leaves the string's rest, a live
        term), and what follows the string is read below the path's end the same way; another
        option, or a term of another shape, is walked alone (`_below`, within what is left of
        `budget`). The union of the options' nodes is the term's: a token lives iff one option
        lets it (and no union of their derivatives is built). None once over budget."""
        found: list[int] = []
        todo = [(node, term)]
        while todo:
            node, term = todo.pop()
            split = _options_of(term)
            if split is None:
                reached = self._below(labels, child_lo, child_count, node, term, budget)
                if reached is None:
                    return None
                if budget is not None:
                    budget -= len(reached)
                found += reached
                continue
            options, then = split
            for option in options:
                if not _is_word(option):
                    todo.append((node, option if then is None else concat(option, then)))
                    continue
                at, rest = node, option
                while True:
                    head, tail = _split(rest)
                    if head.kind != K_BYTES or head.bits & (head.bits - 1):  # (`_is_word`, inlined)
                        break
                    lo = child_lo[at]
                    at = labels.find(head.bits.bit_length() - 1, lo, lo + child_count[at])
                    if at < 0:
                        break
                    found.append(at)
                    rest = tail
                if at >= 0 and child_count[at] and (rest is not EPSILON or then is not None):
                    below = rest if then is None else then if rest is EPSILON else concat(rest, then)
                    todo.append((at, below))
        return found

    # -- states inside a leaf (brzozowski.json.leaf_masks) --------------------------------------------

    def _leaf_mask(self, state: int, bits: bool = False) -> np.ndarray | list[int] | None:
        """The mask of a lazy automaton's state inside a leaf (`brzozowski.automata.leaves`: a format's
        string): its term is the atom of leaf state q followed by what comes after the
        leaf's value, and the per-vocabulary tables of q, shared by every schema, give the tokens
        that stay inside the leaf and those that leave it (`brzozowski.json.leaf_masks`). None for any
        other state, or a leaf state the tables do not serve."""
        if self._state_of is None or self._expansion != "auto":
            return None
        return self._leaf_term_mask(self.automaton.term(state), bits)

    def _leaf_term_mask(self, term: Term, bits: bool = False) -> np.ndarray | list[int] | None:
        """`_leaf_mask` of a term."""
        head, after = _split(term)
        if head.kind != K_LEAF:
            return None
        self.leaf_masks += 1
        if head.first.bit_count() >= WIDE_LEAF_BYTES:
            return self._leaf_tables_mask(head.table, head.lo, after, bits)
        return self._leaf_exits_mask(head, after, bits)

    def _options_mask(self, options: Sequence[Term], then: Term | None,
                      bits: bool = False) -> np.ndarray | list[int] | None:
        """The mask of ``(o₁ | … | oₖ)·T`` (T None: none) where a leaf or a byte string begins each
        option (a bounded integer or null, ``anyOf``): the union of the masks of each leaf's
        ``oᵢ·T``, from its tables (`_leaf_term_mask`), and of the options of words, those of more
        than one byte together, read along them (`_literal_tokens`; a long enum: one read), exact
        as a token lives iff it lives in one option. With `bits`, a leaf's mask may come as a
        bitmask: the union is then one, the other options' packed into it. None if an option is
        neither (seen before any mask is read), or a mask would be walked (the state is walked
        whole: no union is cheaper)."""
        words, leaves = [], []
        for option in options:
            if _is_word(option):
                words.append(option)
            elif _split(option)[0].kind == K_LEAF:
                leaves.append(option)
            else:
                return None
        longer = [word for word in words if word.kind == K_CONCAT]
        parts = [(alt(*longer), False)] if longer else []  # (`alt` would merge single bytes)
        parts += [(word, False) for word in words if word.kind != K_CONCAT]
        parts += [(option, True) for option in leaves]
        served = self.leaf_masks
        found: list = []
        for term, leaf in parts:
            term = term if then is None else concat(term, then)
            mask = self._leaf_term_mask(term, bits) if leaf else self._literal_tokens(term)
            if mask is None:
                self.leaf_masks = served
                return None
            found.append(mask)
        arrays = [mask for mask in found if mask.__class__ is not list]
        if not arrays:
            return [t for mask in found for t in mask]
        # each option's array is a new one of its own, written into: a bitmask if one is
        union = next((mask for mask in arrays if mask.dtype != bool), arrays[0])
        for mask in found:
            if mask is not union:
                _add_tokens(union, mask)
        return union

    def _leaf_tables_mask(self, automaton: LeafAutomaton, q: int, after: Term,
                          bits: bool = False) -> np.ndarray | None:
        """The tokens allowed in wide leaf state q followed by `after`, from the tables of q; None
        if the leaf has none (it does not close as a string)."""
        tables = leaf_tables(self.trie, automaton, q)
        if tables is None:
            self.leaf_masks -= 1
            return None
        inside = tables.inside_bits if bits else tables.inside
        if _live_term(after, self.automaton.max_states):
            return inside | self._past_mask(tables, ("leaf", automaton.id, q), after, bits)
        return inside.copy()

    def _leaf_exits_mask(self, leaf: Term, after: Term, bits: bool = False) -> np.ndarray | list[int] | None:
        """The tokens allowed in narrow leaf state q followed by `after`, from the exits of q: those
        the leaf reads whole; if q accepts, those `after` allows (walked from its term, kept per
        term) when no byte both continues the leaf and begins `after` (else None: walked whole);
        and those that leave the leaf midway and whose rest `after` reads. A bitmask if `bits` and
        the leaf reads more than `FEW_TOKENS` whole (a number's first digits): the bitmask of
        those, kept per vocabulary and leaf state (`leaf_inside_bits`), copied and the others set."""
        exits = leaf_exits(self.trie, leaf.table, leaf.lo)
        found = [exits.inside]
        if _live_term(after, self.automaton.max_states):
            if after.first & NUMERAL_BITS and numeral_leaf(leaf.table):  # (its exits before a numeral not listed)
                self.leaf_masks -= 1
                return None
            if exits.accepts:
                if leaf.first & after.first:
                    self.leaf_masks -= 1
                    return None
                found.append(self._after_leaf(after))
            if exits.exit_rests is not None:  # every exit closes the string: rests read per T
                if len(exits.exit_tokens):  # (none, far from the closing quote: T not read)
                    found.append(exits.exit_tokens[self._live_rests(after)[0][exits.exit_rests]])
            elif len(exits.exit_tokens):
                starts = _byte_flags(after.first)[exits.exit_bytes]
                tokens = self.trie.tokens
                max_states = self.automaton.max_states
                for t, d in zip(exits.exit_tokens[starts].tolist(), exits.exit_offsets[starts].tolist()):
                    if _live_term(derivative_of_string(after, tokens[t][d:]), max_states):
                        found.append(np.array([t], dtype=np.intp))
        if bits and len(exits.inside) > FEW_TOKENS:
            mask = leaf_inside_bits(self.trie, leaf.table, leaf.lo).copy()
            if len(found) > 1:  # (`found` begins with the inside)
                _set_tokens(mask, np.concatenate(found[1:]))
            return mask
        ids = np.concatenate(found) if len(found) > 1 else found[0]  # (a token in two: set twice)
        if len(ids) <= FEW_TOKENS:
            return ids.tolist()
        mask = np.zeros(self.vocab_size, dtype=bool)
        mask[ids] = True
        return mask

    def _after_leaf(self, after: Term) -> np.ndarray:
        """The tokens `after` allows (its term walked as a state's; kept per term, ids ascending)."""
        found = self._after_leaves.get(after)
        if found is None:
            walked = self._literal_tokens(after)
            if walked is None:
                walked = self._walk(after)
            found = self._after_leaves[after] = (np.array(walked, dtype=np.intp) if walked.__class__ is list
                                                 else np.flatnonzero(walked))
        return found

    def _string_mask(self, r: int, after: int | Term | None, fewest: int = 0,
                     most: int | None = None, bits: bool = False) -> np.ndarray:
        """The tokens allowed in a state that behaves as S-state r with after-state `after` (None:
        DEAD), `fewest` to `most` more characters allowed before the closing quote: the vocabulary's
        ``inside`` table (less the tokens that begin too many characters), plus the tokens that
        close the string (after an allowed number of characters) and whose rest lives from `after`."""
        tables = string_tables(self.trie, r)
        inside = tables.inside_bits if bits else tables.inside
        if not fewest and most is None:
            if after is None:
                return inside.copy()
            return inside | self._past_mask(tables, ("json-string", r), after, bits)
        mask = inside.copy()
        token_counts, closing_counts = count_tables(self.trie, r)
        if most is not None:
            over = over_bound(self.trie, r, most)
            if over is None:
                mask &= count_bound_bits(self.trie, r, most) if bits else token_counts <= most
            else:
                _clear_tokens(mask, over)
        if after is not None:  # the closing nodes after an allowed number of characters:
            highest = kept_on(self.trie, ("json-string-closing-most", r),  # (a bound above all: none)
                              lambda: (int(closing_counts.max(initial=0)),))[0]
            most = most if most is not None and most < highest else None

            def allowed() -> np.ndarray:
                within = closing_counts >= fewest
                if most is not None:
                    within &= closing_counts <= most
                return within

            bounded = fewest > 0 or most is not None
            mask |= self._past_mask(tables, ("json-string", r), after, bits, allowed if bounded else None,
                                    (fewest, most) if bounded else ())
        return mask

    def _past_mask(self, tables: StringTables, which: tuple, after: int | Term, bits: bool,
                   allowed: Callable[[], np.ndarray] | None = None, allowed_key: tuple = ()) -> np.ndarray:
        """The tokens of ``tables.past_tokens`` (`which` names the tables) that live on from `after`
        once their string has closed (at a closing node where ``allowed()`` holds, if given, and
        `allowed_key` says which nodes those are): those whose rest after the quote is live from
        `after` (`_live_rests`). A read-only mask (a bitmask if `bits`), kept per vocabulary for
        each set of live rests (`PAST_MASKS`): the strings of a document, and of other schemas,
        that the same bytes may follow share one, and a state's mask is its tables' ``inside`` OR
        it, one numpy operation (rather than a few hundred tokens set one by one)."""
        rests, rests_key = self._live_rests(after)

        def build() -> np.ndarray:
            keep = rests[tables.past_rest]
            if allowed is not None:
                keep &= allowed()[tables.past_closing]
            tokens = tables.past_tokens[keep]
            if bits:
                return packed_ids(tokens, self.vocab_size)
            mask = np.zeros(self.vocab_size, dtype=bool)
            mask[tokens] = True
            mask.setflags(write=False)
            return mask

        return kept_in_cache(self.trie, "past-the-quote", PAST_MASKS, (which, rests_key, allowed_key, bits),
                             build, lambda mask: mask.nbytes)

    def _live_rests(self, after: int | Term) -> tuple[np.ndarray, bytes]:
        """Per node of the vocabulary's `quote_suffixes` trie: whether its bytes lead from `after`
        to a live state (a walk in Python from the root, each node's children by `_expand`; kept
        per state), and the same as bytes (a key: the rests many states share)."""
        found = self._rests.get(after)
        if found is None:
            labels, child_lo, child_count = quote_suffixes(self.trie)[:3]
            read = self._read_below if after.__class__ is Term else self._below  # (a number; None: no key)
            live = [0, *read(labels, child_lo, child_count, 0, after)]
            rests = np.zeros(len(labels), dtype=bool)
            rests[live] = True
            rests.setflags(write=False)
            found = self._rests[after] = (rests, rests.tobytes())
        return found

    def _below(self, labels: bytes, child_lo: Sequence[int], child_count: Sequence[int], node: int,
               state: int | Term, budget: int | None = None) -> list[int] | None:
        """The nodes below `node` (of a trie laid out as ``python_view``) whose bytes lead from
        `state` to a live state: a walk in Python, each node's children by `_expand`; None once
        it has looked at more children than `budget` (if given)."""
        reached: list[int] = []
        nodes, states = [node], [state]
        work = 0
        while nodes:
            next_nodes: list[int] = []
            next_states: list = []
            for node, s in zip(nodes, states):
                count = child_count[node]
                if count:
                    work += self._expand_below(s, child_lo[node], count, labels, child_count,
                                               next_nodes, next_states)
            if budget is not None and work > budget:
                return None
            reached += next_nodes
            nodes, states = next_nodes, next_states
        return reached

    # -- states inside an open object's key (brzozowski.json.string_masks.key_tables) -----------------

    def _named_key_mask(self, state: int, bits: bool = False) -> np.ndarray | None:
        """The mask of a key state of an open object read off its term, or None (then `_key_mask`
        or the usual walk serve it): no derivative of the state, nor of any state along the names.

        The term (over a lazy automaton) must be options, possibly followed by what comes after all
        of them (``(o₁|…|oₖ)·T``), each option either a listed name — plain key bytes w, the quote,
        then w's member: ``w"·Tw`` — or, exactly once, the other keys: ``O"·q``, where O is a trie
        of plain keys (`_key_node`) whose language is every plain key but a finite set N of names.
        Then a token of plain bytes lives (O is co-finite); a token w'"v whose first byte that is
        not a plain key's is the quote lives iff w' ∉ N and v lives from q·T (the plain-key tables,
        N's closing nodes left out), or w' is a listed w and v lives from Tw·T (walked); no other
        token lives. A state before the key's opening quote (its term starts with the quote alone:
        after a comma) reads the same off its derivative by the quote, over the tokens that begin
        with a quote (the trie below the quote's node, the tables with the quote first)."""
        if self._state_of is None:
            return None
        term = self.automaton.term(state)
        labels, child_lo, child_count = self.trie.python_view()
        start = 0  # the trie node the key's bytes begin below
        if term.first == _QUOTE_BIT:  # before the key's opening quote: the tokens that begin with it
            start = labels.find(0x22, child_lo[0], child_lo[0] + child_count[0])
            if start < 0:
                return None
            term = derivative(term, 0x22, self._recent)
        if term.first & PLAIN_KEY_BITS != PLAIN_KEY_BITS or term.first & ~_PLAIN_KEY_AND_QUOTE:
            return None  # a key state starts with every plain byte, and with nothing but the quote else
        shape = self._key_shape(term)
        if shape is None:
            return None
        other_keys, after, listed, shared = shape
        handled = self._handled.get((other_keys, start))
        if handled is None:
            handled = self._handled[other_keys, start] = self._names_closing(other_keys, start)
        found: list[int] = []
        max_states = self.automaton.max_states
        for name, rest in listed:
            node = start
            for b in name + b'"':
                node = labels.find(b, child_lo[node], child_lo[node] + child_count[node])
                if node < 0:
                    break
            if node < 0:
                continue  # no token holds the name and its quote (most names): nothing to walk
            then = rest if shared is None else concat(rest, shared)
            if _live_term(then, max_states):
                found.append(node)
                found += self._below(labels, child_lo, child_count, node, then)
        return self._key_tables_mask(found, handled, after, start == 0, bits)

    def _names_closing(self, other_keys: Term, start: int) -> list[int]:
        """The trie nodes where a name of N closes (its bytes below `start`, then the quote): there
        the other keys' quote is DEAD (`_named_key_mask`; kept per (O, start): the object's key
        states share them)."""
        labels, child_lo, child_count = self.trie.python_view()
        handled: list[int] = []
        todo = [(other_keys, start)]  # (a node of O, the trie node of the same bytes)
        while todo:
            key_node, node = todo.pop()
            lo, count = child_lo[node], child_count[node]
            if not key_node.nullable:  # a name of N ends here
                quote = labels.find(0x22, lo, lo + count)
                if quote >= 0:
                    handled.append(quote)
            for b, child in self._key_nodes[key_node].items():
                below = labels.find(b, lo, lo + count)
                if below >= 0:
                    todo.append((child, below))
        return handled

    def _key_shape(self, x: Term) -> tuple[Term, Term, list[tuple[bytes, Term]], Term | None] | None:
        """(O, q·T, the listed (w, Tw), T or None for ε) if `x` has the shape `_named_key_mask`
        reads, else None (w's member followed by what comes after is Tw·T, built only for a name
        some token holds with its quote)."""
        options, then = (x,), None
        if x.kind == K_ALT:
            options = x.children
        elif x.kind == K_CONCAT and x.children[0].kind == K_ALT and self._key_node(x.children[0]) is None:
            options, then = x.children[0].children, x.children[1]
        other_keys = after = None
        listed: list[tuple[bytes, Term]] = []
        for option in options:
            head, rest = _split(option)
            if head.kind == K_BYTES and head.bits & (head.bits - 1) and rest.kind == K_CONCAT and (
                    rest.children[0] is _ANY_PLAIN_KEY):  # O = S·[plain]*, its concatenation flattened
                head, rest = concat(head, _ANY_PLAIN_KEY), rest.children[1]
            if head.kind == K_BYTES:  # a listed name: plain bytes one by one, then the quote
                name = self._listed_names.get(option, _UNSEEN)
                if name is _UNSEEN:
                    name = self._listed_names[option] = _listed_name(option)
                if name is None:
                    return None
                listed.append(name)
            elif other_keys is None and self._key_node(head) is not None:
                quote, rest = _split(rest)
                if quote.kind != K_BYTES or quote.bits != _QUOTE_BIT:
                    return None
                other_keys, after = head, rest
            else:
                return None
        if other_keys is None:
            return None
        if then is not None:
            after = concat(after, then)
        if not _live_term(after, self.automaton.max_states):
            return None  # no other key goes on: its plain tokens are not all allowed
        return other_keys, after, listed, then

    def _key_node(self, term: Term) -> dict[int, Term] | None:
        """If `term` is a node of a trie of plain keys, every node below it too (`_key_children`),
        its children by byte; else None (kept per index, checked without recursion)."""
        nodes = self._key_nodes
        found = nodes.get(term, _UNSEEN)
        if found is not _UNSEEN:
            return found  # type: ignore[return-value]
        built = PLAIN_KEY_TRIES.get(term)  # (the root of a trie built as such: every node known)
        if built is not None:
            children, below = built
            nodes.update(below)
            nodes[term] = children
            return children
        todo = [term]
        while todo:
            t = todo[-1]
            if t in nodes:
                todo.pop()
                continue
            children = _key_children(t)
            if children is not None:
                pending = [child for child in children.values() if child not in nodes]
                if pending:
                    todo.extend(pending)
                    continue
                if any(nodes[child] is None for child in children.values()):
                    children = None
            nodes[t] = children
            todo.pop()
        return nodes[term]

    def _key_after(self, y: int | Term) -> int | Term | None:
        """The after-state q if `y` is the inside of a plain key: every plain key byte back to `y`
        itself, the quote to q, every other byte DEAD (``[ !#-\\[\\]-~]*"`` then q). (States are
        compared with ``==``: terms are interned, so equal is identical; numbers may not be.)"""
        found = self._key_afters.get(y, _UNSEEN)
        if found is _UNSEEN:
            moves = self._moves(y)
            targets = moves.targets
            found = None
            if moves.live == _PLAIN_KEY_AND_QUOTE and all(targets[i] == y for i in self._plain_classes(moves)):
                found = targets[moves.class_of[0x22]]
            self._key_afters[y] = found
        return found  # type: ignore[return-value]

    def _plain_classes(self, moves: _Moves) -> list[int]:
        """The classes of `moves` that hold plain key bytes."""
        return [i for i, bits in enumerate(moves.classes) if bits & PLAIN_KEY_BITS]

    def _key_step(self, s: int | Term) -> tuple[int | Term, list[tuple[int, int | Term]], bool] | None:
        """For a state on a key's plain path: (Y's after-state q, the live (byte, target) pairs
        that do not lead into Y nor by the quote to q, whether the quote leads to q), Y being where
        most plain bytes go; None unless every plain byte lives, that Y is the inside of a plain key
        (`_key_after`) and the quote does not lead into Y."""
        found = self._key_steps.get(s, _UNSEEN)
        if found is _UNSEEN:
            found = None
            moves = self._moves(s)
            if moves.live & PLAIN_KEY_BITS == PLAIN_KEY_BITS:
                classes, targets = moves.classes, moves.targets
                plain_bytes: dict = {}  # target -> how many plain bytes lead there
                for i in self._plain_classes(moves):
                    target = targets[i]
                    plain_bytes[target] = plain_bytes.get(target, 0) + (classes[i] & PLAIN_KEY_BITS).bit_count()
                y = max(plain_bytes, key=plain_bytes.__getitem__)
                q = self._key_after(y)
                quote = targets[moves.class_of[0x22]]
                if q is not None and quote != y:
                    pairs = []
                    for bits, target in zip(classes, targets):
                        if target is not None and target != y:
                            _add_pairs(bits & ~(1 << 0x22) if target == q else bits, target, pairs)
                    found = (q, pairs, quote == q)
            self._key_steps[s] = found
        return found  # type: ignore[return-value]

    def _key_mask(self, state: int, bits: bool = False) -> np.ndarray | None:
        """The mask of a state at or inside an open object's key, or None to walk it as usual.

        Such a state X (after ``{"``, ``,"`` or part of a key) goes on through the listed names
        (and any escapes or UTF-8 in them) and, once the key leaves them, into one state Y that is
        the inside of a plain key (`_key_after`: plain bytes loop on Y, the quote leads to q). A
        walk in Python from X that does not follow the bytes into Y visits only the listed names'
        prefixes. If every plain byte lives in each state of that walk on a path of plain bytes,
        then every token of plain bytes alone is allowed (``inside`` of `key_tables`); a token
        whose first byte outside them is the quote, at a node the walk did not expand, went through
        Y or through a quote that leads to q as Y's does: it lives on iff its rest after the quote
        lives from q (`_past_mask`, the ``closing`` nodes the walk expanded left out); the
        walk's own nodes give the rest. None when the state does not look like a key (so the usual
        walk is not delayed) or the walk grows."""
        root = self._walk_state(state)
        live = root.first if root.__class__ is not int and not root.boolean else self._moves(root).live
        if (not (live >> 0x22) & 1 or (live >> 0x5C) & 1 or live >> 0x80
                or live & PLAIN_KEY_BITS != PLAIN_KEY_BITS):  # (every plain byte lives: `_key_step`)
            return None
        trie = self.trie
        labels, child_lo, child_count = trie.python_view()
        after = None  # Y's q: one for the whole walk (set at the root, which is on a plain path)
        found: list[int] = []  # the nodes the walk reached, but those of plain paths into Y
        handled: list[int] = []  # closing nodes the walk expanded (a quote not leading to q)
        nodes, states, plain = [0], [root], [True]  # plain: the node's path is plain bytes only
        work = 0
        while nodes:
            next_nodes: list[int] = []
            next_states: list = []
            next_plain: list[bool] = []
            for node, s, on_plain in zip(nodes, states, plain):
                count = child_count[node]
                lo = child_lo[node]
                if not on_plain:  # past a byte that is not a plain key's: the usual Python walk
                    if count:
                        grown = len(next_nodes)
                        work += self._expand(s, lo, count, labels, next_nodes, next_states)
                        next_plain += [False] * (len(next_nodes) - grown)
                elif count:  # (a leaf: its tokens end here, none goes on through its state)
                    into = self._key_step(s)
                    if into is None:
                        return None
                    q, pairs, quote_to_q = into  # the bytes that lead neither into Y nor to q
                    if after is None:
                        after = q
                    elif q != after:
                        return None
                    if not quote_to_q:  # the quote (DEAD, or to a listed member's value): walked
                        quote = labels.find(0x22, lo, lo + count)
                        if quote >= 0:
                            handled.append(quote)
                    work += len(pairs)
                    for b, target in pairs:
                        child = labels.find(b, lo, lo + count)
                        if child >= 0:
                            next_nodes.append(child)
                            next_states.append(target)
                            next_plain.append((PLAIN_KEY_BITS >> b) & 1 == 1)
                if work > KEY_WORK:
                    return None
            found += next_nodes
            nodes, states, plain = next_nodes, next_states, next_plain
        return self._key_tables_mask(found, handled, after, bits=bits)

    def _key_tables_mask(self, found: list[int], handled: list[int], after: int | Term,
                         opened: bool = True, bits: bool = False) -> np.ndarray:
        """A key state's mask: the tokens ending at the `found` nodes, every token of plain bytes
        (``inside`` of `key_tables`), and the tokens past a plain key's quote whose rest lives from
        `after`, but those closing at the `handled` nodes. Not `opened`: the same for the state
        before the key's opening quote, every token beginning with it."""
        trie = self.trie
        tables = key_tables(trie, opened)
        position = kept_on(trie, ("plain-key-closing", opened),  # a closing node's index in ``closing``
                           lambda: ({node: i for i, node in enumerate(tables.closing.tolist())},))[0]
        closed = tuple(sorted(position[node] for node in handled if node in position))

        def allowed() -> np.ndarray:
            allowed_nodes = np.ones(len(tables.closing), dtype=bool)
            allowed_nodes[list(closed)] = False
            return allowed_nodes

        mask = (tables.inside_bits if bits else tables.inside) | self._past_mask(
            tables, ("plain-key", opened), after, bits, allowed if closed else None, closed)
        if found:
            ids = _few_tokens(trie, found)  # (a listed name's tokens: a few, listed without numpy)
            _set_tokens(mask, trie.tokens_at(np.array(found, dtype=np.intp))[0] if ids is None else ids)
        self.key_masks += 1
        return mask
