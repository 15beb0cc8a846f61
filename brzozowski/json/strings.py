"""JSON string texts, one decoded character at a time: every way JSON may write a set of code points.

A JSON string is decoded character by character, and one decoded character (a Unicode scalar value:
a code point that is not a surrogate) can be written several ways: raw as UTF-8 (unless it is a
control character, ``"`` or ``\\``), as ``\\uXXXX`` with hex digits in either case (characters beyond
the BMP as a high+low surrogate pair of escapes), or as one of the short escapes ``\\" \\\\ \\/ \\b \\f
\\n \\r \\t``. `encoded_chars` turns a set of code points into the term of all of their spellings;
everything about strings is built on it: length bounds (`string_term`), ECMA patterns
(`brzozowski.json.ecma_regex`) and formats.

Code point sets are tuples of disjoint, sorted, inclusive ranges ``((lo, hi), ...)``.

Invariant: `encoded_chars(s)` matches exactly the byte strings that ``json.loads('"' + text + '"')``
decodes to a one-character string in ``s``. So a string term that is ``"`` then n such characters then
``"`` holds exactly the texts whose decoded string has ``len`` n, as ``jsonschema`` counts length.

>>> from brzozowski.core.derivatives import matches
>>> e_acute = encoded_chars(((0xE9, 0xE9),))
>>> [matches(e_acute, s) for s in (b"\\xc3\\xa9", b"\\\\u00E9", b"\\\\u00e9", b"e")]
[True, True, True, False]
>>> len_2 = string_term(2, 2)
>>> matches(len_2, b'"\\\\ud83d\\\\ude00x"'), matches(len_2, b'"\\\\n"')
(True, False)

Reference: RFC 8259 §7 (string escapes), RFC 3629 §4 (UTF-8 byte ranges), Unicode §3.9 (surrogates).
"""

from __future__ import annotations

import weakref
from functools import lru_cache

from ..core.derivatives import keep_derivatives
from ..errors import SchemaError
from .numbers import fixed_width_range
from ..core.terms import EMPTY, Term, alt, byte, byte_set, concat, literal, repeat, star

__all__ = [
    "ANY_CHAR", "ANY_STRING", "CodePoints", "MAX_LENGTH_BOUND", "PLAIN_KEY_BITS", "PLAIN_KEY_TRIES", "SCALARS",
    "complement", "encoded_chars", "intersect", "spelled_string", "string_term", "union",
]

CodePoints = tuple[tuple[int, int], ...]

#: Every Unicode scalar value: what a decoded JSON string (without lone surrogates) is made of.
SCALARS: CodePoints = ((0, 0xD7FF), (0xE000, 0x10FFFF))

#: The largest minLength/maxLength. A string of n characters passes through at least n automaton
#: states (more inside multi-byte characters and escapes), and the default state budget is 100,000.
MAX_LENGTH_BOUND = 10_000

_SHORT_ESCAPES = {ord('"'): b'\\"', ord("\\"): b"\\\\", ord("/"): b"\\/", 8: b"\\b", 12: b"\\f",
                  10: b"\\n", 13: b"\\r", 9: b"\\t"}
#: What may be written raw: no control character (below 0x20), no `"` or `\`; DEL is allowed.
_RAW: CodePoints = ((0x20, 0x21), (0x23, 0x5B), (0x5D, 0xD7FF), (0xE000, 0x10FFFF))
#: UTF-8 by length: the code point range, the lead byte's marker, and the radix of each byte.
_UTF8 = (
    ((0x0, 0x7F), 0x00, (128,)),
    ((0x80, 0x7FF), 0xC0, (32, 64)),
    ((0x800, 0xFFFF), 0xE0, (16, 64, 64)),
    ((0x10000, 0x10FFFF), 0xF0, (8, 64, 64, 64)),
)


def union(*sets: CodePoints) -> CodePoints:
    """The union of code point sets, normalized (sorted, disjoint, adjacent ranges merged)."""
    merged: list[list[int]] = []
    for lo, hi in sorted(r for s in sets for r in s):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


def complement(s: CodePoints, within: CodePoints = SCALARS) -> CodePoints:
    """The code points of `within` that are not in `s`."""
    out = []
    ranges = union(s)
    for lo, hi in within:
        for a, b in ranges:
            if b < lo or a > hi:
                continue
            if a > lo:
                out.append((lo, a - 1))
            lo = b + 1
            if lo > hi:
                break
        if lo <= hi:
            out.append((lo, hi))
    return union(tuple(out))


def intersect(s: CodePoints, t: CodePoints) -> CodePoints:
    """The code points in both `s` and `t`."""
    return complement(complement(s, SCALARS + ((0xD800, 0xDFFF),)), t)


def _byte_range(lo: int, hi: int) -> int:
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


def _utf8(lo: int, hi: int) -> Term:
    parts = []
    for (first, last), marker, bases in _UTF8:
        a, b = max(lo, first), min(hi, last)
        if a > b:
            continue

        def digit(i: int, x: int, y: int, marker: int = marker) -> Term:
            base = marker if i == 0 else 0x80
            return byte_set(_byte_range(base + x, base + y))

        parts.append(fixed_width_range(a, b, bases, digit))
    return alt(*parts)


def _hex_digit(i: int, a: int, b: int) -> Term:
    bits = 0
    for d in range(a, b + 1):
        bits |= 1 << ord(f"{d:x}") | 1 << ord(f"{d:X}")
    return byte_set(bits)


_BACKSLASH_U = literal(b"\\u")


def _escaped_unit(lo: int, hi: int) -> Term:
    """``\\uXXXX`` for the UTF-16 code units lo..hi, hex digits in either case."""
    return concat(_BACKSLASH_U, fixed_width_range(lo, hi, (16, 16, 16, 16), _hex_digit))


def _escaped_pair(lo: int, hi: int) -> Term:
    """The surrogate-pair escapes of the code points lo..hi (all beyond the BMP)."""

    def unit(i: int, a: int, b: int) -> Term:
        return _escaped_unit((0xD800 if i == 0 else 0xDC00) + a, (0xD800 if i == 0 else 0xDC00) + b)

    return fixed_width_range(lo - 0x10000, hi - 0x10000, (1024, 1024), unit)


@lru_cache(maxsize=4096)
def encoded_chars(s: CodePoints) -> Term:
    """Every JSON spelling of every code point of `s` (surrogates in `s` are ignored)."""
    s = intersect(s, SCALARS)
    parts = [_utf8(lo, hi) for lo, hi in intersect(s, _RAW)]
    for lo, hi in intersect(s, ((0, 0xFFFF),)):
        parts.append(_escaped_unit(lo, hi))
    for lo, hi in intersect(s, ((0x10000, 0x10FFFF),)):
        parts.append(_escaped_pair(lo, hi))
    for code, spelling in _SHORT_ESCAPES.items():
        if any(lo <= code <= hi for lo, hi in s):
            parts.append(literal(spelling))
    return alt(*parts)


def spelled_string(text: str) -> Term:
    """Every JSON text (quotes included) that decodes to `text`: each character in each of its
    spellings; a lone surrogate (which has no raw UTF-8) only as its ``\\u`` escape."""
    chars = [encoded_chars(((ord(c), ord(c)),)) if not 0xD800 <= ord(c) <= 0xDFFF
             else _escaped_unit(ord(c), ord(c)) for c in text]
    return concat(_QUOTE, *chars, _QUOTE)

#: One decoded character, any way JSON writes it.
ANY_CHAR = encoded_chars(SCALARS)

#: Any string's contents (``ANY_CHAR*``), its derivatives held for the life of the process
#: (`brzozowski.core.derivatives.keep_derivatives`: a few dozen terms, a character begun, an escape
#: begun): every string's inside reads a multi-byte character through this head alone
#: (`brzozowski.core.derivatives.derivative_through_heads`), with no term made per schema.
ANY_STRING = keep_derivatives(star(ANY_CHAR))

#: The bytes of a *plain* key (the other property names of an open object beside listed names,
#: `brzozowski.json.compiler`): printable ASCII except the quote and the backslash, so one byte is
#: one character and no escape is needed.
PLAIN_KEY_BITS = sum(1 << b for b in range(0x20, 0x7F)) & ~((1 << 0x22) | (1 << 0x5C))

#: The tries of plain keys but a few names that `brzozowski.json.compiler` builds (an open
#: object's other keys): the root's term -> (its children by byte, every other node of the trie ->
#: its children by byte), the children being the options ``c·child``. The masks read key states
#: off such a node without checking its shape again (`brzozowski.json.masks.keys.NamedKeys.key_node`).
#: Weak: an entry lasts as long as its root.
PLAIN_KEY_TRIES: weakref.WeakKeyDictionary[Term, tuple[dict[int, Term], dict[Term, dict[int, Term]]]] = (
    weakref.WeakKeyDictionary())
_QUOTE = byte(ord('"'))


def _length(value: object, keyword: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{keyword} must be a non-negative integer, got {value!r}", "", keyword)
    if value > MAX_LENGTH_BOUND:
        raise SchemaError(
            f"{keyword} {value} is over the limit of {MAX_LENGTH_BOUND:,} (each character of a string "
            "costs automaton states)" + ("; leave maxLength out for no bound" if keyword == "maxLength" else ""),
            "", keyword)
    return value


def string_term(min_length: object = 0, max_length: object = None) -> Term:
    """The JSON texts (with quotes) of the strings with ``min_length ≤ len ≤ max_length`` (∅ if none)."""
    lo = _length(min_length, "minLength") or 0
    hi = _length(max_length, "maxLength")
    if hi is not None and lo > hi:
        return EMPTY
    return concat(_QUOTE, repeat(ANY_CHAR, lo, hi), _QUOTE)
