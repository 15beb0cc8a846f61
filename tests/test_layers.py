"""The package's layers: no module imports from a layer above its own.

Low to high: ``errors``, ``budget`` < ``core`` < ``automata`` < ``vocab`` < ``masks`` < ``json`` <
``runtime`` < ``golden`` < ``cli``, ``demo``, the package's ``__init__``. Every import counts: at
module level, inside a function (a deferred import is still a dependency) and under
``TYPE_CHECKING`` (a type named from above is knowledge of the layer above). The imports are read
from the source (`ast`), nothing is imported.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "brzozowski"

LAYERS = {"errors": 0, "budget": 0, "core": 1, "automata": 2, "vocab": 3, "masks": 4, "json": 5,
          "runtime": 6, "golden": 7, "cli": 8, "demo": 8, "__init__": 8, "__main__": 8}


def _module_parts(path: Path) -> tuple[str, ...]:
    """`path`'s module name below the package, as parts (a package's ``__init__`` as the package)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts


def _is_module(parts: tuple[str, ...]) -> bool:
    path = PACKAGE.joinpath(*parts)
    return path.with_suffix(".py").exists() or path.is_dir()


def _layer(parts: tuple[str, ...]) -> int:
    return LAYERS[parts[0]] if parts else LAYERS["__init__"]


def _imported(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    """(line, the module's parts below the package) of every import of the package in `path`."""
    here = _module_parts(path)
    package = here if path.name == "__init__.py" else here[:-1]  # what a level-1 relative import means
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                target = base + tuple(node.module.split(".")) if node.module else base
            elif node.module and node.module.split(".")[0] == "brzozowski":
                target = tuple(node.module.split(".")[1:])
            else:
                continue
            if not node.module:  # ``from . import x``: x a module, or a name of the package itself
                found += [(node.lineno, target + (alias.name,) if _is_module(target + (alias.name,)) else target)
                          for alias in node.names]
            else:
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, tuple(alias.name.split(".")[1:])) for alias in node.names
                      if alias.name.split(".")[0] == "brzozowski"]
    return found


def _upward_imports() -> list[str]:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = _module_parts(path)
        for line, target in _imported(path):
            if target and target[0] not in LAYERS:
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports an unknown layer {target}")
            elif _layer(target) > _layer(here):
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({here[0]}) imports "
                                f"brzozowski.{'.'.join(target)} (a higher layer)")
    return problems


def test_every_module_belongs_to_a_layer():
    for path in PACKAGE.rglob("*.py"):
        parts = _module_parts(path)
        assert not parts or parts[0] in LAYERS, path


def test_no_module_imports_from_a_higher_layer():
    assert _upward_imports() == []


def test_the_checker_sees_upward_imports(tmp_path, monkeypatch):
    """The reader catches the imports it must: relative at any depth, absolute, deferred in a
    function, and under TYPE_CHECKING; and lets a lower or equal layer through."""
    fake = tmp_path / "brzozowski"
    (fake / "vocab").mkdir(parents=True)
    (fake / "masks").mkdir()
    (fake / "budget.py").write_text("", encoding="utf-8")
    (fake / "vocab" / "bad.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from ..core import terms\n"
        "from .other import x\n"
        "if TYPE_CHECKING:\n    from ..masks.index import TokenIndex\n"
        "def f():\n    import brzozowski.json.compiler\n    from brzozowski.runtime import constraint\n"
        "from .. import budget\n", encoding="utf-8")
    (fake / "masks" / "__init__.py").write_text("from ..json import strings\nfrom . import index\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    problems = _upward_imports()
    assert [p.split(" ")[0] for p in problems] == ["brzozowski/masks/__init__.py:1", "brzozowski/vocab/bad.py:5",
                                                    "brzozowski/vocab/bad.py:7", "brzozowski/vocab/bad.py:8"], problems


if __name__ == "__main__":
    pytest.main([__file__])
