"""The trie walk: which tokens of a vocabulary lead from a state to a live state.

A walk reads the vocabulary's byte trie (`brzozowski.vocab.vocabulary.TokenTrie`) from the root
level by level; a token is allowed iff its node is reached alive. Invariant: a dead node's subtree
is never needed (every token under it starts with a dead prefix), so each level keeps only its live
nodes, the *frontier*, in one of three forms:

- *Python*: node numbers and states (terms over a `LazyDFA`: no state numbered) while the
  frontier is small and little work was done (`brzozowski.masks.moves.Expander` finds the
  children); a walk that ends there with few tokens gives their ids;
- *sparse*: the live nodes and their codes (``(s + 1) * 256``, DEAD = 0, so code + byte indexes
  the flat table of `brzozowski.automata.codes.TransitionTable`): one gather for their children;
- *dense*: a code per node of the level, one gather for the whole next level (children of dead
  nodes come out DEAD through the DEAD row), when much of the level above lives or it is small.

Over a lazy automaton a gather derives the transitions it reads that are not known yet, by the
classes of the bytes read from each state only (`TransitionTable.gather`): a state deep in the
trie, under a few tokens, costs the derivatives of those tokens' next bytes, not of its whole row.

The tuning (`brzozowski.masks.tuning.Tuning`) decides which form each level takes and when the
class-string trie (`brzozowski.vocab.vocabulary.class_trie`: bytes of one class lead everywhere to
the same states) replaces the byte trie; the tokens found are the same whatever it decides. The
loops call `brzozowski.budget.check_deadline` once per level (and per path below a node), so a mask
step's deadline bounds a walk.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..automata.codes import TransitionTable
from ..budget import check_deadline
from ..core.alphabet import DEAD
from ..core.terms import EPSILON, K_ALT, K_BYTES, K_CONCAT, Term, concat
from ..vocab.vocabulary import ClassTrieBuild, TokenTrie, VocabTrie, kept_class_trie, share_class_trie
from .cache import BoundedCache
from .moves import Expander, is_word, split
from .tokenset import TokenSet
from .tuning import Tuning

__all__ = ["EXPANSIONS", "TRIES", "Walker", "few_tokens", "literal_options", "options_of"]

EXPANSIONS = ("auto", "sparse", "dense")
TRIES = ("auto", "bytes", "classes")
_NO_CODES = np.zeros(0, dtype=np.int32)


class Frontier:
    """The live nodes of one trie level (``lo:lo + size``): *dense*, a code per node of the level
    (``codes``, DEAD = 0, ``nodes`` None), or *sparse*, the live nodes (absolute numbers) and
    their codes. ``n_live`` counts the live nodes either way."""

    __slots__ = ("codes", "lo", "n_live", "nodes", "size")

    def __init__(self, lo: int, size: int, nodes: np.ndarray | None, codes: np.ndarray, n_live: int) -> None:
        self.lo, self.size, self.nodes, self.codes, self.n_live = lo, size, nodes, codes, n_live

    @classmethod
    def root(cls, state: int) -> Frontier:
        return cls(0, 1, None, np.full(1, (state + 1) * 256, dtype=np.int32), 1)

    def dense_codes(self) -> np.ndarray:
        """A code per node of the level (spreading a sparse frontier out)."""
        if self.nodes is None:
            return self.codes
        codes = np.zeros(self.size, dtype=np.int32)
        codes[self.nodes - self.lo] = self.codes
        return codes

    def sparse(self) -> tuple[np.ndarray, np.ndarray]:
        """The live nodes (absolute numbers) and their codes (listing a dense frontier's)."""
        if self.nodes is not None:
            return self.nodes, self.codes
        live = np.flatnonzero(self.codes)
        return live + self.lo, self.codes[live]


class Reached:
    """The live nodes a walk has found: a list of arrays while they are few, one bool per node
    once a large level went dense (or from the start, for a small trie)."""

    def __init__(self, trie: TokenTrie, tuning: Tuning) -> None:
        self.trie, self.tuning = trie, tuning
        self.small = trie.n_nodes <= tuning.small_trie
        self.found: list[np.ndarray] = []
        self.alive = np.zeros(trie.n_nodes + 1, dtype=bool) if self.small else None  # + sentinel

    def add(self, frontier: Frontier) -> None:
        if frontier.nodes is not None:
            if self.alive is None:
                self.found.append(frontier.nodes)
            else:
                self.alive[frontier.nodes] = True
        elif self.alive is None and frontier.size <= self.tuning.small_level:
            self.found.append(np.flatnonzero(frontier.codes) + frontier.lo)
        else:
            if self.alive is None:
                self.alive = np.zeros(self.trie.n_nodes + 1, dtype=bool)
                for nodes in self.found:
                    self.alive[nodes] = True
            lo = frontier.lo
            np.not_equal(frontier.codes, 0, out=self.alive[lo:lo + frontier.size])

    def tokens(self) -> np.ndarray:
        """The tokens ending at a live node (a new, writable bool array over the vocabulary)."""
        trie = self.trie
        if self.alive is not None and not self.small:  # a large level went dense: many live
            return self.alive.take(trie.token_node)
        if self.small:
            nodes = np.flatnonzero(self.alive)
        else:
            nodes = np.concatenate(self.found) if self.found else np.zeros(0, dtype=np.intp)
        total = int(trie.token_count[nodes].sum())
        if total * self.tuning.gather_fraction > trie.vocab_size:  # many: a gather beats a scatter
            alive = self.alive
            if alive is None:
                alive = np.zeros(trie.n_nodes + 1, dtype=bool)
                alive[nodes] = True
            return alive.take(trie.token_node)
        mask = np.zeros(trie.vocab_size, dtype=bool)
        if total:
            mask[trie.tokens_at(nodes)[0]] = True
        return mask


def few_tokens(trie: TokenTrie, nodes: list[int], most: int) -> list[int] | None:
    """The ids of the tokens ending at `nodes`, or None if more than `most`."""
    token_lo, token_count, token_ids = trie.token_view()
    ids: list[int] = []
    for node in nodes:
        count = token_count[node]
        if count == 1:  # (a byte trie's node holds one token at most, but for twins)
            ids.append(token_ids[token_lo[node]])
        elif count:
            lo = token_lo[node]
            ids += token_ids[lo:lo + count].tolist()
        else:
            continue
        if len(ids) > most:
            return None
    return ids


def options_of(term: Term) -> tuple[tuple[Term, ...], Term | None] | None:
    """(options, T or None) if `term` is ``o₁ | … | oₖ``, possibly all followed by T, or one option
    that begins with a single byte, and holds no ``&`` or ``~``; else None."""
    if term.boolean:
        return None
    if term.kind == K_ALT:
        return term.children, None
    if term.kind == K_CONCAT and term.children[0].kind == K_ALT:
        return term.children[0].children, term.children[1]
    return ((term,), None) if is_word(term) else None


def literal_options(term: Term) -> tuple[tuple[Term, ...], Term | None] | None:
    """`options_of` if every option begins with a single byte; else None."""
    found = options_of(term)
    return found if found is not None and all(is_word(option) for option in found[0]) else None


class Walker:
    """The walks of one index: its automaton over its vocabulary's trie (or the class-string trie
    once it pays off), the flat transition table they fill, and the Python walk's `Expander`."""

    def __init__(self, automaton, trie: VocabTrie, tuning: Tuning) -> None:
        self.automaton, self.trie, self.tuning = automaton, trie, tuning
        self.expander = Expander(automaton, tuning)
        self.table = TransitionTable(automaton)
        self.state_of = getattr(automaton, "state_of", None)  # a LazyDFA: walks in Python hold terms
        self.walked_trie: TokenTrie = trie
        self.expansion, self.trie_choice = "auto", "auto"
        self.walked_nodes = 0  # nodes of the byte trie looked at by walks (class-trie payoff)
        self.class_trie_tried = False
        self.class_trie_build: ClassTrieBuild | None = None  # (the class-string trie, built over walks)

    def held(self, state: int | Term) -> int | Term:
        """How the walks in Python hold `state`: its term over a lazy automaton, else its number
        (a term given is held as it is)."""
        if self.state_of is None or state.__class__ is not int:
            return state
        return self.automaton.term(state)

    def walk(self, state: int | Term, skip: int = -1) -> TokenSet:
        """The tokens allowed in `state`, by one walk of the trie from its root; `skip`: a first
        byte whose tokens are left out (answered otherwise)."""
        trie = self.walked_trie if skip >= 0 else self._trie_to_walk()
        depth, frontier, work, found = self._walk_few(trie, state, skip)
        ids = few_tokens(trie, found, self.tuning.few_tokens) if frontier is None else None
        if ids is None:
            reached = Reached(trie, self.tuning)
            if found:
                reached.add(Frontier(0, 0, np.array(found, dtype=np.intp), _NO_CODES, len(found)))
            for view in trie.level_views[depth:] if frontier is not None else ():
                check_deadline()
                if (frontier.n_live <= self.tuning.python_tail_nodes and self.expansion == "auto"
                        and trie.n_nodes - view[0] <= self.tuning.python_work):
                    work += self._walk_tail(trie, frontier, reached)  # (the deep levels' few nodes)
                    break
                if self._dense_next(frontier, view):
                    frontier = self._expand_dense(frontier, view)
                    work += frontier.size
                else:
                    frontier = self._expand_sparse(trie, frontier, view)
                    work += frontier.n_live
                if frontier.n_live == 0:
                    break
                reached.add(frontier)
        if trie is self.trie:
            self.walked_nodes += work
        return TokenSet(array=reached.tokens()) if ids is None else TokenSet(ids=ids)

    def _walk_few(self, trie: TokenTrie, state: int | Term,
                  skip: int) -> tuple[int, Frontier | None, int, list[int]]:
        """Walk in plain Python from the root while levels are small. Returns (depth, None, work,
        found) when the walk is over, or (d, the frontier at level d, work, found) to hand over to
        numpy (its states numbered then); work counts the children looked at, found lists the
        live nodes below the root met so far."""
        if self.expansion != "auto":
            return 0, Frontier.root(state), 0, []
        labels, child_lo, child_count = trie.python_view()
        nodes, states, found = [0], [self.held(state)], []
        depth = work = 0
        most_live, most_work = self.tuning.python_frontier, self.tuning.python_work
        expand = self.expander.expand
        while nodes:
            check_deadline()
            if len(nodes) > most_live or work > most_work:
                return depth, self._handed_over(trie, depth, nodes, states), work, found
            next_nodes: list = []
            next_states: list = []
            for node, s in zip(nodes, states):
                count = child_count[node]
                if count:
                    work += expand(s, child_lo[node], count, labels, next_nodes, next_states, child_count)
            if depth == 0 and skip >= 0:  # the root's child of that byte left out, with its subtree
                kept = [i for i, node in enumerate(next_nodes) if labels[node] != skip]
                next_nodes, next_states = [next_nodes[i] for i in kept], [next_states[i] for i in kept]
            found += next_nodes
            nodes, states = next_nodes, next_states
            depth += 1
        return depth, None, work, found

    def _walk_tail(self, trie: TokenTrie, frontier: Frontier, reached: Reached) -> int:
        """Add to `reached` the live nodes below `frontier`, depth first in plain Python, rows
        filled as their states are met: for a frontier of at most ``python_tail_nodes`` live nodes
        below which the trie has at most ``python_work`` nodes left (a few long tokens' runs, a
        level each), where a numpy round per level costs more than the nodes themselves.
        Returns the children looked at."""
        labels, child_lo, child_count = trie.python_view()
        table = self.table
        have, flat, shift = table.have, table.flat, table.shift
        nodes, codes = frontier.sparse()
        todo = list(zip(nodes.tolist(), codes.tolist()))
        found: list[int] = []
        work = 0
        while todo:
            node, code = todo.pop()
            count = child_count[node]
            if not count:
                continue
            work += count
            if code >> shift >= len(have) or not have[code >> shift]:
                table.ensure(np.array([code], dtype=np.int32))
                have, flat = table.have, table.flat
            lo = child_lo[node]
            for child in range(lo, lo + count):
                target = int(flat[code + labels[child]])
                if target:
                    found.append(child)
                    todo.append((child, target))
        if found:
            reached.add(Frontier(0, 0, np.array(found, dtype=np.intp), _NO_CODES, len(found)))
        return work

    def _handed_over(self, trie: TokenTrie, depth: int, nodes: list[int], states: list) -> Frontier:
        """A Python frontier as a sparse one: each distinct state numbered once, in order of first
        appearance (None, a leaf's state: DEAD, never expanded)."""
        lo = int(trie.level_start[depth])
        numbers = states
        if self.state_of is not None:
            numbered = dict.fromkeys(states)
            for s in numbered:
                numbered[s] = DEAD if s is None else self.state_of(s)
            numbers = [numbered[s] for s in states]
        codes = (np.array(numbers, dtype=np.int32) + 1) * 256
        return Frontier(lo, int(trie.level_start[depth + 1]) - lo, np.array(nodes, dtype=np.intp), codes,
                        len(nodes))

    def _dense_next(self, frontier: Frontier, view: tuple) -> bool:
        """Whether to expand the next level densely."""
        if self.expansion != "auto":
            return self.expansion == "dense"
        lo, hi = view[0], view[1]
        return frontier.n_live * self.tuning.dense_fraction >= frontier.size or hi - lo <= self.tuning.small_level

    def _expand_dense(self, frontier: Frontier, view: tuple) -> Frontier:
        """Every node of the next level, with its code (DEAD = 0): one gather through the table."""
        lo, hi, local_parent, level_bytes = view
        index = frontier.dense_codes().take(local_parent)
        index += level_bytes
        codes = self.table.gather(index)
        return Frontier(lo, hi - lo, None, codes, int(np.count_nonzero(codes)))

    def _expand_sparse(self, trie: TokenTrie, frontier: Frontier, view: tuple) -> Frontier:
        """The live children of the frontier's live nodes, with their codes."""
        lo, hi = view[0], view[1]
        nodes, codes = frontier.sparse()
        children, counts = trie.children_of(nodes)
        found = self.table.gather(np.repeat(codes, counts) + trie.byte[children])
        alive = found.nonzero()[0]
        return Frontier(lo, hi - lo, children[alive], found[alive], len(alive))

    def _trie_to_walk(self) -> TokenTrie:
        """The byte trie, or the class-string trie once the walks have paid for it: its build
        (`ClassTrieBuild`) runs ``class_trie_step_nodes`` byte-trie nodes at each walk from then
        on (a build at once would stop one mask step for the work of many walks), and the walks
        take it once it is built, if it merged enough (or another walker's, kept for the same
        classes, as soon as there is one: no build goes on beside a finished one)."""
        tuning = self.tuning
        if self.trie_choice != "auto" or self.class_trie_tried:
            return self.walked_trie
        build = self.class_trie_build
        if build is not None:  # (another walker may have kept the same classes' trie meanwhile)
            kept = kept_class_trie(self.trie, build.class_of_byte)
            if kept is None:
                build.advance(tuning.class_trie_step_nodes)
                if build.result is None:
                    return self.walked_trie
                kept = share_class_trie(self.trie, build.class_of_byte, build.result[0])
            self._take_class_trie(kept)
        elif self.walked_nodes >= tuning.class_trie_payoff * self.trie.n_nodes:
            classes = getattr(self.automaton, "byte_classes", None)
            if classes is None or classes.max() >= tuning.compress_max_classes:
                self.class_trie_tried = True
            else:
                kept = kept_class_trie(self.trie, classes)
                if kept is not None:
                    self._take_class_trie(kept)
                else:
                    self.class_trie_build = ClassTrieBuild(self.trie, classes)
        return self.walked_trie

    def _take_class_trie(self, merged: TokenTrie) -> None:
        """Walk `merged` from now on if it has few enough nodes; decided once, whatever the outcome."""
        self.class_trie_tried, self.class_trie_build = True, None
        if merged.n_nodes <= self.tuning.compress_below * self.trie.n_nodes:
            self.walked_trie = merged

    def below(self, labels: bytes, child_lo: Sequence[int], child_count: Sequence[int], node: int,
              state: int | Term, budget: int | None = None,
              ends: list[int] | None = None) -> list[int] | None:
        """The nodes below `node` (of a trie laid out as ``python_view``) whose bytes lead from
        `state` to a live state, by a walk in Python; None once it looked at more children than
        `budget` (if given). Given `ends`, the nodes with children where `state`'s term is
        nullable (`node` included) are appended to it: what follows the term is read below them
        (`read_below`)."""
        reached: list[int] = []
        nodes, states = [node], [state]
        work = 0
        expand_below = self.expander.expand_below
        while nodes:
            check_deadline()
            next_nodes: list[int] = []
            next_states: list = []
            for node, s in zip(nodes, states):
                count = child_count[node]
                if count:
                    if ends is not None and s.nullable:
                        ends.append(node)
                    work += expand_below(s, child_lo[node], count, labels, child_count, next_nodes, next_states)
            if budget is not None and work > budget:
                return None
            reached += next_nodes
            nodes, states = next_nodes, next_states
        return reached

    def read_below(self, labels: bytes, child_lo: Sequence[int], child_count: Sequence[int], node: int,
                   term: Term, budget: int | None = None, alone: BoundedCache | None = None) -> list[int] | None:
        """`below` for a term, option by option (`options_of`): an option that begins with a byte
        string is read along the string's path, one node per byte (a prefix leaves the string's
        rest, a live term), and what follows below the path's end the same way; another option
        is walked alone (`below`, within what is left of `budget`), what follows it read below
        each node where it ends: ``∂w(X·T)`` is ``∂wX·T`` and ``∂vT`` for each split ``w = uv``
        with u in X, so no ``∂wX·T`` is built (exact for X and T without ``&`` or ``~``, the only
        terms `options_of` splits). A token lives iff one option lets it, so the options' nodes
        together are the term's (no union of derivatives built; a node may be listed twice).
        None once over budget. Given `alone` (a memo of one trie, without `budget`), each option
        walked alone keeps its nodes and ends there by (node, option): the options of a value are
        the same after many states, where only what follows them differs."""
        found: list[int] = []
        todo: list[tuple[int, Term, Term | None]] = [(node, term, None)]  # (node, term, what follows it)
        while todo:
            check_deadline()
            node, term, then = todo.pop()
            found_options = options_of(term)
            if found_options is None:
                walked = None if alone is None else alone.get((node, term))
                if walked is None:
                    ends = None if then is None and alone is None else []
                    reached = self.below(labels, child_lo, child_count, node, term, budget, ends)
                    if reached is None:
                        return None
                    if alone is not None:
                        alone.put((node, term), (reached, ends))
                else:
                    reached, ends = walked
                if ends and then is not None:
                    todo += [(end, then, None) for end in ends]
                if budget is not None:
                    budget -= len(reached)
                found += reached
                continue
            options, inner = found_options
            if inner is not None:
                then = inner if then is None else concat(inner, then)
            for option in options:
                if not is_word(option):
                    todo.append((node, option, then))
                    continue
                at, rest = node, option
                while True:
                    head, tail = split(rest)
                    if head.kind != K_BYTES or head.bits & (head.bits - 1):  # (`is_word`, inlined)
                        break
                    lo = child_lo[at]
                    at = labels.find(head.bits.bit_length() - 1, lo, lo + child_count[at])
                    if at < 0:
                        break
                    found.append(at)
                    rest = tail
                if at >= 0 and child_count[at]:
                    if rest is not EPSILON:
                        todo.append((at, rest, then))
                    elif then is not None:
                        todo.append((at, then, None))
        return found

    def literal_tokens(self, term: Term) -> TokenSet | None:
        """The tokens of a term that is options each beginning with a byte string (names, enum
        values, literals), read along those strings' paths (`read_below`, within ``python_work``);
        None for another term, or when what follows a path is wide (left to the usual walk)."""
        if literal_options(term) is None:
            return None
        labels, child_lo, child_count = self.trie.python_view()
        found = self.read_below(labels, child_lo, child_count, 0, term, self.tuning.python_work)
        if found is None:
            return None
        found = list(dict.fromkeys(found))
        ids = few_tokens(self.trie, found, self.tuning.few_tokens)
        if ids is not None:
            return TokenSet(ids=ids)
        mask = np.zeros(self.trie.vocab_size, dtype=bool)
        mask[self.trie.tokens_at(np.array(found, dtype=np.intp))[0]] = True
        return TokenSet(array=mask)
