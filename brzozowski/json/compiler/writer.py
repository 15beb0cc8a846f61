"""The punctuation of the JSON text (`_Writer`) and the spellings of keys: names both ways, plain keys but a few."""

from __future__ import annotations

import json
from typing import Any

from ...budget import check_deadline
from ...core.terms import EMPTY, EPSILON, Term, alt, byte, byte_set, concat, literal, repeat, star
from ...errors import ArgumentError
from ..strings import PLAIN_KEY_BITS, PLAIN_KEY_TRIES
from .common import MAX_WHITESPACE

#: JSON's whitespace bytes (RFC 8259 §2): space, tab, line feed, carriage return.
_WHITESPACE_BITS = sum(1 << b for b in b" \t\n\r")

def _key_spellings(name: str, then: Term = EPSILON) -> Term:
    """The JSON text of the string `name`, spelled as ``json.dumps`` does with and without
    ensure_ascii, followed by `then` if given (each spelling written onto it)."""
    spellings = [json.dumps(name).encode()]
    try:
        raw = json.dumps(name, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate has no raw UTF-8 spelling
        pass
    else:
        if raw != spellings[0]:
            spellings.append(raw)
    return alt(*(literal(s, then) for s in spellings))

_ANY_PLAIN_KEY = star(byte_set(PLAIN_KEY_BITS))

_LEAVING_FOR = {b: concat(byte_set(PLAIN_KEY_BITS & ~(1 << b)), _ANY_PLAIN_KEY)
                for b in range(256) if (PLAIN_KEY_BITS >> b) & 1}
"""Per plain byte b: a plain key that goes on with any other plain byte than b, then any plain
bytes (held for good: most nodes of a trie of names have one child, and these are built once)."""

def _plain_keys_except(names: list[str]) -> Term:
    """Quoted plain-ASCII keys (no escapes) that are none of `names`, built on the trie of `names`
    (from the leaves up, without recursion: names may be long). Masks read key states off this
    shape (`brzozowski.json.masks.keys.key_children`; the trie registered in `PLAIN_KEY_TRIES`); another
    shape is still exact, only slower."""
    trie: dict = {}
    for name in names:
        node = trie
        for b in name.encode("utf-8"):
            node = node.setdefault(b, {})
        node[None] = True
    nodes = [trie]
    for node in nodes:  # breadth first: every node after its parent
        nodes.extend(child for b, child in node.items() if b is not None and (PLAIN_KEY_BITS >> b) & 1)
    outside: dict[int, Term] = {}  # id(node) -> the plain keys that leave the names below it
    nodes_below: dict[Term, dict[int, Term]] = {}  # a node's term -> its children by byte
    for node in reversed(nodes):
        below = {b: outside[id(child)] for b, child in node.items()
                 if b is not None and (PLAIN_KEY_BITS >> b) & 1}
        if len(below) == 1:
            leave = _LEAVING_FOR[next(iter(below))]
        else:
            leave = concat(byte_set(PLAIN_KEY_BITS & ~sum(1 << b for b in below)), _ANY_PLAIN_KEY)
        term = outside[id(node)] = alt(EMPTY if None in node else EPSILON, leave,
                                       *[concat(byte(b), child) for b, child in below.items()])
        nodes_below[term] = below
    root = outside[id(trie)]
    # (the root's children apart: an entry whose value held its own key would never die)
    PLAIN_KEY_TRIES[root] = (nodes_below.pop(root), nodes_below)
    return concat(byte(0x22), root, byte(0x22))

class _Writer:
    """The punctuation of the JSON text: separators and optional whitespace, as terms."""

    def __init__(self, separators: tuple[str, str], any_whitespace: bool) -> None:
        if (not isinstance(separators, (tuple, list)) or len(separators) != 2
                or not all(isinstance(s, str) for s in separators)
                or separators[0].strip(" \t\n\r") != "," or separators[1].strip(" \t\n\r") != ":"):
            raise ArgumentError(f"separators must be (item, key) like (', ', ': '): a comma and a "
                                f"colon with JSON whitespace around them, not {separators!r}")
        self.any_whitespace = any_whitespace
        if any_whitespace:
            self.ws = repeat(byte_set(_WHITESPACE_BITS), 0, MAX_WHITESPACE)
            self.item_sep = concat(self.ws, byte(ord(",")), self.ws)
            self.key_sep = concat(self.ws, byte(ord(":")), self.ws)
            self.canonical = (",", ":")
        else:
            self.ws = EPSILON
            self.item_sep = literal(separators[0].encode())
            self.key_sep = literal(separators[1].encode())
            self.canonical = (separators[0], separators[1])

    def container(self, opening: str, inside: Term, empty_ok: bool, closing: str) -> Term:
        """``opening`` `inside` ``closing`` (`inside` non-empty), or the empty container if allowed."""
        o, c = byte(ord(opening)), byte(ord(closing))
        empty = concat(o, self.ws, c) if empty_ok else EMPTY
        return alt(empty, concat(o, self.ws, inside, self.ws, c))

    def _items(self, opening: str, items: list[Term], closing: str, where: str) -> Term:
        """``opening`` the items separated ``closing`` (items non-empty): `container`'s term, built
        from the last item on, so each step makes only its item's nodes (a concatenation of the
        whole inside would re-associate every node of it again)."""
        tail = concat(self.ws, byte(ord(closing)))
        for i, item in enumerate(reversed(items)):
            check_deadline(where)
            tail = concat(item, tail) if i == 0 else concat(item, self.item_sep, tail)
        return concat(byte(ord(opening)), self.ws, tail)

    def text(self, value: Any) -> bytes:
        """The canonical JSON text of `value` in this writing (raises TypeError/ValueError)."""
        return json.dumps(value, separators=self.canonical, allow_nan=False).encode()

    def value(self, value: Any, where: str = "") -> Term:
        """The JSON texts of `value`: its keys and strings spelled both ways, this writer's punctuation.
        Under a deadline (checked per item and member, naming `where`): a value's term has a node
        per character of its text."""
        if isinstance(value, str):
            return _key_spellings(value)
        if isinstance(value, list):
            if not value:
                return self.container("[", EMPTY, True, "]")
            return self._items("[", [self.value(v, where) for v in value], "]", where)
        if isinstance(value, dict):
            if not value:
                return self.container("{", EMPTY, True, "}")
            members = []
            for k, v in value.items():
                check_deadline(where)
                members.append(concat(_key_spellings(k), self.key_sep, self.value(v, where)))
            return self._items("{", members, "}", where)
        return literal(json.dumps(value, allow_nan=False).encode())
