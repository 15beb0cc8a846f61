"""Canonical DFA tables: the hand example, Python's `re` as an oracle, canonical form, liveness, an
independent Thompson construction, and laws over random patterns."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, DFA, LazyDFA, regex_to_dfa
from brzozowski.automata import dfa as dfa_module
from brzozowski.automata.dfa import canonical
from brzozowski.errors import StateBudgetError, StateError, TableError

from .corpus import HAND, SYNTAX_PATTERNS
from .strategies import patterns, texts
from .thompson import reference_tables


def test_hand_example():
    dfa = regex_to_dfa(HAND)
    assert dfa.n_states == 7
    assert dfa.accept.tolist() == [False, False, False, False, False, True, True]
    expected_edges = {
        (0, "c"): 1, (0, "d"): 2, (1, "a"): 3, (2, "o"): 4,
        (3, "r"): 5, (3, "t"): 5, (4, "g"): 5, (5, "s"): 6,
    }
    for state in range(7):
        for b in range(256):
            want = expected_edges.get((state, chr(b)), DEAD)
            assert dfa.trans[state, b] == want, (state, chr(b))
    assert dfa.step(0, b"ca") == 3
    assert dfa.step(0, b"dog") == 5
    assert dfa.step(0, b"cats") == 6
    assert dfa.step(0, b"cx") == DEAD
    assert dfa.step(DEAD, b"a") == DEAD
    assert dfa.step(3, b"ts") == 6
    for word in [b"cat", b"car", b"dog", b"cats", b"cars", b"dogs"]:
        assert dfa.matches(word)
    for word in [b"", b"ca", b"catss", b"dot", b"cat ", b"Cat", b"s"]:
        assert not dfa.matches(word)


def test_tables_are_read_only_and_typed():
    dfa = regex_to_dfa(HAND)
    assert dfa.trans.dtype == np.int32 and dfa.accept.dtype == bool
    with pytest.raises(ValueError):
        dfa.trans[0, 0] = 3


# The spec's ten patterns (and more): random strings drawn from the DFA, their prefixes and
# one-byte edits must get the same answer as Python's re.fullmatch on bytes.
PATTERNS = SYNTAX_PATTERNS


def distances_to_acceptance(dfa: DFA) -> list[int]:
    """For every state, the length of the shortest string that leads from it to acceptance."""
    distance = [0 if a else -1 for a in dfa.accept.tolist()]
    frontier = [s for s, d in enumerate(distance) if d == 0]
    rows = dfa.trans.tolist()
    while frontier:
        reached = set(frontier)
        frontier = []
        for s, row in enumerate(rows):
            if distance[s] < 0 and reached.intersection(row):
                distance[s] = distance[next(iter(reached.intersection(row)))] + 1
                frontier.append(s)
    return distance


def random_walk(dfa: DFA, rng: random.Random, max_len: int = 30) -> bytes:
    """A random string of the language; past `max_len` bytes it heads straight for acceptance.

    Bounded: past `max_len` every step shortens the way to acceptance, so a walk longer than
    `max_len` + the number of states fails (a wrong DFA, with a state that cannot reach acceptance).
    """
    distance = distances_to_acceptance(dfa)
    out = bytearray()
    state = 0
    for _ in range(max_len + dfa.n_states + 1):
        live = [b for b in range(256) if dfa.trans[state, b] != DEAD]
        if dfa.accept[state] and (not live or rng.random() < 0.25 or len(out) >= max_len):
            return bytes(out)
        if len(out) >= max_len:
            live = [b for b in live if distance[dfa.trans[state, b]] < distance[state]] or live
        b = rng.choice(live)
        out.append(b)
        state = int(dfa.trans[state, b])
    raise AssertionError(
        f"no accepting state within {max_len} + {dfa.n_states} bytes: {bytes(out)!r} ends in state "
        f"{state}, whose distance to acceptance is {distance[state]} (-1: none)"
    )


@pytest.mark.parametrize("start_accepts", [False, True])
def test_random_walk_fails_instead_of_hanging_on_a_cycle_that_cannot_reach_acceptance(start_accepts):
    """A wrong DFA (hand-made: 0 -a-> 1 -a-> 1, and 1 never accepts) must fail the walk, not hang it."""
    trans = np.full((2, 256), DEAD, dtype=np.int32)
    trans[0, ord("a")] = trans[1, ord("a")] = 1
    bad = SimpleNamespace(trans=trans, accept=np.array([start_accepts, False]), n_states=2)
    with pytest.raises(AssertionError, match="no accepting state within 30 [+] 2 bytes"):
        for seed in range(20):  # with an accepting start, some seeds step into the trap at once
            random_walk(bad, random.Random(seed))


def edits(data: bytes, rng: random.Random) -> list[bytes]:
    result = []
    for _ in range(4):
        i = rng.randrange(len(data) + 1)
        b = rng.randrange(256)
        result.append(data[:i] + bytes([b]) + data[i:])  # insert
        if data:
            j = rng.randrange(len(data))
            result.append(data[:j] + bytes([b]) + data[j + 1:])  # substitute
            result.append(data[:j] + data[j + 1:])  # delete
    return result


@pytest.mark.parametrize("pattern", PATTERNS)
def test_matches_python_re(pattern):
    dfa = regex_to_dfa(pattern)
    oracle = re.compile(pattern.encode())
    rng = random.Random(pattern)
    checked = 0
    for _ in range(40):
        word = random_walk(dfa, rng)
        assert oracle.fullmatch(word), (pattern, word)
        for text in [word[:k] for k in range(len(word))] + edits(word, rng):
            assert dfa.matches(text) == bool(oracle.fullmatch(text)), (pattern, text)
            checked += 1
    assert checked > 100


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, data=st.lists(texts, min_size=1, max_size=12))
def test_random_patterns_match_python_re(pattern, data):
    dfa = regex_to_dfa(pattern)
    oracle = re.compile(pattern.encode())
    for text in data:
        assert dfa.matches(text) == bool(oracle.fullmatch(text)), (pattern, text)


EQUIVALENT = [
    ("a|b", "[ab]"),
    ("(a*)*", "a*"),
    ("(ab)*a", "a(ba)*"),
    ("a{2,3}", "aa|aaa"),
    (r"\d", "[0-9]"),
    ("(a|b)*", "(a*b*)*"),
    ("x+", "xx*"),
    (".*", r"[^\n]*"),
    ("(cat|car|dog)s?", "ca[tr]s?|dogs?"),
    (r"[\x00-\xff]", r"\D|\d"),
]


@pytest.mark.parametrize(("left", "right"), EQUIVALENT)
def test_canonical_form(left, right):
    a, b = regex_to_dfa(left), regex_to_dfa(right)
    assert np.array_equal(a.trans, b.trans)
    assert np.array_equal(a.accept, b.accept)
    assert a == b


def test_different_languages_give_different_tables():
    assert regex_to_dfa("a|b") != regex_to_dfa("a|c")
    assert regex_to_dfa("a*") != regex_to_dfa("a+")


def live_states(dfa: DFA) -> set[int]:
    live = {s for s in range(dfa.n_states) if dfa.accept[s]}
    changed = True
    while changed:
        changed = False
        for s in range(dfa.n_states):
            if s not in live and any(t in live for t in set(dfa.trans[s].tolist()) if t != DEAD):
                live.add(s)
                changed = True
    return live


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_state_is_live(pattern):
    dfa = regex_to_dfa(pattern)
    assert live_states(dfa) == set(range(dfa.n_states))


@pytest.mark.parametrize("pattern", PATTERNS + [left for left, _ in EQUIVALENT])
def test_tables_equal_an_independent_thompson_construction(pattern):
    accept, trans = reference_tables(pattern)
    dfa = regex_to_dfa(pattern)
    assert np.array_equal(dfa.accept, accept)
    assert np.array_equal(dfa.trans, trans)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns)
def test_random_patterns_equal_the_thompson_construction(pattern):
    accept, trans = reference_tables(pattern)
    dfa = regex_to_dfa(pattern)
    assert np.array_equal(dfa.accept, accept), pattern
    assert np.array_equal(dfa.trans, trans), pattern


@pytest.mark.parametrize("moore_rounds", [0, 1, 2])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(pattern=patterns)
def test_hopcroft_gives_the_thompson_tables(monkeypatch, moore_rounds, pattern):
    # Minimization hands over to Hopcroft after MOORE_ROUNDS rounds: from any of those partitions
    # it must reach the same minimal automaton.
    monkeypatch.setattr(dfa_module, "MOORE_ROUNDS", moore_rounds)
    monkeypatch.setattr(dfa_module, "MOORE_WORK", 0)
    accept, trans = reference_tables(pattern)
    dfa = regex_to_dfa(pattern)
    assert np.array_equal(dfa.accept, accept), pattern
    assert np.array_equal(dfa.trans, trans), pattern


@pytest.mark.parametrize("pattern", PATTERNS)
def test_hopcroft_alone_on_the_spec_patterns(monkeypatch, pattern):
    expected = regex_to_dfa(pattern)
    monkeypatch.setattr(dfa_module, "MOORE_ROUNDS", 0)
    monkeypatch.setattr(dfa_module, "MOORE_WORK", 0)
    assert regex_to_dfa(pattern) == expected


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, data=st.lists(texts, min_size=1, max_size=10))
def test_lazy_and_canonical_agree(pattern, data):
    lazy = LazyDFA(pattern)
    dfa = regex_to_dfa(pattern)
    for text in data:
        assert lazy.matches(text) == dfa.matches(text)


@settings(max_examples=80, deadline=None)
@given(pattern=patterns)
def test_minimizing_twice_changes_nothing(pattern):
    dfa = regex_to_dfa(pattern)
    assert canonical(dfa.accept, dfa.trans) == dfa


def test_canonical_of_a_redundant_table():
    # A hand-made non-minimal DFA for (ab)*: states 0 and 2 are equivalent; state 3 is dead.
    trans = np.full((4, 256), DEAD, dtype=np.int32)
    trans[0, ord("a")] = 1
    trans[1, ord("b")] = 2
    trans[2, ord("a")] = 1
    trans[1, ord("c")] = 3
    trans[3, ord("a")] = 3
    accept = np.array([True, False, True, False])
    assert canonical(accept, trans) == regex_to_dfa("(ab)*")


def test_state_budget_turns_an_explosion_into_an_error():
    with pytest.raises(StateBudgetError, match="state budget"):
        regex_to_dfa("(a|b)*a(a|b){12}", max_states=1000)
    rng = random.Random(0)
    lazy = LazyDFA("(a|b)*a(a|b){12}", max_states=50)
    with pytest.raises(StateBudgetError):
        lazy.step(0, bytes(rng.choice(b"ab") for _ in range(400)))
    assert lazy.n_states == 50
    assert regex_to_dfa("(a|b)*a(a|b){12}").n_states == 8192


def test_lazy_dfa_numbers_states_on_demand():
    lazy = LazyDFA(HAND)
    assert lazy.n_states == 1
    dog = lazy.step(0, b"dog")
    assert dog != DEAD
    assert lazy.n_states == 2  # a step's bytes are read on terms: only the state at its end exists
    d = lazy.next_state(0, ord("d"))
    assert lazy.n_states == 3 and lazy.step(d, b"og") == dog  # the same state, byte by byte
    assert lazy.is_accepting(lazy.step(0, b"dog"))
    assert lazy.step(0, b"dox") == DEAD
    row = lazy.row(0)
    assert row[ord("c")] >= 0 and row[ord("x")] == DEAD
    assert not row.flags.writeable
    with pytest.raises(StateError, match="state 99 does not exist"):
        lazy.row(99)


def test_transitions_derive_only_the_classes_of_the_bytes_needed():
    """`LazyDFA.transitions` derives the classes of the bytes asked for, and discovers only the
    states those lead to: the other classes stay `UNKNOWN` (and their states undiscovered) until
    some call needs them, and `row` then agrees with every transition given before."""
    from brzozowski.automata.lazy import UNKNOWN

    lazy = LazyDFA("a(x|y)|b1|c2|d3")
    part = lazy.transitions(0, np.array([ord("a")]))
    assert part[ord("a")] == lazy.step(0, b"a") != DEAD and lazy.n_states == 2
    assert part[ord("b")] == part[ord("c")] == UNKNOWN and part[ord("z")] == DEAD
    later = lazy.transitions(0, np.array([ord("c"), ord("z")]))
    assert lazy.n_states == 3 and later[ord("a")] == part[ord("a")] and later[ord("b")] == UNKNOWN
    row = lazy.row(0)
    assert lazy.n_states == 5 and (row != UNKNOWN).all()
    assert np.array_equal(row[later != UNKNOWN], later[later != UNKNOWN])
    assert lazy.transitions(0, np.array([ord("d")])) is row  # a full row, once there is one
    from brzozowski.automata.codes import TransitionTable

    lazy = LazyDFA("a(x|y)|b1|c2|d3")  # a walk's gather asks for the bytes it reads, no more
    table = TransitionTable(lazy)
    found = table.gather(np.array([table.code(0) + ord("a")], dtype=np.int32))
    assert lazy.n_states == 2 and found.tolist() == [table.code(lazy.step(0, b"a"))]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, seed=st.integers(0, 2**16))
def test_a_table_gathered_by_parts_equals_the_full_tables(pattern, seed):
    """`TransitionTable.gather` over a lazy automaton fills only the transitions of the bytes it
    reads, never returns `UNFILLED`, and gives the codes of the canonical DFA's transitions (the
    same language from every state: read through `matches` of the texts that reach them)."""
    from brzozowski.automata.codes import UNFILLED, TransitionTable

    rng = np.random.default_rng(seed)
    lazy = LazyDFA(pattern)
    table = TransitionTable(lazy)
    codes = np.array([table.code(0)], dtype=np.int32)
    texts_of = {0: b""}  # the state of each code: a text that reaches it
    for _ in range(6):
        picked = rng.integers(0, 256, size=(len(codes), 3)).astype(np.int32)
        picked[:, 0] = rng.choice(list(b"abc01 \x00\xff"), size=len(codes))
        index = (codes[:, None] + picked).ravel()
        found = table.gather(index)
        assert (found >= 0).all() and (found != UNFILLED).all()
        for parent, b, code in zip(np.repeat(codes, 3).tolist(), picked.ravel().tolist(), found.tolist()):
            if parent == 0:
                assert code == 0
                continue
            text = texts_of[(parent >> 8) - 1] + bytes([b])
            assert code == (lazy.step(0, text) + 1) * 256
            if code:
                texts_of.setdefault((code >> 8) - 1, text)
        codes = np.unique(found)[:8]
    for state, text in texts_of.items():
        assert lazy.step(0, text) == state


@pytest.mark.parametrize("pattern", ["(cat|car|dog)s?", "[a-c]{2,5}x(y|z)*", "(ab|a)*(b&)?"])
def test_a_step_read_on_terms_ends_in_the_state_byte_by_byte_reaches(pattern):
    """`LazyDFA.step` reads a token's bytes on terms and numbers only the state at the end: that
    state is the one the transitions byte by byte lead to (in another automaton of the pattern),
    DEAD included, and so is the state a second step from there reaches (the first one's end has
    no classes yet: it is read on from its term); of longer data all but the last `TERM_STEPS`
    bytes are read state by state (each state counted against the state budget)."""
    from brzozowski.automata.lazy import TERM_STEPS

    rng = random.Random(7)
    for _ in range(300):
        data = bytes(rng.choice(b"abcdgorstxyz&") for _ in range(rng.randint(2, 7)))
        by_terms, by_bytes = LazyDFA(pattern), LazyDFA(pattern)
        end = by_terms.step(0, data)
        state = 0
        for b in data:
            state = DEAD if state == DEAD else by_bytes.next_state(state, b)
        assert (end == DEAD) == (state == DEAD), data
        if end != DEAD:
            assert by_terms.term(end) is by_bytes.term(state) and by_terms.n_states == 2, data
            more = bytes(rng.choice(b"abcdgorstxyz&") for _ in range(rng.randint(1, 4)))
            on = by_terms.step(end, more)  # from a state whose classes are not computed yet
            for b in more:
                state = DEAD if state == DEAD else by_bytes.next_state(state, b)
            assert (on == DEAD) == (state == DEAD), data + more
            if on != DEAD:
                assert by_terms.term(on) is by_bytes.term(state), data + more
                assert np.array_equal(by_terms.row(on), by_bytes.row(state)), data + more
    counted = LazyDFA("[ab]{0,300}")  # a state per byte read
    assert counted.step(0, b"ab" * TERM_STEPS) != DEAD
    assert counted.n_states == 1 + TERM_STEPS + 1  # state by state, then the last TERM_STEPS bytes on terms


@pytest.mark.parametrize("pattern", ["[a-w]*x1", '("[a-z ]*",?)*', "(a[a-c]*|b)*c"])
def test_a_step_through_a_loop_reads_only_the_looping_class_as_a_loop(pattern):
    """A byte that leads a term back to itself is a loop, and so is every byte of its derivative
    class, not others the term begins with (``[a-w]*x1``: ``a`` loops, ``x`` does not); a state
    found to loop gets its classes then, its loop as a known transition. Steps from the start and
    on from their ends agree with `re.fullmatch` and with the automaton byte by byte."""
    rng = random.Random(11)
    alphabet = b'abcwxyz1 ",'
    for _ in range(300):
        by_terms, by_bytes = LazyDFA(pattern), LazyDFA(pattern)
        state, text = 0, b""
        for _ in range(3):
            data = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
            loops = state != DEAD and by_terms.step(state, data[:1]) == state
            end = by_terms.step(state, data) if state != DEAD else DEAD
            text += data
            expected = 0
            for b in text:
                expected = DEAD if expected == DEAD else by_bytes.next_state(expected, b)
            assert (end == DEAD) == (expected == DEAD), text
            if end != DEAD:
                assert by_terms.term(end) is by_bytes.term(expected), text
                assert by_terms.is_accepting(end) == bool(re.fullmatch(pattern.encode(), text)), text
            if loops:  # the loop is now a transition of the state's classes
                assert by_terms.next_state(state, data[0]) == state
            state = end


WORD_SCHEMAS = [  # alternations of words: listed names sharing prefixes, enums, other keys
    {"type": "object", "properties": {"ab": {"type": "integer"}, "abc": {"enum": ["x", "y\"z"]},
                                      "b": {"type": "string"}}, "additionalProperties": False},
    {"type": "object", "properties": {"ab": {"type": "null"}, "ba": {"type": "integer"}}},
    {"type": "array", "items": {"enum": ["ab", "a", "b", "abc", 1]}},
    {"anyOf": [{"const": "ab"}, {"type": "string", "pattern": "^a[0-9]+$"}, {"type": "integer"}]},
]
WORD_BYTES = b'abcxyz09"\\:,{}[]-'


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(WORD_SCHEMAS) - 1), walk=st.lists(st.integers(0, 255), max_size=12),
       data=st.binary(min_size=2, max_size=6))
def test_a_derivative_option_by_option_is_the_one_byte_by_byte(which, walk, data):
    """`derivative_by_options` (what a token's bytes do to an alternation of words, option by
    option, no union built per byte) gives the very term `derivative_of_string` gives, from any
    state of these schemas, or declines (a tail the options may reach midway)."""
    from brzozowski import compile_json_schema
    from brzozowski.core.derivatives import derivative_by_options, derivative_of_string

    lazy = compile_json_schema(WORD_SCHEMAS[which], closed_objects=which != 1)
    state = lazy.start
    for b in walk:  # a random live state
        target = lazy.step(state, bytes([WORD_BYTES[b % len(WORD_BYTES)]]))
        state = state if target == DEAD else target
    data = bytes(WORD_BYTES[b % len(WORD_BYTES)] for b in data)
    term = lazy.term(state)
    got = derivative_by_options(term, data)
    assert got is None or got is derivative_of_string(term, data), (term, data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, prefix=texts, data=texts)
def test_a_derivative_through_heads_is_the_one_byte_by_byte(pattern, prefix, data):
    """`derivative_through_heads` (a concatenation read through its head alone, one concatenation
    built per run of bytes) gives the very term `derivative_of_string` gives, from a random
    derivative of a random pattern; asked to decline where a term before the last byte is
    nullable, it declines exactly there."""
    from brzozowski.core.derivatives import derivative_of_string, derivative_through_heads
    from brzozowski.core.syntax import parse

    term = derivative_of_string(parse(pattern), prefix)
    expected = derivative_of_string(term, data)
    assert derivative_through_heads(term, data) is expected, (pattern, prefix, data)
    nullable_midway = any(derivative_of_string(term, data[:i]).nullable for i in range(len(data)))
    closed = derivative_through_heads(term, data, open_end=False)
    assert closed is (None if nullable_midway else expected), (pattern, prefix, data)


@pytest.mark.parametrize("pattern, data, declined", [
    ("(?:a|b)*a", b"aa", True),  # the tail begins with the byte: it reads it too, not the head alone
    ("(?:aa?a)*c", b"aa", False),  # ∂a of the head is a?·a·…: read on, the tail's concatenation
    ("(?:a)*(?:c)?", b"aa", True),  # nullable before the first byte: declined if asked
    ("(?:ab)*c", b"abab", False),
    ("(?:ab?c)*d", b"abca", False),  # ∂a of the head is b?·c·…: a nullable first part, not read on
    ("(?:abc)*d", b"abcab", False),  # ∂a is b·c·…: read on as the head
    (rb'(?:[a-z]|\xc3[\x80-\xbf]|\xe6[\x80-\xbf][\x80-\xbf])*"', "aé東b".encode(), False),  # characters
])
def test_a_derivative_through_heads_on_the_cases_that_break_it(pattern, data, declined):
    """Where reading a concatenation's head alone would build another term than byte by byte."""
    from brzozowski.core.derivatives import derivative_of_string, derivative_through_heads
    from brzozowski.core.syntax import parse

    term = parse(pattern)
    expected = derivative_of_string(term, data)
    assert derivative_through_heads(term, data) is expected
    assert derivative_through_heads(term, data, open_end=False) is (None if declined else expected)


def test_a_string_reads_its_multibyte_characters_through_its_kept_contents():
    """Inside a JSON string, a token of multi-byte characters and escapes is read through the
    string's contents (`ANY_STRING`, whose derivatives the process keeps) alone, back into the
    string's state (its loop known: a token of plain bytes read first): no term is made, in any
    schema, once one schema's string has read such characters."""
    import gc

    from brzozowski import compile_json_schema
    from brzozowski.core import terms

    texts = ["東京東京", " é", "😀😀", "\\u00e9\\n", "é東😀x"]
    for count, name in enumerate(["a", "b", "c"]):  # each schema its own string state, dropped after
        lazy = compile_json_schema({"type": "object", "properties": {name: {"type": "string"}}, "required": [name],
                                    "additionalProperties": False})
        state = lazy.step(lazy.start, f'{{"{name}":"x'.encode())
        assert lazy.step(state, b" y") == state  # (plain bytes first: the state's loop is known)
        before = next(terms._IDS)  # (ids are handed out in creation order)
        for text in texts:
            assert lazy.step(state, text.encode()) == state, text
        if count:  # (the first schema may be the process's first string)
            assert next(terms._IDS) == before + 1, name
        del lazy
        gc.collect()


def test_a_token_inside_a_leaf_is_read_through_its_table_from_the_first_byte():
    """A state inside a leaf (a number), stepped by a token before its classes are known, reads
    even the token's first byte through the leaf's table (`derivative_through_heads`): the same
    state as byte by byte, and no derivative of the state's whole term made or memoized."""
    from brzozowski import compile_json_schema
    from brzozowski.core.derivatives import derivative_of_string

    lazy = compile_json_schema({"type": "object", "properties": {"n": {"type": "number"}}})
    for text, token in ((b'{"n":', b"12"), (b'{"n":1', b"2."), (b'{"n":-', b"0"), (b'{"n":3.', b"14}")):
        state = lazy.step(lazy.start, text)
        term = lazy.term(state)
        found = lazy.step(state, token)
        assert term.derivatives is None, (text, token)
        assert lazy.term(found) is derivative_of_string(term, token), (text, token)


def test_a_derivative_option_by_option_declines_where_the_tail_reads_on():
    """After ``["`` in an array of words, ``a",`` ends the word ``a`` midway and goes on into what
    follows every word: option by option that is not the rule (declined), byte by byte it is live;
    ``ab`` (inside the words) is read option by option."""
    from brzozowski import compile_json_schema
    from brzozowski.core.derivatives import derivative_by_options, derivative_of_string

    lazy = compile_json_schema(WORD_SCHEMAS[2])
    term = lazy.term(lazy.step(lazy.start, b'["'))
    assert derivative_by_options(term, b'a",') is None
    assert derivative_of_string(term, b'a",').nullable is False and lazy.step(lazy.start, b'["a",') != DEAD
    assert derivative_by_options(term, b"ab") is derivative_of_string(term, b"ab")


def test_a_step_read_on_terms_keeps_the_work_budget():
    """Nested bounded repeats widen the terms read on the way, not only the states: the work
    budget per state (`max_alternatives`) stops a step inside a token too, even one that ends
    DEAD (a newline, which ``.`` does not match) and so numbers no state at all."""
    lazy = LazyDFA("(.{0,100}){0,100}", max_alternatives=50)
    with pytest.raises(StateBudgetError, match="alternation"):
        lazy.step(0, b"x" * 100 + b"\n")
    assert lazy.n_states == 1
    state = 0  # a state too wide is named by its number, the one it would have had
    with pytest.raises(StateBudgetError, match=r"^state 11 holds an alternation of 56 operands, more than 50"):
        for _ in range(20):
            state = int(lazy.row(state)[ord("x")])


def test_dfa_validates_its_tables():
    with pytest.raises(TableError, match="shape"):
        DFA(np.array([True]), np.zeros((2, 256), dtype=np.int32))
    with pytest.raises(TableError, match="entries"):
        DFA(np.array([True]), np.full((1, 256), 5, dtype=np.int32))
    with pytest.raises(StateError, match="state 7 does not exist"):
        regex_to_dfa("a").step(7, b"a")


def test_dot_and_json_views():
    dfa = regex_to_dfa(HAND)
    dot = dfa.to_dot()
    assert dot.startswith("digraph") and '3 -> 5 [label="[rt]"]' in dot
    assert "5 [shape=doublecircle]" in dot
    import json

    tables = json.loads(dfa.to_json())
    assert tables["n_states"] == 7 and tables["trans"][3][ord("t")] == 5
