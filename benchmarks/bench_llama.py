"""Mask overhead per token on a real model: what constraining costs against the model's own time.

Runs the demo's constrained generations (``brzozowski.demo``: the four embedded tools, chat
prompts, temperature 0.7) on SmolLM2-135M-Instruct through llama.cpp, and for every generated
token sets the logits processor's time (advance the constraint past the sampled token + look up the
mask + apply it to the 49,152 scores) against the model's time for that token (the interval between
two processor calls minus the processor's own time: llama.cpp's forward pass and its sampling
chain). Prints one markdown table: per mode and round, the model's median ms per token and the
overhead's median, p99 and max, as a fraction of the model's time and in microseconds.

Modes: ``precomputed`` (the demo's default: the canonical DFA is compiled and every state's mask
computed before the first token, reported as setup time) and ``lazy`` (a LazyDFA, each state's
mask computed the first time a generation reaches it, on the token path). Indexes are shared between
requests of the same tool, as an engine shares a compiled schema: round 1 meets every state for
the first time, later rounds find their masks cached.

Targets (issue 13): median under 2%, p99 under 20%.

Run with the project's environment (``pip install -e '.[demo]'``), not the peers' benchmark venv::

    python benchmarks/bench_llama.py [--rounds 2] [-n 8] [--max-tokens 128] [--modes precomputed,lazy]

Pins itself to one CPU (``BENCH_CPU``, default the last allowed one); llama.cpp runs one thread.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from brzozowski.demo import generate, tasks_for  # noqa: E402
from brzozowski.runtime.llama import default_model_path, load_model  # noqa: E402


def _pin() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned"
    cpus = sorted(os.sched_getaffinity(0))
    cpu = int(os.environ.get("BENCH_CPU", cpus[-1]))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds over the requests (default 2)")
    parser.add_argument("-n", type=int, default=8, help="requests per round, tools in turn (default 8)")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", help="a GGUF file (default SmolLM2-135M-Instruct)")
    parser.add_argument("--modes", default="precomputed,lazy")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="cpu (default): this thread's CPU time, which a loaded machine does not "
                        "inflate (llama.cpp runs its one thread in ours); wall: elapsed time")
    args = parser.parse_args(argv)

    pinned = _pin()
    path = args.model or default_model_path()
    llm = load_model(path, seed=args.seed, n_threads=1)
    print(f"# Mask overhead per token: {Path(path).name}, llama.cpp, {pinned}")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, load average {os.getloadavg()[0]:.1f}")
    print(f"{args.n} requests per round (the demo's tools in turn), temperature 0.7, "
          f"at most {args.max_tokens} tokens; {args.clock} time\n")
    print("| mode | round | tokens | setup s | model ms/token (median) | overhead median | p99 | max "
          "| overhead us median | p99 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tasks = tasks_for(args.n)
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    for mode in args.modes.split(","):
        precompute = {"precomputed": True, "lazy": False}[mode]
        everything: list[float] = []
        for round_ in range(1, args.rounds + 1):
            ratios: list[float] = []
            model: list[float] = []
            setup = 0.0
            for i, task in enumerate(tasks):
                g = generate(llm, task, True, args.seed + i, args.max_tokens, precompute=precompute, clock=clock)
                if g.finished and not g.valid:
                    print(f"error: request {i} finished but does not validate: {g.text}", file=sys.stderr)
                    return 1
                ratios += g.overheads
                model += g.model_seconds
                setup += g.setup_seconds
            micros = [r * m * 1e6 for r, m in zip(ratios, model)]
            everything += ratios
            print(f"| {mode} | {round_} | {len(ratios)} | {setup:.2f} | {1e3 * statistics.median(model):.1f} "
                  f"| {100 * np.median(ratios):.2f}% | {100 * np.percentile(ratios, 99):.2f}% "
                  f"| {100 * max(ratios):.1f}% | {np.median(micros):.0f} | {np.percentile(micros, 99):.0f} |")
        print(f"| {mode} | all | {len(everything)} | | | {100 * np.median(everything):.2f}% "
              f"| {100 * np.percentile(everything, 99):.2f}% | {100 * max(everything):.1f}% | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
