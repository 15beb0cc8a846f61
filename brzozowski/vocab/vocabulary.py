"""The vocabulary side of masks: token tries, built once per tokenizer and shared by every index.

A `Vocabulary` is a tokenizer's token bytes (``None`` for a special token) and its EOS id, with what
every `brzozowski.masks.index.TokenIndex` over it reads: the byte trie (`VocabTrie`) and, built on first
use, per-vocabulary tables that the layers above register a *preparer* for (`register_preparer`:
`brzozowski.json` registers its string, key, format and numeral tables). Build it once per tokenizer;
an index over it then costs microseconds. This module imports nothing above the vocabulary layer.

Invariant: everything here depends on the token bytes alone (never on an automaton), is immutable
once built, and is the same whichever index asks first, so it may be shared between indexes and
threads.

>>> vocabulary = Vocabulary([b"c", b"a", b"ca", b"cat", None, b""], eos_id=4)
>>> vocabulary
Vocabulary(6 tokens, eos_id=4, trie of 5 nodes)
>>> trie = vocabulary.trie
>>> [trie.byte_string(n) for n in range(trie.n_nodes)], int(trie.token_node[2])
([b'', b'a', b'c', b'ca', b'cat'], 3)

The trie
--------
Nodes are numbered breadth first (the root, then every 1-byte prefix, then every 2-byte prefix, ...)
and stored as flat numpy arrays (`TokenTrie`): each node's parent and byte, the range of its
children, the tokens ending at it. A walk (`brzozowski.masks.index`) reads one level at a time through
`TokenTrie.level_views`.

A pattern's byte classes (bytes that lead everywhere to the same states) merge tokens that agree
class by class: `class_trie` is the trie of the tokens' *class strings*, derived from the byte trie
(once per partition: it costs many walks), shared per (vocabulary, byte partition) by
`shared_class_trie`. Its nodes carry the lowest byte of their class, so a walk runs unchanged on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import cachetools
import numpy as np

from ..budget import DEFAULT_LIMITS, outside_deadline
from ..errors import InputLimitError, VocabularyError

__all__ = [
    "ClassTrieBuild", "TokenTrie", "VocabTrie", "Vocabulary", "checked_token_bytes", "class_trie", "distinct",
    "kept_class_trie", "merged_classes", "register_preparer", "share_class_trie", "shared_class_trie",
    "stable_order", "token_trie", "vocab_trie",
]

_SHARED_TRIES = 4  # how many vocabulary tries `vocab_trie` keeps for reuse
_SHARED_CLASS_TRIES = 16  # how many class tries (per vocabulary and byte partition) are kept


def _ranges(lo: np.ndarray, count: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indices ``lo[n]:lo[n] + count[n]`` of each of `nodes` in turn, and the counts."""
    counts = count[nodes]
    ends_at = np.cumsum(counts)
    indices = np.repeat(lo[nodes] - (ends_at - counts), counts)
    indices += np.arange(int(ends_at[-1]) if len(ends_at) else 0)
    return indices, counts


def token_trie(tokens: Sequence[bytes | None]) -> TokenTrie:
    """The `TokenTrie` of `tokens` (token t's bytes; None or empty: a token that ends at no node),
    for a trie of some tokens' bytes that is not a vocabulary's (`VocabTrie`)."""
    return TokenTrie(len(tokens), *_levels(tokens))


def _levels(tokens: Sequence[bytes | None]) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """`TokenTrie`'s arguments after its size for `tokens`: the level starts, each node's parent
    and byte, each token's node."""
    ids = np.fromiter((i for i, t in enumerate(tokens) if t), dtype=np.intp)
    lengths = np.fromiter((len(tokens[i]) for i in ids.tolist()), dtype=np.intp, count=len(ids))
    flat = np.frombuffer(b"".join(tokens[i] for i in ids.tolist()), dtype=np.uint8)
    offsets = np.cumsum(lengths) - lengths
    depth = int(lengths.max(initial=0))

    # Level by level, the node of each (nonempty) token's prefix of length d is the distinct
    # (parent node, byte) pair: `distinct` numbers them sorted by parent, then byte, so each
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
        values, inverse = distinct(key)
        parents.append(values >> 8)
        bytes_.append(values & 255)
        node = level_start[-1] + inverse
        ending = lengths[active] == d
        end_node[active[ending]] = node[ending]
        level_start.append(level_start[-1] + len(values))
    token_node = np.full(len(tokens), level_start[-1], dtype=np.intp)
    token_node[ids] = end_node
    return level_start, np.concatenate(parents), np.concatenate(bytes_), token_node


class TokenTrie:
    """A token trie stored level by level in flat numpy arrays (immutable): what a walk reads.

    Nodes are numbered breadth first: node 0 is the root (the empty prefix), level d holds the
    nodes ``level_start[d]:level_start[d+1]``, sorted by (parent, label). ``parent[n]`` and
    ``byte[n]`` give a node's parent and the byte that leads to it; its children are
    ``child_lo[n]:child_lo[n] + child_count[n]``. ``token_node[t]`` is the node where token t
    ends, or the sentinel ``n_nodes`` for a token that is never allowed (``None`` or empty);
    the tokens ending at node n are ``token_ids[token_lo[n]:token_lo[n + 1]]``.
    ``level_views[d - 1]`` is what a walk needs of level d >= 1, sliced once:
    ``(lo, hi, parent index within level d - 1, bytes)``.
    """

    def __init__(self, vocab_size: int, level_start: list[int], parent: np.ndarray,
                 byte: np.ndarray, token_node: np.ndarray, token_ids: np.ndarray | None = None) -> None:
        self.vocab_size = vocab_size
        self.n_nodes = n = level_start[-1]
        self.depth = depth = len(level_start) - 2
        self.level_start = np.asarray(level_start, dtype=np.intp)
        self.parent = parent.astype(np.intp, copy=False)
        self.byte = byte.astype(np.int32, copy=False)
        # Children of node n are contiguous (levels are sorted by parent): find their ranges.
        self.child_count = np.bincount(self.parent[1:], minlength=n + 1)
        self.child_lo = np.cumsum(self.child_count) - self.child_count + 1
        self.token_node = token_node.astype(np.intp, copy=False)
        self.token_ids = tokens_by_node(self.token_node, n) if token_ids is None else token_ids
        counts = np.bincount(self.token_node, minlength=n + 1)
        counts[n] = 0  # (the tokens at the sentinel: never allowed, listed nowhere)
        self.token_lo = np.concatenate(([0], np.cumsum(counts)))
        self.token_count = counts
        for array in (self.level_start, self.parent, self.byte, self.child_lo, self.child_count,
                      self.token_node, self.token_ids, self.token_lo, self.token_count):
            array.setflags(write=False)
        self._python_view: tuple[bytes, memoryview, memoryview] | None = None
        self._token_view: tuple[memoryview, memoryview, memoryview] | None = None
        self.level_views: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        for d in range(1, depth + 1):
            lo, hi = int(self.level_start[d]), int(self.level_start[d + 1])
            local_parent = self.parent[lo:hi] - self.level_start[d - 1]
            local_parent.setflags(write=False)
            self.level_views.append((lo, hi, local_parent, self.byte[lo:hi]))

    def python_view(self) -> tuple[bytes, memoryview, memoryview]:
        """``byte`` as a bytes object (``labels.find(b, lo, hi)`` finds a child by its byte), and
        ``child_lo``, ``child_count`` as memoryviews: what a walk in plain Python reads (built
        once; indexing a memoryview gives a Python int without numpy's scalar overhead)."""
        view = self._python_view
        if view is None:
            view = self._python_view = (self.byte.astype(np.uint8).tobytes(),
                                        memoryview(self.child_lo), memoryview(self.child_count))
        return view

    def token_view(self) -> tuple[memoryview, memoryview, memoryview]:
        """``token_lo``, ``token_count`` and ``token_ids`` as memoryviews: the tokens ending at the
        few nodes a walk in plain Python found, listed without numpy calls."""
        view = self._token_view
        if view is None:
            view = self._token_view = (memoryview(self.token_lo), memoryview(self.token_count),
                                       memoryview(self.token_ids))
        return view

    def children_of(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every child of `nodes` (grouped by parent, in the order of `nodes`), and how many each
        node has."""
        return _ranges(self.child_lo, self.child_count, nodes)

    def tokens_at(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tokens ending at `nodes` (grouped by node, in the order of `nodes`), and how many end
        at each."""
        slots, counts = _ranges(self.token_lo, self.token_count, nodes)
        return self.token_ids[slots], counts

    def byte_string(self, node: int) -> bytes:
        """The bytes that lead from the root to `node` (for a class trie: the lowest bytes)."""
        out = []
        while node:
            out.append(int(self.byte[node]))
            node = int(self.parent[node])
        return bytes(reversed(out))

    @property
    def nbytes(self) -> int:
        """The memory held by the trie's arrays (the token bytes themselves not counted)."""
        arrays = [a for a in vars(self).values() if isinstance(a, np.ndarray)]
        labels = len(self._python_view[0]) if self._python_view is not None else 0
        return sum(a.nbytes for a in arrays) + sum(view[2].nbytes for view in self.level_views) + labels

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(vocab_size={self.vocab_size}, n_nodes={self.n_nodes}, "
                f"depth={self.depth})")


class VocabTrie(TokenTrie):
    """The byte trie of a vocabulary (see `TokenTrie`), shared by every index over it.

    Tokens with the same bytes end at the same node; ``tokens[t]`` are token t's bytes.
    ``tables`` holds per-vocabulary precomputations, each built once on first use under
    ``tables_lock`` (see `brzozowski.json.string_masks`).
    """

    def __init__(self, vocab: Sequence[bytes | None]) -> None:
        tokens = _validated(vocab)
        super().__init__(len(tokens), *_levels(tokens))
        self.tokens: tuple[bytes | None, ...] = tuple(tokens)
        self.tables: dict[Any, Any] = {}
        self.tables_lock = threading.RLock()  # a table's build may ask for another table
        self.prepared: set = set()  # the preparers (`register_preparer`) run on this trie

    @property
    def longest_token(self) -> int:
        """The bytes of the longest token (the trie's depth)."""
        return len(self.level_start) - 2

    def kept(self, key: Hashable, build: Callable[[], object]) -> object:
        """``tables[key]``, built by `build` the first time (once, whatever the threads; outside any
        mask step's deadline: one-time work). `key` names its owner (a class or module object
        first), so layers never collide."""
        found = self.tables.get(key)
        if found is not None:
            return found
        with self.tables_lock:
            found = self.tables.get(key)
            if found is None:
                with outside_deadline():
                    found = self.tables[key] = build()
        return found


_PREPARERS: list[Callable[[VocabTrie], None]] = []


def register_preparer(prepare: Callable[[VocabTrie], None]) -> None:
    """Have every `Vocabulary` built from now on call ``prepare(trie)`` once per trie: a layer above
    builds its per-vocabulary tables then, so that no mask step waits for one."""
    if prepare not in _PREPARERS:
        _PREPARERS.append(prepare)


class Vocabulary:
    """A tokenizer's tokens and EOS id, with the shared byte trie: build once, share everywhere.

    `tokens`: token id -> bytes, or None for a token that is never allowed (a special token), or a
    prebuilt `VocabTrie`. `eos_id`: the end-of-sequence token (allowed exactly in accepting
    states), or None. `max_token_bytes`: the longest token allowed (`brzozowski.budget.Limits`;
    `InputLimitError` past it). Building it builds the byte trie (shared with every other
    `Vocabulary` of the same tokens), then runs every registered preparer once per trie
    (`register_preparer`: the JSON tables, `brzozowski.json.masks`), all kept on the trie. Passing a
    `Vocabulary` to `brzozowski.masks.index.TokenIndex` then costs no table building; passing the
    token list makes every index look the trie up by the tokens' contents (hashing every token).
    """

    __slots__ = ("eos_id", "trie")

    def __init__(self, tokens: Sequence[bytes | None] | VocabTrie, eos_id: int | None = None,
                 max_token_bytes: int | None = DEFAULT_LIMITS.max_token_bytes) -> None:
        self.trie = vocab_trie(tokens, max_token_bytes)
        self.eos_id = checked_eos(eos_id, self.trie.vocab_size)
        for prepare in _PREPARERS:
            if prepare not in self.trie.prepared:
                with self.trie.tables_lock:
                    if prepare not in self.trie.prepared:
                        prepare(self.trie)
                        self.trie.prepared.add(prepare)

    @property
    def tokens(self) -> tuple[bytes | None, ...]:
        """Token id -> bytes (None for a token never allowed)."""
        return self.trie.tokens

    def __len__(self) -> int:
        return self.trie.vocab_size

    def __repr__(self) -> str:
        return (f"Vocabulary({len(self)} tokens, eos_id={self.eos_id}, "
                f"trie of {self.trie.n_nodes} nodes)")


def checked_eos(eos_id: Any, vocab_size: int) -> int | None:
    """`eos_id` as an int inside the vocabulary (or None); `VocabularyError` otherwise."""
    if eos_id is None:
        return None
    if isinstance(eos_id, bool) or not isinstance(eos_id, (int, np.integer)):
        raise VocabularyError(f"eos_id must be an int token id, not {eos_id!r}")
    if not 0 <= eos_id < vocab_size:
        raise VocabularyError(f"eos_id {eos_id} is outside the vocabulary (ids 0..{vocab_size - 1})")
    return int(eos_id)


def class_trie(trie: TokenTrie, class_of_byte: np.ndarray, live: np.ndarray | None = None) -> TokenTrie:
    """The trie of the tokens' *class strings*: bytes of one class (``class_of_byte``, int[256])
    lead to the same states from every state, so tokens whose bytes agree class by class are
    merged. A node's ``byte`` is the lowest byte of its class, so walks run unchanged on it.
    `live` (bool per class): the classes that lead somewhere from some state; a token with a byte
    of any other class ends at the sentinel (its nodes from that byte on are left out: an automaton
    reading it dies there, whatever the state).
    """
    return merged_classes(trie, class_of_byte, live)[0]


def merged_classes(trie: TokenTrie, class_of_byte: np.ndarray,
                   live: np.ndarray | None = None) -> tuple[TokenTrie, np.ndarray]:
    """`class_trie`, and the class-trie node of every node of `trie` (its sentinel included: the
    nodes left out go to the class trie's sentinel)."""
    build = ClassTrieBuild(trie, class_of_byte, live)
    while build.result is None:
        build.advance(trie.n_nodes + 1)
    return build.result


class ClassTrieBuild:
    """`merged_classes` a few levels at a time: each `advance` merges levels until it has read at
    least the nodes it is given, and the three calls after the last level build the `TokenTrie`,
    so that a walker can spread a build over several mask steps instead of stopping one for all
    of it; `result` once done."""

    def __init__(self, trie: TokenTrie, class_of_byte: np.ndarray, live: np.ndarray | None = None) -> None:
        self.trie = trie
        self.class_of_byte = class_of_byte = np.asarray(class_of_byte, dtype=np.intp)
        self.n_classes = int(class_of_byte.max()) + 1
        self.lowest = np.full(self.n_classes, 256, dtype=np.intp)
        np.minimum.at(self.lowest, class_of_byte, np.arange(256))
        self.live_byte = None if live is None else np.asarray(live, dtype=bool)[class_of_byte]
        self.merged = np.full(trie.n_nodes + 1, -1, dtype=np.intp)  # byte node -> class node (-1: left out)
        self.merged[0] = 0
        self.level_start = [0, 1]
        self.parents, self.labels = [np.zeros(1, dtype=np.intp)], [np.zeros(1, dtype=np.intp)]
        self.kept = np.zeros(1, dtype=np.intp)  # the nodes of the level above that were kept
        self.depth: int | None = 1  # the next level to merge (None: every level is merged)
        self.arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # the trie's, once merged
        self.token_ids: np.ndarray | None = None  # its tokens sorted by node, next
        self.result: tuple[TokenTrie, np.ndarray] | None = None

    def advance(self, most_nodes: int) -> None:
        """Merge levels until at least `most_nodes` nodes were read (a level reads at least
        `LEVEL_NODES`); once every level is merged, the next call lays out the trie's arrays, the
        one after sorts its tokens by node, and the third builds it (`result`): three parts of
        about the same work, none of them the whole build."""
        trie = self.trie
        if self.depth is None:
            if self.arrays is None:
                merged, level_start = self.merged, self.level_start
                merged[merged < 0] = level_start[-1]  # the sentinel: for the left-out nodes and trie's own
                self.arrays = np.concatenate(self.parents), np.concatenate(self.labels), merged[trie.token_node]
            elif self.token_ids is None:
                self.token_ids = tokens_by_node(self.arrays[2], self.level_start[-1])
            elif self.result is None:
                self.result = TokenTrie(trie.vocab_size, self.level_start, *self.arrays, self.token_ids), self.merged
            return
        read = 0
        while read < most_nodes:
            d = self.depth
            if d > trie.depth or not self._merge(d):
                self.depth = None
                return
            read += max(int(trie.level_start[d + 1] - trie.level_start[d]), self.LEVEL_NODES)
            self.depth = d + 1

    LEVEL_NODES = 1024
    """What merging a level costs at least, in nodes: its dozen numpy calls cost as much as
    merging several hundred nodes, and the deep levels of a vocabulary's trie hold a few each."""

    def _merge(self, d: int) -> bool:
        """Number the class nodes of level d; False if none is left (every byte of it dead)."""
        trie, merged, level_start, n_classes = self.trie, self.merged, self.level_start, self.n_classes
        if self.live_byte is None:
            nodes = np.arange(int(trie.level_start[d]), int(trie.level_start[d + 1]))
        else:
            nodes = trie.children_of(self.kept)[0]
            nodes = self.kept = nodes[self.live_byte[trie.byte[nodes]]]
            if not len(nodes):
                return False
        above_lo = level_start[-2]
        key = (merged[trie.parent[nodes]] - above_lo) * n_classes
        key += self.class_of_byte[trie.byte[nodes]]
        values, inverse = distinct(key)
        merged[nodes] = level_start[-1] + inverse
        self.parents.append(above_lo + values // n_classes)
        self.labels.append(self.lowest[values % n_classes])
        level_start.append(level_start[-1] + len(values))
        return True


def tokens_by_node(token_node: np.ndarray, n_nodes: int) -> np.ndarray:
    """A `TokenTrie`'s ``token_ids``: the tokens sorted by the node they end at, then by id (a
    token at the sentinel `n_nodes` left out)."""
    real = np.flatnonzero(token_node < n_nodes)
    return real[stable_order(token_node[real])]


def stable_order(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for integer keys in ``0 .. 2**32 - 1``, in two stable
    passes over 16-bit halves (numpy sorts 16-bit keys by radix: linear, where a 64-bit stable sort
    is a merge sort)."""
    keys = keys.astype(np.uint32)
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    return order[np.argsort((keys[order] >> 16).astype(np.uint16), kind="stable")]


def distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for integer keys in ``0 .. 2**32 - 1`` (the inverse
    flat): by marking a table of the range when it is at most a few times the keys' number, else
    by `stable_order`; neither sorts by comparison (wider keys: `np.unique`)."""
    if not len(keys):
        return keys[:0].astype(np.int64), np.zeros(0, dtype=np.intp)
    top = int(keys.max()) + 1
    if top > 1 << 32:
        values, inverse = np.unique(keys, return_inverse=True)
        return values, inverse.reshape(-1)
    if top <= 2 * len(keys) + 65536:
        seen = np.zeros(top, dtype=bool)
        seen[keys] = True
        values = np.flatnonzero(seen)
        return values, (np.cumsum(seen, dtype=np.int32) - 1)[keys].astype(np.intp)
    order = stable_order(keys)
    ordered = keys[order].astype(np.int64)
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(ordered), dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _validated(vocab: Sequence[bytes | None]) -> list[bytes | None]:
    if isinstance(vocab, (str, bytes, bytearray)) or not isinstance(vocab, Sequence):
        raise VocabularyError(
            f"the vocabulary must be a sequence of bytes or None (one per token id), "
            f"not {type(vocab).__name__}; use brzozowski.vocab.tokenizers.vocab_bytes(tokenizer) to get one"
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
                    "must be decoded to bytes first (brzozowski.vocab.tokenizers.vocab_bytes undoes the "
                    "GPT-2 byte map)"
                )
    return tokens


_trie_lock = threading.Lock()
_tries: cachetools.LRUCache = cachetools.LRUCache(maxsize=_SHARED_TRIES)


def vocab_trie(vocab: Sequence[bytes | None] | VocabTrie | Vocabulary,
               max_token_bytes: int | None = DEFAULT_LIMITS.max_token_bytes) -> VocabTrie:
    """The `VocabTrie` of `vocab`, built once and shared (the last few vocabularies are kept);
    `InputLimitError` if a token is longer than `max_token_bytes` (None: no limit)."""
    if isinstance(vocab, VocabTrie):
        return checked_token_bytes(vocab, max_token_bytes)
    if isinstance(vocab, Vocabulary):
        return checked_token_bytes(vocab.trie, max_token_bytes)
    tokens = tuple(_validated(vocab))
    if max_token_bytes is not None:
        for t, data in enumerate(tokens):
            if data is not None and len(data) > max_token_bytes:
                raise _too_long(t, len(data), max_token_bytes)
    with _trie_lock:
        found = _tries.get(tokens)
    if found is None:
        found = VocabTrie(tokens)
        with _trie_lock:
            found = _tries.setdefault(tokens, found)
    return found


def checked_token_bytes(trie: VocabTrie, max_token_bytes: int | None) -> VocabTrie:
    """`trie`, or `InputLimitError` if a token is longer than `max_token_bytes` (None: no limit)."""
    if max_token_bytes is not None and trie.longest_token > max_token_bytes:
        t = max(range(trie.vocab_size), key=lambda t: len(trie.tokens[t] or b""))
        raise _too_long(t, len(trie.tokens[t]), max_token_bytes)
    return trie


def _too_long(t: int, length: int, most: int) -> InputLimitError:
    return InputLimitError(f"token {t} is {length} bytes long: over Limits.max_token_bytes ({most})")


_class_trie_lock = threading.Lock()
_class_tries: cachetools.LRUCache = cachetools.LRUCache(maxsize=_SHARED_CLASS_TRIES)


def shared_class_trie(trie: TokenTrie, class_of_byte: np.ndarray) -> TokenTrie:
    """`class_trie` of (trie, classes), built once and shared (the last few are kept)."""
    found = kept_class_trie(trie, class_of_byte)
    return share_class_trie(trie, class_of_byte, class_trie(trie, class_of_byte)) if found is None else found


def kept_class_trie(trie: TokenTrie, class_of_byte: np.ndarray) -> TokenTrie | None:
    """The shared `class_trie` of (trie, classes) if one was kept (`share_class_trie`), else None."""
    with _class_trie_lock:
        return _class_tries.get(_class_trie_key(trie, class_of_byte))


def share_class_trie(trie: TokenTrie, class_of_byte: np.ndarray, built: TokenTrie) -> TokenTrie:
    """Keep `built`, the `class_trie` of (trie, classes), for every walker (the one kept first wins)."""
    with _class_trie_lock:
        return _class_tries.setdefault(_class_trie_key(trie, class_of_byte), built)


def _class_trie_key(trie: TokenTrie, class_of_byte: np.ndarray) -> tuple:
    return trie, np.asarray(class_of_byte, dtype=np.intp).tobytes()
