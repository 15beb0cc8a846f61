"""Differential fuzzer of the ``format`` automata against jsonschema's format checker (Draft 2020-12).

For each format `brzozowski.json.formats` implements, strings come from four sources:

- walks of the format's shipped automaton (`brzozowski.json.format_tables`) over JSON text, a random
  live transition at each step: strings the automaton accepts, in every spelling it accepts
  (``\\u`` escapes, ``\\/``, short escapes), so the soundness direction is tried where it can fail;
- a grammar of the format, biased toward its corners (IPv6 and IP-literal hosts, ports,
  percent-escapes, leap days, offsets, non-ASCII characters, ...);
- mutations of both (a character deleted, inserted, replaced, doubled; a slice repeated);
- random strings over the format's characters, punctuation and a few non-ASCII ones.

Each decoded string gets the checker's verdict, and each of its JSON spellings (raw, ``\\u``
escapes of all or some characters, surrogate pairs above U+FFFF, ``\\/``) the automaton's. A spelling
accepted while the checker refuses the string is *accepted-invalid* (must be 0: every document the
library accepts validates); one refused while the checker accepts is *refused-valid* (a narrowing:
`brzozowski.json.formats.NARROWER` names it and ``explain_json_schema`` reports it).

The checker's ``iri``/``iri-reference`` (``rfc3987-syntax``, an Earley parser) costs milliseconds a
string, so for those two the verdict of every string comes from `IRI_RE`, a transcription of
rfc3987-syntax's grammar into a Python regex, and the checker itself confirms every string the
automaton accepts and every disagreement, plus a random sample; a transcription that disagrees with
the checker is reported as such (``oracle-mismatch``), never trusted.

    PYTHONPATH=. .venv/bin/python benchmarks/fuzz_formats.py [--count 100000] [--seed 0] [FORMAT ...]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from brzozowski.json.format_tables import format_dfa  # noqa: E402
from brzozowski.json.formats import FORMAT_PATTERNS  # noqa: E402

CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER

# --- the checker's iri grammar (rfc3987-syntax 1.1's syntax_rfc3987.lark), transcribed ----------

_H = "[0-9A-Fa-f]"
_H16 = f"{_H}{{1,4}}"
_OCT = r"(?:[0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])"
_V4 = rf"{_OCT}\.{_OCT}\.{_OCT}\.{_OCT}"
_LS32 = f"(?:{_H16}:{_H16}|{_V4})"


def _groups(n: int) -> str:
    return ":".join([_H16] * n)


_V6 = "(?:" + "|".join(
    [f"{_groups(6)}:{_LS32}", f"::{_groups(5)}:{_LS32}"]
    + [f"{_groups(k)}::{_groups(5 - k)}:{_LS32}" for k in range(1, 5)]
    + [f"{_groups(5)}::{_LS32}", f"{_groups(6)}::{_H16}", f"{_groups(7)}::"]
) + ")"
_IUNRES = r"A-Za-z0-9\-._~\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF"
_SUB = r"!$&'()*+,;="
_PCT = f"%{_H}{_H}"
_IPCHAR = f"(?:[{_IUNRES}{_SUB}:@]|{_PCT})"
_IAUTH = (
    rf"(?:(?:[{_IUNRES}{_SUB}:]|{_PCT})*@)?"
    rf"(?:\[(?:{_V6}|v{_H}+\.[A-Za-z0-9\-._~{_SUB}:]+)\]|{_V4}|(?:[{_IUNRES}{_SUB}]|{_PCT})*)(?::[0-9]*)?"
)
_IQF = rf"(?:\?(?:{_IPCHAR}|[\uE000-\uF8FF/?])*)?(?:#(?:{_IPCHAR}|[/?])*)?"
_IRI = (
    rf"[A-Za-z][A-Za-z0-9+\-.]*:(?://{_IAUTH}(?:/{_IPCHAR}*)*|/(?:{_IPCHAR}+(?:/{_IPCHAR}*)*)?"
    rf"|{_IPCHAR}+(?:/{_IPCHAR}*)*)?{_IQF}"
)
_IREL = (
    rf"(?://{_IAUTH}(?:/{_IPCHAR}*)*|/(?:{_IPCHAR}+(?:/{_IPCHAR}*)*)?"
    rf"|(?:[{_IUNRES}{_SUB}@]|{_PCT})+(?:/{_IPCHAR}*)*)?{_IQF}"
)
IRI_RE = {"iri": re.compile(_IRI), "iri-reference": re.compile(f"(?:{_IRI}|{_IREL})")}
"""rfc3987-syntax's ``iri`` and ``iri_reference`` rules as Python regexes (whole-string matches)."""


def checker_valid(name: str, s: str) -> bool:
    """The draft's format checker's verdict on `s` as format `name`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # re.compile's FutureWarnings on odd classes
        return CHECKER.conforms(s, name)


def fast_valid(name: str, s: str) -> bool:
    """`checker_valid`, with the transcription `IRI_RE` standing in for the slow iri checker."""
    if name in IRI_RE:
        return IRI_RE[name].fullmatch(s) is not None
    return checker_valid(name, s)


# --- the automaton, run over many texts at once ------------------------------------------------


class Matcher:
    """A format's shipped DFA run over a batch of JSON texts at once (one numpy step per byte)."""

    def __init__(self, name: str) -> None:
        dfa = format_dfa(name).to_dfa()
        trans = dfa.trans.astype(np.int32)
        self.dead = len(trans)
        self.trans = np.vstack([np.where(trans < 0, self.dead, trans), np.full((1, 256), self.dead, np.int32)])
        self.accept = np.append(dfa.accept, False)
        # For walks: per state, the distinct live targets and the bytes that reach each.
        self.moves = []
        for row in trans:
            targets: dict[int, list[int]] = {}
            for b, t in enumerate(row.tolist()):
                if t >= 0:
                    targets.setdefault(t, []).append(b)
            self.moves.append(list(targets.items()))

    def __call__(self, texts: list[bytes]) -> np.ndarray:
        out = np.zeros(len(texts), bool)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for lo in range(0, len(order), 4096):
            chunk = order[lo:lo + 4096]
            width = len(texts[chunk[-1]])
            buf = np.frombuffer(b"".join(texts[i].ljust(width, b"\0") for i in chunk), np.uint8)
            buf = buf.reshape(len(chunk), width)
            lengths = np.array([len(texts[i]) for i in chunk])
            state = np.zeros(len(chunk), np.int32)
            for k in range(width):
                state = np.where(k < lengths, self.trans[state, buf[:, k]], state)
            out[chunk] = self.accept[state]
        return out

    def walk(self, rng: random.Random, stop: float = 0.12, limit: int = 200) -> bytes | None:
        """A random accepted text: at each state a live target uniformly, then one of its bytes;
        the closing quote (the only move into an accepting state) taken with probability `stop`
        where it is possible, or where nothing else is (None: no end within `limit` bytes)."""
        state, text = 0, bytearray()
        for _ in range(limit):
            inner = [(t, bs) for t, bs in self.moves[state] if not self.accept[t]]
            if len(inner) < len(self.moves[state]) and (not inner or rng.random() < stop):
                return bytes(text) + b'"'
            if not inner:
                return None
            state, bs = rng.choice(inner)
            text.append(rng.choice(bs))
        return None


# --- JSON spellings of a string -----------------------------------------------------------------

_SHORT = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def _escape(c: str, rng: random.Random) -> str:
    o = ord(c)
    if o > 0xFFFF:
        hi, lo = 0xD800 + ((o - 0x10000) >> 10), 0xDC00 + ((o - 0x10000) & 0x3FF)
        text = f"\\u{hi:04x}\\u{lo:04x}"
    else:
        text = f"\\u{o:04x}"
    return text.upper().replace("\\U", "\\u") if rng.random() < 0.5 else text


def spellings(s: str, rng: random.Random) -> list[bytes]:
    """JSON texts of `s`: raw (UTF-8), ASCII-only, every character as ``\\u`` escapes (surrogate
    pairs above U+FFFF), and a random mix (some characters escaped, ``\\/`` for some slashes)."""
    out = [json.dumps(s).encode(), "".join(['"', *(_escape(c, rng) for c in s), '"']).encode()]
    try:
        out.append(json.dumps(s, ensure_ascii=False).encode())
    except UnicodeEncodeError:  # a lone surrogate: escaped spellings only
        pass
    mixed = []
    for c in s:
        r = rng.random()
        if c == "/" and r < 0.3:
            mixed.append("\\/")
        elif r < 0.35 or c in _SHORT or ord(c) < 0x20 or 0xD800 <= ord(c) <= 0xDFFF:
            mixed.append(_SHORT[c] if c in _SHORT and rng.random() < 0.5 else _escape(c, rng))
        else:
            mixed.append(c)
    out.append(('"' + "".join(mixed) + '"').encode("utf-8", "surrogatepass"))
    return out


# --- grammars of the formats, biased toward their corners --------------------------------------

UNICODE = "é\u00a0\u00ff\u0100\u0660\u0967\u2028\ud7ff\ue000\uf8ff\uf900\ufdd0\ufdef\ufff0\uffef\uffff😀\U0001d7d8\U000e0001"
PUNCT = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t\n\r\x00\x7f"


def _pick(rng, *options):
    return rng.choice(options)(rng) if callable(options[0]) else rng.choice(options)


def _digits(rng, n):
    return "".join(rng.choice("0123456789") for _ in range(n))


def _hex(rng, n):
    return "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(n))


def _num(rng, lo, hi, width):
    v = rng.randint(lo, hi)
    return str(v).zfill(width) if rng.random() < 0.9 else str(v)


def g_date(rng):
    return f"{_num(rng, 0, 10000, 4)}-{_num(rng, 0, 13, 2)}-{_num(rng, 0, 32, 2)}"


def g_time(rng):
    t = f"{_num(rng, 0, 24, 2)}:{_num(rng, 0, 60, 2)}:{_num(rng, 0, 61, 2)}"
    if rng.random() < 0.3:
        t += rng.choice(".,") + _digits(rng, rng.randint(0, 9))
    r = rng.random()
    if r < 0.3:
        t += rng.choice("Zz")
    elif r < 0.9:
        t += rng.choice("+-") + f"{_num(rng, 0, 25, 2)}{rng.choice([':', ':', ''])}{_num(rng, 0, 60, 2)}"
    return t


def g_date_time(rng):
    return g_date(rng) + rng.choice("TTTt _") + g_time(rng)


def g_duration(rng):
    out = rng.choice(["P", "P", "P", "p", "", "PT"])
    for unit in rng.sample("YMWDTHMS", rng.randint(0, 5)) if rng.random() < 0.2 else "YMWDTHMS":
        if rng.random() < 0.4:
            if unit == "T":
                out += "T"
                continue
            n = _digits(rng, rng.randint(0, 4))
            if rng.random() < 0.15:
                n += rng.choice(".,") + _digits(rng, rng.randint(0, 3))
            out += n + unit
    return out


def _label(rng):
    n = rng.choice([1, 1, 2, 3, 5, 8, 20, 30, 31, 62, 63, 64])
    chars = "abcxyzABZ0189-" + ("_é" if rng.random() < 0.1 else "")
    return "".join(rng.choice(chars) for _ in range(n))


def g_hostname(rng):
    host = ".".join(_label(rng) for _ in range(rng.choice([1, 1, 2, 3, 4, 8, 9, 30])))
    return host + ("." if rng.random() < 0.1 else "")


def g_email(rng):
    atext = "abcXYZ019!#$%&'*+/=?^_`{|}~-."
    local = "".join(rng.choice(atext) for _ in range(rng.randint(0, 12)))
    if rng.random() < 0.1:
        local = '"' + local + rng.choice(['', ' ', '\\"', '@']) + '"'
    domain = g_hostname(rng) if rng.random() < 0.85 else "[" + _pick(rng, g_ipv4, g_ipv6) + "]"
    return local + rng.choice(["@", "@", "@", "@@", ""]) + domain


def g_ipv4(rng):
    def octet(rng):
        v = str(rng.choice([0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255, 256, 300, rng.randint(0, 260)]))
        return ("0" + v) if rng.random() < 0.05 else v
    return ".".join(octet(rng) for _ in range(rng.choice([4, 4, 4, 4, 3, 5])))


def g_ipv6(rng):
    n = rng.choice([8, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9])
    groups = [_hex(rng, rng.choice([1, 1, 2, 3, 4, 4, 5])) for _ in range(n)]
    if rng.random() < 0.2 and n >= 2:
        groups[-2:] = [g_ipv4(rng)]
    if rng.random() < 0.7:
        k = rng.randint(0, len(groups))
        text = ":".join(groups[:k]) + "::" + ":".join(groups[k:])
    else:
        text = ":".join(groups)
    if rng.random() < 0.05:
        text += "%" + rng.choice(["eth0", "1", ""])
    return text


def g_uuid(rng):
    parts = [_hex(rng, n if rng.random() < 0.95 else n + rng.choice([-1, 1])) for n in (8, 4, 4, 4, 12)]
    text = "-".join(parts) if rng.random() < 0.9 else "".join(parts)
    return rng.choice(["", "", "", "{", "urn:uuid:"]) + text + rng.choice(["", "", "", "}"])


def _component(rng, extra=""):
    chars = "aZ09-._~!$&'()*+,;=:@/?" + extra
    out = []
    for _ in range(rng.randint(0, 8)):
        r = rng.random()
        if r < 0.1:
            out.append("%" + _hex(rng, rng.choice([2, 2, 2, 1])))
        elif r < 0.18:
            out.append(rng.choice(UNICODE))
        elif r < 0.22:
            out.append(rng.choice(PUNCT))
        else:
            out.append(rng.choice(chars))
    return "".join(out)


def _host(rng):
    r = rng.random()
    if r < 0.35:
        return "[" + g_ipv6(rng) + "]"
    if r < 0.42:
        return "[" + rng.choice("vV") + _hex(rng, rng.randint(0, 2)) + "." + _component(rng) + "]"
    if r < 0.55:
        return g_ipv4(rng)
    return _component(rng).replace("/", "").replace("?", "").replace("@", "").replace(":", "")


def _authority(rng):
    user = (_component(rng).replace("/", "").replace("?", "").replace("@", "") + "@") if rng.random() < 0.2 else ""
    port = (":" + _digits(rng, rng.randint(0, 5))) if rng.random() < 0.3 else ""
    return "//" + user + _host(rng) + port


def _path(rng):
    return "".join("/" + _component(rng).replace("/", "").replace("?", "") for _ in range(rng.randint(0, 3)))


def _tail(rng):
    return (("?" + _component(rng)) if rng.random() < 0.3 else "") + (("#" + _component(rng)) if rng.random() < 0.3 else "")


def _scheme(rng):
    return rng.choice(["http", "a", "Z", "x+y-z.1", "1a", "", "ht tp", "mailto", "urn", "q"])


def g_uri(rng):
    r = rng.random()
    hier = _authority(rng) + _path(rng) if r < 0.6 else _path(rng) if r < 0.8 else _component(rng)
    return _scheme(rng) + ":" + hier + _tail(rng)


def g_uri_reference(rng):
    if rng.random() < 0.5:
        return g_uri(rng)
    r = rng.random()
    rel = _authority(rng) + _path(rng) if r < 0.5 else _path(rng) if r < 0.75 else _component(rng)
    return rel + _tail(rng)


def g_json_pointer(rng):
    def token(rng):
        return "".join(rng.choice(["a", "~0", "~1", "~", "~2", "é", "😀", "", " ", "0", "\\", "/"])
                       for _ in range(rng.randint(0, 4)))
    return "".join("/" + token(rng) for _ in range(rng.randint(0, 4))) if rng.random() < 0.9 else token(rng)


def g_relative_json_pointer(rng):
    count = rng.choice(["0", "1", "10", "00", "01", "100", "9", "19", "190", "", "\u0663", "1\u0660"])
    return count + (rng.choice(["#", "", "##"]) if rng.random() < 0.3 else g_json_pointer(rng))


_RE_TOKENS = ["a", "b", ".", "\\d", "\\w", "\\s", "\\.", "\\\\", "[ab]", "[^a]", "[a-z]", "[]", "[",
              "]", "(", ")", "(?:", "|", "*", "+", "?", "*?", "{2}", "{1,3}", "{,2}", "{", "}", "^", "$",
              "\\b", "\\1", "(?=a)", "(?P<n>a)", "\\", "\\x41", "\\u0041", "[\\d-z]", "&", "~", "-", "é",
              "\\n", "\\A", "\\Z", "\\q", "[[", "[a&&b]", "(?i)", "**", "+?", "??"]


def g_regex(rng):
    return "".join(rng.choice(_RE_TOKENS) for _ in range(rng.randint(0, 8)))


GRAMMARS = {
    "date": g_date, "time": g_time, "date-time": g_date_time, "duration": g_duration, "email": g_email,
    "hostname": g_hostname, "ipv4": g_ipv4, "ipv6": g_ipv6, "uuid": g_uuid, "uri": g_uri,
    "uri-reference": g_uri_reference, "iri": g_uri, "iri-reference": g_uri_reference,
    "json-pointer": g_json_pointer, "relative-json-pointer": g_relative_json_pointer, "regex": g_regex,
}


def mutate(s: str, rng: random.Random) -> str:
    """`s` with one to three random edits (delete, insert, replace, double, repeat a slice)."""
    chars = "0123456789abcdefABCDEF:./-_%@[]?#~+TZ" + PUNCT + UNICODE
    for _ in range(rng.randint(1, 3)):
        i = rng.randint(0, len(s))
        op = rng.random()
        if op < 0.25 and s:
            s = s[:i] + s[i + 1:]
        elif op < 0.5:
            s = s[:i] + rng.choice(chars) + s[i:]
        elif op < 0.7 and s:
            s = s[:i] + rng.choice(chars) + s[i + 1:]
        elif op < 0.85 and s:
            s = s[:i] + s[i:i + 1] * 2 + s[i + 1:]
        else:
            j = rng.randint(i, len(s))
            s = s[:i] + s[i:j] * rng.randint(2, 3) + s[j:]
    return s


def random_string(rng: random.Random) -> str:
    chars = "0123456789abcdefxyzTZPW:./-_%@[]?#~+" + PUNCT + UNICODE
    return "".join(rng.choice(chars) for _ in range(rng.choice([0, 1, 2, 4, 8, 12, 20, 36])))


def _no_lone_surrogate(s: str) -> bool:
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in s)


def candidates(name: str, matcher: Matcher, count: int, rng: random.Random) -> list[str]:
    """`count` strings for format `name`: a quarter each from automaton walks, the grammar,
    mutations of both, and random characters (decoded strings; walks' lone surrogates dropped)."""
    grammar = GRAMMARS[name]
    walks: list[str] = []
    while len(walks) < count // 4:
        text = matcher.walk(rng)
        if text is not None:
            s = json.loads(text)
            if _no_lone_surrogate(s):
                walks.append(s)
    grammar_strings = [grammar(rng) for _ in range(count // 4)]
    seeds = walks + grammar_strings
    mutants = [mutate(rng.choice(seeds), rng) for _ in range(count // 4)]
    randoms = [random_string(rng) for _ in range(count - 3 * (count // 4))]
    return [s for s in walks + grammar_strings + mutants + randoms if _no_lone_surrogate(s)]


# --- the comparison ------------------------------------------------------------------------------


@dataclass
class Result:
    """One format's tally: strings tried, accepted-invalid (unsound) and refused-valid strings (with
    a sample of each), strings the transcription `IRI_RE` judged wrongly."""

    name: str
    tried: int = 0
    accepted_invalid: list[str] = field(default_factory=list)
    refused_valid: list[str] = field(default_factory=list)
    oracle_mismatch: list[str] = field(default_factory=list)
    checked_by_checker: int = 0


def fuzz_format(name: str, count: int, seed: int = 0, sample: int = 2000) -> Result:
    """Run `count` strings of format `name` through the automaton (every spelling) and the checker."""
    rng = random.Random(f"{seed}:{name}")
    matcher = Matcher(name)
    strings: dict[str, None] = {}
    while len(strings) < count:  # distinct strings: top up what duplicates took
        strings.update(dict.fromkeys(candidates(name, matcher, max(count - len(strings), 1000), rng)))
    strings = list(strings)[:count]
    texts, owner = [], []
    for k, s in enumerate(strings):
        for text in spellings(s, rng):
            texts.append(text)
            owner.append(k)
    accepted = matcher(texts)
    spelled = np.zeros(len(strings), int)
    np.add.at(spelled, owner, 1)
    n_accepted = np.zeros(len(strings), int)
    np.add.at(n_accepted, owner, accepted)
    result = Result(name, tried=len(strings))
    slow = name in IRI_RE
    sampled = set(rng.sample(range(len(strings)), min(sample, len(strings)))) if slow else set()
    for k, s in enumerate(strings):
        valid = fast_valid(name, s)
        if slow and (n_accepted[k] > 0 or k in sampled or (n_accepted[k] == 0) == valid):
            truth = checker_valid(name, s)
            result.checked_by_checker += 1
            if truth != valid:
                result.oracle_mismatch.append(s)
            valid = truth
        if n_accepted[k] and not valid:
            result.accepted_invalid.append(s)
        elif n_accepted[k] < spelled[k] and valid:
            result.refused_valid.append(s)
    return result


def classify(name: str, s: str) -> str:
    """A coarse class of a refused-valid string, for the report."""
    if s.endswith("\n") and fast_valid(name, s[:-1]):
        return "final newline"
    if any(ord(c) > 0x7F for c in s):
        return "non-ASCII"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in s):
        return "control character"
    if name in ("uri", "uri-reference", "iri", "iri-reference") and re.search(r"\[v", s, re.I):
        return "IPvFuture"
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("formats", nargs="*", default=sorted(FORMAT_PATTERNS))
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=3, help="disagreements shown per format and kind")
    args = parser.parse_args(argv)
    print("| format | tried | accepted-invalid | refused-valid | refused-valid classes | seconds |")
    print("|---|---:|---:|---:|---|---:|")
    details, unsound = [], 0
    for name in args.formats:
        start = time.perf_counter()
        r = fuzz_format(name, args.count, args.seed)
        classes = Counter(classify(name, s) for s in r.refused_valid)
        unsound += len(r.accepted_invalid)
        print(f"| {name} | {r.tried:,} | {len(r.accepted_invalid):,} | {len(r.refused_valid):,} | "
              f"{', '.join(f'{k} {v:,}' for k, v in classes.most_common())} | {time.perf_counter() - start:.0f} |",
              flush=True)
        for kind, found in (("accepted-invalid", r.accepted_invalid), ("refused-valid", r.refused_valid),
                            ("oracle-mismatch", r.oracle_mismatch)):
            if found:
                details.append(f"- {name} {kind}: " + ", ".join(repr(s) for s in found[:args.examples]))
        if r.checked_by_checker:
            details.append(f"- {name}: {r.checked_by_checker:,} strings confirmed by the checker itself, "
                           f"{len(r.oracle_mismatch)} where the transcription differed")
    print("\n" + "\n".join(details))
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())
