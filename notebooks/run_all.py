"""Run the teaching notebooks top to bottom with the current Python, and write or strip their outputs.

    python notebooks/run_all.py            # execute every notebook, save it with its outputs
    python notebooks/run_all.py --check    # execute every notebook, save nothing (fails on any error)
    python notebooks/run_all.py --strip    # remove every output (what the repository commits)
    python notebooks/run_all.py notebooks/02_canonical_dfa.ipynb   # just one

The kernel is the interpreter running this script (``sys.executable -m ipykernel_launcher``), so
the notebooks see the brzozowski this Python imports: install with ``pip install -e '.[notebooks]'``.
Each notebook runs in its own directory (notebooks/), and its time is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
TIMEOUT_SECONDS = 120  # per cell; a notebook as a whole should take well under a minute


def notebooks(paths: list[str]) -> list[Path]:
    return [Path(p).resolve() for p in paths] if paths else sorted(HERE.glob("[0-9][0-9]_*.ipynb"))


def use_this_interpreter() -> tempfile.TemporaryDirectory:
    """Put a kernel spec named python3 that runs `sys.executable` first on the Jupyter path."""
    folder = tempfile.TemporaryDirectory(prefix="brzozowski-kernel-")
    spec = Path(folder.name) / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (this interpreter)",
        "language": "python",
    }))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [folder.name] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p])
    return folder


def execute(path: Path) -> tuple[nbformat.NotebookNode, float]:
    """Run the notebook; raise nbclient's CellExecutionError on the first failing cell."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=TIMEOUT_SECONDS, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb, time.perf_counter() - start


def strip(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="notebooks (default: notebooks/[0-9][0-9]_*.ipynb)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="execute but do not save")
    mode.add_argument("--strip", action="store_true", help="remove outputs, execute nothing")
    args = parser.parse_args(argv)
    if args.strip:
        for path in notebooks(args.paths):
            nbformat.write(strip(nbformat.read(path, as_version=4)), path)
            print(f"stripped {path.name}")
        return 0
    kernel = use_this_interpreter()
    total = 0.0
    try:
        for path in notebooks(args.paths):
            nb, seconds = execute(path)
            total += seconds
            if not args.check:
                nbformat.write(nb, path)
            print(f"{path.name:32} {seconds:6.1f} s")
    finally:
        kernel.cleanup()
    print(f"{'total':32} {total:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
