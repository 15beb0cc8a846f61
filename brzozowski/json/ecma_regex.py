"""ECMA-262 patterns, as JSON Schema's ``pattern`` uses them, compiled to terms over JSON string text.

JSON Schema's ``pattern`` is an ECMA-262 regular expression, applied as a *search* to the decoded
string: it matches anywhere unless anchored with ``^``/``$``. The automaton reads the encoded JSON
text, where each decoded character may be written raw or escaped, so each character set of the pattern
becomes the term of every spelling of its characters (`brzozowski.json.strings.encoded_chars`), and a
search becomes ``any* pattern any*`` over those characters.

The oracle, ``jsonschema``, runs Python's ``re.search`` on the decoded ``str``. Where ECMA and Python
disagree, a character set is the intersection of both meanings, so every accepted string matches in
both (narrower, never wider): ``\\d`` is ``[0-9]`` (Python's is every Unicode digit) and ``\\D`` is
"not a Unicode digit"; ``\\w``/``\\W`` likewise; ``\\s`` is the whitespace both agree on; ``.`` is
ECMA's (no line terminator: ``\\n \\r \\u2028 \\u2029``); ``$`` is ECMA's (end of string only; Python
also allows a final ``\\n`` before it). Characters are code points (ECMA's ``u`` mode, which is also
what Python does).

Supported: literals, escapes ``\\t \\n \\v \\f \\r \\0 \\xHH \\uHHHH`` (not a surrogate) and escaped
ASCII punctuation, ``.``, classes ``[...]``/``[^...]`` with ranges and ``\\d \\D \\w \\W \\s \\S``
(inside a class ``\\b`` is backspace), groups ``(...)`` and ``(?:...)``, ``|``, quantifiers ``* + ?
{n} {n,} {n,m}`` (lazy ``?`` forms too: a search only asks whether some match exists), and ``^``/``$``
at the start/end of a top-level alternative. Refused with `SchemaError` (keyword ``pattern``, message
with offset and caret): lookarounds, backreferences, ``\\b``/``\\B`` word boundaries, named groups
(Python's ``re`` cannot compile ECMA's ``(?<name>...)``), possessive quantifiers, ``{,n}``, a literal
``{``, Unicode property escapes, ``\\u{...}``, ``\\c``, surrogate escapes, empty classes, anchors
elsewhere, and counts over `MAX_REPEAT_COUNT`.

>>> from brzozowski.core.derivatives import matches
>>> t = pattern_term("^[a-z]+\\\\d$")
>>> [matches(t, s) for s in (b"ab1", b"a\\\\u0062\\\\u0031", b"ab\\xd9\\xa1", b"Ab1")]
[True, True, False, False]
>>> matches(pattern_term("b|^x"), b"abc"), matches(pattern_term("b|^x"), b"ax")
(True, False)

Reference: ECMA-262 §22.2 (RegExp pattern syntax); JSON Schema Validation 2020-12 §6.3.3 and Core §6.4.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core.derivatives import alphabet_classes, keep_derivatives
from ..errors import SchemaError
from .strings import ANY_STRING, CodePoints, complement, encoded_chars, intersect, union
from ..core.syntax import MAX_REPEAT_COUNT
from ..core.terms import EPSILON, Term, alt, concat, repeat

__all__ = ["Piece", "parse_pattern", "pattern_term", "wide_pattern_term"]

#: A character set as each dialect means it: (ECMA's code points, Python's code points).
Meaning = tuple[CodePoints, CodePoints]
#: A parsed piece of pattern: its term, and the fewest and most characters it matches (None: no limit).
Piece = tuple[Term, int, "int | None"]

_LINE_TERMINATORS: CodePoints = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_ECMA_DIGIT: CodePoints = ((0x30, 0x39),)
_ECMA_WORD: CodePoints = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_CONTROL_ESCAPES = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


@lru_cache(maxsize=1)
def _all_scalars() -> str:
    """Every Unicode scalar value, in order, as one string (built through numpy, not a Python loop)."""
    codes = np.arange(0x110000, dtype="<u4")
    return np.concatenate((codes[:0xD800], codes[0xE000:])).tobytes().decode("utf-32-le")


UNICODE_CLASSES = Path(__file__).with_name("unicode_classes.json")
"""Python's ``\\d``, ``\\w``, ``\\s`` and ECMA's white space as code point ranges, for the Unicode
version its ``unidata_version`` names: read instead of scanning every scalar (a one-time cost of
the first pattern that names a class) when this Python's version is that one."""


@lru_cache(maxsize=1)
def _shipped_classes() -> dict[str, CodePoints]:
    try:
        data = json.loads(UNICODE_CLASSES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if data.get("unidata_version") != unicodedata.unidata_version:
        return {}
    return {name: tuple((lo, hi) for lo, hi in ranges) for name, ranges in data["classes"].items()}


def computed_unicode_classes() -> dict:
    """What `UNICODE_CLASSES` holds, computed from this Python's Unicode database (to write the file
    anew: ``json.dump`` of it, when a Python with another Unicode version is the one served)."""
    classes = {letter: _scanned_class(letter) for letter in "dws"}
    return {"unidata_version": unicodedata.unidata_version,
            "classes": {**classes, "ecma_space": _scanned_ecma_space()}}


@lru_cache(maxsize=None)
def _python_class(category: str) -> CodePoints:
    """The code points Python's ``re`` puts in ``\\d``, ``\\w`` or ``\\s`` for a str pattern."""
    shipped = _shipped_classes().get(category)
    return shipped if shipped is not None else _scanned_class(category)


@lru_cache(maxsize=None)
def _scanned_class(category: str) -> CodePoints:
    ranges = []
    for m in re.finditer(rf"\{category}+", _all_scalars()):
        first, last = ord(m.group()[0]), ord(m.group()[-1])
        if last - first + 1 == len(m.group()):
            ranges.append((first, last))
        else:  # the run spans the surrogate gap
            ranges.extend((ord(c), ord(c)) for c in m.group())
    return union(tuple(ranges))


def _ecma_space() -> CodePoints:
    shipped = _shipped_classes().get("ecma_space")
    return shipped if shipped is not None else _scanned_ecma_space()


@lru_cache(maxsize=None)
def _scanned_ecma_space() -> CodePoints:
    spaces = [c for c in range(0x10000) if unicodedata.category(chr(c)) == "Zs"]
    return union(((0x09, 0x0D),), ((0xFEFF, 0xFEFF),), _LINE_TERMINATORS, tuple((c, c) for c in spaces))


def _category(letter: str) -> Meaning:
    lower = letter.lower()
    ecma = {"d": _ECMA_DIGIT, "w": _ECMA_WORD}.get(lower) or _ecma_space()
    python = _python_class(lower)
    if letter.isupper():
        return complement(ecma), complement(python)
    return ecma, python


def _single(c: int) -> Meaning:
    return ((c, c),), ((c, c),)


class _Parser:
    """Recursive descent over the pattern; `pos` is the offset of the next character."""

    def __init__(self, pattern: str, wide: bool = False) -> None:
        self.pattern = pattern
        self.pos = 0
        self.wide = wide  # what either dialect means (`wide_pattern_term`), else what both mean

    def chars(self, meaning: Meaning) -> Piece:
        """The spellings of the characters of a set: those both dialects put in it, or either."""
        return (encoded_chars(union(*meaning)), 1, 1) if self.wide else _chars(meaning)

    def error(self, message: str, offset: int | None = None) -> SchemaError:
        at = self.pos if offset is None else offset
        return SchemaError(f"pattern: {message} at offset {at}\n  {self.pattern}\n  {' ' * at}^", "", "pattern")

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.pattern[i] if i < len(self.pattern) else ""

    def top(self) -> Piece:
        """The whole pattern as a search: each top-level alternative with its own anchors."""
        branches = []
        while True:
            anchored_start = self.peek() == "^"
            if anchored_start:
                self.pos += 1
            (body, fewest, most), anchored_end = self.alternative(top=True)
            end = EPSILON if anchored_end else ANY_STRING
            if anchored_end and self.wide:  # Python's '$' also matches before a final newline
                end, most = alt(EPSILON, encoded_chars(((0x0A, 0x0A),))), None
            branches.append((concat(EPSILON if anchored_start else ANY_STRING, body, end),
                             fewest, most if anchored_start and anchored_end else None))
            if self.peek() != "|":
                break
            self.pos += 1
        if self.pos != len(self.pattern):
            raise self.error("unbalanced ')'")
        return _either(branches)

    def disjunction(self) -> Piece:
        branches = [self.alternative(top=False)[0]]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.alternative(top=False)[0])
        return _either(branches)

    def alternative(self, top: bool) -> tuple[Piece, bool]:
        """A sequence up to ``|``, ``)`` or the end; at the top level also whether it ends with ``$``."""
        items: list[Piece] = []
        while self.peek() not in ("", "|", ")"):
            if self.peek() == "$":
                if top and self.peek(1) in ("", "|"):
                    self.pos += 1
                    return _sequence(items), True
                raise self.error("'$' is only supported at the end of the pattern or of a top-level alternative")
            if self.peek() == "^":
                raise self.error("'^' is only supported at the start of the pattern or of a top-level alternative")
            items.append(self.quantified())
        return _sequence(items), False

    def quantified(self) -> Piece:
        atom = self.atom()
        c = self.peek()
        if c in ("*", "+", "?"):
            self.pos += 1
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{":
            lo, hi = self.braces()
        else:
            return atom
        if self.peek() == "?":  # lazy: the same strings can match, and a search asks only that
            self.pos += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise self.error("a quantifier after a quantifier (possessive or doubled) is not supported")
        term, fewest, most = atom
        return repeat(term, lo, hi), fewest * lo, None if most is None or hi is None else most * hi

    def braces(self) -> tuple[int, int | None]:
        m = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.pattern, self.pos)
        if m is None:
            raise self.error("'{' must start a quantifier {n}, {n,} or {n,m} (write \\{ for the character; "
                             "{,n} means different things in ECMA and Python)")
        lo = int(m.group(1))
        hi = lo if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
        for count in (lo, hi):
            if count is not None and count > MAX_REPEAT_COUNT:
                raise self.error(f"repeat count {count} is over the limit of {MAX_REPEAT_COUNT}")
        if hi is not None and hi < lo:
            raise self.error(f"bad repeat {{{lo},{hi}}}: the maximum is below the minimum")
        self.pos = m.end()
        return lo, hi

    def atom(self) -> Piece:
        c = self.peek()
        if c == "(":
            return self.group()
        if c == "[":
            return self.chars(self.char_class())
        if c == ".":
            self.pos += 1
            return self.chars((complement(_LINE_TERMINATORS), complement(((0x0A, 0x0A),))))
        if c == "\\":
            return self.chars(self.escape(in_class=False))
        if c in ("*", "+", "?"):
            raise self.error(f"nothing to repeat before {c!r}")
        if c == "{":
            self.braces()  # raises unless a quantifier follows: a literal '{' is ambiguous
            raise self.error("nothing to repeat before '{'")
        self.pos += 1
        return self.chars(_single(ord(c)))

    def group(self) -> Piece:
        open_at = self.pos
        self.pos += 1
        if self.peek() == "?":
            if self.peek(1) == ":":
                self.pos += 2
            elif self.peek(1) in ("=", "!") or self.pattern.startswith("<=", self.pos + 1) or \
                    self.pattern.startswith("<!", self.pos + 1):
                raise self.error("lookarounds are not supported: say the condition without them", open_at)
            elif self.peek(1) == "<":
                raise self.error("named groups (?<name>...) are not supported: Python's re, which jsonschema "
                                 "uses, cannot compile them; write (?:...)", open_at)
            else:
                raise self.error("unknown group syntax '(?' (only (?:...) is supported)", open_at)
        inner = self.disjunction()
        if self.peek() != ")":
            raise self.error("missing ')'", open_at)
        self.pos += 1
        return inner

    def escape(self, in_class: bool) -> Meaning:
        start = self.pos
        self.pos += 1
        c = self.peek()
        self.pos += 1
        if c == "":
            raise self.error("a pattern cannot end with '\\'", start)
        if c in "dDwWsS":
            return _category(c)
        if c in _CONTROL_ESCAPES:
            return _single(_CONTROL_ESCAPES[c])
        if c == "b" and in_class:
            return _single(8)
        if c == "0" and not self.peek().isdigit():
            return _single(0)
        if c in ("x", "u"):
            width = 2 if c == "x" else 4
            digits = self.pattern[self.pos:self.pos + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise self.error(f"\\{c} needs {width} hex digits" + (" ({...} is not supported)" if c == "u" else ""),
                                 start)
            self.pos += width
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF:
                raise self.error("surrogate escapes are not supported (Python matches them as two characters): "
                                 "write the character itself", start)
            return _single(code)
        if c in _PUNCTUATION:
            return _single(ord(c))
        if c in "bB":
            raise self.error("word boundaries \\b and \\B are not supported", start)
        if c.isdigit():
            raise self.error("backreferences (and octal escapes) are not supported", start)
        if c in "pP":
            raise self.error("Unicode property escapes are not supported", start)
        raise self.error(f"unsupported escape '\\{c}'", start)

    def char_class(self) -> Meaning:
        open_at = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        if self.peek() == "]":
            raise self.error("empty classes [] and [^] are not supported (ECMA and Python read them differently)")
        ecma: list[CodePoints] = []
        python: list[CodePoints] = []
        while self.peek() != "]":
            if self.peek() == "":
                raise self.error("missing ']'", open_at)
            item_at = self.pos
            first = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                last = self.class_atom()
                if first[0] != first[1] or len(first[0]) != 1 or first[0][0][0] != first[0][0][1] or \
                        last[0] != last[1] or len(last[0]) != 1 or last[0][0][0] != last[0][0][1]:
                    raise self.error("a range must be between two single characters", item_at)
                lo, hi = first[0][0][0], last[0][0][0]
                if lo > hi:
                    raise self.error("range out of order", item_at)
                first = (((lo, hi),), ((lo, hi),))
            ecma.append(first[0])
            python.append(first[1])
        self.pos += 1
        meaning = union(*ecma), union(*python)
        if negated:
            meaning = complement(meaning[0]), complement(meaning[1])
        return meaning

    def class_atom(self) -> Meaning:
        c = self.peek()
        if c == "\\":
            return self.escape(in_class=True)
        self.pos += 1
        return _single(ord(c))


def _chars(meaning: Meaning) -> Piece:
    """The spellings of the characters both dialects put in the set (one character long)."""
    ecma, python = meaning
    return encoded_chars(ecma if ecma == python else intersect(ecma, python)), 1, 1


def _sequence(items: list[Piece]) -> Piece:
    mosts = [most for _, _, most in items]
    return (concat(*(term for term, _, _ in items)), sum(fewest for _, fewest, _ in items),
            None if None in mosts else sum(mosts))


def _either(branches: list[Piece]) -> Piece:
    mosts = [most for _, _, most in branches]
    return (alt(*(term for term, _, _ in branches)), min(fewest for _, fewest, _ in branches),
            None if None in mosts else max(mosts))


def parse_pattern(pattern: str) -> Piece:
    """The JSON string *contents* (no quotes) whose decoded string the ECMA `pattern` matches (a search;
    ∅ when no string matches in both dialects), and the fewest and most characters such a decoded
    string has (None: no limit)."""
    if not isinstance(pattern, str):
        raise SchemaError(f"pattern must be a string, got {pattern!r}", "", "pattern")
    piece = _PIECES.get(pattern)
    if piece is None:
        piece = _Parser(pattern).top()
        alphabet_classes(piece[0])  # memoized on the term, as the cached piece is reused
        keep_derivatives(piece[0])  # and so are its derivatives, while the cache holds it
        while len(_PIECES) >= MAX_PIECES:  # full: the oldest goes (dicts keep insertion order)
            _PIECES.pop(next(iter(_PIECES)), None)
        _PIECES[pattern] = piece
    return piece


MAX_PIECES = 256
"""How many parsed patterns `parse_pattern` keeps (the formats' patterns among them: a schema's
``format: date-time`` is parsed once per process, not once per schema). Full, each new
pattern evicts the oldest; each entry holds its terms and the derivatives taken of them
(`brzozowski.core.derivatives.keep_derivatives`), so this bounds what the cache keeps alive in a
long-running process."""

_PIECES: dict[str | tuple[str, str], Piece | Term] = {}  # (wide_pattern_term's: by ("wide", pattern))


def pattern_term(pattern: str) -> Term:
    """The term of `parse_pattern`."""
    return parse_pattern(pattern)[0]


def wide_pattern_term(pattern: str) -> Term:
    """The JSON string contents whose decoded string ECMA-262 *or* Python's ``re.search`` finds
    `pattern` in, for the patterns `parse_pattern` accepts (which raises `SchemaError` for the
    others): each character set as the union of both meanings, ``$`` as Python's (end, or before a
    final newline). A pattern's language only grows with its character sets, so this holds both
    dialects' matches: its complement holds only strings that neither finds a match in. Where the
    dialects agree it is `pattern_term`'s language."""
    parse_pattern(pattern)  # the checks and errors
    key = ("wide", pattern)
    term = _PIECES.get(key)
    if term is None:
        term = _Parser(pattern, wide=True).top()[0]
        while len(_PIECES) >= MAX_PIECES:
            _PIECES.pop(next(iter(_PIECES)), None)
        _PIECES[key] = term
    return term
