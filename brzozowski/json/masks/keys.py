"""Strategies for the key states of an open object: at or inside a key, listed names beside any
other plain-ASCII key.

Claim: a state whose other keys are a co-finite set of plain keys (every plain key but a finite set
N of names, then the quote, then q) allows every token of plain bytes (the per-vocabulary plain-key
table ``inside``, `brzozowski.json.string_masks.key_tables`), the tokens past a plain key's quote
whose rest lives from q (N's closing nodes left out), and the tokens of the listed names' paths,
walked. `NamedKeys` reads this off a lazy automaton's term (no derivative of the state, nor of any
state along the names: the schema compiler registers the trie of other keys it built,
`brzozowski.json.strings.PLAIN_KEY_TRIES`, else the term's shape is checked); `KeyWalk` checks it on
any automaton by a walk in Python along the listed names' prefixes, checking at every node.
"""

from __future__ import annotations

import numpy as np

from ...core.derivatives import derivative
from ...core.terms import EPSILON, K_ALT, K_BYTES, K_CONCAT, Term, byte_set, concat, star
from ...masks.cache import BoundedCache
from ...masks.moves import Moves, add_pairs, live_term, split
from ...masks.tokenset import Form, TokenSet, set_tokens
from ...masks.walk import few_tokens
from ..string_masks import key_tables, kept_on
from ..strings import PLAIN_KEY_BITS, PLAIN_KEY_TRIES
from .past import PastTheQuote

__all__ = ["KeyWalk", "NamedKeys", "key_children"]

_QUOTE_BIT = 1 << 0x22
_PLAIN_KEY_AND_QUOTE = PLAIN_KEY_BITS | _QUOTE_BIT
_ANY_PLAIN_KEY = star(byte_set(PLAIN_KEY_BITS))  # held here: interned, so compared by identity
_UNSEEN = object()


def key_tables_mask(walker, past: PastTheQuote, found: list[int], handled: list[int], after: int | Term,
                    opened: bool, form: Form) -> TokenSet:
    """A key state's mask: the tokens ending at the `found` nodes, every token of plain bytes, and
    the tokens past a plain key's quote whose rest lives from `after`, but those closing at the
    `handled` nodes. Not `opened`: the same for the state before the key's opening quote."""
    trie = walker.trie
    tables = key_tables(trie, opened)
    position = kept_on(trie, ("plain-key-closing", opened),  # a closing node's index in ``closing``
                       lambda: ({node: i for i, node in enumerate(tables.closing.tolist())},))[0]
    closed = tuple(sorted(position[node] for node in handled if node in position))

    def allowed() -> np.ndarray:
        allowed_nodes = np.ones(len(tables.closing), dtype=bool)
        allowed_nodes[list(closed)] = False
        return allowed_nodes

    mask = form.pick(tables.inside, tables.inside_bits) | past.mask(
        tables, ("plain-key", opened), after, form, allowed if closed else None, closed)
    if found:
        ids = few_tokens(trie, found, walker.tuning.few_tokens)  # (a listed name's tokens: a few)
        set_tokens(mask, trie.tokens_at(np.array(found, dtype=np.intp))[0] if ids is None else ids, walker.tuning)
    return TokenSet(array=mask)


def listed_name(option: Term) -> tuple[bytes, Term] | None:
    """(w, Tw) if `option` is a listed name of a key state, ``w"·Tw`` (w plain key bytes one by one)."""
    head, rest = split(option)
    name = bytearray()
    while head.kind == K_BYTES and head.bits & (head.bits - 1) == 0 and head.bits & PLAIN_KEY_BITS:
        name.append(head.bits.bit_length() - 1)
        head, rest = split(rest)
    if head.kind != K_BYTES or head.bits != _QUOTE_BIT:
        return None
    return bytes(name), rest


def key_children(term: Term) -> dict[int, Term] | None:
    """If `term` is one node of a trie of plain keys (as the schema compiler builds it), its
    children by byte; else None. A node is ε or not, and options ``S·[plain]*`` (the keys that
    leave the trie) and ``c·child`` (c one plain byte), every plain byte in exactly one S or c; or
    ``[plain]*`` itself. Its language is every plain key but a finite set of names."""
    if term is _ANY_PLAIN_KEY:
        return {}
    leaving = child_bits = 0
    children: dict[int, Term] = {}
    for option in term.children if term.kind == K_ALT else (term,):
        if option is EPSILON:
            continue
        if option.kind != K_CONCAT:
            return None
        head, rest = option.children
        bits = head.bits
        if head.kind != K_BYTES or bits & ~PLAIN_KEY_BITS:
            return None
        if rest is _ANY_PLAIN_KEY:
            leaving |= bits
        elif bits & (bits - 1) == 0 and not bits & child_bits:
            children[bits.bit_length() - 1] = rest
            child_bits |= bits
        else:
            return None
    if leaving & child_bits or leaving | child_bits != PLAIN_KEY_BITS:
        return None
    return children


class NamedKeys:
    """A key state of an open object read off its term: options ``(o₁|…|oₖ)·T``, each a listed name
    ``w"·Tw`` or, exactly once, the other keys ``O"·q`` (O a trie of plain keys, `key_node`); an
    option may itself be such options followed by a tail of their own (`flat_options`). A state
    before the key's opening quote reads the same off its derivative by the quote."""

    name = "named keys"

    def __init__(self, walker, past: PastTheQuote) -> None:
        self.walker, self.past = walker, past
        memo = walker.tuning.index_memo_entries
        self.nodes = BoundedCache(memo)  # term -> `key_node`
        self.names = BoundedCache(memo)  # option -> `listed_name`
        self.closing = BoundedCache(memo)  # (O, start) -> `names_closing`

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        if term is None:
            return None
        labels, child_lo, child_count = self.walker.trie.python_view()
        start = 0  # the trie node the key's bytes begin below
        if term.first == _QUOTE_BIT:  # before the key's opening quote: the tokens that begin with it
            start = labels.find(0x22, child_lo[0], child_lo[0] + child_count[0])
            if start < 0:
                return None
            term = derivative(term, 0x22, self.walker.expander.recent)
        if term.first & PLAIN_KEY_BITS != PLAIN_KEY_BITS or term.first & ~_PLAIN_KEY_AND_QUOTE:
            return None  # a key state starts with every plain byte, and with nothing but the quote else
        shape = self.key_shape(term)
        if shape is None:
            return None
        other_keys, after, listed, shared = shape
        handled = self.closing.get((other_keys, start))
        if handled is None:
            handled = self.closing.put((other_keys, start), self.names_closing(other_keys, start))
        found: list[int] = []
        max_states = self.walker.automaton.max_states
        for name, rest, tail in listed:
            node = start
            for b in name + b'"':
                node = labels.find(b, child_lo[node], child_lo[node] + child_count[node])
                if node < 0:
                    break
            if node < 0:
                continue  # no token holds the name and its quote (most names): nothing to walk
            then = rest if tail is None else concat(rest, tail)  # (built only for such a name)
            if shared is not None:
                then = concat(then, shared)
            if live_term(then, max_states):
                found.append(node)
                found += self.walker.below(labels, child_lo, child_count, node, then)
        return key_tables_mask(self.walker, self.past, found, handled, after, start == 0, form)

    def names_closing(self, other_keys: Term, start: int) -> list[int]:
        """The trie nodes where a name of N closes (its bytes below `start`, then the quote): there
        the other keys' quote is DEAD."""
        labels, child_lo, child_count = self.walker.trie.python_view()
        handled: list[int] = []
        todo = [(other_keys, start)]  # (a node of O, the trie node of the same bytes)
        while todo:
            key_node, node = todo.pop()
            lo, count = child_lo[node], child_count[node]
            if not key_node.nullable:  # a name of N ends here
                quote = labels.find(0x22, lo, lo + count)
                if quote >= 0:
                    handled.append(quote)
            for b, child in self.key_node(key_node).items():
                below = labels.find(b, lo, lo + count)
                if below >= 0:
                    todo.append((child, below))
        return handled

    def key_shape(self, x: Term) -> tuple[Term, Term, list[tuple[bytes, Term, Term | None]], Term | None] | None:
        """(O, q·T, the listed (w, Tw, the tail of w's option or None), T or None for ε) if `x`
        has the shape `try_mask` reads (a name's rest is Tw·tail·T: concatenated by `try_mask`
        only for a name some token holds)."""
        options, then = (x,), None
        if x.kind == K_ALT:
            options = x.children
        elif x.kind == K_CONCAT and x.children[0].kind == K_ALT and self.key_node(x.children[0]) is None:
            options, then = x.children[0].children, x.children[1]
        other_keys = after = None
        listed: list[tuple[bytes, Term, Term | None]] = []
        for option, tail in self.flat_options(options):
            head, rest = split(option)
            if head.kind == K_BYTES and head.bits & (head.bits - 1) and rest.kind == K_CONCAT and (
                    rest.children[0] is _ANY_PLAIN_KEY):  # O = S·[plain]*, its concatenation flattened
                head, rest = concat(head, _ANY_PLAIN_KEY), rest.children[1]
            if head.kind == K_BYTES:  # a listed name: plain bytes one by one, then the quote
                name = self.names.get(option, _UNSEEN)
                if name is _UNSEEN:
                    name = self.names.put(option, listed_name(option))
                if name is None:
                    return None
                listed.append((*name, tail))
            elif other_keys is None and self.key_node(head) is not None:
                quote, rest = split(rest)
                if quote.kind != K_BYTES or quote.bits != _QUOTE_BIT:
                    return None
                other_keys, after = head, rest if tail is None else concat(rest, tail)
            else:
                return None
        if other_keys is None:
            return None
        if then is not None:
            after = concat(after, then)
        if not live_term(after, self.walker.automaton.max_states):
            return None  # no other key goes on: its plain tokens are not all allowed
        return other_keys, after, listed, then

    def flat_options(self, options: tuple) -> list[tuple[Term, Term | None]]:
        """(option, its own tail or None): an option ``(o₁|…|oₖ)·T`` that is no key trie stands for
        its options each followed by T (the listed names beside other keys interleaved with them:
        other keys go on differently from the names)."""
        flat: list[tuple[Term, Term | None]] = []
        for option in options:
            if option.kind == K_CONCAT and option.children[0].kind == K_ALT and self.key_node(
                    option.children[0]) is None:
                flat.extend((inner, option.children[1]) for inner in option.children[0].children)
            else:
                flat.append((option, None))
        return flat

    def key_node(self, term: Term) -> dict[int, Term] | None:
        """If `term` is a node of a trie of plain keys, every node below it too (`key_children`),
        its children by byte; else None (checked without recursion, kept)."""
        nodes = self.nodes
        found = nodes.get(term, _UNSEEN)
        if found is not _UNSEEN:
            return found  # type: ignore[return-value]
        built = PLAIN_KEY_TRIES.get(term)  # (the root of a trie built as such: every node known)
        if built is not None:
            children, below = built
            for node, its_children in below.items():
                nodes.put(node, its_children)
            return nodes.put(term, children)
        known: dict = {}  # this call's answers (the memo is only read until the end: no eviction)
        todo = [term]
        while todo:
            t = todo[-1]
            if t in known or t in nodes:
                todo.pop()
                continue
            children = key_children(t)
            if children is not None:
                pending = [child for child in children.values() if child not in known and child not in nodes]
                if pending:
                    todo.extend(pending)
                    continue
                if any((known[child] if child in known else nodes.get(child)) is None
                       for child in children.values()):
                    children = None
            known[t] = children
            todo.pop()
        for node, its_children in known.items():
            nodes.put(node, its_children)
        return known[term] if term in known else nodes.get(term)


class KeyWalk:
    """A state at or inside an open object's key on any automaton: it goes on through the listed
    names and, once the key leaves them, into one state Y that is the inside of a plain key (plain
    bytes loop on Y, the quote leads to q). A walk in Python that does not follow the bytes into Y
    visits only the listed names' prefixes; if every plain byte lives at each of its states on a
    plain path, the plain-key tables give the rest. None when the state does not look like a key
    (so the usual walk is not delayed) or the walk grows past ``key_work``."""

    name = "keys"

    def __init__(self, walker, past: PastTheQuote) -> None:
        self.walker, self.past = walker, past
        memo = walker.tuning.index_memo_entries
        self.steps = BoundedCache(memo)  # state -> `key_step`
        self.afters = BoundedCache(memo)  # state -> `key_after`

    def try_mask(self, state: int, term: Term | None, form: Form) -> TokenSet | None:
        expander = self.walker.expander
        root = self.walker.held(state)
        live = expander.live_bytes(root)
        if (not (live >> 0x22) & 1 or (live >> 0x5C) & 1 or live >> 0x80
                or live & PLAIN_KEY_BITS != PLAIN_KEY_BITS):  # (every plain byte lives: `key_step`)
            return None
        labels, child_lo, child_count = self.walker.trie.python_view()
        after = None  # Y's q: one for the whole walk (set at the root, which is on a plain path)
        found: list[int] = []  # the nodes the walk reached, but those of plain paths into Y
        handled: list[int] = []  # closing nodes the walk expanded (a quote not leading to q)
        nodes, states, plain = [0], [root], [True]  # plain: the node's path is plain bytes only
        work, most = 0, self.walker.tuning.key_work
        while nodes:
            next_nodes: list[int] = []
            next_states: list = []
            next_plain: list[bool] = []
            for node, s, on_plain in zip(nodes, states, plain):
                count = child_count[node]
                lo = child_lo[node]
                if not on_plain:  # past a byte that is not a plain key's: the usual Python walk
                    if count:
                        grown = len(next_nodes)
                        work += expander.expand(s, lo, count, labels, next_nodes, next_states)
                        next_plain += [False] * (len(next_nodes) - grown)
                elif count:  # (a leaf: its tokens end here, none goes on through its state)
                    into = self.key_step(s)
                    if into is None:
                        return None
                    q, pairs, quote_to_q = into  # the bytes that lead neither into Y nor to q
                    if after is None:
                        after = q
                    elif q != after:
                        return None
                    if not quote_to_q:  # the quote (DEAD, or to a listed member's value): walked
                        quote = labels.find(0x22, lo, lo + count)
                        if quote >= 0:
                            handled.append(quote)
                    work += len(pairs)
                    for b, target in pairs:
                        child = labels.find(b, lo, lo + count)
                        if child >= 0:
                            next_nodes.append(child)
                            next_states.append(target)
                            next_plain.append((PLAIN_KEY_BITS >> b) & 1 == 1)
                if work > most:
                    return None
            found += next_nodes
            nodes, states, plain = next_nodes, next_states, next_plain
        return key_tables_mask(self.walker, self.past, found, handled, after, True, form)

    def key_after(self, y: int | Term) -> int | Term | None:
        """The after-state q if `y` is the inside of a plain key: every plain key byte back to `y`
        itself, the quote to q, every other byte DEAD (states compared with ``==``: terms are
        interned, so equal is identical)."""
        found = self.afters.get(y, _UNSEEN)
        if found is _UNSEEN:
            moves = self.walker.expander.moves(y)
            targets = moves.targets
            found = None
            if moves.live == _PLAIN_KEY_AND_QUOTE and all(targets[i] == y for i in _plain_classes(moves)):
                found = targets[moves.class_of[0x22]]
            self.afters.put(y, found)
        return found  # type: ignore[return-value]

    def key_step(self, s: int | Term) -> tuple[int | Term, list[tuple[int, int | Term]], bool] | None:
        """For a state on a key's plain path: (Y's after-state q, the live (byte, target) pairs that
        lead neither into Y nor by the quote to q, whether the quote leads to q), Y being where most
        plain bytes go; None unless every plain byte lives, Y is the inside of a plain key
        (`key_after`) and the quote does not lead into Y."""
        found = self.steps.get(s, _UNSEEN)
        if found is _UNSEEN:
            found = None
            moves = self.walker.expander.moves(s)
            if moves.live & PLAIN_KEY_BITS == PLAIN_KEY_BITS:
                classes, targets = moves.classes, moves.targets
                plain_bytes: dict = {}  # target -> how many plain bytes lead there
                for i in _plain_classes(moves):
                    target = targets[i]
                    plain_bytes[target] = plain_bytes.get(target, 0) + (classes[i] & PLAIN_KEY_BITS).bit_count()
                y = max(plain_bytes, key=plain_bytes.__getitem__)
                q = self.key_after(y)
                quote = targets[moves.class_of[0x22]]
                if q is not None and quote != y:
                    pairs: list = []
                    for bits, target in zip(classes, targets):
                        if target is not None and target != y:
                            add_pairs(bits & ~_QUOTE_BIT if target == q else bits, target, pairs)
                    found = (q, pairs, quote == q)
            self.steps.put(s, found)
        return found  # type: ignore[return-value]


def _plain_classes(moves: Moves) -> list[int]:
    """The classes of `moves` that hold plain key bytes."""
    return [i for i, bits in enumerate(moves.classes) if bits & PLAIN_KEY_BITS]
