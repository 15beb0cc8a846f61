"""Shared pieces of the benchmark scripts: workloads, per-engine pattern dialects, subprocess workers.

Not part of the library. Runs in the benchmark environment (``benchmarks/setup_env.sh``), which
holds the peers (interegular, greenery, outlines-core, llguidance) beside brzozowski.

Pattern dialects. Our patterns are Python ``re`` syntax over *bytes*; non-ASCII bytes are written
``\\xHH`` (the JSON-schema regexes spell well-formed UTF-8 byte by byte). The peers read patterns
differently, so each gets the same language in its own dialect:

- interegular and greenery work on Python ``str`` characters. Reading our pattern text as a ``str``
  makes ``\\xHH`` the character U+00HH: the automaton is the same one over the characters
  U+0000..U+00FF (same states, same transitions), which is what a compile benchmark compares.
  greenery cannot parse a ``-`` at the end of a character class (``[+-]``): it gets ``\\-`` there.
- outlines-core and llguidance compile over the UTF-8 bytes of *characters* (``\\xc2`` means U+00C2,
  two bytes in UTF-8). Our byte-level UTF-8 alternation (brzozowski.json.strict's well-formed multi-byte
  sequence, RFC 3629) is replaced by the character class ``[\\x{80}-\\x{10FFFF}]``, whose UTF-8
  encodings are exactly those byte sequences (Rust's char excludes surrogates). bench_masks.py checks
  the claim: at every step of every walk the peers' masks allow the same number of tokens as ours.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEMAS = HERE / "schemas"

# --- the workloads ------------------------------------------------------------------------------

HAND = "(cat|car|dog)s?"
DATE = r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
EMAIL = r"[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9\-]+(\.[a-zA-Z0-9\-]+)*\.[a-zA-Z]{2,}"
_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
IPV4 = rf"{_OCTET}(\.{_OCTET}){{3}}"
AB12 = "(a|b)*a(a|b){12}"


def load_schema(name: str) -> dict:
    with open(SCHEMAS / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


def schema_regex(name: str) -> str | None:
    """The compact-JSON regex of benchmarks/schemas/NAME.json, or None if brzozowski.json.strict is missing."""
    try:
        from brzozowski.json.strict import json_schema_to_regex
    except ImportError:
        return None
    return json_schema_to_regex(load_schema(name))


def compile_patterns() -> dict[str, str | None]:
    """bench_compile.py's rows: name -> our pattern text (None: not available in this checkout)."""
    return {
        "(cat|car|dog)s?": HAND,
        "ISO date": DATE,
        "email": EMAIL,
        "IPv4": IPV4,
        "(a|b)*a(a|b){12}": AB12,
        "10-property schema": schema_regex("ten_properties"),
    }


# --- pattern dialects for the peers -------------------------------------------------------------


def for_greenery(pattern: str) -> str:
    """greenery refuses a literal '-' last in a class ('[+-]'); escape it (same language)."""
    out, i, in_class, class_start = [], 0, False, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if not in_class and c == "[":
            in_class, class_start = True, len(out) + 1
            out.append(c)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
                class_start += 1
        elif in_class and c == "]" and len(out) > class_start:
            in_class = False
            out.append(c)
        elif in_class and c == "-" and (pattern[i + 1 : i + 2] == "]" or len(out) == class_start):
            out.append(r"\-")
        else:
            out.append(c)
        i += 1
    return "".join(out)


RUST_UTF8_CLASS = r"[\x{80}-\x{10FFFF}]"


def for_rust(pattern: str) -> str:
    """Our byte-level pattern for the UTF-8 character engines (outlines-core, llguidance)."""
    try:
        from brzozowski.json.strict import _UTF8_MULTI
    except ImportError:  # pragma: no cover - only without the schema module
        _UTF8_MULTI = None
    out = pattern.replace(_UTF8_MULTI, RUST_UTF8_CLASS) if _UTF8_MULTI else pattern
    import re

    leftover = re.findall(r"\\x[89a-fA-F][0-9a-fA-F]", out)
    if leftover:
        raise ValueError(f"cannot translate non-ASCII byte escapes {leftover[:3]} for a UTF-8 engine")
    return out


# --- the long documents -------------------------------------------------------------------------

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there one all we their has been would will more if no "
    "when can what so said who them some time could these two may first then do any like my "
    "now over such our man me even most made after also did many before must through back years "
    "where much your way well down should because each just those people how too little state "
    "good very make world still own see men work long get here between both life being under "
    "never day same another know while last might us great old year off come since against go "
    "came right used take three automaton derivative regex token mask vocabulary state sampler"
).split() + ["café", "naïve", "Zürich", "São", "Paulo", "東京", "Привет", "😀", "—", "ÅÄÖ", "x²"]


def prose(n_words: int, seed: int) -> str:
    """Deterministic text with punctuation, line breaks, quotes, backslashes and non-ASCII words."""
    rng = random.Random(seed)
    parts = []
    for i in range(n_words):
        w = rng.choice(_WORDS)
        if i % 17 == 0:
            w = w.capitalize()
        parts.append(w)
        r = rng.random()
        if r < 0.06:
            parts.append(",")
        elif r < 0.09:
            parts.append(".")
        elif r < 0.10:
            parts.append('\n"quoted\\path"\t')
    text = ""
    for p in parts:
        text += p if p in {",", "."} or not text else " " + p
    return text


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def long_documents() -> dict[str, tuple[str, str]]:
    """name -> (schema name, compact JSON text). Each is >= 1000 tokens in both vocabularies."""
    user = {
        "id": 1042,
        "name": "Ada Lovelace",
        "email": "ada@example.org",
        "age": 36,
        "score": -12.5e3,
        "active": True,
        "role": "admin",
        "address": {"street": "12 St James's Square", "city": "London", "zip": "SW1Y 4JH"},
        "tags": ["math", "engines", "poetry"],
        "notes": prose(1300, seed=7),
    }
    rng = random.Random(11)
    rows = [
        {
            "id": i,
            "label": " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3))),
            "value": round(rng.uniform(-1000, 1000), rng.randint(0, 3)),
            "ok": rng.random() < 0.5,
        }
        for i in range(130)
    ]
    report = {"title": "Quarterly measurements", "rows": rows}
    return {
        "long string (10-property schema)": ("ten_properties", dumps(user)),
        "long array (array of objects)": ("long_array", dumps(report)),
    }


def short_samples() -> dict[str, tuple[str, str]]:
    """The bench workloads: name -> (our pattern, one valid text that a walk follows)."""
    tool = {"name": "get_weather", "arguments": {"location": "Zürich, CH", "unit": "celsius", "days": 3}}
    user = {"id": 7, "name": "Grace", "email": "grace@navy.mil", "active": False, "role": "user",
            "tags": ["cobol"]}
    return {
        "(cat|car|dog)s?": (HAND, "cats"),
        "ISO date": (DATE, "2024-02-29"),
        "email": (EMAIL, "john.doe+news@mail.example.co.uk"),
        "IPv4": (IPV4, "192.168.100.254"),
        "tool-call schema": (schema_regex("tool_call"), dumps(tool)),
        "10-property schema": (schema_regex("ten_properties"), dumps(user)),
    }


# --- running: one core, subprocess workers ------------------------------------------------------


def pin_one_core() -> int:
    """Pin this process (and its children and threads) to one CPU: BENCH_CPU or the last allowed."""
    cpus = sorted(os.sched_getaffinity(0))
    cpu = int(os.environ.get("BENCH_CPU", cpus[-1]))
    os.sched_setaffinity(0, {cpu})
    return cpu


def run_worker(script: str, args: dict, timeout: float) -> dict:
    """Run `script --worker JSON` in a fresh interpreter; its last stdout line is a JSON object."""
    cmd = [sys.executable, script, "--worker", json.dumps(args)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", "timeout": timeout}
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, int(round(q / 100 * (len(s) - 1)))))
    return s[k]


def fmt_ms(seconds: float | None) -> str:
    if seconds is None or seconds != seconds:
        return "-"
    ms = seconds * 1e3
    if ms >= 1000:
        return f"{ms / 1e3:.2f} s"
    if ms >= 10:
        return f"{ms:.1f} ms"
    if ms >= 0.1:
        return f"{ms:.2f} ms"
    return f"{ms * 1e3:.1f} µs"


def fmt_ratio(x: float | None, lower_bound: bool = False) -> str:
    if x is None or x != x:
        return "-"
    return (">" if lower_bound else "") + (f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 0.1 else f"{x:.2f}×")


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A GitHub-flavoured markdown table (also readable in a terminal)."""
    rows = [[c.replace("|", "\\|") for c in r] for r in rows]  # a pipe inside a cell must be escaped
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])
