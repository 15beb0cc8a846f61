#!/usr/bin/env bash
# Run both benchmarks in the benchmark environment and keep their full output in benchmarks/results/.
#   bash benchmarks/run_all.sh [VENV_DIR]        # default $BENCH_VENV (see setup_env.sh)
# Takes about 30-40 minutes on one core (greenery alone spends ~7 min on the two largest patterns).
set -euo pipefail
VENV="${1:-${BENCH_VENV:?pass VENV_DIR or set BENCH_VENV}}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/benchmarks/results"
mkdir -p "$OUT"
cd "$ROOT"
{ date -u; git rev-parse HEAD; git status --short brzozowski | sed 's/^/  uncommitted: /'; } > "$OUT/provenance.txt"
"$VENV/bin/python" benchmarks/bench_compile.py --repeats 5 --json "$OUT/compile.json" | tee "$OUT/compile.txt"
"$VENV/bin/python" benchmarks/bench_masks.py --repeats 3 --json "$OUT/masks.json" | tee "$OUT/masks.txt"
