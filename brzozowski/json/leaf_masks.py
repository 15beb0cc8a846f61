"""Masks of states inside a leaf (`brzozowski.automata.leaves`): per-vocabulary tables of the leaf's states.

A state inside a leaf is a term ``ℓ·T``: the atom of leaf state q, then what follows the leaf's
value T. What a token does inside the leaf depends on the vocabulary and q alone, so it is
computed once per vocabulary and leaf state and shared by every schema that holds the leaf; only
what follows the leaf depends on the schema. Two shapes:

- **Quoted** (a format's strings, `leaf_tables`): the leaf's words end at its closing quote, after
  which its language is {ε}. The `brzozowski.json.string_masks.StringTables` of q then say which tokens
  stay inside and which go past the quote, with their rests: exactly the claim of
  `brzozowski.json.string_masks` for S, with the leaf in S's place. Served for *wide* states (a URI's,
  a hostname's characters: tens of thousands of tokens), where a walk is milliseconds.
- **Exits** (the narrow states of quoted leaves: a date's, an IPv4 address's, a UUID's; any leaf,
  even one that may end before its last byte as a number does, `leaf_exits`): a token t is
  allowed in ``ℓ·T`` iff the leaf reads all of t from q without dying (``inside``), or reads a
  prefix p of t into an accepting state (an *exit*) and T reads the rest. With p empty (q
  accepts) those are the tokens T allows that begin with a byte the leaf cannot take (then
  ``∂t(ℓ·T) = ∂t T``: a walk from T, kept per T); every other exit is listed per vocabulary (a
  token, where it leaves, the byte after), and read against T's first bytes, then T itself. A
  format's leaf ends only where its string closes, so its exits are the tokens that go on past a
  closing quote: their rests are read from T as a string's are (`brzozowski.json.masks.past.PastTheQuote.live_rests`, kept
  per T), no derivative per token. The integers and numbers without keywords are leaves too
  (`brzozowski.json.leaf_terms`): their exits, prepared with the vocabulary, replace a walk of the
  ~1,100 digit tokens. So are bounded integers, each bound its own table
  (`brzozowski.json.numbers.integer_table`): a table that reads only a minus sign and digits
  gets the exits of a state in a mask step, read off the vocabulary's `numerals` (the tokens
  that begin with such a byte, as a trie of their digits read through the table a level at a
  time, rather than a walk of every digit token from the state before an integer's first digit).

Where the vocabulary prepared one (`prepare_leaves`, with every `brzozowski.vocab.vocabulary.Vocabulary`),
the tables walk a *format trie* (`FormatTrie`): the class trie of the format's byte classes with
the bytes that lead nowhere left out, 4-24k nodes instead of o200k_base's 422k (one per common
format with wide states, one shared by the formats without), its deepest levels in plain Python.
The vocabulary also builds the tables of every format's states within two bytes of its start.

Both are exact (the brute-force tests hold): the tables are the automaton read on the byte trie,
or on a class trie whose classes refine the automaton's (a class trie's node stands for tokens
that every state of the automaton reads alike).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..core.alphabet import DEAD
from ..automata.codes import ClassTable, TransitionTable
from ..automata.dfa import explore
from ..masks.tokenset import packed_ids
from ..masks.tuning import DEFAULT_TUNING, Tuning
from ..vocab.vocabulary import TokenTrie, merged_classes, token_trie
from .format_tables import FormatTable, format_dfa, format_leaf
from .formats import FORMAT_PATTERNS
from .string_masks import StringTables, codes_from, kept_in_cache, kept_on, quote_suffixes, tables_from_codes

if TYPE_CHECKING:
    from ..automata.leaves import LeafAutomaton
    from ..vocab.vocabulary import VocabTrie

__all__ = [
    "NARROW_FORMATS", "NUMERAL_BITS", "PREPARED_FORMATS", "FormatTrie", "LeafExits", "Numerals", "format_trie", "leaf_exits",
    "leaf_inside_bits", "leaf_tables", "numeral_leaf", "numerals", "prepare_leaves",
]

PREPARED_FORMATS = ("email", "hostname", "uri", "uri-reference")
"""The formats whose class trie (`format_trie`) a `brzozowski.vocab.vocabulary.Vocabulary` builds
(`prepare_leaves`): those with wide states met most often (hundreds of an e-mail address's and a
hostname's; a URI's, a URI reference's). Another format's wide states walk the byte trie."""

NARROW_FORMATS = ("date", "date-time", "duration", "ipv4", "ipv6", "time", "uuid")
"""The formats without a wide state, which share one class trie prepared with the vocabulary
(their exits walk it: a UUID's hex digits are one class there, a few nodes a level)."""

def _cached(trie: VocabTrie, key: tuple, build):
    """``build()`` kept in the vocabulary's bounded cache of leaf tables under `key`."""
    return kept_in_cache(trie, "leaf-tables", DEFAULT_TUNING.leaf_table_bytes, key, build, _nbytes)


def _nbytes(value: object) -> int:
    """The memory a cached value holds (its arrays'; at least 1)."""
    arrays = value if isinstance(value, tuple) else (value,)
    return max(1, sum(a.nbytes for a in arrays if isinstance(a, np.ndarray)))


def leaf_tables(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> StringTables | None:
    """`StringTables` of state q of a leaf automaton whose language closes like a JSON string's
    (every word ends at the one state whose language is {ε}, which nothing follows), per
    vocabulary (on first use, over the format's `format_trie` if prepared, else over the byte
    trie); None if one of the automaton's states accepts and is not that one (a
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
                codes = codes_from(classes.trie, table, q, _labels(trie, automaton, table, classes.trie))
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
    """The class trie of formats' tables over a vocabulary (`brzozowski.vocab.vocabulary.class_trie`
    over a partition that refines their byte classes, with the quote alone in its class and the
    bytes that lead nowhere left out): what `leaf_tables` and `leaf_exits` walk instead of the
    byte trie (a URI's 24k nodes, a hostname's 15k, the narrow formats' together 3.6k, of
    o200k_base's 422k)."""

    trie: TokenTrie
    token_ids: np.ndarray
    """The tokens whose bytes all lead somewhere from some state (the others never live), ..."""
    token_nodes: np.ndarray
    """... their nodes, ..."""
    quote_nodes: np.ndarray
    """... and the node past each quote of the vocabulary's `quote_suffixes` (its ``quote_node``
    merged)."""


def format_trie(trie: VocabTrie, automaton: LeafAutomaton) -> FormatTrie | None:
    """The `FormatTrie` of a format's table, if the vocabulary prepared one (`prepare_leaves`);
    else None: a lazy automaton's states, or another format's, walk the byte trie (building a
    class trie would hold up the mask step that first needs it)."""
    partition = _partition(automaton) if automaton.name in FORMAT_PATTERNS else None
    found = None if partition is None else trie.tables.get(partition[0])
    return None if found is None else found[0]


@lru_cache(maxsize=None)
def _partition(automaton: LeafAutomaton) -> tuple[tuple, np.ndarray, np.ndarray] | None:
    """(where a vocabulary keeps the `FormatTrie` that serves a format, each byte's class there,
    the classes that lead somewhere): one trie for all `NARROW_FORMATS` (over their partitions'
    meet), one per byte partition and live bytes for another format's table (a URI's serves an
    IRI's); None for a lazy automaton, or a table that ``Tuning.format_trie_live_bytes`` or more bytes lead
    somewhere in (its class trie would be most of the byte trie). Formats only: the cache keeps
    every automaton it is given."""
    if not isinstance(automaton.dfa, FormatTable):
        return None
    names = NARROW_FORMATS if automaton.name in NARROW_FORMATS else (automaton.name,)
    tables = [format_dfa(name) for name in names]
    live_bytes = np.zeros(256, dtype=bool)
    for table in tables:
        live_bytes |= (table.columns != DEAD).any(axis=0)[table.classes]
    if np.count_nonzero(live_bytes) >= DEFAULT_TUNING.format_trie_live_bytes:
        return None
    signatures = [(b == 0x22, *(int(table.classes[b]) for table in tables)) for b in range(256)]
    numbers: dict[tuple, int] = {}
    classes = np.array([numbers.setdefault(signature, len(numbers)) for signature in signatures])
    live = np.zeros(len(numbers), dtype=bool)
    live[classes[live_bytes]] = True
    return ("format-trie", classes.tobytes(), live.tobytes()), classes, live


def _prepare_format_trie(trie: VocabTrie, automaton: LeafAutomaton) -> None:
    """Build and keep the `FormatTrie` that serves `automaton` over `trie` (if one does)."""
    partition = _partition(automaton)
    if partition is None:
        return
    key, class_of_byte, live = partition

    def build() -> tuple[FormatTrie]:
        classes, merged = merged_classes(trie, class_of_byte, live)
        token_nodes = classes.token_node.take(classes.token_ids)
        quote_nodes = merged.take(quote_suffixes(trie).quote_node)
        for array in (token_nodes, quote_nodes):
            array.setflags(write=False)
        classes.python_view()  # (what `codes_from` reads its deep levels through: built now, once)
        return (FormatTrie(classes, classes.token_ids, token_nodes, quote_nodes),)
    kept_on(trie, key, build)


def prepare_leaves(trie: VocabTrie, tuning: Tuning = DEFAULT_TUNING) -> None:
    """Build the `format_trie` of every format of `PREPARED_FORMATS` and the one `NARROW_FORMATS`
    share, and for every shipped format the tables of its states within ``Tuning.prepared_depth`` bytes of
    its start (the states every string of the format begins in, which a first mask would otherwise
    wait for): `leaf_tables` of the wide ones (of a prepared format), `leaf_exits` of the others;
    the `leaf_exits` of every state of a narrow format up to ``Tuning.prepared_narrow_states`` states (a
    vocabulary of ``Tuning.prepared_narrow_tokens`` tokens or more); and
    those of every state of the plain integers' and numbers' leaves; and the
    vocabulary's `numerals`, which bounded integers' exits read. A
    `brzozowski.vocab.vocabulary.Vocabulary` calls it (the JSON preparer, `brzozowski.json.masks`)."""
    for name in FORMAT_PATTERNS:
        atom = format_leaf(name)
        if atom is None:
            continue
        automaton = atom.table
        prepared = name in PREPARED_FORMATS or name in NARROW_FORMATS
        if prepared:
            _prepare_format_trie(trie, automaton)
        every = (name in NARROW_FORMATS and automaton.dfa.n_states <= tuning.prepared_narrow_states
                 and trie.vocab_size >= tuning.prepared_narrow_tokens)
        states = [(q, False) for q in range(automaton.dfa.n_states)] if every else _first_states(automaton.dfa)
        for q, wide in states:
            if not wide:
                leaf_exits(trie, automaton, q)
            elif prepared:
                leaf_tables(trie, automaton, q)
    numerals(trie)
    from .leaf_terms import json_integer_term, json_number_term  # (it imports the compiler's modules)
    for atom in (json_integer_term(), json_number_term()):
        accepting, _ = explore(atom.table.dfa)  # (its ~10 states, each numbered)
        for q in range(len(accepting)):
            leaf_exits(trie, atom.table, q)


def _first_states(table: FormatTable) -> list[tuple[int, bool]]:
    """The states of `table` within ``Tuning.prepared_depth`` bytes of its start, each with whether its
    first bytes are at least ``Tuning.wide_leaf_bytes`` (the states `leaf_tables` serves)."""
    firsts = (table.columns != DEAD)[:, table.classes].sum(axis=1)
    level, seen, found = [table.start], {table.start}, []
    for _ in range(DEFAULT_TUNING.prepared_depth):
        below = []
        for state in level:
            for target in table.columns[state].tolist():
                if target != DEAD and target not in seen:
                    seen.add(target)
                    below.append(target)
        found += [(state, bool(firsts[state] >= DEFAULT_TUNING.wide_leaf_bytes)) for state in below]
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
    ``offset`` bytes (0 < offset < its length) — for a table that reads only `NUMERAL_BITS`, those
    where the byte after is not one of them (`numeral_leaf`): the tokens, ..."""
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
    def build() -> tuple:
        with automaton.lock:  # (the automaton's transition table is shared, and grows)
            return tuple(_exits(trie, automaton, q))
    # kept as a plain tuple of arrays, which the garbage collector stops tracking (a `LeafExits`
    # is tracked for good: a vocabulary keeps a thousand, ``Tuning.prepared_narrow_states``)
    return LeafExits._make(_cached(trie, ("exits", automaton.id, q), build))


def leaf_inside_bits(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> np.ndarray:
    """The bitmask (`brzozowski.masks.tokenset.packed`) of the tokens leaf state q reads whole (its
    `leaf_exits`' ``inside``), kept in the bounded cache of `leaf_tables`: a mask step of a state
    whose leaf reads many (a number's first digits: ~1,100 over o200k_base) copies it, not a bool
    array over the vocabulary made and packed each time (shared by every schema that holds the leaf)."""
    def build() -> np.ndarray:
        return packed_ids(leaf_exits(trie, automaton, q).inside, trie.vocab_size)
    return _cached(trie, ("inside-bits", automaton.id, q), build)


def _exits(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> LeafExits:
    """`leaf_exits`, built (the caller holds the automaton's lock): off the vocabulary's `numerals`
    for a table that reads only their bytes, else walked (`_walked_exits`)."""
    if numeral_leaf(automaton):
        return _numeral_exits(trie, automaton.dfa, q)
    return _walked_exits(trie, automaton, q)


def _walked_exits(trie: VocabTrie, automaton: LeafAutomaton, q: int) -> LeafExits:
    """`leaf_exits` by a walk: over the format's class trie if the vocabulary prepared one and the
    leaf ends only where its string closes, else over the byte trie."""
    classes = format_trie(trie, automaton)
    if classes is not None:
        labels = _labels(trie, automaton, automaton.codes_table(), classes.trie)
        live, ending = _live_levels(classes.trie, automaton, q, labels)
        closing = np.concatenate(ending)
        if _closes_on_quotes(classes.trie, automaton, closing):
            return _exits_past_quotes(trie, _tokens_at(classes.trie, live), closing, classes.trie,
                                      classes.quote_nodes)
    table = automaton.codes_table()
    if isinstance(table, ClassTable):  # (few nodes: no labels kept for the whole byte trie)
        live, ending = _live_levels(trie, automaton, q, None, table.classes)
    else:
        live, ending = _live_levels(trie, automaton, q, trie.byte)
    closing = np.concatenate(ending)
    if _closes_on_quotes(trie, automaton, closing):
        return _exits_past_quotes(trie, _tokens_at(trie, live), closing, trie, quote_suffixes(trie).quote_node)
    return _exits_below(trie, _tokens_at(trie, live), bool(automaton.dfa.is_accepting(q)), ending)


NUMERAL_BITS = sum(1 << b for b in b"-0123456789")
"""The bytes of an integer's text: a leaf that reads no other (an integer range's table,
`brzozowski.json.numbers.integer_table`) has its exits read off the vocabulary's `numerals`."""


class Numerals(NamedTuple):
    """The tokens of a vocabulary that begin with a byte of `NUMERAL_BITS` (the only ones that
    live in a leaf reading no other byte), read as the trie of their *rows*: each token's bytes
    up to and including its first byte outside `NUMERAL_BITS` (~1,300 nodes over o200k_base,
    where ~3,300 tokens share their first digits) ..."""

    starts: np.ndarray
    """... level by level (nodes numbered breadth first, the root 0): where each level's nodes
    start (and the last ends; an array, as every field: a tuple inside would keep the table
    tracked by the garbage collector), ..."""
    parents: np.ndarray
    """... each node's parent and ..."""
    labels: np.ndarray
    """... byte; ..."""
    tokens: np.ndarray
    """... the tokens' ids (ascending) and ..."""
    nodes: np.ndarray
    """... where each one's row ends; the tokens whose row leaves its numeral prefix (a byte
    outside `NUMERAL_BITS` ends it) ..."""
    leaving_tokens: np.ndarray
    """... (their ids), ..."""
    leaving_parents: np.ndarray
    """... the node of their numeral prefix, ..."""
    leaving_offsets: np.ndarray
    """... its length, ..."""
    leaving_bytes: np.ndarray
    """... and the byte after it."""


def numerals(trie: VocabTrie) -> Numerals:
    """The vocabulary's `Numerals` (built once, with the vocabulary: `prepare_leaves`)."""
    return Numerals._make(kept_on(trie, ("numerals",), lambda: tuple(_numerals(trie))))


def numeral_leaf(automaton: LeafAutomaton) -> bool:
    """Whether `automaton` is a table that reads only `NUMERAL_BITS` (its exits are `_numeral_exits`)."""
    return automaton.live_bytes is not None and not automaton.live_bytes & ~NUMERAL_BITS


def _numerals(trie: VocabTrie) -> Numerals:
    ids = [t for t, data in enumerate(trie.tokens) if data and (NUMERAL_BITS >> data[0]) & 1]
    rows = [data[:next((i for i, b in enumerate(data) if not (NUMERAL_BITS >> b) & 1), len(data) - 1) + 1]
            for data in (trie.tokens[t] for t in ids)]
    tree = token_trie(rows)
    leaving = np.array([not (NUMERAL_BITS >> row[-1]) & 1 for row in rows], dtype=bool)
    nodes = tree.token_node.copy()
    tokens = np.array(ids, dtype=np.intp)
    found = Numerals(tree.level_start, tree.parent, tree.byte, tokens, nodes, tokens[leaving],
                     tree.parent[nodes[leaving]],
                     np.array([len(row) - 1 for row in rows], dtype=np.intp)[leaving],
                     np.array([row[-1] for row in rows], dtype=np.intp)[leaving])
    for array in found[3:]:  # (the trie's own arrays are read-only already)
        array.setflags(write=False)
    return found


def _numeral_exits(trie: VocabTrie, table: FormatTable, q: int) -> LeafExits:
    """`leaf_exits` of state q of a table that reads only `NUMERAL_BITS`: the table's state at
    every node of the vocabulary's `numerals` trie, one level at a time (each level's nodes at
    once, until one has no live node): the tokens that end at a live node stay inside, and a
    token whose numeral prefix ends at a node that accepts leaves there. Its exits are those where
    the byte after is not a numeral's (a token that leaves after a digit for another digit is no
    exit): what follows such a leaf in a mask begins with none (`numeral_leaf`)."""
    found = numerals(trie)
    n_classes = table.columns.shape[1]
    # state s coded (s + 1) * n_classes, DEAD 0: a code plus a byte's class indexes the next code
    coded = np.zeros((len(table.columns) + 1, n_classes), dtype=np.intp)
    coded[1:] = (table.columns + 1) * n_classes
    coded = coded.ravel()
    node_classes = table.classes.take(found.labels)
    starts = found.starts.tolist()
    state = np.zeros(starts[-1], dtype=np.intp)  # per node, coded (a byte outside the table's: DEAD)
    state[0] = (q + 1) * n_classes
    for d in range(1, len(starts) - 1):
        lo, hi = starts[d], starts[d + 1]
        above = state.take(found.parents[lo:hi])
        if not above.any():
            break
        state[lo:hi] = coded.take(above + node_classes[lo:hi])
    accepting = np.concatenate(([False], table.accept))
    out = np.flatnonzero(accepting.take(state.take(found.leaving_parents) // n_classes))
    return _frozen(LeafExits(found.tokens[state.take(found.nodes) != 0], bool(table.accept[q]),
                             found.leaving_tokens.take(out), found.leaving_offsets.take(out),
                             found.leaving_bytes.take(out), None))


def _live_levels(walk: TokenTrie, automaton: LeafAutomaton, q: int, labels: np.ndarray | None,
                 byte_classes: np.ndarray | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The nodes of `walk` that live from leaf state q, per level below the root, and among them
    those where the leaf may end (its state accepts). `labels`: what each node adds to its
    parent's code (else its byte's class in `byte_classes`, read per level)."""
    table = automaton.codes_table()
    nodes, codes = np.zeros(1, dtype=np.intp), np.full(1, table.code(q), dtype=np.int32)
    live: list[np.ndarray] = []
    ending: list[np.ndarray] = []
    while len(nodes):
        children, counts = walk.children_of(nodes)
        added = labels[children] if labels is not None else byte_classes.take(walk.byte[children])
        found = table.gather(np.repeat(codes, counts) + added)
        alive = found != 0
        nodes, codes = children[alive], found[alive]
        live.append(nodes)
        ending.append(nodes[automaton.accepting_codes()[codes >> table.shift]])  # (states numbered now)
    return live, ending


def _tokens_at(walk: TokenTrie, levels: list[np.ndarray]) -> np.ndarray:
    """The tokens ending at the nodes of `levels` (ids, ascending)."""
    return np.sort(walk.tokens_at(np.concatenate(levels))[0])


def _closes_on_quotes(walk: TokenTrie, automaton: LeafAutomaton, closing: np.ndarray) -> bool:
    """Whether the leaf ends only where its string closes: every word ends at its one state with
    the language {ε}, and the `closing` nodes where it ends are just past a quote."""
    return automaton.closes_once() and bool((walk.byte[closing] == 0x22).all())


def _exits_past_quotes(trie: VocabTrie, inside: np.ndarray, closing: np.ndarray, walk: TokenTrie,
                       quote_nodes: np.ndarray) -> LeafExits:
    """The exits of a state whose leaf ends only where its string closes (`closing`: the live
    nodes of `walk` just past a closing quote; `quote_nodes`: the node of `walk` past each quote
    of the vocabulary's `quote_suffixes`): the tokens that go on past such a quote, read off
    `quote_suffixes` with their rests (no walk below the closing nodes)."""
    quotes = quote_suffixes(trie)
    past = np.isin(quote_nodes, closing) & (quotes.quote_rest != 0)
    tokens, rests = quotes.quote_token[past], quotes.quote_rest[past]
    offsets = np.searchsorted(walk.level_start, quote_nodes[past], side="right") - 1
    data = trie.tokens
    after = np.array([data[t][d] for t, d in zip(tokens.tolist(), offsets.tolist())], dtype=np.intp)
    return _frozen(LeafExits(inside, False, tokens, offsets, after, rests))


def _frozen(exits: LeafExits) -> LeafExits:
    for array in exits:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)
    return exits


def _exits_below(trie: VocabTrie, inside: np.ndarray, accepts: bool, ending: list[np.ndarray]) -> LeafExits:
    """The exits of a state of a leaf that may end before its string closes (or has no string:
    a number), from the live nodes of the byte trie where it may end (`ending`, per level from
    1): every token below them, by a walk of their subtrees."""
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
    exit_tokens, exit_offsets, exit_bytes = (np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.intp)
                                             for arrays in (tokens, offsets, after))
    return _frozen(LeafExits(inside, accepts, exit_tokens, exit_offsets, exit_bytes, None))


def _labels(trie: VocabTrie, automaton: LeafAutomaton, table: TransitionTable | ClassTable,
            walk: TokenTrie | None = None) -> np.ndarray:
    """What each node of `walk` (the byte trie, the default, or a format's class trie, whose
    partition refines the format's) adds to its parent's code in `table`: its byte, or (over a
    `ClassTable`) its byte's class, per vocabulary, automaton and trie (kept in the leaf-table
    cache)."""
    walk = trie if walk is None else walk
    if not isinstance(table, ClassTable):
        return walk.byte
    return _cached(trie, ("labels", automaton.id, walk is trie),
                   lambda: table.classes.astype(np.uint8).take(walk.byte))
