"""Leaves (`brzozowski.automata.leaves`): a format's strings as the states of one process-wide automaton,
atoms of the term algebra, and the per-vocabulary tables their masks read.

Oracles: the term the leaf stands for (its derivatives, its canonical DFA), the schema compiled
with the format written out as a plain term, a walk of the trie that reads no table, and the mask
definition token by token."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, compile_json_schema, regex_to_dfa
from brzozowski.core.derivatives import derivative, derivative_classes, matches
from brzozowski.json.format_tables import build_format_dfa, format_dfa, format_term
from brzozowski.json.formats import FORMAT_PATTERNS, parse_format
from brzozowski.json.leaf_terms import json_integer_term, json_number_term, json_string_term
from brzozowski.automata.lazy import LazyDFA
from brzozowski.automata.leaves import LeafAutomaton, shared_leaf
from brzozowski.json.masks.leaves import Options
from brzozowski.masks.index import TokenIndex
from brzozowski.masks.walk import Walker
from brzozowski.masks.tuning import DEFAULT_TUNING, Tuning
from brzozowski.json.leaf_masks import format_trie, leaf_tables
from brzozowski.core.syntax import parse
from brzozowski.core.terms import EMPTY, EPSILON, K_LEAF, concat, literal
from brzozowski.vocab.vocabulary import Vocabulary

from .test_masks import brute_force_mask, string_tokens

def test_a_format_is_one_shared_atom_whose_derivatives_are_its_tables_states():
    """The same format gives the same atom, a state of its shipped table; each derivative is the
    atom of the table's next state, ε once the closing quote is read, ∅ for a byte no string
    continues with; its classes group the bytes by the state they lead to."""
    uri = json_string_term(format="uri")
    assert uri.kind == K_LEAF and json_string_term(format="uri") is uri
    automaton = uri.table
    table = format_dfa("uri").to_dfa()
    assert automaton.dfa is format_dfa("uri") and str(uri) == f"⟨uri:{uri.lo}⟩"
    state, term = automaton.dfa.start, uri
    for b in b'"ab:c"':
        state = int(table.trans[state, b])
        term = derivative(term, b)
        if term is EPSILON:
            break
        assert term.kind == K_LEAF and term.table is automaton and term.lo == state
    assert term is EPSILON and table.is_accepting(state) and (table.trans[state] == DEAD).all()
    assert derivative(uri, ord("x")) is EMPTY  # a string begins with its quote
    inside = derivative(uri, ord('"'))
    for bits in derivative_classes(inside):
        targets = {int(table.trans[inside.lo, b]) for b in range(256) if (bits >> b) & 1}
        assert len(targets) == 1


@pytest.mark.parametrize("name", sorted(FORMAT_PATTERNS))
def test_each_shipped_format_table_is_the_canonical_dfa_of_its_term(name):
    """The shipped tables (brzozowski/json/format_tables.npz) are each format's quoted term explored
    and minimized (after a change to a format, `python -m brzozowski.json.format_tables` rewrites
    them), with the fewest and most characters of its strings; explored through its atoms, the
    leaf gives the same DFA again."""
    shipped = format_dfa(name).to_dfa()
    assert shipped == build_format_dfa(name)
    assert (format_dfa(name).fewest, format_dfa(name).most) == parse_format(name)[1:]
    assert regex_to_dfa(json_string_term(format=name)) == shipped


def test_a_format_with_a_length_bound_is_a_leaf_over_its_term():
    """A format under a length bound is another language: a leaf over its own term (lazy), whose
    atoms explored give the canonical DFA of that term."""
    atom = json_string_term(format="time", max_length=12)
    assert atom.kind == K_LEAF and isinstance(atom.table.dfa, LazyDFA) and str(atom).startswith("(")
    assert regex_to_dfa(atom) == regex_to_dfa(atom.table.term_of(atom.lo))


def _plain(schema):
    """The schema compiled with every format written out as its plain term (no atoms)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("brzozowski.json.leaf_terms.shared_leaf", lambda term: term)
        patch.setattr("brzozowski.json.leaf_terms.format_dfa", lambda name: None)
        return compile_json_schema(schema)


FORMAT_SCHEMA = {"type": "object", "properties": {
    "day": {"type": "string", "format": "date"},
    "ip": {"type": ["string", "null"], "format": "ipv4"},
    "ids": {"type": "array", "items": {"type": "string", "format": "uuid"}, "maxItems": 2},
    "short": {"type": "string", "format": "time", "maxLength": 12}},
    "required": ["day"], "additionalProperties": False}


def test_a_schema_with_format_atoms_has_the_canonical_dfa_of_the_plain_schema():
    lazy, plain = compile_json_schema(FORMAT_SCHEMA), _plain(FORMAT_SCHEMA)
    assert "format" not in str(plain.term(plain.start))  # (sanity: no atom printed as a name)
    assert regex_to_dfa(lazy.term(lazy.start)) == regex_to_dfa(plain.term(plain.start))


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet='"\\/:@.%-_?#[]abcdefxyzAZ019 \u00e9', max_size=24))
@pytest.mark.parametrize("name", ["uri", "hostname", "email", "uri-reference", "json-pointer"])
def test_large_format_atoms_match_what_their_terms_match(name, text):
    atom, term = json_string_term(format=name), format_term(name)
    for data in (text.encode(), b'"' + text.encode(), b'"' + text.encode() + b'"'):
        assert matches(atom, data) == matches(term, data), data


def test_a_leaf_that_goes_on_after_it_accepts_has_no_tables_and_is_walked():
    """Tables assume a word ends at the one state whose language is {ε} (a closing quote): a leaf
    whose accepting state may go on (``"[a-z]*"x?``) gets none, and its masks are walked."""
    odd = parse('"[a-z]*"x?')
    vocab = [b'"ab', b'"', b'x', b'xy', b'ab"', b'ab"y', b'a"y', b'"y', None]  # none reaches ε
    vocabulary = Vocabulary(vocab, eos_id=len(vocab) - 1)
    wide = parse('"[ !#-~]*"x?')  # wide enough for the tables to be tried
    heads = []
    for term in (wide, odd):
        lazy = LazyDFA(concat(shared_leaf(term), literal(b"y")))
        index = TokenIndex(lazy, vocabulary)
        for text in (b"", b'"', b'"a', b'"ab"'):
            state = lazy.step(lazy.start, text)
            if state != DEAD:
                assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, len(vocab) - 1)), text
        heads.append(lazy.term(lazy.step(lazy.start, b'"a')).children[0])
    for head in heads:
        assert head.kind == K_LEAF and not head.table.closes_once()
        assert leaf_tables(vocabulary.trie, head.table, head.lo) is None


URL_SCHEMA = {"type": "object", "properties": {
    "url": {"type": "string", "format": "uri"},
    "host": {"type": ["string", "null"], "format": "hostname"},
    "mail": {"type": "array", "items": {"type": "string", "format": "email"}}},
    "additionalProperties": False}
URL_TEXTS = [b'{"url":"', b'{"url":"https', b'{"url":"https://ex.co/a?b=', b'{"url":"h:","host":"',
             b'{"url":"h:","host":"ab.c', b'{"mail":["', b'{"mail":["a.b@', b'{"mail":["a@b","x']


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens)
def test_states_inside_a_wide_format_are_masked_from_the_leaf_tables_as_defined(vocab):
    """Inside a URI, a hostname or an e-mail address a state's term is an atom followed by what
    comes after the string: its mask comes from the tables of the atom's state (the tokens that
    stay inside, and those past the closing quote whose rest lives on), and is the definition,
    token by token."""
    vocab = [*vocab, b"https", b"://", b"ex", b".co", b'/a"', b'a"}', b'c",', b'b"]', b'x","',
             b'@', b'h:', b'","host":"', b'"],"', b'\\u0061', None]
    _assert_leaf_masks_as_defined(compile_json_schema(URL_SCHEMA), vocab, URL_TEXTS)


def _assert_leaf_masks_as_defined(lazy: LazyDFA, vocab: list, texts: list[bytes]) -> None:
    """At the state after each of `texts` (inside a format's string; EOS: the vocabulary's last
    token): the mask comes from the leaf's tables (or, for a format with a length bound, from the
    counted strings' uncounted twin) and is the definition, token by token."""
    eos = len(vocab) - 1
    index = TokenIndex(lazy, vocab, eos_id=eos)
    for text in texts:
        state = lazy.step(lazy.start, text)
        assert lazy.term(state).children[0].kind == K_LEAF, text
        served = index.leaf_masks + index.served["counted strings"]
        mask = index.mask(state)
        assert index.leaf_masks + index.served["counted strings"] == served + 1, text
        assert np.array_equal(mask, brute_force_mask(lazy, state, vocab, eos)), text


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens)
def test_wide_states_of_a_format_without_a_class_trie_walk_the_byte_trie_as_defined(vocab):
    """A JSON pointer's or a regex's wide states (no class trie prepared: their tables read the
    byte trie) are masked as defined."""
    vocab = [*vocab, b"/a", b"~0", b"~1", b"/", b'b"', b'"]', b"a*", b"(x)", b"\\.", None]
    pointers = {"type": "array", "items": {"anyOf": [{"type": "string", "format": "json-pointer"},
                                                     {"type": "integer"}]}}
    lazy = compile_json_schema({"type": "object", "properties": {
        "p": pointers, "r": {"type": "string", "format": "regex"}}, "additionalProperties": False})
    _assert_leaf_masks_as_defined(lazy, vocab, [b'{"p":["/', b'{"p":["/a~', b'{"r":"', b'{"r":"a(b',
                                                b'{"r":"x*'])


FORMAT_TEXTS = [b'{"day":"2024-02-2', b'{"day":"2024-02-29', b'{"day":"2024-02-29","ip":"10.0.0.1',
                b'{"day":"2024-02-29","ids":["123e4567-e89b-12d3-a456-42661417400',
                b'{"day":"2024-02-29","ids":["123e4567-e89b-12d3-a456-426614174000',
                b'{"day":"2024-02-29","short":"10:20:3']


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens)
def test_states_near_the_end_of_a_narrow_format_are_masked_from_their_exits_as_defined(vocab):
    """Inside a date, an IPv4 address, a UUID or a time, a state's mask comes from the exits of the
    atom's state: the tokens read whole, and those that close the string midway, whose rest after
    the quote lives on from what follows the string (read per follower, over the vocabulary's
    quote rests); it is the definition, token by token."""
    vocab = [*vocab, b'9', b'29', b'9"', b'9",', b'9","', b'1"}', b'0"]', b'0"],"', b'1",', b'0","ip":"',
             b'00"', b'3"', b'0"}', b'"}', b'-', b'.1', None]
    _assert_leaf_masks_as_defined(compile_json_schema(FORMAT_SCHEMA), vocab, FORMAT_TEXTS)


def test_leaf_tables_over_o200k_are_shared_by_every_schema_and_equal_a_walk():
    """Over o200k_base: the masks inside a URI and a hostname from the tables equal those of a walk
    that reads no table; a second schema that names the format reads the same tables (built once
    per vocabulary and leaf state)."""
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    lazy = compile_json_schema(URL_SCHEMA)
    fast, walked = TokenIndex(lazy, vocabulary), TokenIndex(lazy, vocabulary)
    walked.set_strategy(strings=False)
    for text in URL_TEXTS[:5]:
        state = lazy.step(lazy.start, text)
        assert np.array_equal(fast.mask(state), walked.mask(state)), text
    assert fast.leaf_masks == 5 and walked.leaf_masks == 0
    other = compile_json_schema({"type": "array", "items": {"type": "string", "format": "uri"}})
    state = other.step(other.start, b'["https')
    atom = other.term(state).children[0]
    tables = leaf_tables(vocabulary.trie, atom.table, atom.lo)
    assert tables is leaf_tables(vocabulary.trie, atom.table, atom.lo)
    assert TokenIndex(other, vocabulary).mask(state)[tables.inside].all()


@pytest.mark.parametrize("name, text", [("uri", b'"https://ex.co/a?b='), ("hostname", b'"db-01.ab'),
                                        ("email", b'"a.b@c')])
def test_leaf_tables_over_o200k_read_from_the_format_trie_are_the_tables_by_definition(name, text):
    """Over o200k_base, at each state along `text`: the tokens inside the format (read whole
    without dying or closing) and those past its closing quote, with their rests, from tables
    built over the format's class trie (`format_trie`: its dead classes left out, its deep levels
    read in plain Python), equal those of each token read byte by byte from the state."""
    from brzozowski.json.string_masks import quote_suffixes
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    trie = Vocabulary(*load_tiktoken_vocab("o200k_base")).trie
    automaton = json_string_term(format=name).table
    assert format_trie(trie, automaton) is not None
    table = automaton.dfa
    rows = [row[table.classes].tolist() for row in table.columns]
    closed = automaton.closed_state()
    rest_of = {node: rest for rest, node in quote_suffixes(trie).node_of.items()}
    rest_of[0] = b""
    state = table.start
    for b in text:
        state = table.next_state(state, b)
        tables = leaf_tables(trie, automaton, state)
        inside, past = [], set()
        for t, data in enumerate(trie.tokens):
            q = state
            for i, c in enumerate(data or b""):
                q = rows[q][c]
                if q == DEAD or q == closed:
                    break
            if data and q != DEAD and q != closed:
                inside.append(t)
            elif data and q == closed:
                past.add((t, data[i + 1:]))
        assert np.flatnonzero(tables.inside).tolist() == inside
        rests = zip(tables.past_tokens.tolist(), tables.past_rest.tolist())
        assert {(t, rest_of[r]) for t, r in rests} == past


@settings(max_examples=30, deadline=None)
@given(long=st.lists(st.text(alphabet='ab-.:/?=%09"', min_size=12, max_size=40), min_size=1, max_size=8),
       text=st.sampled_from([b'"', b'"h', b'"http://a', b'"a:b/c?d=']))
def test_the_deep_levels_of_a_format_trie_read_in_python_give_the_codes_numpy_gives(long, text):
    """`codes_from` reads the levels below a few live nodes in plain Python once the walk has been
    wide: the codes equal those of the walk level by level in numpy (48 two-byte tokens make the
    levels wide, a few long ones the deep tail)."""
    from brzozowski.json import string_masks

    vocab = [bytes([a, b]) for a in b"abcdefgh" for b in b"ab-.:/"] + [t.encode() for t in long]
    trie = Vocabulary(vocab).trie
    automaton = json_string_term(format="uri").table
    classes = format_trie(trie, automaton)
    table = automaton.codes_table()
    state = automaton.dfa.start
    for b in text:
        state = automaton.dfa.next_state(state, b)
    labels = automaton.dfa.classes.astype(np.uint8).take(classes.trie.byte)
    codes = string_masks.codes_from(classes.trie, table, state, labels)
    numpy_only = Tuning(python_tail_nodes=-1)
    assert np.array_equal(codes, string_masks.codes_from(classes.trie, table, state, labels, numpy_only))


def test_a_vocabulary_prepares_the_class_tries_and_first_tables_of_the_formats():
    """Building a `Vocabulary` builds each prepared format's class trie and one shared by the
    narrow formats, the tables of every format's states within `PREPARED_DEPTH` bytes of its
    start (a prepared format's wide ones, every narrow one), the exits of every state of a narrow
    format of at most `PREPARED_NARROW_STATES` states (a date's, a UUID's: not an IPv6 address's)
    for a vocabulary of `PREPARED_NARROW_TOKENS` tokens or more (not a small one's), and of the
    plain integers and numbers: a first mask there reads them. A format not prepared gets no class
    trie later either (its wide states walk the byte trie)."""
    from brzozowski.json import leaf_masks
    from brzozowski.json.leaf_masks import NARROW_FORMATS, PREPARED_FORMATS, _first_states, _partition

    PREPARED_NARROW_STATES = DEFAULT_TUNING.prepared_narrow_states

    tokens = [b"a", b"b.", b"://", b'"', b'x"', b"@c", b"20", b"2024-"]
    small = Vocabulary(tokens + [b"b"]).trie.tables[("leaf-tables",)][0]
    date = json_string_term(format="date").table
    assert not all(("exits", date.id, q) in small for q in range(date.dfa.n_states))
    trie = Vocabulary(tokens).trie
    leaf_masks.prepare_leaves(trie, Tuning(prepared_narrow_tokens=len(tokens)))
    cache = trie.tables[("leaf-tables",)][0]
    keys = {_partition(json_string_term(format=name).table)[0] for name in PREPARED_FORMATS + NARROW_FORMATS}
    for name in FORMAT_PATTERNS:
        automaton = json_string_term(format=name).table
        prepared = name in PREPARED_FORMATS
        partition = _partition(automaton)
        shared = partition is not None and partition[0] in keys  # (an IRI reads a URI's: same classes)
        assert (format_trie(trie, automaton) is not None) == shared, name
        states = _first_states(automaton.dfa)
        assert states, name
        for q, wide in states:
            if not wide:
                assert ("exits", automaton.id, q) in cache, name
            elif prepared:
                assert ("quoted", automaton.id, q) in cache, name
    assert format_trie(trie, json_string_term(format="regex").table) is None
    every = [name for name in NARROW_FORMATS
             if json_string_term(format=name).table.dfa.n_states <= PREPARED_NARROW_STATES]
    assert {"date", "date-time", "time", "uuid"} <= set(every) and "ipv6" not in every
    for name in every:
        automaton = json_string_term(format=name).table
        for q in range(automaton.dfa.n_states):
            assert ("exits", automaton.id, q) in cache, (name, q)
    for atom in (json_integer_term(), json_number_term()):  # the plain numbers: every state's exits
        assert atom.kind == K_LEAF
        assert atom.table.dfa.n_states >= 4
        for q in range(atom.table.dfa.n_states):
            assert ("exits", atom.table.id, q) in cache, (atom, q)


def test_a_leaf_automaton_is_its_terms_language():
    automaton = LeafAutomaton(parse('"[a-c]{2}"'))
    start = automaton.atom(automaton.dfa.start)
    assert start.kind == K_LEAF and automaton.atom(DEAD) is EMPTY
    assert [matches(start, s) for s in (b'"ab"', b'"a"', b'"abc"', b'"ad"')] == [True, False, False, False]


DATE_SCHEMA = {"type": "object", "properties": {
    "d": {"type": "string", "format": "date"},
    "ip": {"type": "array", "items": {"type": "string", "format": "ipv4"}},
    "id": {"type": ["string", "null"], "format": "uuid"}},
    "additionalProperties": False}
DATE_TEXTS = [b'{"d":', b'{"d":"', b'{"d":"2024-0', b'{"d":"2024-02-2', b'{"ip":["', b'{"ip":["10.0.',
              b'{"ip":["1.2.3.4","9', b'{"id":"12345678-', b'{"id":"12345678-9abc-def0-1234-56789abcde']
NUMBER_TEXTS = [b"[", b"[0.", b"[49.5", b"[1", b"[12,", b"[12,-", b"[12,11", b"[0,12", b"[3,1"]
PLAIN_NUMBER_SCHEMA = {"type": "object", "properties": {
    "n": {"type": "number"}, "i": {"type": "integer"}, "xs": {"type": "array", "items": {"type": "number"}}},
    "additionalProperties": False}
PLAIN_NUMBER_TEXTS = [b'{"n":', b'{"n":-', b'{"n":0', b'{"n":12', b'{"n":1.', b'{"n":1.5', b'{"n":1e',
                      b'{"n":1E-', b'{"n":-0.5e+2', b'{"i":', b'{"i":-', b'{"i":120', b'{"xs":[1,2',
                      b'{"n":1,"i":1']
number_tokens = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=5).map(lambda bs: bytes(b'0129-.eE+,}]"kxd:['[b % 18] for b in bs)),
        st.sampled_from([b'12', b'120', b'1,', b'5}', b'0]', b'3,"', b'1st', b'0.5', b'-1', b'1e5', b'9,"k":[',
                         b',"x":', b'}', b'],"d":"', b'2024', b'-02', b'-31"}', b'"2', None]),
    ),
    min_size=1,
    max_size=50,
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=number_tokens)
def test_narrow_leaf_states_are_masked_from_their_exits_as_defined(vocab):
    """A date's, an IPv4 address's or a UUID's states are narrow leaf states, and so is every state
    of a number made a leaf (``[0-9]+`` may end after any digit: exits midway through a token; the
    schema compiler makes the numbers and integers without keywords leaves):
    their masks come from the exits of the leaf state (the tokens it reads whole, those after
    which what follows reads the rest, and what follows itself when the state accepts) and are
    the definition, token by token."""
    vocab = [*vocab, b",", b",1", b"]", b'",', b'"]', b"-", None]
    eos = len(vocab) - 1
    lazy = compile_json_schema(DATE_SCHEMA)
    numbers = LazyDFA(concat(literal(b"["), shared_leaf(json_number_term(minimum=0, maximum=50)),
                             literal(b","), shared_leaf(json_integer_term(minimum=-5, maximum=120)),
                             parse("(,[0-9])*\\]")))
    plain = compile_json_schema(PLAIN_NUMBER_SCHEMA)  # (the numbers without keywords: leaves)
    for automaton, texts in ((lazy, DATE_TEXTS), (numbers, NUMBER_TEXTS), (plain, PLAIN_NUMBER_TEXTS)):
        index = TokenIndex(automaton, vocab, eos_id=eos)
        for text in texts:
            state = automaton.step(automaton.start, text)
            head = automaton.term(state).children[0]
            assert head.kind == K_LEAF and head.first.bit_count() < 32, text
            served = index.leaf_masks
            mask = index.mask(state)
            assert index.leaf_masks == served + 1, text
            assert np.array_equal(mask, brute_force_mask(automaton, state, vocab, eos)), text


@pytest.fixture(scope="module")
def o200k():
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    return Vocabulary(*load_tiktoken_vocab("o200k_base"))


@pytest.mark.parametrize("kw", [{"minimum": 1, "maximum": 500}, {"minimum": -40, "maximum": 7},
                                {"exclusive_minimum": 0}, {"maximum": -3}, {"minimum": 0, "maximum": 0},
                                {"minimum": -2147483648, "maximum": 2147483647}], ids=str)
def test_the_exits_of_an_integer_table_read_off_the_numerals_are_those_of_a_walk(kw, o200k):
    """Over o200k_base, every state of a bounded integer's table: the exits read off the
    vocabulary's numerals (every token beginning with a minus sign or a digit, as the trie of its
    digits, read through the table a level at a time) are those of a walk of the byte trie before
    a byte that is not a numeral's, token for token (the
    tokens with a digit then another byte, which o200k_base lacks, are `test_narrow_leaf_states_…`'s)."""
    from brzozowski.json.leaf_masks import _numeral_exits, _walked_exits

    atom = json_integer_term(**kw)
    automaton = atom.table
    assert automaton.live_bytes & ~sum(1 << b for b in b"-0123456789") == 0
    for q in range(automaton.dfa.n_states):
        if automaton.atom(q).kind != K_LEAF:  # (a state whose language is {ε} is ε, no leaf)
            continue
        read, walked = _numeral_exits(o200k.trie, automaton.dfa, q), _walked_exits(o200k.trie, automaton, q)
        assert np.array_equal(read.inside, walked.inside) and read.accepts == walked.accepts, q
        numeral = set(b"-0123456789")  # (the exits before a numeral's byte are not listed: none is read)
        assert (sorted(zip(read.exit_tokens.tolist(), read.exit_offsets.tolist(), read.exit_bytes.tolist()))
                == sorted(exit for exit in zip(walked.exit_tokens.tolist(), walked.exit_offsets.tolist(),
                                               walked.exit_bytes.tolist()) if exit[2] not in numeral)), q
        assert read.exit_rests is None and walked.exit_rests is None


def test_format_tries_keep_formats_only():
    """The process-wide cache behind `format_trie` is given format automata only: a lazy leaf
    (a format under a length bound, a pattern) or an integer's table would be kept by it for good."""
    from brzozowski.json.leaf_masks import _partition

    vocabulary = Vocabulary([b"a", b"1", b"-", b'"', None], eos_id=4)
    before = _partition.cache_info().currsize
    for atom in (json_integer_term(minimum=3), json_string_term(format="email", max_length=9)):
        assert format_trie(vocabulary.trie, atom.table) is None
    assert _partition.cache_info().currsize == before


UNION_SCHEMA = {"type": "object", "properties": {
    "a": {"anyOf": [{"type": "integer", "minimum": -3, "maximum": 250}, {"type": "null"}]},
    "b": {"type": ["string", "integer"]},
    "c": {"anyOf": [{"type": "integer", "minimum": 1}, {"enum": ["x", 7, True]}]},
    "d": {"type": ["string", "integer", "null"], "maximum": 99}},
    "additionalProperties": False}
UNION_TEXTS = [b'{"a":', b'{"a":2', b'{"b":', b'{"b":1', b'{"c":', b'{"a":null,"c":1', b'{"c":"', b'{"d":',
               b'{"d":9']


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=number_tokens)
def test_a_value_that_may_be_an_integer_or_words_is_the_union_of_its_options_masks(vocab):
    """Before a value that ``anyOf`` or a list of types makes a bounded integer (a leaf) or words
    (null, an enum), or a string or an integer: the mask is the union of the options' masks, each
    from its leaf's exits or read along its words (`brzozowski.json.masks.leaves.Options`), no walk; every
    mask of the walk's states is the definition, token by token."""
    vocab = [*vocab, b"n", b"null", b"nu", b'null}', b"true", b"tr", b'"x', b'"x"}', b"7}", b"-3", b"250", None]
    eos = len(vocab) - 1
    lazy = compile_json_schema(UNION_SCHEMA)
    index = TokenIndex(lazy, vocab, eos_id=eos)
    served, walked = [], []
    with pytest.MonkeyPatch.context() as patch:
        options_mask, walk = Options.union, Walker.walk
        patch.setattr(Options, "union", lambda self, *args: served.append(options_mask(self, *args)) or served[-1])
        patch.setattr(Walker, "walk", lambda self, state, *args: walked.append(state) or walk(self, state, *args))
        for text in UNION_TEXTS:
            state = lazy.step(lazy.start, text)
            before = len(walked)
            assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, eos)), text
            if text.endswith(b":"):
                assert len(walked) == before and served and served[-1] is not None, text
    assert len([mask for mask in served if mask is not None]) >= 3


def test_options_with_many_tokens_each_are_the_union_of_their_masks():
    """With a vocabulary where a bounded integer's first state allows more than `FEW_TOKENS`
    tokens (every numeral up to three digits, signed or not), an option's mask is an array, not a
    list: an integer beside ``null`` (an array and a list), two integers of opposite signs (two
    arrays), a string or an integer (beside the quote's tables) are masked by
    `brzozowski.json.masks.leaves.Options` as their union, the definition's token by token; asked for as
    bitmasks, the leaves' come as kept bitmasks (`leaf_inside_bits`) and the union is one, the
    definition's bit for bit."""
    FEW_TOKENS = DEFAULT_TUNING.few_tokens
    from brzozowski.json.string_masks import packed

    numerals = [str(i).encode() for i in range(-999, 1000)]
    vocab = [*numerals, b"-", b"n", b"nu", b"null", b"null}", b"7}", b'"', b'"x', b'"x"}', b"}", b",", None]
    eos = len(vocab) - 1
    vocabulary = Vocabulary(vocab, eos_id=eos)
    schema = {"type": "object", "additionalProperties": False, "properties": {
        "a": {"anyOf": [{"type": "integer", "minimum": -3, "maximum": 999}, {"type": "null"}]},
        "b": {"anyOf": [{"type": "integer", "minimum": 10, "maximum": 999},
                        {"type": "integer", "minimum": -999, "maximum": -10}]},
        "c": {"type": ["string", "integer"]}}}
    lazy = compile_json_schema(schema)
    served = []
    with pytest.MonkeyPatch.context() as patch:
        options_mask = Options.union
        patch.setattr(Options, "union", lambda self, *args: served.append(options_mask(self, *args)) or served[-1])
        for text in (b'{"a":', b'{"b":', b'{"c":'):
            state = lazy.step(lazy.start, text)
            expected = brute_force_mask(lazy, state, vocab, eos)
            mask = TokenIndex(lazy, vocabulary).mask(state)
            assert served and served[-1].array is not None and served[-1].array.dtype == bool, text
            assert np.array_equal(mask, expected), text
            assert mask.sum() > 2 * FEW_TOKENS, text
            bits = TokenIndex(lazy, vocabulary).bitmask(state)
            assert served[-1].is_packed, text
            assert np.array_equal(bits, packed(expected)), text


def test_a_leaf_that_reads_many_tokens_whole_gives_its_bitmask_from_one_kept_per_leaf_state():
    """A bitmask asked for in a state whose leaf reads more than `FEW_TOKENS` tokens whole (an
    integer's first digits, with every numeral up to three digits in the vocabulary) is the
    bitmask of those kept per vocabulary and leaf state (`leaf_inside_bits`), copied, with the
    tokens that leave the leaf set: the definition's, bit for bit, as the bool mask is; a second
    schema holding the same leaf reuses the kept bitmask."""
    FEW_TOKENS = DEFAULT_TUNING.few_tokens
    from brzozowski.json.string_masks import packed

    numerals = [str(i).encode() for i in range(-999, 1000)]
    vocab = [*numerals, b"-", b"7,", b"12}", b'3,"', b"0}", b'"', b"}", b",", b'"b":', None]
    eos = len(vocab) - 1
    vocabulary = Vocabulary(vocab, eos_id=eos)
    schemas = [{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "minimum": -50}}},
               {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}]
    kept = []
    for schema in schemas:
        lazy = compile_json_schema(schema)
        for text in (b'{"a":', b'{"a":1', b'{"a":-', b'{"a":7,"b":', b'{"a":7,"b":-'):
            state = lazy.step(lazy.start, text)
            if state == DEAD:
                continue
            expected = brute_force_mask(lazy, state, vocab, eos)
            bits = TokenIndex(lazy, vocabulary).bitmask(state)
            assert np.array_equal(bits, packed(expected)), (schema, text)
            assert np.array_equal(TokenIndex(lazy, vocabulary).mask(state), expected), (schema, text)
            if text == b'{"a":':
                assert expected.sum() > FEW_TOKENS
        cache = vocabulary.trie.tables[("leaf-tables",)][0]
        kept.append({key: cache[key] for key in cache if key[0] == "inside-bits"})
    assert kept[0] and all(kept[1][key] is kept[0][key] for key in kept[0] if key in kept[1])
    assert set(kept[0]) & set(kept[1])


def test_options_not_all_leaves_or_words_are_walked_whole_with_no_option_read_first():
    """``(o₁|…|oₖ)·T`` where an option is neither a leaf nor a byte string (a star here): no
    option's mask is read before the state is walked whole (`brzozowski.json.masks.leaves.Options` checks the
    options first); the masks are the definition."""
    vocab = [b"x", b"xx", b"ab", b"a", b"cd", b"c", b"e", b"xe", b"abe", b"d", None]
    lazy = LazyDFA("(x*|ab|cd)e")
    index = TokenIndex(lazy, vocab, eos_id=len(vocab) - 1)
    whole, read = lazy.term(lazy.start), []
    literal, walk = Walker.literal_tokens, Walker.walk

    def literal_spy(self, term):
        if term is not whole:  # (the state's own term is tried as words, and is not: not an option's)
            read.append(term)
        return literal(self, term)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Walker, "literal_tokens", literal_spy)
        patch.setattr(Walker, "walk", lambda self, state, *args: read.append("walk") or walk(self, state, *args))
        assert np.array_equal(index.mask(lazy.start), brute_force_mask(lazy, lazy.start, vocab, len(vocab) - 1))
    assert read == ["walk"]


def _random_integer_value(rng, depth: int = 0) -> dict:
    """A schema of bounded integers: alone, beside null, a string, an enum or another integer
    (``anyOf``, a list of types), in arrays and objects."""
    def integer() -> dict:  # (bounds at least 2 apart: an integer always lies between them)
        kw, low = {"type": "integer"}, rng.randint(-200, 200)
        if rng.random() < 0.8:
            kw[rng.choice(["minimum", "exclusiveMinimum"])] = low
        if rng.random() < 0.8:
            kw[rng.choice(["maximum", "exclusiveMaximum"])] = low + rng.randint(2, 2000)
        return kw
    r = rng.random()
    if r < 0.35 or depth == 2:
        return integer()
    if r < 0.55:
        return {"anyOf": [integer(), rng.choice([{"type": "null"}, {"type": "string"}, {"enum": ["x", 7, True]},
                                                 integer()])]}
    if r < 0.65:
        return {"type": ["string", "integer", "null"][: rng.randint(2, 3)]}
    if r < 0.8:
        return {"type": "array", "items": _random_integer_value(rng, depth + 1), "maxItems": 3}
    names = rng.sample(["a", "bb", "c"], rng.randint(1, 2))
    return {"type": "object", "properties": {name: _random_integer_value(rng, depth + 1) for name in names}}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_masks_along_random_walks_of_random_bounded_integer_schemas_are_the_definition(seed):
    """Random schemas of bounded integers (tables, their numeral exits, options masked one by one)
    over a random vocabulary of digits, signs and JSON bytes: every mask along random walks is the
    definition, token by token."""
    import random

    rng = random.Random(seed)
    alphabet = b'0123456789-.,:"[]{}nulltruefalsxe aAb'
    vocab = [bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 4))) for _ in range(60)]
    vocab += [b"1", b"12", b"-", b"0", b"null", b'"', b'"x"', b",", b"]", b"}", None]
    eos = len(vocab) - 1
    lazy = compile_json_schema(_random_integer_value(rng), max_depth=3)
    index = TokenIndex(lazy, vocab, eos_id=eos)
    for _ in range(4):
        state = lazy.start
        for _ in range(10):
            mask = index.mask(state)
            assert np.array_equal(mask, brute_force_mask(lazy, state, vocab, eos)), state
            allowed = [t for t in np.flatnonzero(mask).tolist() if t != eos]
            if not allowed:
                break
            state = lazy.step(state, vocab[rng.choice(allowed)])


def test_a_bounded_integer_followed_by_a_digit_is_walked():
    """A bounded integer's exits list no token that leaves it before a digit or a minus sign (a JSON
    value is followed by neither): followed by ``[0-9a]``, its states are walked, and every mask is
    the definition (``12`` is ``1`` then ``2`` from what follows)."""
    vocab = [b"1", b"12", b"1a", b"a", b"2a", b"123", b"5", b"-", b"-1", None]
    lazy = LazyDFA(concat(json_integer_term(minimum=-3, maximum=5), parse("[0-9a]")))
    index = TokenIndex(lazy, vocab, eos_id=len(vocab) - 1)
    for text in (b"", b"1", b"-", b"-1", b"12"):
        state = lazy.step(lazy.start, text)
        if state != DEAD:
            assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, len(vocab) - 1)), text
    assert index.leaf_masks == 0


def test_a_leaf_whose_follower_begins_with_its_own_bytes_is_walked():
    """When a byte both continues an accepting leaf state and begins what follows (``[0-9]+``
    then ``[0-9a]``), what follows cannot be walked alone: the state is walked whole."""
    vocab = [b"1", b"12", b"1a", b"a", b"2a", b"123", None]
    lazy = LazyDFA(concat(shared_leaf(parse("[0-9]+")), parse("[0-9a]")))
    index = TokenIndex(lazy, vocab, eos_id=len(vocab) - 1)
    for text in (b"", b"1", b"12"):
        state = lazy.step(lazy.start, text)
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, len(vocab) - 1)), text
    assert index.leaf_masks == 1  # the start does not accept: served; the others walked
