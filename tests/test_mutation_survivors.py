"""Tests written to kill mutants that the rest of the suite let through (issue 15).

Each test names the planted bug it catches (the mutants that benchmarks/mutation/run_mutation.py
reported as survivors, and the four of the issue). They go through public APIs (`TokenIndex`,
`distribution`, `sample`, `parse`, ...), so they keep holding when the modules behind them are
rewritten.
"""

from __future__ import annotations

import json
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brzozowski import (
    DEAD,
    DFA,
    MAX_REPEAT_COUNT,
    BrzozowskiError,
    Constraint,
    MaskError,
    RegexSyntaxError,
    SamplingParams,
    SchemaError,
    TokenError,
    TokenIndex,
    apply_mask,
    distribution,
    json_schema_to_regex,
    parse,
    regex_to_dfa,
    sample,
)
from brzozowski.core.derivatives import matches
from brzozowski.automata.lazy import LazyDFA

from .corpus import TWO_LETTER_PATTERNS
from .strategies import patterns, texts

# Over {a, b}, DFAs such as a*b* give different next states to (s, last token) and (s + 1, first
# token): a memo keyed by anything but the exact (state, token) pair returns a wrong state for one.


@pytest.mark.parametrize("pattern", TWO_LETTER_PATTERNS)
@pytest.mark.parametrize("vocab, eos_id", [([b"a", b"b"], None), ([b"a", b"b", None], 2)])
def test_next_state_agrees_with_the_dfa_for_every_state_and_token_in_order(pattern, vocab, eos_id):
    """Survivor 1: a memo key ``s * (V - 1) + t`` makes (s, V-1) and (s+1, 0) share an entry.

    Asked in row-major order, the second pair of each collision would get the first one's answer.
    """
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id=eos_id)
    for state in range(dfa.n_states):
        mask = index.mask(state)
        for token_id, data in enumerate(vocab):
            got = index.next_state(state, token_id)
            if token_id == eos_id:
                want = state if dfa.is_accepting(state) else DEAD
            else:
                want = int(dfa.step(state, data))
            assert got == want, (pattern, state, token_id)
            assert bool(mask[token_id]) == (got != DEAD), (pattern, state, token_id)
    # asked again in reverse order (every answer now comes from the memo), nothing changes
    for state in reversed(range(dfa.n_states)):
        for token_id in reversed(range(len(vocab))):
            again = index.next_state(state, token_id)
            fresh = TokenIndex(dfa, vocab, eos_id=eos_id).next_state(state, token_id)
            assert again == fresh, (pattern, state, token_id)


def test_the_memo_separates_pairs_whose_products_collide():
    """The collision of survivor 1, spelled out on ``a*b*`` (state 0 loops on a, b leads to 1)."""
    dfa = regex_to_dfa("a*b*")
    index = TokenIndex(dfa, [b"a", b"b"])
    after_b = index.next_state(dfa.start, 1)
    assert after_b != DEAD
    assert index.next_state(after_b, 0) == DEAD  # "a" after "b" leaves a*b*
    assert index.next_state(after_b, 1) == after_b


HALF_QUARTER_QUARTER = np.log(np.array([0.5, 0.25, 0.25]))


def test_top_p_stops_at_a_prefix_whose_mass_equals_top_p_exactly():
    """Survivor 2: with probabilities 1/2, 1/4, 1/4 and top_p = 0.5 the first token alone is the
    nucleus (its mass already reaches 0.5); a ``side="right"`` search kept the next one too."""
    ids, logprobs = distribution(HALF_QUARTER_QUARTER, SamplingParams(top_p=0.5))
    assert ids.tolist() == [0]
    assert logprobs.tolist() == [0.0]
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert sample(HALF_QUARTER_QUARTER, SamplingParams(top_p=0.5), [], rng) == (0, 0.0)


def test_top_p_just_above_an_exact_prefix_takes_the_tied_tail():
    """Past the exact boundary the nucleus needs the second token, and the third is tied with it."""
    ids, logprobs = distribution(HALF_QUARTER_QUARTER, SamplingParams(top_p=0.5000001))
    assert ids.tolist() == [0, 1, 2]
    assert np.allclose(logprobs, np.log([0.5, 0.25, 0.25]))


@pytest.mark.parametrize(
    "probs, top_p, kept",
    [
        ([0.25, 0.25, 0.5], 0.5, [2]),  # the largest first, wherever it stands
        ([0.5, 0.375, 0.125], 0.875, [0, 1]),  # 1/2 + 3/8 = 7/8 exactly
        ([0.125, 0.5, 0.375], 0.875, [1, 2]),
        ([0.75, 0.125, 0.125], 0.75, [0]),
    ],
)
def test_top_p_exact_prefix_sums_in_any_order(probs, top_p, kept):
    """Dyadic probabilities make every prefix sum exact in binary floating point."""
    ids, logprobs = distribution(np.log(np.array(probs)), SamplingParams(top_p=top_p))
    assert ids.tolist() == kept
    mass = sum(probs[i] for i in kept)
    assert np.allclose(logprobs, [math.log(probs[i] / mass) for i in kept])


# -- terms: the printed form ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, printed",
    [
        ("[ab]", "[ab]"),  # a run of two bytes prints as the two bytes, whatever their parity
        ("[bc]", "[bc]"),
        ("[a-c]", "[a-c]"),
        (r"a\.b", r"a\.b"),  # a metacharacter prints escaped
        (r"[.-]", r"[\-\.]"),
        ("(ab){1,}", "(ab)+"),
        ("(ab){0,}", "(ab)*"),
    ],
)
def test_printed_form(pattern, printed):
    assert str(parse(pattern)) == printed


def _stacks_quantifiers(printed: str) -> bool:
    """Whether `re` reads a quantifier followed by ``?`` or ``+`` in `printed` as lazy or possessive:
    the printer means a quantifier applied to a quantified term there (``a+?`` is ``(a+)?``)."""
    pending = [re._parser.parse(printed)]
    while pending:
        for op, value in pending.pop():
            if op in (re._constants.MIN_REPEAT, re._constants.POSSESSIVE_REPEAT):
                return True
            if op == re._constants.MAX_REPEAT:
                pending.append(value[2])
            elif op == re._constants.SUBPATTERN:
                pending.append(value[3])
            elif op == re._constants.BRANCH:
                pending.extend(value[1])
    return False


def test_a_quantified_repeat_prints_a_question_mark_that_re_would_read_as_lazy():
    """The reason `_stacks_quantifiers` exists: the printed form ``a+?`` of ``(a+)?``."""
    assert str(parse("(a+)?")) == "a+?"
    assert _stacks_quantifiers("a+?") and _stacks_quantifiers("(b|a*?)c") and _stacks_quantifiers("a{2}+")
    assert not _stacks_quantifiers("(a+)?") and not _stacks_quantifiers(r"[+?]a\\+") and not _stacks_quantifiers("a*b?")


@settings(max_examples=60, deadline=None)
@given(pattern=patterns, data=st.data())
def test_the_printed_form_means_what_the_term_means(pattern, data):
    """Printing is for humans (it writes ``a*{2}``, which ``re`` calls a multiple repeat, and ε, ∅),
    but where Python's ``re`` reads it, it must read the same language as the term's (on texts over
    the patterns' alphabet)."""
    term = parse(pattern)
    printed = str(term)
    try:
        oracle = re.compile(printed.encode("latin-1"), re.DOTALL)
    except (re.error, UnicodeEncodeError):  # ε or ∅, or a repeated repeat
        return
    if _stacks_quantifiers(printed):  # (a+)? prints a+?, which re reads as a lazy a+
        return
    for text in data.draw(st.lists(texts, min_size=5, max_size=5), label="texts"):
        assert matches(term, text) == bool(oracle.fullmatch(text)), (printed, text)


# -- masks: the int32 table's capacity --------------------------------------------------------------


def test_an_automaton_too_large_for_int32_codes_is_refused_naming_the_limit():
    """States are coded as (s + 1) * 256 in int32: at most (2**31 - 1) // 256 - 1 states. A
    zero-stride table of that many rows (no memory) must be refused before anything is allocated."""
    from brzozowski.automata.codes import MAX_TABLE_ROWS

    rows = MAX_TABLE_ROWS
    trans = np.broadcast_to(np.zeros(256, dtype=np.int32), (rows, 256))
    huge = SimpleNamespace(
        trans=trans, n_states=rows, start=0, row=lambda s: trans[s], is_accepting=lambda s: False,
        step=lambda s, data: DEAD,
    )
    with pytest.raises(MaskError, match=f"^{rows} automaton states exceed the mask tables' limit of {rows - 1}$"):
        TokenIndex(huge, [b"a"])
    assert (rows + 1) * 256 > 2**31 - 1 >= rows * 256  # the limit is exactly where int32 codes end


@pytest.mark.parametrize("bad", [1.5, "4096", None, True, -1])
def test_cache_bytes_must_be_a_non_negative_int(bad):
    with pytest.raises(MaskError, match="cache_bytes must be a non-negative int"):
        TokenIndex(regex_to_dfa("ab"), [b"a", b"b"], cache_bytes=bad)


# -- constraint: EOS is one id, not a range; masks and logits of one shape --------------------------


def test_a_token_after_eos_in_the_vocabulary_is_an_ordinary_token():
    """EOS need not be the last id: a token with a larger id moves the automaton like any other."""
    c = Constraint(TokenIndex(regex_to_dfa("ab"), [b"a", None, b"b"], eos_id=1))
    c.advance(0)
    c.advance(2)
    assert not c.done and c.is_complete()
    assert c.mask().tolist() == [False, True, False]
    c.advance(1)
    assert c.done


def test_eos_refused_in_a_non_accepting_state_is_named_eos_whatever_its_id():
    """Ids above 256 are distinct int objects in CPython: EOS must be recognised by value."""
    vocab = [bytes([b]) for b in range(256)] + [b"ab"] * 60 + [None]
    eos_id = len(vocab) - 1
    c = Constraint(TokenIndex(regex_to_dfa("ab"), vocab, eos_id=eos_id))
    with pytest.raises(TokenError, match=rf"token {eos_id} \(EOS\) is not allowed in state"):
        c.advance(int(str(eos_id)))  # a fresh int object equal to eos_id
    c.advance(256)  # "ab"
    c.advance(np.int64(eos_id))
    assert c.done


@pytest.mark.parametrize("mask_size", [2, 4])
def test_apply_mask_refuses_a_mask_of_another_length(mask_size):
    with pytest.raises(MaskError, match=rf"the mask has shape \({mask_size},\) but the logits have shape \(3,\)"):
        apply_mask(np.zeros(3), np.ones(mask_size, dtype=bool))


def test_cache_info_counts_the_class_trie_only_when_one_is_walked():
    dfa = regex_to_dfa("[a-z]+@[a-z]+")  # few classes: the class-string trie is much smaller
    vocab = [bytes([b]) for b in range(256)] + [b"ab", b"cd", b"a@", b"zz@b"]
    by_bytes, by_classes = TokenIndex(dfa, vocab), TokenIndex(dfa, vocab)
    by_bytes.set_strategy(trie="bytes")
    by_classes.set_strategy(trie="classes")
    bytes_only, classes = by_bytes.cache_info(), by_classes.cache_info()
    assert bytes_only["class_trie_bytes"] == 0
    assert 0 < classes["class_trie_bytes"] < classes["trie_bytes"] == bytes_only["trie_bytes"]


@pytest.mark.parametrize("dtype", ["U1", "S1", "datetime64[s]", "int8", "float32", "object"])
def test_apply_mask_refuses_a_mask_that_is_not_bool(dtype):
    """Every non-bool dtype, including those numpy orders below or beside bool (strings, dates)."""
    mask = np.array([1, 0, 1]).astype(dtype)
    with pytest.raises(MaskError, match="the mask must be a bool array"):
        apply_mask(np.zeros(3), mask)


# -- schema: the regex text is part of the contract (byte-for-byte stable) -------------------------


@pytest.mark.parametrize(
    "schema, regex",
    [
        ({"type": "array", "items": {"const": 7}, "maxItems": 1}, r"\[(7)?\]"),
        ({"type": "array", "items": {"const": 7}, "minItems": 1, "maxItems": 2}, r"\[(7(,7)?)\]"),
        ({"type": "array", "items": {"const": 7}, "maxItems": 2}, r"\[(7(,7)?)?\]"),
    ],
)
def test_optional_repetitions_are_written_with_a_question_mark(schema, regex):
    assert json_schema_to_regex(schema) == regex


@pytest.mark.parametrize(
    "types", [["boolean", "number"], ["array", "number"], ["integer", "number"], ["null", "integer"]]
)
def test_a_type_list_accepts_every_listed_type(types):
    """Only "integer" is folded into "number" (every integer is a number); no other type is lost."""
    examples = {"boolean": [True, False], "number": [1.5, 2], "integer": [3], "null": [None],
                "array": [[], [1.5]]}
    schema = {"type": types, "items": {"type": "number"}} if "array" in types else {"type": types}
    oracle = re.compile(json_schema_to_regex(schema).encode())
    for t in types:
        for value in examples[t]:
            doc = json.dumps(value, separators=(",", ":")).encode()
            assert oracle.fullmatch(doc), (types, doc)
    assert not oracle.fullmatch(b'"a"')


# -- golden: the file format's id ranges -----------------------------------------------------------


@pytest.mark.parametrize("ids", [[5, 10, 7], [5, 10, 10], [3, 1], [1, 2, 3, 9, 4]])
def test_id_ranges_refuse_ids_out_of_order_anywhere(ids):
    from brzozowski.golden import ids_to_ranges

    with pytest.raises(BrzozowskiError, match="ids must be sorted and distinct"):
        ids_to_ranges(ids)


# -- dfa: canonical form of any complete table ------------------------------------------------------


@pytest.mark.parametrize("unreachable", [1, 2, 3])
def test_canonical_drops_live_states_that_the_start_cannot_reach(unreachable):
    """A complete table may hold live states no path from state 0 reaches: they get no number and
    are dropped, however many there are."""
    from brzozowski.automata.dfa import canonical

    n = 1 + unreachable
    trans = np.repeat(np.arange(n, dtype=np.int32)[:, None], 256, axis=1)  # every state loops
    trans[0, ord("a")] = DEAD
    got = canonical(np.ones(n, dtype=bool), trans)
    assert got == regex_to_dfa(r"[^a]*")
    assert got.n_states == 1


@pytest.mark.parametrize("n, limit", [(5, 2), (3, 2), (7, 3)])
def test_a_long_golden_report_says_how_many_lines_it_left_out(n, limit):
    from brzozowski.golden import Mismatch, format_report

    report = format_report([Mismatch("case", "mask", 0, k) for k in range(n)], limit=limit).splitlines()
    assert report[0] == f"golden check: {n} mismatch(es) against the golden file"
    assert len(report) == 1 + limit + 1
    assert report[-1] == f"  ... and {n - limit} more"


@pytest.mark.parametrize(
    "schema, what, where",
    [
        ({"type": "object", "properties": {"a": True}}, "a boolean schema", "/properties/a"),
        ({"type": "array", "items": False}, "a boolean schema", "/items"),
        ({"type": "array", "items": 3}, "int", "/items"),
        ({"anyOf": [{"type": "null"}, "string"]}, "str", "/anyOf/1"),
    ],
)
def test_a_subschema_that_is_not_an_object_is_named_by_what_it_is(schema, what, where):
    with pytest.raises(SchemaError, match=f"a schema must be a JSON object, got {what} .* at {where}$"):
        json_schema_to_regex(schema)


@pytest.mark.parametrize("pattern", [r"\x00", r"\x01", r"\x02", r"[\x00\x01]", r"\x01\x00", r"[^\x01]", r"\x00|\x01b"])
def test_the_lowest_bytes_keep_their_own_transitions(pattern):
    """Byte classes whose first byte is 0 or 1 must get their own column, not another class's,
    both when compiling and when `canonical` re-derives the classes of a finished table."""
    from brzozowski.automata.dfa import canonical

    dfa = regex_to_dfa(pattern)
    assert canonical(dfa.accept, dfa.trans) == dfa
    oracle = re.compile(pattern.encode())
    for text in [bytes([a]) for a in range(4)] + [bytes([a, b]) for a in range(3) for b in [0, 1, 98]]:
        assert dfa.matches(text) == bool(oracle.fullmatch(text)), text


@pytest.mark.parametrize("eos_id", [3, 5, -1])
@pytest.mark.parametrize("size", [3, 4, 7])
def test_the_oracle_names_the_vocabulary_range_an_eos_id_falls_outside(eos_id, size):
    from brzozowski import Oracle, VocabularyError

    eos_id = eos_id if eos_id < 0 else eos_id + size - 3
    with pytest.raises(VocabularyError, match=rf"^eos_id {eos_id} is outside the vocabulary \(0\.\.{size - 1}\)$"):
        Oracle("a", [b"a", b"b", b"c", b"d", b"e", b"f", b"g"][:size], eos_id=eos_id)


@pytest.mark.parametrize("eos_id", [1, 255, 299, 1000])
def test_an_eos_token_with_bytes_is_only_eos_in_the_oracle_whatever_its_id(eos_id):
    """EOS is allowed exactly when the text is complete, even when the tokenizer gives it bytes (and
    for ids past CPython's small-int cache, where `is` and `==` part ways)."""
    from brzozowski import Oracle

    vocab = [b"x"] * (eos_id + 2)
    vocab[eos_id] = b"a"
    oracle = Oracle("a", vocab, eos_id=int(str(eos_id)))
    assert oracle.mask_after(b"") == []  # only the EOS token spells "a", and "" is not complete
    assert oracle.mask_after(b"a") == [eos_id]


@pytest.mark.parametrize("n_states, bad", [(1, 1), (2, 2), (3, 3), (2, -2)])
def test_a_dfa_table_pointing_past_its_states_is_refused_naming_the_range(n_states, bad):
    trans = np.zeros((n_states, 256), dtype=np.int32)
    trans[0, 0] = bad
    with pytest.raises(BrzozowskiError, match=rf"^trans entries must lie in -1\.\.{n_states - 1}$"):
        DFA(np.ones(n_states, dtype=bool), trans)


# -- syntax ---------------------------------------------------------------------------------------


def test_the_largest_repeat_count_is_allowed_and_one_more_is_not():
    assert str(parse(f"a{{{MAX_REPEAT_COUNT}}}")) == f"a{{{MAX_REPEAT_COUNT}}}"
    with pytest.raises(RegexSyntaxError):
        parse(f"a{{{MAX_REPEAT_COUNT + 1}}}")


@pytest.mark.parametrize("pattern", ["(?", "a(?", "(?)"])
def test_a_truncated_group_extension_is_a_syntax_error(pattern):
    with pytest.raises(RegexSyntaxError):
        parse(pattern)


@pytest.mark.parametrize("pattern", [r"[\b-\n]", r"[\b]", r"[\x07\b]", r"[\b-\x09]x"])
def test_backspace_in_a_class_is_byte_8_also_as_a_range_bound(pattern):
    dfa, oracle = regex_to_dfa(pattern), re.compile(pattern.encode())
    for text in [bytes([b]) for b in range(6, 12)] + [bytes([b]) + b"x" for b in range(6, 12)]:
        assert dfa.matches(text) == bool(oracle.fullmatch(text)), text


# -- masks: a walk handed from Python to numpy below the first level -------------------------------


def test_a_walk_handed_over_at_depth_two_to_a_dense_level_gives_the_oracle_masks():
    """The first level has one live node ("a"), the second more than the Python walk takes (62
    tokens "a?"), so the walk hands a sparse frontier of level 2 to a small (dense) level 3."""
    from brzozowski.golden import Oracle

    chars = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    vocab = [bytes([c]) for c in chars] + [b"a" + bytes([c]) for c in chars] + [b"ab" + bytes([c]) for c in chars[:30]]
    vocab += [b"b" + bytes([c]) for c in chars[:5]] + [None]
    eos_id = len(vocab) - 1
    pattern = "a[a-zA-Z0-9]*"
    oracle = Oracle(pattern, vocab, eos_id)
    for automaton in (regex_to_dfa(pattern), LazyDFA(pattern)):
        index = TokenIndex(automaton, vocab, eos_id=eos_id)
        for text in (b"", b"a", b"ab9"):
            state = automaton.step(index.start, text)
            assert np.flatnonzero(index.mask(state)).tolist() == oracle.mask_after(text), text


# -- vocabulary: the memory a trie reports ---------------------------------------------------------


@pytest.mark.parametrize("vocab", [
    [b"c", b"a", b"ca", b"cat", None, b""],
    [bytes([b]) for b in range(256)] + [b"ab", b"abc", b"\xff\xfe"],
])
def test_a_trie_reports_the_memory_of_every_array_it_owns_once(vocab):
    """`nbytes` counts each array the trie holds that owns its memory (not views of others), once,
    plus the labels of its Python view: found here by walking its attributes."""
    from brzozowski.vocab.vocabulary import Vocabulary, class_trie

    trie = Vocabulary(vocab).trie
    classes = np.zeros(256, dtype=np.intp)
    classes[ord("a"):ord("c") + 1] = 1
    for t in (trie, class_trie(trie, classes)):
        t.python_view()
        owned: dict[int, np.ndarray] = {}
        pending = [*vars(t).values(), t.level_views]
        while pending:
            value = pending.pop()
            if isinstance(value, np.ndarray) and value.base is None:
                owned[id(value)] = value
            elif isinstance(value, (tuple, list)):
                pending.extend(value)
        assert t.nbytes == sum(a.nbytes for a in owned.values()) + len(t.python_view()[0])


# -- string_masks: a string that never closes -------------------------------------------------------


def test_inside_a_string_that_cannot_close_a_token_with_the_quote_is_refused():
    """A pattern that is the inside of a JSON string without its closing quote: its states behave
    as the string's body (the string-mask path is taken) with nothing after the quote, so a token
    that closes the string is never allowed."""
    from brzozowski.golden import Oracle
    from brzozowski.json.strict import STRING

    assert STRING.endswith('"')
    pattern = STRING[:-1]
    vocab = [b"a", b'a"', b'"', b"ab", b'"}', b"\\", b"\\n", b"\xc3\xa9", b'\xc3\xa9"', None]
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id=9)
    oracle = Oracle(pattern, vocab, 9)
    for text in (b'"', b'"ab', b'"\\n\xc3\xa9'):
        assert np.flatnonzero(index.mask(dfa.step(dfa.start, text))).tolist() == oracle.mask_after(text), text
    assert index.string_masks >= 1


# -- syntax, dfa, schema (round 2 survivors) --------------------------------------------------------


@pytest.mark.parametrize("pattern", [r"[\101]", r"[\101-\103x]", r"[\0a]", r"[\12\7]", r"[\x41\102]", r"[^\101]"])
def test_an_octal_escape_in_a_class_is_its_byte(pattern):
    dfa = regex_to_dfa(pattern)
    oracle = re.compile(pattern.encode(), re.DOTALL)
    assert [b for b in range(256) if dfa.matches(bytes([b]))] == [
        b for b in range(256) if oracle.fullmatch(bytes([b]))
    ]


@pytest.mark.parametrize("pattern", [".", r"[\x80-\xff]", r"[^a]b", r"a[\x00-\xff]*", "(cat|car|dog)s?"])
def test_edges_are_the_maximal_byte_runs_of_the_table(pattern):
    dfa = regex_to_dfa(pattern)
    rebuilt = np.full(dfa.trans.shape, DEAD, dtype=np.int64)
    for source, ranges, target in dfa.edges():
        for (lo, hi), following in zip(ranges, ranges[1:] + [(257, 257)]):
            assert lo <= hi < following[0] - 1  # ascending, and never two runs that touch
            rebuilt[source, lo:hi + 1] = target
    assert np.array_equal(rebuilt, dfa.trans)


@pytest.mark.parametrize("n_states_pattern", ["a", "abc", "(cat|car|dog)s?"])
def test_a_state_out_of_range_is_refused_naming_the_states(n_states_pattern):
    dfa = regex_to_dfa(n_states_pattern)
    with pytest.raises(BrzozowskiError, match=rf"^state {dfa.n_states} does not exist \(states 0\.\.{dfa.n_states - 1}\)$"):
        dfa.row(dfa.n_states)


def test_a_const_of_lists_nested_past_the_limit_is_refused():
    from brzozowski.json.strict import MAX_VALUE_DEPTH

    nested: list = []
    for _ in range(MAX_VALUE_DEPTH + 1):
        nested = [nested]
    with pytest.raises(SchemaError, match=f"const value nests deeper than {MAX_VALUE_DEPTH} levels"):
        json_schema_to_regex({"const": nested})


@pytest.mark.parametrize("type_", ["boolean", "null", "integer", "number", "string"])
def test_a_schema_read_from_json_text_compiles_as_the_one_written_in_python(type_):
    """Strings parsed by json.loads are new objects (not the interned literals of the code)."""
    assert json_schema_to_regex(json.loads(json.dumps({"type": type_}))) == json_schema_to_regex({"type": type_})


def test_too_many_constraints_for_a_bitmask_array_name_its_shape_or_type():
    from brzozowski.runtime.constraint import allocate_bitmask, fill_bitmasks

    index = TokenIndex(regex_to_dfa("ab"), [b"a", b"b", None], eos_id=2)
    constraints = [Constraint(index) for _ in range(3)]
    small = allocate_bitmask(2, 3)
    with pytest.raises(MaskError, match=rf"^3 constraints do not fit a bitmask array of shape \(2, {small.shape[1]}\)$"):
        fill_bitmasks(constraints, small)
    with pytest.raises(MaskError, match=r"^3 constraints do not fit a bitmask array of shape list$"):
        fill_bitmasks(constraints, [[0], [0], [0]])
    out = allocate_bitmask(3, 3)
    fill_bitmasks(constraints, out)
    assert (out[:, 0] == 0b001).all()  # only "a" (id 0) is allowed at the start
