"""The parser: the supported subset means what Python's `re` means, and everything else is refused
with an error that names the construct and its offset."""

from __future__ import annotations

import re

import pytest

from brzozowski import MAX_REPEAT_COUNT, RegexSyntaxError, parse, regex_to_dfa
from brzozowski.core.derivatives import matches

ALL_BYTES = [bytes([b]) for b in range(256)]

# Single-byte classes: every one of the 256 bytes must be in or out exactly as Python says.
CLASSES = [
    ".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", "[a-z]", "[^a-z]", "[^\n]", r"[\x00-\x1f]",
    r"[^\x80-\xff]", "[]]", "[^]]", "[a-]", "[-a]", r"[\d_]", r"[^\w\s]", r"[\b]", r"[\]]", "[A-Z0-9_]",
    r"\x7f", r"\0", r"\011", r"[\0-\10]", r"\a", r"\f", r"\v", "[.]", "[$^]", r"[\\]", "\\\\", "z",
    r"\-", r"\ ", "[a-a]", r"[\x41-\x5a]",
]


@pytest.mark.parametrize("pattern", CLASSES)
def test_one_byte_classes_match_python(pattern):
    term = parse(pattern)
    oracle = re.compile(pattern.encode())
    for data in ALL_BYTES:
        assert matches(term, data) == bool(oracle.fullmatch(data)), (pattern, data)


QUANTIFIED = [
    ("a{2,3}", 5), ("a{2}", 4), ("a{2,}", 6), ("a{,2}", 4), ("a{,}", 4), ("a{0}", 2), ("a{0,0}b", 3),
    ("a+", 4), ("a*", 4), ("a?", 3), ("(ab){1,2}", 5), ("a{", 3), ("a{1", 3), ("a{x}", 4),
    ("a{1,2", 4), ("x{}", 4), ("(a|bc){2}", 5), ("(a?){2}b", 4), ("(a*){3,}", 4),
]


@pytest.mark.parametrize(("pattern", "max_len"), QUANTIFIED)
def test_quantifiers_match_python(pattern, max_len):
    dfa = regex_to_dfa(pattern)
    oracle = re.compile(pattern.encode())
    alphabet = sorted(set(pattern.encode()) & set(b"abcx{},12") | {ord("a")})
    words = [b""]
    layer = [b""]
    for _ in range(max_len):  # every string over the alphabet up to max_len bytes
        layer = [w + bytes([b]) for w in layer for b in alphabet]
        words += layer
    for word in words:
        assert dfa.matches(word) == bool(oracle.fullmatch(word)), (pattern, word)


# (pattern, offset of the offending construct, a fragment of the message)
REFUSED = [
    ("^abc", 0, "anchor '^'"),
    ("abc$", 3, "anchor '$'"),
    (r"\Aabc", 0, "anchor \\A"),
    (r"abc\Z", 3, "anchor \\Z"),
    (r"a\bc", 1, "word boundary \\b"),
    (r"a\Bc", 1, "word boundary \\B"),
    (r"(a)\1", 3, "backreference \\1"),
    ("(?P<x>a)(?P=x)", 8, "backreference (?P=name)"),
    ("a(?=b)", 1, "lookahead"),
    ("a(?!b)", 1, "lookahead"),
    ("(?<=a)b", 0, "lookbehind"),
    ("(?<!a)b", 0, "lookbehind"),
    ("a*?", 2, "lazy quantifier"),
    ("a+?", 2, "lazy quantifier"),
    ("a??", 2, "lazy quantifier"),
    ("a{1,2}?", 6, "lazy quantifier"),
    ("a*+", 2, "possessive quantifier"),
    ("a{2}+", 4, "possessive quantifier"),
    ("(?>ab)", 0, "atomic group"),
    ("(?i)abc", 0, "inline flags"),
    ("(?i:a)", 0, "inline flags"),
    ("(?s).", 0, "inline flags"),
    ("(?(1)a|b)", 0, "conditional"),
    ("a(?#note)", 1, "comment"),
    ("(?y)", 0, "unknown group extension"),
    ("(?x)a", 0, "inline flags"),
    ("caf\u00e9", 3, "non-ASCII"),
    ("a\u2192b", 1, "non-ASCII"),
    ("a{3,2}", 1, "minimum is greater than the maximum"),
    ("*a", 0, "nothing to repeat"),
    ("a|+", 2, "nothing to repeat"),
    ("(?)", 0, "unknown group extension"),
    ("{2}", 0, "nothing to repeat"),
    ("a**", 2, "multiple repeat"),
    ("a{2}{3}", 4, "multiple repeat"),
    ("(ab", 0, "missing ), unterminated subpattern"),
    ("a(b(c)", 1, "missing ), unterminated subpattern"),
    ("ab)", 2, "unbalanced parenthesis"),
    ("[ab", 0, "unterminated character set"),
    ("[]", 0, "unterminated character set"),
    ("[z-a]", 1, "bad character range"),
    (r"[\d-z]", 1, "bad character range"),
    (f"a{{{MAX_REPEAT_COUNT + 1}}}", 1, "over the limit"),
    (f"a{{1,{MAX_REPEAT_COUNT + 1}}}", 1, "over the limit"),
    (r"[^\x00-\xff]", 0, "language is empty"),
    (r"a[^\s\S]b", 0, "language is empty"),
    ("\\", 0, "bad escape"),
    (r"\q", 0, "bad escape \\q"),
    (r"\u00e9", 0, "bad escape \\u"),
    (r"\x4", 0, "incomplete escape \\x"),
    (r"\xg0", 0, "incomplete escape \\x"),
    (r"\400", 0, "octal escape"),
    (r"[\8]", 1, "bad escape"),
    ("(?P<1>a)", 0, "bad group name"),
    ("(?P<n>a)(?P<n>b)", 8, "redefinition of group name"),
]


@pytest.mark.parametrize(("pattern", "offset", "fragment"), REFUSED)
def test_unsupported_syntax_raises(pattern, offset, fragment):
    with pytest.raises(RegexSyntaxError) as caught:
        regex_to_dfa(pattern)
    error = caught.value
    assert isinstance(error, ValueError)
    assert fragment in str(error), str(error)
    assert error.offset == offset, str(error)
    assert error.pattern == pattern
    # The message shows the pattern with a caret under the offset.
    lines = str(error).splitlines()
    assert lines[1] == "  " + pattern
    assert lines[2] == "  " + " " * offset + "^"


def test_python_refuses_what_we_refuse_as_malformed():
    # Where a refusal is about malformed syntax (not an unsupported feature), Python agrees.
    for pattern in ["a{3,2}", "*a", "a**", "(ab", "ab)", "[ab", "[z-a]", r"\q", r"\x4", r"\400"]:
        with pytest.raises(re.error):
            re.compile(pattern.encode())


def test_parse_accepts_bytes_patterns():
    assert parse(b"ab+") is parse("ab+")
    with pytest.raises(TypeError):
        parse(3)  # type: ignore[arg-type]
