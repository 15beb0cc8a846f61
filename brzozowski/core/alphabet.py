"""The byte alphabet: byte sets, partitions of the 256 bytes into classes, and what an automaton is.

Every stage reads bytes, and several must know which bytes they can treat alike. This module is
the one home of that idea (as regex-automata's ``util/alphabet.rs`` is for its engines):

- **Byte sets** are Python ints in ``0..ALL_BYTES``: bit b set means byte b is in the set.
  `byte_range`, `byte_set_of_ranges` and `byte_ranges` convert between sets and inclusive runs
  ``(lo, hi)``; `show_byte_set` prints a set as a pattern would write it (`show_byte` one byte).
- **Partitions.** A partition is a tuple of non-empty, pairwise disjoint byte sets whose union is
  `ALL_BYTES`, ordered by their lowest byte; `ONE_CLASS` is the partition that tells no bytes apart.
  `partition_of` makes one and interns it, so that `meet` (the coarsest common refinement) can be
  memoized by identity. Both memos are process-wide but bounded (`MAX_PARTITION_MEMO`; when full,
  each new entry evicts the oldest, so no step pays for emptying thousands at once): a memo entry
  holds the partitions it is keyed by, so an id in a key always belongs to a live object, and an
  evicted entry costs time, never correctness.
- **Byte classes.** `ByteClasses.of(partition)` is a partition as automata use it: the class index
  of every byte (``class_of``, int[256], classes numbered in partition order) and each class's
  lowest byte (``representatives``). Every automaton's ``byte_classes`` array is such a numbering:
  bytes of one class lead from every state to the same state. `table_classes` finds the classes of
  a complete transition table (bytes whose columns are equal), numbered the same way.
- **Automata.** `DEAD` (-1) is the transition to no state; `Automaton` is the protocol that
  `brzozowski.automata.dfa.DFA` and `brzozowski.automata.lazy.LazyDFA` share and that token masks, constraints and
  the golden check read; `target_runs` lists a row of transitions as runs of one target.

>>> show_byte_set(byte_set_of_ranges([(0x61, 0x63), (0x78, 0x78)])), byte_ranges(0b1011)
('[a-cx]', [(0, 1), (3, 3)])
>>> p = meet(partition_of([byte_range(0x61, 0x7A), ALL_BYTES ^ byte_range(0x61, 0x7A)]),
...          partition_of([1 << 0x62, ALL_BYTES ^ (1 << 0x62)]))
>>> [show_byte_set(bits) for bits in p]
['[\\\\x00-`\\\\{-\\\\xff]', '[ac-z]', 'b']
>>> classes = ByteClasses.of(p)
>>> len(classes), classes.representatives, int(classes.class_of[ord("b")])
(3, (0, 97, 98), 2)
>>> target_runs([DEAD] * 97 + [1, 1, 2] + [DEAD] * 156)
[(97, 98, 1), (99, 99, 2)]

Reference: regex-automata, ``src/util/alphabet.rs`` (byte classes); Owens, Reppy and Turon 2009,
§4.2 (the derivative classes these partitions hold).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = [
    "ALL_BYTES", "DEAD", "MAX_BYTE_CLASSES", "MAX_PARTITION_MEMO", "ONE_CLASS", "Automaton",
    "ByteClasses", "byte_range", "byte_ranges", "byte_set_of_ranges", "meet", "partition_of",
    "show_byte", "show_byte_set", "table_classes", "target_runs",
]

ALL_BYTES = (1 << 256) - 1
"""The byte set of all 256 bytes."""

DEAD = -1
"""The transition target when no string of the language continues (the derivative is ∅)."""


# -- byte sets and their ranges ------------------------------------------------------------------

def byte_range(lo: int, hi: int) -> int:
    """The byte set of the bytes ``lo..hi`` (inclusive; empty when ``lo > hi``)."""
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1) if lo <= hi else 0


def byte_set_of_ranges(ranges: Iterable[tuple[int, int]]) -> int:
    """The byte set of the inclusive runs ``(lo, hi)``: the inverse of `byte_ranges`."""
    bits = 0
    for lo, hi in ranges:
        bits |= byte_range(lo, hi)
    return bits


def byte_ranges(bits: int) -> list[tuple[int, int]]:
    """The maximal runs ``(lo, hi)`` (inclusive) of a byte set, ascending."""
    ranges = []
    b = 0
    while bits >> b:
        if (bits >> b) & 1:
            start = b
            while (bits >> (b + 1)) & 1:
                b += 1
            ranges.append((start, b))
        b += 1
    return ranges


def show_byte(b: int) -> str:
    """A byte as it would appear in a pattern: printable ASCII as itself, else ``\\xHH``."""
    c = chr(b)
    if c in "\\[]()|*+?{}.^$-":
        return "\\" + c
    return c if 0x21 <= b <= 0x7E else f"\\x{b:02x}"


def show_byte_set(bits: int) -> str:
    """A byte set as a single byte or a bracketed class of ranges (all bytes: ``[\\x00-\\xff]``).

    >>> print(show_byte_set(ALL_BYTES), show_byte_set(0b110 << 97), show_byte_set(1 << 10))
    [\\x00-\\xff] [bc] \\x0a
    """
    if bits == ALL_BYTES:
        return "[\\x00-\\xff]"
    if bits & (bits - 1) == 0:
        return show_byte(bits.bit_length() - 1)
    parts = []
    for lo, hi in byte_ranges(bits):
        if lo == hi:
            parts.append(show_byte(lo))
        elif hi == lo + 1:
            parts.append(show_byte(lo) + show_byte(hi))
        else:
            parts.append(f"{show_byte(lo)}-{show_byte(hi)}")
    return "[" + "".join(parts) + "]"


# -- partitions ------------------------------------------------------------------------------------

ONE_CLASS: tuple[int, ...] = (ALL_BYTES,)
"""The partition with a single class: no byte told apart from another."""

MAX_PARTITION_MEMO = 1 << 12
"""How many partitions, and how many meets, the process-wide memos hold (then the oldest goes).
One compilation uses a few hundred (a 10-property schema 129 partitions and 90 meets, the largest
corpus schemas ~250 and ~300), so the memos only serve the pattern being compiled; a partition of
a JSON schema's state holds tens of byte sets (~1 kB), and at 1 << 16 entries the two memos held
~110 MB after 2,500 schemas in a long-running process (benchmarks/bench_memory.py; see
benchmarks/record/2026-12-01-issue-09-memory-and-pauses.md)."""

_PARTITIONS: OrderedDict[tuple[int, ...], tuple[int, ...]] = OrderedDict()
_MEETS: OrderedDict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = \
    OrderedDict()


def _make_room(memo: OrderedDict, limit: int) -> None:
    """Evict `memo`'s oldest entries until it holds fewer than `limit`."""
    while len(memo) >= limit:
        try:
            memo.popitem(last=False)
        except KeyError:  # another thread emptied it meanwhile
            break


def partition_of(sets: Sequence[int]) -> tuple[int, ...]:
    """The interned partition made of the non-empty `sets` (disjoint, covering all bytes), ordered
    by lowest byte."""
    key = tuple(sorted((s for s in sets if s), key=lambda s: s & -s))
    found = _PARTITIONS.get(key)
    if found is None:  # (an evicted partition's equal may then be a distinct object: slower, not wrong)
        _make_room(_PARTITIONS, MAX_PARTITION_MEMO)
        found = _PARTITIONS.setdefault(key, key)
    return found


def meet(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """The coarsest partition refining both `p` and `q` (memoized by the partitions' identity)."""
    if p is q or len(q) == 1:
        return p
    if len(p) == 1:
        return q
    found = _MEETS.get((id(p), id(q)))
    if found is not None and found[0] is p and found[1] is q:  # the entry keeps p and q alive
        return found[2]
    result = partition_of([a & b for a in p for b in q if a & b])
    _make_room(_MEETS, MAX_PARTITION_MEMO)
    _MEETS[(id(p), id(q))] = (p, q, result)
    return result


def partition_by(sets: Iterable[int]) -> tuple[int, ...]:
    """The coarsest partition in which every one of the byte `sets` is a union of classes: the meet
    of all their two-class partitions at once (bytes grouped by which sets hold them), interned by
    `partition_of`. One numpy grouping, where meeting them one at a time builds a partition per set."""
    rows = list(set(sets) - {0, ALL_BYTES})
    if not rows:
        return ONE_CLASS
    packed = np.frombuffer(b"".join(bits.to_bytes(32, "little") for bits in rows), np.uint8)
    members = np.unpackbits(packed.reshape(len(rows), 32), axis=1, bitorder="little")  # [set, byte]
    signatures = np.packbits(members, axis=0).T.tobytes()  # per byte: which sets hold it
    width = len(signatures) // 256
    classes: dict[bytes, int] = {}
    for b in range(256):
        key = signatures[b * width:(b + 1) * width]
        classes[key] = classes.get(key, 0) | 1 << b
    return partition_of(list(classes.values()))


# -- byte classes ----------------------------------------------------------------------------------

class ByteClasses:
    """A partition as automata use it: the class of every byte and one representative per class.

    Shared by every state (and every automaton) with the same partition: build it with `of`.
    """

    __slots__ = ("partition", "representatives", "_class_of", "_class_bytes")

    def __init__(self, partition: tuple[int, ...]) -> None:
        self.partition = partition
        self.representatives = tuple([(bits & -bits).bit_length() - 1 for bits in partition])
        """The lowest byte of each class, in class order (a tuple of ints, which the garbage
        collector stops tracking: thousands of these live in the process-wide memo)."""
        self._class_of: np.ndarray | None = None
        self._class_bytes: bytes | None = None

    @staticmethod
    def of(partition: tuple[int, ...]) -> ByteClasses:
        """The (memoized) byte classes of `partition`."""
        found = _BYTE_CLASSES.get(partition)
        if found is None:
            _make_room(_BYTE_CLASSES, MAX_BYTE_CLASSES)
            found = _BYTE_CLASSES[partition] = ByteClasses(partition)
        return found

    def __len__(self) -> int:
        return len(self.partition)

    @property
    def class_of(self) -> np.ndarray:
        """The class index of every byte (int[256], read-only: shared), built on first use."""
        if self._class_of is None:
            partition = self.partition
            packed = np.frombuffer(b"".join(bits.to_bytes(32, "little") for bits in partition),
                                   np.uint8)
            members = np.unpackbits(packed.reshape(len(partition), 32), axis=1, bitorder="little")
            class_of = members.argmax(axis=0)  # each byte is in exactly one class
            class_of.setflags(write=False)
            self._class_of = class_of
        return self._class_of

    @property
    def class_bytes(self) -> bytes:
        """`class_of` as a bytes object (a partition has at most 256 classes): indexing it gives a
        Python int, without a numpy scalar's overhead, for loops in plain Python."""
        if self._class_bytes is None:
            self._class_bytes = self.class_of.astype(np.uint8).tobytes()
        return self._class_bytes

    def classes_of(self, alphabet: list[int]) -> list[int]:
        """This partition's class of each byte in `alphabet`."""
        return [next(i for i, bits in enumerate(self.partition) if (bits >> b) & 1) for b in alphabet]


MAX_BYTE_CLASSES = 4096
"""How many `ByteClasses` (one per distinct partition) the process-wide memo of `ByteClasses.of`
holds; then each new one evicts the oldest (emptying it at once made one mask step pay for
deallocating every entry: benchmarks/record/2026-12-01-issue-09-memory-and-pauses.md). Keyed by
the partition's value, so an evicted entry costs time, never correctness."""

_BYTE_CLASSES: OrderedDict[tuple[int, ...], ByteClasses] = OrderedDict()

_COLUMN_WEIGHTS = np.random.default_rng(20091).integers(1, 2**62, size=1 << 16, dtype=np.int64)


def table_classes(trans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The byte classes of a transition table ``int[S, 256]``: bytes with equal columns. Returns
    (the distinct columns [S, K], the class of every byte [256]), classes numbered in the order of
    their lowest byte.

    Columns are grouped by a random linear hash; the grouping is then verified exactly, and on a
    hash collision (never seen) the columns are grouped by their bytes instead: a collision costs
    time, never correctness.
    """
    n_states = trans.shape[0]
    if n_states <= len(_COLUMN_WEIGHTS):
        keys: list = (_COLUMN_WEIGHTS[:n_states] @ trans.astype(np.int64)).tolist()
        class_of_byte, representatives = _group(keys)
        if np.array_equal(trans[:, representatives][:, class_of_byte], trans):
            return trans[:, representatives], class_of_byte
    keys = [trans[:, b].tobytes() for b in range(256)]
    class_of_byte, representatives = _group(keys)
    return trans[:, representatives], class_of_byte


def _group(keys: list) -> tuple[np.ndarray, list[int]]:
    """Classes of equal keys: (the class of every index, the first index of every class)."""
    first_index: dict = {}
    class_of = [first_index.setdefault(key, len(first_index)) for key in keys]
    representatives = [0] * len(first_index)
    for index in range(len(keys) - 1, -1, -1):
        representatives[class_of[index]] = index
    return np.array(class_of, dtype=np.intp), representatives


# -- automata --------------------------------------------------------------------------------------

@runtime_checkable
class Automaton(Protocol):
    """What `brzozowski.automata.dfa.DFA` and `brzozowski.automata.lazy.LazyDFA` both are: states ``0..n_states-1``
    (a lazy automaton's grow as they are discovered), `DEAD` for no state. Token masks
    (`brzozowski.masks.index.TokenIndex`), constraints and the golden check read an automaton through
    these members (an index also uses a DFA's complete ``trans`` table, where there is one, to fill
    its own table at once instead of row by row)."""

    start: int
    """The start state (0)."""

    @property
    def n_states(self) -> int: ...  # states known so far

    @property
    def byte_classes(self) -> np.ndarray: ...  # int[256]: bytes of one class go everywhere alike

    def row(self, state: int) -> np.ndarray: ...  # int32[256], read-only: the state's transitions

    def is_accepting(self, state: int) -> bool: ...

    def step(self, state: int, data: bytes) -> int: ...  # the state after `data`; DEAD stays DEAD

    def matches(self, data: bytes) -> bool: ...  # full match from the start


def target_runs(row: Sequence[int] | np.ndarray) -> list[tuple[int, int, int]]:
    """The maximal runs of bytes with one target in a row of 256 transitions, as ``(lo, hi,
    target)`` (inclusive, bytes ascending), runs into `DEAD` left out."""
    targets = row.tolist() if isinstance(row, np.ndarray) else [int(t) for t in row]
    runs = []
    lo = 0
    for b in range(1, 257):
        if b == 256 or targets[b] != targets[lo]:
            if targets[lo] != DEAD:
                runs.append((lo, b - 1, int(targets[lo])))
            lo = b
    return runs
