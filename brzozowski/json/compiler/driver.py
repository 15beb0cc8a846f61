"""The driver: `_Compiler` (the parts together), the limits and the deadline, and the public entry points."""

from __future__ import annotations

from typing import Any

from ..user_schemas import as_json_schema
from ...automata.lazy import DEFAULT_MAX_STATES, LazyDFA, is_empty
from ...budget import DEFAULT_LIMITS, Limits, within
from ...core.terms import EMPTY, Term, concat
from ...errors import ArgumentError, SchemaError, SchemaProblem
from ..refs import SchemaIndex
from .common import DEFAULT_MAX_DEPTH, MAX_WHITESPACE
from .writer import _Writer

from .arrays import _Arrays
from .exact import _Exact
from .leaves import _Leaves
from .negation import _Negation
from .members import PROPERTY_ORDERS, _Members
from .objects import _Objects
from .recursion import _Recursion
from .inputs import check_schema_input


class _Compiler(_Recursion, _Exact, _Negation, _Leaves, _Arrays, _Objects, _Members):
    """One pass over a schema; `ptr` is always the JSON pointer of the node at hand, `depth` how
    many more levels of arrays and objects may nest, `types` the JSON types still in question."""

    def __init__(self, root: Any, writer: _Writer, closed_objects: bool, unknown_keywords: str,
                 max_depth: int, unique_keys: bool = False, property_order: str = "schema",
                 max_states: int = DEFAULT_MAX_STATES) -> None:
        if unknown_keywords not in ("refuse", "ignore"):
            raise ArgumentError(f"unknown_keywords must be 'refuse' or 'ignore', not {unknown_keywords!r}")
        if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0:
            raise ArgumentError(f"max_depth must be a non-negative integer, not {max_depth!r}")
        if not isinstance(unique_keys, bool):
            raise ArgumentError(f"unique_keys must be True or False, not {unique_keys!r}")
        if not isinstance(property_order, str) or property_order not in PROPERTY_ORDERS:
            raise ArgumentError(f"property_order must be 'schema' or 'any', not {property_order!r}")
        if isinstance(max_states, bool) or not isinstance(max_states, int) or max_states < 1:
            raise ArgumentError(f"max_states must be a positive integer, not {max_states!r}")
        self.index = SchemaIndex(root)
        self.w = writer
        self.closed = closed_objects
        self.unique_keys = unique_keys
        self.property_order = property_order
        self.max_states = max_states
        self.ignore_unknown = unknown_keywords == "ignore"
        self.max_depth = max_depth
        self.problems: dict[tuple[str, str | None], SchemaProblem] = {}
        self.notes: dict[str, None] = {}
        self._memo: dict[tuple, Term] = {}
        self._active: set[tuple] = set()
        self._chain: dict[int, int] = {}  # per nesting depth left: the `term` calls active at it
        self._merging: set[tuple] = set()  # `merged_term`'s parts (by content) being merged
        self._complete: dict[tuple, Term] = {}
        self._completing: set[tuple] = set()
        self._universe: dict[int, Term] = {}

    def refuse(self, ptr: str, keyword: str | None, message: str) -> Term:
        self.problems.setdefault((ptr, keyword), SchemaProblem(ptr, keyword, message))
        return EMPTY

    def note(self, ptr: str, text: str) -> None:
        self.notes.setdefault(f"{ptr or '(root)'}: {text}", None)


def _compile(schema: Any, separators: tuple[str, str], any_whitespace: bool, closed_objects: bool,
             unknown_keywords: str, max_depth: int, unique_keys: bool, limits: Limits,
             property_order: str = "schema", max_states: int = DEFAULT_MAX_STATES) -> tuple[Term, list[str]]:
    if not isinstance(limits, Limits):
        raise ArgumentError(f"limits must be a brzozowski.budget.Limits, not {limits!r}")
    writer = _Writer(separators, any_whitespace)
    check_schema_input(schema, limits, max_depth)  # first: the index below walks the whole document
    compiler = _Compiler(schema, writer, closed_objects, unknown_keywords, max_depth, unique_keys, property_order,
                         max_states)
    with within(limits.compile_seconds, "compile_seconds", where="(root)"):
        return _compile_checked(compiler, schema, max_depth, any_whitespace)


def _compile_checked(compiler: _Compiler, schema: Any, max_depth: int, any_whitespace: bool) -> tuple[Term, list[str]]:
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
                     property_order: str = "schema", max_states: int = DEFAULT_MAX_STATES,
                     notes: list[str] | None = None, limits: Limits = DEFAULT_LIMITS) -> Term:
    """The term of the JSON documents `schema` allows, written as the options say (see the module doc).

    `notes`, if given, receives every narrowing (``pointer: text``), as `explain_json_schema` returns.
    ``property_order="any"`` writes each object's listed properties in any order (a state per
    subset of them: more subsets than `max_states` is a `StateBudgetError`).
    `limits` bounds the schema's size and depth (`InputLimitError`, `SchemaError`) and the compile's
    wall time (``compile_seconds``: `TimeBudgetError` naming the pointer being compiled).

    >>> print(json_schema_term({"enum": [None, [1, "a"]]}))
    null|\\[1,"a"\\]
    """
    term, found = _compile(schema, separators, any_whitespace, closed_objects, unknown_keywords, max_depth,
                           unique_keys, limits, property_order, max_states)
    if notes is not None:
        notes.extend(found)
    return term


def explain_json_schema(schema: Any, **options: Any) -> list[str]:
    """Every place where the compiled language is narrower than `schema`, as ``pointer: text`` lines.

    >>> for line in explain_json_schema({"properties": {"b": {"type": "null"}, "a": {"type": "null"}}}):
    ...     print(line)
    any JSON value ({}, true, items or values without a schema): object keys in any order; a key may repeat (JSON keeps the last value)
    (root): properties are written in the schema's order: b, a (property_order='schema')
    (root): closed object: only the listed properties are written (closed_objects=True and no additionalProperties)
    (root): whitespace: exactly the separators (',', ':'), none elsewhere
    (root): depth: arrays and objects nest at most 8 levels; deeper documents are impossible
    (root): spelling: property names, enum and const strings are written as json.dumps spells them (\\u escapes, or raw UTF-8); numbers in enum/const as json.dumps writes them
    """
    notes: list[str] = []
    json_schema_term(as_json_schema(schema), notes=notes, **options)
    return notes


def compile_json_schema(schema: Any, *, separators: tuple[str, str] = (",", ":"),
                        any_whitespace: bool = False, closed_objects: bool = True,
                        unknown_keywords: str = "refuse", max_depth: int = DEFAULT_MAX_DEPTH,
                        unique_keys: bool = False, property_order: str = "schema",
                        max_states: int = DEFAULT_MAX_STATES,
                        notes: list[str] | None = None, limits: Limits = DEFAULT_LIMITS) -> LazyDFA:
    """A lazy DFA of the JSON documents `schema` allows (see the module doc for the options).

    Raises `SchemaError` listing every refused keyword with its JSON pointer, and a `BudgetError`
    where `limits` (`brzozowski.budget.Limits`) refuse the schema's size or the compile's time:
    ``compile_seconds`` bounds the term and the automaton's start together. The automaton keeps
    `limits` (its masks and advances read ``mask_seconds`` there).
    `schema` may also be a Pydantic model or an OpenAI ``response_format``
    (`brzozowski.json.user_schemas.as_json_schema`).
    """
    seconds = limits.compile_seconds if isinstance(limits, Limits) else None  # (else refused below, named)
    with within(seconds, "compile_seconds", where="(root)"):
        term = json_schema_term(as_json_schema(schema), separators=separators, any_whitespace=any_whitespace,
                                closed_objects=closed_objects, unknown_keywords=unknown_keywords,
                                max_depth=max_depth, unique_keys=unique_keys, property_order=property_order,
                                max_states=max_states, notes=notes, limits=limits)
        return LazyDFA(term, max_states=max_states, limits=limits)
