"""Token masks (brzozowski.masks.index): the hand example, brute force as the oracle, real vocabularies,
lazy against eager automata, packed bitmasks, the bounded cache and concurrent use.

The oracle is the definition (the mask rule of docs/semantics.md): a token is allowed in state s
iff walking its bytes from s, one transition at a time, never reaches DEAD; EOS iff s accepts; empty
and special tokens never.
It walks each token on its own (no trie, no sharing, no numpy), so it shares no code with the index.

Pitfalls of docs/semantics.md planted by hand: pitfall 4 "EOS allowed everywhere" fails
test_hand_example_masks and test_masks_match_brute_force; pitfall 5 "trie walk stopping at the first
dead byte" (the children after a dead sibling are skipped) and "wrong next state recorded" (a node
gets its parent's state, in the sparse or in the dense expansion) fail test_masks_match_brute_force
(random, hand example and cl100k) and test_hand_example_masks.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brzozowski import DEAD, LazyDFA, Limits, compile_json_schema, regex_to_dfa
from brzozowski.errors import InputTypeError, MaskError, StateError, TokenError, VocabularyError
from brzozowski.json.masks.words import plain_words as _plain_words
from brzozowski.masks.index import TokenIndex
from brzozowski.masks.tuning import Tuning
from brzozowski.core.derivatives import derivative_of_string
from brzozowski.core.syntax import parse
from brzozowski.core.terms import EMPTY as EMPTY_TERM
from brzozowski.core.terms import alt, concat
from brzozowski.vocab.vocabulary import (VocabTrie, Vocabulary, class_trie, distinct, merged_classes, stable_order,
                                         vocab_trie)

from .corpus import HAND, HAND_EOS, HAND_MASKS, HAND_STATE_TEXT, HAND_VOCAB, REAL_PATTERNS
from .strategies import ALPHABET, patterns


def brute_force_mask(automaton, state: int, vocab, eos_id) -> np.ndarray:
    """The definition, token by token, with the automaton's own `step`."""
    mask = np.zeros(len(vocab), dtype=bool)
    for t, data in enumerate(vocab):
        if t == eos_id:
            mask[t] = automaton.is_accepting(state)
        elif data:
            mask[t] = automaton.step(state, data) != DEAD
    return mask


def walk_rows(rows: list[list[int]], state: int, data: bytes) -> int:
    """The state after `data` from `state` over `trans` as lists, stopping at the first DEAD."""
    for b in data:
        state = rows[state][b]
        if state < 0:
            break
    return state


def fast_brute_force_masks(dfa, vocab, eos_id) -> np.ndarray:
    """Every state's mask by the definition, in plain Python over `trans` as lists (no numpy
    walking, no trie): token by token, byte by byte, stopping at the first DEAD."""
    rows = dfa.trans.tolist()
    out = np.zeros((dfa.n_states, len(vocab)), dtype=bool)
    for state in range(dfa.n_states):
        allowed = out[state]
        for t, data in enumerate(vocab):
            if data and t != eos_id:
                allowed[t] = walk_rows(rows, state, data) >= 0
        if eos_id is not None:
            allowed[eos_id] = bool(dfa.accept[state])
    return out


# -- the hand example ---------------------------------------------------------------------------


WALKS = ["auto", "sparse", "dense"]
TRIES = {None: "auto", True: "classes", False: "bytes"}  # the test ids say "compress"


def forced_index(automaton, vocab, eos_id=None, walk="auto", compress=None, strings=True):
    """An index whose walks expand levels as `walk` says, over the class-string trie
    (compress=True), the byte trie (False) or the default choice (None)."""
    index = TokenIndex(automaton, vocab, eos_id=eos_id)
    index.set_strategy(expansion=walk, trie=TRIES[compress], strings=strings)
    return index


@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize(
    "make, compress",
    [(regex_to_dfa, None), (regex_to_dfa, True), (regex_to_dfa, False), (LazyDFA, None),
     (LazyDFA, True), (LazyDFA, False)],
    ids=["DFA", "DFA-classes", "DFA-bytes", "LazyDFA", "LazyDFA-classes", "LazyDFA-bytes"],
)
def test_hand_example_masks(make, compress, walk):
    automaton = make(HAND)
    index = forced_index(automaton, HAND_VOCAB, HAND_EOS, walk, compress)
    if compress and make is regex_to_dfa:  # t and r lead everywhere to the same states
        assert index.walked_trie.n_nodes < index.trie.n_nodes  # so "t" and "r" share a node
    # The hand example's table (docs/semantics.md: states 0, 3, 5, 6), plus the single-successor
    # states 1 ("c"), 2 ("d"), 4 ("do").
    if make is LazyDFA:  # lazy numbering is discovery order: name the states by their text
        states = {k: automaton.step(0, text) for k, text in HAND_STATE_TEXT.items()}
    else:
        states = {k: k for k in HAND_MASKS}
    assert len(set(states.values())) == len(HAND_MASKS) == 7
    for k, allowed in HAND_MASKS.items():
        mask = index.mask(states[k])
        assert mask.dtype == bool and mask.shape == (15,)
        assert mask.nonzero()[0].tolist() == allowed, k
        assert not mask[12] and not mask[14]  # "x" and the empty token never
    s = states
    # next_state for tokens
    assert index.next_state(s[0], 9) == s[5]  # "cat"
    assert index.next_state(s[0], 8) == s[3]  # "ca"
    assert index.next_state(s[3], 11) == s[6]  # "ts": t then s
    assert index.next_state(s[0], 10) == s[5]  # "dog"
    assert index.next_state(s[5], 7) == s[6]  # "s"
    # EOS: the state itself when accepting, DEAD otherwise
    assert index.next_state(s[5], HAND_EOS) == s[5]
    assert index.next_state(s[6], HAND_EOS) == s[6]
    assert index.next_state(s[0], HAND_EOS) == DEAD
    assert index.next_state(s[3], HAND_EOS) == DEAD
    # dead tokens: an impossible byte, the empty token, a token that overshoots
    assert index.next_state(s[0], 12) == DEAD
    assert index.next_state(s[0], 14) == DEAD
    assert index.next_state(s[6], 7) == DEAD
    assert index.next_state(s[3], 1) == DEAD
    # bad token ids and states are errors naming them
    for bad in (-1, 15, 2.0, None, True):
        with pytest.raises(TokenError, match="token id"):
            index.next_state(0, bad)
    with pytest.raises(StateError, match="DEAD"):
        index.mask(DEAD)
    with pytest.raises(StateError, match="state 99"):
        index.mask(99)
    with pytest.raises(StateError, match="DEAD"):
        index.next_state(DEAD, 0)


def test_masks_are_read_only_and_cached():
    index = TokenIndex(regex_to_dfa(HAND), HAND_VOCAB, eos_id=HAND_EOS)
    mask = index.mask(0)
    with pytest.raises(ValueError):
        mask[12] = True
    assert index.mask(0) is mask and index.cache_info()["walks"] == 1
    assert not index.mask(0)[12]


def test_without_eos_nothing_is_eos():
    index = TokenIndex(regex_to_dfa(HAND), HAND_VOCAB)
    assert index.mask(5).nonzero()[0].tolist() == [7]
    assert index.mask(6).nonzero()[0].tolist() == []  # accepting, but nothing may follow


def test_bad_vocabularies_and_arguments():
    dfa = regex_to_dfa(HAND)
    with pytest.raises(VocabularyError, match="token 1 is str"):
        TokenIndex(dfa, [b"a", "b"])
    with pytest.raises(VocabularyError, match="empty"):
        TokenIndex(dfa, [])
    with pytest.raises(VocabularyError, match="sequence"):
        TokenIndex(dfa, b"abc")
    with pytest.raises(VocabularyError, match="eos_id 15"):
        TokenIndex(dfa, HAND_VOCAB, eos_id=15)
    class Bare:  # the automaton interface alone: no table, no term, so no byte classes
        start, n_states = 0, dfa.n_states
        row, is_accepting, step = dfa.row, dfa.is_accepting, dfa.step

    with pytest.raises(MaskError, match="byte classes"):
        TokenIndex(Bare(), HAND_VOCAB).set_strategy(trie="classes")
    assert TokenIndex(Bare(), HAND_VOCAB).mask(0).nonzero()[0].tolist() == HAND_MASKS[0]
    with pytest.raises(MaskError, match="expansion must be"):
        TokenIndex(dfa, HAND_VOCAB).set_strategy(expansion="fast")
    with pytest.raises(MaskError, match="trie must be"):
        TokenIndex(dfa, HAND_VOCAB).set_strategy(trie="words")
    with pytest.raises(MaskError, match="cache_bytes"):
        TokenIndex(dfa, HAND_VOCAB, cache_bytes=-1)
    with pytest.raises(TypeError, match="not an automaton"):
        TokenIndex(object(), HAND_VOCAB)
    # bytearray / memoryview tokens are accepted as bytes
    index = TokenIndex(dfa, [bytearray(b"ca"), memoryview(b"dog"), None])
    assert index.mask(0).tolist() == [True, True, False]


def test_duplicate_tokens_share_a_node_and_get_the_same_bit():
    vocab = [b"cat", b"x", b"cat", b"c", b"c", None, b""]
    index = TokenIndex(regex_to_dfa(HAND), vocab)
    assert index.mask(0).tolist() == [True, False, True, True, True, False, False]
    assert index.mask(1).tolist() == [False] * 7


# -- brute force --------------------------------------------------------------------------------


def test_masks_match_brute_force_on_the_hand_example():
    dfa = regex_to_dfa(HAND)
    index = TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS)
    for state in range(dfa.n_states):
        assert np.array_equal(index.mask(state), brute_force_mask(dfa, state, HAND_VOCAB, HAND_EOS))
        for t in range(len(HAND_VOCAB)):
            if t != HAND_EOS:
                want = dfa.step(state, HAND_VOCAB[t]) if HAND_VOCAB[t] else DEAD
                assert index.next_state(state, t) == want


vocabularies = st.lists(
    st.one_of(
        st.none(),
        st.binary(max_size=5).map(lambda bs: bytes(ALPHABET[b % len(ALPHABET)] for b in bs)),
        st.binary(min_size=1, max_size=3),  # any bytes, too
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pattern=patterns,
    vocab=vocabularies,
    eos=st.integers(min_value=-1, max_value=39),
    walk=st.sampled_from(WALKS),
    compress=st.sampled_from([None, True, False]),
)
def test_masks_match_brute_force(pattern, vocab, eos, walk, compress):
    eos_id = eos if 0 <= eos < len(vocab) else None
    dfa = regex_to_dfa(pattern)
    index = forced_index(dfa, vocab, eos_id, walk, compress)
    for state in range(dfa.n_states):
        want = brute_force_mask(dfa, state, vocab, eos_id)
        assert np.array_equal(index.mask(state), want), (pattern, state)
        for t in np.flatnonzero(want).tolist():
            if t != eos_id:
                assert index.next_state(state, t) == dfa.step(state, vocab[t])


@pytest.fixture(scope="module")
def cl100k():
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocab, eos_id = load_tiktoken_vocab("cl100k_base")
    return vocab, eos_id


@pytest.mark.parametrize("name", sorted(REAL_PATTERNS))
def test_masks_match_brute_force_on_cl100k(cl100k, name):
    vocab, eos_id = cl100k
    assert len(vocab) > 100_000
    dfa = regex_to_dfa(REAL_PATTERNS[name])
    index = TokenIndex(dfa, vocab, eos_id=eos_id)
    want = fast_brute_force_masks(dfa, vocab, eos_id)
    for walk in ("sparse", "dense"):  # each expansion on its own (the default mixes them)
        for compress in (True, False):  # over class strings and over bytes
            forced = forced_index(dfa, vocab, eos_id, walk, compress)
            for state in range(dfa.n_states):
                assert np.array_equal(forced.mask(state), want[state]), (name, walk, compress, state)
    rng = random.Random(name)
    for state in range(dfa.n_states):
        mask = index.mask(state)
        diff = np.flatnonzero(mask != want[state])
        assert len(diff) == 0, (name, state, [(int(t), vocab[t]) for t in diff[:5]])
        # and the automaton's own step on a sample of tokens, allowed and not
        allowed = np.flatnonzero(mask).tolist()
        sample = rng.sample(range(len(vocab)), 200) + rng.sample(allowed, min(200, len(allowed)))
        for t in sample:
            if t == eos_id:
                continue
            expected = dfa.step(state, vocab[t]) if vocab[t] else DEAD
            assert index.next_state(state, t) == expected
            assert mask[t] == (expected != DEAD)
    # the patterns really exercise the trie: some state allows many tokens, none allows all
    counts = want.sum(axis=1)
    assert counts.max() > 100 and (counts < len(vocab)).all()


# -- every reachable state can go on -------------------------------------------------------------


def _all_bytes_vocab(extra: list[bytes]) -> tuple[list[bytes | None], int]:
    vocab: list[bytes | None] = [bytes([b]) for b in range(256)] + extra + [None]
    return vocab, len(vocab) - 1


def _reachable_by_tokens(index: TokenIndex) -> set[int]:
    seen, todo = {index.start}, [index.start]
    while todo:
        state = todo.pop()
        for t in np.flatnonzero(index.mask(state)).tolist():
            if t == index.eos_id:
                continue
            target = index.next_state(state, t)
            assert target != DEAD
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


@pytest.mark.parametrize("pattern", [HAND, *REAL_PATTERNS.values(), r"a{3}(b|cd)*", r"(\d+\.)?\d"])
def test_reachable_states_never_have_an_empty_mask(pattern):
    vocab, eos_id = _all_bytes_vocab([b"ca", b"cat", b"ts", b"20", b"2024-", b'{"', b'":"', b".com"])
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id=eos_id)
    reached = _reachable_by_tokens(index)
    assert len(reached) == dfa.n_states  # single bytes reach every (live) state
    for state in reached:
        assert index.mask(state).any(), state


@settings(max_examples=40, deadline=None)
@given(pattern=patterns)
def test_reachable_states_never_have_an_empty_mask_random(pattern):
    vocab, eos_id = _all_bytes_vocab([b"ab", b"0.", b"\n\n", b"abc"])
    index = TokenIndex(LazyDFA(pattern), vocab, eos_id=eos_id)
    for state in _reachable_by_tokens(index):
        assert index.mask(state).any()


# -- lazy and eager automata agree ---------------------------------------------------------------


def _paired_states(lazy: LazyDFA, dfa) -> dict[int, int]:
    """Lazy state -> DFA state with the same language, by walking both in step over bytes."""
    pairs = {lazy.start: dfa.start}
    todo = [lazy.start]
    while todo:
        ls = todo.pop()
        ds = pairs[ls]
        lrow, drow = lazy.row(ls), dfa.row(ds)
        assert np.array_equal(lrow == DEAD, drow == DEAD)
        for b in np.flatnonzero(lrow != DEAD).tolist():
            nl, nd = int(lrow[b]), int(drow[b])
            if nl in pairs:
                assert pairs[nl] == nd
            else:
                pairs[nl] = nd
                todo.append(nl)
    return pairs


def _lazy_equals_dfa(pattern: str, vocab, eos_id, walk: str = "auto", compress=None) -> None:
    dfa = regex_to_dfa(pattern)
    lazy = LazyDFA(pattern)
    eager = TokenIndex(dfa, vocab, eos_id=eos_id)
    on_demand = forced_index(lazy, vocab, eos_id, walk, compress)
    # First, cold masks while the lazy automaton is still mostly unexplored: follow tokens.
    state, rng = lazy.start, random.Random(pattern)
    early = []
    for _ in range(12):
        mask = on_demand.mask(state)
        early.append((state, mask))
        choices = [t for t in np.flatnonzero(mask).tolist() if t != eos_id]
        if not choices:
            break
        state = on_demand.next_state(state, rng.choice(choices))
    pairs = _paired_states(lazy, dfa)
    for ls, mask in early:
        assert np.array_equal(mask, eager.mask(pairs[ls])), (pattern, ls)
    for ls, ds in pairs.items():
        assert np.array_equal(on_demand.mask(ls), eager.mask(ds)), (pattern, ls)


@pytest.mark.parametrize("compress", [None, False], ids=["classes", "bytes"])
@pytest.mark.parametrize("name", sorted(REAL_PATTERNS))
def test_lazy_masks_equal_dfa_masks_on_cl100k(cl100k, name, compress):
    vocab, eos_id = cl100k
    _lazy_equals_dfa(REAL_PATTERNS[name], vocab, eos_id, compress=compress)


@settings(max_examples=40, deadline=None)
@given(
    pattern=patterns,
    vocab=vocabularies,
    walk=st.sampled_from(WALKS),
    compress=st.sampled_from([None, True, False]),
)
def test_lazy_masks_equal_dfa_masks(pattern, vocab, walk, compress):
    _lazy_equals_dfa(pattern, vocab, None, walk, compress)


# -- bitmasks -----------------------------------------------------------------------------------


def _unpack(bits: np.ndarray, size: int) -> np.ndarray:
    words = bits.view(np.uint32)
    t = np.arange(size)
    return ((words[t // 32] >> (t % 32).astype(np.uint32)) & 1).astype(bool)


def test_bitmask_agrees_with_mask(cl100k):
    vocab, eos_id = cl100k
    for pattern in (HAND, REAL_PATTERNS["json"]):
        dfa = regex_to_dfa(pattern)
        index = TokenIndex(dfa, vocab, eos_id=eos_id)
        for state in range(dfa.n_states):
            bits = index.bitmask(state)
            assert bits.dtype == np.int32 and bits.shape == (-(-len(vocab) // 32),)
            assert np.array_equal(_unpack(bits, len(vocab)), index.mask(state))
            assert not bits.flags.writeable


def test_bitmask_layout_on_the_hand_example():
    index = TokenIndex(regex_to_dfa(HAND), HAND_VOCAB, eos_id=HAND_EOS)
    # state 0 allows 0, 4, 8, 9, 10: bits 0, 4, 8, 9, 10 of the only word
    assert index.bitmask(0).tolist() == [(1 << 0) | (1 << 4) | (1 << 8) | (1 << 9) | (1 << 10)]
    assert index.bitmask(6).tolist() == [1 << 13]
    for state, allowed in HAND_MASKS.items():  # one word: bit t for each allowed token t
        assert index.bitmask(state).tolist() == [sum(1 << t for t in allowed)], state
    # token 31 sets the sign bit of word 0, token 32 bit 0 of word 1
    vocab = [b"x"] * 31 + [b"c", b"c"]
    bits = TokenIndex(regex_to_dfa(HAND), vocab).bitmask(0)
    assert bits.tolist() == [-(1 << 31), 1]


# -- the cache ----------------------------------------------------------------------------------


def test_eviction_recomputes_the_same_masks():
    dfa = regex_to_dfa(REAL_PATTERNS["date"])
    vocab = [bytes([b]) for b in range(256)] + [b"20", b"-0", b"12", b"2024-", b"-31"]
    full = TokenIndex(dfa, vocab)
    expected = [full.mask(s).copy() for s in range(dfa.n_states)]
    small = TokenIndex(dfa, vocab, cache_bytes=3 * len(vocab))  # room for three masks
    order = list(range(dfa.n_states)) * 3
    random.Random(0).shuffle(order)
    for s in order:
        assert np.array_equal(small.mask(s), expected[s])
    info = small.cache_info()
    assert info["bytes"] <= 3 * len(vocab) and info["entries"] <= 3
    assert info["walks"] > dfa.n_states  # evicted masks were recomputed
    nothing = TokenIndex(dfa, vocab, cache_bytes=0)  # no cache at all: still right
    for s in range(dfa.n_states):
        assert np.array_equal(nothing.mask(s), expected[s])
    assert nothing.cache_info()["entries"] == 0


def test_the_mask_cache_evicts_the_first_stored_within_its_bytes():
    from brzozowski.masks.cache import BoundedCache

    cache = BoundedCache(30, lambda array: array.nbytes)
    arrays = {key: np.full(10, key, dtype=np.uint8) for key in range(5)}
    for key in (0, 1, 2):
        cache.put(key, arrays[key])
    assert cache.get(0) is arrays[0]  # a hit does not reorder: 0, the first stored, goes first
    cache.put(3, arrays[3])
    assert cache.get(0) is None and [cache.get(k) is arrays[k] for k in (1, 2, 3)] == [True] * 3
    cache.put(2, np.zeros(20, dtype=np.uint8))  # a key stored again counts its new size only, last out
    assert (len(cache), cache.currsize) == (2, 30) and cache.get(1) is None and list(cache) == [3, 2]
    cache.put(4, arrays[4])
    assert (len(cache), cache.currsize) == (2, 30) and cache.get(3) is None
    cache.put(5, np.zeros(31, dtype=np.uint8))  # heavier than the whole budget: not kept, nothing evicted
    assert 5 not in cache and (len(cache), cache.currsize) == (2, 30)
    counted = BoundedCache(2)  # unweighted: at most two entries
    for key in range(4):
        counted.put(key, None if key == 1 else key)
    assert (len(counted), counted.get(1, "gone"), counted.get(3)) == (2, "gone", 3)
    fifo = BoundedCache(2)  # unweighted: the first stored out first, a key put again is stored anew
    fifo.put("a", 1), fifo.put("b", 2), fifo.get("a"), fifo.put("c", 3)
    assert list(fifo) == ["b", "c"] and fifo.currsize == 2
    fifo.put("b", 4), fifo.put("d", 5)
    assert list(fifo) == ["b", "d"] and fifo["b"] == 4 and fifo.currsize == 2
    fifo.clear()
    assert (len(fifo), fifo.get("b"), fifo.currsize) == (0, None, 0)
    fifo.put("e", 6)  # the cache works after a clear: its lookups still read its entries
    assert fifo.get("e") == 6
    nothing = BoundedCache(0)
    assert nothing.put("x", 1) == 1 and (len(nothing), nothing.currsize) == (0, 0)


def test_vocab_trie_is_shared_and_reusable():
    dfa = regex_to_dfa(HAND)
    a = TokenIndex(dfa, list(HAND_VOCAB))
    b = TokenIndex(regex_to_dfa("dogs?"), tuple(HAND_VOCAB))
    assert a.trie is b.trie
    trie = VocabTrie(HAND_VOCAB)
    assert vocab_trie(trie) is trie
    assert np.array_equal(TokenIndex(dfa, trie).mask(0), a.mask(0))
    assert trie.n_nodes == 1 + len({t[:i] for t in HAND_VOCAB if t for i in range(1, len(t) + 1)})


# -- threads ------------------------------------------------------------------------------------


def test_concurrent_masks_equal_serial_masks(cl100k):
    vocab, eos_id = cl100k
    pattern = REAL_PATTERNS["json"]
    dfa = regex_to_dfa(pattern)
    serial = TokenIndex(dfa, vocab, eos_id=eos_id)
    expected = [serial.mask(s) for s in range(dfa.n_states)]
    shared = TokenIndex(dfa, vocab, eos_id=eos_id)
    start = threading.Barrier(6)

    def work(seed: int) -> list[tuple[int, np.ndarray, np.ndarray]]:
        order = list(range(dfa.n_states))
        random.Random(seed).shuffle(order)
        start.wait()
        return [(s, shared.mask(s), shared.bitmask(s)) for s in order]

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(work, range(6)))
    for result in results:
        for s, mask, bits in result:
            assert np.array_equal(mask, expected[s])
            assert np.array_equal(_unpack(bits, len(vocab)), expected[s])
    assert shared.cache_info()["walks"] == dfa.n_states  # each state walked once


@pytest.mark.parametrize("which", ["json", "schema"])
def test_concurrent_use_of_a_lazy_automaton(cl100k, which):
    """Threads generate over one shared index of a fresh LazyDFA (growing it concurrently); each
    step's mask must equal the DFA's mask after the same tokens. The schema's strings take the
    JSON-string path (recognized concurrently)."""
    from brzozowski import json_schema_to_regex

    vocab, eos_id = cl100k
    pattern = REAL_PATTERNS["json"] if which == "json" else json_schema_to_regex(STRING_SCHEMAS[0])
    shared = TokenIndex(LazyDFA(pattern), vocab, eos_id=eos_id)
    start = threading.Barrier(4)

    def generate(seed: int) -> list[tuple[int, np.ndarray]]:
        rng = random.Random(seed)
        state, steps = shared.start, []
        start.wait()
        for _ in range(25):
            mask = shared.mask(state)
            choices = [t for t in np.flatnonzero(mask).tolist() if t != eos_id]
            if not choices:
                break
            token = rng.choice(choices)
            steps.append((token, mask))
            state = shared.next_state(state, token)
        return steps

    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(generate, range(4)))
    eager = TokenIndex(regex_to_dfa(pattern), vocab, eos_id=eos_id)
    for steps in runs:
        state = eager.start
        assert steps
        for token, mask in steps:
            assert np.array_equal(mask, eager.mask(state))
            state = eager.next_state(state, token)
            assert state != DEAD
    assert (shared.cache_info()["string_masks"] > 0) == (which == "schema")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), max_size=300), st.integers(1, 2**32))
def test_distinct_and_stable_order_are_numpys(values, top):
    """`distinct` (a table of the range, or two radix passes) and `stable_order`, what the class
    trie and the counted strings group nodes and states by, against ``np.unique`` and a stable
    argsort."""
    keys = np.array([v % top for v in values], dtype=np.int64)
    found, inverse = distinct(keys)
    expected, expected_inverse = np.unique(keys, return_inverse=True)
    assert np.array_equal(found, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))
    assert np.array_equal(stable_order(keys), np.argsort(keys, kind="stable"))


@settings(max_examples=40, deadline=None)
@given(vocab=vocabularies, classes=st.binary(min_size=256, max_size=256))
def test_class_trie_merges_exactly_the_tokens_with_equal_class_strings(vocab, classes):
    """The oracle: map each token's bytes to its class string in plain Python and compare. The
    tokens listed at each node (sorted by the build's own step) are those ending there, by id."""
    trie = VocabTrie(vocab)
    _, class_of_byte = np.unique([c % 4 for c in classes], return_inverse=True)
    merged = class_trie(trie, class_of_byte)
    strings = [bytes(int(class_of_byte[b]) for b in t) if t else None for t in vocab]
    prefixes = {s[:i] for s in strings if s for i in range(1, len(s) + 1)}
    assert merged.n_nodes == 1 + len(prefixes)
    nodes = merged.token_node.tolist()
    for i, a in enumerate(strings):
        for j, b in enumerate(strings):
            if a and b:
                assert (nodes[i] == nodes[j]) == (a == b)
        if not a:
            assert nodes[i] == merged.n_nodes  # never allowed
    for node in range(merged.n_nodes + 1):  # (the sentinel's list is empty)
        ids, _ = merged.tokens_at(np.array([node]))
        assert ids.tolist() == [t for t, at in enumerate(nodes) if at == node < merged.n_nodes]


@settings(max_examples=40, deadline=None)
@given(vocab=vocabularies, classes=st.binary(min_size=256, max_size=256), dead=st.integers(0, 3))
def test_a_class_trie_leaves_out_the_tokens_with_a_class_that_leads_nowhere(vocab, classes, dead):
    """With one class marked as leading nowhere, the tokens holding a byte of it end at the
    sentinel, the others as in the plain class trie, whose nodes are the class strings of the
    tokens' prefixes without it; the node map sends every node of the byte trie to the class node
    of its bytes' class string (the sentinel past a dead byte)."""
    trie = VocabTrie(vocab)
    _, class_of_byte = np.unique([c % 4 for c in classes], return_inverse=True)
    live = np.ones(int(class_of_byte.max()) + 1, dtype=bool)
    live[min(dead, len(live) - 1)] = False
    merged, node_map = merged_classes(trie, class_of_byte, live)
    strings = [bytes(int(class_of_byte[b]) for b in t) if t else None for t in vocab]
    kept = [s if s and all(live[c] for c in s) else None for s in strings]
    prefixes = {s[:i] for s in strings if s for i in range(1, len(s) + 1) if all(live[c] for c in s[:i])}
    assert merged.n_nodes == 1 + len(prefixes)
    nodes = merged.token_node.tolist()
    for i, a in enumerate(kept):
        for j, b in enumerate(kept):
            if a and b:
                assert (nodes[i] == nodes[j]) == (a == b)
        if not a:
            assert nodes[i] == merged.n_nodes
    for node in range(trie.n_nodes):
        string = bytes(int(class_of_byte[b]) for b in trie.byte_string(node))
        at = int(node_map[node])
        if all(live[c] for c in string):
            assert bytes(int(class_of_byte[b]) for b in merged.byte_string(at)) == string
        else:
            assert at == merged.n_nodes


# -- the command line ---------------------------------------------------------------------------


def test_cli_masks_prints_counts_and_timings(tmp_path, capsys):
    import base64

    from brzozowski.cli import main

    path = tmp_path / "hand.tiktoken"
    tokens = [t for t in HAND_VOCAB if t]  # a .tiktoken file holds no specials or empty tokens
    path.write_text("".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(tokens)))
    assert main(["masks", HAND, "--vocab", str(path), "--states", "7", "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0].isdigit()]
    index = TokenIndex(regex_to_dfa(HAND), tokens)
    assert [int(r[0]) for r in rows] == list(range(7))
    assert [int(r[2]) for r in rows] == [int(index.mask(s).sum()) for s in range(7)]
    assert [r[1] for r in rows] == ["no"] * 5 + ["yes"] * 2
    assert "cold mask" in out and "warm mask" in out
    assert main(["masks", "a{2,1}", "--vocab", str(path)]) == 2  # a located error, no traceback
    assert main(["masks", HAND, "--vocab", str(tmp_path / "missing")]) == 2
    assert "no vocabulary" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(pattern=patterns)
def test_a_lazy_patterns_byte_classes_are_sound(pattern):
    """Bytes the pattern's byte sets never tell apart have equal columns in the canonical DFA
    (so a class trie over them gives a lazy automaton the same masks)."""
    classes = LazyDFA(pattern).byte_classes
    dfa = regex_to_dfa(pattern)
    for c in np.unique(classes):
        members = np.flatnonzero(classes == c)
        assert (dfa.trans[:, members] == dfa.trans[:, members[:1]]).all(), (pattern, members)


def test_a_lazy_automaton_finds_its_byte_classes_when_first_asked():
    """`LazyDFA.byte_classes` walks the whole pattern (a third of a schema's first mask when it was
    done at once): a walk of the byte trie never asks for it, the class trie and `regex_to_dfa` do;
    the array is read-only (it is shared by every automaton with the same partition)."""
    from brzozowski import compile_json_schema
    from brzozowski.core.derivatives import alphabet_classes

    lazy = compile_json_schema({"type": "object", "properties": {"a": {"type": "integer"}}})
    TokenIndex(lazy, [b"{", b'"a', b'":', b"1", b"}"], eos_id=None).mask(lazy.start)
    assert lazy.term(lazy.start).alphabet is None  # not computed yet
    classes = lazy.byte_classes
    assert lazy.term(lazy.start).alphabet == alphabet_classes(lazy.term(lazy.start))
    assert not classes.flags.writeable and len(np.unique(classes)) == len(lazy.term(lazy.start).alphabet)


def _every_state_is_brute_force(lazy: LazyDFA, index: TokenIndex, vocab, eos) -> None:
    """Every state of `lazy` (each discovered from the rows, then checked): its mask is the
    definition, token by token."""
    queue = [lazy.start]
    for state in queue:
        for target in set(lazy.row(state).tolist()) - {DEAD}:
            if target not in queue:
                queue.append(target)
    for state in queue:
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, eos)), state


def _run_into_an_empty_intersection():
    """``ab(cg|(cd*e & cd*f))``: past the run ``ab``, ∂c is ``g|(d*e & d*f)`` and ∂d of that an
    intersection with an empty language (that `first` still says may start with d)."""
    from brzozowski.core.syntax import parse

    return parse("ab") + (parse("cg") | (parse("cd*e") & parse("cd*f")))


RUN_PATTERNS = [
    '\\{("name":[0-9]|"nation":"[a-z]*"|"description":(ab|cd))(,"n[ai][mt]e?":1)*\\}',
    "(abc[de]f|xyz)+g?",  # a run, a set, a run again; a loop back through the start
    "a(bc|bd)e(fgh)*",
    _run_into_an_empty_intersection(),
]
RUN_BYTES = b'{}":,[]0123456789abcdefghimnoprstxyz'
run_tokens = st.lists(st.binary(min_size=1, max_size=7).map(
    lambda bs: bytes(RUN_BYTES[b % len(RUN_BYTES)] for b in bs)), min_size=1, max_size=80)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=run_tokens, which=st.integers(0, len(RUN_PATTERNS) - 1))
def test_runs_of_single_bytes_are_walked_by_their_terms_with_the_definitions_masks(vocab, which):
    """Over a lazy automaton, a walk follows a run of single bytes (a property name, a literal) by
    the state's term alone, numbering no state inside it: every mask is still the definition, and
    the first mask from the start creates at most one state per token that leaves a run."""
    vocab = [*vocab, b"abcd", b"abcdd", b"abcg", None]
    eos = len(vocab) - 1
    lazy = LazyDFA(RUN_PATTERNS[which])
    index = TokenIndex(lazy, vocab, eos_id=eos)
    assert np.array_equal(index.mask(lazy.start), brute_force_mask(lazy, lazy.start, vocab, eos))
    assert lazy.n_states <= 1 + len(vocab)
    _every_state_is_brute_force(lazy, TokenIndex(lazy, vocab, eos_id=eos), vocab, eos)


def test_a_key_state_over_o200k_numbers_no_state():
    """The state after ``{`` of a closed object with long names: tokens reach into every name, and
    the walk, on terms, numbers no state at all (it numbered a state per byte of every name that a
    token covers, 21 here, then the states after the quote and after ``}`` and one per first letter,
    7); the mask is the one the DFA's complete table gives."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    names = ["description", "identifier", "created_at", "updated_at", "organization"]
    schema = {"type": "object", "properties": {name: {"type": "integer"} for name in names},
              "additionalProperties": False}
    lazy = compile_json_schema(schema)
    after_brace = lazy.step(lazy.start, b"{")
    before = lazy.n_states
    mask = TokenIndex(lazy, vocabulary).mask(after_brace)
    assert lazy.n_states == before
    dfa = regex_to_dfa(lazy.term(lazy.start))
    want = TokenIndex(dfa, vocabulary).mask(dfa.step(dfa.start, b"{"))
    assert np.array_equal(mask, want)
    assert mask[vocabulary.tokens.index(b'"description')] and not mask[vocabulary.tokens.index(b'"name')]


def test_a_walk_past_a_run_numbers_no_state_inside_the_value():
    """At the end of a key (``"`` must come), tokens such as ``":"`` then string content reach into
    the value: the walk takes derivatives of the terms and numbers nothing (it numbered 13 states
    here: the string's body, its UTF-8 and escape states; then the state after the key's closing
    quote); the masks are the DFA's."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    schema = {"type": "object", "properties": {"description": {"type": "string"}, "count": {"type": "integer"}},
              "additionalProperties": False}
    lazy = compile_json_schema(schema)
    dfa = regex_to_dfa(lazy.term(lazy.start))
    for text in (b'{"description', b'{"description":"x","count'):
        state = lazy.step(lazy.start, text)
        before = lazy.n_states
        mask = TokenIndex(lazy, vocabulary).mask(state)
        assert lazy.n_states == before, text
        assert np.array_equal(mask, TokenIndex(dfa, vocabulary).mask(dfa.step(dfa.start, text))), text


# -- states inside JSON strings (brzozowski.json.string_masks) -----------------------------------------

# Bytes that matter inside a JSON string: quotes and backslashes, escape letters and hex digits,
# whole and partial UTF-8 sequences (2, 3 and 4 bytes, the E0/ED/F0/F4 special second bytes,
# surrogate halves), a control byte, DEL, bytes that are never UTF-8, and JSON punctuation.
STRING_BYTES = (b'"\\/ubnrtDdC8aF0f9 ,:}{]x' + bytes([0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xE0, 0xA0,
                0xED, 0x9F, 0xF0, 0x9F, 0x98, 0x80, 0xF4, 0x8F, 0xBF, 0x1F, 0x7F, 0xFF, 0xC0]))
string_tokens = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=6).map(lambda bs: bytes(STRING_BYTES[b % len(STRING_BYTES)]
                                                                for b in bs)),
        st.sampled_from([b'"', b'",', b'"}', b'\\"', b'\\\\', b'\\u', b'\\uD83D', b'\\uDE00',
                         b'\\u00e9', b'\xc3', b'\xa9"', b'\xe2\x82', b'\xac",', b'\xf0\x9f\x98\x80',
                         b'","b":"', b'"]}', None]),
    ),
    min_size=1,
    max_size=60,
)
STRING_SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
     "required": ["a", "b"], "additionalProperties": False},
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"a": {"type": "string"},
                                      "e": {"enum": ["x\\y", "caf\u00e9", "\U0001F600"]}},
     "required": ["a"], "additionalProperties": False},
]


TABLE_SCHEMA = {"type": "object", "properties": {
    "s": {"type": "string"}, "b": {"type": "string", "maxLength": 5}, "h": {"type": "string", "format": "hostname"},
    "d": {"type": "string", "format": "date"}, "n": {"type": "number"}, "o": {"type": ["string", "null"]}}}
TABLE_TEXTS = [b"{", b'{"', b'{"s', b'{"s":', b'{"s":"', b'{"s":"ab', b'{"s":"a\\', b'{"b":"abc', b'{"b":"abcde',
               b'{"h":"', b'{"h":"ex', b'{"d":"2024-', b'{"n":1', b'{"o":', b'{"s":"x",', b'{"s":"x","',
               b'{"s":"x","zz', b'{"s":"x","zz":1', b'{"s":"x"}']


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens, eos_last=st.booleans())
def test_bitmasks_of_states_served_by_tables_are_the_definition_packed(vocab, eos_last):
    """A bitmask asked for first (no bool mask cached to pack) is composed from the tables' packed
    ``inside`` where a state is served by them (a string's inside, bounded or not, its opening
    quote, an open object's keys, a hostname's or a date's characters, a number): token by token
    it is the definition, EOS (last or first in the vocabulary) set exactly where the state
    accepts."""
    vocab = [*vocab, b'"', b'",', b'"}', b"x", b'x"', b"1", b"1}", b'","', b':"', b"null"]
    vocab = [*vocab, None] if eos_last else [None, *vocab]
    eos = len(vocab) - 1 if eos_last else 0
    lazy = compile_json_schema(TABLE_SCHEMA, closed_objects=False)
    index = TokenIndex(lazy, vocab, eos_id=eos)
    for text in TABLE_TEXTS:
        state = lazy.step(lazy.start, text)
        bits = index.bitmask(state)
        assert bits.dtype == np.int32 and bits.shape == (-(-len(vocab) // 32),) and not bits.flags.writeable
        assert np.array_equal(_unpack(bits, len(vocab)), brute_force_mask(lazy, state, vocab, eos)), text
    assert index.string_masks and index.key_masks and index.leaf_masks  # (the tables served some)


def _string_states(index, dfa) -> list[int]:
    """The states of `dfa` that `index` recognizes as inside a JSON string."""
    return [s for s in range(dfa.n_states) if index.strategy("strings").string_state(s) is not None]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens, which=st.integers(0, len(STRING_SCHEMAS) - 1), lazy=st.booleans())
def test_string_state_masks_match_brute_force(vocab, which, lazy):
    """Every state's mask (string states from the tables) equals the definition, token by token."""
    from brzozowski import json_schema_to_regex

    regex = json_schema_to_regex(STRING_SCHEMAS[which])
    dfa = regex_to_dfa(regex)
    automaton = LazyDFA(regex) if lazy else dfa
    index = TokenIndex(automaton, vocab, eos_id=0)
    # a lazy automaton's states: discovered from the DFA's, by the same texts
    states = list(_paired_states(automaton, dfa)) if lazy else range(dfa.n_states)
    for state in states:
        want = brute_force_mask(automaton, state, vocab, 0)
        assert np.array_equal(index.mask(state), want), (regex, state)
    # all 20 states of the string interior, for each string of the schema, took a fast path: the
    # tables, or (a lazy automaton's state where only the closing quote may come) read as words
    found = _string_states(index, automaton)
    strings = len(found)
    assert strings % 20 == 0 and strings >= 20
    words = sum(_plain_words(automaton.term(s)) for s in found) if lazy else 0
    assert index.cache_info()["string_masks"] + words == strings


def test_string_states_over_o200k_match_brute_force():
    """On a real vocabulary: the body of a string, a pending UTF-8 sequence, a pending escape."""
    from brzozowski import json_schema_to_regex
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocab, eos_id = load_tiktoken_vocab("o200k_base")
    regex = json_schema_to_regex(STRING_SCHEMAS[2])
    dfa = regex_to_dfa(regex)
    index = TokenIndex(dfa, Vocabulary(vocab, eos_id))
    body = dfa.step(dfa.start, b'{"a":"')
    texts = [b"", b"\xf0\x9f", b"\xe2", b"\\", b"\\uD83D", b"\\uD83D\\", b"caf\xc3"]
    rows = dfa.trans.tolist()
    states = {dfa.step(body, text): text for text in texts}  # \xe2 and \xf0\x9f: one state
    for state, text in states.items():
        assert index.strategy("strings").string_state(state) is not None, text
        mask = index.mask(state)
        for t, data in enumerate(vocab):
            if t == eos_id or not data:
                assert not mask[t]
                continue
            assert mask[t] == (walk_rows(rows, state, data) >= 0), (text, t, data)
    assert index.cache_info()["string_masks"] == len(states) == 6
    assert index.strategy("strings").string_state(dfa.start) is None


def test_strings_with_other_languages_are_not_taken_for_json_strings():
    """A string pattern that differs from JSON string content anywhere is walked the usual way:
    the recognition compares every byte of every interior state."""
    from brzozowski.json.strict import STRING

    vocab = [bytes([b]) for b in range(256)] + [b'a"', b'\\"', b'\xc3\xa9"}']
    near_misses = [
        '"([^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt])*"',  # any byte >= 0x20 (not only UTF-8)
        STRING.replace("\\x7f", "\\x7e"),  # no DEL
        STRING.replace("[\\x80-\\x8f]", "[\\x80-\\x9f]"),  # F4 9x: beyond U+10FFFF
        STRING + "|\"ab\"x",  # one string of the language is followed by something else
    ]
    for i, regex in enumerate(near_misses):
        dfa = regex_to_dfa("\\[(" + regex + ")\\]")
        index = TokenIndex(dfa, vocab)
        found = _string_states(index, dfa)
        for text in (b'["', b'["a') if i == 3 else (b'["', b'["a', b'["\xc3'):
            assert dfa.step(dfa.start, text) not in found, (regex, text)
        # once the "ab" alternative is dead (after ["x or ["\xc3), a plain string: recognized
        assert len(found) == (20 if i == 3 else 0), regex
        plain = TokenIndex(dfa, vocab)
        plain.set_strategy(strings=False)
        for state in range(dfa.n_states):
            assert np.array_equal(index.mask(state), brute_force_mask(dfa, state, vocab, None))
    dfa = regex_to_dfa("\\[" + STRING + "\\]")  # the control: recognized
    assert len(_string_states(TokenIndex(dfa, vocab), dfa)) == 20


def test_recognition_checks_a_paired_states_quote_before_deriving_its_row():
    """Given each state's transition by the quote, `recognize` declines a key whose keys part
    ways at their closing quote (a pattern's keys take strings, the others anything) as soon as
    it meets one, before deriving that state's row, and from fewer rows than without it; its answer
    is the same with and without, on every state of automata with strings and enums inside."""
    from brzozowski import json_schema_to_regex
    from brzozowski.json.string_masks import recognize

    def counted(automaton):
        rows, row = [], automaton.row
        return rows, lambda y: rows.append(y) or row(y)

    schema = {"type": "object", "patternProperties": {"^[a-z]*$": {"type": "string"}},
              "additionalProperties": {"type": "integer"}}
    answers = []
    for quote in (False, True):
        lazy = compile_json_schema(schema)
        key = lazy.step(lazy.start, b'{"')
        rows, row = counted(lazy)
        answers.append(recognize(row, key, quote=(lambda y: lazy.step(y, b'"')) if quote else None))
        answers.append(len(rows))
    assert answers[0] is None and answers[2] is None and answers[3] < answers[1]
    lazy = compile_json_schema(schema)  # the strategy asks so over a lazy automaton
    key = lazy.step(lazy.start, b'{"')
    rows, lazy.row = counted(lazy)
    assert TokenIndex(lazy, [b"a", b'"', b"\\"]).strategy("strings").string_state(key) is None
    assert len(rows) == answers[3]
    for regex in (json_schema_to_regex(STRING_SCHEMAS[2]), json_schema_to_regex(
            {"type": "array", "items": {"anyOf": [{"enum": ["ab", "b\u00e9"]}, {"type": "string"}]}})):
        dfa = regex_to_dfa(regex)
        for state in range(dfa.n_states):
            assert recognize(dfa.row, state) == recognize(dfa.row, state, quote=lambda y: dfa.step(y, b'"')), state


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens)
def test_a_union_of_a_string_and_its_own_enum_is_recognized_state_by_state(vocab):
    """Unminimized, ``"ab"|"bé"|<any string>`` has its own states after ``"a`` or ``"b`` (each
    behaving as the string's body, since any string holds the enum's): they are paired with S's body
    and served by the tables, with masks equal to the definition."""
    from brzozowski import json_schema_to_regex

    regex = json_schema_to_regex({"type": "array", "items": {
        "anyOf": [{"enum": ["ab", "b\u00e9"]}, {"type": "string"}]}})
    assert "ab" in regex  # the strict front door keeps the enum in the regex
    lazy, dfa = LazyDFA(regex), regex_to_dfa(regex)
    index = TokenIndex(lazy, vocab, eos_id=0)
    states = list(_paired_states(lazy, dfa))
    for state in states:
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, 0)), state
    body = lazy.step(lazy.start, b'["')
    assert index.strategy("strings").string_state(body) is not None
    for text in (b'["a', b'["b', b'["b\xc3', b'["b\xc3\xa9'):
        assert index.strategy("strings").string_state(lazy.step(lazy.start, text)) is not None, text
    assert len(_string_states(index, lazy)) > 20  # more automaton states than S has


COUNTED = {"type": "object", "properties": {"a": {"type": "string", "minLength": 2, "maxLength": 5},
                                             "b": {"type": "string", "maxLength": 3},
                                             "c": {"type": "string", "minLength": 2}},
           "required": ["a", "b", "c"], "additionalProperties": False}
COUNTED_TEXTS = [b'{"a":"', b'{"a":"x', b'{"a":"xy', b'{"a":"x\xc3', b'{"a":"\\', b'{"a":"\\u00',
                 b'{"a":"\\uD83D\\uDE', b'{"a":"xyz', b'{"a":"xy","b":"', b'{"a":"xy","b":"\xe2\x82',
                 b'{"a":"xy","b":"","c":"', b'{"a":"xy","b":"","c":"\xc3']
# (with one character left, ``ANY_CHAR{0,1}`` is ``ANY_CHAR | ε``: no longer a counted repeat, and
# such states are walked the ordinary way, covered by the loop over every state)


PLAIN = {"type": "object", "properties": {"a": {"type": "string"},
                                           "b": {"type": "array", "items": {"type": "string"}},
                                           "c": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                                           "d": {"type": "string", "pattern": "^[a-z\\u00e9]*$"}},
         "required": ["a"], "additionalProperties": False}
PLAIN_TEXTS = [b'{"a":"', b'{"a":"x\xc3', b'{"a":"\\', b'{"a":"\\uD83D\\uDE', b'{"a":"","b":["',
               b'{"a":"","b":["","\xe2\x82', b'{"a":"","c":"', b'{"a":"","c":"\\u00']
PLAIN_OTHER_TEXTS = [b'{"a":"","d":"', b'{"a":"","d":"ab']  # a pattern: another language inside


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens)
@pytest.mark.parametrize("schema, texts, others", [(COUNTED, COUNTED_TEXTS, []),
                                                   (PLAIN, PLAIN_TEXTS, PLAIN_OTHER_TEXTS)],
                         ids=["length bounds", "no bound"])
def test_strings_of_compiled_schemas_are_recognized_by_their_terms_and_match_brute_force(
        vocab, schema, texts, others):
    """A lazy automaton's states inside a compiled schema's string (with minLength/maxLength, or
    ``ANY_CHAR*`` without) are recognized by their term (`recognize_counted`) and masked from the
    per-vocabulary tables (and character counts): first before any state past the string exists
    (the after-state is numbered from its term; `recognize` would create and check S's ~20 inside),
    then every state of the automaton; each mask is the definition, token by token. A string with
    a pattern is another language inside: not recognized."""
    from brzozowski import compile_json_schema
    from brzozowski.json.string_masks import recognize_counted

    vocab = [*vocab, None]
    eos = len(vocab) - 1
    lazy = compile_json_schema(schema)
    index = TokenIndex(lazy, vocab, eos_id=eos)
    for text in texts:
        state = lazy.step(lazy.start, text)
        found = recognize_counted(lazy.term(state))
        assert found is not None and (found[1:3] != (0, None)) == (schema is COUNTED), text
        before = lazy.n_states
        mask = index.mask(state)
        assert lazy.n_states - before <= 12, text  # past the quote only (a few bytes of tokens)
        assert np.array_equal(mask, brute_force_mask(lazy, state, vocab, eos)), text
    for text in others:
        assert recognize_counted(lazy.term(lazy.step(lazy.start, text))) is None, text
    _every_state_is_brute_force(lazy, index, vocab, eos)
    assert index.string_masks >= len(texts)


def test_strings_that_the_same_bytes_may_follow_share_one_mask_past_the_quote():
    """The tokens past a string's closing quote are one mask per set of rests that live on after
    it, kept per vocabulary (`TokenIndex._past_mask`): the strings of three members, each followed
    by a comma and a key, share one (their after-states differ: the keys left), as does another
    schema's; the last member's, followed by the object's end, gets its own, and so does a string
    of at most 3 characters; every mask is the definition."""
    vocab = [b'{"', b'a', b'b', b'c', b'd', b'":"', b'x', b'xy', b'"', b'",', b'","', b'x","', b'"}', b'x"}',
             b'y",', b'y"}', b'xyz"}', b'xyzw"}', b'"]', b'xyz"]', b'xyzw"]', None]
    eos = len(vocab) - 1
    schema = {"type": "object", "properties": {name: {"type": "string"} for name in "abcd"},
              "required": ["a", "b", "c", "d"], "additionalProperties": False}
    lazy = compile_json_schema(schema)
    vocabulary = Vocabulary(vocab, eos_id=eos)
    index = TokenIndex(lazy, vocabulary)
    texts = [b'{"a":"', b'{"a":"x","b":"', b'{"a":"x","b":"x","c":"', b'{"a":"x","b":"x","c":"x","d":"']
    for count, text in enumerate(texts, 1):
        state = lazy.step(lazy.start, text)
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, eos)), text
        past = index.trie.tables[("past-the-quote",)][0]
        assert len(past) == (1 if count < len(texts) else 2), text
    other = compile_json_schema({"type": "object", "required": ["e", "f"], "additionalProperties": False,
                                 "properties": {"e": {"type": "string"}, "f": {"type": "integer"}}})
    state = other.step(other.start, b'{"e":"')
    mask = TokenIndex(other, vocabulary).mask(state)
    assert np.array_equal(mask, brute_force_mask(other, state, vocab, eos))
    assert len(past) == 2  # (the same rests: a comma, then a key)
    bounded = compile_json_schema({"type": "array", "items": {"type": "string", "maxLength": 3}})
    state = bounded.step(bounded.start, b'["')
    mask = TokenIndex(bounded, vocabulary).mask(state)
    assert np.array_equal(mask, brute_force_mask(bounded, state, vocab, eos))
    assert mask[vocab.index(b'xyz"]')] and not mask[vocab.index(b'xyzw"]')]  # (4 characters: one too many)
    assert len(past) == 3


def test_below_a_wide_node_the_few_bytes_that_go_on_are_each_found():
    """Below a word's closing quote (a node of some thirty children) what follows begins with
    three bytes: they are found among the labels, not every child looked at (`_expand_below`),
    the lowest child and the highest among them; every mask is the definition."""
    vocab = [b'a', b'ab', b'b', b'"', *(b'"' + bytes([c]) for c in b'!#$%&()*+,-./0123456789:;<=>?@}~'),
             b'",x', b'"}x', b'"!x', b'"~x', b'x', None]
    eos = len(vocab) - 1
    lazy = LazyDFA(r'(ab|b)"(!|,|~)x')
    index = TokenIndex(lazy, vocab, eos_id=eos)
    for state in _all_states(lazy):
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, eos)), state
    assert index.mask(lazy.step(lazy.start, b"ab"))[[vocab.index(b'"!x'), vocab.index(b'"~x')]].all()


OPENING = {"type": "object", "properties": {
    "a": {"type": ["string", "null"], "maxLength": 3},
    "b": {"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer"}]},
    "c": {"type": "array", "items": {"type": "string"}},
    "d": {"type": "string"}}, "additionalProperties": False}
OPENING_TEXTS = [b'{"a":', b'{"a":null,"b":', b'{"a":null,"b":1,"c":[', b'{"a":null,"b":1,"c":["x",',
                 b'{"a":null,"b":1,"c":[],"d":']


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=string_tokens)
def test_a_quote_that_opens_a_string_is_served_from_the_tables(vocab):
    """At a value that may be a string (with length bounds, beside null or an integer, an array's
    item), the tokens that begin with the quote come from the string tables of S's state before
    its opening quote and the others from a walk without the quote's subtree
    (`TokenIndex._opening_mask`), over a lazy automaton and over its DFA (there for the strings
    without a bound): each mask is the definition, and the lazy automaton numbers no state inside
    the string for it."""
    from brzozowski import compile_json_schema

    vocab = [*vocab, b"null", b"12", b'"abcd', b'"ab', b'"x",', b'"",', b'"ab"}', b'"a"]', b'"x","', None]
    eos = len(vocab) - 1
    lazy = compile_json_schema(OPENING)
    dfa = regex_to_dfa(lazy.term(lazy.start))
    from brzozowski.json.masks.strings import Opening

    served = []
    opening = Opening.try_mask
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Opening, "try_mask",
                      lambda self, *args: served.append(opening(self, *args)) or served[-1])
        for automaton in (lazy, dfa):
            index = TokenIndex(automaton, vocab, eos_id=eos)
            for text in OPENING_TEXTS:
                state = automaton.step(automaton.start, text)
                before, served[:] = automaton.n_states, []
                mask = index.mask(state)
                # (over a DFA only a string without a length bound is recognized: `recognize`)
                assert served[-1] is not None or (automaton is dfa and b'"c"' not in text), text
                assert automaton is dfa or automaton.n_states - before <= 12, text  # past the closing quote only
                assert np.array_equal(mask, brute_force_mask(automaton, state, vocab, eos)), text
        _every_state_is_brute_force(lazy, TokenIndex(lazy, vocab, eos_id=eos), vocab, eos)


def test_a_long_bounded_string_over_o200k_creates_a_few_states_not_one_per_count():
    """``maxLength: 200`` made the first mask inside the string create ~1,150 states (one per
    count and UTF-8 or escape position a token reaches); from the tables it creates none beyond
    the string's end, with the masks of an ordinary walk."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    schema = {"type": "object", "properties": {"a": {"type": "string", "minLength": 3, "maxLength": 200}},
              "required": ["a"], "additionalProperties": False}
    lazy = compile_json_schema(schema)
    fast, walked = TokenIndex(lazy, vocabulary), TokenIndex(lazy, vocabulary)
    walked.set_strategy(strings=False)
    inside = lazy.step(lazy.start, b'{"a":"')
    before = lazy.n_states
    first = fast.mask(inside)
    assert lazy.n_states - before <= 3  # what follows the quote, numbered from its term
    for text in (b'{"a":"', b'{"a":"ab', b'{"a":"\xc3', b'{"a":"\\u00', b'{"a":"' + b"x" * 150,
                 b'{"a":"' + b"x" * 190):
        state = lazy.step(lazy.start, text)
        assert fast.strategy("strings").string_state(state) is not None, text
        assert np.array_equal(fast.mask(state), walked.mask(state)), text
    assert first.sum() > 190_000 and fast.string_masks == 6


def test_the_counted_characters_are_the_string_automatons():
    """`recognize_counted` counts `ANY_CHAR`'s characters by S's states: the two must be one language,
    and every begun character of `ANY_CHAR` one of S's interior states."""
    from brzozowski.json.strings import ANY_CHAR
    from brzozowski.json.strict import STRING
    from brzozowski.json.string_masks import _QUOTE, _partial_characters, string_automaton
    from brzozowski.core.terms import concat, star

    same = regex_to_dfa(concat(_QUOTE, star(ANY_CHAR), _QUOTE)) == regex_to_dfa(STRING)
    assert same
    s = string_automaton()
    assert sorted(set(_partial_characters().values())) == [r for r in s.interior if r != s.body]


def test_state_of_a_derivative_is_the_state_its_transitions_reach():
    from brzozowski.core.derivatives import derivative_of_string
    from brzozowski.errors import InputTypeError
    from brzozowski.core.terms import EMPTY

    lazy = LazyDFA("(ab|c)*d[ef]+")
    ahead = lazy.state_of(derivative_of_string(lazy.term(lazy.start), b"abcd"))
    assert lazy.n_states == 2 and ahead == 1  # numbered now, before any transition reaches it
    assert lazy.step(lazy.start, b"abcd") == ahead and lazy.step(lazy.start, b"d") == ahead
    assert lazy.state_of(lazy.term(lazy.start)) == lazy.start and lazy.state_of(EMPTY) == DEAD
    with pytest.raises(InputTypeError):
        lazy.state_of("d[ef]+")


# -- the Vocabulary -----------------------------------------------------------------------------


def test_a_vocabulary_is_shared_and_gives_the_same_masks():
    vocabulary = Vocabulary(HAND_VOCAB, eos_id=HAND_EOS)
    dfa = regex_to_dfa(HAND)
    shared = [TokenIndex(dfa, vocabulary), TokenIndex(LazyDFA(HAND), vocabulary)]
    assert all(index.trie is vocabulary.trie and index.eos_id == HAND_EOS for index in shared)
    plain = TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS)
    for state in range(dfa.n_states):
        assert np.array_equal(shared[0].mask(state), plain.mask(state))
    assert TokenIndex(dfa, vocabulary, eos_id=HAND_EOS).eos_id == HAND_EOS
    with pytest.raises(VocabularyError, match="differs from the vocabulary's own"):
        TokenIndex(dfa, vocabulary, eos_id=12)
    with pytest.raises(VocabularyError, match="eos_id 15"):
        Vocabulary(HAND_VOCAB, eos_id=15)
    with pytest.raises(VocabularyError, match="sequence"):
        Vocabulary("abc")
    assert Vocabulary(vocabulary.trie).trie is vocabulary.trie and len(vocabulary) == 15
    assert vocabulary.tokens[9] == b"cat"


def test_an_index_switches_to_the_class_trie_once_dense_walks_pay_for_it():
    """Permissive states make walks look at many nodes of the byte trie; after CLASS_TRIE_PAYOFF
    tries' worth of nodes the index walks the (smaller) class-string trie, with the same masks,
    built at once or a level per walk (then taken that many walks later)."""
    from brzozowski.masks.tuning import DEFAULT_TUNING

    CLASS_TRIE_PAYOFF = DEFAULT_TUNING.class_trie_payoff

    letters = b"abcdefghijklmnopqrstuvwxyz0123456789-"
    vocab = [bytes([a]) for a in letters] + [bytes([a, b]) for a in letters for b in letters]
    pattern = "[a-z]{0,100}"  # 101 states, each allowing every letter token
    dfa = regex_to_dfa(pattern)
    want = fast_brute_force_masks(dfa, vocab, None)
    stepped = "[b-z]{0,100}"  # (classes of its own: no class trie kept for them yet)
    for automaton, tuning in ((dfa, DEFAULT_TUNING), (LazyDFA(pattern), DEFAULT_TUNING),
                              (LazyDFA(stepped), Tuning(class_trie_step_nodes=1))):
        if tuning is not DEFAULT_TUNING:
            want = fast_brute_force_masks(regex_to_dfa(stepped), vocab, None)
        index = TokenIndex(automaton, vocab, tuning=tuning)
        states, switched_at, walks_building = [index.start], None, 0
        while states[-1] != DEAD:
            state = states[-1]
            assert np.array_equal(index.mask(state), want[len(states) - 1]), len(states)
            if switched_at is None and index.walked_trie is not index.trie:
                switched_at = len(states)
            walks_building += index.walker.class_trie_build is not None
            states.append(index.next_state(state, 1))  # "b"
        assert switched_at is not None and CLASS_TRIE_PAYOFF < switched_at < 101
        assert walks_building >= (index.trie.depth if tuning.class_trie_step_nodes == 1 else 0)
        assert index.walked_trie.n_nodes < index.trie.n_nodes / 10  # letters merge, digits merge
        forced = TokenIndex(automaton, vocab)
        forced.set_strategy(trie="bytes")
        for i, state in enumerate(states[:-1]):
            assert np.array_equal(forced.mask(state), want[i])
        assert forced.walked_trie is forced.trie


def test_a_class_trie_build_in_steps_takes_another_walkers_as_soon_as_one_is_kept():
    """Two indexes over one automaton: one builds the class trie a level per walk; once the other
    has built it at once and kept it, the first takes that one at its next walk (no build goes on
    beside a finished one), with the same masks throughout."""
    letters = b"abcdefghijklmnopqrstuvwxyz0123456789-"
    vocab = [bytes([a]) for a in letters] + [bytes([a, b]) for a in letters for b in letters]
    pattern = "[c-y]{0,100}"  # (classes of its own: no class trie kept for them yet)
    want = fast_brute_force_masks(regex_to_dfa(pattern), vocab, None)
    automaton = LazyDFA(pattern)
    stepped = TokenIndex(automaton, vocab, tuning=Tuning(class_trie_step_nodes=1))
    at_once = TokenIndex(automaton, vocab)

    def walk_until(index, done):
        state, steps = index.start, 0
        while not done():
            assert np.array_equal(index.mask(state), want[steps]), steps
            state, steps = index.next_state(state, 2), steps + 1  # "c"
        return state, steps

    state, steps = walk_until(stepped, lambda: stepped.walker.class_trie_build is not None)
    walk_until(at_once, lambda: at_once.walked_trie is not at_once.trie)
    assert stepped.walker.class_trie_build is not None  # (still building: a level per walk)
    assert np.array_equal(stepped.mask(state), want[steps])
    assert stepped.walker.class_trie_build is None and stepped.walked_trie is at_once.walked_trie


# -- states at and inside an open object's key (TokenIndex._key_mask) -----------------------------

# Bytes that matter in a key: the listed names' letters (and a shared prefix), other plain bytes,
# the quote, the separators, a backslash, UTF-8 of "é", digits of the values.
KEY_BYTES = b'tiyme_pab"\\:,{}01 x~' + bytes([0xC3, 0xA9])
key_tokens = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=7).map(lambda bs: bytes(KEY_BYTES[b % len(KEY_BYTES)] for b in bs)),
        st.sampled_from([b'"', b'":', b'":1', b'":1,"', b'time', b'_of', b'"}', b'x":0}', b'ti', b'"t',
                         b'caf\xc3\xa9":', b'a\\"b', b'\\u00e9', b'""', b'":{"', b'null', b'l,"', b',"',
                         b',"ty', b',"x":', b'}', b'},', b'}}', b',', None]),
    ),
    min_size=1,
    max_size=60,
)
KEY_SCHEMAS = [
    {"type": "object", "properties": {"time": {"type": "integer"}, "time_of": {"type": "integer"},
                                      "type": {"type": "null"}, "": {"type": "null"}},
     "additionalProperties": {"type": "integer"}},
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {"type": "object", "properties": {"caf\u00e9": {"type": "null"}, "a\\b": {"type": "null"},
                                      "t\"": {"type": "integer"}}, "additionalProperties": {"type": "null"}},
    {"type": "object", "properties": {"a": {"type": "object", "additionalProperties": {"type": "integer"},
                                            "properties": {"ti": {"type": "null"}}}},
     "additionalProperties": {"type": "integer"}, "minProperties": 1},
]


def _all_states(lazy: LazyDFA, limit: int = 3000) -> list[int]:
    """Every state of `lazy` (breadth first from the start), at most `limit`."""
    seen, todo = {lazy.start}, [lazy.start]
    while todo and len(seen) < limit:
        for target in set(lazy.row(todo.pop()).tolist()) - {DEAD} - seen:
            seen.add(target)
            todo.append(target)
    return sorted(seen)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=key_tokens, which=st.integers(0, len(KEY_SCHEMAS) - 1))
def test_key_state_masks_match_brute_force(vocab, which):
    """Every state of open objects whose listed names share prefixes, hold escapes or UTF-8, are
    empty or a prefix of another: the mask (from the plain-key tables where the state is at or
    inside a key) equals the definition, token by token."""
    from brzozowski import compile_json_schema

    lazy = compile_json_schema(KEY_SCHEMAS[which], closed_objects=False, max_depth=2)
    index = TokenIndex(lazy, vocab, eos_id=0)
    for state in _all_states(lazy):
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, 0)), state
    if which == 1:  # no listed name: other keys are any JSON string, served by the string tables
        assert index.string_masks > 0
    else:
        assert index.key_masks > 0


def test_key_states_over_o200k_match_brute_force():
    """On a real vocabulary, after ``{"``, inside a listed name's prefix, past a listed name, inside
    another key, after ``,"``, and after ``,`` (before a key's opening quote): the tables served
    the mask, and it is the definition; so it is after a nested object's member (before the
    comma, or the end of both objects)."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocab, eos_id = load_tiktoken_vocab("o200k_base")
    lazy = compile_json_schema(KEY_SCHEMAS[0], closed_objects=False)
    index = TokenIndex(lazy, Vocabulary(vocab, eos_id))
    texts = [b'{"', b'{"tim', b'{"time', b'{"time_', b'{"timex', b'{"time":1,"', b'{"time":1,', b'{"x":0,']
    for text in texts:
        state = lazy.step(lazy.start, text)
        mask = index.mask(state)
        for t, data in enumerate(vocab):
            if t == eos_id or not data:
                assert not mask[t]
                continue
            assert mask[t] == (lazy.step(state, data) != DEAD), (text, t, data)
    assert index.key_masks == len(texts)
    nested = compile_json_schema(KEY_SCHEMAS[3], closed_objects=False, max_depth=2)  # (past `}`: more)
    index = TokenIndex(nested, Vocabulary(vocab, eos_id))
    state = nested.step(nested.start, b'{"a":{"ti":null')
    mask = index.mask(state)
    assert mask[vocab.index(b'},')] and mask[vocab.index(b'}}')]
    assert np.array_equal(mask, brute_force_mask(nested, state, vocab, eos_id))


def test_a_listed_name_written_once_does_not_close_again():
    """After ``{"time":1,"`` the key ``time`` is taken: along its letters every plain byte still
    lives (other keys), but its quote is DEAD, so tokens that close it (``time"``) are not allowed
    though a quote from the inside of a plain key leads on: the walk keeps such a quote's tokens
    from the plain-key tables (it allowed them when a DEAD quote was taken for one leading where
    the plain key's does)."""
    from brzozowski import compile_json_schema

    vocab = [b'time"', b'time":', b'ti', b'me"', b'me":', b'x"', b'"', b'time', b'e"', b'_of"', b'ty',
             b'pe":', b'":1}', None]
    lazy = compile_json_schema(KEY_SCHEMAS[0], closed_objects=False)
    index = TokenIndex(lazy, vocab, eos_id=len(vocab) - 1)
    for text in (b'{"time":1,"', b'{"time":1,"ti', b'{"', b'{"ti'):
        state = lazy.step(lazy.start, text)
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, len(vocab) - 1)), text
    assert not index.mask(lazy.step(lazy.start, b'{"time":1,"'))[0]
    assert index.key_masks == 4


def test_key_masks_over_a_dfa_with_states_past_256():
    """Over a DFA (states are numbers, not interned terms) whose key states are numbered past 256
    (Python keeps one object per small int only): the key walk compares states by value, so the
    plain-key tables still serve those states, with the definition's masks."""
    from brzozowski import compile_json_schema
    from brzozowski.core.terms import concat, literal

    vocab = [b'time"', b'time":', b'ti', b'me"', b'me":', b'x"', b'"', b'time', b'e"', b'_of"', b'ty',
             b'pe":', b'":1}', b'#', None]
    lazy = compile_json_schema(KEY_SCHEMAS[0], closed_objects=False)
    dfa = regex_to_dfa(concat(literal(b"#" * 300), lazy.term(lazy.start)))
    index = TokenIndex(dfa, vocab, eos_id=len(vocab) - 1)
    texts = (b'{"', b'{"ti', b'{"time":1,"', b'{"time":1,"ti')
    for text in texts:
        state = dfa.step(dfa.start, b"#" * 300 + text)
        assert state > 256
        assert np.array_equal(index.mask(state), brute_force_mask(dfa, state, vocab, len(vocab) - 1)), text
    assert index.key_masks == len(texts)


# Open objects with random listed names over a few plain bytes (so names share prefixes, one is a
# prefix of another, the empty name comes up), some required, and tokens over those bytes, the
# quote, the separators and a value's digits.
NAME_BYTES = b'ab_~ '
NAMED_TOKEN_BYTES = NAME_BYTES + b'"\\:,{}1x'
named_tokens = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=6).map(
            lambda bs: bytes(NAMED_TOKEN_BYTES[b % len(NAMED_TOKEN_BYTES)] for b in bs)),
        st.sampled_from([b'":', b'":1,"', b'a"', b'ab":1', b'"}', b'""', b'_":1}', b'":1}', b',"']),
    ),
    min_size=1,
    max_size=50,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.text(alphabet=NAME_BYTES.decode(), max_size=3), min_size=1, max_size=5, unique=True),
       required=st.lists(st.booleans(), min_size=5, max_size=5), vocab=named_tokens)
def test_key_states_read_off_their_terms_match_brute_force(names, required, vocab):
    """Every state of an open object with random listed names: the mask equals the definition,
    and the key states were served from their terms (`TokenIndex._named_key_mask`)."""
    from brzozowski import compile_json_schema

    from brzozowski.json.masks.keys import NamedKeys

    served = []
    read_off = NamedKeys.try_mask
    schema = {"type": "object", "properties": {name: {"type": "integer"} for name in names},
              "required": [name for name, needed in zip(names, required) if needed],
              "additionalProperties": {"type": "integer"}}
    lazy = compile_json_schema(schema, closed_objects=False, max_depth=2)
    vocab = [None, *vocab]
    index = TokenIndex(lazy, vocab, eos_id=0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(NamedKeys, "try_mask", lambda self, *args: served.append(read_off(self, *args)) or served[-1])
        for state in _all_states(lazy):
            assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, 0)), state
    assert any(mask is not None for mask in served)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.text(alphabet=NAME_BYTES.decode(), min_size=1, max_size=3), min_size=1, max_size=5,
                      unique=True),
       values=st.lists(st.text(alphabet='ab"', max_size=3), min_size=1, max_size=4, unique=True),
       vocab=named_tokens)
def test_states_of_listed_words_are_read_along_their_paths_as_defined(names, values, vocab):
    """Every state of a closed object with random listed names (prefixes of one another, sharing
    prefixes) whose values are enums (escaped quotes in them), and of an array of those words: the
    mask equals the definition, and
    the states whose options each begin with a byte string were read along those strings' paths
    in the trie (`TokenIndex._literal_mask`), no derivative of their union taken."""
    from brzozowski import compile_json_schema

    from brzozowski.json.masks.words import Literals

    served = []
    read_along = Literals.try_mask
    schema = {"type": "object", "properties": {name: {"enum": values} for name in names},
              "additionalProperties": False}
    words = {"type": "array", "items": {"anyOf": [{"enum": names + values},  # then what follows them all
                                                  {"type": "string", "pattern": "^b[0-9]$"}]}}
    vocab = [None, *vocab, b'"a', b'":"', b'","', b'"]', b'"b"]', b'"b1"]', b'1"]', b'1",']
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Literals, "try_mask", lambda self, *args: served.append(read_along(self, *args)) or served[-1])
        for lazy in (compile_json_schema(schema, max_depth=2), compile_json_schema(words, max_depth=2)):
            index = TokenIndex(lazy, vocab, eos_id=0)
            for state in _all_states(lazy):
                assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, 0)), state
    assert any(mask is not None for mask in served)


def test_a_literal_before_a_wide_rest_is_left_to_the_walk():
    """A byte string followed by a rest that many tokens below it allow (a space, then any text:
    half of o200k_base's tokens begin with a space) is walked as usual, numpy taking over the wide
    levels: reading below the path in plain Python stops at its budget. Both are the definition."""
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocab, eos_id = load_tiktoken_vocab("o200k_base")
    lazy = LazyDFA(" [a-z]+|ab")
    index = TokenIndex(lazy, vocab, eos_id=eos_id)
    from brzozowski.json.masks.words import Literals

    served = []
    read_along = Literals.try_mask
    small = LazyDFA("(abc|abd|xyz)[0-9]")  # the same shape, rests narrow: read along the paths
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Literals, "try_mask", lambda self, *args: served.append(read_along(self, *args)) or served[-1])
        mask = index.mask(lazy.start)
        small_mask = TokenIndex(small, vocab, eos_id=eos_id).mask(small.start)
    assert served[0] is None and served[1] is not None
    assert np.array_equal(mask, brute_force_mask(lazy, lazy.start, vocab, eos_id))
    assert np.array_equal(small_mask, brute_force_mask(small, small.start, vocab, eos_id))


def test_the_end_of_a_document_allows_eos_alone_with_no_walk():
    """A state no byte goes on from (its term's `first` is empty: after a document's last byte,
    so it accepts) allows EOS alone, with no walk of the trie nor any other shortcut tried; the
    other states as defined."""
    from brzozowski.core.terms import EPSILON

    vocab = [None, b'{', b'}', b'{}', b'"', b' ']
    lazy = compile_json_schema({"type": "object", "maxProperties": 0}, max_depth=1)
    index = TokenIndex(lazy, vocab, eos_id=0)
    end = lazy.step(lazy.start, b'{}')
    assert not lazy.term(end).first and lazy.term(end) is EPSILON
    from brzozowski.json.masks import keys, leaves, strings, words
    from brzozowski.masks.walk import Walker

    with pytest.MonkeyPatch.context() as patch:
        for owner, name in ((Walker, "walk"), (keys.NamedKeys, "try_mask"), (leaves.Leaves, "try_mask"),
                            (strings.Strings, "try_mask"), (words.Words, "try_mask"), (words.Literals, "try_mask")):
            patch.setattr(owner, name, lambda *args, **kwargs: pytest.fail("tried"))
        assert np.array_equal(index.mask(end), [True, False, False, False, False, False])
        assert index.bitmask(end).tolist() == [1]
        # one array per vocabulary and EOS for every schema's end (not rebuilt per index) ...
        other = compile_json_schema({"type": "array", "maxItems": 0}, max_depth=1)
        other_end = other.step(other.start, b'[]')
        shared = TokenIndex(other, vocab, eos_id=0).bitmask(other_end)
        assert TokenIndex(lazy, vocab, eos_id=0).bitmask(end) is shared and not shared.flags.writeable
        # ... but another EOS over the same tokens has its own
        assert TokenIndex(other, vocab, eos_id=5).bitmask(other_end).tolist() == [1 << 5]
    for state in (lazy.start, lazy.step(lazy.start, b'{')):
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, 0))


def test_states_of_words_are_read_along_them_and_nothing_else_is_tried():
    """A state whose options each begin with a byte string, a quote among their first bytes
    followed by another (after a closed object's key: ``":"`` then the value; an enum's value) is
    read along the words (`TokenIndex._literal_mask`) with no other shortcut tried; a quote that
    opens a string (a value) or an open object's other keys are not words: their shortcuts serve
    them. Every mask is the definition."""
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    schema = {"type": "object", "properties": {"unit": {"enum": ["celsius", "fahrenheit"]},
                                               "name": {"type": "string"}},
              "required": ["unit", "name"], "additionalProperties": False}
    lazy = compile_json_schema(schema)
    dfa = regex_to_dfa(lazy.term(lazy.start))
    index = TokenIndex(lazy, vocabulary)
    served = []
    for strategy in index.strategies:
        def spy(*args, _name=strategy.name, _f=strategy.try_mask, **kwargs):
            served.append(_name)
            return _f(*args, **kwargs)
        strategy.try_mask = spy
    for text, path in [(b'{"unit', ["end", "words", "literals"]), (b'{"unit":"c', ["end", "words", "literals"]),
                       (b'{"unit":"celsius","name":', "opening")]:
        state = lazy.step(lazy.start, text)
        del served[:]
        mask = index.mask(state)
        assert served == path if isinstance(path, list) else path in served, (text, served)
        assert np.array_equal(mask, TokenIndex(dfa, vocabulary).mask(dfa.step(dfa.start, text))), text


def test_a_key_state_is_read_off_its_term_without_a_derivative():
    """After ``,"`` in an open object with optional members (the usual tool call), inside a
    listed name, at its end and inside another key: no derivative of the state is taken (the key
    walk took one per derivative class at every prefix of every listed name: 90 derivatives for
    one mask here), and the mask is the one the DFA's tables give."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    schema = {"type": "object", "required": ["location"],
              "properties": {"location": {"type": "string"}, "days": {"type": "integer"},
                             "unit": {"enum": ["celsius", "fahrenheit"]},
                             "include_hourly": {"type": "boolean"}}}
    lazy = compile_json_schema(schema, closed_objects=False)
    dfa = regex_to_dfa(lazy.term(lazy.start), limits=Limits(compile_seconds=None))  # 13,000 states: seconds
    index = TokenIndex(lazy, vocabulary)
    texts = [b'{"location":"x","', b'{"location":"x","days":1,"', b'{"location":"x","days":1,"inc',
             b'{"location":"x","days":1,"unit', b'{"location":"x","days":1,"units',
             b'{"location":"x","unit":"celsius","']
    for text in texts:
        state = lazy.step(lazy.start, text)
        mask = index.mask(state)
        assert lazy.term(state).derivatives is None, text
        assert np.array_equal(mask, TokenIndex(dfa, vocabulary).mask(dfa.step(dfa.start, text))), text
    assert index.key_masks == len(texts)


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.text(alphabet=NAME_BYTES.decode() + "\u00e9\\", min_size=1, max_size=4), min_size=1,
                      max_size=6, unique=True))
def test_a_trie_of_keys_registered_by_the_compiler_is_the_shape_read_off(names):
    """The trie of other keys the schema compiler builds is registered (`PLAIN_KEY_TRIES`) with
    every node's children as `_key_children` reads them off the node's term, the root's with it:
    a key mask trusts the registry instead of checking the shape. The entry dies with its terms.
    (Names are not empty here: the root of the trie of [""] alone, ``[plain]·[plain]*``, is no
    alternation, and its quotes' concatenation flattens it away: no mask meets it.)"""
    import gc
    import weakref

    from brzozowski.json.strings import PLAIN_KEY_TRIES
    from brzozowski.json.masks.keys import key_children as _key_children
    from brzozowski.json.compiler import _plain_keys_except
    from brzozowski.core.terms import byte, concat

    quoted = _plain_keys_except(names)  # "·O·" (interned: O is the root that builds it)
    root = next(key for key in PLAIN_KEY_TRIES.keys() if concat(byte(0x22), key, byte(0x22)) is quoted)
    children, below = PLAIN_KEY_TRIES[root]
    assert children == _key_children(root)
    todo, seen = list(children.values()), set()
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            assert below[node] == _key_children(node)
            todo += below[node].values()
    assert seen == set(below)
    dead = weakref.ref(root)
    del quoted, root, children, below, todo, seen
    node = None
    gc.collect()
    assert dead() is None  # (nothing in the entry holds its own root)


def test_key_states_of_two_objects_share_no_tables_mask():
    """The plain-key masks before a walk's own tokens are kept per (q, the names closing, opened):
    the key states after each member of one object share one, and two objects, the first key and
    the others, an object and its nested one, each get theirs. Every mask is the DFA's."""
    from brzozowski import compile_json_schema
    from brzozowski.vocab.tokenizers import load_tiktoken_vocab

    vocabulary = Vocabulary(*load_tiktoken_vocab("o200k_base"))
    schema = {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "meta": {"type": "object", "properties": {"id": {"type": "string"}, "tag": {"type": "string"}},
                 "additionalProperties": {"type": "string"}}},
        "additionalProperties": {"type": "integer"}}
    lazy = compile_json_schema(schema, closed_objects=False, max_depth=3)
    dfa = regex_to_dfa(lazy.term(lazy.start))
    index = TokenIndex(lazy, vocabulary)
    texts = [b'{"', b'{"id":1,"', b'{"name":"x","', b'{"id":1,"name":"x","', b'{"meta":{"',
             b'{"meta":{"id":"1","', b'{"meta":{"tag":"1","', b'{"meta":{"tag":"1"},"', b'{"x":1,"',
             b'{"meta":{"x":"1","']
    states = set()
    for text in texts:
        state = lazy.step(lazy.start, text)
        states.add(state)
        assert np.array_equal(index.mask(state), TokenIndex(dfa, vocabulary).mask(dfa.step(dfa.start, text))), text
    # after "name", with or without "id" first: the same state; other keys interleave with the listed
    # ones, so after a first "x" (every listed name still to come) is a state of its own
    assert index.key_masks == len(states) == 9


NEAR_KEY_VOCAB = [b'{"', b'a', b'ab', b'a\x01', b'\x01', b'ax"1', b'ax"3', b'"1}', b'"3}', b'q"3}',
                  b'b"2', b'a"1}', b'zz', b'"', b'}', b'1', b'3', b'\x01"}', b'ab"}', b'ac"}', b'b',
                  b'a"}', b'"}', b'x"1}', b'x']


@pytest.mark.parametrize("regex, tables", [
    # a key whose inside also takes control bytes: not a plain key's inside (every byte counts)
    ('\\{"[^"\\\\\\x80-\\xff]*"\\}', 0),
    # three kinds of key with three different after-states: one after-state per walk, or no tables
    # (so '{"' is walked; the three insides are plain keys' insides, each from the tables)
    ('\\{"(a[ !#-\\[\\]-~]*"1|b[ !#-\\[\\]-~]*"2|([ !#-\\[\\]-`c-~][ !#-\\[\\]-~]*)?"3)\\}', 3),
    # a trie of keys whose node after "a" lacks "a" and "b": not every plain key but a few names
    # (after '{"' the token "ab" is DEAD): not read off the term; one state is a plain key's inside
    ('\\{"(|a(|[ !#-\\[\\]-`c-~][ !#-\\[\\]-~]*)|[ !#-\\[\\]-`b-~][ !#-\\[\\]-~]*)"\\}', 1),
])
def test_near_keys_are_not_taken_for_plain_keys(regex, tables):
    """Automata that look like a key at first sight: the masks still equal the definition."""
    vocab = NEAR_KEY_VOCAB
    lazy = LazyDFA(regex)
    index = TokenIndex(lazy, vocab)
    for state in _all_states(lazy):
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, None)), state
    assert index.key_masks == tables


def test_other_keys_that_lead_nowhere_are_not_taken_for_plain_keys():
    """Options shaped as an open object's keys whose other keys go on into an empty language
    (``[plain]*"(ab & ac)``): a token of plain bytes is then DEAD after ``{"`` but for the listed
    ``x``, so the term does not serve the mask (it would allow every plain token)."""
    from brzozowski.core.syntax import parse

    term = parse(r'\{"') + ((parse(r'[ !#-\[\]-~]*"') + (parse("ab") & parse("ac"))) | parse('x"1')) + parse(r'\}')
    lazy = LazyDFA(term)
    index = TokenIndex(lazy, NEAR_KEY_VOCAB)
    for state in _all_states(lazy):
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, NEAR_KEY_VOCAB, None)), state
    assert not index.mask(lazy.step(lazy.start, b'{"'))[NEAR_KEY_VOCAB.index(b"zz")]


@pytest.mark.parametrize("few_inner", [0, 2, 16])
@pytest.mark.parametrize("pattern", ['[a-d]*"', 'a(b|c)d*|b[a-c]{1,3}|cc?', '(ab|ba)*c|[a-c]?d'])
def test_a_walk_below_a_node_derives_only_the_children_with_children(pattern, few_inner):
    """`_below` (what a byte string's path leaves to walk) takes a child where every token ends
    as live iff the term begins with its byte, with no derivative, and derives the others by
    their byte, or, past `FEW_INNER` of them, by class: the tokens at the nodes it reaches are
    those whose bytes lead from the term to a live state, either way."""
    from brzozowski.masks.walk import few_tokens
    from brzozowski.core.derivatives import derivative_of_string

    letters = b'abcd"'
    vocab = [bytes([x]) for x in letters] + [bytes([x, y]) for x in letters for y in letters]
    vocab += [bytes([x, y, z]) for x in b"abc" for y in b"abcd" for z in b'cd"']
    lazy = LazyDFA(pattern)
    index = TokenIndex(lazy, vocab, tuning=Tuning(few_inner=few_inner))
    labels, child_lo, child_count = index.trie.python_view()
    term = lazy.term(lazy.start)
    reached = index.walker.below(labels, child_lo, child_count, 0, term)
    found = set(few_tokens(index.trie, reached, len(vocab)))
    expected = {t for t, data in enumerate(vocab) if derivative_of_string(term, data) is not EMPTY_TERM}
    assert found == expected


@pytest.mark.parametrize("few_children", [0, 4, 256])
@pytest.mark.parametrize("pattern", [r'(,"[a-c]*"|\})x?', r'([a,]|"c)*\}', r'a(b|,)*"|\}[a-c]{1,3}|x',
                                     ("and", r',"', "a*b", "a*c", r'\}x')])
def test_a_walk_derives_a_term_by_its_few_children_or_first_bytes_without_its_classes(pattern, few_children):
    """`_expand` derives a term whose moves are not known by each child's byte when the node has
    at most `FEW_CHILDREN` children, or by each byte the term begins with when it begins with at
    most that many, without computing its derivative classes; the masks are the definition's
    whatever the bound (0: always by classes). A derivative whose language is empty, though not ∅
    (``,"(a*b & a*c)``), leads nowhere."""
    from brzozowski.core.syntax import parse

    if isinstance(pattern, tuple):  # ("and", p, q, r, s): p(q & r) | s
        _, p, q, r, s = pattern
        pattern = parse(p) + (parse(q) & parse(r)) | parse(s)

    letters = b',"}abcx'
    vocab = [bytes([x]) for x in letters] + [bytes([x, y]) for x in letters for y in letters]
    vocab += [bytes([x, y, z]) for x in b',"}' for y in b'"ab' for z in b'c}x']
    lazy = LazyDFA(pattern)
    index = TokenIndex(lazy, vocab, tuning=Tuning(few_children=few_children))
    index.set_strategy(strings=False)  # every mask by a walk
    start_mask = index.mask(lazy.start)
    assert (lazy.term(lazy.start).classes is None) == (few_children > 0)
    assert np.array_equal(start_mask, brute_force_mask(lazy, lazy.start, vocab, None))
    for state in _all_states(lazy):
        assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, None)), state


@pytest.mark.parametrize("frontier", [1, 48])
@pytest.mark.parametrize("pattern", [r'(,"[a-e]+"x|\})y?', ("and", r',"', "[a-e]+", "[a-c][a-e]*", r'\}')])
def test_a_walk_derives_no_child_without_children(pattern, frontier):
    """A child where every token ends (no children of its own) lives iff a term without ``&`` or
    ``~`` begins with its byte: `_few_children` (here below ``,"``, 3 children) takes no
    derivative for it (after a value, ``,"`` is followed by leaves only), and its state, None, is
    never expanded, nor numbered when the walk hands its level to numpy (`PYTHON_FRONTIER` 1: the
    level of "," and "}"). A term with ``&`` (whose derivative may be empty though not ∅) is derived as before.
    Masks: the definition."""
    from brzozowski.masks import moves as moves_module
    from brzozowski.core.syntax import parse

    boolean = isinstance(pattern, tuple)
    if boolean:  # ("and", p, q, r, s): p(q & r) | s
        _, p, q, r, s = pattern
        pattern = parse(p) + (parse(q) & parse(r)) | parse(s)
    vocab = [b',', b',"', b'}', b'"x', b'xy', b',"a', b',"b', b',"x']  # ("}": a leaf at the root)
    calls = []
    real = moves_module.derivative
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moves_module, "derivative", lambda *args: calls.append(args[1]) or real(*args))
        lazy = LazyDFA(pattern)
        index = TokenIndex(lazy, vocab, tuning=Tuning(python_frontier=frontier))
        index.set_strategy(strings=False)  # every mask by a walk
        start = index.mask(lazy.start)
        derived = bytes(calls)
        for state in _all_states(lazy):
            assert np.array_equal(index.mask(state), brute_force_mask(lazy, state, vocab, None)), state
    assert np.array_equal(start, brute_force_mask(lazy, lazy.start, vocab, None))
    assert start.tolist() == [True, True, True, False, False, True, True, False]
    if frontier > 1:  # (at 1, the level below "," is numbered and walked by numpy)
        assert (b"a" in derived and b"b" in derived) == boolean, derived


@pytest.mark.parametrize("pattern", [r'[a-c]*x', r'[a-c]*a', r'(ab|c)*d', r'(a|bc|[d-f])*"x', r'[^"\\]*"'])
def test_a_loop_is_known_from_its_body_s_memo(pattern):
    """`_loops_on(S*·T, b)` says ∂b is the term itself (a string's body read by a character of one
    byte) only when it is: T does not begin with b and S's memo holds ∂b S = ε; each byte checked
    against the derivative."""
    from brzozowski.core.derivatives import derivative
    from brzozowski.masks.moves import loops_on as _loops_on
    from brzozowski.core.syntax import parse

    term = parse(pattern)
    body = term.children[0].children[0]
    for b in range(256):
        derivative(body, b)  # (memoized while its result lives: ε is held for good)
    loops = [b for b in range(256) if _loops_on(term, b)]
    assert loops == [b for b in range(256) if derivative(term, b) is term], pattern
    assert loops or pattern == r'(ab|c)*d'


def test_a_walk_keeps_its_last_derivatives_alive_for_the_steps_after_it():
    """A term's memoized derivatives are held weakly: the index holds the last
    `RECENT_DERIVATIVES` its walks computed, so that the advance by the token chosen and the next
    state's mask find them memoized, and no more (the oldest go first)."""
    letters = b',"}abcx'
    vocab = [bytes([x]) for x in letters] + [bytes([x, y]) for x in letters for y in letters]
    lazy = LazyDFA(r'(,"[a-c]*"|\})x?')
    index = TokenIndex(lazy, vocab)
    index.set_strategy(strings=False)
    index.mask(lazy.start)
    term = lazy.term(lazy.start)
    after_comma = term.derivatives[ord(",")]()  # ("[a-c]*")x?: no sub-term of the start's
    assert after_comma is not None and after_comma in index.walker.expander.recent
    assert lazy.state_of(after_comma) == lazy.step(lazy.start, b",")
    bounded = TokenIndex(LazyDFA(r'(,"[a-c]*"|\})x?'), vocab, tuning=Tuning(recent_derivatives=2))
    bounded.set_strategy(strings=False)
    for state in _all_states(bounded.automaton):
        assert np.array_equal(bounded.mask(state), brute_force_mask(bounded.automaton, state, vocab, None))
    assert len(bounded.walker.expander.recent) == 2


def test_a_keys_closing_quote_is_not_taken_for_a_strings_opening_by_the_states_classes():
    """Inside a listed name of a closed object the term begins with the name's rest or its closing
    quote: `_opening_mask` derives it by the quote alone to see that no string opens there (it
    took the state's derivative classes and a derivative per class first), and the literal mask
    serves the state; masks as defined."""
    from brzozowski import compile_json_schema

    vocab = [b'{"', b'a', b'ab', b'b', b'"', b'":', b'":"', b'":"x', b'"}', b'x', b'"x', b',"', b'}', b'1',
             b'b":', b'b":"', b'":1', b'c']
    lazy = compile_json_schema({"type": "object", "properties": {"ab": {"type": "string"}, "c": {"type": "integer"}},
                                "required": ["ab"], "additionalProperties": False})
    index = TokenIndex(lazy, vocab)
    for text in (b'{"a', b'{"ab', b'{"ab":"x","c'):
        state = lazy.step(lazy.start, text)
        mask = index.mask(state)
        assert lazy.term(state).classes is None, text
        assert np.array_equal(mask, brute_force_mask(lazy, state, vocab, None)), text


def test_the_tokens_over_a_character_bound_are_read_off_the_tokens_ordered_by_count():
    """`over_bound` lists the tokens that begin more characters than a bound from a string state
    (those a ``maxLength`` string's state leaves out): from S's body read off the tokens ordered by
    count, which the vocabulary prepared; from a state inside an escape or a character by one
    comparison, no order built for it (~2 ms over o200k_base, for a state met once in a while).
    The definition's, for every bound; None when more than `FEW_OVER_BOUND` are over."""
    from brzozowski.json import string_masks

    vocab = [b"a", b"ab", b"abc", b"\\n", b"\\u00e9x", b"\xc3\xa9", b'x"', b"abcdefgh", b"  ", b'"', b"\\",
             b"u00e9", b"n\\t", b"\xa9abc"]
    trie = Vocabulary(vocab).trie
    s = string_masks.string_automaton()
    body = s.body
    escaped = int(s.trans[body, ord("\\")])  # after a backslash
    inside_character = int(s.trans[body, 0xC3])  # after a character's first byte
    for r in (body, escaped, inside_character):
        counts = string_masks.count_tables(trie, r)[0]
        for most in range(-1, 10):
            over = string_masks.over_bound(trie, r, most)
            assert sorted(over.tolist()) == np.flatnonzero(counts > most).tolist(), (r, most)
    ordered = [key[1] for key in trie.tables if key[0] == "json-string-count-order"]
    assert ordered == [body]
    assert string_masks.over_bound(trie, body, 1, few=2) is None  # five tokens begin two characters or more
    assert string_masks.over_bound(trie, body, 5, few=2).tolist() == [vocab.index(b"abcdefgh")]
    assert string_masks.over_bound(trie, escaped, 0, few=2) is None


# -- limits: a mask step's deadline, the longest token ---------------------------------------------

def test_a_mask_past_its_deadline_is_refused_naming_the_limit_and_state_and_nothing_is_cached():
    """Each mask computation runs under ``Limits.mask_seconds`` and the walk checks it once per
    level: a deadline that has passed by the first level refuses the mask (`TimeBudgetError`
    naming the limit and the state), caches nothing, and the same state is answered by an index
    without the limit, as defined."""
    from brzozowski.budget import Limits
    from brzozowski.errors import TimeBudgetError

    dfa = regex_to_dfa(HAND)
    hurried = TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS, limits=Limits(mask_seconds=1e-9))
    hurried.set_strategy(strings=False)
    for ask in (hurried.mask, hurried.bitmask):
        with pytest.raises(TimeBudgetError, match=r"mask_seconds .* at state 0"):
            ask(0)
    assert hurried.cache_info()["entries"] == 0 and hurried.walks == 0
    patient = TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS, limits=Limits(mask_seconds=None))
    assert np.array_equal(patient.mask(0), brute_force_mask(dfa, 0, HAND_VOCAB, HAND_EOS))


def test_an_advance_past_its_deadline_is_refused_naming_the_state_and_closes_its_deadline():
    """A new advance (a lazy automaton's step through a token's bytes) runs under
    ``Limits.mask_seconds`` too: past it, `TimeBudgetError` names the limit and the state advanced
    from, nothing is memoized, and no deadline stays in force after the error."""
    from brzozowski.budget import Limits, check_deadline
    from brzozowski.errors import TimeBudgetError

    vocab = [b"ab" * 20, b"a"]  # ".*a.{17}": each byte read goes to a state not yet met
    hurried = TokenIndex(LazyDFA(".*a.{17}"), vocab, limits=Limits(mask_seconds=1e-9))
    for _ in range(2):
        with pytest.raises(TimeBudgetError, match=r"mask_seconds .* at advance from state 0"):
            hurried.next_state(0, 0)
    check_deadline()  # (none in force: it would raise, long past)
    patient = TokenIndex(LazyDFA(".*a.{17}"), vocab, limits=Limits(mask_seconds=None))
    assert patient.next_state(0, 0) != DEAD


def test_deadlines_opened_per_step_nest_and_close():
    """`open_deadline`/`close_deadline` (what a mask step uses): an enclosing deadline that ends
    sooner stays in force, a closed one is gone, and one-time work inside (`outside_deadline`)
    is given back to the deadline in force until it closes."""
    import time

    from brzozowski.budget import check_deadline, close_deadline, open_deadline, outside_deadline, within
    from brzozowski.errors import TimeBudgetError

    with pytest.raises(TimeBudgetError, match=r"mask_seconds \(0.05 s\) exceeded at state 3"):
        with within(0.05, "mask_seconds", where="state 3"):
            opened = open_deadline(30.0, "compile_seconds", "later")  # ends later: the outer one rules
            try:
                time.sleep(0.1)
                check_deadline()
            finally:
                close_deadline(opened)
    opened = open_deadline(0.05, "mask_seconds", "state 4")
    try:
        with outside_deadline():
            time.sleep(0.1)
        check_deadline()  # (the 0.1 s given back)
    finally:
        close_deadline(opened)
    time.sleep(0.06)
    check_deadline()  # closed: nothing in force
    assert open_deadline(None, "mask_seconds") is None


def test_one_time_table_building_does_not_count_against_a_steps_deadline():
    """A vocabulary's table built on first use inside a step (`VocabTrie.kept`) runs outside the
    step's deadline, and the time it took is given back: a step that waited for it is not refused."""
    import time

    from brzozowski.budget import check_deadline, within
    from brzozowski.errors import TimeBudgetError

    trie = Vocabulary([b"a", b"b"]).trie
    with within(0.05, "mask_seconds", where="a test"):
        assert trie.kept(("a slow table", object()), lambda: time.sleep(0.1) or (1,)) == (1,)
        check_deadline()  # (the 0.1 s were one-time work)
    with pytest.raises(TimeBudgetError, match="mask_seconds"):
        with within(0.05, "mask_seconds", where="a test"):
            time.sleep(0.1)
            check_deadline()


def test_a_token_longer_than_the_limit_is_refused():
    """``Limits.max_token_bytes`` bounds every token (a walk reads a level per byte of the longest):
    `Vocabulary` and `TokenIndex` refuse a longer one with `InputLimitError` naming it; ``None``
    lifts the limit; the default is far above any tokenizer's longest token."""
    from brzozowski.budget import DEFAULT_LIMITS, Limits
    from brzozowski.errors import ArgumentError, InputLimitError

    long_token = b"x" * (DEFAULT_LIMITS.max_token_bytes + 1)
    with pytest.raises(InputLimitError, match=r"token 1 is \d+ bytes long"):
        Vocabulary([b"a", long_token])
    with pytest.raises(InputLimitError, match="token 2 is 7 bytes long"):
        TokenIndex(regex_to_dfa("a+"), [b"a", b"aa", b"a" * 7], limits=Limits(max_token_bytes=6))
    lifted = Vocabulary([b"a", b"a" * 7], max_token_bytes=None)
    with pytest.raises(InputLimitError, match="token 1 is 7 bytes long"):
        TokenIndex(regex_to_dfa("a+"), lifted, limits=Limits(max_token_bytes=6))
    index = TokenIndex(regex_to_dfa("a+"), lifted, limits=Limits(max_token_bytes=7))
    assert index.mask(index.start).tolist() == [True, True]
    with pytest.raises(ArgumentError, match="max_token_bytes"):
        Limits(max_token_bytes=0)


def test_an_index_takes_its_tuning_and_every_tuning_gives_the_same_masks():
    """`TokenIndex(tuning=...)` decides how, never what: extreme tunings (everything in numpy at
    once, everything in Python, no memo kept) give the definition's masks and bitmasks."""
    from brzozowski.masks.tokenset import packed

    lazy = compile_json_schema({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3},
                                                                 "b": {"type": "integer"}}})
    vocab = [None, b'{"', b'a', b'":', b'":"', b'x', b'xy"', b'"}', b'1', b'12', b',"b":', b'}', b'"', b'b":1}']
    tunings = [Tuning(python_frontier=0, python_work=0, dense_fraction=1, few_tokens=0, few_bits=0),
               Tuning(python_frontier=10**6, python_work=10**9, few_tokens=10**6, few_bits=10**6,
                      few_children=256, few_inner=10**6, few_pairs=0),
               Tuning(index_memo_entries=1, recent_derivatives=1, next_state_memo=1, pack_fraction=10**6)]
    states = _all_states(lazy)
    for tuning in tunings:
        index = TokenIndex(lazy, vocab, eos_id=0, tuning=tuning)
        for state in states:
            want = brute_force_mask(lazy, state, vocab, 0)
            assert np.array_equal(index.mask(state), want), (tuning, state)
            assert np.array_equal(index.bitmask(state), packed(want)), (tuning, state)
    with pytest.raises(InputTypeError, match="Tuning"):
        TokenIndex(lazy, vocab, eos_id=0, tuning={"few_tokens": 1})


_words = st.text(alphabet="abc0", min_size=1, max_size=3)
_grouped = st.tuples(st.lists(_words, min_size=2, max_size=3), patterns).map(lambda p: f"({'|'.join(p[0])}){p[1]}")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.lists(st.one_of(_words, _grouped, patterns), min_size=2, max_size=4),
       then=st.lists(st.one_of(_words, patterns), min_size=0, max_size=2),
       vocab=st.lists(st.text(alphabet="abc0.", min_size=1, max_size=5).map(str.encode), min_size=1, max_size=40))
def test_read_below_finds_exactly_the_tokens_that_leave_the_term_alive(options, then, vocab):
    """`Walker.read_below` reads ``(o₁|…|oₖ)·T`` option by option: a byte string along its path, T
    below the path's end; another option walked alone, T read below each node where it ends (no
    ``∂w oᵢ·T`` built); an option that is itself options with a tail, that tail then T. Its nodes
    hold exactly the tokens w with ``∂w`` of the term not ∅."""
    term = concat(alt(*[parse(option) for option in options]), *[parse(part) for part in then])
    vocab = [*vocab, None]
    index = TokenIndex(LazyDFA(term), vocab, eos_id=len(vocab) - 1)
    walker = index.walker
    found = walker.read_below(*walker.trie.python_view(), 0, term)
    got = set(walker.trie.tokens_at(np.array(found, dtype=np.intp))[0].tolist()) if found else set()
    assert got == {t for t, data in enumerate(vocab[:-1])
                   if derivative_of_string(term, data) is not EMPTY_TERM}, (options, then)


def test_the_rests_past_a_keys_quote_are_those_that_live_and_a_values_options_are_walked_once():
    """`PastTheQuote.live_rests` of the term after a key's closing quote marks exactly the rests
    (of the vocabulary's tokens after a quote) whose derivative lives, in every key state of an open
    object; the walk of each value option alone is kept (`alone`), so the object's second key
    state walks fewer options than its first, with the same answer as a fresh memo."""
    from brzozowski.json.masks.past import PastTheQuote
    from brzozowski.json.string_masks import quote_suffixes
    from brzozowski.masks.moves import live_term

    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}
    lazy = compile_json_schema(schema, separators=(",", ":"), closed_objects=False)
    vocab = [b'":', b'":"', b'":{', b'":[', b'":1', b'":[]', b'":{}', b'":"",', b'":null,"', b'":true}',
             b'"}', b'":-', b'":{"', b'"a', b"a", b"x", b'"', b":", b","]
    index = TokenIndex(lazy, vocab)
    suffixes = quote_suffixes(index.trie)
    rest_of = {node: rest for rest, node in suffixes.node_of.items()}
    rest_of[0] = b""
    walker = index.walker
    calls = []
    below = walker.below
    walker.below = lambda *args, **kwargs: calls.append(args[3]) or below(*args, **kwargs)
    past = PastTheQuote(walker)
    walked = []
    for text in (b'{"xy"', b'{"a":1,"xy"', b'{"a":2,"b":"q","zz"'):
        after = derivative_of_string(lazy.term(lazy.start), text)
        assert live_term(after, lazy.max_states), text
        calls.clear()
        rests, _ = past.live_rests(after)
        walked.append(len(calls))
        expected = [live_term(derivative_of_string(after, rest_of[node]), lazy.max_states)
                    for node in range(len(suffixes.labels))]
        assert rests.tolist() == expected, text
        assert PastTheQuote(walker).live_rests(after)[0].tolist() == expected
    assert walked[1] < walked[0] and walked[2] < walked[0], walked
