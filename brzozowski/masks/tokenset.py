"""Token sets: the one home of every bit operation on masks.

A mask is asked for in one of two `Form`\\ s: a bool per token (``mask``), or *packed*, token t
being bit t % 32 of int32 word t // 32 (``bitmask``; byte t // 8, bit t % 8, little-endian). While
it is computed it is a `TokenSet`: a short list of ids (what a walk in plain Python finds), or an
array of one of the two forms (a table's, or a walk's over the vocabulary). `TokenSet.finish` turns
it into the read-only array of the wanted form with EOS set exactly when the state accepts; the
union of two sets is exact whatever their forms (a bool array is packed into a packed one, ids are
set by byte). The tunings `few_bits` and `pack_fraction` choose how ids are set; the bits set are
the same either way.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from .tuning import DEFAULT_TUNING, Tuning

__all__ = ["Form", "TokenSet", "packed", "packed_ids", "set_bits", "set_tokens", "unpacked"]


class Form(enum.Enum):
    """How a mask is wanted: a bool per token, or packed in int32 words."""

    BOOL = "bool"
    PACKED = "packed"

    def zeros(self, size: int) -> np.ndarray:
        """An empty writable set of `size` tokens in this form."""
        if self is Form.PACKED:
            return np.zeros(-(-size // 32), dtype=np.int32)
        return np.zeros(size, dtype=bool)

    def pick(self, as_bool: np.ndarray, as_packed: np.ndarray) -> np.ndarray:
        """Of two precomputed forms of one set (a table's), the one in this form."""
        return as_packed if self is Form.PACKED else as_bool


def packed(mask: np.ndarray) -> np.ndarray:
    """A bool mask as int32 words (token t: bit t % 32 of word t // 32), read-only."""
    n = len(mask)
    by_byte = np.packbits(mask, bitorder="little")
    words = np.zeros(4 * -(-n // 32), dtype=np.uint8)
    words[:len(by_byte)] = by_byte
    bits = words.view("<i4").astype(np.int32, copy=False)
    bits.setflags(write=False)
    return bits


def packed_ids(ids: np.ndarray, size: int) -> np.ndarray:
    """The packed set of the tokens `ids` of a vocabulary of `size`, set by byte (no bool array over
    the vocabulary made and packed), read-only."""
    by_byte = np.zeros(4 * -(-size // 32), dtype=np.uint8)
    set_bits(by_byte, ids)
    bits = by_byte.view("<i4").astype(np.int32, copy=False)
    bits.setflags(write=False)
    return bits


def unpacked(bits: np.ndarray, size: int) -> np.ndarray:
    """A packed set as a read-only bool per token."""
    mask = np.unpackbits(bits.view(np.uint8), count=size, bitorder="little").view(bool)
    mask.setflags(write=False)
    return mask


def set_bits(by_byte: np.ndarray, ids: np.ndarray) -> None:
    """Set the bits of the tokens `ids` in the bytes of a packed set, in place: one
    ``bitwise_or.at`` (ids sharing a byte all count)."""
    np.bitwise_or.at(by_byte, ids >> 3, np.left_shift(1, ids & 7).astype(np.uint8))


def set_tokens(mask: np.ndarray, ids: Sequence[int] | np.ndarray, tuning: Tuning = DEFAULT_TUNING) -> None:
    """Allow the tokens `ids` in `mask` (either form): in Python for at most ``few_bits`` ids, by
    byte for more, or through a bool array packed for more than 1/``pack_fraction`` of the
    vocabulary."""
    if mask.dtype == bool:
        mask[ids] = True
        return
    if len(ids) <= tuning.few_bits:
        by_byte = memoryview(mask).cast("B")
        for t in ids if isinstance(ids, list) else ids.tolist():
            by_byte[t >> 3] |= 1 << (t & 7)  # bit t % 32 of little-endian word t // 32
        return
    ids = np.asarray(ids, dtype=np.intp)
    if tuning.pack_fraction * len(ids) > 8 * mask.nbytes:
        many = np.zeros(8 * mask.nbytes, dtype=bool)
        many[ids] = True
        mask |= packed(many)
    elif len(ids):
        set_bits(mask.view(np.uint8), ids)


def clear_tokens(mask: np.ndarray, ids: np.ndarray) -> None:
    """Leave the tokens `ids` out of `mask` (either form), in place."""
    if mask.dtype == bool:
        mask[ids] = False
    elif len(ids):
        np.bitwise_and.at(mask.view(np.uint8), ids >> 3, ~np.left_shift(1, ids & 7).astype(np.uint8))


class TokenSet:
    """A set of tokens being computed: a list of ids (``ids``) or an array of either form
    (``array``), exactly one of them. An array given is owned by the set: unions write into it;
    a `final` one is already the finished, read-only mask (shared: `finish` returns it as is)."""

    __slots__ = ("array", "final", "ids")

    def __init__(self, ids: list[int] | None = None, array: np.ndarray | None = None,
                 final: bool = False) -> None:
        assert (ids is None) != (array is None)
        self.ids, self.array, self.final = ids, array, final

    @classmethod
    def of(cls, found: list[int] | np.ndarray) -> TokenSet:
        """A list of ids, or an array of either form, as a set."""
        return cls(ids=found) if isinstance(found, list) else cls(array=found)

    @property
    def is_packed(self) -> bool:
        return self.array is not None and self.array.dtype != bool

    def add(self, other: TokenSet, tuning: Tuning = DEFAULT_TUNING) -> TokenSet:
        """This set with `other`'s tokens (in place when this is an array; a bool array into a
        packed one is packed first)."""
        if self.array is None:
            if other.array is None:
                return TokenSet(ids=self.ids + other.ids)
            return other.add(self, tuning) if other.array.flags.writeable else TokenSet(
                array=other.array.copy()).add(self, tuning)
        if other.array is None:
            set_tokens(self.array, other.ids, tuning)
        elif other.array.dtype != self.array.dtype:
            self.array |= packed(other.array)
        else:
            self.array |= other.array
        return self

    def token_ids(self) -> np.ndarray:
        """The ids (as listed, or ascending from a bool array)."""
        if self.array is None:
            return np.array(self.ids, dtype=np.intp)
        assert self.array.dtype == bool
        return np.flatnonzero(self.array)

    def finish(self, form: Form, size: int, eos: int | None, accepting: bool,
               tuning: Tuning = DEFAULT_TUNING) -> np.ndarray:
        """The read-only mask of this set in `form` over `size` tokens, EOS in it iff `accepting`."""
        array = self.array
        if self.final:
            return array
        if array is None:
            ids = self.ids
            if eos is not None:
                if eos in ids:
                    ids = [t for t in ids if t != eos]
                if accepting:
                    ids.append(eos)
            out = form.zeros(size)
            if ids:
                set_tokens(out, ids, tuning)
            out.setflags(write=False)
            return out
        if array.dtype != bool:  # packed already (a table's packed ``inside``, or a union into one)
            if eos is not None:
                by_byte = memoryview(array).cast("B")
                bit = 1 << (eos & 7)
                by_byte[eos >> 3] = by_byte[eos >> 3] & ~bit | (bit if accepting else 0)
            array.setflags(write=False)
            return array
        if eos is not None:
            array[eos] = accepting
        if form is Form.PACKED:
            return packed(array)
        array.setflags(write=False)
        return array
