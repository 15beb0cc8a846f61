"""The golden file's format: id sets and table rows as ranges, the canonical text, reading the file.

The layout is specified in fixtures/README.md; this module writes and reads it and nothing else
(the cases that fill it are in `brzozowski.golden.cases`, the checker in `brzozowski.golden.check`).

Invariant: `dumps_golden` is deterministic (the same document gives the same bytes), and
`ranges_to_ids(ids_to_ranges(ids)) == ids` for sorted distinct ids.

>>> ids_to_ranges([0, 4, 8, 9, 10])
[[0, 0], [4, 4], [8, 10]]
>>> ranges_to_ids([[0, 0], [4, 4], [8, 10]])
[0, 4, 8, 9, 10]

Where the file is: `DEFAULT_GOLDEN_PATH`. In a source checkout it is ``fixtures/masks_golden.json``
at the repository's root; a built wheel carries that same file as the package data
``brzozowski/_fixtures/masks_golden.json`` (pyproject.toml maps the folder at build time), so
``brzozowski golden --check`` works from an installed package too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from ..core.alphabet import target_runs
from ..errors import GoldenMismatchError, InputTypeError, TokenError

__all__ = [
    "DEFAULT_GOLDEN_PATH",
    "FORMAT",
    "GOLDEN_FILE_NAME",
    "VERSION",
    "default_golden_path",
    "dumps_golden",
    "hex_tokens",
    "ids_to_ranges",
    "load_golden",
    "ranges_to_ids",
    "rows_to_trans",
    "table_rows",
    "unhex_tokens",
]

FORMAT = "brzozowski-masks-golden"
VERSION = 1
GOLDEN_FILE_NAME = "masks_golden.json"


def default_golden_path() -> Path:
    """The golden file shipped with brzozowski: the wheel's package data if installed, else the
    source checkout's ``fixtures/`` folder (the same file)."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "_fixtures" / GOLDEN_FILE_NAME
    return installed if installed.is_file() else package.parent / "fixtures" / GOLDEN_FILE_NAME


DEFAULT_GOLDEN_PATH = default_golden_path()


def ids_to_ranges(ids: Iterable[int]) -> list[list[int]]:
    """Sorted distinct ids -> maximal inclusive ranges ``[[lo, hi], ...]``, ascending."""
    ranges: list[list[int]] = []
    for i in ids:
        i = int(i)
        if ranges and i == ranges[-1][1] + 1:
            ranges[-1][1] = i
        elif ranges and i <= ranges[-1][1]:
            raise TokenError(f"ids must be sorted and distinct: {i} after {ranges[-1][1]}")
        else:
            ranges.append([i, i])
    return ranges


def ranges_to_ids(ranges: Iterable[Sequence[int]]) -> list[int]:
    """``[[lo, hi], ...]`` -> the ids, ascending (inclusive ranges)."""
    ids: list[int] = []
    for lo, hi in ranges:
        ids.extend(range(int(lo), int(hi) + 1))
    return ids


def table_rows(trans: np.ndarray) -> list[list[list[int]]]:
    """Per state, the maximal runs of bytes with one target: ``[[lo, hi, target], ...]``, bytes
    ascending, DEAD (-1) runs left out."""
    return [[list(run) for run in target_runs(row)] for row in np.asarray(trans)]


def rows_to_trans(rows: Sequence[Sequence[Sequence[int]]]) -> np.ndarray:
    """The inverse of `table_rows`: int32[S, 256] with DEAD (-1) where no run covers a byte."""
    trans = np.full((len(rows), 256), -1, dtype=np.int32)
    for s, runs in enumerate(rows):
        for lo, hi, target in runs:
            trans[s, int(lo): int(hi) + 1] = int(target)
    return trans


def hex_tokens(vocab: Sequence[bytes | None]) -> list[str | None]:
    """Token bytes as the file writes them: lowercase hex, None for a special token."""
    return [None if data is None else data.hex() for data in vocab]


def unhex_tokens(tokens: Sequence[str | None]) -> list[bytes | None]:
    """The inverse of `hex_tokens`."""
    return [None if h is None else bytes.fromhex(h) for h in tokens]


def _dump(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f'{pad} {json.dumps(key)}: {_dump(value[key], indent + 1)}' for key in sorted(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, dict) or _nested(v) for v in value):
        items = [f"{pad} {_dump(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def _nested(value: Any) -> bool:  # a list of lists of lists: a mask list or a table row list
    return isinstance(value, list) and any(isinstance(v, list) for v in value)


def dumps_golden(data: dict[str, Any]) -> str:
    """The file's text: JSON, ASCII only, keys sorted, objects one member per line (one space of
    indent per level), lists of objects and lists of range lists (``masks``, ``trans``) one element
    per line, every other list on one line with ``,`` separators; a final newline. The same
    document always gives the same bytes. (The document is the generator's own, a few levels deep.)"""
    return _dump(data, 0) + "\n"


def load_golden(path: str | Path = DEFAULT_GOLDEN_PATH) -> dict[str, Any]:
    """Read a golden file; `GoldenMismatchError` if it cannot be read or parsed, is not a golden
    file, or is of another version; `InputTypeError` if `path` is not a path. (Its inside is
    checked by `check_golden`.)"""
    if not isinstance(path, (str, PurePath)):
        raise InputTypeError(f"path must be a str or a pathlib path, not {type(path).__name__}: {path!r:.60}")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise GoldenMismatchError(f"cannot read the golden file {path}: {error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise GoldenMismatchError(f"the golden file {path} is not JSON: {error}") from None
    except RecursionError:
        raise GoldenMismatchError(f"the golden file {path} nests too deep for a JSON parser") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GoldenMismatchError(f"{path} is not a golden file: its \"format\" is not {FORMAT!r}")
    if data.get("version") != VERSION or type(data.get("version")) is not int:
        raise GoldenMismatchError(
            f"{path} has version {data.get('version')!r:.40}; this checker reads version {VERSION}"
        )
    return data
