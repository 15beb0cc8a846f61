"""Masks of states inside JSON strings: per-vocabulary tables and a verified recognition.

Inside a JSON string almost the whole vocabulary is allowed, so a trie walk from such a state visits
nearly every node. But the interior of a string is the same small
automaton S in every schema: the interior of `brzozowski.json.strict.STRING` (well-formed UTF-8, no raw
control byte, complete escapes), 20 states (the body; a UTF-8 sequence or an escape pending), and a
closing quote after which S stops. What a token does inside the string depends on the vocabulary and
the S-state alone; only what follows the closing quote depends on the schema.

Claim. If an automaton state x *behaves as* S-state r with after-state q, that is: for every byte
string w, reading w from x is DEAD exactly when S dies on w before closing, and ``δ*(x, p) = q``
when S closes exactly at the end of w's prefix p, then for every token t

    mask_x[t] = (S reads all of t from r without dying or closing)
                or (S closes on t's prefix p and ``δ*(q, t[len(p):]) ≠ DEAD``).

The first half is a per-vocabulary table (`string_tables`: ``inside``); the second reads the few
hundred to thousand tokens that reach past the end of the string (those below the ``closing`` nodes
of the byte trie, where S has just read the closing quote) by what they hold after the quote: the
rests after a quote form one small per-vocabulary trie (`quote_suffixes`, 810 nodes over
o200k_base), walked once from q, and each such token is kept iff its rest is live from q. Every
state of every schema that behaves as r shares the tables.

Recognition is checked, never assumed. `recognize` walks S and the automaton in step from
(body, x): for each pair (r, y) every byte must go where S says: to DEAD where S dies, to one common
q where S closes (for every pair), and to a live automaton state y' where S goes to r' (a pair
(r', y'), checked in turn; each automaton state is paired with one S-state only). When the pairs
close without a contradiction the behaviour above follows by induction on the length of w. A
string with a pattern, a length bound or an enum of its own contradicts it somewhere and is walked
the ordinary way; a union of a plain string with an enum of strings does not (its enum prefixes
pair with S's body).

**Recognition by term; length bounds.** In a lazy automaton, a state inside a string as
`brzozowski.json.strings.string_term` writes it is recognized by its *term* instead
(`recognize_counted`): a character maybe begun (S-state r), then ``ANY_CHAR{lo,hi}`` (or
``ANY_CHAR*``: lo = 0, no hi), the closing quote, and what follows (the after-state q, held as its
term by the walk past the quote): no automaton state inside the string, or after it, is created
or checked. With n(t) the characters S begins while reading t from r
(`count_tables`; a begun character was counted when it began):

    mask_x[t] = (S reads all of t from r without dying or closing, and n(t) ≤ hi)
                or (S closes on t's prefix p, lo ≤ n(p) ≤ hi, and ``δ*(q, t[len(p):]) ≠ DEAD``).

Exploring the automaton instead would create a state per (count, S-state) that a token reaches:
one per character count and S-state a token reaches, all on one mask step.

**Plain keys.** The other keys of an open object beside listed names are plain ASCII without
escapes (``[ !#-\\[\\]-~]*"``): `key_tables` are the same two tables for that one-state automaton,
which `brzozowski.masks.index.TokenIndex` uses for states at and inside such a key.

>>> from brzozowski.automata.dfa import regex_to_dfa
>>> dfa = regex_to_dfa('\\\\{"a":' + STRING + '\\\\}')
>>> body = dfa.step(dfa.start, b'{"a":"')
>>> paired, after = recognize(dfa.row, body)
>>> len(paired), after == dfa.step(body, b'"')
(20, True)
>>> recognize(dfa.row, dfa.start) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..core.alphabet import DEAD
from ..automata.codes import ClassTable, TransitionTable
from ..core.derivatives import derivative, keep_derivatives
from ..automata.dfa import regex_to_dfa
from .strings import ANY_CHAR, PLAIN_KEY_BITS
from .strict import STRING
from ..core.terms import EMPTY, EPSILON, K_CONCAT, K_REPEAT, K_STAR, Term, byte, concat
from ..masks.cache import BoundedCache
from ..masks.tokenset import packed, packed_ids, set_bits
from ..masks.tuning import DEFAULT_TUNING, Tuning
from ..vocab.vocabulary import VocabTrie

if TYPE_CHECKING:
    from ..vocab.vocabulary import TokenTrie

__all__ = ["NEVER_ENDS", "PLAIN_KEY_BYTES", "CharsToEnd", "QuoteSuffixes", "StringAutomaton", "StringTables",
           "build_all_tables", "chars_to_end", "codes_from", "count_bound_bits", "count_order", "count_tables",
           "key_tables", "kept_in_cache", "kept_on", "over_bound", "packed", "packed_ids", "quote_suffixes",
           "recognize", "recognize_counted", "rest_of_character", "set_bits", "string_automaton", "string_tables",
           "tables_from_codes"]


class StringAutomaton:
    """S: the interior of a JSON string as a DFA (``trans``, DEAD = -1), with the state before the
    opening quote (``opening``), its body state, the state after the closing quote (``closed``:
    accepting, every byte DEAD), its interior states, and per interior state the byte groups
    `recognize` checks."""

    def __init__(self) -> None:
        dfa = regex_to_dfa(STRING)
        self.trans = dfa.trans
        self.opening = dfa.start
        self.body = dfa.step(dfa.start, b'"')
        self.closed = dfa.step(self.body, b'"')
        assert dfa.is_accepting(self.closed) and (dfa.row(self.closed) == DEAD).all()
        interior, queue = {self.body}, [self.body]
        while queue:
            for target in set(dfa.row(queue.pop()).tolist()) - {DEAD, self.closed}:
                if target not in interior:
                    interior.add(target)
                    queue.append(target)
        self.interior = sorted(interior)
        # Per interior state: the bytes that die, the bytes that close, and per successor its bytes.
        self.groups: dict[int, tuple[np.ndarray, np.ndarray, list[tuple[int, np.ndarray]]]] = {}
        for r in self.interior:
            row = self.trans[r]
            successors = [(int(t), np.flatnonzero(row == t)) for t in np.unique(row)
                          if t not in (DEAD, self.closed)]
            successors.sort(key=lambda pair: pair[0] == self.body)  # the body last: see recognize
            self.groups[r] = (np.flatnonzero(row == DEAD), np.flatnonzero(row == self.closed),
                              successors)


@lru_cache(maxsize=1)
def string_automaton() -> StringAutomaton:
    """The one `StringAutomaton` (built on first use)."""
    return StringAutomaton()


def recognize(row: Callable[[int], np.ndarray], state: int, max_paired: int = DEFAULT_TUNING.max_paired,
              quote: Callable[[int], int] | None = None) -> tuple[dict[int, int], int] | None:
    """If automaton `state` behaves as S's body (see the module docstring): the automaton states
    found on the way, each with the S-state it behaves as, and the after-state q; else None.

    Several automaton states may behave as one S-state (in a union of a string with an enum of
    strings, the state after ``"ki`` and the plain string's body both do): the walk pairs each
    automaton state it reaches with the S-state S reaches by the same bytes, and checks every pair.
    `row(y)` gives the automaton's 256 transitions of state y (DEAD = -1). It gives up (None)
    past `max_paired` pairs: every state paired is a state created, and a string with a length
    bound pairs a new state with S's body at every character until the bound contradicts S (the
    walk goes depth first, the body's successor first, to meet that contradiction soon).
    `quote(y)`, if given, is y's transition by the quote alone: a state paired with the body is
    checked by it as soon as it is met, before any row of it (the keys of an object whose values
    differ by key part ways there, and most of those rows would be derived for nothing).
    """
    s = string_automaton()
    paired, queue, after = {state: s.body}, [state], None
    while queue:
        y = queue.pop()
        r = paired[y]
        targets = row(y)
        dead, closing, successors = s.groups[r]
        if (targets[dead] != DEAD).any():
            return None
        if closing.size:  # only the body closes, on `"` alone
            closed = int(targets[closing[0]])
            if after is not None and closed != after:
                return None
            after = closed
        for successor, group in successors:
            for target in np.unique(targets[group]).tolist():
                known = paired.get(target)
                if known is None:
                    if target == DEAD or len(paired) >= max_paired:
                        return None
                    if quote is not None and successor == s.body and quote(target) != after:
                        return None
                    paired[target] = successor
                    queue.append(target)
                elif known != successor:
                    return None
    assert after is not None  # the body closes on `"`
    return paired, after


_QUOTE = byte(ord('"'))
_LONGEST_CHARACTER = 12  # bytes of the longest spelling of one character: a surrogate pair's escapes


@lru_cache(maxsize=1)
def _partial_characters() -> dict[Term, int]:
    """Each derivative of `ANY_CHAR` by the bytes of a character begun but not finished, with the
    S-state S is in after the same bytes; empty if the two ever disagree (then no counted string is
    recognized). `ANY_CHAR` and S's characters are one language (a test checks it); this pairs their
    states once per process (the terms are kept: `keep_derivatives`)."""
    s = string_automaton()
    pairs: dict[Term, int] = {}
    queue = [(keep_derivatives(ANY_CHAR), s.body)]
    for term, r in queue:
        for b in range(256):
            target = int(s.trans[r][b])
            if target == s.closed:
                continue  # the closing quote: no character starts with it (ANY_CHAR's first)
            derived = derivative(term, b)
            if target == s.body or target == DEAD:  # the character is complete, or dead
                if derived is not (EPSILON if target == s.body else EMPTY):
                    return {}
                continue
            known = pairs.get(derived)
            if known is None:
                pairs[derived] = target
                queue.append((derived, target))
            elif known != target:
                return {}
    return pairs


def rest_of_character(r: int) -> Term | None:
    """The rest of a character begun, S in state r inside it (a derivative of `ANY_CHAR`); None for
    a state no begun character leaves S in (its body, an escape's start is one)."""
    return _rests_of_characters().get(r)


@lru_cache(maxsize=1)
def _rests_of_characters() -> dict[int, Term]:
    return {r: term for term, r in _partial_characters().items()}


@lru_cache(maxsize=1)
def _partial_heads() -> frozenset[Term]:
    """Every head along the concatenations of `_partial_characters`: a term whose spine holds any
    other head before its repeat is no begun character (checked before any concatenation is built)."""
    heads = set()
    for term in _partial_characters():
        while term.kind == K_CONCAT:
            head, term = term.children
            heads.add(head)
        heads.add(term)
    return frozenset(heads)


def recognize_counted(term: Term) -> tuple[int, int, int | None, Term] | None:
    """If `term` is the inside of a string followed by `rest`, as
    `brzozowski.json.strings.string_term` writes it (a character maybe begun, then ``{lo,hi}`` more
    characters, or any number of them, ``ANY_CHAR*``, the closing quote, `rest`): (the S-state of
    the begun character or S's body, lo, hi (None: no bound), rest); else None.

    The characters ``ANY_CHAR{lo,hi}`` count as S does: one more each time S leaves its body (a
    begun character was counted when it began). So, with `count_tables`, a token's fate in such a
    state is read off per-vocabulary tables, like a plain string's, whatever the bound: the
    ~1,000 states of a ``maxLength: 200`` string a walk would create are never needed. Without a
    bound (``ANY_CHAR*``) the term alone says what `recognize` would check on the automaton's ~20
    states inside the string (and create them)."""
    begun: list[Term] = []  # the rest of a begun character: the heads before the repeat
    partial_heads = _partial_heads()
    while term.kind == K_CONCAT and len(begun) <= _LONGEST_CHARACTER:
        head, tail = term.children
        if (head.kind == K_REPEAT or head.kind == K_STAR) and head.children[0] is ANY_CHAR:
            break
        if head not in partial_heads:  # (a key's closing quote, a literal's bytes: at once)
            return None
        begun.append(head)
        term = tail
    else:
        return None
    r = string_automaton().body
    if begun:
        found = _partial_characters().get(concat(*begun))  # concatenations are right-nested
        if found is None:
            return None
        r = found
    repeated, after = term.children
    lo, hi = (repeated.lo, repeated.hi) if repeated.kind == K_REPEAT else (0, None)
    if after is _QUOTE:
        return r, lo, hi, EPSILON
    if after.kind != K_CONCAT or after.children[0] is not _QUOTE:
        return None
    return r, lo, hi, after.children[1]


def count_tables(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Per vocabulary and S-state r (built on first use, kept on the trie): how many characters each
    token begins when S reads it from r (int16 per token; meaningful where ``inside`` holds), and
    how many each ``closing`` node's token began before its closing quote (aligned with
    ``closing`` of `string_tables`)."""
    return kept_on(trie, ("json-string-counts", r), lambda: _build_counts(trie, r))


def _build_counts(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray]:
    counts = _count_nodes(trie, r)[1]
    closing = string_tables(trie, r).closing
    token_counts, closing_counts = counts.take(trie.token_node), counts[closing]
    for array in (token_counts, closing_counts):
        array.setflags(write=False)
    return token_counts, closing_counts


def _count_nodes(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Per node of the byte trie (and the root, at 0): S's state after its bytes from r, as a code
    ((state + 1) * 256, 0 dead), and how many characters they begin."""
    s = string_automaton()
    table = np.zeros((len(s.trans) + 1, 256), dtype=np.int32)  # codes as in _build_tables
    table[1:] = (s.trans + 1) * 256
    flat = table.ravel()
    body = (s.body + 1) * 256
    codes = np.zeros(trie.n_nodes + 1, dtype=np.int32)
    counts = np.zeros(trie.n_nodes + 1, dtype=np.int16)
    codes[0] = (r + 1) * 256
    quote = np.int32(ord('"'))
    for lo, hi, _, level_bytes in trie.level_views:
        parents = trie.parent[lo:hi]
        parent_codes = codes[parents]
        codes[lo:hi] = flat.take(parent_codes + level_bytes)
        counts[lo:hi] = counts[parents] + ((parent_codes == body) & (level_bytes != quote))
    return codes, counts


NEVER_ENDS = np.iinfo(np.int16).max
"""`chars_to_end`'s count for a token that S refuses from the state (no count applies)."""


class CharsToEnd(NamedTuple):
    """Per vocabulary and S-state r: how many characters each token writes in a string."""

    chars: np.ndarray
    """int16 per token: the characters it begins before it ends inside the string (``inside``: its
    `count_tables` count) or before the closing quote it reads (past the quote: its closing node's
    count); `NEVER_ENDS` for the others."""
    most: int
    """The most of those counts (0 if none)."""
    ends: np.ndarray
    """int16 per token: S's state after it (its body: between two characters; meaningful where
    ``inside`` holds)."""


def chars_to_end(trie: VocabTrie, r: int) -> CharsToEnd:
    """`CharsToEnd` from S-state r (kept on the trie)."""
    return kept_on(trie, ("json-string-chars-to-end", r), lambda: _chars_to_end(trie, r))


def _chars_to_end(trie: VocabTrie, r: int) -> CharsToEnd:
    tables = string_tables(trie, r)
    codes, counts = _count_nodes(trie, r)
    chars = np.full(trie.vocab_size, NEVER_ENDS, dtype=np.int16)
    chars[tables.inside] = counts.take(trie.token_node)[tables.inside]
    chars[tables.past_tokens] = counts[tables.closing][tables.past_closing]
    ends = ((codes.take(trie.token_node) >> 8) - 1).astype(np.int16)
    for array in (chars, ends):
        array.setflags(write=False)
    return CharsToEnd(chars, int(chars[chars != NEVER_ENDS].max(initial=0)), ends)


class StringTables(NamedTuple):
    """What a vocabulary's tokens do in an automaton that stops at a closing quote (S from one of
    its states, or the inside of a plain key), read from one state."""

    inside: np.ndarray
    """bool per token: the automaton reads the whole token without dying or closing."""
    closing: np.ndarray
    """The byte-trie nodes where it has just read the closing quote (sorted)."""
    past_tokens: np.ndarray
    """The tokens that reach past the quote: those below a closing node (or at one)."""
    past_closing: np.ndarray
    """For each of `past_tokens`: the index in `closing` of the node where it closed."""
    past_rest: np.ndarray
    """For each of `past_tokens`: its bytes after the quote, as a node of `quote_suffixes`."""
    inside_bits: np.ndarray
    """``inside`` packed as a bitmask (`packed`): where a bitmask is asked for, the masks begin
    from it and never build a bool array over the vocabulary."""


def string_tables(trie: VocabTrie, r: int) -> StringTables:
    """Per vocabulary and S-state r (built once, kept on the trie): see
    `StringTables`."""
    s = string_automaton()
    return kept_on(trie, ("json-string", r), lambda: _build_tables(trie, s.trans, r, s.closed))


def over_bound(trie: VocabTrie, r: int, most: int,
               few: int = DEFAULT_TUNING.few_over_bound) -> np.ndarray | None:
    """The ids of the tokens that begin more than `most` characters from S-state r (``token_counts
    > most`` of `count_tables`), if at most `few`; else None. Read off the tokens
    ordered by count where the vocabulary prepared them (S's body, `build_all_tables`): a bound as
    long as most tokens leaves out the few longer ones, no comparison over the vocabulary (a
    ``maxLength`` string's bound falls by one at every character, so each step inside it asks for
    a new one). From another state (inside an escape or a character, met once in a while) one
    comparison over the vocabulary, not an order built for it (which costs many comparisons)."""
    ordered = trie.tables.get(_count_order_key(r))
    if ordered is None:
        over = np.flatnonzero(count_tables(trie, r)[0] > most)
        return over if len(over) <= few else None
    order, counts = ordered
    if most >= counts[-1]:
        return order[:0]
    start = int(counts.searchsorted(counts.dtype.type(most), side="right"))  # (an int16 bound: no cast)
    return order[start:] if len(order) - start <= few else None


def count_order(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The tokens ordered by how many characters they begin from S-state r, and those counts
    (ascending; kept per vocabulary and r)."""
    return kept_on(trie, _count_order_key(r), lambda: _count_order(trie, r))


def _count_order_key(r: int) -> tuple:
    return ("json-string-count-order", r)


def _count_order(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray]:
    token_counts = count_tables(trie, r)[0]
    order = np.argsort(token_counts, kind="stable").astype(np.int32)
    counts = token_counts[order]
    order.setflags(write=False)
    counts.setflags(write=False)
    return order, counts


def count_bound_bits(trie: VocabTrie, r: int, most: int) -> np.ndarray:
    """The bitmask (`packed`) of the tokens that begin at most `most` characters from S-state r
    (``token_counts <= most`` of `count_tables`), kept per vocabulary (a `BoundedCache`)."""
    return kept_in_cache(trie, "count-bounds", DEFAULT_TUNING.count_bounds, (r, most),
                         lambda: packed(count_tables(trie, r)[0] <= most))


_MISSING = object()


def kept_in_cache(trie: VocabTrie, name: str, budget: int, key: tuple, build: Callable[[], object],
                  weigh: Callable[[object], int] | None = None) -> object:
    """``build()`` kept under `key` in the vocabulary's `BoundedCache` `name` (of `budget`, each
    entry weighing ``weigh(entry)`` if given, else 1), built on first use."""
    cache = trie.tables.get((name,))  # (the cache itself, once made: no closure built per call)
    cache = (cache or trie.kept((name,), lambda: (BoundedCache(budget, weigh),)))[0]
    with trie.tables_lock:
        found = cache.get(key, _MISSING)
    if found is _MISSING:
        found = build()
        with trie.tables_lock:
            cache.put(key, found)
    return found


kept_on: Callable[[VocabTrie, tuple, Callable[[], tuple]], tuple] = VocabTrie.kept
"""``kept_on(trie, key, build)``: ``trie.tables[key]``, built by `build` the first time
(`VocabTrie.kept` itself: once, whatever the threads, outside any mask step's deadline)."""


def build_all_tables(trie: VocabTrie) -> None:
    """`string_tables` of every interior state of S and of the state before its opening quote
    , the `count_tables` of S's body, of that state and of the state after a backslash (another
    begun character's are built when first met), the tokens of S's body ordered by count
    (`count_order`) and their counts to a string's end (`chars_to_end`), and the `key_tables`: a
    `brzozowski.vocab.vocabulary.Vocabulary` builds them with its trie, so no mask step waits for one; so
    is the process's pairing of begun characters with S's states (`recognize_counted` needs it
    inside any multi-byte character, once)."""
    s = string_automaton()
    for r in (*s.interior, s.opening):
        string_tables(trie, r)
    count_tables(trie, s.body)
    count_order(trie, s.body)  # (a maxLength string's bound, step after step: `over_bound`)
    chars_to_end(trie, s.body)  # (a counted string's first mask: `brzozowski.json.masks.counted`)
    count_tables(trie, s.opening)
    count_tables(trie, int(s.trans[s.body, ord("\\")]))  # (an escape begun: the commonest one)
    key_tables(trie)
    key_tables(trie, opened=False)
    _partial_characters()


PLAIN_KEY_BYTES = np.array([b for b in range(256) if (PLAIN_KEY_BITS >> b) & 1], dtype=np.intp)
"""The bytes of a plain key (`brzozowski.json.strings.PLAIN_KEY_BITS`), as an index array."""


def key_tables(trie: VocabTrie, opened: bool = True) -> StringTables:
    """`string_tables` for the inside of a plain key (``[ !#-\\[\\]-~]*"``, built once, kept on the
    trie): ``inside`` (the tokens of plain bytes only), the ``closing`` nodes (plain bytes, then
    the quote) and the tokens past them. `brzozowski.masks.index.TokenIndex` serves the states inside an
    open object's key from them (`brzozowski.json.masks.keys`). Not `opened`: the same with the key's
    opening quote first (``"[ !#-\\[\\]-~]*"``), for the state before it."""
    def build() -> StringTables:
        key = np.full((3, 256), DEAD, dtype=np.int32)  # 0: before the opening quote; 1: in the key
        key[0, ord('"')] = 1
        key[1, PLAIN_KEY_BYTES] = 1
        key[1, ord('"')] = 2  # 2: closed
        return _build_tables(trie, key, 1 if opened else 0, 2)
    return kept_on(trie, ("plain-key", opened), build)


def _build_tables(trie: VocabTrie, trans: np.ndarray, r: int, closed_state: int) -> StringTables:
    """The tables of the automaton `trans` read from state r: where each token stays alive without
    reaching `closed_state`, the trie nodes where it has just reached it (on a quote), and the
    tokens below them (every byte of `closed_state` is DEAD, so no closing node lies below
    another)."""
    codes = codes_from(trie, TransitionTable(SimpleNamespace(trans=trans)), r)
    return tables_from_codes(trie, codes, (closed_state + 1) * 256)


def tables_from_codes(trie: VocabTrie, codes: np.ndarray, closed: int,
                      coded: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> StringTables:
    """`_build_tables` from the code of every trie node's state and the closed state's code. The
    automaton closes on a quote (its row then sends every byte to DEAD), so every token at or below
    a closing node has a quote there: the per-vocabulary `quote_suffixes` list them all. `coded`:
    if `codes` are for another trie than `trie` (a class trie of it), the tokens that may live
    (the others never do), their nodes there, and its node past each of those quotes."""
    quotes = quote_suffixes(trie)
    if coded is None:
        at_tokens = codes.take(trie.token_node)
        inside = (at_tokens != 0) & (at_tokens != closed)
        quote_nodes = quotes.quote_node
    else:
        token_ids, token_nodes, quote_nodes = coded
        inside = np.zeros(trie.vocab_size, dtype=bool)
        inside[token_ids] = ((codes != 0) & (codes != closed)).take(token_nodes)
    closes = codes.take(quote_nodes) == closed
    past_tokens, past_rest = quotes.quote_token[closes], quotes.quote_rest[closes]
    closing = np.unique(quotes.quote_node[closes])  # (every trie node has a token at or below it)
    past_closing = np.searchsorted(closing, quotes.quote_node[closes])
    tables = StringTables(inside, closing, past_tokens, past_closing, past_rest, packed(inside))
    for array in tables:
        array.setflags(write=False)
    return tables


def codes_from(trie: TokenTrie, trans: TransitionTable | ClassTable, r: int,
               labels: np.ndarray | None = None, tuning: Tuning = DEFAULT_TUNING) -> np.ndarray:
    """The code (`brzozowski.automata.codes`) of the state every node of the trie leads to from state r
    (+ the sentinel node: DEAD), level by level (transitions filled as the levels read them):
    a whole level at once while many of its parents live, else only the live parents' children;
    past the widest level, once at most ``python_tail_nodes`` nodes live, the rest (a few long
    tokens' nodes, many levels deep) in plain Python. `labels`: what each node adds to its
    parent's code (its byte, the default; its byte's class for a `ClassTable`)."""
    if labels is None:
        labels = trie.byte
    codes = np.zeros(trie.n_nodes + 1, dtype=np.int32)
    codes[0] = trans.code(r)
    above_lo, above_hi, n_live = 0, 1, 1  # the level above, and how many of its nodes live
    live: np.ndarray | None = np.zeros(1, dtype=np.intp)  # its live nodes, when listed
    widest = 1  # the most live nodes of a level so far
    for lo, hi, _, _ in trie.level_views:
        if live is None and (n_live <= tuning.python_tail_nodes < widest
                             or tuning.dense_codes_fraction * n_live < hi - lo):
            live = np.flatnonzero(codes[above_lo:above_hi]) + above_lo
        if n_live <= tuning.python_tail_nodes < widest:
            _codes_below(trie, trans, labels, live, codes)
            break
        if tuning.dense_codes_fraction * n_live >= hi - lo:
            index = codes.take(trie.parent[lo:hi])
            index += labels[lo:hi]
            level = trans.gather(index)
            codes[lo:hi] = level
            n_live, live = int(np.count_nonzero(level)), None
        else:
            children, counts = trie.children_of(live)
            found = trans.gather(np.repeat(codes[live], counts) + labels[children])
            codes[children] = found
            live = children[found != 0]
            n_live = len(live)
        above_lo, above_hi = lo, hi
        widest = max(widest, n_live)
        if not n_live:
            break  # every node below is DEAD (0) already
    return codes


def _codes_below(trie: TokenTrie, trans: TransitionTable | ClassTable, labels: np.ndarray, nodes: np.ndarray,
                 codes: np.ndarray) -> None:
    """Fill `codes` below `nodes` (live, their codes set) node by node in plain Python
    (memoryviews: indexing them gives Python ints), a row filled as its state is met."""
    _, child_lo, child_count = trie.python_view()
    label, code_of = memoryview(labels), memoryview(codes)
    shift, have = trans.shift, getattr(trans, "have", None)  # (a `ClassTable` is complete)
    table = memoryview(trans.flat)
    todo = nodes.tolist()
    while todo:
        node = todo.pop()
        count = child_count[node]
        if not count:
            continue
        code = code_of[node]
        if have is not None and (code >> shift >= len(have) or not have[code >> shift]):
            trans.ensure(np.array([code], dtype=np.int32))
            have, table = trans.have, memoryview(trans.flat)
        lo = child_lo[node]
        for child in range(lo, lo + count):
            found = code_of[child] = table[code + label[child]]
            if found:
                todo.append(child)


class QuoteSuffixes(NamedTuple):
    """The trie of the tokens' rests after a quote, laid out as `brzozowski.vocab.vocabulary.TokenTrie`'s
    ``python_view``: node 0 is the empty rest, a node's children are ``child_lo[n]`` onward,
    ``child_count[n]`` of them, their bytes ascending in ``labels``."""

    labels: bytes
    child_lo: list[int]
    child_count: list[int]
    node_of: dict[bytes, int]
    """The node of each rest."""
    quote_node: np.ndarray
    """For every quote of every token (in token order, then by position): the byte-trie node just
    past it, ..."""
    quote_token: np.ndarray
    """... the token, ..."""
    quote_rest: np.ndarray
    """... and the token's bytes after it, as a node of this trie (1,344 quotes in 1,141 tokens of
    o200k_base)."""


def quote_suffixes(trie: VocabTrie) -> QuoteSuffixes:
    """Per vocabulary (built on first use, kept on the trie): the trie of every token's bytes after
    each quote it holds (`QuoteSuffixes`). A token past a string's closing quote lives on iff its
    rest does, so one walk of this trie from the state after the string answers for all of them."""
    def build() -> QuoteSuffixes:
        children: list[dict[int, int]] = [{}]
        rest_of = {b"": 0}
        quotes: list[tuple[int, int, bytes]] = []  # (node past the quote, token, rest)
        parent = trie.parent
        for t, data in enumerate(trie.tokens):
            at = data.find(b'"') if data else -1
            if at >= 0:
                path = [int(trie.token_node[t])]  # the nodes of the token's prefixes, longest first
                while len(path) < len(data):
                    path.append(int(parent[path[-1]]))
            while at >= 0:
                quotes.append((path[len(data) - at - 1], t, data[at + 1:]))
                node = 0
                for end in range(at + 1, len(data)):
                    child = children[node].get(data[end])
                    if child is None:
                        child = children[node][data[end]] = len(children)
                        children.append({})
                        rest_of[data[at + 1:end + 1]] = child
                    node = child
                at = data.find(b'"', at + 1)
        order, number = [0], {0: 0}  # renumbered breadth first: a node's children contiguous
        for node in order:
            for b in sorted(children[node]):
                number[children[node][b]] = len(order)
                order.append(children[node][b])
        labels = bytearray(len(order))
        child_lo, child_count = [0] * len(order), [0] * len(order)
        for n, node in enumerate(order):
            below = sorted(children[node].items())
            child_count[n] = len(below)
            child_lo[n] = number[below[0][1]] if below else 0
            for b, child in below:
                labels[number[child]] = b
        node_of = {rest: number[node] for rest, node in rest_of.items()}
        rows = [(node, t, node_of[rest]) for node, t, rest in quotes]
        quote_node, quote_token, quote_rest = (np.array([row[i] for row in rows], dtype=np.intp)
                                               for i in range(3))
        for array in (quote_node, quote_token, quote_rest):
            array.setflags(write=False)
        return QuoteSuffixes(bytes(labels), child_lo, child_count, node_of, quote_node, quote_token,
                             quote_rest)
    return kept_on(trie, ("quote-suffixes",), build)
