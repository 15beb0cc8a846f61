"""JSON Schema as people write it, compiled to terms: `compile_json_schema(schema) -> LazyDFA`.

The strict front door, `brzozowski.json.strict.json_schema_to_regex`, keeps the specification's subset.
This one takes the schemas people write (``$ref``/``$defs``, no ``type``, open objects, bounds,
formats) and builds the *term* of the JSON texts directly with the smart constructors of
`brzozowski.core.terms`: no regex text in between, so intersection and complement (issue 12) can slot
into the same recursion.

Invariant (soundness): every document the automaton accepts is JSON that ``jsonschema``
(Draft 2020-12, with ``FormatChecker``) finds valid. The language is narrower than the schema only
in ways written down in `notes` (what ``brzozowski schema --explain`` prints, each with its JSON
pointer): listed properties in schema order (unless ``property_order="any"``), nesting bounded by
``max_depth``, the chosen separators and whitespace, closed objects, and the leaves' narrowings.
A keyword that cannot be compiled exactly is refused; every refused place of the schema is collected
into one `SchemaError` (see `SchemaError.problems`), never ignored.

How the JSON values are written:

- ``separators=(item, key)``: written exactly, as ``json.dumps`` does (``(", ", ": ")`` is its default).
  ``any_whitespace=True`` instead allows JSON whitespace wherever JSON does, at most
  `MAX_WHITESPACE` bytes per gap, so a model cannot loop forever in whitespace.
- Property names, ``enum`` and ``const`` strings are spelled the two ways ``json.dumps`` spells them
  (``ensure_ascii`` escapes, or raw UTF-8).
- Listed properties come each at most once, in schema order (``property_order="schema"``) or in
  any order (``"any"``: a state per subset of them, bounded by ``max_states``; `members`), and the
  other properties (where allowed) in any order and any number, before, between and after them.
  An other key may repeat: JSON keeps the last of two equal keys, and every value written under a
  key satisfies that key's schema, so the document still validates (as llguidance and XGrammar
  write open objects). Where a count must hold (``maxProperties``, ``minProperties`` above 1) or
  with ``unique_keys=True``, the other keys start with distinct plain-ASCII characters in
  ascending order after the listed ones instead: no key can repeat (a repeated key would bypass
  the count; some parsers reject repeats), at the price of ~95 slots and of keys sharing a first
  character. Other keys are exact key sets (intersection and complement, `objects`): never a
  listed name in any spelling, within ``propertyNames``, split by the ``patternProperties``
  patterns they match; beside listed names and neither of those keywords they are plain ASCII
  without escapes (the masks read such key states off a trie of the names).
- ``closed_objects=True``: an object schema that lists properties and does not say
  ``additionalProperties`` gets only its listed properties (what tool calling wants).

Complements (``not``, overlapping ``oneOf``, ``if``/``then``/``else``, ``maxContains``; issue 12).
A term is narrower than its schema (key order, spellings, exponents), so ``~T`` could hold documents
the schema allows. Complements are therefore taken only of *exact* terms, within a universe C:

- C (`exact._Exact.universe`): the JSON values in this writing, nesting at most ``max_depth``, whose
  numbers have no exponent and, with a fraction, a non-zero last digit and at most 15 digits (so no
  C text is an integer-valued float: ``5.0`` and ``5.0000000000000001`` are integers to
  ``jsonschema``); every string spelling; objects as "any JSON value" writes them. Where a complement
  is written, the values stay in C, and ``--explain`` says so at that pointer.
- `exact._Exact.complete` builds, for a subschema without object keywords, format, contains or
  uniqueItems, a term T with C ∩ Valid(S) ⊆ T ⊆ Valid(S): enum/const strings in every spelling,
  numbers by their value (bounds by the rounding midpoint), arrays of such items, any object as
  its type alone. Then C ∖ T is exactly the documents of C that fail S. Anything else raises
  `_Inexact` with the pointer and keyword of the narrowing.
- Objects are negated *structurally* (`negation._Negation.negations`): failing ``{properties, required}``
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

The parts (each a mixin of `driver._Compiler`, one pass over one schema): `inputs` (the size and
depth limits, checked before any work), `recursion` (the memoized recursion, ``$ref``, ``allOf``
merged, ``anyOf``, ``dependentSchemas``), `exact` (the universe C and exact terms), `negation`
(``not``, overlapping ``oneOf``, ``if``/``then``/``else``), `leaves` (types, ``enum``/``const``,
strings, numbers), `arrays`, `objects`, `members` (the property orders), `writer` (punctuation and key spellings), `common`
(keyword lists, helpers), `driver` (the limits, the deadline and the entry points). Memos know a
subschema by its JSON pointer, or a schema made while compiling by where it is compiled and its
content. Every compile runs under ``Limits.compile_seconds`` and checks it once per subschema, enum
value and property, so a `TimeBudgetError` names the pointer being compiled.

References: JSON Schema Core and Validation, draft 2020-12 (https://json-schema.org/draft/2020-12);
RFC 8259 (JSON); RFC 6901 (JSON Pointer).
"""

from .common import DEFAULT_MAX_DEPTH, MAX_WHITESPACE
from .driver import compile_json_schema, explain_json_schema, json_schema_term
from .recursion import MAX_ANY_VALUES, MAX_CHAIN
from .writer import _plain_keys_except

__all__ = ["DEFAULT_MAX_DEPTH", "MAX_WHITESPACE", "compile_json_schema", "explain_json_schema",
           "json_schema_term"]
