"""The examples in the README and in every module docstring run and print what they say."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import brzozowski

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(brzozowski.__path__, "brzozowski."))


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
