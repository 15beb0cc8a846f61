"""Compile every schema of a corpus, report the compile rate and refusals, and check soundness.

    PYTHONPATH=. /work/venv/bin/python benchmarks/corpus_report.py [PATH ...] [--front {strict,compile}]
        [--limit N] [--samples N] [--seed S] [--timeout SEC] [--sample-seconds SEC]
        [--max-bytes N] [--max-states N] [--format-checker {draft,generic}] [--fresh-worker]
        [--json OUT]

PATH: schema files or folders searched recursively for ``*.json`` (default: ``benchmarks/corpus``).

Front doors:

- ``strict``: ``LazyDFA(json_schema_to_regex(schema))``, the specification's strict subset.
- ``compile``: ``compile_json_schema(schema, closed_objects=False, unknown_keywords="ignore")``,
  JSON Schema's own meaning of open objects, keywords outside the vocabularies ignored. It is
  imported lazily; if the library does not have it the script says so and stops.

Each schema is compiled in a worker process with a time limit (``--timeout``, the worker is killed
and replaced when it runs over) and a state budget (``--max-states``). The worker is long-lived by
default, so the interned terms and memoized derivatives of earlier schemas stay warm, as in a
server; ``--fresh-worker`` starts a new one per schema (cold caches, slower run).

Printed: the compile rate (overall and per subfolder), refusals by first keyword and by every
keyword (``SchemaError.keyword``; a SchemaError that collects several problems, ``problems``,
contributes the keyword of each), other failures (state budget, timeouts, and any exception that is not a
`BrzozowskiError`, which is a bug), compile-time percentiles, and a soundness check: for each
compiled schema, ``--samples`` documents drawn by a random walk over the automaton (at each state a
uniformly chosen successor state, then a byte leading there; at an accepting state the walk stops
with probability 1/2; past ``--max-bytes`` it takes a shortest path to acceptance), each decoded
(UTF-8, no NaN, no lone surrogate; a repeated key kept last, as JSON does, and each of its earlier
values checked in its place too) and validated with ``jsonschema`` (the draft the schema's
``$schema`` names, Draft 2020-12 otherwise) with a format checker. Every unsound document is
printed, and the exit status is 1 if there is one.

Format checkers (``--format-checker``): ``draft`` (default) is the validator class's own
``FORMAT_CHECKER``; ``generic`` is ``jsonschema.FormatChecker()``. They differ on ``time``: the
generic one holds draft 3's ``time`` (``%H:%M:%S``, no offset), while drafts 7 to 2020-12 mean RFC
3339 ``full-time``, whose offset is required (``12:00:00Z``). Whichever decides, the documents that
the other one alone rejects are counted and shown apart ("checker disagreements"), not as unsound.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import random
import statistics
import sys
import time
import traceback
from collections import Counter, deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after PYTHONPATH: another checkout's brzozowski can be measured
DEFAULT_CORPUS = ROOT / "benchmarks" / "corpus"
STOP_PROBABILITY = 0.5  # chance that a walk ends at an accepting state it reaches
MAX_COMPLETION_SEARCH = 20_000  # states a shortest-completion search may visit
SHOWN_DOCUMENT_BYTES = 300
SHOWN_SLOWEST = 5
SHOWN_DISAGREEMENTS = 5


# -- worker side ---------------------------------------------------------------------------------


def front_door(front: str, max_states: int):
    """The function schema -> automaton of `front`; raises ImportError if the library lacks it."""
    from brzozowski import LazyDFA

    if front == "strict":
        from brzozowski import json_schema_to_regex

        return lambda schema: LazyDFA(json_schema_to_regex(schema), max_states=max_states)
    import brzozowski

    compile_json_schema = getattr(brzozowski, "compile_json_schema", None)
    if compile_json_schema is None:
        raise ImportError("brzozowski.compile_json_schema does not exist in this checkout")

    return lambda schema: compile_json_schema(schema, closed_objects=False, unknown_keywords="ignore",
                                              max_states=max_states)


def refused_keywords(error: Exception) -> list[str | None]:
    """The keyword of each problem a SchemaError collects (``problems``), or its one ``keyword``."""
    collected = getattr(error, "problems", None)
    if collected:
        return [getattr(item, "keyword", None) for item in collected]
    return [getattr(error, "keyword", None)]


def _completion(dfa, state: int) -> bytes | None:
    """The bytes of a shortest path from `state` to an accepting state (None past the search bound)."""
    from brzozowski import DEAD

    parent: dict[int, tuple[int, int] | None] = {state: None}
    queue = deque([state])
    while queue:
        current = queue.popleft()
        if dfa.is_accepting(current):
            path = bytearray()
            while parent[current] is not None:
                current, byte = parent[current]
                path.append(byte)
            return bytes(reversed(path))
        row = dfa.row(current)
        for byte in range(256):
            target = int(row[byte])
            if target != DEAD and target not in parent:
                parent[target] = (current, byte)
                if len(parent) > MAX_COMPLETION_SEARCH:
                    return None
                queue.append(target)
    return None


def sample_document(dfa, rng: random.Random, max_bytes: int) -> bytes | None:
    """One random document of the automaton's language (None if no completion was found in bounds)."""
    from brzozowski import DEAD

    state = dfa.start
    out = bytearray()
    while True:
        if dfa.is_accepting(state) and rng.random() < STOP_PROBABILITY:
            return bytes(out)
        if len(out) >= max_bytes:
            rest = _completion(dfa, state)
            return None if rest is None else bytes(out + rest)
        row = dfa.row(state)
        by_target: dict[int, list[int]] = {}
        for byte in range(256):
            target = int(row[byte])
            if target != DEAD:
                by_target.setdefault(target, []).append(byte)
        if not by_target:  # a state with no successor must accept: nothing else can follow
            if not dfa.is_accepting(state):
                raise AssertionError(f"state {state} is neither accepting nor continued")
            return bytes(out)
        target = rng.choice(sorted(by_target))
        out.append(rng.choice(by_target[target]))
        state = target


class _Members(dict):
    """A decoded object as JSON keeps it (the last of repeated keys), with the earlier values of
    its repeated keys in `earlier` ((key, value) pairs)."""

    earlier: list[tuple[str, Any]] = []


def _last_wins(pairs: list[tuple[str, Any]]) -> dict:
    members = _Members(pairs)
    members.earlier = [(k, v) for i, (k, v) in enumerate(pairs) if any(k == j for j, _ in pairs[i + 1:])]
    return members


MAX_REPEAT_VARIANTS = 50  # documents checked per sampled document with repeated keys


def _repeat_variants(instance: Any) -> list[Any]:
    """`instance` with, in turn, each earlier value of a repeated key in place of the kept one: the
    language lets a key repeat only if every value written under it satisfies that key's schema."""
    found: list[tuple[tuple, str, Any]] = []  # (path to the object, key, earlier value)

    def walk(value: Any, path: tuple) -> None:
        if isinstance(value, _Members):
            found.extend((path, k, v) for k, v in value.earlier)
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, path + (i,))

    walk(instance, ())
    out = []
    for path, key, value in found[:MAX_REPEAT_VARIANTS]:
        copy = json.loads(json.dumps(instance))
        node = copy
        for step in path:
            node = node[step]
        node[key] = value
        out.append(copy)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _lone_surrogate(value: Any) -> str | None:
    """A string (key or value) in `value` that UTF-8 cannot encode: it holds a lone surrogate."""
    strings = [value] if isinstance(value, str) else []
    if isinstance(value, dict):
        strings = list(value)
        nested = list(value.values())
    else:
        nested = value if isinstance(value, list) else []
    for text in strings:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return text
    for item in nested:
        found = _lone_surrogate(item)
        if found is not None:
            return found
    return None


def validators(schema: Any, format_checker: str) -> tuple[Any, Any]:
    """The deciding validator of `schema` (format checker `format_checker`) and the other one."""
    from jsonschema import Draft202012Validator, FormatChecker
    from jsonschema.validators import validator_for

    cls = validator_for(schema, default=Draft202012Validator)
    by_draft = cls(schema, format_checker=cls.FORMAT_CHECKER)
    generic = cls(schema, format_checker=FormatChecker())
    return (by_draft, generic) if format_checker == "draft" else (generic, by_draft)


def check_document(check, document: bytes) -> str | None:
    """Why `document` is not a valid instance (None if it is); raises if the validator cannot run."""
    try:
        instance = json.loads(document.decode("utf-8"), object_pairs_hook=_last_wins,
                              parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as error:
        return f"not a JSON document: {error}"
    surrogate = _lone_surrogate(instance)
    if surrogate is not None:
        return f"a string with a lone surrogate escape: {surrogate!r}"
    error = next(iter(check.iter_errors(instance)), None)
    for variant in _repeat_variants(instance) if error is None else []:
        error = next(iter(check.iter_errors(variant)), None)
        if error is not None:
            error.message = f"a repeated key's earlier value fails: {error.message}"
            break
    if error is None:
        return None
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    return f"{error.message[:200]} (at {where}, keyword {error.validator!r})"


def worker(connection, front: str, max_states: int, samples: int, sample_seconds: float,
           max_bytes: int, seed: int, format_checker: str) -> None:
    """Serve jobs (path, schema): send the compile result, then (if compiled) the sampling result."""
    from brzozowski import BrzozowskiError, SchemaError, StateBudgetError

    try:
        compile_schema = front_door(front, max_states)
    except ImportError as error:
        connection.send({"fatal": str(error)})
        return
    connection.send({"ready": True})
    while True:
        job = connection.recv()
        if job is None:
            return
        path, schema = job
        started = time.perf_counter()
        try:
            dfa = compile_schema(schema)
        except SchemaError as error:
            connection.send({"status": "refused", "keywords": refused_keywords(error),
                             "message": str(error)[:300], "seconds": time.perf_counter() - started})
            continue
        except StateBudgetError as error:
            connection.send({"status": "state budget", "message": str(error)[:300],
                             "seconds": time.perf_counter() - started})
            continue
        except BrzozowskiError as error:
            connection.send({"status": f"refused ({type(error).__name__})", "keywords": [None],
                             "message": str(error)[:300], "seconds": time.perf_counter() - started})
            continue
        except Exception as error:  # a bug in the library: reported, never hidden
            connection.send({"status": "crash", "message": f"{type(error).__name__}: {error}"[:300],
                             "traceback": traceback.format_exc()[-2000:],
                             "seconds": time.perf_counter() - started})
            continue
        connection.send({"status": "compiled", "seconds": time.perf_counter() - started})
        connection.send(_sample(dfa, schema, path, samples, sample_seconds, max_bytes, seed, format_checker))


def _sample(dfa, schema: Any, path: str, samples: int, sample_seconds: float, max_bytes: int,
            seed: int, format_checker: str) -> dict:
    from brzozowski import StateBudgetError

    result: dict[str, Any] = {"sampled": 0, "valid": 0, "unsound": [], "disagreements": [], "note": None}
    try:
        check, other = validators(schema, format_checker)
    except Exception as error:
        result["note"] = f"jsonschema cannot build a validator: {type(error).__name__}: {error}"[:300]
        return result
    rng = random.Random(f"{seed}:{path}")
    deadline = time.perf_counter() + sample_seconds
    for _ in range(samples):
        if time.perf_counter() > deadline:
            result["note"] = f"sampling stopped after {sample_seconds:g} s"
            break
        try:
            document = sample_document(dfa, rng, max_bytes)
        except StateBudgetError as error:
            result["note"] = f"state budget while sampling: {error}"[:300]
            break
        if document is None:
            result["note"] = "a walk found no completion within the search bound"
            continue
        result["sampled"] += 1
        try:
            problem = check_document(check, document)
        except Exception as error:  # unresolvable remote $ref, a pattern Python's re cannot read...
            result["note"] = f"jsonschema cannot validate: {type(error).__name__}: {error}"[:300]
            result["sampled"] -= 1
            break
        if problem is None:
            result["valid"] += 1
            second_opinion = check_document(other, document)
            if second_opinion is not None:
                result["disagreements"].append({"document": document.decode("utf-8", "backslashreplace")
                                                [:SHOWN_DOCUMENT_BYTES], "problem": second_opinion})
        else:
            result["unsound"].append({"document": document.decode("utf-8", "backslashreplace")
                                      [:SHOWN_DOCUMENT_BYTES], "problem": problem})
    result["states"] = dfa.n_states
    return result


# -- main side -----------------------------------------------------------------------------------


class Worker:
    """A worker process that can be killed when a job runs over its time limit."""

    def __init__(self, args: argparse.Namespace) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=worker,
            args=(child, args.front, args.max_states, args.samples, args.sample_seconds,
                  args.max_bytes, args.seed, args.format_checker),
            daemon=True,
        )
        self.process.start()
        hello = self.connection.recv()
        if "fatal" in hello:
            self.process.join()
            raise SystemExit(f"--front {args.front}: {hello['fatal']}")

    def receive(self, timeout: float) -> dict | None:
        if self.connection.poll(timeout):
            return self.connection.recv()
        return None

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            self.connection.send(None)
        self.process.join()


def schema_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.json")) if path.is_dir() else [path])
    return files


def group_of(path: Path, roots: list[Path]) -> str:
    for root in roots:
        if root.is_dir() and path.is_relative_to(root):
            parts = path.relative_to(root).parts
            return parts[0] if len(parts) > 1 else root.name
    return path.parent.name


def run(args: argparse.Namespace) -> list[dict]:
    roots = [Path(p).resolve() for p in args.paths] or [DEFAULT_CORPUS]
    files = schema_files(roots)
    if args.limit:
        files = files[: args.limit]
    records: list[dict] = []
    # Imported once here, so that every forked worker starts with the modules loaded but with no
    # schema compiled (cheap fresh workers; term caches still cold). gc.freeze() takes the ~150,000
    # objects of those imports (mostly jsonschema's) out of the collector's reach: otherwise a full
    # collection traverses them and charges 0.4-0.7 s (loaded machine) to whichever compile it hits.
    import brzozowski  # noqa: F401
    import jsonschema  # noqa: F401

    gc.freeze()

    current = Worker(args)
    for number, path in enumerate(files, 1):
        record: dict[str, Any] = {"path": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
                                  "group": group_of(path, roots)}
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            record.update(status="unreadable", message=str(error))
            records.append(record)
            continue
        if args.fresh_worker and number > 1:
            current.stop()
            current = Worker(args)
        current.connection.send((record["path"], schema))
        compiled = current.receive(args.timeout)
        if compiled is None:
            record.update(status="timeout", message=f"no automaton after {args.timeout:g} s")
            current.stop(kill=True)
            current = Worker(args)
        else:
            record.update(compiled)
            if compiled["status"] == "compiled":
                sampled = current.receive(args.sample_seconds + args.timeout)
                if sampled is None:
                    record.update(sampled=0, valid=0, unsound=[], note="sampling ran over its time limit")
                    current.stop(kill=True)
                    current = Worker(args)
                else:
                    record.update(sampled)
        records.append(record)
        if args.progress:
            print(f"[{number}/{len(files)}] {record['status']:<10} {record['path']}", file=sys.stderr)
    current.stop()
    return records


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(records: list[dict], args: argparse.Namespace) -> int:
    total = len(records)
    compiled = [r for r in records if r["status"] == "compiled"]
    print(f"## Corpus report: front door `{args.front}`, {total} schemas\n")
    print(f"compiled: **{len(compiled)} / {total} = {100 * len(compiled) / max(total, 1):.1f}%**\n")

    print("| group | schemas | compiled | rate |\n|---|---:|---:|---:|")
    for group in sorted({r["group"] for r in records}):
        members = [r for r in records if r["group"] == group]
        ok = sum(r["status"] == "compiled" for r in members)
        print(f"| {group} | {len(members)} | {ok} | {100 * ok / len(members):.1f}% |")

    statuses = Counter(r["status"] for r in records)
    print("\n| outcome | schemas |\n|---|---:|")
    for status, count in statuses.most_common():
        print(f"| {status} | {count} |")

    refused = [r for r in records if "keywords" in r]
    first = Counter(str(r["keywords"][0]) for r in refused)
    every = Counter(str(k) for r in refused for k in set(r["keywords"]))
    if refused:
        print("\n### Refusals by keyword\n")
        print("| keyword | first refused in | refused anywhere in |\n|---|---:|---:|")
        for keyword, count in every.most_common():
            print(f"| `{keyword}` | {first.get(keyword, 0)} | {count} |")

    failures = [r for r in records if r["status"] not in ("compiled", "refused")]
    if failures:
        print("\n### Other failures\n")
        for r in failures:
            print(f"- {r['status']}: `{r['path']}`: {r.get('message', '')}")

    print("\n### Compile time per schema (ms)\n")
    print("| schemas | n | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|---:|")
    for label, rows in (("compiled", compiled), ("refused", refused)):
        times = [1000 * r["seconds"] for r in rows if "seconds" in r]
        if times:
            print(f"| {label} | {len(times)} | {percentile(times, 0.5):.2f} | {percentile(times, 0.9):.2f} "
                  f"| {percentile(times, 0.99):.2f} | {max(times):.2f} |")
    slowest = sorted(compiled, key=lambda r: -r["seconds"])[:SHOWN_SLOWEST]
    if slowest:
        print("\nslowest compiled: " + ", ".join(
            f"`{Path(r['path']).name}` {1000 * r['seconds']:.1f} ms ({r.get('states', '?')} states after sampling)"
            for r in slowest))

    sampled = sum(r.get("sampled", 0) for r in compiled)
    valid = sum(r.get("valid", 0) for r in compiled)
    unsound = [(r["path"], u) for r in compiled for u in r.get("unsound", [])]
    print(f"\n### Soundness: sampled documents validated by jsonschema (`--format-checker {args.format_checker}`)\n")
    print(f"schemas sampled: {sum(1 for r in compiled if r.get('sampled'))} of {len(compiled)} compiled; "
          f"documents: {sampled}; valid: {valid}; **unsound: {len(unsound)}**")
    notes = [(r["path"], r["note"]) for r in compiled if r.get("note")]
    if notes:
        print("\nNot fully sampled:\n")
        for path, note in notes:
            print(f"- `{path}`: {note}")
    if unsound:
        print("\nUnsound documents (accepted by the automaton, rejected by the schema):\n")
        for path, u in unsound:
            print(f"- `{path}`: {u['problem']}\n  `{u['document']}`")
    disagreements = [(r["path"], d) for r in compiled for d in r.get("disagreements", [])]
    other = "generic" if args.format_checker == "draft" else "draft"
    print(f"\nchecker disagreements (valid, but rejected by the `{other}` format checker): {len(disagreements)}")
    for path, d in disagreements[:SHOWN_DISAGREEMENTS]:
        print(f"- `{path}`: {d['problem']}\n  `{d['document']}`")
    crashes = [r for r in records if r["status"] == "crash"]
    for r in crashes:
        print(f"\ncrash in `{r['path']}`:\n```\n{r['traceback']}```")
    return 1 if unsound or crashes else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="schema files or folders (default: benchmarks/corpus)")
    parser.add_argument("--front", choices=["strict", "compile"], default="strict")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files (sorted)")
    parser.add_argument("--samples", type=int, default=20, help="documents sampled per compiled schema")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to compile one schema")
    parser.add_argument("--sample-seconds", type=float, default=20.0, help="sampling budget per schema")
    parser.add_argument("--max-bytes", type=int, default=2000, help="soft length bound of a sample")
    parser.add_argument("--max-states", type=int, default=100_000, help="state budget per automaton")
    parser.add_argument("--format-checker", choices=["draft", "generic"], default="draft",
                        help="the schema's draft's FORMAT_CHECKER, or jsonschema.FormatChecker()")
    parser.add_argument("--fresh-worker", action="store_true", help="a new worker process per schema")
    parser.add_argument("--progress", action="store_true", help="one line per schema on stderr")
    parser.add_argument("--json", type=Path, help="write the per-schema records here")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    records = run(args)
    status = report(records, args)
    print(f"\n(wall time {time.perf_counter() - started:.0f} s; --samples {args.samples} --seed {args.seed} "
          f"--timeout {args.timeout:g} --max-bytes {args.max_bytes} --max-states {args.max_states})")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
