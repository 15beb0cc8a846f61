"""The examples in the README and in every module docstring run and print what they say; the
documents name only modules that exist; library docstrings and comments carry no timing figure."""

from __future__ import annotations

import ast
import dataclasses
import doctest
import importlib
import inspect
import io
import json
import pkgutil
import re
import textwrap
import tokenize
import tomllib
from pathlib import Path

import pytest

import brzozowski
from brzozowski.budget import Limits

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(brzozowski.__path__, "brzozowski."))
LIBRARY_FILES = sorted((ROOT / "brzozowski").rglob("*.py"))
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "fixtures" / "README.md",
             ROOT / "benchmarks" / "README.md", *sorted((ROOT / "notebooks").glob("*.ipynb"))]


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name):
    module = importlib.import_module(name)
    assert module.__doc__ and len(module.__doc__.strip()) > 80, f"{name} needs a module docstring"
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def _first_column(section: str) -> list[str]:
    """The backticked names in the first column of the first table under the README heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text[text.index(f"\n## {section}\n"):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|")) + 2  # header, rule
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return [name for row in lines[start:end] for name in re.findall(r"`([A-Za-z_]\w*)", row.split("|")[1])]


def test_readme_public_api_table_lists_exactly_the_public_names():
    """One row per name of `brzozowski.__all__` (the exported error classes have theirs under Errors)."""
    documented = _first_column("Public API") + _first_column("Errors")
    assert len(set(documented)) == len(documented), "a name listed twice"
    assert set(brzozowski.__all__) <= set(documented), sorted(set(brzozowski.__all__) - set(documented))
    assert set(_first_column("Public API")) <= set(brzozowski.__all__)


def test_readme_errors_table_lists_every_error_class():
    from brzozowski import errors

    classes = {name for name, value in vars(errors).items()
               if inspect.isclass(value) and issubclass(value, errors.BrzozowskiError)}
    assert set(_first_column("Errors")) == classes - {"BrzozowskiError"}


# -- the documents name what exists -------------------------------------------------------------------

PATH = re.compile(r"(?<![\w/.-])brzozowski/[\w/]*(?:\.py|\.npz|/)")
DOTTED = re.compile(r"(?<![\w/.-])brzozowski(?:\.[A-Za-z_]\w*)+")


def _prose(document: Path) -> str:
    """A document's text; of a notebook, its markdown cells (its code runs in tests/test_notebooks.py)."""
    text = document.read_text(encoding="utf-8")
    if document.suffix != ".ipynb":
        return text
    return "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"] if cell["cell_type"] == "markdown")


def _exists(path: str) -> bool:
    """Whether a path of the package is in this tree, also where pyproject.toml maps a package folder
    at build time (``brzozowski/_fixtures/`` is the top-level ``fixtures/``)."""
    mapped = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    for package, folder in mapped.items():
        prefix = package.replace(".", "/") + "/"
        if path.startswith(prefix):
            path = folder + "/" + path[len(prefix):]
    return (ROOT / path).exists()


def _resolves(name: str) -> bool:
    """Whether a dotted name is a module of the package or an attribute of one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


def test_module_paths_named_in_the_documents_exist():
    """Every ``brzozowski/....py`` (or ``.npz``, or folder) named in README.md, docs/, fixtures/README.md,
    benchmarks/README.md or a notebook's text is a path of this tree (benchmarks/record/ keeps the
    names of its day and is not checked)."""
    named = {(document, path) for document in DOCUMENTS for path in PATH.findall(_prose(document))}
    assert len(named) > 30
    missing = sorted(f"{document.relative_to(ROOT)}: {path}" for document, path in named if not _exists(path))
    assert not missing, missing


def test_dotted_names_in_the_documents_resolve():
    """Every ``brzozowski.x.y`` named there is a module of the package or an attribute of one."""
    named = {(document, name) for document in DOCUMENTS for name in DOTTED.findall(_prose(document))}
    assert len(named) > 10
    unresolved = sorted(f"{document.relative_to(ROOT)}: {name}" for document, name in named if not _resolves(name))
    assert not unresolved, unresolved


def test_dotted_names_in_library_docstrings_resolve():
    """Every ``brzozowski.x.y`` a library docstring or comment names is a module of the package or
    an attribute of one (a module split or a helper renamed leaves no pointer to nowhere)."""
    named = {(path, name.rstrip(".")) for path in LIBRARY_FILES
             for name in DOTTED.findall(path.read_text(encoding="utf-8"))}
    assert len(named) > 100
    unresolved = sorted(f"{path.relative_to(ROOT)}: {name}" for path, name in named if not _resolves(name))
    assert not unresolved, unresolved


RECORD = re.compile(r"benchmarks/record/[\w.-]+\.md")


def test_benchmark_records_named_by_the_library_and_the_documents_exist():
    """A docstring or document that sends a reader to a dated record (the measurement behind a
    threshold) names a file that is there."""
    sources = [*LIBRARY_FILES, *DOCUMENTS]
    named = {(source, path) for source in sources for path in RECORD.findall(_prose(source))}
    assert named, "no record is named anywhere: the pattern is stale"
    missing = sorted(f"{source.relative_to(ROOT)}: {path}" for source, path in named if not (ROOT / path).exists())
    assert not missing, missing
    assert RECORD.findall("see `benchmarks/record/2026-12-04-no-such.md`)") == ["benchmarks/record/2026-12-04-no-such.md"]


def test_the_path_checks_catch_a_stale_name():
    assert PATH.findall("see `brzozowski/json_leaves.py`, `brzozowski/core/`") == ["brzozowski/json_leaves.py",
                                                                                 "brzozowski/core/"]
    assert not _exists("brzozowski/json_leaves.py") and not _exists("brzozowski/_fixtures/no_such_file.json")
    assert _exists("brzozowski/_fixtures/masks_golden.json") and _exists("brzozowski/json/format_tables.npz")
    assert _resolves("brzozowski.core.terms.Term") and _resolves("brzozowski.freeze_long_lived")
    assert not _resolves("brzozowski.schema_compiler") and not _resolves("brzozowski.core.terms.NoSuchName")


# -- no timing figure in a library docstring or comment -------------------------------------------------

TIMING = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:[µμ]s|us|ns|ms|s|secs?|(?:milli|micro|nano)?seconds?)(?!\w)")
"""A number with a unit of time: ``12 µs``, ``3.5 ms``, ``0.2 s``, ``40 us``, ``250 ns``, ``2 seconds``."""

LIMIT_NAMES = frozenset(field.name for field in dataclasses.fields(Limits))


def _prose_lines(source: str) -> list[tuple[int, str]]:
    """(line, text) of every docstring line (module, class, function, attribute) and comment of a
    module, its doctest examples and their expected output left out."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            text = node.value.value
            examples = set()
            for example in doctest.DocTestParser().get_examples(text):
                examples.update(range(example.lineno, example.lineno + example.source.count("\n")
                                      + example.want.count("\n")))
            lines += [(node.lineno + i, line) for i, line in enumerate(text.splitlines()) if i not in examples]
    lines += [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.COMMENT]
    return lines


def timing_figures(source: str) -> list[str]:
    """The timing figures of a module's docstrings and comments, as ``line: figure: text``.

    Allowed, because they are rules rather than measurements: a doctest example and its output (the
    suite checks them), and a line that names a field of `brzozowski.budget.Limits` (a limit's value
    is a rule, e.g. ``compile_seconds`` defaults to 1 s). A measurement goes to benchmarks/record/,
    and a constant it justifies may point there."""
    return [f"{number}: {match.group(0)}: {line.strip()}" for number, line in _prose_lines(source)
            for match in TIMING.finditer(line) if not LIMIT_NAMES & set(re.findall(r"\w+", line))]


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_timing_figure_in_library_docstrings_or_comments(path):
    """Docstrings state the invariant and the decision rule; timings are tied to one machine and rot."""
    found = timing_figures(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)}: " + "; ".join(found)


def test_the_timing_check_finds_figures_and_only_figures():
    for figure in ("12 µs", "12µs", "3.5 ms", "0.2 s", "40 us", "250 ns", "~6-25 µs", "2 seconds", "5 milliseconds"):
        assert TIMING.search(f"a cold step costs {figure} here"), figure
    for text in ("max_seconds", "compile_seconds", "2 states", "3 steps", "(a|b){12}s", "1 << 16 entries",
                 "8 MB", "utf8 bytes", "128 tokens", "x2 s", "v1.5 s"):
        assert not TIMING.search(text), text
    source = textwrap.dedent('''\
    """A module.

    >>> import time
    >>> print("took 0.001 s")
    took 0.001 s

    A cold mask costs ~2 ms over o200k_base.
    """

    LIMIT = 1  # mask_seconds: 0.5 s, the default limit
    OTHER = 2  # measured 30 µs on one machine
    ''')
    found = timing_figures(source)
    assert [entry.split(": ")[1] for entry in found] == ["2 ms", "30 µs"], found
