"""Parse Python `re` syntax for bytes patterns (full match) straight into terms.

The supported subset means exactly what Python's ``re.fullmatch(pattern.encode(), data)`` means on
bytes, which makes Python's `re` an exact oracle:

- literals; escapes ``\\a \\f \\n \\r \\t \\v \\\\``, ``\\xHH``, octal ``\\0``, ``\\0oo`` and ``\\ooo``,
  escaped punctuation;
- ``.`` (any byte but ``\\n``); classes ``[...]`` and negated classes ``[^...]`` over all 256 bytes,
  with ranges; ``\\d`` = ``[0-9]``, ``\\w`` = ``[A-Za-z0-9_]``, ``\\s`` = ``[ \\t\\n\\r\\f\\v]`` and their
  complements ``\\D \\W \\S``, inside and outside classes (inside, ``\\b`` is the backspace byte);
- groups ``(...)``, ``(?:...)``, ``(?P<name>...)``; alternation ``|``;
- quantifiers ``* + ?``, ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}`` (a ``{`` that does not start a valid
  quantifier is a literal, as in Python).

Everything else is refused with a `RegexSyntaxError` naming the construct and its offset: anchors
(``^ $ \\A \\Z \\b \\B``), backreferences, lookarounds, atomic groups, conditionals, comment
groups, lazy and
possessive quantifiers, inline flags, non-ASCII pattern characters, bad escapes, bad repeats
(``{3,2}``, nothing to repeat, a repeated repeat), unbalanced parentheses or brackets, repeat counts
over `MAX_REPEAT_COUNT`, and a pattern whose language is empty (e.g. ``[^\\x00-\\xff]``).

Limits: a pattern longer than ``Limits.pattern_length`` characters is refused with an
`InputLimitError` before it is read; parsing checks the current deadline (`brzozowski.budget`)
as it goes, so a caller's compile budget covers it. No recursion grows with the pattern: groups
nest on an explicit stack.

>>> str(parse("(cat|car|dog)s?"))
'(cat|car|dog)s?'
>>> parse("a^")
Traceback (most recent call last):
  ...
brzozowski.errors.RegexSyntaxError: anchor '^' is not supported (patterns always match the whole text) at offset 1
  a^
   ^

Reference: Python's `re` module documentation ("Regular Expression Syntax"); the behaviour of
CPython's `re._parser` for bytes patterns.
"""

from __future__ import annotations

from .alphabet import byte_range
from ..budget import DEFAULT_LIMITS, Limits, check_deadline, require_limits
from ..errors import InputLimitError, InputTypeError, RegexSyntaxError
from .terms import (
    ALL_BYTES,
    EMPTY,
    Term,
    alt,
    byte,
    byte_set,
    concat,
    repeat,
    star,
)

__all__ = ["MAX_REPEAT_COUNT", "parse"]

MAX_REPEAT_COUNT = 1000
"""The largest count allowed in ``{m,n}``. As in RE2: larger counts are almost always a mistake, and
each count unit can cost automaton states (``a{1000}`` alone needs 1001). Counts over it are refused
at parse time; patterns under it that still explode are stopped by the state budget."""


def _set_of(chars: str) -> int:
    bits = 0
    for c in chars:
        bits |= 1 << ord(c)
    return bits


def _range(lo: str, hi: str) -> int:
    return ((1 << (ord(hi) + 1)) - 1) ^ ((1 << ord(lo)) - 1)


DIGITS = _range("0", "9")
WORD = _range("a", "z") | _range("A", "Z") | DIGITS | _set_of("_")
SPACE = _set_of(" \t\n\r\f\v")
NOT_NEWLINE = ALL_BYTES ^ _set_of("\n")

_CATEGORIES = {
    "d": DIGITS, "D": ALL_BYTES ^ DIGITS,
    "w": WORD, "W": ALL_BYTES ^ WORD,
    "s": SPACE, "S": ALL_BYTES ^ SPACE,
}
_CONTROL_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_ANCHOR_ESCAPES = {
    "A": "anchor \\A", "Z": "anchor \\Z", "b": "word boundary \\b", "B": "word boundary \\B",
}
_HEX = "0123456789abcdefABCDEF"
_OCTAL = "01234567"
_QUANTIFIER_START = "*+?{"
_INLINE_FLAGS = "aiLmsux-"


_DIGITS = frozenset("0123456789")  # repeat counts are ASCII digits, as in Python's re


def _is_octal(c: str) -> bool:
    return c != "" and c in _OCTAL


def parse(pattern: str | bytes, limits: Limits = DEFAULT_LIMITS) -> Term:
    """Parse `pattern` (a str or an ASCII bytes pattern) into a term; full-match semantics.

    A pattern longer than ``limits.pattern_length`` raises `InputLimitError` (naming the limit
    and the offset past it) before any of it is read."""
    if isinstance(pattern, bytes):
        text = pattern.decode("latin-1")
    elif isinstance(pattern, str):
        text = pattern
    else:
        raise InputTypeError(f"pattern must be a str or bytes, not {type(pattern).__name__}: {pattern!r:.80}")
    most = require_limits(limits).pattern_length
    if most is not None and len(text) > most:
        raise InputLimitError(
            f"the pattern has {len(text):,} characters, more than Limits.pattern_length ({most:,}) "
            f"allows: refused at offset {most} before it is parsed ({text[:30]!r}...)"
        )
    return _Parser(text).parse()


_DEADLINE_EVERY = 256
"""The parser checks the deadline once per this many items (atoms, groups, bars) read: each item
builds a term, and a check costs a small fraction of one."""


class _Parser:
    """A parser over the pattern text; `pos` is the next unread offset. Nested groups live on an
    explicit stack (see `alternation`): no recursion grows with the pattern."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.group_names: set[str] = set()
        for offset, c in enumerate(text):
            if ord(c) > 0x7F:
                self.fail(f"non-ASCII character {c!r} (write bytes as \\xHH)", offset)

    # -- helpers ---------------------------------------------------------------------------------

    def fail(self, message: str, offset: int | None = None) -> None:
        raise RegexSyntaxError(message, self.text, self.pos if offset is None else offset)

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else ""

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    # -- grammar ---------------------------------------------------------------------------------

    def parse(self) -> Term:
        term = self.alternation()
        if not self.at_end():  # only a ')' can stop an alternation early
            self.fail("unbalanced parenthesis ')'")
        if term is EMPTY:
            self.fail("the pattern matches no string (its language is empty)", 0)
        return term

    def alternation(self) -> Term:
        """The alternation from `pos` up to an unmatched ``)`` or the end.

        Groups nest on an explicit stack of open groups, not on Python's stack, so the nesting depth
        of a pattern costs memory only. Each open group holds its start offset (for error messages),
        its finished branches and the items of the branch being read."""
        open_groups: list[tuple[int | None, list[Term], list[Term]]] = [(None, [], [])]
        read = 0
        while True:
            read += 1
            if read % _DEADLINE_EVERY == 0:
                check_deadline()
            start, branches, items = open_groups[-1]
            c = self.peek()
            if c == "(":
                group_start = self.pos
                self.pos += 1
                if self.peek() == "?":
                    self.group_extension(group_start)
                open_groups.append((group_start, [], []))
            elif c == "|":
                self.pos += 1
                branches.append(concat(*items))
                items.clear()
            elif c in (")", ""):
                branches.append(concat(*items))
                inner = alt(*branches)
                if start is None:  # the outermost alternation: `parse` checks what stopped it
                    return inner
                if c != ")":
                    self.fail("missing ), unterminated subpattern", start)
                self.pos += 1
                open_groups.pop()
                open_groups[-1][2].append(self.quantified(inner))
            else:
                items.append(self.quantified(self.atom()))

    def quantified(self, term: Term) -> Term:
        """`term` (an atom or a group just read) with the quantifier that follows it, if any."""
        quantifier = self.quantifier()
        if quantifier is None:
            return term
        lo, hi = quantifier
        follower = self.peek()
        if follower == "?":
            self.fail("lazy quantifier is not supported (a full match has no preference)", self.pos)
        if follower == "+":
            self.fail("possessive quantifier is not supported", self.pos)
        if self.quantifier_here():
            self.fail("multiple repeat (repeat a group instead: (?:x{2}){3})", self.pos)
        if hi is None and lo == 0:
            return star(term)
        return repeat(term, lo, hi)

    def quantifier_here(self) -> bool:
        """Whether a valid quantifier starts at the current position (without consuming it)."""
        saved = self.pos
        try:
            return self.quantifier() is not None
        finally:
            self.pos = saved

    def quantifier(self) -> tuple[int, int | None] | None:
        """Consume a quantifier and return its bounds (lo, hi), or None (nothing consumed)."""
        start = self.pos
        c = self.peek()
        if c == "*":
            self.pos += 1
            return 0, None
        if c == "+":
            self.pos += 1
            return 1, None
        if c == "?":
            self.pos += 1
            return 0, 1
        if c != "{":
            return None
        # {m}, {m,}, {,n}, {m,n}, {,}; anything else makes '{' a literal, as in Python.
        i = start + 1
        j = i
        while j < len(self.text) and self.text[j] in _DIGITS:
            j += 1
        lo_text = self.text[i:j]
        if j < len(self.text) and self.text[j] == ",":
            k = j + 1
            while k < len(self.text) and self.text[k] in _DIGITS:
                k += 1
            hi_text: str | None = self.text[j + 1:k]
            end = k
        else:
            hi_text = lo_text
            end = j
            if not lo_text:
                return None
        if end >= len(self.text) or self.text[end] != "}":
            return None
        for text in (lo_text, hi_text):  # before int(): Python refuses to convert 4,300+ digits
            if text and len(text.lstrip("0")) > len(str(MAX_REPEAT_COUNT)):
                shown = text if len(text) <= 12 else f"{text[:6]}...{text[-3:]} ({len(text)} digits)"
                self.fail(f"repeat count {shown} is over the limit of {MAX_REPEAT_COUNT}", start)
        lo = int(lo_text.lstrip("0") or "0") if lo_text else 0
        hi = int(hi_text.lstrip("0") or "0") if hi_text else None
        for count in (lo, hi):
            if count is not None and count > MAX_REPEAT_COUNT:
                self.fail(f"repeat count {count} is over the limit of {MAX_REPEAT_COUNT}", start)
        if hi is not None and hi < lo:
            self.fail(f"bad repeat {{{lo},{hi}}}: the minimum is greater than the maximum", start)
        self.pos = end + 1
        return lo, hi

    def atom(self) -> Term:
        """One atom that is not a group (groups are opened in `alternation`)."""
        c = self.peek()
        if c == "[":
            return self.char_class()
        if c == ".":
            self.pos += 1
            return byte_set(NOT_NEWLINE)
        if c == "\\":
            return self.escape()
        if c in "^$":
            self.fail(f"anchor {c!r} is not supported (patterns always match the whole text)")
        if c in "*+?" or (c == "{" and self.quantifier_here()):
            self.fail(f"nothing to repeat before {c!r}")
        self.pos += 1
        return byte(ord(c))

    def group_extension(self, start: int) -> None:
        """Consume the ``?...`` after ``(`` of a supported group, or refuse an unsupported one."""
        rest = self.text[self.pos:]
        if rest.startswith("?:"):
            self.pos += 2
        elif rest.startswith("?#"):
            self.fail("comment groups (?#...) are not supported", start)
        elif rest.startswith("?P<"):
            close = self.text.find(">", self.pos)
            name = self.text[self.pos + 3:close] if close >= 0 else ""
            if close < 0 or not name.isidentifier():
                self.fail(f"bad group name {name!r}", start)
            if name in self.group_names:
                self.fail(f"redefinition of group name {name!r}", start)
            self.group_names.add(name)
            self.pos = close + 1
        elif rest.startswith("?P="):
            self.fail("backreference (?P=name) is not supported", start)
        elif rest.startswith(("?=", "?!")):
            self.fail("lookahead is not supported", start)
        elif rest.startswith(("?<=", "?<!")):
            self.fail("lookbehind is not supported", start)
        elif rest.startswith("?>"):
            self.fail("atomic group is not supported", start)
        elif rest.startswith("?("):
            self.fail("conditional group is not supported", start)
        elif len(rest) > 1 and rest[1] in _INLINE_FLAGS:
            self.fail("inline flags are not supported", start)
        else:
            self.fail("unknown group extension '(?'", start)

    def escape(self) -> Term:
        """An escape outside a class: a byte, a category, or a refusal."""
        start = self.pos
        c = self.peek(1)
        if c in _CATEGORIES:
            self.pos += 2
            return byte_set(_CATEGORIES[c])
        if c in _ANCHOR_ESCAPES:
            self.fail(f"{_ANCHOR_ESCAPES[c]} is not supported (patterns always match the whole text)")
        if c.isdigit() and c != "0":
            if all(_is_octal(self.peek(k)) for k in (1, 2, 3)):
                return byte(self.octal_escape(start, 3))
            digits = c + self.peek(2) if self.peek(2).isdigit() else c  # group numbers: 1-2 digits
            hint = f" (the byte 0o{digits} is written \\0{digits})" if all(map(_is_octal, digits)) else ""
            self.fail(f"backreference \\{digits} is not supported{hint}")
        return byte(self.byte_escape(start))

    def byte_escape(self, start: int) -> int:
        """The byte of a one-byte escape at `start` (a backslash); shared by classes and atoms."""
        c = self.peek(1)
        if c == "":
            self.fail("bad escape (end of pattern)", start)
        if c in _CONTROL_ESCAPES:
            self.pos += 2
            return _CONTROL_ESCAPES[c]
        if c == "x":
            digits = self.text[start + 2:start + 4]
            if len(digits) < 2 or any(d not in _HEX for d in digits):
                self.fail("incomplete escape \\x (write exactly two hex digits)", start)
            self.pos = start + 4
            return int(digits, 16)
        if c == "0":
            return self.octal_escape(start, 3)
        if c.isalnum():
            self.fail(f"bad escape \\{c}", start)
        self.pos += 2
        return ord(c)

    def octal_escape(self, start: int, max_digits: int) -> int:
        i = start + 1
        j = i
        while j < len(self.text) and j - i < max_digits and self.text[j] in _OCTAL:
            j += 1
        value = int(self.text[i:j], 8)
        if value > 0o377:
            self.fail(f"octal escape value \\{self.text[i:j]} is outside the byte range", start)
        self.pos = j
        return value

    def char_class(self) -> Term:
        start = self.pos
        self.pos += 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        bits = 0
        first = True
        while True:
            if self.at_end():
                self.fail("unterminated character set", start)
            if self.peek() == "]" and not first:
                self.pos += 1
                break
            first = False
            item_start = self.pos
            lo_bits, lo_byte = self.class_item()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                _, hi_byte = self.class_item()
                if lo_byte is None or hi_byte is None:
                    self.fail("bad character range (a category cannot be a range end)", item_start)
                if hi_byte < lo_byte:
                    self.fail(
                        f"bad character range {self.text[item_start:self.pos]} (reversed)", item_start
                    )
                bits |= byte_range(lo_byte, hi_byte)
            else:
                bits |= lo_bits
        if negate:
            bits ^= ALL_BYTES
        return byte_set(bits)

    def class_item(self) -> tuple[int, int | None]:
        """One class member: (its byte set, its byte if it is a single byte else None)."""
        start = self.pos
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return 1 << ord(c), ord(c)
        e = self.peek(1)
        if e in _CATEGORIES:
            self.pos += 2
            return _CATEGORIES[e], None
        if e == "b":  # inside a class, \b is the backspace byte
            self.pos += 2
            return 1 << 8, 8
        if _is_octal(e):
            value = self.octal_escape(start, 3)
            return 1 << value, value
        if e.isdigit():
            self.fail(f"bad escape \\{e}", start)
        value = self.byte_escape(start)
        return 1 << value, value
