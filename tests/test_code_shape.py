"""The package's shape (issue 35): no class over `MAX_CLASS_LINES` lines, `TokenIndex` under
`MAX_TOKEN_INDEX_LINES`, no function or method over `MAX_FUNCTION_LINES`; and no test tunes the mask
engine by patching a constant of its modules (a `brzozowski.masks.tuning.Tuning` says it instead).

Lines are a definition's source lines, its docstring and nested definitions included
(``end_lineno - lineno + 1``), read from the source with `ast`: nothing is imported.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "brzozowski"
TESTS = ROOT / "tests"

MAX_CLASS_LINES = 400
MAX_TOKEN_INDEX_LINES = 299  # "under 300"
MAX_FUNCTION_LINES = 80

# The modules whose thresholds a Tuning carries: the mask core and JSON's mask strategies.
TUNED_MODULES = ("brzozowski.masks", "brzozowski.json.masks", "brzozowski.json.string_masks",
                 "brzozowski.json.leaf_masks")


def _definitions(path: Path):
    """(kind, qualified name, first line, line count) of every class and function in `path`."""
    found = []

    def visit(node: ast.AST, qualifier: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{qualifier}.{child.name}" if qualifier else child.name
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                found.append((kind, name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name)
            else:
                visit(child, qualifier)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), "")
    return found


def _oversized(package: Path) -> list[str]:
    problems = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent)
        for kind, name, line, lines in _definitions(path):
            if kind == "class" and name.split(".")[-1] == "TokenIndex" and lines > MAX_TOKEN_INDEX_LINES:
                problems.append(f"{where}:{line} class {name}: {lines} lines (TokenIndex: at most "
                                f"{MAX_TOKEN_INDEX_LINES})")
            elif kind == "class" and lines > MAX_CLASS_LINES:
                problems.append(f"{where}:{line} class {name}: {lines} lines (at most {MAX_CLASS_LINES})")
            elif kind == "function" and lines > MAX_FUNCTION_LINES:
                problems.append(f"{where}:{line} function {name}: {lines} lines (at most {MAX_FUNCTION_LINES})")
    return problems


def test_no_class_or_function_is_oversized():
    assert _oversized(PACKAGE) == []


def test_the_token_index_is_where_the_size_rule_looks():
    """The rule on TokenIndex reads the class that exists (a rename would silently drop it)."""
    names = {name for kind, name, _, _ in _definitions(PACKAGE / "masks" / "index.py") if kind == "class"}
    assert "TokenIndex" in names


def test_the_checker_sees_oversized_definitions(tmp_path):
    """Classes, TokenIndex, functions, methods and nested functions are measured; sizes at the
    limits pass."""
    fake = tmp_path / "brzozowski"
    fake.mkdir()

    def function(name: str, lines: int, indent: str = "") -> str:
        return f"{indent}def {name}():\n" + f"{indent}    pass\n" * (lines - 1)

    (fake / "ok.py").write_text(
        "class Fine:\n" + function("method", MAX_FUNCTION_LINES, "    ") + "    pass\n" * (MAX_CLASS_LINES - 1 - MAX_FUNCTION_LINES)
        + function("fine", MAX_FUNCTION_LINES), encoding="utf-8")
    (fake / "bad.py").write_text(
        "class TokenIndex:\n" + "    pass\n" * MAX_TOKEN_INDEX_LINES
        + "class Big:\n" + function("long_method", MAX_FUNCTION_LINES + 1, "    ") + "    pass\n" * MAX_CLASS_LINES
        + "def outer():\n" + function("inner", MAX_FUNCTION_LINES + 1, "    "), encoding="utf-8")
    problems = [p.split(":")[1].split(" ", 1)[1].split(":")[0] for p in _oversized(fake)]
    assert problems == ["class TokenIndex", "class Big", "function Big.long_method", "function outer",
                        "function outer.inner"], problems


def _patched_constants(path: Path) -> list[str]:
    """Every ``setattr(module, "UPPER_CASE", ...)`` (monkeypatch's, or a context's) in a test file
    where the module is one of `TUNED_MODULES` (by the file's imports) or named by a dotted string."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    modules: dict[str, str] = {}  # local name -> module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr"):
            continue
        args = node.args
        if len(args) >= 3 and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
            target, name = ast.unparse(args[0]), args[1].value
            head = target.split(".")[0]
            module = modules.get(head, head) + target[len(head):]
        elif len(args) >= 2 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            module, _, name = args[0].value.rpartition(".")
        else:
            continue
        if name.isupper() and any(module == m or module.startswith(m + ".") for m in TUNED_MODULES):
            found.append(f"{path.name}:{node.lineno} patches {module}.{name}")
    return found


def test_no_test_patches_a_mask_threshold():
    """Thresholds of the mask engine are a Tuning's fields (``TokenIndex(..., tuning=Tuning(...))``)."""
    assert [p for path in sorted(TESTS.glob("*.py")) for p in _patched_constants(path)] == []


def test_the_patch_reader_sees_module_constants(tmp_path):
    test = tmp_path / "test_fake.py"
    test.write_text(
        "from brzozowski.json.masks import strings\n"
        "import brzozowski.masks.walk as walk\n"
        "from brzozowski.automata import dfa\n"
        "def test(monkeypatch):\n"
        "    monkeypatch.setattr(strings, 'FEW_TOKENS', 1)\n"
        "    monkeypatch.setattr(walk, 'PYTHON_FRONTIER', 1)\n"
        "    monkeypatch.setattr('brzozowski.masks.index.FEW_BITS', 1)\n"
        "    monkeypatch.setattr(strings, 'derivative', len)\n"  # a spy, not a threshold
        "    monkeypatch.setattr(dfa, 'MOORE_ROUNDS', 0)\n", encoding="utf-8")  # not the mask engine
    assert [p.split(" ")[0] for p in _patched_constants(test)] == ["test_fake.py:5", "test_fake.py:6", "test_fake.py:7"]


if __name__ == "__main__":
    pytest.main([__file__])
