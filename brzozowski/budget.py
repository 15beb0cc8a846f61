"""Budgets: what one call may cost, named in one place, so hostile or huge input ends in a clear error.

A server compiles the schemas its clients send and computes masks while a batch waits. Every cost an
input can drive up therefore has a named limit here, with its default and the reason for it, and
every limit, when hit, raises a `BudgetError` subclass that names the limit, its value and where the
work stood. Nothing is truncated silently: a call either returns its exact answer or raises.

- `Limits` is the one frozen object that holds the limits (like llguidance's ``ParserLimits`` or
  regex-automata's ``Config``); pass one to the entry points, or use `DEFAULT_LIMITS`.
- A *deadline* bounds wall time: `within(seconds, limit, where)` opens one for the work in its
  ``with`` block (on this thread or task: it is a context variable), and the loops that can run long
  (state exploration, emptiness searches, the compiler's recursion, a mask's trie walk) call
  `check_deadline()` once per unit of work they create (a state, a derivative, a schema node). A
  nested deadline never extends an outer one: the earlier end wins.

>>> import time
>>> from brzozowski.budget import within, check_deadline
>>> from brzozowski.errors import TimeBudgetError
>>> try:
...     with within(0.001, "compile_seconds", where="#/properties/a"):
...         time.sleep(0.002); check_deadline()
... except TimeBudgetError as e:
...     print(e)
compile_seconds (0.001 s) exceeded at #/properties/a
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .errors import ArgumentError, InputTypeError, TimeBudgetError

__all__ = ["DEFAULT_LIMITS", "Limits", "check_deadline", "close_deadline", "open_deadline",
           "outside_deadline", "require_limits", "within"]


@dataclass(frozen=True)
class Limits:
    """Every limit on what one call may cost. ``None`` turns a limit off (for trusted, offline work).

    The time limits are safety nets against hostile input, not performance targets: their defaults
    leave an order of magnitude of headroom over the slowest legitimate call measured on the real
    schema corpus (`benchmarks/record/`), so that a loaded machine does not refuse a real schema.
    """

    compile_seconds: float | None = 2.0
    """Wall time for one compile (`compile_json_schema`, `regex_to_dfa`, a `TokenIndex`'s
    construction): a schema that needs longer is refused rather than holding a server. The slowest
    real schema's compile is an order of magnitude below it; a client's schema that needs more is
    answered with this error within seconds."""

    mask_seconds: float | None = 2.0
    """Wall time for one mask or one advance: the states it explores and the trie walk it does. A
    refused step ends a generation, so the default stays an order of magnitude above the slowest
    step of the real corpus and of the generated tail (strings bounded by length and pattern or
    format, whose count the masks keep outside the state: `brzozowski.json.masks.counted`;
    `benchmarks/record/2026-12-07-counted-strings.md`)."""

    max_schema_depth: int | None = 64
    """How deeply a schema document may nest (objects and arrays, ``const``/``enum`` values
    included): the compiler, the merge and ``json.dumps`` recurse once per level, so a deeper schema
    is refused with its pointer before Python's stack runs out."""

    max_document_depth: int | None = 100
    """The largest ``max_depth`` a schema compile accepts: the compiler and the derivatives recurse
    once per level of a document's nesting."""

    max_schema_bytes: int | None = 2_000_000
    """The size of a schema's compact JSON text (UTF-8): work grows with it."""

    max_properties: int | None = 2_000
    """Properties listed by one object schema (``properties``, ``patternProperties``,
    ``dependentSchemas``): each is a member of the object's term."""

    max_enum_members: int | None = 10_000
    """Values listed by one ``enum``: each is compiled and checked against the schema's other keywords."""

    max_literal_length: int | None = 10_000
    """Characters of one string written literally: a ``const``/``enum`` string (also inside an
    array or object value) or a property name; each character is a term."""

    max_contains_count: int | None = 1_000
    """``minContains``/``maxContains``: the items they count are unrolled into one term per count."""

    max_token_bytes: int | None = 1 << 16
    """The longest token a vocabulary may hold: real tokenizers' longest are a few hundred bytes (runs
    of spaces or dashes), and a mask's walk does one level per byte of the longest token."""

    pattern_length: int | None = 100_000
    """Characters of one pattern's text (`parse`, `regex_to_dfa` and `LazyDFA` of a pattern, a
    schema's ``pattern``): a longer one is refused before it is read, since parsing alone costs
    time and memory in proportion to it (a term per character). The longest pattern of the real
    schema corpus is a few hundred characters; a literal of this length already needs as many
    states as the default state budget allows."""

    bitmask_bytes: int | None = 1 << 30
    """The largest token bitmask `allocate_bitmask` makes (batch rows x ceil(V / 32) int32 words):
    an engine's batch with speculative rows over a 256k vocabulary takes a few hundred MB at most."""

    def __post_init__(self) -> None:
        for name in ("compile_seconds", "mask_seconds"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not value > 0):
                raise ArgumentError(f"Limits.{name} must be a positive number of seconds or None, not {value!r}")
        for name in _COUNTS:
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ArgumentError(f"Limits.{name} must be a positive integer or None, not {value!r}")


_COUNTS = ("max_schema_depth", "max_document_depth", "max_schema_bytes", "max_properties", "max_enum_members",
           "max_literal_length", "max_contains_count", "max_token_bytes", "pattern_length", "bitmask_bytes")

DEFAULT_LIMITS = Limits()


def require_limits(limits: object) -> Limits:
    """`limits` itself if it is a `Limits`, else `InputTypeError` naming the argument."""
    if not isinstance(limits, Limits):
        raise InputTypeError(f"limits must be a brzozowski.Limits, not {type(limits).__name__}: {limits!r:.60}")
    return limits


Deadline = tuple[float, str, float, str, "int | None"]
"""A deadline in force, as the context variable holds it: (end, limit, seconds, where, number): its
end (monotonic time), the limit it enforces, that limit's seconds and where the work stood, for the
error's message: `where`, then `number` if it is not None (a state's number, formatted only when
the deadline has passed). A plain tuple: a mask step opens one per computed mask and per new advance."""


_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("brzozowski_deadline", default=None)


def open_deadline(seconds: float | None, limit: str, where: str = "",
                  number: int | None = None) -> contextvars.Token | None:
    """Put a deadline of ``seconds`` named ``limit`` in force (on this thread or task), unless
    `seconds` is None or an enclosing deadline ends sooner; pass what it returns to
    `close_deadline` once the work is done. `within` is the same as a ``with`` block; a caller that
    opens one per step (a mask, an advance) calls these two (no object made per step) and gives
    the state as `number` (``where`` is then its label: no string is formatted per step)."""
    if seconds is None:
        return None
    end = time.monotonic() + seconds
    outer = _CURRENT.get()
    if outer is not None and outer[0] <= end:
        return None
    return _CURRENT.set((end, limit, seconds, where, number))


def close_deadline(opened: contextvars.Token | None) -> None:
    """End the deadline `open_deadline` opened (the enclosing one, if any, is in force again)."""
    if opened is not None:
        _CURRENT.reset(opened)


class within:  # noqa: N801 - used as ``with within(...)``, as contextlib's ``suppress``
    """Run the ``with`` block under a deadline of ``seconds`` named ``limit`` (``None``: no new
    deadline): `open_deadline` on entry, `close_deadline` on exit. An enclosing deadline that ends
    sooner stays in force."""

    __slots__ = ("limit", "seconds", "where", "_opened")

    def __init__(self, seconds: float | None, limit: str, where: str = "") -> None:
        self.seconds, self.limit, self.where = seconds, limit, where
        self._opened = None

    def __enter__(self) -> None:
        self._opened = open_deadline(self.seconds, self.limit, self.where)

    def __exit__(self, *exc: object) -> None:
        opened, self._opened = self._opened, None
        close_deadline(opened)


@contextmanager
def outside_deadline() -> Iterator[None]:
    """Run the ``with`` block under no deadline, and give the time it took back to the deadline in
    force: for one-time work a call happens to trigger (a vocabulary's tables built on first use),
    which no single step should be charged with."""
    deadline = _CURRENT.get()
    if deadline is None:
        yield
        return
    began = time.monotonic()
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)
        end, *rest = deadline  # later by the time taken (until its opener closes it)
        _CURRENT.set((end + time.monotonic() - began, *rest))


def check_deadline(where: str = "") -> None:
    """Raise `TimeBudgetError` when the current deadline has passed (a no-op outside any deadline)."""
    deadline = _CURRENT.get()
    if deadline is not None and time.monotonic() > deadline[0]:
        _, limit, seconds, opened_at, number = deadline
        at = where or (opened_at if number is None else f"{opened_at} {number}")
        raise TimeBudgetError(f"{limit} ({seconds:g} s) exceeded" + (f" at {at}" if at else ""))
