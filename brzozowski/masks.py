"""Token masks: which tokens of a vocabulary may come next in each automaton state.

For a state s and a token t with bytes β(t), the mask is (spec §2.3)

    mask_s[t] = δ*(s, β(t)) ≠ DEAD,        mask_s[eos] = s is accepting,

and empty or special (``None``) tokens are never allowed. A token is allowed when it keeps the
text a prefix of some string of the language; it need not complete one. `TokenIndex` answers
``mask(state)`` for a `brzozowski.dfa.DFA` or a `brzozowski.lazy.LazyDFA` (anything with the
automaton interface: ``start``, ``row(s)``, ``is_accepting(s)``, ``step(s, data)``).

>>> from brzozowski.dfa import regex_to_dfa
>>> vocab = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
>>> index = TokenIndex(regex_to_dfa("(cat|car|dog)s?"), vocab, eos_id=13)
>>> [int(t) for t in index.mask(0).nonzero()[0]]
[0, 4, 8, 9, 10]
>>> [int(t) for t in index.mask(5).nonzero()[0]], index.next_state(3, 11)
([7, 13], 6)

How a mask is computed
----------------------
The vocabulary becomes a byte trie (`VocabTrie`), built once per vocabulary and shared by every
index over it. Its nodes are numbered level by level (the root, then every 1-byte prefix, then
every 2-byte prefix, ...) and stored as flat numpy arrays (`TrieLevels`): each node's parent and
byte, the range of its children, the tokens ending at it. A mask is one walk from the state down
the levels. A node's automaton state is kept as an int32 *code*, ``(s + 1) * 256``, with DEAD = 0,
so that code + byte is directly the index of the transition in a flat table whose first row is
DEAD -> DEAD. Each level advances in one of two vectorized ways:

- *sparse*: only the children of the live nodes of the level above are expanded: one gather
  through the table for them. A dead node's subtree is never visited, since every token under it
  starts with a dead prefix. Restrictive states (a date, a number, JSON punctuation) touch a few
  hundred nodes.
- *dense*: when at least 1/`DENSE_FRACTION` of the level above is alive, or the level is small,
  the whole level is expanded with one gather (children of dead nodes come out DEAD through the
  DEAD row, without a branch). Measured: ~3 ns per node dense against ~25 ns per child sparse.

The mask is then either a scatter of the few tokens ending at live nodes, or one gather of node
liveness over the vocabulary. Over a `LazyDFA` the walk gathers through a local copy of the rows
it has met, filled with ``automaton.row(s)`` the first time a level holds state s; over a `DFA`
it uses the complete ``trans`` table, re-coded once.

Over a DFA the byte classes are known (bytes with equal columns in ``trans`` lead everywhere to the
same states); over a LazyDFA they are read off its pattern (bytes that no byte set of the term tells
apart: derivatives only ever take unions of those sets). The walk can then use the trie of the
tokens' *class strings* (`class_trie`, DESIGN.md's alternative): tokens that agree class by class
share nodes, and a node's byte is its class's lowest byte, so the walk is the same code. It is built
per byte partition (vectorized from the byte trie, shared between indexes, 15-95 ms) and used when
it has at most `COMPRESS_BELOW` of the byte trie's nodes; ``compress=False`` skips it (lowest time
to the first mask). Measured on o200k_base (byte trie 421,661 nodes, built once per vocabulary in
~0.3 s; cl100k_base 216,750 nodes, ~0.13 s): CPU time of a cold walk, min of 3, numpy 2.4, on a
shared 2-core machine at load average ~5 (rerun: ``brzozowski masks PATTERN --vocab o200k_base``):

==================  ======  ================  ==========  ===============  =================
workload            states  class-trie nodes  build (ms)  cold p99, bytes  cold p99, classes
==================  ======  ================  ==========  ===============  =================
date                    14               737          24  0.11 ms          0.12 ms
email                    7             2,029          22  3.2 ms           0.77 ms
``[^\n]*``               1               438          19  2.3 ms           0.82 ms
tool-call schema       132           212,947          80  2.0 ms           2.4 ms
10-property schema     388           221,719          93  3.4 ms           2.2 ms
==================  ======  ================  ==========  ===============  =================

Few-class patterns merge the vocabulary to a few thousand nodes; a JSON schema's ~50 classes
(each letter of a property name is its own class) still halve it, and there the two tries are
within the noise of this machine. Cold-mask medians are 0.04-0.16 ms in every row: the p99 comes
from the states inside JSON strings, where ~98% of the vocabulary is allowed and the walk is
dense. A cached mask costs 2-5 us; a `Constraint` step (bitmask + advance) ~2.5 us.

Caching and eviction
--------------------
Masks are computed the first time a state is asked for and kept in a `cachetools.LRUCache`
bounded in bytes (``cache_bytes``, the sum of ``ndarray.nbytes`` of the cached masks and
bitmasks). When the budget is exceeded the least recently used entry is evicted; an evicted mask
is simply recomputed on its next request, and the result is always the same (the automaton and
the vocabulary are immutable), so eviction costs time, never correctness. A mask larger than the
whole budget is computed and returned but not cached.

Thread safety: one index may be shared between threads. Cache reads and writes happen under a
lock; cold walks are serialized by a second lock (they also grow the local rows of a lazy
automaton), so a thread asking for a cached mask never waits for another thread's walk.

Reference: spec §2.3 and §3; Willard & Louf, "Efficient Guided Generation for Large Language
Models" (2023) for the per-state index idea.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import cachetools
import numpy as np

from .errors import InputTypeError, MaskError, TokenError, VocabularyError
from .lazy import DEAD  # -1: the absence of a state, where no string of the language continues

__all__ = [
    "DEFAULT_CACHE_BYTES", "DENSE_FRACTION", "TokenIndex", "TrieLevels", "VocabTrie", "class_trie",
    "vocab_trie",
]

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

_WALKS = ("auto", "sparse", "dense")

_SHARED_TRIES = 4  # how many vocabulary tries `vocab_trie` keeps for reuse
_SHARED_CLASS_TRIES = 16  # how many class tries (per vocabulary and byte partition) are kept

COMPRESS_BELOW = 0.8
"""Walk the class-string trie when it has at most this fraction of the byte trie's nodes."""

COMPRESS_MAX_CLASSES = 100
"""Patterns with more byte classes than this do not even try the class-string trie (measured: 51
classes still merge o200k_base's 421,661 nodes to 221,719; with hundreds little would merge)."""


class TrieLevels:
    """A token trie stored level by level in flat numpy arrays (immutable): what a walk reads.

    Nodes are numbered breadth first: node 0 is the root (the empty prefix), level d holds the
    nodes ``level_start[d]:level_start[d+1]``, sorted by (parent, label). ``parent[n]`` and
    ``byte[n]`` give a node's parent and the byte that leads to it; its children are
    ``child_lo[n]:child_lo[n] + child_count[n]``. ``token_node[t]`` is the node where token t
    ends, or the sentinel ``n_nodes`` for a token that is never allowed (``None`` or empty);
    the tokens ending at node n are ``token_ids[token_lo[n]:token_lo[n + 1]]``.
    """

    def __init__(self, vocab_size: int, level_start: list[int], parent: np.ndarray,
                 byte: np.ndarray, token_node: np.ndarray) -> None:
        self.vocab_size = vocab_size
        self.n_nodes = n = level_start[-1]
        self.depth = depth = len(level_start) - 2
        self.level_start = np.asarray(level_start, dtype=np.intp)
        self.parent = parent.astype(np.intp)
        self.byte = byte.astype(np.int32)
        # Children of node n are contiguous (levels are sorted by parent): find their ranges.
        self.child_count = np.bincount(self.parent[1:], minlength=n + 1)
        self.child_lo = np.cumsum(self.child_count) - self.child_count + 1
        self.token_node = token_node.astype(np.intp)
        real = np.flatnonzero(self.token_node < n)
        order = np.argsort(self.token_node[real], kind="stable")
        self.token_ids = real[order]  # tokens sorted by node (then id)
        counts = np.bincount(self.token_node[real], minlength=n + 1)
        self.token_lo = np.concatenate(([0], np.cumsum(counts)))
        self.token_count = counts
        for array in (self.level_start, self.parent, self.byte, self.child_lo, self.child_count,
                      self.token_node, self.token_ids, self.token_lo, self.token_count):
            array.setflags(write=False)
        # Per level d >= 1, what a walk needs, precomputed so that it slices nothing: the level's
        # first node and end, each node's parent as an index into the level above, each node's
        # byte.
        self.levels = []
        for d in range(1, depth + 1):
            lo, hi = int(self.level_start[d]), int(self.level_start[d + 1])
            local_parent = self.parent[lo:hi] - self.level_start[d - 1]
            local_parent.setflags(write=False)
            self.levels.append((lo, hi, local_parent, self.byte[lo:hi]))

    @property
    def nbytes(self) -> int:
        """The memory held by the trie's arrays (the token bytes themselves not counted)."""
        arrays = [a for a in vars(self).values() if isinstance(a, np.ndarray)]
        return sum(a.nbytes for a in arrays) + sum(level[2].nbytes for level in self.levels)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(vocab_size={self.vocab_size}, n_nodes={self.n_nodes}, "
                f"depth={self.depth})")


class VocabTrie(TrieLevels):
    """The byte trie of a vocabulary (see `TrieLevels`), shared by every index over it.

    Tokens with the same bytes end at the same node; ``tokens[t]`` are token t's bytes.
    """

    def __init__(self, vocab: Sequence[bytes | None]) -> None:
        tokens = _validated(vocab)
        ids = np.fromiter((i for i, t in enumerate(tokens) if t), dtype=np.intp)
        lengths = np.fromiter((len(tokens[i]) for i in ids.tolist()), dtype=np.intp, count=len(ids))
        flat = np.frombuffer(b"".join(tokens[i] for i in ids.tolist()), dtype=np.uint8)
        offsets = np.cumsum(lengths) - lengths
        depth = int(lengths.max(initial=0))

        # Level by level, the node of each (nonempty) token's prefix of length d is the distinct
        # (parent node, byte) pair: np.unique numbers them sorted by parent, then byte, so each
        # parent's children are contiguous and the parents of a level are ascending.
        level_start = [0, 1]
        parents: list[np.ndarray] = [np.zeros(1, dtype=np.intp)]  # the root's parent: itself
        bytes_: list[np.ndarray] = [np.zeros(1, dtype=np.intp)]
        end_node = np.zeros(len(ids), dtype=np.intp)
        active = np.arange(len(ids))  # tokens at least d bytes long
        node = np.zeros(len(ids), dtype=np.intp)  # their node at level d - 1
        for d in range(1, depth + 1):
            keep = lengths[active] >= d
            active, node = active[keep], node[keep]
            key = node * 256 + flat[offsets[active] + d - 1]
            distinct, inverse = np.unique(key, return_inverse=True)
            parents.append(distinct >> 8)
            bytes_.append(distinct & 255)
            node = level_start[-1] + inverse.reshape(-1)
            ending = lengths[active] == d
            end_node[active[ending]] = node[ending]
            level_start.append(level_start[-1] + len(distinct))
        token_node = np.full(len(tokens), level_start[-1], dtype=np.intp)
        token_node[ids] = end_node
        super().__init__(len(tokens), level_start, np.concatenate(parents),
                         np.concatenate(bytes_), token_node)
        self.tokens: tuple[bytes | None, ...] = tuple(tokens)


def class_trie(trie: TrieLevels, class_of_byte: np.ndarray) -> TrieLevels:
    """The trie of the tokens' *class strings*: bytes of one class (``class_of_byte``, int[256])
    lead to the same states from every state, so tokens whose bytes agree class by class are
    merged. A node's ``byte`` is the lowest byte of its class, so walks run unchanged on it.
    """
    class_of_byte = np.asarray(class_of_byte, dtype=np.intp)
    n_classes = int(class_of_byte.max()) + 1
    lowest = np.full(n_classes, 256, dtype=np.intp)
    np.minimum.at(lowest, class_of_byte, np.arange(256))
    merged = np.zeros(trie.n_nodes + 1, dtype=np.intp)  # byte node -> class node
    level_start, parents, labels = [0, 1], [np.zeros(1, dtype=np.intp)], [np.zeros(1, dtype=np.intp)]
    for d in range(1, trie.depth + 1):
        lo, hi = int(trie.level_start[d]), int(trie.level_start[d + 1])
        above_lo = level_start[-2]
        key = (merged[trie.parent[lo:hi]] - above_lo) * n_classes
        key += class_of_byte[trie.byte[lo:hi]]
        space = (level_start[-1] - above_lo) * n_classes
        if space <= 8 * len(key) + 65536:  # number the distinct keys by marking, not sorting
            seen = np.zeros(space, dtype=bool)
            seen[key] = True
            distinct = np.flatnonzero(seen)
            inverse = (np.cumsum(seen) - 1)[key]
        else:
            distinct, inverse = np.unique(key, return_inverse=True)
        merged[lo:hi] = level_start[-1] + inverse.reshape(-1)
        parents.append(above_lo + distinct // n_classes)
        labels.append(lowest[distinct % n_classes])
        level_start.append(level_start[-1] + len(distinct))
    merged[trie.n_nodes] = level_start[-1]  # the sentinel
    return TrieLevels(trie.vocab_size, level_start, np.concatenate(parents),
                      np.concatenate(labels), merged[trie.token_node])


def _validated(vocab: Sequence[bytes | None]) -> list[bytes | None]:
    if isinstance(vocab, (str, bytes, bytearray)) or not isinstance(vocab, Sequence):
        raise VocabularyError(
            f"the vocabulary must be a sequence of bytes or None (one per token id), "
            f"not {type(vocab).__name__}; use brzozowski.vocab.vocab_bytes(tokenizer) to get one"
        )
    tokens = list(vocab)
    if not tokens:
        raise VocabularyError("the vocabulary is empty")
    if all(type(t) is bytes or t is None for t in tokens):  # the fast, usual case
        return tokens
    for i, t in enumerate(tokens):
        if t is not None and type(t) is not bytes:
            if isinstance(t, (bytes, bytearray, memoryview)):
                tokens[i] = bytes(t)
            else:
                raise VocabularyError(
                    f"token {i} is {type(t).__name__} {t!r}, not bytes or None; token strings "
                    "must be decoded to bytes first (brzozowski.vocab.vocab_bytes undoes the "
                    "GPT-2 byte map)"
                )
    return tokens


_trie_lock = threading.Lock()
_tries: cachetools.LRUCache = cachetools.LRUCache(maxsize=_SHARED_TRIES)


def vocab_trie(vocab: Sequence[bytes | None] | VocabTrie) -> VocabTrie:
    """The `VocabTrie` of `vocab`, built once and shared (the last few vocabularies are kept)."""
    if isinstance(vocab, VocabTrie):
        return vocab
    tokens = tuple(_validated(vocab))
    with _trie_lock:
        found = _tries.get(tokens)
    if found is None:
        found = VocabTrie(tokens)
        with _trie_lock:
            found = _tries.setdefault(tokens, found)
    return found


MAX_TABLE_ROWS = (2**31 - 1) // 256
"""Codes are int32 (half the memory traffic of int64 in the gathers), so a table holds at most
8,388,607 states: 8 GiB of transitions, far beyond any state budget that makes sense."""


def _check_capacity(n_rows: int) -> None:
    if n_rows > MAX_TABLE_ROWS:
        raise MaskError(f"{n_rows - 1} automaton states exceed the mask tables' limit of "
                        f"{MAX_TABLE_ROWS - 1}")


_class_trie_lock = threading.Lock()
_class_tries: cachetools.LRUCache = cachetools.LRUCache(maxsize=_SHARED_CLASS_TRIES)


def shared_class_trie(trie: TrieLevels, class_of_byte: np.ndarray) -> TrieLevels:
    """`class_trie` of (trie, classes), built once and shared (the last few are kept)."""
    key = (trie, np.asarray(class_of_byte, dtype=np.intp).tobytes())
    with _class_trie_lock:
        found = _class_tries.get(key)
    if found is None:
        found = class_trie(trie, class_of_byte)
        with _class_trie_lock:
            found = _class_tries.setdefault(key, found)
    return found


class _Table:
    """The transition table the walk gathers through, as int32 *codes*: state s is ``(s + 1) * 256``.

    Row 0 is DEAD (code 0), and every byte maps it to DEAD again, so a dead node's children come
    out dead without a branch; state s's row is row s + 1. A node's code plus a byte is directly
    the flat index of its transition, and a code is live iff it is at least 256. Over a DFA the
    table is complete from the start (``trans`` re-coded); over a lazy automaton a row is copied in
    with ``automaton.row(s)`` the first time a walk meets state s.
    """

    def __init__(self, automaton: Any) -> None:
        self.automaton = automaton
        trans = getattr(automaton, "trans", None)
        self.complete = isinstance(trans, np.ndarray) and trans.ndim == 2 and trans.shape[1] == 256
        if self.complete:
            _check_capacity(trans.shape[0] + 1)
            table = np.zeros((trans.shape[0] + 1, 256), dtype=np.int32)
            table[1:] = trans
            table[1:] += 1
            table[1:] *= 256
            self.have = np.ones(trans.shape[0] + 1, dtype=bool)
        else:
            table = np.zeros((17, 256), dtype=np.int32)
            self.have = np.zeros(17, dtype=bool)
            self.have[0] = True  # the DEAD row
        self.table = table
        self.flat = table.ravel()

    def ensure(self, codes: np.ndarray) -> np.ndarray:
        """Make sure every state coded in `codes` (+ any byte) has its row; return the flat table."""
        if self.complete:
            return self.flat
        rows = codes >> 8
        top = int(rows.max(initial=0))
        if top >= len(self.have):
            self._grow(top + 1)
        missing = rows[~self.have[rows]]
        if missing.size:
            for r in np.unique(missing).tolist():
                row = self.automaton.row(r - 1)
                top = int(row.max()) + 1
                if top >= len(self.have):
                    self._grow(top + 1)
                self.table[r] = row
                self.table[r] += 1
                self.table[r] *= 256
                self.have[r] = True
        return self.flat

    def _grow(self, n_rows: int) -> None:
        capacity = max(n_rows, 2 * len(self.have))
        _check_capacity(n_rows)
        capacity = min(capacity, MAX_TABLE_ROWS)
        table = np.zeros((capacity, 256), dtype=np.int32)
        have = np.zeros(capacity, dtype=bool)
        old = len(self.have)
        table[:old] = self.table
        have[:old] = self.have
        self.table, self.have, self.flat = table, have, table.ravel()


class TokenIndex:
    """Masks and next states of one vocabulary over one automaton (see the module docstring).

    `automaton`: a DFA or LazyDFA. `vocab`: token id -> bytes, or None for a token that is never
    allowed (a special token); or a prebuilt `VocabTrie`. `eos_id`: the end-of-sequence token,
    allowed exactly in accepting states (its bytes, if any, are ignored). `cache_bytes`: the mask
    cache budget in bytes. `walk`: "auto" (the default) chooses per level between the sparse
    and the dense expansion; "sparse" or "dense" forces one (same masks; for tests and benchmarks).
    `compress`: walk the trie of byte-class strings instead of bytes (only over a complete DFA,
    whose classes are known): None (the default) when it has at most `COMPRESS_BELOW` of the
    byte trie's nodes, True always, False never. Same masks either way.
    """

    def __init__(
        self,
        automaton: Any,
        vocab: Sequence[bytes | None] | VocabTrie,
        eos_id: int | None = None,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        walk: str = "auto",
        compress: bool | None = None,
    ) -> None:
        for name in ("start", "row", "is_accepting", "step"):
            if not hasattr(automaton, name):
                raise InputTypeError(
                    f"{automaton!r:.80} ({type(automaton).__name__}) is not an automaton: it has no "
                    f"{name!r} (pass a brzozowski DFA or LazyDFA)"
                )
        self.automaton = automaton
        self.trie = vocab_trie(vocab)
        self.vocab_size = self.trie.vocab_size
        if eos_id is not None:
            if isinstance(eos_id, bool) or not isinstance(eos_id, (int, np.integer)):
                raise VocabularyError(f"eos_id must be an int token id, not {eos_id!r}")
            if not 0 <= eos_id < self.vocab_size:
                raise VocabularyError(
                    f"eos_id {eos_id} is outside the vocabulary (ids 0..{self.vocab_size - 1})"
                )
            eos_id = int(eos_id)
        self.eos_id = eos_id
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
            raise MaskError(f"cache_bytes must be a non-negative int, not {cache_bytes!r}")
        self.cache_bytes = cache_bytes
        if walk not in _WALKS:
            raise MaskError(f"walk must be one of {_WALKS}, not {walk!r}")
        self.walk = walk
        self._cache: cachetools.LRUCache = cachetools.LRUCache(
            maxsize=max(cache_bytes, 1), getsizeof=lambda a: a.nbytes
        )
        self._cache_lock = threading.Lock()
        self._walk_lock = threading.Lock()
        self._table = _Table(automaton)
        self.levels: TrieLevels = self.trie
        if compress is not False:
            classes = getattr(automaton, "byte_classes", None)  # DFA and LazyDFA know theirs
            if classes is None and compress:
                raise MaskError("compress=True needs a DFA or a LazyDFA (their byte classes)")
            if classes is not None:
                if compress or classes.max() < COMPRESS_MAX_CLASSES:
                    merged = shared_class_trie(self.trie, classes)
                    if compress or merged.n_nodes <= COMPRESS_BELOW * self.trie.n_nodes:
                        self.levels = merged
        self._known_states = int(automaton.n_states)  # states below this exist (lazy: grows)
        self._next_memo: dict[int, int] = {}  # state * V + token -> next state (dict ops are atomic)
        self.walks = 0  # how many masks were computed (cache misses): for tests and benchmarks

    def __repr__(self) -> str:
        return (
            f"TokenIndex({type(self.automaton).__name__}, vocab_size={self.vocab_size}, "
            f"eos_id={self.eos_id}, cached={len(self._cache)})"
        )

    # -- masks -----------------------------------------------------------------------------------

    def mask(self, state: int) -> np.ndarray:
        """The allowed tokens in `state`: a read-only bool array of length vocab_size."""
        return self._mask(self._check_state(state))

    def _mask(self, state: int) -> np.ndarray:
        key = 2 * state  # cache keys: 2s for the mask of s, 2s + 1 for its bitmask (no tuples)
        with self._cache_lock:
            found = self._cache.get(key)
        if found is not None:
            return found
        with self._walk_lock:
            with self._cache_lock:
                found = self._cache.get(key)
            if found is not None:
                return found
            mask = self._walk(state)
        self._store(key, mask)
        return mask

    def bitmask(self, state: int) -> np.ndarray:
        """The mask packed in int32 words: token t is bit t % 32 of word t // 32 (read-only)."""
        state = self._check_state(state)
        key = 2 * state + 1
        with self._cache_lock:
            found = self._cache.get(key)
        if found is not None:
            return found
        packed = np.packbits(self._mask(state), bitorder="little")
        words = -(-self.vocab_size // 32)
        padded = np.zeros(4 * words, dtype=np.uint8)
        padded[: len(packed)] = packed
        bits = padded.view("<i4").astype(np.int32, copy=False)
        bits.setflags(write=False)
        self._store(key, bits)
        return bits

    def next_state(self, state: int, token_id: int) -> int:
        """The state after `token_id` in `state`: DEAD if the token is not allowed there.

        EOS does not move the automaton: ``next_state(s, eos_id)`` is s itself when s accepts,
        DEAD otherwise (`brzozowski.constraint.Constraint` turns an accepted EOS into "done").
        ``None`` and empty tokens are never allowed, so they give DEAD.
        """
        return self._next(self._check_state(state), self._check_token(token_id))

    def _next(self, state: int, token_id: int) -> int:
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

    def is_accepting(self, state: int) -> bool:
        """Whether `state` accepts (the text so far is in the language)."""
        return bool(self.automaton.is_accepting(self._check_state(state)))

    @property
    def start(self) -> int:
        """The automaton's start state."""
        return int(self.automaton.start)

    def cache_info(self) -> dict[str, int]:
        """The mask cache (entries, bytes, budget), how many walks were made, and the memory of
        the shared byte trie, of the class-string trie walked (0 if none), of the table."""
        with self._cache_lock:
            return {"entries": len(self._cache), "bytes": int(self._cache.currsize),
                    "budget": self.cache_bytes, "walks": self.walks,
                    "trie_bytes": self.trie.nbytes,
                    "class_trie_bytes": self.levels.nbytes if self.levels is not self.trie else 0,
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
            raise MaskError("state -1 is DEAD: no token continues from it, so it has no mask")
        if not 0 <= state < n:
            raise MaskError(f"state {state} does not exist (states 0..{n - 1}; DEAD is -1)")
        return state

    def _check_token(self, token_id: int) -> int:
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

    def _store(self, key: int, value: np.ndarray) -> None:
        with self._cache_lock:
            if value.nbytes <= self.cache_bytes:
                self._cache[key] = value

    def _walk(self, state: int) -> np.ndarray:
        """Compute the mask of `state` by one level-by-level walk of the trie (caller holds the walk lock).

        The level above is known either sparsely (its live nodes and their codes) or densely (one
        code per node of the level, DEAD = 0); each level is expanded in the cheaper of the two
        ways (see the module docstring) and hands its result down in the same form.
        """
        trie, table = self.levels, self._table
        complete = table.complete
        flat = table.flat
        child_lo, child_count, byte = trie.child_lo, trie.child_count, trie.byte
        forced = None if self.walk == "auto" else self.walk == "dense"
        sparse_found: list[np.ndarray] = []  # live nodes of sparse levels, while all were sparse
        alive_nodes: np.ndarray | None = None  # every node's liveness, once a level went dense
        small = trie.n_nodes <= SMALL_TRIE
        if small:  # cheap to keep whole from the start: one call per level to record a level
            alive_nodes = np.zeros(trie.n_nodes + 1, dtype=bool)
        above: np.ndarray | None = np.full(1, (state + 1) * 256, dtype=np.int32)  # dense: the root
        live_nodes = live_codes = above  # sparse form of the level above (unused while dense)
        n_live, above_size, above_lo = 1, 1, 0
        for lo, hi, local_parent, level_bytes in trie.levels:
            size = hi - lo
            if forced is not None:
                dense = forced
            else:  # a dense node costs ~3 ns, a sparse child ~25 ns plus more calls per level
                dense = n_live * DENSE_FRACTION >= above_size or size <= SMALL_LEVEL
            if dense:
                if above is None:  # the level above was sparse: spread it out
                    above = np.zeros(above_size, dtype=np.int32)
                    above[live_nodes - above_lo] = live_codes
                index = above.take(local_parent)
                index += level_bytes
                if not complete:
                    flat = table.ensure(index)
                level = flat.take(index, mode="clip")
                if alive_nodes is None and size <= SMALL_LEVEL:
                    sparse_found.append(np.flatnonzero(level) + lo)
                else:
                    if alive_nodes is None:
                        alive_nodes = np.zeros(trie.n_nodes + 1, dtype=bool)  # + the sentinel
                        for nodes in sparse_found:
                            alive_nodes[nodes] = True
                    np.not_equal(level, 0, out=alive_nodes[lo:hi])
                n_live = int(np.count_nonzero(level))
                above = level
            else:
                if above is not None:  # the level above was dense: list its live nodes
                    live_nodes = np.flatnonzero(above)
                    live_codes = above[live_nodes]
                    live_nodes += above_lo
                counts = child_count[live_nodes]
                total = int(counts.sum())
                if total == 0:
                    break
                ends_at = np.cumsum(counts)
                children = np.repeat(child_lo[live_nodes] - (ends_at - counts), counts)
                children += np.arange(total)
                if not complete:
                    flat = table.ensure(live_codes)
                index = np.repeat(live_codes, counts)
                index += byte[children]
                found = flat[index]
                alive = found.nonzero()[0]
                live_nodes, live_codes = children[alive], found[alive]
                if alive_nodes is None:
                    sparse_found.append(live_nodes)
                else:
                    alive_nodes[live_nodes] = True
                n_live = len(live_nodes)
                above = None
            if n_live == 0:
                break
            above_size, above_lo = size, lo
        gather = alive_nodes is not None and not small
        if not gather:  # how many tokens end at the live nodes?
            if small:
                nodes = np.flatnonzero(alive_nodes)
            else:
                nodes = np.concatenate(sparse_found) if sparse_found else np.zeros(0, dtype=np.intp)
            counts = trie.token_count[nodes]
            total = int(counts.sum())
            gather = total * 8 > self.vocab_size  # many: one gather is cheaper than a scatter
            if gather and alive_nodes is None:
                alive_nodes = np.zeros(trie.n_nodes + 1, dtype=bool)
                alive_nodes[nodes] = True
        if gather:  # one gather over the vocabulary
            mask = alive_nodes.take(trie.token_node)
        else:  # only the tokens ending at the few live nodes
            mask = np.zeros(self.vocab_size, dtype=bool)
            if total:
                ends_at = np.cumsum(counts)
                slots = np.repeat(trie.token_lo[nodes] - (ends_at - counts), counts)
                slots += np.arange(total)
                mask[trie.token_ids[slots]] = True
        if self.eos_id is not None:
            mask[self.eos_id] = bool(self.automaton.is_accepting(state))
        mask.setflags(write=False)
        self.walks += 1
        return mask
