"""The canonical DFA of each ``format``'s JSON strings, computed once and shipped with the package.

A format's strings (`brzozowski.json.formats`: every spelling of every character, raw or escaped)
are the same language in every process. Explored from its term a hostname's automaton has 8,446
states, an e-mail address's 8,464, and a state costs some twenty derivatives of a large term the
first time any schema reaches it, so a first mask inside a format would pay for them. The minimized tables of
every format (`regex_to_dfa` of the quoted term: start 0, DEAD -1, the state after the closing
quote accepting with every byte DEAD) ship as ``format_tables.npz`` (columns per byte class,
~100 kB compressed), so a process reads a format's states from a table from its first mask on
(`brzozowski.json.format_tables.format_leaf`).

Invariant: the shipped table of each format equals `build_format_dfa` (its quoted term, explored
and minimized), so its language is exactly the term's; a test rebuilds every table and compares.
After a change to `brzozowski.json.formats`, regenerate them: ``python -m
brzozowski.json.format_tables``.
"""

from __future__ import annotations

import sys
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..budget import Limits
from ..automata.dfa import DFA, regex_to_dfa
from ..automata.leaves import FormatTable, LeafAutomaton
from .formats import FORMAT_PATTERNS, parse_format
from ..core.terms import Term, byte, concat

__all__ = ["FORMAT_TABLES", "FormatTable", "build_format_dfa", "format_dfa", "format_leaf", "format_term",
           "write_format_tables"]

FORMAT_TABLES = Path(__file__).with_name("format_tables.npz")
"""The shipped tables: per format, ``<name>:classes`` (uint8[256], each byte's class),
``<name>:columns`` (int16[S, classes], DEAD = -1), ``<name>:accept`` (bool[S]) and
``<name>:lengths`` (int32[2]: the fewest and most characters of its strings, -1: no limit)."""

_QUOTE = byte(ord('"'))


def format_term(name: str) -> Term:
    """The JSON texts of the strings of format `name`, with their quotes (no length bound)."""
    return concat(_QUOTE, parse_format(name)[0], _QUOTE)


def build_format_dfa(name: str) -> DFA:
    """The canonical DFA of `format_term`, explored and minimized (what the shipped tables hold)."""
    return regex_to_dfa(format_term(name), limits=Limits(compile_seconds=None))  # offline: no deadline


@lru_cache(maxsize=None)
def format_dfa(name: str) -> FormatTable | None:
    """The shipped canonical DFA of format `name` (read on first use, then kept), or None if the
    package ships none for it."""
    try:
        with np.load(FORMAT_TABLES) as tables:
            if f"{name}:columns" not in tables:
                return None
            fewest, most = tables[f"{name}:lengths"].tolist()
            return FormatTable(tables[f"{name}:classes"].astype(np.intp), tables[f"{name}:columns"],
                               tables[f"{name}:accept"], (fewest, None if most < 0 else most))
    except OSError:
        return None


def write_format_tables(path: Path = FORMAT_TABLES) -> None:
    """Build every format's DFA and write them to `path` (columns per byte class, compressed)."""
    arrays: dict[str, np.ndarray] = {}
    for name in sorted(FORMAT_PATTERNS):
        dfa = build_format_dfa(name)
        classes = dfa.byte_classes
        first_of_class = np.array([np.flatnonzero(classes == k)[0] for k in range(int(classes.max()) + 1)])
        arrays[f"{name}:classes"] = classes.astype(np.uint8)
        arrays[f"{name}:columns"] = dfa.trans[:, first_of_class].astype(np.int16)
        arrays[f"{name}:accept"] = dfa.accept
        _, fewest, most = parse_format(name)
        arrays[f"{name}:lengths"] = np.array([fewest, -1 if most is None else most], dtype=np.int32)
    np.savez_compressed(path, **arrays)


_FORMATS: dict[str, LeafAutomaton | None] = {}
_FORMATS_LOCK = threading.Lock()


def format_leaf(name: str) -> Term | None:
    """The atom of the start state of format `name`'s shipped canonical DFA (`format_dfa`), one
    `brzozowski.automata.leaves.LeafAutomaton` per process; None if none is shipped."""
    with _FORMATS_LOCK:
        automaton = _FORMATS.get(name, _FORMATS)
        if automaton is _FORMATS:
            table = format_dfa(name)
            automaton = _FORMATS[name] = None if table is None else LeafAutomaton(table=table, name=name)
    return None if automaton is None else automaton.atom(automaton.dfa.start)


if __name__ == "__main__":  # python -m brzozowski.json.format_tables [path]
    write_format_tables(Path(sys.argv[1]) if len(sys.argv) > 1 else FORMAT_TABLES)
