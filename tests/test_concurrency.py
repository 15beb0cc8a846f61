"""Threads: the term store, compilation and masks from many threads at once must equal serial work.

Each round releases 8 threads at a `threading.Barrier` onto the same work, with a tiny switch
interval so that threads interleave inside the smart constructors and the lazy automaton. Patterns
are random and new to the process in every round (a fresh literal prefix), so the threads really
race to create the same terms instead of finding them interned already.
"""

from __future__ import annotations

import random
import sys
import threading

import numpy as np
import pytest

from brzozowski import DFA, LazyDFA, regex_to_dfa
from brzozowski.errors import StateBudgetError
from brzozowski.masks.index import TokenIndex
from brzozowski.core.syntax import parse
from brzozowski.core.terms import literal

N_THREADS = 8
ATOMS = ["a", "b", "c", "[a-c]", "[^a]", r"\d", ".", "(?:)"]


def random_pattern(rng: random.Random, depth: int) -> str:
    """A random pattern of the given nesting depth over a small alphabet."""
    if depth == 0:
        return rng.choice(ATOMS)
    parts = [random_pattern(rng, depth - 1) for _ in range(rng.randint(2, 3))]
    shape = rng.randrange(4)
    if shape == 0:
        return "".join(parts)
    if shape == 1:
        return "(" + "|".join(parts) + ")"
    return "(?:" + "".join(parts) + ")" + rng.choice(["*", "+", "?", "{1,3}", "{2}"])


@pytest.fixture
def tiny_switch_interval():
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


def run_together(work, inputs: list) -> list[list]:
    """Run `work(inputs[i])` for every i in N_THREADS threads, each round starting at a barrier.
    Returns, per round, every thread's result."""
    barrier = threading.Barrier(N_THREADS)
    results = [[None] * N_THREADS for _ in inputs]
    errors: list[BaseException] = []

    def thread_main(index: int) -> None:
        try:
            for round_number, item in enumerate(inputs):
                barrier.wait()
                results[round_number][index] = work(item, index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=thread_main, args=(i,)) for i in range(N_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return results


def test_threads_compiling_the_same_new_patterns_get_the_serial_tables(tiny_switch_interval):
    rng = random.Random(9)
    patterns = [f"z{n}q(?:{random_pattern(rng, 3)})" for n in range(25)]  # z<n>q: new every round
    results = run_together(lambda pattern, _: compile_or_error(pattern), patterns)
    for pattern, tables in zip(patterns, results):
        serial = compile_or_error(pattern)
        assert all(dfa == serial for dfa in tables), pattern


def compile_or_error(pattern: str) -> DFA | str:
    """The tables of `pattern`, or the message of the state budget (a few patterns explode)."""
    try:
        return regex_to_dfa(pattern, max_states=400)
    except StateBudgetError as error:
        return str(error)


def test_threads_building_the_same_terms_get_the_same_objects(tiny_switch_interval):
    rng = random.Random(10)
    patterns = [f"y{n}x(?:{random_pattern(rng, 3)})" for n in range(60)]
    results = run_together(lambda pattern, _: parse(pattern), patterns)
    for terms in results:
        assert all(term is terms[0] for term in terms)


def test_threads_building_different_terms_get_unique_ids(tiny_switch_interval):
    rng = random.Random(11)
    rounds = [[random_pattern(rng, 3) for _ in range(N_THREADS)] for _ in range(300)]
    kept = []  # keep every term alive, so that a repeated id would be a real collision

    def build(patterns: list[str], index: int) -> list:
        term = parse(f"w{id(patterns)}t{index}(?:{patterns[index]})")
        terms = [term]
        while terms[-1].children:  # the concatenation's spine: every term built on the way
            terms.append(terms[-1].children[-1])
        return terms

    for per_thread in run_together(build, rounds):
        for terms in per_thread:
            kept.extend(terms)
    by_id: dict[int, object] = {}
    for term in kept:
        assert by_id.setdefault(term.id, term) is term, f"two terms share id {term.id}"


def test_masks_from_one_shared_lazy_index_equal_serial_masks(tiny_switch_interval):
    rng = random.Random(12)
    vocab = [bytes(rng.choice(b"abc0.") for _ in range(rng.randint(1, 4))) for _ in range(300)]
    vocab.append(None)  # EOS
    eos = len(vocab) - 1
    pattern = "(?:[ab]+c|0\\.?[abc]{1,4})(?:\\.[a-c0]{2,3})*"
    serial_index = TokenIndex(regex_to_dfa(pattern), vocab, eos)
    walks = []
    for _ in range(N_THREADS * 4):
        dfa_state, steps = 0, []
        for _ in range(12):
            allowed = np.flatnonzero(serial_index.mask(dfa_state))
            token = int(rng.choice(allowed.tolist()))
            if token == eos:
                break
            steps.append(token)
            dfa_state = serial_index.next_state(dfa_state, token)
        walks.append(steps)

    shared = TokenIndex(LazyDFA(pattern), vocab, eos)

    def follow(_round: int, index: int) -> list[np.ndarray]:
        masks = []
        for steps in walks[index::N_THREADS]:
            state = shared.start
            masks.append(shared.mask(state))
            for token in steps:
                state = shared.next_state(state, token)
                masks.append(shared.mask(state))
        return masks

    results = run_together(follow, list(range(3)))
    for per_thread in results:
        for index, masks in enumerate(per_thread):
            expected = []
            for steps in walks[index::N_THREADS]:
                state = serial_index.start
                expected.append(serial_index.mask(state))
                for token in steps:
                    state = serial_index.next_state(state, token)
                    expected.append(serial_index.mask(state))
            assert len(masks) == len(expected)
            for got, want in zip(masks, expected):
                assert np.array_equal(got, want)


def test_literal_terms_are_shared_across_threads(tiny_switch_interval):
    results = run_together(lambda n, _: literal(b"v%dshared" % n), list(range(50)))
    for terms in results:
        assert all(term is terms[0] for term in terms)


def test_threads_masking_inside_one_new_format_leaf_get_the_definition(tiny_switch_interval):
    """Eight threads compile the same new format leaf (a URI under a length bound no other test
    uses: a fresh process-wide automaton in every round) into schemas of their own and mask
    states inside it over one vocabulary: they race on the leaf automaton, its transition table
    and the vocabulary's leaf tables; every mask is the definition."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.vocabulary import Vocabulary

    vocab = [b"https", b"://", b"ex", b".co", b"/a", b"?b=", b"1", b'"', b'"}', b"h", b":", b"x",
             b"%2", b"\\u0061", None]
    eos = len(vocab) - 1
    vocabulary = Vocabulary(vocab, eos_id=eos)
    texts = [b'{"u":"', b'{"u":"https', b'{"u":"https://ex', b'{"u":"https://ex.co/a?b=1']

    def schema(bound: int) -> dict:
        return {"type": "object", "properties": {"u": {"type": "string", "format": "uri", "maxLength": bound}},
                "required": ["u"], "additionalProperties": False}

    def work(bound: int, _index: int) -> list[np.ndarray]:
        lazy = compile_json_schema(schema(bound))
        index = TokenIndex(lazy, vocabulary)
        return [index.mask(lazy.step(lazy.start, text)) for text in texts]

    bounds = [3_000 + 997 * n + random.Random(n).randrange(900) for n in range(3)]
    for bound, per_thread in zip(bounds, run_together(work, bounds)):
        lazy = compile_json_schema(schema(bound))
        expected = []
        for text in texts:
            state = lazy.step(lazy.start, text)
            mask = np.zeros(len(vocab), dtype=bool)
            for t, data in enumerate(vocab):
                mask[t] = lazy.is_accepting(state) if t == eos else lazy.step(state, data) != -1
            expected.append(mask)
        for masks in per_thread:
            assert all(np.array_equal(got, want) for got, want in zip(masks, expected)), bound


def test_threads_making_the_same_bounded_integers_get_one_atom_and_a_full_cache_stays_bounded(tiny_switch_interval):
    """Threads asking at once for the integers under the same new bounds (while the bounded cache
    of integer tables is full and evicting) all get the one atom kept for that language, and its
    language is the term's; the cache never holds more than its bound."""
    from brzozowski.json import leaf_terms as json_leaves
    from brzozowski.automata.dfa import canonical
    from brzozowski.json.numbers import integer_term

    bounds = [{"minimum": 1000 + n, "maximum": 5000 + 7 * n} for n in range(json_leaves.MAX_NUMBER_LEAVES + 40)]
    results = run_together(lambda kw, _: json_leaves.json_integer_term(**kw), bounds)
    assert len(json_leaves._INTEGER_LEAVES) <= json_leaves.MAX_NUMBER_LEAVES
    for kw, atoms in zip(bounds[::9], results[::9]):
        assert all(atom is atoms[0] for atom in atoms), kw
        dfa = atoms[0].table.dfa.to_dfa()
        assert canonical(dfa.accept, dfa.trans) == regex_to_dfa(integer_term(**kw)), kw
