"""Masks of states inside JSON strings: per-vocabulary tables and a verified recognition.

Inside a JSON string almost the whole vocabulary is allowed, so a trie walk from such a state visits
nearly every node (milliseconds over o200k_base). But the interior of a string is the same small
automaton S in every schema: the interior of `brzozowski.schema.STRING` (well-formed UTF-8, no raw
control byte, complete escapes), 20 states (the body; a UTF-8 sequence or an escape pending), and a
closing quote after which S stops. What a token does inside the string depends on the vocabulary and
the S-state alone; only what follows the closing quote depends on the schema.

Claim. If an automaton state x *behaves as* S-state r with after-state q, that is: for every byte
string w, reading w from x is DEAD exactly when S dies on w before closing, and ``δ*(x, p) = q``
when S closes exactly at the end of w's prefix p, then for every token t

    mask_x[t] = (S reads all of t from r without dying or closing)
                or (S closes on t's prefix p and ``δ*(q, t[len(p):]) ≠ DEAD``).

The first half is a per-vocabulary table (`string_tables`: ``inside``); the second is a walk from q
of the subtries under the ``closing`` nodes of the byte trie (where S has just read the closing
quote): the few thousand tokens that reach past the end of the string. Every state of every schema
that behaves as r shares the ``inside`` table.

Recognition is checked, never assumed. `recognize` walks S and the automaton in step from
(body, x): for each pair (r, y) every byte must go where S says: to DEAD where S dies, to one common
q where S closes, and to one automaton state per S-successor r' (a pair (r', y'), checked in turn).
When the pairs close without a contradiction the behaviour above follows by induction on the length
of w. A string with a pattern, a length bound or an enum contradicts it somewhere and is walked the
ordinary way.

>>> from brzozowski.dfa import regex_to_dfa
>>> dfa = regex_to_dfa('\\\\{"a":' + STRING + '\\\\}')
>>> body = dfa.step(dfa.start, b'{"a":"')
>>> pairs, after = recognize(dfa.row, body)
>>> len(pairs), after == dfa.step(body, b'"')
(20, True)
>>> recognize(dfa.row, dfa.start) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .alphabet import DEAD
from .dfa import regex_to_dfa
from .schema import STRING

if TYPE_CHECKING:  # (vocabulary.py imports this module: every new Vocabulary builds its tables)
    from .vocabulary import VocabTrie

__all__ = ["StringAutomaton", "build_all_tables", "recognize", "string_automaton", "string_tables"]


class StringAutomaton:
    """S: the interior of a JSON string as a DFA (``trans``, DEAD = -1), with its body state, the
    state after the closing quote (``closed``: accepting, every byte DEAD), its interior states,
    and per interior state the byte groups `recognize` checks."""

    def __init__(self) -> None:
        dfa = regex_to_dfa(STRING)
        self.trans = dfa.trans
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
            self.groups[r] = (np.flatnonzero(row == DEAD), np.flatnonzero(row == self.closed),
                              successors)


@lru_cache(maxsize=1)
def string_automaton() -> StringAutomaton:
    """The one `StringAutomaton` (built on first use, ~2 ms)."""
    return StringAutomaton()


def recognize(row: Callable[[int], np.ndarray], state: int) -> tuple[dict[int, int], int] | None:
    """If automaton `state` behaves as S's body (see the module docstring): the pairs found
    (S-state -> automaton state, every interior state of S) and the after-state q; else None.

    `row(y)` gives the automaton's 256 transitions of state y (DEAD = -1).
    """
    s = string_automaton()
    pairs, queue, after = {s.body: state}, [s.body], None
    while queue:
        r = queue.pop()
        targets = row(pairs[r])
        dead, closing, successors = s.groups[r]
        if (targets[dead] != DEAD).any():
            return None
        if closing.size:  # only the body closes, on `"` alone (and the body is paired once)
            after = int(targets[closing[0]])
        for successor, group in successors:
            found = targets[group]
            target = int(found[0])
            if target == DEAD or (found != target).any():
                return None
            known = pairs.get(successor)
            if known is None:
                pairs[successor] = target
                queue.append(successor)
            elif known != target:
                return None
    assert after is not None  # the body closes on `"`
    return pairs, after


def string_tables(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per vocabulary and S-state r (built once, ~3 ms over o200k_base, kept on the trie):
    ``inside`` (bool per token: S reads the whole token from r without dying or closing), the
    ``closing`` nodes (sorted: where S has just read the closing quote) and ``bounds`` (the
    closing nodes of level d are ``closing[bounds[d]:bounds[d + 1]]``)."""
    key = ("json-string", r)
    found = trie.tables.get(key)
    if found is not None:
        return found
    with trie.tables_lock:
        found = trie.tables.get(key)
        if found is None:
            found = trie.tables[key] = _build_tables(trie, r)
    return found


def build_all_tables(trie: VocabTrie) -> None:
    """`string_tables` of every interior state of S (~20 x 3 ms and ~5 MB over o200k_base): a
    `brzozowski.vocabulary.Vocabulary` builds them with its trie, so no mask step waits for one."""
    for r in string_automaton().interior:
        string_tables(trie, r)


def _build_tables(trie: VocabTrie, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = string_automaton()
    # Codes as in brzozowski.masks: state t is (t + 1) * 256, DEAD is 0 with a DEAD row.
    table = np.zeros((len(s.trans) + 1, 256), dtype=np.int32)
    table[1:] = (s.trans + 1) * 256
    flat = table.ravel()
    codes = np.zeros(trie.n_nodes + 1, dtype=np.int32)  # + the sentinel (DEAD)
    codes[0] = (r + 1) * 256
    for lo, hi, _, level_bytes in trie.level_views:
        codes[lo:hi] = flat.take(codes[trie.parent[lo:hi]] + level_bytes)
    closed = (s.closed + 1) * 256
    closing = np.flatnonzero(codes == closed)
    inside = ((codes != 0) & (codes != closed)).take(trie.token_node)
    bounds = np.searchsorted(closing, trie.level_start)
    for array in (inside, closing, bounds):
        array.setflags(write=False)
    return inside, closing, bounds
