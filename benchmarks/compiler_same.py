"""Fingerprint every corpus schema's compiled language, to compare two trees of brzozowski.

    PYTHONPATH=<tree> python compiler_same.py OUT.json        # one tree
    python compiler_same.py --compare A.json B.json           # the two fingerprints

Per schema and option set: the error (type + message) or the explain notes; a canonical BFS of the
lazy DFA over its first BFS_STATES states (every byte's target, numbered in discovery order: equal
when the terms are equal); seeded random walks (WALKS walks of WALK_BYTES bytes; per step the set of
allowed next bytes and acceptance: a language invariant); the corpus document's own walk where
bench_corpus.instance draws one; the compile wall time.
"""

import hashlib
import json
import random
import sys
import time
from pathlib import Path

BFS_STATES = 120
WALKS = 4
WALK_BYTES = 160
OPTION_SETS = {
    "default": {},
    "open": {"separators": (",", ":"), "any_whitespace": False, "closed_objects": False,
             "unknown_keywords": "refuse"},
    "ws": {"any_whitespace": True, "closed_objects": False, "unknown_keywords": "ignore"},
}


def bfs(lazy):
    number = {0: 0}
    order = [0]
    rows = []
    for state in order:
        if len(rows) >= BFS_STATES:
            break
        row = lazy.row(state)
        out = []
        for target in row.tolist():
            if target < 0:
                out.append(-1)
                continue
            if target not in number:
                number[target] = len(order)
                order.append(target)
            out.append(number[target])
        rows.append((lazy.is_accepting(state), out))
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def walk(lazy, rng, data=None):
    state, steps = 0, []
    for i in range(WALK_BYTES if data is None else len(data)):
        row = lazy.row(state)
        allowed = [b for b in range(256) if row[b] >= 0]
        steps.append((lazy.is_accepting(state), hashlib.md5(bytes(allowed)).hexdigest()[:12]))
        if data is not None:
            b = data[i]
        elif not allowed:
            break
        else:
            b = rng.choice(allowed)
        state = int(row[b])
        if state < 0:
            steps.append("dead")
            break
    else:
        if state >= 0:
            steps.append(lazy.is_accepting(state))
    return hashlib.sha256(json.dumps(steps).encode()).hexdigest()


def fingerprint(out_path):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import brzozowski
    from brzozowski.json.compiler import compile_json_schema, explain_json_schema
    here = Path(brzozowski.__file__).resolve().parent.parent
    sys.path.insert(0, str(here / "benchmarks"))
    import bench_corpus
    corpus = bench_corpus.load_corpus(here / "benchmarks" / "corpus", 0)
    results = {"tree": str(here), "schemas": {}}
    for index, (name, schema) in enumerate(corpus):
        for option_name, options in OPTION_SETS.items():
            entry = {}
            start = time.perf_counter()
            try:
                lazy = compile_json_schema(schema, **options)
            except Exception as e:  # noqa: BLE001
                entry["error"] = f"{type(e).__name__}: {e}"
                entry["seconds"] = time.perf_counter() - start
                results["schemas"][f"{name}|{option_name}"] = entry
                continue
            entry["seconds"] = time.perf_counter() - start
            entry["notes"] = explain_json_schema(schema, **options)
            try:
                entry["bfs"] = bfs(lazy)
                rng = random.Random(index)
                entry["walks"] = [walk(lazy, rng) for _ in range(WALKS)]
                try:
                    value = bench_corpus.instance(schema, random.Random(index))
                    text = json.dumps(value, separators=(",", ":")).encode()
                    entry["document"] = walk(lazy, None, text)
                except Exception:  # noqa: BLE001
                    pass
            except Exception as e:  # noqa: BLE001
                entry["walk_error"] = f"{type(e).__name__}: {e}"
            results["schemas"][f"{name}|{option_name}"] = entry
        print(index, name, file=sys.stderr, flush=True)
    Path(out_path).write_text(json.dumps(results, indent=0))


def compare(a_path, b_path):
    a = json.loads(Path(a_path).read_text())["schemas"]
    b = json.loads(Path(b_path).read_text())["schemas"]
    counts = {"cases": 0, "compiled": 0, "errors": 0, "bfs_equal": 0, "walks": 0, "documents": 0}
    differ = []
    for key in sorted(a.keys() | b.keys()):
        x, y = a.get(key), b.get(key)
        counts["cases"] += 1
        if x is None or y is None:
            differ.append((key, "missing"))
            continue
        for field in ("error", "notes", "walks", "document", "walk_error"):
            if x.get(field) != y.get(field):
                differ.append((key, field))
        if "error" in x:
            counts["errors"] += 1
            continue
        counts["compiled"] += 1
        counts["bfs_equal"] += x.get("bfs") == y.get("bfs")
        counts["walks"] += len(x.get("walks", []))
        counts["documents"] += "document" in x
    slow = sorted(((v["seconds"], k) for k, v in b.items()), reverse=True)[:5]
    slow_a = sorted(((v["seconds"], k) for k, v in a.items()), reverse=True)[:5]
    print(json.dumps(counts))
    print("slowest compiles (A):", [(round(s, 3), k) for s, k in slow_a])
    print("slowest compiles (B):", [(round(s, 3), k) for s, k in slow])
    print(f"{len(differ)} differences")
    for key, field in differ[:40]:
        print("  ", key, field)
        if field in ("error", "notes"):
            print("     A:", a[key].get(field))
            print("     B:", b[key].get(field))


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        fingerprint(sys.argv[1])
