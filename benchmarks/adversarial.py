"""Adversarial schemas and patterns, each compiled, indexed and walked in its own process under a
wall-time cap (issues 36 and 39): does every one end, and how — compiled, refused with a named
limit, crashed, or killed at the cap?

    PYTHONPATH=<tree> python benchmarks/adversarial.py [--cases 200] [--limit N] [--seed 39]
        [--timeout 30] [--memory-gb 4] [--steps 8] [--only SUBSTRING] [--json OUT]

Cases: first the rows of issue 39's table and its crash cases (numbers with bounds near ±1e300 in
``anyOf``/``oneOf`` and as 20 required properties, a ``dependentSchemas`` chain over 30 properties,
10,000 properties, ``maxContains`` 10^6, an ``enum`` of 50,000 long strings, a 3 MB ``const``, a
regex literal of ~10^6 bytes, an alternation of 10^5 words, a ``.*``-heavy regex through
``regex_to_dfa``, a vocabulary token of 10^6 bytes, ``allOf``/``not`` nested 5,000 deep, ``const``
values nested 5,000 / 50,000 deep, "any JSON value" at ``max_depth=200``), then a seeded generator
cycling through families, each drawn with random sizes: nested ``allOf``/``anyOf``/``oneOf``/``not``
trees, large enums, deep ``$ref`` chains, many bounded strings with patterns, numbers with bounds
near ±1e300, ``dependentSchemas`` chains, huge property counts, deep nesting, counted arrays
(``contains``/``maxContains``/``minItems``/``uniqueItems``), big ``const`` values, hostile patterns,
formats with huge length bounds, conditionals and pattern properties, integers with ``multipleOf``.

Each case runs in a child forked from one parent that has imported brzozowski and built the
o200k_base `Vocabulary` once (so a case pays no interpreter start nor vocabulary build). The child:
a schema is compiled by ``compile_json_schema`` with ``bench_corpus.py``'s options
(`bench_corpus.OURS_OPTIONS`, or the case's own), a pattern by `LazyDFA` (or `regex_to_dfa`); then a
`TokenIndex` over the vocabulary, the first mask, and a random walk of ``--steps`` tokens drawn from
each mask (seeded; EOS only when nothing else is allowed), each step a mask + an advance. The parent
kills a child still running at ``--timeout`` seconds of wall time (it knows the phase the child had
reached from the child's progress lines), and reads the child's peak RSS from ``wait4``'s
``ru_maxrss`` (the child inherits the parent's pages, the vocabulary among them: the table gives the
parent's RSS at fork beside the children's peaks). A case's wall time runs from the fork to the
child's outcome line (its exit is not charged). The child's address space is capped at ``--memory-gb`` (a
``MemoryError`` there is a crash: the library did not bound it).

Outcomes: *compiled* (the first mask and the walk done; a walk that a `BrzozowskiError` ends is
still compiled, its error noted), *refused* (a `brzozowski.errors.BrzozowskiError` subclass before
the first mask: its class, and the limit its message names, if any), *crashed* (any other
exception, or the child died), *timed out* (killed at the cap). Exit status 1 if any case crashed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import resource
import select
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common as C  # noqa: E402
import bench_corpus as BC  # noqa: E402

# --- the cases ----------------------------------------------------------------------------------
# A case: {"name": summary, "kind": "schema" | "regex" | "regex_to_dfa" | "token", "payload": ...,
# "options": compile_json_schema options beside OURS_OPTIONS}.


def _big_number(rng: random.Random, i: int) -> dict:
    lo = -(1 + rng.random()) * 10 ** rng.randint(290, 307)
    hi = (1 + rng.random()) * 10 ** rng.randint(290, 307)
    out = {"type": "number", "minimum": lo, "maximum": hi}
    if i % 3 == 1:
        out = {"type": "number", "exclusiveMinimum": lo, "exclusiveMaximum": hi}
    return out


def _nested(key: str, depth: int, leaf) -> object:
    value = leaf
    for _ in range(depth):
        value = {key: [value]} if key in ("allOf", "anyOf", "oneOf") else {key: value}
    return value


def _deep_value(depth: int, kind: str) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


def issue_39_cases() -> list[dict]:
    rng = random.Random(39)
    s = lambda name, payload, **options: {"name": name, "kind": "schema", "payload": payload,  # noqa: E731
                                          "options": options}
    props30 = [f"p{i}" for i in range(30)]
    words = [f"w{i:05d}x{i * 7919 % 100003}" for i in range(100_000)]
    cases = [
        s("issue 39: anyOf of 20 numbers, bounds near ±1e300", {"anyOf": [_big_number(rng, i) for i in range(20)]}),
        s("issue 39: oneOf of 6 numbers, bounds near ±1e300", {"oneOf": [_big_number(rng, i) for i in range(6)]}),
        s("issue 39: oneOf of 2 numbers, bounds near ±1e300", {"oneOf": [_big_number(rng, i) for i in range(2)]}),
        s("issue 39: 20 required properties, bounds near ±1e300",
          {"type": "object", "properties": {f"n{i}": _big_number(rng, i) for i in range(20)},
           "required": [f"n{i}" for i in range(20)]}),
        s("issue 39: dependentSchemas over 30 properties (each requires the next)",
          {"type": "object", "properties": {p: {"type": "integer"} for p in props30},
           "dependentSchemas": {p: {"required": [props30[i + 1]]} for i, p in enumerate(props30[:-1])}}),
        s("issue 39: 10,000 properties", {"type": "object", "properties": {f"prop{i}": {"type": "string"}
                                                                         for i in range(10_000)}}),
        s("issue 39: maxContains 10^6", {"type": "array", "contains": {"type": "integer"}, "maxContains": 10**6}),
        s("issue 39: enum of 50,000 long strings",
          {"enum": [f"member-{i:06d}-" + "abcdefghij" * 4 for i in range(50_000)]}),
        s("issue 39: a 3 MB const", {"const": "x" * 3_000_000}),
        {"name": "issue 39: a regex literal of ~10^6 bytes", "kind": "regex",
         "payload": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1_000_000))},
        {"name": "issue 39: a regex alternation of 10^5 words", "kind": "regex", "payload": "|".join(words)},
        {"name": "issue 39: .*-heavy regex through regex_to_dfa", "kind": "regex_to_dfa",
         "payload": "(.*a){3}.*b.{14}"},
        {"name": "issue 39: one vocabulary token of 10^6 bytes passed to TokenIndex", "kind": "token",
         "payload": "[ab]*"},
        s("issue 39: allOf nested 5,000 deep", _nested("allOf", 5000, {"type": "integer"})),
        s("issue 39: not nested 5,000 deep", _nested("not", 5000, {"type": "integer"})),
        s("issue 39: a const list nested 5,000 deep", {"const": _deep_value(5000, "list")}),
        s("issue 39: a const dict nested 50,000 deep", {"const": _deep_value(50_000, "dict")}),
        s("issue 39: any JSON value at max_depth=200", {}, max_depth=200),
    ]
    return cases


_PATTERNS = [r"^(?:\S+\s+){0,49}\S+$", r"^[a-z0-9_-]{3,16}$", r"^[A-Za-z_][A-Za-z0-9_]*$", r"^[0-9a-f]+$",
             r"^(a|aa)*b$", r"^(\w+\s?)*$", r"^[^@]+@[^@]+\.[a-z]{2,}$", r"^(?:[a-c]*a[a-c]{8})$",
             r"^\+?[0-9 ()-]{7,20}$", r"^.*(foo|bar).*$"]
_FORMATS = ["email", "uri", "hostname", "date-time", "ipv6", "uri-reference", "iri", "idn-email", "duration"]


def _leaf(rng: random.Random) -> dict:
    r = rng.random()
    if r < 0.35:
        return {"type": "string", "maxLength": rng.choice([20, 100, 500, 1000]), "pattern": rng.choice(_PATTERNS)}
    if r < 0.5:
        return {"type": "string", "format": rng.choice(_FORMATS), "maxLength": rng.choice([64, 256, 1024])}
    if r < 0.65:
        return _big_number(rng, rng.randrange(3))
    if r < 0.75:
        return {"type": "integer", "minimum": rng.randint(-10**6, 0), "maximum": rng.randint(1, 10**9),
                "multipleOf": rng.choice([3, 7, 13, 1000])}
    if r < 0.85:
        return {"enum": [rng.choice(["a", "b", 1, 2.5, None, True, "zz"]) for _ in range(rng.randint(2, 8))]}
    names = [f"k{j}" for j in range(rng.randint(1, 5))]
    return {"type": "object", "properties": {n: _leaf(rng) if rng.random() < 0.3 else {"type": "string"}
                                             for n in names}, "required": names[: rng.randint(0, len(names))]}


def _combinator_tree(rng: random.Random, depth: int) -> tuple[dict, str]:
    if depth == 0:
        return _leaf(rng), ""
    key = rng.choice(["allOf", "anyOf", "oneOf", "not"])
    if key == "not":
        sub, _ = _combinator_tree(rng, depth - 1)
        return {"not": sub}, key
    subs = [_combinator_tree(rng, depth - 1)[0] for _ in range(rng.randint(2, 4))]
    return {key: subs}, key


def _family(rng: random.Random, family: str) -> tuple[str, dict, dict]:
    """(summary, schema, options) of one case of `family`, sizes drawn from `rng`."""
    if family == "combinators":
        depth = rng.randint(3, 6)
        schema, top = _combinator_tree(rng, depth)
        return f"allOf/anyOf/oneOf/not tree, depth {depth} (top {top or 'leaf'})", schema, {}
    if family == "enum":
        n, length = rng.choice([1000, 5000, 20000, 50000]), rng.randint(5, 60)
        members = ["".join(rng.choice("abcdefghijklmnop") for _ in range(length)) + str(i) for i in range(n)]
        if rng.random() < 0.3:
            members += [i * 1.5 for i in range(n // 10)]
        return f"enum of {len(members)} members, ~{length} chars", {"enum": members}, {}
    if family == "refs":
        n = rng.choice([50, 200, 1000, 3000])
        defs = {f"d{i}": ({"$ref": f"#/$defs/d{i + 1}"} if rng.random() < 0.7 else
                          {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"type": "object"}]}) for i in range(n)}
        defs[f"d{n}"] = {"type": "object", "properties": {"x": {"type": "string", "maxLength": 50}}}
        return f"$ref chain {n} deep", {"$ref": "#/$defs/d0", "$defs": defs}, {}
    if family == "recursive":
        width = rng.randint(2, 6)
        schema = {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {
            **{f"c{j}": {"$ref": "#/$defs/node"} for j in range(width)},
            "v": {"type": "string", "maxLength": 200, "pattern": rng.choice(_PATTERNS)}}}}}
        return f"recursive $ref node with {width} children + a bounded pattern string", schema, {}
    if family == "bounded_strings":
        n = rng.choice([10, 20, 40, 80])
        props = {f"s{j}": {"type": "string", "maxLength": rng.choice([50, 200, 500, 1000]),
                           "pattern": rng.choice(_PATTERNS)} for j in range(n)}
        return f"{n} required bounded strings with patterns", {"type": "object", "properties": props,
                                                               "required": list(props)}, {}
    if family == "big_numbers":
        k, key = rng.randint(2, 20), rng.choice(["anyOf", "oneOf", "allOf"])
        return (f"{key} of {k} numbers, bounds near ±1e300", {key: [_big_number(rng, i) for i in range(k)]}, {})
    if family == "dependent":
        n = rng.randint(5, 40)
        names = [f"p{j}" for j in range(n)]
        return (f"dependentSchemas chain over {n} properties",
                {"type": "object", "properties": {p: {"type": "string"} for p in names},
                 "dependentSchemas": {p: {"required": [names[j + 1]]} for j, p in enumerate(names[:-1])}}, {})
    if family == "many_properties":
        n = rng.choice([1000, 3000, 10000, 20000])
        kinds = [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"enum": ["a", "b"]}]
        return (f"{n} optional properties", {"type": "object", "properties": {
            f"field_{j}": rng.choice(kinds) for j in range(n)}}, {})
    if family == "deep":
        depth = rng.choice([100, 500, 2000, 5000])
        key = rng.choice(["allOf", "anyOf", "not", "items", "properties"])
        if key == "items":
            schema = _nested("items", depth, {"type": "integer"})
        elif key == "properties":
            schema: dict = {"type": "integer"}
            for _ in range(depth):
                schema = {"type": "object", "properties": {"a": schema}}
        else:
            schema = _nested(key, depth, {"type": "string", "maxLength": 10})
        return f"{key} nested {depth} deep", schema, {}
    if family == "arrays":
        r = rng.randrange(4)
        if r == 0:
            n = rng.choice([10**3, 10**5, 10**7])
            return (f"contains + minContains 2, maxContains {n}",
                    {"type": "array", "contains": {"type": "string", "pattern": rng.choice(_PATTERNS)},
                     "minContains": 2, "maxContains": n}, {})
        if r == 1:
            n = rng.choice([1000, 10**5])
            return (f"minItems {n} of bounded pattern strings",
                    {"type": "array", "minItems": n, "items": {"type": "string", "maxLength": 100,
                                                             "pattern": rng.choice(_PATTERNS)}}, {})
        if r == 2:
            k = rng.randint(5, 30)
            return (f"uniqueItems over an enum of {k}, maxItems {k}",
                    {"type": "array", "uniqueItems": True, "maxItems": k,
                     "items": {"enum": [f"v{j}" for j in range(k)]}}, {})
        k = rng.choice([50, 500, 5000])
        return (f"prefixItems of {k} bounded strings",
                {"type": "array", "prefixItems": [{"type": "string", "maxLength": 30} for _ in range(k)]}, {})
    if family == "consts":
        r = rng.randrange(3)
        if r == 0:
            depth = rng.choice([1000, 5000, 20000])
            return f"const list nested {depth} deep", {"const": _deep_value(depth, "list")}, {}
        if r == 1:
            depth = rng.choice([1000, 10000, 50000])
            return f"const dict nested {depth} deep", {"const": _deep_value(depth, "dict")}, {}
        n = rng.choice([10**5, 10**6, 3 * 10**6])
        return f"const object of {n // 100} keys (~{n // 10**3} kB)", {"const": {
            f"key{j}": "v" * 90 for j in range(n // 100)}}, {}
    if family == "patterns":
        pattern = rng.choice([r"^(a|aa)*b$", r"^(\w+\s?)*$", r"^.{0,5000}$", r"^[\s\S]{100,1000}x$",
                              r"^(?:a|b|c)*a(?:a|b|c){15}$", r"^(x+x+)+y$", r"^(?:\S+\s+){0,199}\S+$",
                              r"^(?=.*[A-Z])(?=.*[0-9]).{8,64}$", r"^(\d+)-\1$", r"^\p{L}+$"])
        n = rng.choice([100, 1000, 10000])
        return (f"string pattern {pattern} maxLength {n}", {"type": "string", "pattern": pattern, "maxLength": n}, {})
    if family == "formats":
        fmt = rng.choice(_FORMATS)
        lo, hi = rng.choice([(0, 10**4), (100, 10**5), (50, 2000), (0, 10**6)])
        schema = {"type": "string", "format": fmt, "minLength": lo, "maxLength": hi}
        if rng.random() < 0.4:
            schema = {"allOf": [schema, {"type": "string", "pattern": rng.choice(_PATTERNS)}]}
        return f"format {fmt}, length {lo}..{hi}" + (" ∧ a pattern" if "allOf" in schema else ""), schema, {}
    if family == "conditionals":
        n = rng.randint(3, 30)
        chain: dict = {"type": "string"}
        for j in range(n):
            chain = {"if": {"properties": {f"a{j}": {"const": j}}, "required": [f"a{j}"]},
                     "then": {"properties": {f"b{j}": _leaf(rng)}}, "else": chain}
        if rng.random() < 0.5:
            chain["patternProperties"] = {f"^x{j}[a-z]*$": _leaf(rng) for j in range(rng.randint(5, 50))}
            chain["propertyNames"] = {"pattern": "^[a-z][a-z0-9]{0,30}$"}
        return f"if/then/else chain of {n}" + (" + patternProperties" if "patternProperties" in chain else ""), chain, {}
    # integers
    m = rng.choice([1e-8, 0.001, 7, 1e6 + 3])
    lo, hi = rng.choice([(-1e15, 1e18), (0, 1e300), (-1e20, 1e20), (1, 10)])
    return (f"number multipleOf {m:g} in [{lo:g}, {hi:g}]",
            {"type": "number" if m < 1 else "integer", "multipleOf": m, "minimum": lo, "maximum": hi}, {})


FAMILIES = ["combinators", "enum", "refs", "recursive", "bounded_strings", "big_numbers", "dependent",
            "many_properties", "deep", "arrays", "consts", "patterns", "formats", "conditionals", "integers"]


def cases(n: int, seed: int) -> list[dict]:
    """Issue 39's rows, then generated cases cycling through FAMILIES, `n` in all (seeded)."""
    out = issue_39_cases()[:n]
    rng = random.Random(seed)
    i = 0
    while len(out) < n:
        family = FAMILIES[i % len(FAMILIES)]
        summary, schema, options = _family(rng, family)
        out.append({"name": f"{family}: {summary}", "kind": "schema", "payload": schema, "options": options})
        i += 1
    return out


# --- the child ----------------------------------------------------------------------------------

_LIMIT_NAMES = re.compile(r"\b(max_\w+|\w+_seconds|pattern_length|bitmask_bytes|state budget|\w+ budget|\w+_limit|the limit of [\d,]+)")


def _limit_named(message: str) -> str:
    found = _LIMIT_NAMES.findall(message)
    return found[0] if found else ""


def child(case: dict, vocabulary, out_fd: int, steps: int, seed: int) -> None:
    """Run one case, writing one JSON line per phase reached and a final outcome line."""
    import numpy as np

    import brzozowski
    from brzozowski import BrzozowskiError, Constraint, LazyDFA, regex_to_dfa
    from brzozowski.masks.index import TokenIndex

    def say(**fields) -> None:
        os.write(out_fd, (json.dumps(fields) + "\n").encode())

    phases: dict[str, float] = {}
    phase = "compile"
    start = begun = time.perf_counter()

    def enter(name: str) -> None:
        nonlocal phase, start
        now = time.perf_counter()
        phases[phase] = now - start
        phase, start = name, now
        say(phase=name)

    say(phase=phase)
    walk = {"steps": 0, "slowest": 0.0, "error": ""}
    try:
        kind, payload = case["kind"], case["payload"]
        if kind == "schema":
            automaton = brzozowski.compile_json_schema(payload, **{**BC.OURS_OPTIONS, **case.get("options", {})})
        elif kind == "regex":
            automaton = LazyDFA(payload)
        elif kind == "regex_to_dfa":
            automaton = regex_to_dfa(payload)
        else:  # a vocabulary with one huge token
            automaton = LazyDFA(payload)
            vocabulary = list(vocabulary.tokens[:1000]) + [b"ab" * 500_000]
        enter("index + first mask")
        constraint = Constraint(TokenIndex(automaton, vocabulary))
        constraint.bitmask()
        enter("walk")
        rng = random.Random(seed)
        eos = getattr(vocabulary, "eos_id", None)
        try:
            for _ in range(steps):
                t0 = time.perf_counter()
                allowed = np.flatnonzero(constraint.mask())
                if eos is not None and len(allowed) > 1:
                    allowed = allowed[allowed != eos]
                if len(allowed) == 0:
                    break
                token = int(allowed[rng.randrange(len(allowed))])
                constraint.advance(token)
                walk["steps"] += 1
                walk["slowest"] = max(walk["slowest"], time.perf_counter() - t0)
                if constraint.done:
                    break
        except BrzozowskiError as e:
            walk["error"] = f"{type(e).__name__}: {str(e)[:160]}"
        enter("done")
        say(outcome="compiled", phases=phases, walk=walk, wall=time.perf_counter() - begun)
    except BrzozowskiError as e:
        phases[phase] = time.perf_counter() - start
        say(outcome="refused", phase=phase, phases=phases, error=type(e).__name__, wall=time.perf_counter() - begun,
            limit=_limit_named(str(e)), message=" ".join(str(e).split())[:200])
    except BaseException as e:  # noqa: BLE001 - anything else is a crash, RecursionError and MemoryError included
        phases[phase] = time.perf_counter() - start
        say(outcome="crashed", phase=phase, phases=phases, error=type(e).__name__, wall=time.perf_counter() - begun,
            message=" ".join(str(e).split())[:200])


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run_case(case: dict, vocabulary, timeout: float, memory_gb: float, steps: int, seed: int) -> dict:
    """Fork, run `case` in the child, kill it at `timeout`; the child's last line plus wall and RSS."""
    read_fd, write_fd = os.pipe()
    base_kb = _rss_kb()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_fd)
        code = 0
        try:
            cap = int(memory_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
            child(case, vocabulary, write_fd, steps, seed)
        except BaseException:  # noqa: BLE001 - never return into the parent's loop
            code = 3
        finally:
            os._exit(code)
    os.close(write_fd)
    buffer, last, phase, killed = b"", {}, "start", False
    deadline = start + timeout
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            ready, _, _ = select.select([pipe], [], [], left)
            if not ready:
                continue
            chunk = pipe.read(65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                msg = json.loads(line)
                phase = msg.get("phase", phase)
                if "outcome" in msg:
                    last = msg
            if last:  # the case ended: the child's exit is not charged to it
                break
    if last:
        os.kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    wall = last.get("wall", time.perf_counter() - start) if last else time.perf_counter() - start
    row = {"name": case["name"], "wall": wall, "peak_kb": usage.ru_maxrss, "base_kb": base_kb}
    if killed:
        row.update(outcome="timed out", phase=phase)
    elif last:
        row.update(last)
    else:
        row.update(outcome="crashed", phase=phase, error=f"child died (status {status})", message="")
    return row


# --- the report ---------------------------------------------------------------------------------


def report(rows: list[dict], timeout: float, memory_gb: float) -> None:
    mb = lambda kb: f"{kb / 1024:.0f} MB"  # noqa: E731
    outcomes: dict[str, int] = {}
    for r in rows:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    walls = [r["wall"] for r in rows]
    print(f"{len(rows)} cases, cap {timeout:g} s wall and {memory_gb:g} GB address space each; "
          f"worst wall time {C.fmt_ms(max(walls))}, median {C.fmt_ms(C.median(walls))}; "
          f"the parent's RSS at fork {mb(rows[0]['base_kb'])}; children's peak RSS: max {mb(max(r['peak_kb'] for r in rows))}\n")
    summary = [[k, str(v)] for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1])]
    print(C.table(["outcome", "cases"], summary))
    print()
    classes: dict[tuple, int] = {}
    for r in rows:
        if r["outcome"] in ("refused", "crashed", "timed out"):
            key = (r["outcome"], r.get("error", "-"), _limit_named(r.get("message", "")) or "-", r.get("phase", "-"))
            classes[key] = classes.get(key, 0) + 1
    print(C.table(["outcome", "error class", "limit named", "phase", "cases"],
                  [[*k, str(v)] for k, v in sorted(classes.items(), key=lambda kv: -kv[1])]))
    print()
    walk_errors: dict[str, int] = {}
    for r in rows:
        if r.get("walk", {}).get("error"):
            key = r["walk"]["error"].split(":")[0]
            walk_errors[key] = walk_errors.get(key, 0) + 1
    if walk_errors:
        print(f"compiled, walk ended by an error: {walk_errors}\n")
    print("every case, slowest first:\n")
    out = []
    for r in sorted(rows, key=lambda r: -r["wall"]):
        phases = r.get("phases", {})
        detail = r.get("error", "")
        if _limit_named(r.get("message", "")):
            detail += f" ({_limit_named(r['message'])})"
        if r.get("walk"):
            detail = f"walk {r['walk']['steps']} steps, slowest {C.fmt_ms(r['walk']['slowest'])}" + (
                f"; {r['walk']['error'][:60]}" if r["walk"]["error"] else "")
        elif r.get("message"):
            detail += ": " + r["message"][:90]
        out.append([r["name"][:90], r["outcome"], r.get("phase", "-") if r["outcome"] != "compiled" else "-",
                    C.fmt_ms(r["wall"]), C.fmt_ms(phases.get("compile")),
                    C.fmt_ms(phases.get("index + first mask")), mb(r["peak_kb"]), detail])
    print(C.table(["case", "outcome", "phase", "wall", "compile", "index + first mask", "peak RSS",
                   "detail"], out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--limit", type=int, default=None, help="run only the first N cases")
    parser.add_argument("--only", default=None, help="run only the cases whose name contains this")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--timeout", type=float, default=30.0, help="wall seconds per case")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="address-space cap per case")
    parser.add_argument("--steps", type=int, default=8, help="random-walk steps after the first mask")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here")
    parser.add_argument("--from-json", type=Path, default=None, help="print the report of rows written by --json")
    args = parser.parse_args()
    if args.from_json:
        report(json.loads(args.from_json.read_text("utf-8")), args.timeout, args.memory_gb)
        return
    C.pin_one_core()
    import brzozowski
    from brzozowski import Vocabulary, load_tiktoken_vocab

    todo = cases(args.cases, args.seed)
    if args.only:
        todo = [c for c in todo if args.only in c["name"]]
    todo = todo[: args.limit]
    vocabulary = Vocabulary(*load_tiktoken_vocab(BC.VOCAB))
    gc.collect()
    gc.freeze()  # the children share the parent's pages; a collection there would touch them all
    print(f"# adversarial.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, brzozowski from "
          f"{Path(brzozowski.__file__).parent.parent} ({os.environ.get('BENCH_COMMIT', 'working tree')}), "
          f"{BC.VOCAB}, seed {args.seed}, {args.steps} walk steps\n")
    rows = []
    started = time.perf_counter()
    for i, case in enumerate(todo):
        row = run_case(case, vocabulary, args.timeout, args.memory_gb, args.steps, args.seed + i)
        rows.append(row)
        print(f"[{i + 1}/{len(todo)} {row['outcome']:9} {row['wall']:7.2f} s] {case['name'][:100]}",
              file=sys.stderr, flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows))
    print(f"[{len(todo)} cases: {time.perf_counter() - started:.0f} s]", file=sys.stderr)
    report(rows, args.timeout, args.memory_gb)
    sys.exit(1 if any(r["outcome"] == "crashed" for r in rows) else 0)


if __name__ == "__main__":
    main()
