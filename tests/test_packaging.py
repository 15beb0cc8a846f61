"""The package as a user installs it: a wheel built from the repository carries the golden masks
file, and `brzozowski golden --check` works from that non-editable copy, away from the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import brzozowski

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the repository's package files (pip, with build isolation:
    the build backend named in pyproject.toml comes from the package index)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("brzozowski", "fixtures"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(dist), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (built,) = dist.glob("brzozowski-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_carries_the_golden_file_and_every_module(wheel):
    assert wheel.name.startswith(f"brzozowski-{brzozowski.__version__}-")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        shipped = archive.read("brzozowski/_fixtures/masks_golden.json")
    assert shipped == (ROOT / "fixtures" / "masks_golden.json").read_bytes()
    modules = {f"brzozowski/{p.relative_to(ROOT / 'brzozowski').as_posix()}"
               for p in (ROOT / "brzozowski").rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    assert "brzozowski/py.typed" in names and "brzozowski/_fixtures/README.md" in names
    assert "brzozowski/json/format_tables.npz" in names  # the formats' shipped tables
    assert not any(name.startswith(("tests/", "fixtures/", "notebooks/")) for name in names)


@pytest.mark.slow
def test_golden_check_runs_from_the_installed_wheel(wheel, tmp_path):
    """Installed without the source tree (unpacked, as pip installs a pure wheel), in a working
    directory outside the repository: the check finds the shipped file and passes."""
    site = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=env, timeout=600)

    where = run("-c", "import brzozowski.golden as g; print(g.__file__); print(g.DEFAULT_GOLDEN_PATH)")
    module_file, golden_path = where.stdout.split()
    assert module_file.startswith(str(site)) and golden_path.startswith(str(site)), where.stdout
    assert golden_path.endswith("brzozowski/_fixtures/masks_golden.json")

    done = run("-m", "brzozowski.cli", "golden", "--check")
    assert done.returncode == 0, done.stderr
    assert "8 cases" in done.stdout and "no mismatches" in done.stdout
    done = run("-m", "brzozowski.cli", "golden")  # regenerating needs a --path: never site-packages
    assert done.returncode == 2 and "name it with --path" in done.stderr and "Traceback" not in done.stderr
    done = run("-m", "brzozowski.cli", "--version")
    assert done.stdout.strip() == f"brzozowski {brzozowski.__version__}"
