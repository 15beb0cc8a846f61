"""Masks of states inside a leaf (`brzozowski.leaves`): per-vocabulary tables of the leaf's states.

A state inside a leaf is a term ``ℓ·T``: the atom of leaf state q, then what follows the leaf's
value T. What a token does inside the leaf depends on the vocabulary and q alone, so it is
computed once per vocabulary and leaf state and shared by every schema that holds the leaf; only
what follows the leaf depends on the schema. Two shapes:

- **Quoted** (a format's strings, `leaf_tables`): the leaf's words end at its closing quote, after
  which its language is {ε}. The `brzozowski.string_masks.StringTables` of q then say which tokens
  stay inside and which go past the quote, with their rests: exactly the claim of
  `brzozowski.string_masks` for S, with the leaf in S's place. Served for *wide* states (a URI's,
  a hostname's characters: tens of thousands of tokens), where a walk is milliseconds.
- **Exits** (the narrow states of quoted leaves: a date's, an IPv4 address's, a UUID's; any leaf,
  even one that may end before its last byte as a number does, `leaf_exits`): a token t is
  allowed in ``ℓ·T`` iff the leaf reads all of t from q without dying (``inside``), or reads a
  prefix p of t into an accepting state (an *exit*) and T reads the rest. With p empty (q
  accepts) those are the tokens T allows that begin with a byte the leaf cannot take (then
  ``∂t(ℓ·T) = ∂t T``: a walk from T, kept per T); every other exit is listed per vocabulary (a
  token, where it leaves, the byte after), and read against T's first bytes, then T itself.
  (Numbers are not leaves: measured over the benchmark corpus, as leaves their masks cost the same.)

Both are exact (the brute-force tests hold): the tables are the automaton read on the byte trie.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import cachetools
import numpy as np

from .alphabet import DEAD
from .codes import ClassTable, TransitionTable
from .format_automata import FormatTable
from .json_formats import FORMAT_PATTERNS
from .leaves import format_leaf
from .string_masks import StringTables, codes_from, kept_on, quote_suffixes, tables_from_codes
from .vocabulary import TokenTrie, merged_classes

if TYPE_CHECKING:
    from .leaves import LeafAutomaton
    from .vocabulary import VocabTrie

__all__ = [
    "FORMAT_TRIE_LIVE_BYTES", "LEAF_TABLE_BYTES", "PREPARED_DEPTH", "PREPARED_FORMATS", "WIDE_LEAF_BYTES",
    "FormatTrie", "LeafExits", "format_trie", "leaf_exits", "leaf_tables", "prepare_formats",
]

LEAF_TABLE_BYTES = 32 * 1024 * 1024
"""How much memory a vocabulary's cache of leaf tables may hold: a wide state's tables
(`leaf_tables`, ~0.25 MB over o200k_base), a narrow state's exits (`leaf_exits`, a few kB), a
format's trie labels (0.4 MB); least recently used first out."""

WIDE_LEAF_BYTES = 32
"""`leaf_tables` serves leaf states that at least this many first bytes continue (a URI's, a
hostname's, an e-mail address's characters); a narrower one (a date's digits) has few tokens,
which `leaf_exits` lists."""

PREPARED_FORMATS = ("email", "hostname", "uri", "uri-reference")
"""The formats whose class trie (`format_trie`) a `brzozowski.vocabulary.Vocabulary` builds
(`prepare_formats`): those with wide states met most often (hundreds of an e-mail address's and a
hostname's; a URI's, a URI reference's). Another format's wide states walk the byte trie."""

PREPARED_DEPTH = 2
"""A format's states within this many bytes of its start (the opening quote included) get their
tables with the vocabulary (`prepare_formats`)."""

FORMAT_TRIE_LIVE_BYTES = 128
"""`format_trie` serves formats that fewer bytes than this lead somewhere in (``regex``'s lead
nearly everywhere: its class trie would be most of the byte trie)."""

_MISSING = object()


def _cached(trie: VocabTrie, key: tuple, build):
    """``build()`` kept in the vocabulary's bounded cache of leaf tables under `key`."""
    cache = kept_on(trie, ("leaf-tables",),
                    lambda: (cachetools.LRUCache(maxsize=LEAF_TABLE_BYTES, getsizeof=_nbytes),))[0]
    with trie.tables_lock:
        found = cache.get(key, _MISSING)
    if found is _MISSING:
        found = build()
        with trie.tables_lock:
            cache[key] = found
    return found


def _nbytes(value: object) -> int:
    """The memory a cached value holds (its arrays'; at least 1)."""
    arrays = value if isinstance(value, tuple) else (value,)
    return max(1, sum(a.nbytes for a in arrays if isinstance(a, np.ndarray)))


def leaf_tables(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> StringTables | None:
    """`StringTables` of state q of a leaf automaton whose language closes like a JSON string's
    (every word ends at the one state whose language is {ε}, which nothing follows), per
    vocabulary (on first use, over o200k_base: ~0.5 ms over the format's `format_trie`, 3-6 ms
    over the byte trie); None if one of the automaton's states accepts and is not that one (a
    language that may go on after it could end: `LeafAutomaton.closes_once`), or if it closes on
    a byte other than a quote."""
    def build() -> StringTables | None:
        closed_state = automaton.closed_state()
        if closed_state is None:
            return None
        classes = format_trie(trie, automaton)
        with automaton.lock:  # (the automaton's transition table is shared, and grows)
            table = automaton.codes_table()
            if classes is None:
                codes = codes_from(trie, table, q, _labels(trie, automaton, table))
                coded, quote_nodes = None, quote_suffixes(trie).quote_node
            else:
                codes = codes_from(classes.trie, table, q, classes.labels)
                coded = classes.token_ids, classes.token_nodes, classes.quote_nodes
                quote_nodes = classes.quote_nodes
        closed = table.code(closed_state)
        if not automaton.closes_once():
            return None
        closing = quote_nodes[codes.take(quote_nodes) == closed]
        if len(np.unique(closing)) != np.count_nonzero(codes == closed):
            return None  # it closes on a byte other than a quote
        return tables_from_codes(trie, codes, closed, coded)
    return _cached(trie, ("quoted", automaton.id, q), build)


class FormatTrie(NamedTuple):
    """The class trie of a format's table over a vocabulary (`brzozowski.vocabulary.class_trie`
    with the classes that lead nowhere left out): what `leaf_tables` walks instead of the byte
    trie (a URI's 24k nodes, a hostname's 15k, of o200k_base's 422k)."""

    trie: TokenTrie
    token_ids: np.ndarray
    """The tokens whose bytes all lead somewhere from some state (the others never live), ..."""
    token_nodes: np.ndarray
    """... their nodes, ..."""
    quote_nodes: np.ndarray
    """... the node past each quote of the vocabulary's `quote_suffixes` (its ``quote_node``
    merged), ..."""
    labels: np.ndarray
    """... and each node's class (what it adds to its parent's code in the format's `ClassTable`)."""


def format_trie(trie: VocabTrie, automaton: LeafAutomaton) -> FormatTrie | None:
    """The `FormatTrie` of a format's table, if the vocabulary prepared one (`prepare_formats`);
    else None: a lazy automaton's states, or another format's, walk the byte trie (building a
    class trie, ~15 ms over o200k_base, would hold up the mask step that first needs it)."""
    if not isinstance(automaton.dfa, FormatTable):
        return None
    key = _trie_key(automaton.dfa)
    found = None if key is None else trie.tables.get(key)
    return None if found is None else found[0]


@lru_cache(maxsize=None)
def _trie_key(table: FormatTable) -> tuple | None:
    """Where a vocabulary keeps the `FormatTrie` of `table` (formats with the same byte classes
    and live bytes share one: a URI's and an IRI's); None if `FORMAT_TRIE_LIVE_BYTES` or more
    bytes lead somewhere in it (its class trie would be most of the byte trie)."""
    live = (table.columns != DEAD).any(axis=0)
    if np.count_nonzero(live[table.classes]) >= FORMAT_TRIE_LIVE_BYTES:
        return None
    return ("format-trie", table.classes.tobytes(), live.tobytes())


def _prepare_format_trie(trie: VocabTrie, table: FormatTable) -> None:
    """Build and keep the `FormatTrie` of `table` over `trie` (if it gets one: `_trie_key`)."""
    key = _trie_key(table)
    if key is None:
        return

    def build() -> tuple[FormatTrie]:
        live = np.frombuffer(key[2], dtype=bool)
        classes, merged = merged_classes(trie, table.classes, live)
        token_nodes = classes.token_node.take(classes.token_ids)
        quote_nodes = merged.take(quote_suffixes(trie).quote_node)
        labels = table.classes.astype(np.uint8).take(classes.byte)
        for array in (token_nodes, quote_nodes, labels):
            array.setflags(write=False)
        classes.python_view()  # (what `codes_from` reads its deep levels through: built now, once)
        return (FormatTrie(classes, classes.token_ids, token_nodes, quote_nodes, labels),)
    kept_on(trie, key, build)


def prepare_formats(trie: VocabTrie) -> None:
    """Build the `format_trie` of every format of `PREPARED_FORMATS`, and for every shipped format
    the tables of its states within `PREPARED_DEPTH` bytes of its start (the states every string
    of the format begins in: 0.5-1.5 ms each on first use otherwise): `leaf_tables` of the wide
    ones (of a prepared format), `leaf_exits` of the others. A `brzozowski.vocabulary.Vocabulary`
    calls it (~80 ms over o200k_base)."""
    for name in FORMAT_PATTERNS:
        atom = format_leaf(name)
        if atom is None:
            continue
        automaton = atom.table
        prepared = name in PREPARED_FORMATS
        if prepared:
            _prepare_format_trie(trie, automaton.dfa)
        for q, wide in _first_states(automaton.dfa):
            if not wide:
                leaf_exits(trie, automaton, q)
            elif prepared:
                leaf_tables(trie, automaton, q)


def _first_states(table: FormatTable) -> list[tuple[int, bool]]:
    """The states of `table` within `PREPARED_DEPTH` bytes of its start, each with whether its
    first bytes are at least `WIDE_LEAF_BYTES` (the states `leaf_tables` serves)."""
    firsts = (table.columns != DEAD)[:, table.classes].sum(axis=1)
    level, seen, found = [table.start], {table.start}, []
    for _ in range(PREPARED_DEPTH):
        below = []
        for state in level:
            for target in table.columns[state].tolist():
                if target != DEAD and target not in seen:
                    seen.add(target)
                    below.append(target)
        found += [(state, bool(firsts[state] >= WIDE_LEAF_BYTES)) for state in below]
        level = below
    return found


class LeafExits(NamedTuple):
    """What the tokens of a vocabulary do in one leaf state (see the module docstring)."""

    inside: np.ndarray
    """The tokens the leaf reads whole without dying (ids, ascending)."""
    accepts: bool
    """Whether the state itself accepts (an exit before any byte)."""
    exit_tokens: np.ndarray
    """Every (token, offset) where the leaf, reading the token, is in an accepting state after
    ``offset`` bytes (0 < offset < its length): the tokens, ..."""
    exit_offsets: np.ndarray
    """... the offsets, ..."""
    exit_bytes: np.ndarray
    """... the byte after each (the first of the rest T must read), ..."""
    exit_rests: np.ndarray | None
    """... and, if the leaf ends only where its string closes (so every exit is just past a
    quote), each rest as a node of the vocabulary's `quote_suffixes` (whose liveness from T is kept
    per T); else None."""


def leaf_exits(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> LeafExits:
    """`LeafExits` of leaf state q, per vocabulary (built on first use, kept in the bounded cache
    of `leaf_tables`): a walk of the live nodes only (a date's state has a few hundred), then of
    everything below the live nodes that accept (the tokens that leave the leaf there)."""
    def build() -> LeafExits:
        with automaton.lock:  # (the automaton's transition table is shared, and grows)
            return _exits(trie, automaton, q)
    return _cached(trie, ("exits", automaton.id, q), build)


def _exits(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> LeafExits:
    """`leaf_exits`, built (the caller holds the automaton's lock)."""
    table = automaton.codes_table()
    classes = table.classes if isinstance(table, ClassTable) else None  # (few nodes: no labels kept)
    nodes, codes = np.zeros(1, dtype=np.intp), np.full(1, table.code(q), dtype=np.int32)
    live: list[np.ndarray] = []  # per level below the root: its live nodes, ...
    live_codes: list[np.ndarray] = []  # ... and their codes
    while len(nodes):
        children, counts = trie.children_of(nodes)
        parent_codes = np.repeat(codes, counts)
        labels = trie.byte[children] if classes is None else classes.take(trie.byte[children])
        found = table.ensure(parent_codes).take(parent_codes + labels)
        alive = found != 0
        nodes, codes = children[alive], found[alive]
        live.append(nodes)
        live_codes.append(codes)
    accepting = automaton.accepting_codes()  # per code >> shift: the state accepts
    inside = np.sort(trie.tokens_at(np.concatenate(live))[0])
    ending = [level[accepting[level_codes >> table.shift]] for level, level_codes in zip(live, live_codes)]
    closing = np.concatenate(ending)  # the live nodes where the leaf may end
    if automaton.closes_once() and (trie.byte[closing] == 0x22).all():
        exits = _exits_past_quotes(trie, inside, closing)  # a string closing: every exit past a quote
    else:
        exits = _exits_below(trie, inside, bool(automaton.dfa.is_accepting(q)), ending)
    for array in exits:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)
    return exits


def _exits_past_quotes(trie: VocabTrie, inside: np.ndarray, closing: np.ndarray) -> LeafExits:
    """The exits of a state whose leaf ends only where its string closes (`closing`: the live
    nodes just past a closing quote): the tokens that go on past such a quote, read off the
    vocabulary's `quote_suffixes` with their rests (no walk below the closing nodes)."""
    quotes = quote_suffixes(trie)
    past = np.isin(quotes.quote_node, closing) & (quotes.quote_rest != 0)
    tokens, rests = quotes.quote_token[past], quotes.quote_rest[past]
    offsets = np.searchsorted(trie.level_start, quotes.quote_node[past], side="right") - 1
    data = trie.tokens
    after = np.array([data[t][d] for t, d in zip(tokens.tolist(), offsets.tolist())], dtype=np.intp)
    return LeafExits(inside, False, tokens, offsets, after, rests)


def _exits_below(trie: VocabTrie, inside: np.ndarray, accepts: bool, ending: list[np.ndarray]) -> LeafExits:
    """The exits of a state: every token below a live node where the leaf may end (`ending`, per
    level from 1), by a walk of those nodes' subtrees."""
    tokens, offsets, after = [], [], []
    for depth, below in enumerate(ending, start=1):
        children, counts = trie.children_of(below)
        first = trie.byte[children]  # the byte after the exit, carried down
        while len(children):
            found, counts = trie.tokens_at(children)
            tokens.append(found)
            after.append(np.repeat(first, counts))
            offsets.append(np.full(len(found), depth, dtype=np.intp))
            grand, counts = trie.children_of(children)
            children, first = grand, np.repeat(first, counts)
    return LeafExits(inside, accepts, *(np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.intp)
                                        for arrays in (tokens, offsets, after)), None)


def _labels(trie: VocabTrie, automaton: LeafAutomaton, table: TransitionTable | ClassTable) -> np.ndarray:
    """What each node of the trie adds to its parent's code in `table`: its byte, or (over a
    `ClassTable`) its byte's class, per vocabulary and automaton (kept in the leaf-table cache)."""
    if not isinstance(table, ClassTable):
        return trie.byte
    return _cached(trie, ("labels", automaton.id),
                   lambda: table.classes.astype(np.uint8).take(trie.byte))
