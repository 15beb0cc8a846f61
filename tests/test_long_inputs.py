"""Long and deep inputs: nothing on the path of a pattern recurses in proportion to its size, and
work that could explode is bounded by the state budget. Every case here raised RecursionError or
ran for minutes before; each must now finish (with a result checked against an oracle) or raise a
`BrzozowskiError` subclass. None of them times anything."""

from __future__ import annotations

import gc
import random
import re
import sys
import weakref

import pytest

from brzozowski import LazyDFA, Limits, Vocabulary, freeze_long_lived, regex_to_dfa
from brzozowski.core.derivatives import derivative_classes, derivative_of_string, matches
from brzozowski.errors import BrzozowskiError, StateBudgetError
from brzozowski.automata.lazy import positions
from brzozowski.core.syntax import parse
from brzozowski.core.terms import K_ALT, compl, concat, inter, intern_table_size, literal, star

DEEP = 10_000  # well past Python's default recursion limit of 1,000


def test_the_issue_example_compiles():
    dfa = regex_to_dfa("(" + "a" * 1000 + ")b")
    assert dfa.n_states == 1002 and dfa.matches(b"a" * 1000 + b"b")


def test_long_literal():
    data = b"ab" * 50_000  # the longest pattern `Limits.pattern_length` allows by default
    dfa = regex_to_dfa(data.decode(), max_states=200_000, limits=Limits(compile_seconds=None))
    assert dfa.n_states == len(data) + 1
    assert dfa.matches(data) and not dfa.matches(data[:-1]) and not dfa.matches(data + b"a")


def test_long_literal_over_the_default_budget_is_a_budget_error():
    with pytest.raises(StateBudgetError):
        regex_to_dfa("a" * 100_000, limits=Limits(compile_seconds=None))


def test_a_chain_is_minimized_in_near_linear_time():
    # Moore's algorithm needs one round per state on a chain: a{n}b?a{n} has ~2n states to tell
    # apart one by one. This finishes only if minimization is not quadratic.
    n = 20_000
    dfa = regex_to_dfa(f"(?:a{{{n // 1000}}}){{1000}}b?a{{{n // 1000}}}", max_states=100_000,
                       limits=Limits(compile_seconds=None))  # the state count decides here, not the clock
    assert dfa.matches(b"a" * (n + n // 1000)) and dfa.matches(b"a" * n + b"b" + b"a" * (n // 1000))
    assert not dfa.matches(b"a" * (n - 1))


def test_deeply_nested_groups():
    pattern = "(" * DEEP + "a" + ")" * DEEP + "b"
    assert parse(pattern) is literal(b"ab")
    assert regex_to_dfa("(?:" * DEEP + "a|b" + ")" * DEEP + "c") == regex_to_dfa("[ab]c")


def test_deeply_nested_terms():
    # ((((a)*b)*b)*b)*...: every level is a star of a concatenation, 10,000 levels of term nesting.
    pattern = "(?:" * DEEP + "a" + ")*b" * DEEP
    term = parse(pattern)
    depth, t = 0, term
    while t.children:
        t = t.children[0]
        depth += 1
    assert depth >= DEEP
    assert len(str(term)) > DEEP
    assert len(derivative_classes(term)) == 3  # {a}, {b}, the rest
    # Derivatives of this term by ``a`` grow with its depth (depth² steps; not bounded yet, see
    # issue 9 item 5): only words of ``b`` are matched here.
    assert matches(term, b"b") and matches(term, b"bb")
    assert not matches(term, b"")
    small = "(?:" * 3 + "a" + ")*b" * 3  # the same checks hold for Python's re at depth 3
    assert all(re.fullmatch(small, w) for w in ("b", "bb")) and not re.fullmatch(small, "a")


def test_long_nullable_concatenation():
    # a?a?a?...b: the derivative walks the whole spine of nullable heads (3,000 > the default
    # recursion limit). Each derivative is an alternation of up to n suffixes, so a walk over k
    # bytes costs k·n: keep k small.
    n = 3000
    pattern = "a?" * n + "b"
    term = parse(pattern)
    assert matches(term, b"b") and matches(term, b"aab") and not matches(term, b"aa")
    assert not matches(term, b"bb") and not matches(term, b"ba")
    lazy = LazyDFA(pattern)
    assert lazy.matches(b"a" * 20 + b"b") and lazy.n_states == 2  # the 21 bytes read on terms


def test_many_alternatives():
    words = [f"w{n}x" for n in range(DEEP)]
    dfa = regex_to_dfa("|".join(words))
    for word in words[::97]:
        assert dfa.matches(word.encode())
    assert not dfa.matches(b"w10000x") and not dfa.matches(b"w1")


def test_deep_alternation_inside_concatenation():
    # (a|b(a|b(a|b(...)))): alternation and concatenation interleaved 10,000 deep.
    pattern = "(a|b" * DEEP + ")" * DEEP
    lazy = LazyDFA(pattern, max_states=DEEP + 10)
    assert lazy.matches(b"b" * 500 + b"a") and not lazy.matches(b"b" * 500)
    assert len(str(lazy.term(0))) > DEEP


SPINE = 2_000  # ten times the recursion limit set below; the derivative of this spine is quadratic


def test_printing_and_classes_stay_off_the_python_stack():
    term = concat(*[star(literal(b"ab")) for _ in range(SPINE)])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # nothing below may use more than a fixed handful of frames
    try:
        text = str(term)
        classes = derivative_classes(term)
        after = derivative_of_string(term, b"ab")
    finally:
        sys.setrecursionlimit(limit)
    assert text == "(ab)*" * SPINE
    assert len(classes) == 2
    assert after.nullable and matches(after, b"ab") and not matches(after, b"b")


def test_a_dropped_pattern_releases_its_terms():
    lazy = LazyDFA("dropped-pattern-(?:[a-f]{1,3}|q+)*z")
    lazy.step(0, b"dropped-pattern-abcqqz")
    probe = weakref.ref(lazy.term(lazy.step(0, b"dropped-pattern-ab")))
    gc.collect()
    before = intern_table_size()
    assert probe() is not None
    del lazy
    gc.collect()
    assert probe() is None
    assert intern_table_size() < before


NESTED_REPEATS = [r"(.{0,100}){0,100}", r"(.{0,1000}){0,1000}", r"(\w{1,20}\s?){1,50}"]
# The languages on text of `_words`, decided without `re` (which backtracks for minutes on these):
# up to n² bytes; or words split into the fewest chunks of at most 20 letters, at most 50 chunks.
IN_LANGUAGE = {
    NESTED_REPEATS[0]: lambda text: len(text) <= 100 * 100,
    NESTED_REPEATS[1]: lambda text: len(text) <= 1000 * 1000,
    NESTED_REPEATS[2]: lambda text: sum(-(-len(word) // 20) for word in text.split(b" ")) <= 50,
}


def _words(seed: int, n_bytes: int) -> bytes:
    """Random words of 1 to 20 letters, single spaces between: text every nested repeat follows."""
    rng = random.Random(seed)
    words: list[str] = []
    while sum(map(len, words)) + len(words) < n_bytes:
        words.append("".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 20))))
    return " ".join(words).encode()


@pytest.mark.parametrize("pattern", NESTED_REPEATS)
def test_nested_repeats_end_within_the_work_budget_lazily(pattern):
    # Each state of these was an alternation of up to ~10,000 operands: ~35 s (the first two runs
    # past 200 s) with max_states=1000 before the work per state had a budget.
    text = _words(0, 5_000)
    lazy = LazyDFA(pattern, max_states=1000)
    try:
        accepted = lazy.matches(text)
    except StateBudgetError as error:
        assert "max_alternatives" in str(error)
    else:
        assert accepted == IN_LANGUAGE[pattern](text)
    assert IN_LANGUAGE[pattern](text[:300]) == bool(re.fullmatch(pattern.encode(), text[:300]))
    for state in range(lazy.n_states):
        term = lazy.term(state)
        assert len(term.children) <= lazy.max_alternatives or term.kind != K_ALT


@pytest.mark.parametrize("pattern", NESTED_REPEATS)
def test_nested_repeats_end_within_the_work_budget_eagerly(pattern):
    with pytest.raises(StateBudgetError, match="max_alternatives|max_states"):
        regex_to_dfa(pattern, max_states=1000, limits=Limits(compile_seconds=None))  # the work budget, not the clock


def test_the_work_budget_can_be_raised_and_admits_a_pattern_its_own_size():
    small = r"(a{0,10}){0,10}b"
    with pytest.raises(StateBudgetError, match="more than 5 "):
        regex_to_dfa(small, max_alternatives=5)
    dfa = regex_to_dfa(small, max_alternatives=100)
    assert dfa == regex_to_dfa(small)
    for n in (0, 1, 50, 100, 101):
        assert dfa.matches(b"a" * n + b"b") == (n <= 100)
    # An enum-like alternation wider than the default budget: its states are as wide as the pattern.
    words = "|".join(f"{n:05d}" for n in range(5_000))
    lazy = LazyDFA(f"x({words})", max_alternatives=10)
    assert lazy.matches(b"x04999") and not lazy.matches(b"x5000")
    assert lazy.max_alternatives == positions(parse(f"x({words})")) + 1


def test_the_work_budget_is_a_whole_number():
    with pytest.raises(BrzozowskiError, match="max_alternatives"):
        LazyDFA("a", max_alternatives=0)
    with pytest.raises(BrzozowskiError, match="max_alternatives"):
        LazyDFA("a", max_alternatives=1.5)


def test_wide_alternations_under_a_complement_or_an_intersection_end_within_the_work_budget():
    # States of ~R and R & [a-z ]* are never alternations at their top, so a budget on the top
    # alone let them grow like R's (10 s for the first 1,000 states, unbounded with the default
    # max_states): the budget must see alternations inside a state too.
    nested = parse("(.{0,100}){0,100}")
    text = _words(1, 2_000)
    for term in (compl(nested), inter(nested, parse("[a-z ]*")), star(concat(nested, literal(b"x")))):
        lazy = LazyDFA(term, max_states=400)
        with pytest.raises(StateBudgetError, match="max_alternatives"):
            lazy.matches(text)
        assert lazy.n_states < 200
    # The same shapes, small: the budget admits them and their languages are right.
    small = parse("(.{0,3}){0,3}")
    outside, both = LazyDFA(compl(small)), LazyDFA(inter(small, parse("[a-z ]*")))
    for n in range(14):
        assert outside.matches(b"a" * n) == (n > 9)
        assert both.matches(b"a" * n) == (n <= 9) and not both.matches(b"A" * (n + 1))


def _tracked_from(root: object) -> int:
    """How many objects the garbage collector tracks among those `root` reaches (without entering
    classes, modules and functions, which live as long as the interpreter)."""
    seen, stack = {id(root)}, [root]
    skipped = (type, type(sys), type(_words), type(len))
    while stack:
        for child in gc.get_referents(stack.pop()):
            if id(child) not in seen and gc.is_tracked(child) and not isinstance(child, skipped):
                seen.add(id(child))
                stack.append(child)
    return len(seen)


def test_a_vocabulary_costs_the_collector_the_same_few_objects_whatever_its_size():
    # Full collections traverse every tracked object: a vocabulary lives as long as the server, so
    # its tables must be arrays, not one Python object per token or trie node.
    def vocabulary(n_tokens: int) -> Vocabulary:
        rng = random.Random(n_tokens)
        tokens = {bytes(rng.choice(b"abcdefgh {}:,\"0123") for _ in range(rng.randint(1, 8)))
                  for _ in range(n_tokens)}
        return Vocabulary(sorted(tokens) + [None], eos_id=len(tokens))

    gc.collect()  # tuples of untracked objects (token bytes) stop being tracked at a collection
    small, large = vocabulary(500), vocabulary(40_000)
    gc.collect()
    assert _tracked_from(large) == _tracked_from(small) < 200


def test_freezing_long_lived_objects_collects_the_garbage_first_and_later_patterns_still_die():
    class Cycle:
        pass

    garbage = Cycle()
    garbage.itself = garbage
    dead_before = weakref.ref(garbage)
    del garbage
    try:
        frozen = freeze_long_lived()
        assert frozen == gc.get_freeze_count() > 0
        assert dead_before() is None  # collected, not frozen forever
        assert len(gc.get_objects()) < frozen
        lazy = LazyDFA("frozen-then-dropped-(?:[a-f]{1,3}|q+)*z")
        probe = weakref.ref(lazy.term(lazy.step(0, b"frozen-then-dropped-ab")))
        del lazy
        gc.collect()
        assert probe() is None
    finally:
        gc.unfreeze()


def test_two_thousand_dropped_compilations_leave_bounded_memos_and_no_terms():
    from brzozowski.core import alphabet

    gc.collect()
    baseline = intern_table_size()
    for i in range(2_000):  # distinct byte sets, so distinct partitions and meets every time
        lo, width = i % 200, 1 + i % 37
        dfa = regex_to_dfa(f"k{i}[\\x{lo:02x}-\\x{lo + width:02x}]{{1,{1 + i % 5}}}(x|[\\x{lo + 9:02x}y])*")
        assert dfa.matches(f"k{i}".encode() + bytes([lo]) + b"x")
    assert len(alphabet._PARTITIONS) <= alphabet.MAX_PARTITION_MEMO
    assert len(alphabet._MEETS) <= alphabet.MAX_PARTITION_MEMO
    assert len(alphabet._BYTE_CLASSES) <= alphabet.MAX_BYTE_CLASSES
    assert alphabet.MAX_PARTITION_MEMO * 1024 <= 8 * 2**20  # ~1 kB per entry: a few MB at most
    del dfa
    gc.collect()
    assert intern_table_size() <= baseline + 10


def _without_collections(build) -> int:
    """Terms alive after `build()` returned and dropped what it made, no garbage collection run."""
    gc.collect()
    baseline = intern_table_size()
    gc.disable()
    try:
        build()
        return intern_table_size() - baseline
    finally:
        gc.enable()


def test_a_dropped_automaton_is_freed_by_reference_counting_alone():
    """Derivative memos refer weakly, so an automaton's loops make no reference cycles: its terms
    die when it does, without a collection (strong memos left them all to the next full one)."""
    def explore(pattern: str) -> None:
        lazy = LazyDFA(pattern)
        queue = [lazy.start]
        for state in queue:  # every state, every transition
            for target in set(lazy.row(state).tolist()) - {-1}:
                if target not in queue:
                    queue.append(target)
        assert len(queue) == lazy.n_states > 5

    assert _without_collections(lambda: explore("(ab|c[d-f]*)*g(h+i?)+|(jk)*l")) == 0
    assert _without_collections(lambda: explore("((a|b)*c & ~(.*cc.*))d")) == 0


def test_a_dropped_schema_constraint_is_freed_by_reference_counting_alone():
    from brzozowski import Constraint, TokenIndex, compile_json_schema

    vocabulary = Vocabulary([b'{"', b'a', b'":', b'"', b'x', b'y ', b'[', b']', b',', b'1', b'}',
                             b'"}', None], eos_id=12)
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {
        "anyOf": [{"type": "string"}, {"type": "integer"}]}}}, "additionalProperties": False}

    def walk() -> None:
        constraint = Constraint(TokenIndex(compile_json_schema(schema), vocabulary))
        for token in (0, 1, 2, 6, 3, 4, 5, 3, 8, 9, 7, 10):
            assert constraint.mask()[token]
            constraint.advance(token)
        assert constraint.mask()[12]  # EOS: the document is complete

    walk()  # the process-wide caches (character classes, byte classes) filled once
    assert _without_collections(walk) == 0


def test_terms_a_cache_shares_keep_their_derivatives_and_theirs_after_the_automaton_dies():
    from brzozowski.core.derivatives import keep_derivatives

    def states_alive_after_dropping(term) -> tuple[int, int]:
        lazy = LazyDFA(term)
        queue = [lazy.start]
        for state in queue:
            for target in set(lazy.row(state).tolist()) - {-1}:
                if target not in queue:
                    queue.append(target)
        refs = [weakref.ref(lazy.term(state)) for state in queue]
        del lazy
        gc.collect()
        return sum(ref() is not None for ref in refs), len(refs)

    kept = keep_derivatives(parse("(ab|cd)*e[xy]+z"))  # ex, exy: derivatives of derivatives
    alive, total = states_alive_after_dropping(kept)
    assert alive == total == 6
    alive, total = states_alive_after_dropping(parse("(ab|cd)*f[xy]+z"))  # not kept: memos are weak
    assert alive < total == 6
    # ∂a(a·r) is the tail r itself (no rule runs): r is shared from then on, so y(xy)*z, its
    # derivative by x, is held too
    alive, total = states_alive_after_dropping(keep_derivatives(parse("a(xy)*z")))
    assert alive == total == 4


NO_CYCLE_SCHEMAS = [
    # allOf with a $ref: `merge`'s recursive flattening
    {"allOf": [{"$ref": "#/$defs/a"}, {"properties": {"b": {"type": "null"}}}],
     "$defs": {"a": {"properties": {"a": {"type": "integer"}}}}},
    # listed names beside other keys: `_plain_keys_except`'s trie walk (a recursive closure once)
    {"type": "object", "properties": {"ab": {}, "ac": {}}, "additionalProperties": {"type": "integer"}},
    # oneOf over objects negated structurally, one branch's pattern unsupported: an `_Inexact` kept
    # while the other keywords are tried, its context a SchemaError from deep in the pattern parser
    {"oneOf": [{"type": "object", "properties": {"a": {"type": "string", "pattern": "(?<=a)b"}},
                "required": ["a"]}, {"type": "object", "properties": {"b": {}}, "required": ["b"]}]},
]


def test_compiling_schemas_leaves_no_cyclic_garbage():
    """A compilation's terms are freed by reference counting when it ends, refused or not: no
    recursive closure, and no exception kept with its traceback, ties them into a cycle (on the
    real corpus such cycles held 1.28 million objects of 347 schemas until a full collection)."""
    from brzozowski import SchemaError
    from brzozowski.json.compiler import json_schema_term

    gc.collect()
    gc.disable()
    try:
        for schema in NO_CYCLE_SCHEMAS:
            try:
                json_schema_term(schema, closed_objects=False)
            except SchemaError:
                pass
        assert gc.collect() == 0
    finally:
        gc.enable()
