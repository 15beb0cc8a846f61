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

from .errors import ArgumentError, TimeBudgetError

__all__ = ["DEFAULT_LIMITS", "Limits", "check_deadline", "within"]


@dataclass(frozen=True)
class Limits:
    """Every limit on what one call may cost. ``None`` turns a limit off (for trusted, offline work).

    The time limits are safety nets against hostile input, not performance targets: their defaults
    leave an order of magnitude of headroom over the slowest legitimate call measured on the real
    schema corpus (`benchmarks/record/`), so that a loaded machine does not refuse a real schema.
    """

    compile_seconds: float | None = 1.0
    """Wall time for one compile (`compile_json_schema`, `regex_to_dfa`, a `TokenIndex`'s
    construction): a schema that needs longer is refused rather than holding a server."""

    mask_seconds: float | None = 0.5
    """Wall time for one mask or one advance: the states it explores and the trie walk it does."""

    bitmask_bytes: int | None = 1 << 30
    """The largest token bitmask `allocate_bitmask` makes (batch rows x ceil(V / 32) int32 words):
    an engine's batch with speculative rows over a 256k vocabulary takes a few hundred MB at most."""

    def __post_init__(self) -> None:
        for name in ("compile_seconds", "mask_seconds"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not value > 0):
                raise ArgumentError(f"Limits.{name} must be a positive number of seconds or None, not {value!r}")
        for name in ("bitmask_bytes",):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ArgumentError(f"Limits.{name} must be a positive int or None, not {value!r}")


DEFAULT_LIMITS = Limits()


class _Deadline:
    __slots__ = ("end", "limit", "seconds", "where")

    def __init__(self, end: float, limit: str, seconds: float, where: str) -> None:
        self.end, self.limit, self.seconds, self.where = end, limit, seconds, where


_CURRENT: contextvars.ContextVar[_Deadline | None] = contextvars.ContextVar("brzozowski_deadline", default=None)


@contextmanager
def within(seconds: float | None, limit: str, where: str = "") -> Iterator[None]:
    """Run the ``with`` block under a deadline of ``seconds`` named ``limit`` (``None``: no new deadline).

    An enclosing deadline that ends sooner stays in force."""
    outer = _CURRENT.get()
    if seconds is None:
        yield
        return
    end = time.monotonic() + seconds
    if outer is not None and outer.end <= end:
        yield
        return
    token = _CURRENT.set(_Deadline(end, limit, seconds, where))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def check_deadline(where: str = "") -> None:
    """Raise `TimeBudgetError` when the current deadline has passed (a no-op outside any deadline)."""
    deadline = _CURRENT.get()
    if deadline is not None and time.monotonic() > deadline.end:
        at = where or deadline.where
        raise TimeBudgetError(f"{deadline.limit} ({deadline.seconds:g} s) exceeded" + (f" at {at}" if at else ""))
