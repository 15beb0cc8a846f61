"""The shared test corpus: the hand example and the pattern lists, written out once.

The hand example (docs/semantics and the module docstrings use the same one) is the pattern
``(cat|car|dog)s?`` over a 15-token vocabulary. Its canonical DFA has 7 states, numbered breadth
first from the start with bytes ascending:

    0 -c-> 1 -a-> 3 -t,r-> 5 -s-> 6        0 -d-> 2 -o-> 4 -g-> 5        accepting: 5, 6

and a token is allowed in a state when its bytes lead somewhere other than DEAD (EOS: when the state
accepts; ``None`` and the empty token: never). `tests/test_corpus.py` checks every table here against
an oracle (Python's ``re`` and a brute-force walk), so a file that imports them tests the real thing.
"""

from __future__ import annotations

HAND = "(cat|car|dog)s?"
"""The hand example's pattern."""

HAND_VOCAB: list[bytes | None] = [
    b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b"",
]
"""Token ids 0..14; 13 (``None``) is EOS, 14 is the empty token (never allowed)."""

HAND_EOS = 13

HAND_N_STATES = 7
HAND_ACCEPT = [False, False, False, False, False, True, True]
HAND_EDGES: dict[tuple[int, str], int] = {
    (0, "c"): 1, (0, "d"): 2, (1, "a"): 3, (2, "o"): 4,
    (3, "r"): 5, (3, "t"): 5, (4, "g"): 5, (5, "s"): 6,
}
"""(state, byte as a one-character string) -> next state; every other byte leads to DEAD."""

HAND_STATE_TEXT: dict[int, bytes] = {0: b"", 1: b"c", 2: b"d", 3: b"ca", 4: b"do", 5: b"cat", 6: b"cats"}
"""A shortest text that leads to each state (how to name a state of a lazily numbered automaton)."""

HAND_MASKS: dict[int, list[int]] = {
    0: [0, 4, 8, 9, 10], 1: [1], 2: [5], 3: [2, 3, 11], 4: [6], 5: [7, 13], 6: [13],
}
"""State -> the allowed token ids, ascending."""

HAND_WORDS = [b"cat", b"car", b"dog", b"cats", b"cars", b"dogs"]
"""The whole language of the hand example."""

HAND_NON_WORDS = [b"", b"ca", b"catss", b"dot", b"cat ", b"Cat", b"s"]

REAL_PATTERNS: dict[str, str] = {
    "date": r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])",
    "email": r"[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,6}",
    "ipv4": r"((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])",
    "json": r'\{"name":"([^"\\\x00-\x1f]|\\["\\/bfnrt])*","age":(0|[1-9][0-9]*),"tags":\[("[a-z ]*"(,"[a-z ]*")*)?\]\}',
}
"""Patterns of the kind constrained decoding meets: a date, an e-mail, an IPv4 address, a JSON object."""

SYNTAX_PATTERNS = [
    HAND,
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])",
    r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}",
    r"((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])",
    r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?",
    r"(a|b)*a(a|b){3}",
    r".*\n[^\n]*",
    r"\w+\s\W?\S{1,2}\D",
    r"(ab|ba){2,4}c?x{0,}y{,2}",
    r"[\x00-\x1f\x7f-\xff]{1,3}[^\x00-\x7f]*",
    r"\x41\101\0\t[\]\\\-^]+[]a][^]b]-",
    r"(?P<word>[a-z]+)(?:,[a-z]+)*a{2}\{",
    r"(|a|bc)+d?",
]
"""Patterns that between them use every construct of the supported syntax (classes, escapes,
counted repetition, groups, empty alternatives), each with a non-empty language."""

DRAWN_PATTERNS = [HAND, "a", "(a|b)*a(a|b){2}", r'"([^"\\]|\\.)*"', r"\d{4}-\d{2}-\d{2}", "(ab|b)*c", "x*"]
"""Small automata (at most a few dozen states) that a picture can show whole."""

TWO_LETTER_PATTERNS = ["ab", "a*b*", "(ab)*", "(a|b)*b", "a(a|b)*", "b*ab*", "(aab|b)*a?"]
"""Patterns over {a, b}: with the vocabulary [a, b] every (state, token) pair is small enough to
check one by one."""
