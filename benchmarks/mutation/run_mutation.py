"""Mutation testing of brzozowski with cosmic-ray: how many planted bugs does the test suite catch?

For each module (one at a time), in a scratch copy of the repository:

1. ``cosmic-ray init`` lists every mutant of the module (operator x position);
2. mutants inside annotations are dropped (every module postpones them with ``from __future__ import
   annotations``, so they never run: equivalent by construction; counted in the table), then a seeded
   sample of the rest is kept (``--sample``, ``--seed``), the others dropped from the session;
3. the module's relevant tests (``MODULE_TESTS`` plus the module's own doctests) run once
   unmutated: they must pass, and their time sets the per-mutant timeout;
4. ``cosmic-ray exec`` applies each sampled mutant and runs those tests (``pytest -x``);
5. the outcomes are counted: killed (a test failed), timed out (counts as killed: the suite noticed),
   survived, incompetent (the mutant did not import). Survivors listed in ``equivalent.toml`` (a
   mutant that cannot change behaviour, with the reason) are counted apart, and the score is

       score = (killed + timed out) / (sampled - incompetent - equivalent).

The report is a markdown table printed to stdout; the survivors' diffs go to ``--survivors`` so that
each one can be read, then killed by a test or listed as equivalent.

Usage (from the repository root; cosmic-ray is not a project dependency)::

    pip install "cosmic-ray>=8.7,<9"
    nice -n 10 python benchmarks/mutation/run_mutation.py                 # every module, 50 each
    python benchmarks/mutation/run_mutation.py --modules masks --sample 20 --seed 3

The repository itself is never modified: cosmic-ray mutates files in place, so everything runs in a
temporary copy (kept with ``--keep`` for inspection). Hypothesis runs without its example database, so
a mutant is judged by the suite as CI runs it, not by examples that an earlier mutant made it find.
"""

from __future__ import annotations

import argparse
import ast
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db

ROOT = Path(__file__).resolve().parents[2]
# cosmic-ray's command, from the environment this script runs in (a venv need not be on PATH)
COSMIC_RAY = shutil.which("cosmic-ray", path=str(Path(sys.executable).parent)) or shutil.which("cosmic-ray")
HERE = Path(__file__).resolve().parent

# module -> the test files that exercise it (the module's doctests are always added)
MODULE_TESTS = {
    # test_boolean: intersection and complement live in terms and derivatives since round 2
    "terms": ["test_terms.py", "test_syntax.py", "test_dfa.py", "test_boolean.py", "test_mutation_survivors.py"],
    "derivatives": ["test_terms.py", "test_dfa.py", "test_syntax.py", "test_boolean.py", "test_mutation_survivors.py"],
    "syntax": ["test_syntax.py", "test_terms.py", "test_dfa.py", "test_mutation_survivors.py"],
    "dfa": ["test_dfa.py", "test_terms.py", "test_draw.py", "test_mutation_survivors.py"],
    "lazy": ["test_dfa.py", "test_masks.py", "test_constraint.py", "test_boolean.py", "test_mutation_survivors.py"],
    "masks": ["test_masks.py", "test_constraint.py", "test_mutation_survivors.py"],
    "vocabulary": ["test_masks.py", "test_vocab.py", "test_constraint.py", "test_mutation_survivors.py"],
    "string_masks": ["test_masks.py", "test_constraint.py", "test_mutation_survivors.py"],
    "constraint": ["test_constraint.py", "test_generation.py", "test_mutation_survivors.py"],
    "sampling": ["test_sampling.py", "test_constraint.py", "test_mutation_survivors.py"],
    "schema": ["test_schema.py", "test_mutation_survivors.py"],
    "schema_compiler": ["test_schema.py", "test_compile_schema.py", "test_mutation_survivors.py"],
    "golden": ["test_golden.py", "test_mutation_survivors.py"],
    "golden/oracle": ["test_golden.py", "test_mutation_survivors.py"],
    "golden/check": ["test_golden.py", "test_mutation_survivors.py"],
    "golden/cases": ["test_golden.py", "test_mutation_survivors.py"],
}
DEFAULT_MODULES = ["terms", "derivatives", "syntax", "dfa", "masks", "vocabulary", "string_masks", "constraint",
                   "schema", "golden/oracle", "golden/check", "golden/cases"]
COPIED = ["brzozowski", "tests", "fixtures", "notebooks", "README.md", "pyproject.toml"]
# Loaded by the scratch copy's conftest.py: no example database shared between mutants.
CONFTEST = """\
from hypothesis import settings

settings.register_profile("mutation", database=None, print_blob=False)
settings.load_profile("mutation")
"""


@dataclass
class ModuleReport:
    module: str
    mutants: int  # the mutants cosmic-ray generates for the module, outside annotations
    in_annotations: int  # mutants of postponed annotations: never run (equivalent by construction)
    baseline_s: float
    timeout_s: float
    killed: int = 0
    timed_out: int = 0
    survived: list[tuple[str, str]] = field(default_factory=list)  # (key, diff)
    equivalent: list[tuple[str, str]] = field(default_factory=list)  # (key, reason)
    incompetent: int = 0

    @property
    def sampled(self) -> int:
        return self.killed + self.timed_out + len(self.survived) + len(self.equivalent) + self.incompetent

    @property
    def score(self) -> float:
        judged = self.killed + self.timed_out + len(self.survived)
        return (self.killed + self.timed_out) / judged if judged else float("nan")


def mutant_key(module: str, operator: str, diff: str) -> str:
    """A name for a mutant that survives edits elsewhere in the file: its operator and changed lines."""
    changed = [
        line[0] + line[1:].strip()
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return f"{module} | {operator} | " + " => ".join(changed)


def load_equivalent(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    with path.open("rb") as f:
        table = tomllib.load(f)
    return {entry["key"]: entry["reason"] for entry in table.get("equivalent", [])}


def run(cmd: list[str], cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def scratch_copy(dest: Path) -> None:
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        elif src.exists():
            shutil.copy2(src, dest / name)
    (dest / "conftest.py").write_text(CONFTEST)


def annotation_spans(source: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The (start, end) positions of every annotation, when the module postpones their evaluation
    (``from __future__ import annotations``): a mutant there cannot change behaviour."""
    tree = ast.parse(source.read_text())
    postponed = any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )
    if not postponed:
        return []
    spans = []
    for node in ast.walk(tree):
        found = []
        if isinstance(node, ast.arg) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        spans += [((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)) for a in found]
    return spans


def keep_sample(session: Path, work: Path, sample: int, seed: int) -> tuple[int, int]:
    """Drop the annotation mutants and all but a seeded sample of the rest from the session.

    Returns (mutants outside annotations, mutants inside annotations).
    """
    spans: dict[str, list] = {}

    def in_annotation(w) -> bool:
        spec = w.mutations[0]
        path = str(spec.module_path)
        if path not in spans:
            spans[path] = annotation_spans(work / path)
        return any(lo <= tuple(spec.start_pos) and tuple(spec.end_pos) <= hi for lo, hi in spans[path])

    with use_db(str(session), WorkDB.Mode.open) as db:
        every = db.work_items
    items = sorted(
        (w for w in every if not in_annotation(w)),
        key=lambda w: (w.mutations[0].operator_name, w.mutations[0].occurrence),
    )
    chosen = random.Random(seed).sample(items, min(sample, len(items)))
    keep = [w.job_id for w in chosen]
    with sqlite3.connect(session) as con:
        con.execute("CREATE TEMP TABLE keep (job_id TEXT PRIMARY KEY)")
        con.executemany("INSERT INTO keep VALUES (?)", [(j,) for j in keep])
        con.execute("DELETE FROM mutation_specs WHERE job_id NOT IN (SELECT job_id FROM keep)")
        con.execute("DELETE FROM work_items WHERE job_id NOT IN (SELECT job_id FROM keep)")
    return len(items), len(every) - len(items)


def measure_module(module: str, args: argparse.Namespace, equivalent: dict[str, str], work: Path) -> ModuleReport:
    python = sys.executable
    tests = [f"tests/{name}" for name in MODULE_TESTS[module]]
    # a module ("masks", "golden/check"), or a package ("golden"): cosmic-ray mutates every file under a folder
    source = f"brzozowski/{module}.py" if (work / f"brzozowski/{module}.py").exists() else f"brzozowski/{module}"
    test_command = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--doctest-modules",
                    source, *tests]

    start = time.perf_counter()
    baseline = run(test_command, work)
    baseline_s = time.perf_counter() - start
    if baseline.returncode != 0:
        raise SystemExit(f"{module}: the unmutated tests fail, fix them first:\n{baseline.stdout[-3000:]}")
    timeout_s = max(args.min_timeout, args.timeout_factor * baseline_s)

    config = work / f"{module.replace('/', '-')}.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{source}"\n'
        f"timeout = {timeout_s:.1f}\n"
        "excluded-modules = []\n"
        f"test-command = {subprocess.list2cmdline(test_command)!r}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )
    session = work / f"{module.replace('/', '-')}.sqlite"
    init = run([COSMIC_RAY, "init", str(config), str(session)], work)
    if init.returncode != 0:
        raise SystemExit(f"{module}: cosmic-ray init failed:\n{init.stderr[-3000:]}")
    total, in_annotations = keep_sample(session, work, args.sample, args.seed)
    execution = run([COSMIC_RAY, "exec", str(config), str(session)], work)
    if execution.returncode != 0:
        raise SystemExit(f"{module}: cosmic-ray exec failed:\n{execution.stderr[-3000:]}")

    report = ModuleReport(module, total, in_annotations, baseline_s, timeout_s)
    with use_db(str(session), WorkDB.Mode.open) as db:
        operators = {w.job_id: w.mutations[0].operator_name for w in db.work_items}
        for job_id, result in db.results:
            if result.test_outcome is None or result.test_outcome.value == "incompetent":
                report.incompetent += 1
            elif result.test_outcome.value == "killed":
                if result.output == "timeout":
                    report.timed_out += 1
                else:
                    report.killed += 1
            else:
                key = mutant_key(module, operators[job_id], result.diff or "")
                if key in equivalent:
                    report.equivalent.append((key, equivalent[key]))
                else:
                    report.survived.append((key, result.diff or ""))
    return report


def write_survivors(path: Path, reports: list[ModuleReport], commit: str, args: argparse.Namespace) -> None:
    lines = [f"# Survivors at {commit} (seed {args.seed}, {args.sample} per module)\n"]
    for report in reports:
        for key, diff in report.survived:
            lines += [f"## {key}\n", "```diff", diff.strip(), "```\n"]
        for key, reason in report.equivalent:
            lines += [f"## equivalent: {key}\n", reason + "\n"]
    path.write_text("\n".join(lines))


def checkout_version() -> str:
    """The checkout's commit, with "+" when the library or the tests have uncommitted edits."""
    commit = run(["git", "rev-parse", "--short", "HEAD"], ROOT).stdout.strip() or "?"
    dirty = run(["git", "status", "--porcelain", "--", "brzozowski", "tests", "fixtures"], ROOT).stdout.strip()
    return commit + ("+" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", default=",".join(DEFAULT_MODULES),
                        help=f"comma-separated, from {sorted(MODULE_TESTS)}")
    parser.add_argument("--sample", type=int, default=50, help="mutants per module (seeded sample)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--timeout-factor", type=float, default=10.0,
                        help="per-mutant timeout = this x the unmutated tests' time ...")
    parser.add_argument("--min-timeout", type=float, default=90.0,
                        help="... but at least this (s): generous, a shared machine slows everything")
    parser.add_argument("--equivalent", type=Path, default=HERE / "equivalent.toml")
    parser.add_argument("--survivors", type=Path, default=None,
                        help="write every survivor's diff here (markdown)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies (paths printed)")
    args = parser.parse_args(argv)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()]
    unknown = [m for m in modules if m not in MODULE_TESTS]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; choose from {sorted(MODULE_TESTS)}")
    if COSMIC_RAY is None:
        parser.error('cosmic-ray is not installed: pip install "cosmic-ray>=8.7,<9"')

    equivalent = load_equivalent(args.equivalent)
    print(f"mutation testing: cosmic-ray, {args.sample} mutants per module, seed {args.seed}\n")
    print("| module | commit | mutants | in annotations | sampled | killed | timed out | survived | equivalent "
          "| incompetent | score | tests (s) | timeout (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    reports = []
    for module in modules:
        work = Path(tempfile.mkdtemp(prefix=f"brz-mutation-{module.replace('/', '-')}-"))
        try:
            scratch_copy(work)  # the checkout as it is now, uncommitted edits included (a "+" on the commit)
            commit = checkout_version()
            report = measure_module(module, args, equivalent, work)
        finally:
            if args.keep:
                print(f"<!-- scratch copy kept: {work} -->")
            else:
                shutil.rmtree(work, ignore_errors=True)
        reports.append(report)
        print(f"| {module} | {commit} | {report.mutants} | {report.in_annotations} | {report.sampled} | {report.killed} | {report.timed_out} "
              f"| {len(report.survived)} | {len(report.equivalent)} | {report.incompetent} "
              f"| {report.score:.0%} | {report.baseline_s:.1f} | {report.timeout_s:.0f} |", flush=True)
        if args.survivors:  # rewritten after every module, so a long run can be read as it goes
            write_survivors(args.survivors, reports, commit, args)

    return 0


if __name__ == "__main__":
    sys.exit(main())
