"""JSON Schema as people write it, compiled to terms: `compile_json_schema(schema) -> LazyDFA`.

The strict front door, `brzozowski.json.strict.json_schema_to_regex`, keeps the specification's subset.
This one takes the schemas people write (``$ref``/``$defs``, no ``type``, open objects, bounds,
formats) and builds the *term* of the JSON texts directly with the smart constructors of
`brzozowski.core.terms`: no regex text in between, so intersection and complement (issue 12) can slot
into the same recursion.

Invariant (soundness): every document the automaton accepts is JSON that ``jsonschema``
(Draft 2020-12, with ``FormatChecker``) finds valid. The language is narrower than the schema only
in ways written down in `notes` (what ``brzozowski schema --explain`` prints, each with its JSON
pointer): listed properties in schema order and other properties after them, nesting bounded by
``max_depth``, the chosen separators and whitespace, closed objects, and the leaves' narrowings.
A keyword that cannot be compiled exactly is refused; every refused place of the schema is collected
into one `SchemaError` (see `SchemaError.problems`), never ignored.

How the JSON values are written:

- ``separators=(item, key)``: written exactly, as ``json.dumps`` does (``(", ", ": ")`` is its default).
  ``any_whitespace=True`` instead allows JSON whitespace wherever JSON does, at most
  `MAX_WHITESPACE` bytes per gap, so a model cannot loop forever in whitespace.
- Property names, ``enum`` and ``const`` strings are spelled the two ways ``json.dumps`` spells them
  (``ensure_ascii`` escapes, or raw UTF-8).
- Listed properties come in schema order, each at most once, then the other properties (where
  allowed) in any order and any number. An other key may repeat: JSON keeps the last of two equal
  keys, and every value written under a key satisfies that key's schema, so the document still
  validates (as llguidance and XGrammar write open objects). Where a count must hold
  (``maxProperties``, ``minProperties`` above 1) or with ``unique_keys=True``, the other keys
  start with distinct plain-ASCII characters in ascending order instead: no key can repeat (a
  repeated key would bypass the count; some parsers reject repeats), at the price of ~95 slots
  and of keys sharing a first character. Beside listed names, other keys are plain ASCII without
  escapes, never a listed name.
- ``closed_objects=True``: an object schema that lists properties and does not say
  ``additionalProperties`` gets only its listed properties (what tool calling wants).

Complements (``not``, overlapping ``oneOf``, ``if``/``then``/``else``, ``maxContains``; issue 12).
A term is narrower than its schema (key order, spellings, exponents), so ``~T`` could hold documents
the schema allows. Complements are therefore taken only of *exact* terms, within a universe C:

- C (`_Compiler.universe`): the JSON values in this writing, nesting at most ``max_depth``, whose
  numbers have no exponent and, with a fraction, a non-zero last digit and at most 15 digits (so no
  C text is an integer-valued float: ``5.0`` and ``5.0000000000000001`` are integers to
  ``jsonschema``); every string spelling; objects as "any JSON value" writes them. Where a complement
  is written, the values stay in C, and ``--explain`` says so at that pointer.
- `_Compiler.complete` builds, for a subschema without object keywords, format, contains or
  uniqueItems, a term T with C ∩ Valid(S) ⊆ T ⊆ Valid(S): enum/const strings in every spelling,
  numbers by their value (bounds by the rounding midpoint), arrays of such items, any object as
  its type alone. Then C ∖ T is exactly the documents of C that fail S. Anything else raises
  `_Inexact` with the pointer and keyword of the narrowing.
- Objects are negated *structurally* (`_Compiler.negations`): failing ``{properties, required}``
  is a union of cases — a required name missing (``properties: {k: false}``), a present property
  failing its schema (``not`` of it, recursively), the other keywords' ``not`` — and each case is
  *merged* into the enclosing schema, so the result is one object in the merged property order
  (said in ``--explain``), not an intersection of two orders. Combinators by De Morgan.
- ``not S`` = rest ∖ S; ``oneOf`` = ⋃ᵢ (rest ∧ Bᵢ ∧ not anyOf(Bⱼ, j ≠ i)); ``if``/``then``/
  ``else`` = (rest ∧ if ∧ then) ∪ (rest ∧ not if ∧ else); ``maxContains``: each item decided by
  the exact ``contains`` term, counted. A subschema that is neither exact nor structurally
  negatable is refused at the narrowing's pointer.
- Weak spot: the complement of an *array* schema that looks into its items is a product of the
  written array language and C's (their numbers differ) all the way down; a state whose language
  is empty (e.g. ``not`` of ``minContains: 2`` once two items matched) must search that product,
  which grows with ``max_depth`` and can end in `StateBudgetError` (never a wrong answer).
  Objects and scalars do not have this cost.

>>> lazy = compile_json_schema({"oneOf": [{"type": "integer"}, {"minimum": 0}]})
>>> [lazy.matches(t) for t in (b"5", b"-1", b"2.5", b"5.0")]
[False, True, True, False]
>>> lazy = compile_json_schema({"type": "object", "properties": {"n": {"type": "integer"}},
...                             "required": ["n"]}, separators=(", ", ": "))
>>> lazy.matches(b'{"n": 3}'), lazy.matches(b'{"n":3}')
(True, False)

References: JSON Schema Core and Validation, draft 2020-12 (https://json-schema.org/draft/2020-12);
RFC 8259 (JSON); RFC 6901 (JSON Pointer).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

from ..core.derivatives import alphabet_classes, derivative, derivative_of_string, keep_derivatives, matches
from ..errors import ArgumentError, SchemaError, SchemaProblem
from .leaf_terms import FORMATS, json_integer_term, json_number_term, json_string_term
from .strings import PLAIN_KEY_BITS, PLAIN_KEY_TRIES, encoded_chars
from ..automata.lazy import DEFAULT_MAX_STATES, LazyDFA, is_empty
from .merge import ANNOTATIONS, MAX_ANYOF_PRODUCT, Unmergeable, json_equal, json_key, merge_schemas
from .refs import SchemaIndex, child_base, pointer_append
from ..core.terms import EMPTY, EPSILON, K_ALT, Term, alt, byte, byte_set, compl, concat, inter, literal, repeat, star

__all__ = ["DEFAULT_MAX_DEPTH", "MAX_WHITESPACE", "compile_json_schema", "explain_json_schema",
           "json_schema_term"]

DEFAULT_MAX_DEPTH = 8
"""How deeply arrays and objects may nest in a document of a recursive schema or of "any JSON value".
A bounded nesting is what makes those languages regular; 8 covers the tool calls, configs and
Pydantic trees of the corpus, and the lazy DFA only builds the states a generation visits."""

MAX_CHAIN = 64
"""The most schemas that may nest through ``$ref``, ``allOf``, ``anyOf`` and ``oneOf`` without an
array or object in between (a reference chain, combinators in combinators). A ``$ref`` cycle
through ``allOf`` merges a new schema at each turn: `merged_term` catches the same parts merged
again; this bound catches any other endless turn before the interpreter's stack or the machine's
memory runs out."""

MAX_WHITESPACE = 20
"""The most whitespace bytes per gap with ``any_whitespace=True``: enough for a newline and the
indentation of pretty-printed JSON 4 levels deep (indent 4), and a bound on how long a model can
stall in whitespace."""

#: JSON's whitespace bytes (RFC 8259 §2): space, tab, line feed, carriage return.
_WHITESPACE_BITS = sum(1 << b for b in b" \t\n\r")
#: The slots of other properties: the empty key, then each plain-ASCII first character, ascending.
_FIRST_CHARACTERS = [None] + [b for b in range(0x20, 0x7F) if (PLAIN_KEY_BITS >> b) & 1]

TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
_ALL_TYPES = frozenset(TYPES)

_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_ARRAY_KEYWORDS = ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains",
                   "minContains", "maxContains", "uniqueItems", "unevaluatedItems")
_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties",
                    "propertyNames", "minProperties", "maxProperties", "dependentRequired",
                    "dependentSchemas", "dependencies", "unevaluatedProperties")
#: Keywords that apply subschemas to the instance in place (their annotations reach
#: unevaluatedProperties).
_IN_PLACE = ("$ref", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "dependencies", "not",
             "$dynamicRef", "$recursiveRef")
_NUMBER_ARGUMENTS = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
                     "exclusiveMaximum": "exclusive_maximum", "multipleOf": "multiple_of"}
_APPLICATORS = ("$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "type", "enum", "const")
_HANDLED = frozenset(_STRING_KEYWORDS + _NUMBER_KEYWORDS + _ARRAY_KEYWORDS + _OBJECT_KEYWORDS + _APPLICATORS)

#: Standard keywords refused whatever `unknown_keywords` says, with what to write instead.
_REFUSED = {
    "$dynamicRef": "write a plain $ref to the definition",
    "$recursiveRef": "write a plain $ref to the definition",
}
#: The formats of JSON Schema's vocabulary (draft 2020-12 §7.3): one that the leaves do not
#: implement is refused (``FormatChecker`` may check it); any other format name is unknown.
_STANDARD_FORMATS = frozenset({
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
})
_ISSUE_12 = "needs intersection or complement of languages (issue 12), not available yet"

#: JSON's decimal digits, and the texts of the numbers of the universe C (see `_Compiler.universe`).
_DIGIT_BITS = sum(1 << b for b in b"0123456789")
_C_FRACTION_DIGITS = 15
"""A number of C with a fraction has at most this many digits: a decimal of at most 15 significant
digits round-trips through a double (DBL_DIG = 15), so ``json.loads`` never turns a C text with a
non-zero fraction into an integer-valued float (``5.0000000000000001`` would be ``5.0``: an integer
for ``jsonschema``)."""
_UNIVERSE_NOTE = ("complement taken within the universe C: numbers there have no exponent, and those "
                  f"with a fraction have a non-zero last digit and at most {_C_FRACTION_DIGITS} digits "
                  "(also inside arrays); other values are written as elsewhere")
#: The keywords whose complement `_Compiler.complete` can take exactly, beside the combinators.
_EXACT_KEYWORDS = frozenset({"type", "enum", "const", "minLength", "maxLength", "pattern", "minimum",
                             "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "items",
                             "prefixItems", "additionalItems", "minItems", "maxItems", "then", "else"})
#: How deep `_Compiler.negations` follows $ref, allOf, anyOf, oneOf and if in place.
_MAX_NEGATION_HOPS = 40


class _Inexact(Exception):
    """A subschema's term would miss documents of C it allows, so its complement would be unsound:
    `pointer` and `keyword` name the narrowing, `reason` says what it is."""

    def __init__(self, pointer: str, keyword: str | None, reason: str) -> None:
        super().__init__(reason)
        self.pointer = pointer
        self.keyword = keyword
        self.reason = reason


def _is_true(schema: Any) -> bool:
    return schema is True or (isinstance(schema, dict) and not (set(schema) - ANNOTATIONS))


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
    shape (`brzozowski.masks.index._key_children`; the trie registered in `PLAIN_KEY_TRIES`); another
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

    def text(self, value: Any) -> bytes:
        """The canonical JSON text of `value` in this writing (raises TypeError/ValueError)."""
        return json.dumps(value, separators=self.canonical, allow_nan=False).encode()

    def value(self, value: Any) -> Term:
        """The JSON texts of `value`: its keys and strings spelled both ways, this writer's punctuation."""
        if isinstance(value, str):
            return _key_spellings(value)
        if isinstance(value, list):
            if not value:
                return self.container("[", EMPTY, True, "]")
            items = [self.value(v) for v in value]
            inside = concat(items[0], *(concat(self.item_sep, t) for t in items[1:]))
            return self.container("[", inside, False, "]")
        if isinstance(value, dict):
            if not value:
                return self.container("{", EMPTY, True, "}")
            members = [concat(_key_spellings(k), self.key_sep, self.value(v)) for k, v in value.items()]
            inside = concat(members[0], *(concat(self.item_sep, m) for m in members[1:]))
            return self.container("{", inside, False, "}")
        return literal(json.dumps(value, allow_nan=False).encode())


class _Compiler:
    """One pass over a schema; `ptr` is always the JSON pointer of the node at hand, `depth` how
    many more levels of arrays and objects may nest, `types` the JSON types still in question."""

    def __init__(self, root: Any, writer: _Writer, closed_objects: bool, unknown_keywords: str,
                 max_depth: int, unique_keys: bool = False) -> None:
        if unknown_keywords not in ("refuse", "ignore"):
            raise ArgumentError(f"unknown_keywords must be 'refuse' or 'ignore', not {unknown_keywords!r}")
        if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0:
            raise ArgumentError(f"max_depth must be a non-negative integer, not {max_depth!r}")
        if not isinstance(unique_keys, bool):
            raise ArgumentError(f"unique_keys must be True or False, not {unique_keys!r}")
        self.index = SchemaIndex(root)
        self.w = writer
        self.closed = closed_objects
        self.unique_keys = unique_keys
        self.ignore_unknown = unknown_keywords == "ignore"
        self.max_depth = max_depth
        self.problems: dict[tuple[str, str | None], SchemaProblem] = {}
        self.notes: dict[str, None] = {}
        self._memo: dict[tuple, Term] = {}
        self._active: set[tuple] = set()
        self._chain: dict[int, int] = {}  # per nesting depth left: the `term` calls active at it
        self._merging: set[tuple] = set()  # `merged_term`'s parts (by content) being merged
        self._keep: list[Any] = []  # merged schemas: alive, so their ids stay unique in the memo
        self._complete: dict[tuple, Term] = {}
        self._completing: set[tuple] = set()
        self._universe: dict[int, Term] = {}

    # -- bookkeeping ----------------------------------------------------------------------------

    def refuse(self, ptr: str, keyword: str | None, message: str) -> Term:
        self.problems.setdefault((ptr, keyword), SchemaProblem(ptr, keyword, message))
        return EMPTY

    def note(self, ptr: str, text: str) -> None:
        self.notes.setdefault(f"{ptr or '(root)'}: {text}", None)

    # -- the recursion ----------------------------------------------------------------------------

    def term(self, node: Any, ptr: str, base: str, depth: int, types: frozenset = _ALL_TYPES) -> Term:
        if node is True:
            return self.any_value(depth, types)
        if node is False:
            return EMPTY
        if not isinstance(node, dict):
            return self.refuse(ptr, None, f"a schema must be an object or true/false, got {json.dumps(node)[:40]}")
        key = (id(node), base, depth, types)
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._active or len(self._active) > 400:
            return self.refuse(ptr, "$ref", "this $ref chain loops back to itself without an array or "
                                            "object in between: no document can ever end; break the cycle")
        if self._chain.get(depth, 0) >= MAX_CHAIN:  # (merged schemas are new nodes: no key repeats)
            return self.refuse(ptr, "$ref", f"more than {MAX_CHAIN} schemas nest here through $ref, allOf, "
                                            "anyOf and oneOf without an array or object in between (a $ref "
                                            "cycle through allOf, merged anew at each turn?); break the cycle")
        self._active.add(key)
        self._chain[depth] = self._chain.get(depth, 0) + 1
        try:
            result = self._schema(node, ptr, child_base(base, node), depth, types)
        finally:
            self._active.discard(key)
            self._chain[depth] -= 1
        self._memo[key] = result
        return result

    def any_value(self, depth: int, types: frozenset = _ALL_TYPES) -> Term:
        """Any JSON value of `types` nesting at most `depth` levels, written as this writer writes.

        The same for every schema compiled with the same punctuation, so it is built once per
        process (`_ANY_VALUES`, with the notes it makes) by a compiler of its own: open objects and
        values without a schema would otherwise rebuild its ~30,000 terms in every compilation (and
        `LazyDFA` walk them for the pattern's byte classes: those are memoized on it too)."""
        key = (self.w.item_sep, self.w.key_sep, depth, types, self.unique_keys)
        found = _ANY_VALUES.get(key)
        if found is None:
            alone = _Compiler(_ANY, self.w, self.closed, "refuse", self.max_depth, self.unique_keys)
            found = (alone.term(_ANY, "", alone.index.root_base, depth, types), list(alone.notes))
            alphabet_classes(found[0])  # memoized on the term: every automaton's walk stops there
            keep_derivatives(found[0])  # and its derivatives last while the cache holds it
            while len(_ANY_VALUES) >= MAX_ANY_VALUES:  # full: the oldest goes
                _ANY_VALUES.pop(next(iter(_ANY_VALUES)), None)
            _ANY_VALUES[key] = found
        term, notes = found
        for text in notes:
            self.notes.setdefault(text, None)
        return term

    def _schema(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        for key in node:
            if key in ANNOTATIONS or key in _HANDLED:
                continue
            where = pointer_append(ptr, key)
            if key in _REFUSED:
                self.refuse(where, key, f"{key} is not supported: {_REFUSED[key]}")
            elif self.ignore_unknown:
                self.note(where, f"unknown keyword {key!r} ignored (unknown_keywords='ignore')")
            else:
                self.refuse(where, key, f"unknown keyword {key!r}: remove it, or pass "
                                        "unknown_keywords='ignore' to ignore keywords outside JSON Schema")
        if "allOf" in node and not isinstance(node["allOf"], list):
            return self.refuse(pointer_append(ptr, "allOf"), "allOf", "allOf must be a list of schemas")
        if "$ref" in node and "allOf" not in node and _is_true({k: v for k, v in node.items() if k != "$ref"}):
            where = pointer_append(ptr, "$ref")
            try:
                target, target_ptr, target_base = self.index.resolve(node["$ref"], base, where)
            except SchemaError as e:
                return self.refuse(e.pointer, e.keyword, e.message)
            return self.term(target, target_ptr, target_base, depth, types)
        if "$ref" in node or "allOf" in node:
            return self.merged_term([node], ptr, base, depth, types)
        if "anyOf" in node:
            return self._union(node, "anyOf", ptr, base, depth, types)
        if "oneOf" in node:
            if self._disjoint(node["oneOf"], base):
                self.note(pointer_append(ptr, "oneOf"), "oneOf compiled as anyOf: the branches are disjoint")
                return self._union(node, "oneOf", ptr, base, depth, types)
            return self._one_of(node, ptr, base, depth, types)
        if "not" in node:
            return self._not(node, ptr, base, depth, types)
        if "if" in node and (node["if"] is False or _is_true(node["if"])):
            chosen = node.get("then" if node["if"] is not False else "else", True)
            rest = {k: v for k, v in node.items() if k not in ("if", "then", "else")}
            return self.merged_term([rest, chosen], ptr, base, depth, types)
        if "if" in node and ("then" in node or "else" in node):
            return self._if_then_else(node, ptr, base, depth, types)
        dependent = self._dependent_schemas(node)
        if dependent and "object" in types:
            return self._split_dependent(node, dependent, ptr, base, depth, types)
        return self._flat(node, ptr, base, depth, types)

    # -- combinators without intersection ---------------------------------------------------------

    def merged_term(self, parts: list[Any], ptr: str, base: str, depth: int,
                    types: frozenset = _ALL_TYPES, own: int = 1) -> Term:
        """The term of all of `parts`: merged structurally, or, where that would need an
        intersection, each flattened part compiled alone and the terms intersected (sound: each
        part's language is within what that part allows).

        Merging the same parts again inside their own merge, at the same depth, would loop for
        ever (a ``$ref`` cycle through ``allOf`` merges a new schema at each turn, so `term`'s
        check by node never sees it repeat): refused, the parts compared by content."""
        key = (json_key(parts), base, depth, types, own)
        if key in self._merging:
            return self.refuse(ptr, "$ref", "this $ref chain loops back to itself through allOf without an "
                                            "array or object in between: no document can ever end; break the cycle")
        self._merging.add(key)
        try:
            merged = self.merge(parts, ptr, base, own, intersect=True)
            if merged is None:
                return EMPTY
            if isinstance(merged, _Pieces):
                self.note(ptr, f"allOf: {merged.reason}: the parts are compiled apart and intersected "
                               "(each object part keeps its own property order)")
                return inter(*(self.term(piece, ptr, base, depth, types) for piece in merged.pieces))
            return self.term(merged, ptr, base, depth, types)
        finally:
            self._merging.discard(key)

    def merge(self, parts: list[Any], ptr: str, base: str, own: int = 1, intersect: bool = False) -> Any:
        """`parts` resolved ($ref, allOf flattened) and merged structurally, or None (refused).

        The first `own` parts are the keywords of the schema at `ptr` itself; the others are its
        subschemas, whose ``unevaluatedProperties`` sees only their own properties: it becomes
        their ``additionalProperties`` before the merge.
        """
        flat: list[Any] = []
        seen: set[int] = set()

        def flatten(part: Any, at: str, part_base: str, top: bool) -> bool:
            if isinstance(part, bool):
                flat.append(part)
                return True
            if not isinstance(part, dict):
                self.refuse(at, None, f"a schema must be an object or true/false, got {json.dumps(part)[:40]}")
                return False
            if id(part) in seen:
                self.refuse(at, "$ref", "allOf/$ref loops back to itself: this schema includes itself")
                return False
            seen.add(id(part))
            part_base = child_base(part_base, part)
            if part_base != base:
                self.refuse(at, "allOf", "allOf or $ref siblings across schemas with different $id "
                                         "bases cannot be merged; inline the referenced schema")
                return False
            rest = {k: v for k, v in part.items() if k not in ("$ref", "allOf")
                    and (k in _HANDLED or k in _REFUSED or not self.ignore_unknown)}
            for unevaluated, plain in (("unevaluatedProperties", "additionalProperties"),
                                       ("unevaluatedItems", "items")):
                if top or unevaluated not in rest:
                    continue
                if any(k in part for k in _IN_PLACE) or isinstance(rest.get("items"), list):
                    self.refuse(pointer_append(at, unevaluated), unevaluated,
                                f"{unevaluated} in a referenced or combined schema that has "
                                f"applicators of its own: write {plain} instead")
                    return False
                rest.setdefault(plain, rest.pop(unevaluated))
            flat.append(rest)
            if "$ref" in part:
                where = pointer_append(at, "$ref")
                try:
                    target, target_ptr, target_base = self.index.resolve(part["$ref"], part_base, where)
                except SchemaError as e:
                    self.refuse(e.pointer, e.keyword, e.message)
                    return False
                if not flatten(target, target_ptr, part_base if target_base == base else target_base, False):
                    return False
            for i, sub in enumerate(part.get("allOf", [])):
                if not flatten(sub, pointer_append(pointer_append(at, "allOf"), i), part_base, False):
                    return False
            return True

        try:
            for i, part in enumerate(parts):
                if not flatten(part, ptr, base, i < own):
                    return None
        finally:
            flatten = None  # the recursive closure's cell held it: a cycle through this compiler
        try:
            merged = merge_schemas(flat)
        except Unmergeable as e:
            if intersect:
                self._keep.append(flat)  # the pieces are new dicts: alive, so their ids stay unique
                return _Pieces(flat, e.reason)
            self.refuse(pointer_append(ptr, "allOf"), e.keyword,
                        f"allOf: {e.reason}; {_ISSUE_12} — merge the parts by hand")
            return None
        self._keep.append(merged)
        return merged

    def _union(self, node: dict, keyword: str, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        branches = node[keyword]
        where = pointer_append(ptr, keyword)
        if not isinstance(branches, list) or not branches:
            return self.refuse(where, keyword, f"{keyword} must be a non-empty list of schemas")
        rest = {k: v for k, v in node.items() if k != keyword}
        terms = []
        for i, branch in enumerate(branches):
            bptr = pointer_append(where, i)
            if _is_true(rest):
                terms.append(self.term(branch, bptr, base, depth, types))
            else:
                terms.append(self.merged_term([rest, branch], bptr, base, depth, types))
        return _without_strings_inside_every_string(alt(*terms))

    # -- complement: not, overlapping oneOf, if/then/else, maxContains (issue 12) -------------------

    def universe(self, depth: int) -> Term:
        """C: the JSON values (nesting at most `depth`) in which complements are taken.

        null, true, false; integers; numbers with a fraction whose last digit is not 0 and with at
        most `_C_FRACTION_DIGITS` digits, never an exponent; every string (every spelling); arrays of
        C; objects as "any JSON value" writes them (a complemented subschema never looks into an
        object: `complete` refuses object keywords, and `_decide` takes objects by their type). Being
        the very terms the compiler writes elsewhere, they cancel in intersections: no state deep
        inside a document stays a product of two object languages."""
        found = self._universe.get(depth)
        if found is None:
            digit = byte_set(_DIGIT_BITS)
            minus = alt(EPSILON, byte(ord("-")))
            natural = alt(byte(ord("0")), concat(byte_set(_DIGIT_BITS & ~(1 << ord("0"))), star(digit)))
            fraction = concat(minus, natural, byte(ord(".")), star(digit),
                              byte_set(_DIGIT_BITS & ~(1 << ord("0"))))
            short = concat(minus, repeat(byte_set(_DIGIT_BITS | (1 << ord("."))), 2, _C_FRACTION_DIGITS + 1))
            parts = [literal(b"null"), literal(b"true"), literal(b"false"), concat(minus, natural),
                     inter(fraction, short), json_string_term()]
            if depth > 0:
                item = self.universe(depth - 1)
                parts.append(self.w.container("[", concat(item, star(concat(self.w.item_sep, item))), True, "]"))
                parts.append(self.any_value(depth, frozenset({"object"})))
            found = self._universe[depth] = alt(*parts)
        return found

    def outside(self, term: Term, depth: int) -> Term:
        """C minus `term`: the documents of C that fail a schema whose `complete` term is `term`."""
        return inter(self.universe(depth), compl(term))

    def complete(self, node: Any, ptr: str, base: str, depth: int) -> Term:
        """A term T with C ∩ Valid(node) ⊆ T ⊆ Valid(node): its complement within C is exact.

        Raises `_Inexact` naming the first keyword whose language would miss some document of C
        (object keywords, format, contains, uniqueItems, enum values that are arrays or objects,
        numeric bounds that are rounded), so the caller can refuse or negate structurally.
        """
        if node is True:
            return self.universe(depth)
        if node is False:
            return EMPTY
        if not isinstance(node, dict):
            raise _Inexact(ptr, None, "not a schema")
        key = (id(node), base, depth)
        found = self._complete.get(key)
        if found is not None:
            return found
        if key in self._completing or len(self._completing) > 400:
            raise _Inexact(ptr, "$ref", "a $ref cycle without an array in between")
        self._completing.add(key)
        try:
            found = self._complete_schema(node, ptr, child_base(base, node), depth)
        finally:
            self._completing.discard(key)
        self._complete[key] = found
        return found

    def _resolve_or_inexact(self, ref: Any, base: str, where: str) -> tuple[Any, str, str]:
        """`SchemaIndex.resolve`, with an unresolvable reference reported as `_Inexact`."""
        try:
            return self.index.resolve(ref, base, where)
        except SchemaError as e:
            raise _Inexact(e.pointer, e.keyword, e.message) from None

    def _complete_schema(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        parts: list[Term] = []
        for key, value in node.items():
            where = pointer_append(ptr, key)
            if key in ANNOTATIONS or key in _EXACT_KEYWORDS:
                continue
            if key == "$ref":
                target, target_ptr, target_base = self._resolve_or_inexact(value, base, where)
                parts.append(self.complete(target, target_ptr, target_base, depth))
            elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list) and value:
                terms = [self.complete(sub, pointer_append(where, i), base, depth) for i, sub in enumerate(value)]
                if key == "allOf":
                    parts.extend(terms)
                elif key == "anyOf":
                    parts.append(alt(*terms))
                else:
                    parts.append(alt(*(inter(t, *(self.outside(u, depth) for j, u in enumerate(terms) if j != i))
                                       for i, t in enumerate(terms))))
            elif key == "not":
                parts.append(self.outside(self.complete(value, where, base, depth), depth))
            elif key == "if":
                condition = self.complete(value, where, base, depth)
                then = self.complete(node.get("then", True), pointer_append(ptr, "then"), base, depth)
                otherwise = self.complete(node.get("else", True), pointer_append(ptr, "else"), base, depth)
                parts.append(alt(inter(condition, then), inter(self.outside(condition, depth), otherwise)))
            elif key == "format":
                raise _Inexact(where, key, "a format's language is narrower than what FormatChecker "
                                           "accepts; write a pattern instead")
            elif key == "uniqueItems" and value is False:
                continue
            elif key in ("contains", "minContains", "maxContains"):
                continue  # `_complete_array` counts the items that match
            elif key in _OBJECT_KEYWORDS:
                raise _Inexact(where, key, f"{key}: object keywords are written in one property order, so "
                                           "their language misses objects of other key orders")
            elif key in _HANDLED or key in _REFUSED or not self.ignore_unknown:
                raise _Inexact(where, key, f"{key} is compiled narrower than it validates")
        parts.append(self._complete_flat(node, ptr, base, depth))
        return inter(*parts)

    def _complete_flat(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        """The type, enum/const and leaf keywords of `node`, every document of C they allow."""
        types = _ALL_TYPES
        if "type" in node:
            names = _type_names(node["type"])
            if names is None:
                raise _Inexact(pointer_append(ptr, "type"), "type", "not a valid type")
            types = _expand(names)
        terms = _scalar_literals(types)
        if "number" in types or "integer" in types:
            bounds = self._bounds(node, ptr)
            if bounds is None:
                raise _Inexact(ptr, None, "invalid numeric keywords")
            build = json_number_term if "number" in types else json_integer_term
            terms.append(self._exact_leaf(ptr, build, **bounds))
        if "string" in types:
            terms.append(self._exact_leaf(ptr, json_string_term, min_length=node.get("minLength", 0),
                                          max_length=node.get("maxLength"), pattern=node.get("pattern")))
        if "array" in types and depth > 0:
            terms.append(self._complete_array(node, ptr, base, depth))
        if "object" in types and depth > 0:
            terms.append(self.any_value(depth, frozenset({"object"})))
        flat = alt(*terms)
        if "enum" in node or "const" in node:
            values = [node["const"]] if "const" in node else node["enum"]
            if not isinstance(values, list):
                raise _Inexact(pointer_append(ptr, "enum"), "enum", "enum must be a list")
            keyword = "const" if "const" in node else "enum"
            flat = inter(flat, alt(*(self._every_spelling(v, pointer_append(ptr, keyword), keyword) for v in values)))
        return flat

    def _exact_leaf(self, ptr: str, build, place: tuple[str, str] | None = None, **keywords) -> Term:
        """A leaf term, or `_Inexact` at the keyword of its first narrowing note (or at `place`,
        a (pointer, keyword) pair). No narrowing within C: "without an exponent" (C has none),
        "decimals that only round onto the bound" (they lie within 1e-90 of zero, where the only
        decimal of C is 0, an integer, which the bounds compare exactly), and "multipleOf k: only
        integers" for an integer k (a fraction of C is never integer-valued, so never a multiple)."""
        notes: list[str] = []
        try:
            term = build(notes=notes, **keywords)
        except SchemaError as e:
            raise _Inexact(place[0] if place else ptr, place[1] if place else e.keyword, e.message) from None
        for text in notes:
            integer_divisor = isinstance(keywords.get("multiple_of"), int)
            if not (text.endswith("numbers are written without an exponent") or "satisfies" in text
                    or "decimals that only round onto the bound" in text
                    or (integer_divisor and text.startswith("multipleOf"))):
                word = text.split(":")[0].split()[0]
                raise _Inexact(*(place or (pointer_append(ptr, word), word)), text)
        return term

    def _every_spelling(self, value: Any, ptr: str, keyword: str) -> Term:
        """Every text of C that ``jsonschema`` finds equal to the scalar `value`."""
        if value is None:
            return literal(b"null")
        if isinstance(value, bool):
            return literal(b"true" if value else b"false")
        if isinstance(value, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
                raise _Inexact(ptr, keyword, "a string with a lone surrogate")
            quote = byte(0x22)
            return concat(quote, *(encoded_chars(((ord(c), ord(c)),)) for c in value), quote)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return self._exact_leaf(ptr, json_number_term, (ptr, keyword), minimum=value, maximum=value)
        raise _Inexact(ptr, keyword, f"{keyword} values that are arrays or objects are written in one "
                                     "spelling and key order; list scalar values, or negate by properties")

    def _complete_array(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        least = self._count(node, ptr, "minItems") or 0
        most = self._count(node, ptr, "maxItems")
        items = node.get("items", True)
        prefix: list[tuple[Any, str]] = []
        items_ptr = pointer_append(ptr, "items")
        if isinstance(items, list):
            prefix = [(s, pointer_append(items_ptr, i)) for i, s in enumerate(items)]
            items, items_ptr = node.get("additionalItems", True), pointer_append(ptr, "additionalItems")
        elif isinstance(node.get("prefixItems"), list):
            where = pointer_append(ptr, "prefixItems")
            prefix = [(s, pointer_append(where, i)) for i, s in enumerate(node["prefixItems"])]
        if items is False:
            most = len(prefix) if most is None else min(most, len(prefix))
        prefix_terms = [self.complete(s, p, base, depth - 1) for s, p in prefix]
        rest = EMPTY if items is False else self.complete(items, items_ptr, base, depth - 1)
        if "contains" not in node:
            return self._sequence(prefix_terms, rest, least, most)
        if prefix:
            raise _Inexact(pointer_append(ptr, "contains"), "contains", "contains beside prefixItems")
        at_least = self._count(node, ptr, "minContains")
        contained = self.complete(node["contains"], pointer_append(ptr, "contains"), base, depth - 1)
        return self._counting(inter(rest, contained), inter(rest, self.outside(contained, depth - 1)),
                              1 if at_least is None else at_least, self._count(node, ptr, "maxContains"),
                              least, most)

    def _looks_into_arrays(self, node: Any, base: str, seen: set | None = None) -> bool:
        """Whether an exact subschema has an array keyword anywhere in place (if not, every array
        satisfies it or none does)."""
        seen = set() if seen is None else seen
        if not isinstance(node, dict) or id(node) in seen:
            return False
        seen.add(id(node))
        if any(k in node for k in _ARRAY_KEYWORDS if k != "uniqueItems") or node.get("uniqueItems") is True:
            return True
        if any(isinstance(v, (list, dict)) for v in node.get("enum", []) if isinstance(node.get("enum"), list)):
            return True
        if isinstance(node.get("const"), (list, dict)):
            return True
        subs = [node.get(k) for k in ("not", "if", "then", "else")]
        subs += [s for k in ("allOf", "anyOf", "oneOf") if isinstance(node.get(k), list) for s in node[k]]
        if "$ref" in node:
            try:
                subs.append(self.index.resolve(node["$ref"], child_base(base, node))[0])
            except SchemaError:
                return True
        return any(self._looks_into_arrays(sub, base, seen) for sub in subs)

    def _decide(self, compiled, exact: Term, node: Any, base: str, depth: int, types: frozenset,
                keep: bool) -> Term:
        """The documents of `compiled(types)` that satisfy (`keep`) or fail the exact subschema
        `node` (its `complete` term `exact`). Objects are decided by their type alone (an exact
        subschema has no object keywords), arrays too when it has no array keywords; the rest is
        intersected with `exact` or its complement within C."""
        side = exact if keep else self.outside(exact, depth)
        parts = [inter(compiled(types - {"array", "object"}), side)]
        for kind, empty in (("object", b"{}"), ("array", b"[]")):
            if kind not in types or depth == 0:
                continue
            if kind == "array" and self._looks_into_arrays(node, base):
                parts.append(inter(compiled(frozenset({kind})), side))
            elif matches(exact, empty) == keep:
                parts.append(compiled(frozenset({kind})))
        return alt(*parts)

    def _exact_or_refuse(self, node: Any, ptr: str, base: str, depth: int, keyword: str) -> Term | None:
        """`complete`, or None after refusing with the narrowing that prevents the complement."""
        try:
            return self.complete(node, ptr, base, depth)
        except _Inexact as e:
            self.refuse(e.pointer, e.keyword, f"{keyword} needs the complement of the subschema at "
                                              f"{ptr or '(root)'}, which cannot be exact: {e.reason}")
            return None

    def negations(self, node: Any, ptr: str, base: str, depth: int, hops: int = 0) -> list[list[Any]]:
        """Cases whose union is the documents failing `node`: each case a list of schemas that,
        merged with the enclosing schema, imply the failure. An exact subschema is one case
        ``[{"not": node}]``; otherwise it is split structurally: ``required`` name k missing
        (``properties: {k: false}``), a present property k failing its schema (``not`` of it, again
        split if need be), and the other keywords' ``not``; combinators by De Morgan.
        Raises `_Inexact` where neither works."""
        if _is_true(node):
            return []
        if node is False:
            return [[]]
        try:
            self.complete(node, ptr, base, depth)
            return [[{"not": node}]]
        except _Inexact as e:
            if not isinstance(node, dict) or hops > _MAX_NEGATION_HOPS or child_base(base, node) != base:
                raise
            first = e.with_traceback(None)  # kept past the handler: its traceback (or its context's)
            first.__context__ = None        # would hold this frame, a reference cycle
        cases: list[list[Any]] = []
        plain: dict[str, Any] = {}
        for key, value in node.items():
            where = pointer_append(ptr, key)
            if key in ANNOTATIONS or key in ("then", "else"):
                continue
            if key == "$ref":
                target, target_ptr, target_base = self._resolve_or_inexact(value, base, where)
                if target_base != base:
                    raise first
                cases += self.negations(target, target_ptr, base, depth, hops + 1)
            elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list) and value:
                each = [self.negations(sub, pointer_append(where, i), base, depth, hops + 1)
                        for i, sub in enumerate(value)]
                if key == "allOf":
                    cases += [case for alternatives in each for case in alternatives]
                else:
                    cases += self._all_fail(each, where)
                    if key == "oneOf":
                        cases += [[a, b] for i, a in enumerate(value) for b in value[i + 1:]]
            elif key == "not":
                cases.append([value])
            elif key == "if":
                then = self.negations(node.get("then", True), pointer_append(ptr, "then"), base, depth, hops + 1)
                otherwise = self.negations(node.get("else", True), pointer_append(ptr, "else"), base, depth, hops + 1)
                cases += [[value, *case] for case in then]
                cases += [a + b for a in self.negations(value, where, base, depth, hops + 1) for b in otherwise]
            elif key == "required" and isinstance(value, list) and all(isinstance(n, str) for n in value):
                cases += [[{"type": "object", "properties": {name: False}}] for name in value]
            elif key == "properties" and isinstance(value, dict):
                cases += [[{"type": "object", "required": [name], "properties": {name: {"not": sub}}}]
                          for name, sub in value.items() if not _is_true(sub)]
            elif key == "additionalProperties" and _is_true(value):
                continue
            elif (key == "additionalProperties" and value is False and not node.get("patternProperties")
                  and isinstance(node.get("properties", {}), dict)):
                listed = len(node.get("properties", {}))
                self.note(where, f"failing additionalProperties: false is written only as an object with "
                                 f"more than {listed} properties (so one is unlisted)")
                cases.append([{"type": "object", "minProperties": listed + 1}])
            elif key in _OBJECT_KEYWORDS:
                raise _Inexact(where, key, f"the complement of {key} is not compiled (only of properties, "
                                           "required and additionalProperties: false); express the "
                                           "alternatives with properties and required")
            else:
                plain[key] = value
        if not _is_true(plain):
            self._keep.append(plain)
            self.complete(plain, ptr, base, depth)  # raises where the other keywords are not exact
            cases.append([{"not": plain}])
        if len(cases) > MAX_ANYOF_PRODUCT:
            raise _Inexact(ptr, None, f"its complement has {len(cases)} cases, over the limit of {MAX_ANYOF_PRODUCT}")
        self._keep.append(cases)
        return cases

    def _all_fail(self, each: list[list[list[Any]]], where: str) -> list[list[Any]]:
        """The cases where every branch fails: one case of each branch's, merged together."""
        total = math.prod(len(cases) for cases in each)
        if total > MAX_ANYOF_PRODUCT:
            raise _Inexact(where, where.rsplit("/", 1)[-1], f"failing every branch makes {total} cases, "
                                                           f"over the limit of {MAX_ANYOF_PRODUCT}")
        return [[schema for case in combination for schema in case] for combination in itertools.product(*each)]

    def _negated_or_refuse(self, node: Any, ptr: str, base: str, depth: int, keyword: str) -> bool:
        """Whether `node` can be negated (exactly, or structurally); refuses where it cannot."""
        try:
            self.negations(node, ptr, base, depth)
            return True
        except _Inexact as e:
            self.refuse(e.pointer, e.keyword, f"{keyword} needs the documents failing the subschema at "
                                              f"{ptr or '(root)'}, which cannot be compiled exactly: {e.reason}")
            return False

    def _not(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """``not``: within C minus the subschema's exact term, or, where that term is not exact
        (objects with properties), as the cases of `negations` merged into the schema at hand."""
        negated, where = node["not"], pointer_append(ptr, "not")
        rest = {k: v for k, v in node.items() if k != "not"}
        self._keep.append(rest)
        if negated is False:
            return self.term(rest, ptr, base, depth, types)
        if _is_true(negated):
            return EMPTY
        try:
            exact = self.complete(negated, where, base, depth)
        except _Inexact:
            if not self._negated_or_refuse(negated, where, base, depth, "not"):
                return EMPTY
            if not _is_true(rest.get("unevaluatedProperties", True)):
                # The cases list properties, but a failing subschema evaluates none.
                return self.refuse(pointer_append(ptr, "unevaluatedProperties"), "unevaluatedProperties",
                                   "unevaluatedProperties beside not, if/then/else or oneOf over object "
                                   "properties: write additionalProperties, or the properties, instead")
            self.note(where, "not: compiled as the cases that fail it (a required property missing, a "
                             "property failing its schema), each merged into this schema: one object, "
                             "in this schema's property order")
            return alt(*(self.merged_term([rest, *case], ptr, base, depth, types)
                         for case in self.negations(negated, where, base, depth)))
        self.note(where, _UNIVERSE_NOTE)
        return self._decide(lambda kinds: self.term(rest, ptr, base, depth, kinds), exact, negated, base,
                            depth, types, keep=False)

    def _one_of(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """Overlapping ``oneOf``: ⋃ᵢ (branch i and not any other branch), each merged with the rest."""
        branches, where = node["oneOf"], pointer_append(ptr, "oneOf")
        if not isinstance(branches, list) or not branches:
            return self.refuse(where, "oneOf", "oneOf must be a non-empty list of schemas")
        if not all([self._negated_or_refuse(b, pointer_append(where, i), base, depth, "oneOf")
                    for i, b in enumerate(branches)]):
            return EMPTY
        rest = {k: v for k, v in node.items() if k != "oneOf"}
        self._keep.append(rest)
        self.note(where, "oneOf: each branch merged with the complement of the others (a not of their "
                         "anyOf) and with this schema, in this schema's property order")
        terms = []
        for i, branch in enumerate(branches):
            others = [{"not": b} for j, b in enumerate(branches) if j != i]
            self._keep.append(others)
            terms.append(self.merged_term([rest, branch, *others], pointer_append(where, i), base, depth, types))
        return alt(*terms)

    def _if_then_else(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """(if and then) or (not if and else), each merged with the rest of the schema."""
        condition, where = node["if"], pointer_append(ptr, "if")
        if not self._negated_or_refuse(condition, where, base, depth, "if"):
            return EMPTY
        rest = {k: v for k, v in node.items() if k not in ("if", "then", "else")}
        negated = {"not": condition}
        self._keep.extend([rest, negated])
        self.note(where, "if/then/else: (if and then) or (not if and else), each merged into this "
                         "schema: one object, in the merged property order")
        return alt(self.merged_term([rest, condition, node.get("then", True)], ptr, base, depth, types),
                   self.merged_term([rest, negated, node.get("else", True)], ptr, base, depth, types))

    def _types_of(self, node: Any, base: str, hops: int = 0) -> frozenset:
        """The JSON types a schema can possibly allow (an over-approximation)."""
        if node is False:
            return frozenset()
        if not isinstance(node, dict) or hops > 20:
            return _ALL_TYPES
        found = _ALL_TYPES
        if isinstance(node.get("type"), (str, list)):
            found = _expand(node["type"])
        if "const" in node:
            found &= frozenset(_type_of(node["const"]))
        if isinstance(node.get("enum"), list):
            found &= frozenset(t for v in node["enum"] for t in _type_of(v))
        if "$ref" in node:
            try:
                target, _, target_base = self.index.resolve(node["$ref"], child_base(base, node))
            except SchemaError:
                return found
            found &= self._types_of(target, target_base, hops + 1)
        for sub in node.get("allOf", []) if isinstance(node.get("allOf"), list) else []:
            found &= self._types_of(sub, base, hops + 1)
        return found

    def _disjoint(self, branches: Any, base: str) -> bool:
        """Whether no instance can match two of `branches`: for each pair, their possible types do
        not meet, or both are objects that require one property with disjoint const/enum values
        (a discriminator, as Pydantic writes tagged unions)."""
        if not isinstance(branches, list):
            return False
        types = [self._types_of(branch, base) for branch in branches]
        tags = [self._tags(branch, base) for branch in branches]
        objects = frozenset({"object"})
        for i in range(len(branches)):
            for j in range(i):
                if not types[i] & types[j]:
                    continue
                if not (types[i] | types[j]) <= objects:
                    return False
                if not any(not any(json_equal(a, b) for a in tags[i][k] for b in tags[j][k])
                           for k in tags[i].keys() & tags[j].keys()):
                    return False
        return True

    def _tags(self, branch: Any, base: str) -> dict[str, list[Any]]:
        """The required properties of a branch whose values are a const or an enum: name -> values."""
        for _ in range(20):
            if not isinstance(branch, dict) or "$ref" not in branch:
                break
            try:
                branch, _, base = self.index.resolve(branch["$ref"], child_base(base, branch))
            except SchemaError:
                return {}
        if not isinstance(branch, dict) or not isinstance(branch.get("properties"), dict):
            return {}
        required = branch.get("required", [])
        tags = {}
        for name, schema in branch["properties"].items():
            values = self._finite_values(schema, base) if isinstance(required, list) and name in required else None
            if values is not None:
                tags[name] = values
        return tags

    def _dependent_schemas(self, node: dict) -> dict[str, Any]:
        found = {}
        for keyword in ("dependentSchemas", "dependencies"):
            value = node.get(keyword)
            if isinstance(value, dict):
                found.update({name: s for name, s in value.items()
                              if isinstance(s, (dict, bool)) and not _is_true(s)})
        return found

    def _split_dependent(self, node: dict, dependent: dict, ptr: str, base: str, depth: int,
                         types: frozenset) -> Term:
        """Objects with the first dependent name absent, or present and valid against its schema."""
        name, schema = next(iter(dependent.items()))
        rest = dict(node)
        for keyword in ("dependentSchemas", "dependencies"):
            if isinstance(rest.get(keyword), dict) and isinstance(rest[keyword].get(name), (dict, bool)):
                rest[keyword] = {k: v for k, v in rest[keyword].items() if k != name}
        self._keep.append(rest)
        others = self.term(rest, ptr, base, depth, types - {"object"})
        objects = frozenset({"object"})
        absent = self.merged_term([rest, {"properties": {name: False}}], ptr, base, depth, objects, own=2)
        present = self.merged_term([rest, {"required": [name]}, schema], ptr, base, depth, objects, own=2)
        return alt(others, absent, present)

    # -- one schema without combinators: each keyword applies to its own type ------------------------

    def _flat(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        if "type" in node:
            given = node["type"]
            names = _type_names(given)
            if names is None:
                return self.refuse(pointer_append(ptr, "type"), "type",
                                   f"type must be one of {', '.join(TYPES)} or a list of them, got {given!r}")
            types = types & _expand(names)
        if "enum" in node or "const" in node:
            return self._values(node, ptr, base, depth, types)
        terms = _scalar_literals(types)
        if "number" in types or "integer" in types:
            terms.append(self._number(node, ptr, "number" if "number" in types else "integer"))
        if "string" in types:
            terms.append(self._string(node, ptr))
        if "array" in types:
            terms.append(self._array(node, ptr, base, depth))
        if "object" in types:
            terms.append(self._object(node, ptr, base, depth))
        return alt(*terms)

    def _values(self, node: dict, ptr: str, base: str, depth: int, types: frozenset) -> Term:
        """enum/const: the listed values that also satisfy the schema's other keywords, as written."""
        candidates: list[tuple[Any, str]] = []
        if "enum" in node:
            values = node["enum"]
            if not isinstance(values, list):
                return self.refuse(pointer_append(ptr, "enum"), "enum", f"enum must be a list, got {values!r}")
            candidates = [(v, pointer_append(pointer_append(ptr, "enum"), i)) for i, v in enumerate(values)]
        if "const" in node:
            const = node["const"]
            if "enum" in node:
                candidates = [(v, p) for v, p in candidates if json_equal(v, const)]
            else:
                candidates = [(const, pointer_append(ptr, "const"))]
        rest = {k: v for k, v in node.items() if k not in ("enum", "const")}
        self._keep.append(rest)
        # Values of a type outside `types` are left out exactly (the caller splits by type): no note.
        candidates = [(v, p) for v, p in candidates if types & frozenset(_type_of(v))]
        types = types & frozenset(t for v, _ in candidates for t in _type_of(v))
        if not candidates:
            return EMPTY
        others = self.term(rest, ptr, base, depth, types) if rest else self.any_value(depth, types)
        kept: list[Term] = []
        derived: list[Term] = []  # derivatives of `others` alive across the values: shared prefixes
        for value, where in candidates:
            try:
                text = self.w.text(value)
            except (TypeError, ValueError) as e:
                self.refuse(where, "enum" if "enum" in node else "const", f"not a JSON value ({e})")
                continue
            if derivative_of_string(others, text, derived).nullable:
                kept.append(self.w.value(value))
            else:
                self.note(where, "this value is not written: it fails the schema's other keywords as "
                                 "written (type, bounds, property order, depth)")
        if not kept:
            self.note(ptr, "no enum/const value is allowed here: nothing is written")
        return alt(*kept)

    # -- leaves (brzozowski.json.leaf_terms) ------------------------------------------------------------

    def _leaf(self, ptr: str, build, **keywords) -> Term:
        notes: list[str] = []
        try:
            term = build(notes=notes, **keywords)
        except SchemaError as e:
            return self.refuse(pointer_append(ptr, e.keyword) if e.keyword else ptr, e.keyword, e.message)
        for text in notes:
            self.note(ptr, text)
        return term

    def _string(self, node: dict, ptr: str) -> Term:
        fmt = node.get("format")
        if fmt is not None and fmt not in FORMATS:
            where = pointer_append(ptr, "format")
            if fmt in _STANDARD_FORMATS or not self.ignore_unknown:
                return self.refuse(where, "format", f"format {fmt!r} is not supported (supported: "
                                                    f"{', '.join(sorted(FORMATS)) or 'none yet'}); "
                                                    "remove it or write a pattern")
            self.note(where, f"unknown format {fmt!r} ignored (validators ignore it too)")
            fmt = None
        for keyword in ("minLength", "maxLength"):
            if keyword in node and (isinstance(node[keyword], bool) or not isinstance(node[keyword], int)
                                    or node[keyword] < 0):
                return self.refuse(pointer_append(ptr, keyword), keyword,
                                   f"{keyword} must be a non-negative integer, got {node[keyword]!r}")
        return self._leaf(ptr, json_string_term, min_length=node.get("minLength", 0),
                          max_length=node.get("maxLength"), pattern=node.get("pattern"), format=fmt)

    def _bounds(self, node: dict, ptr: str) -> dict[str, Any] | None:
        """The numeric keywords as `json_number_term` arguments, or None after refusing a bad one."""
        given = {keyword: node.get(keyword) for keyword in _NUMBER_KEYWORDS}
        for plain, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if given[exclusive] is True:  # draft 4: a flag that makes minimum/maximum exclusive
                given[exclusive], given[plain] = given[plain], None
            elif given[exclusive] is False:
                given[exclusive] = None
        bounds: dict[str, Any] = {}
        for keyword, value in given.items():
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.refuse(pointer_append(ptr, keyword), keyword, f"{keyword} must be a number, got {value!r}")
                return None
            bounds[_NUMBER_ARGUMENTS[keyword]] = value
        return bounds

    def _number(self, node: dict, ptr: str, kind: str) -> Term:
        bounds = self._bounds(node, ptr)
        if bounds is None:
            return EMPTY
        build = json_number_term if kind == "number" else json_integer_term
        return self._leaf(ptr, build, **bounds)

    # -- arrays --------------------------------------------------------------------------------------

    def _count(self, node: dict, ptr: str, keyword: str) -> int | None:
        value = node.get(keyword)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
            self.refuse(pointer_append(ptr, keyword), keyword, f"{keyword} must be a non-negative integer, got {value!r}")
            return None
        return int(value)

    def _array(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        if depth == 0:
            if node is not _ANY:  # "any value" is bounded everywhere: the root note says so
                self.note(ptr, f"arrays nested deeper than max_depth={self.max_depth} are not written")
            return EMPTY
        least = self._count(node, ptr, "minItems") or 0
        most = self._count(node, ptr, "maxItems")
        prefix: list[tuple[Any, str]] = []
        items: Any = node.get("items", node.get("unevaluatedItems", True))
        items_ptr = pointer_append(ptr, "items")
        if isinstance(items, list):  # draft 4-7: items is the tuple, additionalItems the rest
            prefix = [(s, pointer_append(items_ptr, i)) for i, s in enumerate(items)]
            items, items_ptr = node.get("additionalItems", node.get("unevaluatedItems", True)), pointer_append(ptr, "additionalItems")
        elif isinstance(node.get("prefixItems"), list):
            prefix = [(s, pointer_append(pointer_append(ptr, "prefixItems"), i))
                      for i, s in enumerate(node["prefixItems"])]
        if items is False:
            most = len(prefix) if most is None else min(most, len(prefix))
        unique = node.get("uniqueItems") is True and (most is None or most > 1)
        if unique and (prefix or "contains" in node):
            return self.refuse(pointer_append(ptr, "uniqueItems"), "uniqueItems",
                               "uniqueItems: true beside prefixItems or contains can fail (two equal "
                               "items) and is not a regular constraint; write maxItems: 1 or drop it")
        prefix_terms = [self.term(s, p, base, depth - 1) for s, p in prefix]
        rest = EMPTY if items is False else self.term(items, items_ptr, base, depth - 1)
        if unique:
            return self._unique(node, ptr, base, items, rest, least, most)
        if "contains" in node and "maxContains" in node:
            if prefix:
                return self.refuse(pointer_append(ptr, "contains"), "contains", "contains and maxContains "
                                   "beside prefixItems: write the matching items into prefixItems instead")
            return self._counted(node, ptr, base, depth, items, items_ptr, least, most)
        if "contains" in node:
            contained = self._contains(node, ptr, base, depth, prefix, items)
            if contained is None:
                return EMPTY
            prefix_terms = contained + prefix_terms
            least = max(least, len(contained))
        return self._sequence(prefix_terms, rest, least, most)

    def _unique(self, node: dict, ptr: str, base: str, items: Any, rest: Term, least: int,
                most: int | None) -> Term:
        """uniqueItems: the items fill distinct slots in a fixed order, so no two can be equal: one
        slot per value of a finite enum, else one per kind (null, true, false, a number, an array,
        an object, the empty string, a string per plain-ASCII first character)."""
        values = self._finite_values(items, base)
        if values is not None:
            derived: list[Term] = []  # derivatives of `rest` alive across the values
            slots = [self.w.value(v) for v in values if derivative_of_string(rest, self.w.text(v), derived).nullable]
            self.note(pointer_append(ptr, "uniqueItems"), "uniqueItems: each allowed value at most once, "
                                                          "in the order of the enum")
        else:
            slots = [literal(word) if matches(rest, word) else EMPTY for word in (b"null", b"true", b"false")]
            slots.append(alt(*(concat(byte(d), derivative(rest, d)) for d in b"-0123456789")))
            slots += [concat(byte(b), derivative(rest, b)) for b in b"[{"]
            slots.append(literal(b'""') if matches(rest, b'""') else EMPTY)
            inside = derivative(rest, 0x22)
            slots += [concat(byte(0x22), byte(c), derivative(inside, c)) for c in _FIRST_CHARACTERS[1:]]
            self.note(pointer_append(ptr, "uniqueItems"), "uniqueItems: at most one null, true, false, "
                      "number, array and object; strings start with distinct plain-ASCII characters, ascending")
        slots = [slot for slot in slots if slot is not EMPTY]
        cap = min(max(least, 1 if most is None else most + 1), len(slots) + 1)
        inside = self._others(slots, cap, least, most)[0, True, 0]
        return self.w.container("[", inside, least == 0, "]")

    def _finite_values(self, schema: Any, base: str) -> list[Any] | None:
        """The distinct values of an enum/const schema (through plain $refs), or None."""
        for _ in range(20):
            if not isinstance(schema, dict):
                return None
            if "enum" in schema and isinstance(schema["enum"], list):
                values = schema["enum"] if "const" not in schema else [schema["const"]]
                distinct: dict[Any, Any] = {}
                for value in values:
                    distinct.setdefault(json_key(value), value)
                return list(distinct.values())
            if "const" in schema:
                return [schema["const"]]
            if "$ref" not in schema:
                return None
            try:
                schema, _, base = self.index.resolve(schema["$ref"], child_base(base, schema))
            except SchemaError:
                return None
        return None

    def _contains(self, node: dict, ptr: str, base: str, depth: int, prefix: list, items: Any) -> list[Term] | None:
        """The items that satisfy ``contains``, written first (minContains of them)."""
        where = pointer_append(ptr, "contains")
        at_least = self._count(node, ptr, "minContains")
        at_least = 1 if at_least is None else at_least
        if at_least == 0:
            return []
        if prefix:
            self.refuse(where, "contains", "contains beside prefixItems: write the matching item into "
                                           "prefixItems instead")
            return None
        self.note(where, f"the {at_least} item(s) that match contains are written first")
        return [self._merged_term([items, node["contains"]], where, base, depth - 1)] * at_least

    def _counted(self, node: dict, ptr: str, base: str, depth: int, items: Any, items_ptr: str, least: int,
                 most: int | None) -> Term:
        """contains with maxContains: each item satisfies contains (Y) or fails it (N), decided with
        the exact term of contains; minContains..maxContains of them are Y, in any position."""
        where = pointer_append(ptr, "contains")
        at_least = self._count(node, ptr, "minContains")
        at_least = 1 if at_least is None else at_least
        at_most = self._count(node, ptr, "maxContains")
        exact = self._exact_or_refuse(node["contains"], where, base, depth - 1, "maxContains")
        if exact is None or at_most is None:
            return EMPTY
        if at_least > at_most:
            self.note(where, "minContains is above maxContains: no array is written")
            return EMPTY
        self.note(where, f"contains with maxContains: {_UNIVERSE_NOTE}")

        def compiled(kinds: frozenset) -> Term:
            return EMPTY if items is False else self.term(items, items_ptr, base, depth - 1, kinds)

        yes = self._decide(compiled, exact, node["contains"], base, depth - 1, _ALL_TYPES, keep=True)
        no = self._decide(compiled, exact, node["contains"], base, depth - 1, _ALL_TYPES, keep=False)
        return self._counting(yes, no, at_least, at_most, least, most)

    def _counting(self, yes: Term, no: Term, at_least: int, at_most: int | None, least: int,
                  most: int | None) -> Term:
        """Arrays of `least`..`most` items, each from `yes` or `no` (disjoint), at_least..at_most
        of them from `yes` (at_most None: no upper bound)."""
        sep = self.w.item_sep
        top = at_least if at_most is None else at_most  # matches counted up to here
        # after[n, c]: what may follow once n items (capped at `cap`) are written, c of them matching.
        cap = max(least, 1) if most is None else most
        after: dict[tuple[int, int], Term] = {}
        for n in range(cap, 0, -1):
            for c in range(top, -1, -1):
                end = EPSILON if c >= at_least and n >= least else EMPTY
                if most is not None and n == most:
                    after[n, c] = end
                    continue
                if n == cap and c == top and at_most is None:  # enough matches, and items: any
                    after[n, c] = concat(star(concat(sep, alt(yes, no))), end)
                    continue
                if c < top:
                    more = concat(sep, yes, after[min(n + 1, cap), c + 1])
                else:
                    more = EMPTY if at_most is not None else concat(sep, yes, after[min(n + 1, cap), c])
                if n == cap:  # most is None: the count of items no longer matters
                    after[n, c] = concat(star(concat(sep, no)), alt(end, more))
                else:
                    after[n, c] = alt(end, more, concat(sep, no, after[n + 1, c]))
        if cap == 0:
            inside = EMPTY
        else:
            inside = alt(concat(no, after[1, 0]), concat(yes, after[1, min(1, top)]) if at_most != 0 else EMPTY)
        return self.w.container("[", inside, at_least == 0 and least == 0, "]")

    def _sequence(self, prefix: list[Term], rest: Term, least: int, most: int | None) -> Term:
        """``[`` p1, p2, …, then items of `rest` ``]``, least..most items in all."""
        if most is not None and most < least:
            return EMPTY
        sep = self.w.item_sep
        usable = len(prefix) if most is None else min(len(prefix), most)
        # tail: what may follow once i items are written, built from i = usable down to i = 1.
        tail = repeat(concat(sep, rest), max(least - usable, 0), None if most is None else most - usable)
        for i in range(usable - 1, 0, -1):
            step = concat(sep, prefix[i], tail)
            tail = alt(EPSILON, step) if i >= least else step
        if usable:
            first = concat(prefix[0], tail)
        elif most == 0:
            first = EMPTY
        else:
            first = concat(rest, repeat(concat(sep, rest), max(least - 1, 0), None if most is None else most - 1))
        return self.w.container("[", first, least == 0, "]")

    # -- objects -------------------------------------------------------------------------------------

    def _object(self, node: dict, ptr: str, base: str, depth: int) -> Term:
        if depth == 0:
            if node is not _ANY:  # "any value" is bounded everywhere: the root note says so
                self.note(ptr, f"objects nested deeper than max_depth={self.max_depth} are not written")
            return EMPTY
        props = node.get("properties", {})
        required = node.get("required", [])
        patterns = node.get("patternProperties", {})
        if not isinstance(props, dict):
            return self.refuse(pointer_append(ptr, "properties"), "properties", "properties must be an object")
        if not isinstance(patterns, dict):
            return self.refuse(pointer_append(ptr, "patternProperties"), "patternProperties",
                               "patternProperties must be an object")
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return self.refuse(pointer_append(ptr, "required"), "required", "required must be a list of names")
        depends: dict[str, list[str]] = {}
        for keyword in ("dependentRequired", "dependencies"):
            value = node.get(keyword, {})
            if not isinstance(value, dict):
                return self.refuse(pointer_append(ptr, keyword), keyword, f"{keyword} must be an object")
            for name, needed in value.items():
                if isinstance(needed, (list, str)):  # draft 3 allowed one name as a string
                    depends.setdefault(name, []).extend([needed] if isinstance(needed, str) else needed)
        names = list(dict.fromkeys(list(props) + required + [n for d, ns in depends.items() for n in [d, *ns]]))
        extra = node.get("additionalProperties", node.get("unevaluatedProperties"))
        names_rule = node.get("propertyNames", True)
        least = self._count(node, ptr, "minProperties") or 0
        most = self._count(node, ptr, "maxProperties")

        key_check = None if _is_true(names_rule) else self.term(
            names_rule, pointer_append(ptr, "propertyNames"), base, depth, frozenset({"string"}))
        members: list[tuple[str, Term]] = []  # (name, value): `_members` writes each onto what follows
        for name in names:
            where = pointer_append(pointer_append(ptr, "properties"), name) if name in props else ptr
            parts = [props[name]] if name in props else []
            parts += [schema for pattern, schema in patterns.items() if self._name_matches(name, pattern)]
            if not parts:
                parts = [True if extra is None else extra]
            if len(parts) == 1:
                value = self.term(parts[0], where, base, depth - 1)
            else:
                value = self._merged_term(parts, where, base, depth - 1)
            if key_check is not None and not matches(key_check, json.dumps(name).encode()):
                self.note(where, "this name fails propertyNames: it is never written")
                value = EMPTY
            members.append((name, value))
        if len(names) > 1:
            self.note(ptr, f"properties are written in the schema's order: {', '.join(names)}")

        kinds = self._other_kinds(node, ptr, base, depth, names, patterns, extra, key_check, names_rule)
        counted = self.unique_keys or most is not None or least > 1
        if kinds and counted and node is _ANY:
            self.notes.setdefault("any JSON value ({}, true, items or values without a schema): object "
                                  "keys start with distinct plain-ASCII characters, ascending", None)
        elif kinds and counted:
            self.note(ptr, "other property names start with distinct plain-ASCII characters, in ascending "
                           "order, so no two keys are equal (unique_keys=True, minProperties above 1 or "
                           "maxProperties)")
        elif kinds and node is _ANY:
            self.notes.setdefault("any JSON value ({}, true, items or values without a schema): object "
                                  "keys in any order; a key may repeat (JSON keeps the last value)", None)
        elif kinds:
            self.note(ptr, "other properties in any order, after the listed ones; a key may repeat (JSON "
                           "keeps the last value, which satisfies the same schema)")
        others = self._by_first_character(kinds) if counted else kinds
        index = {name: i for i, name in enumerate(names)}
        needs = {index[d]: frozenset(index[n] for n in ns) for d, ns in depends.items()}
        return self._members(members, [index[r] for r in required], needs, others, counted, least, most)

    def _merged_term(self, parts: list[Any], ptr: str, base: str, depth: int) -> Term:
        return self.merged_term(parts, ptr, base, depth, own=0)

    def _name_matches(self, name: str, pattern: str) -> bool:
        """Whether the property name matches a patternProperties regex (when unsure: yes, the safe side)."""
        try:
            if re.search(pattern, name):
                return True
        except re.error:
            return True
        try:
            return matches(json_string_term(pattern=pattern), json.dumps(name).encode())
        except SchemaError:
            return False

    def _other_kinds(self, node: dict, ptr: str, base: str, depth: int, names: list[str],
                     patterns: dict, extra: Any, key_check: Term | None, names_rule: Any) -> list[tuple[Term, Term]]:
        """The members beside the listed properties, as (key term, value term) pairs; an empty list
        when none are written."""
        if extra is None and self.closed and (names or patterns):
            self.note(ptr, "closed object: only the listed properties are written "
                           "(closed_objects=True and no additionalProperties)")
            return []
        if names_rule is False:
            return []
        kinds: list[tuple[Term, Term]] = []
        if key_check is not None and (names or patterns):
            self.note(ptr, "no properties beyond the listed ones are written (propertyNames beside "
                           f"listed properties {_ISSUE_12})")
            return []
        if extra is not False:
            if patterns:
                self.note(ptr, "properties matching no patternProperties are not written (that needs "
                               "the complement of the patterns)")
            else:
                if names:
                    key = _plain_keys_except(names)
                    self.note(ptr, "other property names are written as plain ASCII without escapes, "
                                   "never equal to a listed name")
                else:
                    key = key_check if key_check is not None else self._leaf(ptr, json_string_term)
                value = self.term(True if extra is None else extra,
                                  pointer_append(ptr, "additionalProperties"), base, depth - 1)
                kinds.append((key, value))
        distinct = [s for i, s in enumerate(patterns.values()) if all(s != t for t in list(patterns.values())[:i])]
        for pattern, schema in patterns.items():
            where = pointer_append(pointer_append(ptr, "patternProperties"), pattern)
            if any(self._name_matches(name, pattern) for name in names):
                self.note(where, "no other names matching this pattern are written: a listed name matches it")
                continue
            key = self._leaf(where, json_string_term, pattern=pattern)
            if len(distinct) > 1:
                value = self._merged_term(distinct, where, base, depth - 1)
                self.note(where, "values under this pattern also satisfy every other patternProperties "
                                 "schema (a name may match several patterns)")
            else:
                value = self.term(schema, where, base, depth - 1)
            kinds.append((key, value))
        return kinds

    def _by_first_character(self, kinds: list[tuple[Term, Term]]) -> list[Term]:
        """For each possible first character of a key (the empty key first, then printable ASCII
        ascending), the members of `kinds` (key term, value term) whose key starts with it."""
        quote = byte(0x22)
        insides = [derivative(key, 0x22) for key, _ in kinds]
        tails: list[dict[Term, Term]] = [{} for _ in kinds]  # rest of the key -> it, ':' and the value
        members = []
        for first in _FIRST_CHARACTERS:
            options = []
            for (key, value), inside, after in zip(kinds, insides, tails):
                if first is None:
                    if matches(key, b'""'):
                        options.append(concat(literal(b'""'), self.w.key_sep, value))
                    continue
                rest = derivative(inside, first)
                if rest is not EMPTY:
                    tail = after.get(rest)
                    if tail is None:  # most first characters leave the same rest: built once
                        tail = after[rest] = concat(rest, self.w.key_sep, value)
                    options.append(concat(quote, byte(first), tail))
            member = alt(*options)
            if member is not EMPTY:
                members.append(member)
        return members

    def _members(self, members: list[tuple[str, Term]], required: list[int], needs: dict[int, frozenset],
                 others: list, counted: bool, least: int, most: int | None) -> Term:
        """The object: listed members in order (required, optional, dependentRequired), then others.

        A state is (members written so far, capped; names that must still come; names that must
        not); built backwards over the states reachable forwards. With a count to keep
        (`counted`: maxProperties, minProperties above 1, or unique_keys), `others` are slots of
        distinct first characters in ascending order (`_by_first_character`), so every key is
        different and the count exact; else they are the (key, value) kinds, written any number of
        times in any order (`_loose`).
        """
        n = len(members)
        cap = min(max(least, 1 if most is None else most + 1), n + len(others) + 1)
        forced_out = {i: frozenset(z for z, ns in needs.items() if i in ns and z > i) for i in range(n)}
        must_have = set(required)
        layers: list[set] = [{(0, frozenset(), frozenset())}]
        for i in range(n):
            nxt = set()
            for c, must, must_not in layers[i]:
                if i not in must_not and (most is None or c + 1 <= most):
                    nxt.add((min(c + 1, cap), (must | {j for j in needs.get(i, ()) if j > i}) - {i},
                             must_not - {i}))
                if i not in must_have and i not in must:
                    nxt.add((c, must, (must_not - {i}) | forced_out[i]))
            layers.append(nxt)
        sep = self.w.item_sep
        tails = self._others(others, cap, least, most) if counted else self._loose(others)
        later: dict[tuple, Term] = {}
        for state in layers[n]:
            c, must, _ = state
            later[state] = EMPTY if must else tails[0, c == 0, c]
        for i in range(n - 1, -1, -1):
            here: dict[tuple, Term] = {}
            written: dict[tuple, Term] = {}  # member i then the state after it: its spine built once
            for state in layers[i]:
                c, must, must_not = state
                options = []
                if i not in must_not and (most is None or c + 1 <= most):
                    after = (min(c + 1, cap), (must | {j for j in needs.get(i, ()) if j > i}) - {i},
                             must_not - {i})
                    then = written.get(after)
                    if then is None:
                        name, value = members[i]
                        then = written[after] = _key_spellings(name, concat(self.w.key_sep, value, later[after]))
                    options.append(concat(sep, then) if c else then)
                if i not in must_have and i not in must:
                    options.append(later[(c, must, (must_not - {i}) | forced_out[i])])
                here[state] = alt(*options)
            later = here
        inside = later[(0, frozenset(), frozenset())]
        empty_ok = not required and least == 0
        return self.w.container("{", inside, empty_ok, "}")

    def _loose(self, kinds: list[tuple[Term, Term]]) -> dict:
        """`_others`' two cells without a count: any number of other members, each of any kind, in
        any order. A key may repeat: JSON keeps the last value, and every value written under a key
        satisfies that key's schema, so the document still validates. One term per kind, where
        distinct ascending first characters (`_by_first_character`) would build ~95 slots and make
        the state after each key's quote depend on its first character."""
        member = alt(*(concat(key, self.w.key_sep, value) for key, value in kinds))
        later = star(concat(self.w.item_sep, member))  # once something was written
        return {(0, True, 0): concat(member, later), (0, False, 1): later}

    def _others(self, others: list[Term], cap: int, least: int, most: int | None) -> dict:
        """What may follow from slot i of `others` on, by (i, nothing written yet, members written
        so far): the end needs `least` members, and something written (the empty object is
        spelled apart). Without a count to keep (no maxProperties, at most one member needed) only
        slot 0 is asked for, and one cell per slot is built, not one per (slot, first, count):
        6.4 -> 2.7 ms for an open object's 95 slots (median over the corpus). (A chain of
        optional slots, linear in size, was tried and dropped: every derivative by the separator
        then rebuilt each later slot's concatenation with its tail: the real corpus's p90 mask step
        was 3.5 ms against 1.8 ms, 42 steps over 10 ms against 20; benchmarks/README.md.)"""
        sep = self.w.item_sep
        if most is None and least <= 1:  # nothing to count: one cell per slot
            later = EPSILON  # once something was written: nothing more, or a separator and `members`
            members = EMPTY  # a member of slot i or later, then `later` of its slot
            for slot in reversed(others):
                members = alt(concat(slot, later), members)
                later = alt(EPSILON, concat(sep, members))
            return {(0, True, 0): members, (0, False, 1): later}
        memo: dict[tuple[int, bool, int], Term] = {}
        # Built from the last slot backwards; slot i is the i-th first character.
        for i in range(len(others), -1, -1):
            for first in (True, False):
                for n in range(cap + 1):
                    if i == len(others):
                        memo[i, first, n] = EMPTY if first or n < least else EPSILON
                        continue
                    skip = memo[i + 1, first, n]
                    if most is not None and n + 1 > most:
                        memo[i, first, n] = skip
                        continue
                    take = concat(EPSILON if first else sep, others[i], memo[i + 1, False, min(n + 1, cap)])
                    memo[i, first, n] = alt(skip, take)
        return memo


class _Pieces:
    """The flattened parts of an allOf that do not merge structurally, and why."""

    def __init__(self, pieces: list[Any], reason: str) -> None:
        self.pieces = pieces
        self.reason = reason


_ANY: dict = {}  # the schema of any JSON value; one object, so "any value" is memoized once per depth

def _without_strings_inside_every_string(union: Term) -> Term:
    """`union`, less its operands that only hold strings when one operand holds every string.

    ``anyOf: [{"type": "string"}, {"enum": ["a", "b"]}]`` (pydantic's ``Literal["a", "b"] | str``)
    is every string; left in, the enum's operands would keep their own states beside the string's
    (the union of ``a"`` and the rest of any string is not the state inside a string), so the
    string-interior mask tables (`brzozowski.json.string_masks`) would not recognize them. An operand
    whose every text starts with ``"`` (its `first`; a superset with ``&``/``~``) holds JSON strings
    only, written as this compiler writes them, each of which the plain string term holds."""
    everything = json_string_term()
    if union.kind != K_ALT or everything not in union.children:
        return union
    return alt(*[t for t in union.children if t is everything or t.first != _QUOTE_BIT])


_QUOTE_BIT = 1 << ord('"')


MAX_ANY_VALUES = 64
"""How many "any JSON value" terms (one per punctuation, depth and set of types) `_ANY_VALUES` keeps
(then each new one evicts the oldest): a handful per writer in practice. Each holds its derivatives
(`brzozowski.core.derivatives.keep_derivatives`). An evicted term costs time, never results."""

_ANY_VALUES: dict[tuple, tuple[Term, list[str]]] = {}


def _expand(names: Any) -> frozenset:
    names = {names} if isinstance(names, str) else set(names)
    if "number" in names:
        names.add("integer")
    return frozenset(names) & _ALL_TYPES


def _type_of(value: Any) -> list[str]:
    if value is None:
        return ["null"]
    if isinstance(value, bool):
        return ["boolean"]
    if isinstance(value, str):
        return ["string"]
    if isinstance(value, list):
        return ["array"]
    if isinstance(value, dict):
        return ["object"]
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return ["integer", "number"]
    return ["number"]


def _scalar_literals(types: frozenset) -> list[Term]:
    """The terms of ``null`` and of ``true``/``false``, for those of the two types in `types`."""
    terms = [literal(b"null")] if "null" in types else []
    if "boolean" in types:
        terms.append(alt(literal(b"true"), literal(b"false")))
    return terms


def _type_names(given: Any) -> list[str] | None:
    """The type names a ``type`` keyword lists, or None if it is not a name or a list of names."""
    names = [given] if isinstance(given, str) else given
    if not isinstance(names, list) or not all(isinstance(n, str) and n in TYPES for n in names):
        return None
    return names


def _compile(schema: Any, separators: tuple[str, str], any_whitespace: bool, closed_objects: bool,
             unknown_keywords: str, max_depth: int, unique_keys: bool) -> tuple[Term, list[str]]:
    compiler = _Compiler(schema, _Writer(separators, any_whitespace), closed_objects, unknown_keywords,
                         max_depth, unique_keys)
    term = compiler.term(schema, "", compiler.index.root_base, max_depth)
    if compiler.problems:
        problems = list(compiler.problems.values())
        first = problems[0]
        raise SchemaError(first.message, first.pointer, first.keyword, problems=problems)
    if is_empty(term):
        raise SchemaError(f"no document satisfies this schema within max_depth={max_depth} (a "
                          "contradiction, or a recursion that can never end)", "", None)
    if any_whitespace:
        term = concat(compiler.w.ws, term, compiler.w.ws)
        compiler.note("", f"whitespace: up to {MAX_WHITESPACE} bytes of JSON whitespace in every gap")
    else:
        compiler.note("", f"whitespace: exactly the separators {compiler.w.canonical!r}, none elsewhere")
    compiler.note("", f"depth: arrays and objects nest at most {max_depth} levels; deeper documents "
                      "are impossible")
    compiler.note("", "spelling: property names, enum and const strings are written as json.dumps "
                      "spells them (\\u escapes, or raw UTF-8); numbers in enum/const as json.dumps writes them")
    return term, list(compiler.notes)


def json_schema_term(schema: Any, *, separators: tuple[str, str] = (",", ":"), any_whitespace: bool = False,
                     closed_objects: bool = True, unknown_keywords: str = "refuse",
                     max_depth: int = DEFAULT_MAX_DEPTH, unique_keys: bool = False,
                     notes: list[str] | None = None) -> Term:
    """The term of the JSON documents `schema` allows, written as the options say (see the module doc).

    `notes`, if given, receives every narrowing (``pointer: text``), as `explain_json_schema` returns.

    >>> print(json_schema_term({"enum": [None, [1, "a"]]}))
    null|\\[1,"a"\\]
    """
    term, found = _compile(schema, separators, any_whitespace, closed_objects, unknown_keywords, max_depth,
                           unique_keys)
    if notes is not None:
        notes.extend(found)
    return term


def explain_json_schema(schema: Any, **options: Any) -> list[str]:
    """Every place where the compiled language is narrower than `schema`, as ``pointer: text`` lines.

    >>> for line in explain_json_schema({"properties": {"b": {"type": "null"}, "a": {"type": "null"}}}):
    ...     print(line)
    any JSON value ({}, true, items or values without a schema): object keys in any order; a key may repeat (JSON keeps the last value)
    (root): properties are written in the schema's order: b, a
    (root): closed object: only the listed properties are written (closed_objects=True and no additionalProperties)
    (root): whitespace: exactly the separators (',', ':'), none elsewhere
    (root): depth: arrays and objects nest at most 8 levels; deeper documents are impossible
    (root): spelling: property names, enum and const strings are written as json.dumps spells them (\\u escapes, or raw UTF-8); numbers in enum/const as json.dumps writes them
    """
    from .inputs import as_json_schema
    notes: list[str] = []
    json_schema_term(as_json_schema(schema), notes=notes, **options)
    return notes


def compile_json_schema(schema: Any, *, separators: tuple[str, str] = (",", ":"),
                        any_whitespace: bool = False, closed_objects: bool = True,
                        unknown_keywords: str = "refuse", max_depth: int = DEFAULT_MAX_DEPTH,
                        unique_keys: bool = False, max_states: int = DEFAULT_MAX_STATES,
                        notes: list[str] | None = None) -> LazyDFA:
    """A lazy DFA of the JSON documents `schema` allows (see the module doc for the options).

    Raises `SchemaError` listing every refused keyword with its JSON pointer. `schema` may also be
    a Pydantic model or an OpenAI ``response_format`` (`brzozowski.json.inputs.as_json_schema`).
    """
    from .inputs import as_json_schema
    term = json_schema_term(as_json_schema(schema), separators=separators, any_whitespace=any_whitespace,
                            closed_objects=closed_objects, unknown_keywords=unknown_keywords,
                            max_depth=max_depth, unique_keys=unique_keys, notes=notes)
    return LazyDFA(term, max_states=max_states)
