"""The teaching notebooks run top to bottom on the current interpreter and show their pictures.

Each notebook in notebooks/ is executed with nbclient in a fresh kernel that runs *this* Python
(a kernel spec written to a temporary JUPYTER_PATH), so it imports the brzozowski under test. Any
error in any cell fails the test with the cell's traceback. The outputs must hold the pictures the
notebook promises: automata as image/svg+xml (a DFA's `_repr_svg_`), plots as image/png
(matplotlib's inline backend, which renders with Agg). The repository keeps the notebooks without
outputs (`python notebooks/run_all.py --strip`); that is checked too.

Needs the packages nbclient, nbformat, ipykernel and matplotlib (the `test` extra).
"""

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# notebook -> (at least this many SVG pictures, at least this many PNG plots)
EXPECTED_PICTURES = {
    "01_derivatives.ipynb": (0, 1),
    "02_canonical_dfa.ipynb": (5, 1),
    "03_token_masks.ipynb": (1, 2),
    "04_json_schema.ipynb": (3, 1),
    "05_constrained_generation.ipynb": (0, 2),
    "06_intersection_complement.ipynb": (3, 0),
}
CELL_TIMEOUT_SECONDS = 120  # a runaway cell fails instead of hanging (each notebook takes 8-20 s)


def test_every_notebook_is_listed():
    assert sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) == sorted(EXPECTED_PICTURES)


@pytest.fixture(scope="module")
def this_interpreter_kernel(tmp_path_factory):
    """A kernel spec named python3 that runs sys.executable, first on the Jupyter path."""
    folder = tmp_path_factory.mktemp("jupyter")
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (the interpreter running the tests)",
        "language": "python",
    }))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(folder))
        yield


def pictures(nb: nbformat.NotebookNode, mime: str) -> int:
    return sum(mime in output.get("data", {}) for cell in nb.cells for output in cell.get("outputs", []))


@pytest.mark.slow  # 8-20 s a notebook: the largest share of the suite's time
@pytest.mark.parametrize("name", sorted(EXPECTED_PICTURES))
def test_notebook_runs_and_shows_its_pictures(name, this_interpreter_kernel):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    # One extra cell at the end says which interpreter ran the notebook.
    nb.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.executable, end='')"))
    NotebookClient(nb, timeout=CELL_TIMEOUT_SECONDS, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()  # raises on any error
    assert nb.cells[-1].outputs[0]["text"] == sys.executable
    errors = [o for cell in nb.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    svg, png = EXPECTED_PICTURES[name]
    assert pictures(nb, "image/svg+xml") >= svg, "automata pictures missing"
    assert pictures(nb, "image/png") >= png, "plots missing"
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "image/svg+xml" in output.get("data", {}):
                assert output["data"]["image/svg+xml"].lstrip().startswith(("<svg", "<?xml"))


@pytest.mark.parametrize("name", sorted(EXPECTED_PICTURES))
def test_notebook_is_committed_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{name} has outputs: run `python notebooks/run_all.py --strip` before committing")
