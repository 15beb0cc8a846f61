"""Regex -> minimal DFA: brzozowski.regex_to_dfa against interegular and greenery, in one run.

Usage (in the benchmark environment, see README.md):

    $BENCH_VENV/bin/python benchmarks/bench_compile.py [--repeats 5] [--budget 60] [--timeout 600]

Protocol. Our library memoizes derivatives on its interned terms (alive while referenced) and
partitions in bounded process-wide memos (`brzozowski.core.alphabet`), so a second compile of the same
pattern in one process is not a compile from scratch. Every measurement therefore runs in a fresh interpreter (a worker subprocess), and
the headline figure is the *cold* time: the first compile of the pattern in that process. Before
the clock starts the worker has imported the engine and compiled the one-byte pattern ``q`` (so
one-time process costs such as lazy imports and numpy's first calls, ~15 ms for us, are not
charged to the first row; ``q`` shares no term with the rows beyond the byte set {q}). The same worker then repeats the compile (*warm*: our result, a DFA, holds
arrays and no terms, so the term memos went with the first compile and the partition memos remain; the peers have no
such caches, their repeats cost what the first did). Each engine gets the same protocol: up to
``--repeats`` workers per pattern (round-robin over the engines, so that load on a shared machine
hits all of them alike), the median of their cold times; fewer workers when an engine has
spent ``--budget`` seconds on a pattern already; a worker that runs past ``--timeout`` is killed and
the row says so (the ratio is then a lower bound).

What is timed, per engine:
- brzozowski: ``regex_to_dfa(pattern)`` (parse, lazy exploration by derivative classes, liveness,
  Moore minimization, BFS renumbering): the canonical minimal DFA, complete int32[S, 256] tables.
- interegular: ``parse_pattern(p).to_fsm().reduce()`` (reduce = Brzozowski's double reversal).
- greenery 4: ``parse(p).to_fsm().reduce()`` (same).
State counts: ours are live states (no dead sink). The peers' FSMs may keep a dead/sink state;
we count their live states (those from which a final state is reachable) and show the raw count
in parentheses when it differs.

Everything runs pinned to one CPU (BENCH_CPU, default the last allowed one).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

ENGINES = ("brzozowski", "interegular", "greenery")
WARMUP = "q"  # compiled once in every worker before the clock starts (shares no term with the rows)


# --- worker side --------------------------------------------------------------------------------


def _live_count(states, finals, edges) -> int:
    """States from which a final state is reachable; `edges` maps state -> iterable of next states."""
    preds: dict = {s: [] for s in states}
    for s in states:
        for t in edges(s):
            preds.setdefault(t, []).append(s)
    live, stack = set(finals), list(finals)
    while stack:
        for p in preds.get(stack.pop(), ()):
            if p not in live:
                live.add(p)
                stack.append(p)
    return len(live)


def _compiler(engine: str):
    if engine == "brzozowski":
        from brzozowski import regex_to_dfa

        def run(p):
            return regex_to_dfa(p)

        def states(d):
            return int(d.n_states), int(d.n_states)

        return run, states, lambda p: p
    if engine == "interegular":
        import interegular

        def run(p):
            return interegular.parse_pattern(p).to_fsm().reduce()

        def states(f):
            return _live_count(f.states, f.finals, lambda s: f.map.get(s, {}).values()), len(f.states)

        return run, states, lambda p: p
    if engine == "greenery":
        import greenery

        def run(p):
            return greenery.parse(p).to_fsm().reduce()

        def states(f):
            return _live_count(f.states, f.finals, lambda s: f.map.get(s, {}).values()), len(f.states)

        return run, states, C.for_greenery
    raise ValueError(engine)


def worker(args: dict) -> dict:
    C.pin_one_core()
    run, states, dialect = _compiler(args["engine"])
    pattern = dialect(args["pattern"])
    run(WARMUP)  # one-time process costs (lazy imports, first numpy calls) are not a compile's
    times = []
    t_start = time.perf_counter()
    result = None
    for i in range(1 + args["warm"]):
        t0 = time.perf_counter()
        result = run(pattern)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - t_start > args["budget"]:
            break
    live, raw = states(result)
    return {"cold": times[0], "warm": times[1:], "states": live, "raw_states": raw}


# --- driver side --------------------------------------------------------------------------------


def measure(engines: list[str], pattern: str, repeats: int, budget: float, timeout: float) -> dict:
    """Round-robin over the engines (so load changes on a shared machine hit every engine alike)."""
    cold = {e: [] for e in engines}
    warm = {e: [] for e in engines}
    spent = {e: 0.0 for e in engines}
    out: dict = {e: {} for e in engines}
    for i in range(repeats):
        for e in engines:
            if "error" in out[e] or (i and spent[e] > budget):
                continue
            t0 = time.perf_counter()
            r = C.run_worker(__file__, {"engine": e, "pattern": pattern, "warm": repeats,
                                        "budget": budget / repeats}, timeout)
            spent[e] += time.perf_counter() - t0
            if "error" in r:
                out[e].update(r)
                continue
            cold[e].append(r["cold"])
            warm[e].extend(r["warm"])
            out[e].update(states=r["states"], raw_states=r["raw_states"])
    for e in engines:
        out[e].update(cold=C.median(cold[e]) if cold[e] else None, warm=C.median(warm[e]) if warm[e] else None,
                      cold_min=min(cold[e]) if cold[e] else None, runs=len(cold[e]), cold_all=cold[e])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="workers (cold runs) per engine and pattern")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per engine and pattern before fewer repeats")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds before a worker is killed")
    ap.add_argument("--only", help="comma-separated row names to run")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--json", help="also write the raw results to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(worker(json.loads(a.worker))))
        return

    cpu = C.pin_one_core()
    engines = a.engines.split(",")
    patterns = C.compile_patterns()
    if a.only:
        patterns = {k: v for k, v in patterns.items() if k in a.only.split(",")}
    print(f"# bench_compile: regex -> minimal DFA, pinned to CPU {cpu}, python {sys.version.split()[0]}")
    print(f"# {a.repeats} fresh processes per engine and pattern (fewer past {a.budget:.0f} s), timeout {a.timeout:.0f} s\n")
    results: dict = {}
    for name, pattern in patterns.items():
        if pattern is None:
            print(f"{name}: skipped (brzozowski.json.strict.json_schema_to_regex is not available)", flush=True)
            continue
        results[name] = {"pattern_chars": len(pattern)}
        res = measure(engines, pattern, a.repeats, a.budget, a.timeout)
        for engine in engines:
            r = results[name][engine] = res[engine]
            print(f"  {name:20s} {engine:12s} cold {C.fmt_ms(r['cold']):>10s}  warm {C.fmt_ms(r['warm']):>10s}"
                  f"  states {r.get('states', '-')}  runs {r['runs']}  {r.get('error', '')}", flush=True)

    headers = ["pattern", "states", "ours cold", "ours warm"]
    peers = [e for e in engines if e != "brzozowski"]
    for p in peers:
        headers += [f"{p} (states)", f"{p} time", "ratio"]
    rows = []
    for name, res in results.items():
        ours = res.get("brzozowski", {})
        row = [f"{name} ({res['pattern_chars']} chars)" if res["pattern_chars"] > 40 else name,
               str(ours.get("states", "-")), f"{C.fmt_ms(ours.get('cold'))} [{C.fmt_ms(ours.get('cold_min'))}]",
               C.fmt_ms(ours.get("warm"))]
        for p in peers:
            r = res.get(p, {})
            st = "-" if "states" not in r else (
                str(r["states"]) if r["states"] == r["raw_states"] else f"{r['states']} ({r['raw_states']})")
            if r.get("timeout"):
                t, ratio = f">{r['timeout']:.0f} s (killed)", C.fmt_ratio(
                    r["timeout"] / ours["cold"] if ours.get("cold") else None, lower_bound=True)
            elif r.get("cold") is None:
                t, ratio = r.get("error", "-")[:40], "-"
            else:
                t = f"{C.fmt_ms(r['cold'])} [{C.fmt_ms(r['cold_min'])}]"
                ratio = (f"{C.fmt_ratio(r['cold'] / ours['cold'])} [{C.fmt_ratio(r['cold_min'] / ours['cold_min'])}]"
                         if ours.get("cold") else "-")
            row += [st, t, ratio]
        rows.append(row)
    print()
    print("times: median [min] of the cold compiles, one per fresh process; ratio = peer / ours, of the medians"
          " [of the minimums]; >1 means we are faster. On a loaded machine the minimum is the least disturbed run.")
    print(C.table(headers, rows))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
