"""Batch bitmask fill: brzozowski's `fill_bitmasks` (serial, and with a thread pool) against
llguidance's `fill_next_token_bitmask` (one matcher at a time) and `fill_next_token_bitmask_par`
(its Rust thread pool, outside the GIL), at B = 1, 8, 32, 64, in one run.

The batch: B requests, request i under the i-th schema of the corpus (benchmarks/corpus/pydantic
and handwritten, cycling), following one document of its language (sampled from our compiled
automaton, tokenized by SmolLM2's tokenizer, the vocabulary both engines read from the same
transformers tokenizer). Each step fills all B rows, then every request advances by its next
token (a request whose document ended, or that llguidance refused, keeps its last state: its row is
still filled). Times are per batch fill, median over the steps, after one warm-up pass over the
same documents (both engines' caches warm: what a server sees for repeated schemas) and in a cold
pass (fresh indexes and matchers).

    python benchmarks/bench_batch.py [--steps 40] [--out benchmarks/record/2026-12-04-batch.md]

Needs torch, transformers, gguf (for the tokenizer inside the GGUF) and llguidance.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from brzozowski import TokenIndex, compile_json_schema  # noqa: E402
from brzozowski.cli import _lazy_documents  # noqa: E402
from brzozowski.runtime.constraint import Constraint, allocate_bitmask, fill_bitmasks  # noqa: E402
from brzozowski.runtime.llama import default_model_path  # noqa: E402
from brzozowski.runtime.transformers import tokenizer_vocabulary  # noqa: E402

SIZES = (1, 8, 32, 64)


def corpus_schemas(n: int) -> list[tuple[str, dict]]:
    found = []
    for folder in ("pydantic", "handwritten"):
        for path in sorted((HERE / "corpus" / folder).glob("*.json")):
            schema = json.loads(path.read_text())
            try:
                compile_json_schema(schema)
            except ValueError:
                continue
            found.append((f"{folder}/{path.stem}", schema))
            if len(found) == n:
                return found
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--out", default=str(HERE / "record" / "2026-12-04-batch.md"))
    args = parser.parse_args()

    import llguidance
    import llguidance.hf
    import llguidance.numpy as llnp
    from transformers import AutoTokenizer

    path = default_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    vocabulary = tokenizer_vocabulary(tokenizer)
    ll_tokenizer = llguidance.hf.from_tokenizer(tokenizer)
    schemas = corpus_schemas(max(SIZES))
    rng = random.Random(0)
    documents = []
    for name, schema in schemas:  # a document whose tokens spell it exactly (no normalization)
        for doc in _lazy_documents(compile_json_schema(schema), rng, 20):
            tokens = tokenizer.encode(doc.decode("utf-8"), add_special_tokens=False)
            if b"".join(vocabulary.tokens[t] or b"?" for t in tokens) == doc:
                documents.append((name, schema, tokens))
                break
    executor = ThreadPoolExecutor(max_workers=2)
    grammars = [llguidance.LLMatcher.grammar_from_json_schema(
        json.dumps(schema), defaults={"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"})
        for _, schema, _ in documents]

    def run(b: int, indexes: dict) -> dict[str, list[float]]:
        batch = [documents[i % len(documents)] for i in range(b)]
        ours = []
        for i, (_, schema, _) in enumerate(batch):
            key = i % len(documents)
            if key not in indexes:
                indexes[key] = TokenIndex(compile_json_schema(schema), vocabulary)
            ours.append(Constraint(indexes[key]))
        matchers = [llguidance.LLMatcher(ll_tokenizer, grammars[i % len(documents)]) for i in range(b)]
        pairs = [(m, row) for row, m in enumerate(matchers)]
        out = allocate_bitmask(b, vocabulary.trie.vocab_size)
        ll_out = llnp.allocate_token_bitmask(b, ll_tokenizer.vocab_size)
        times: dict[str, list[float]] = {"ours": [], "ours_threads": [], "llg": [], "llg_par": []}
        refused = 0
        for step in range(args.steps):
            t0 = time.perf_counter()
            fill_bitmasks(ours, out)
            t1 = time.perf_counter()
            fill_bitmasks(ours, out, executor=executor)
            t2 = time.perf_counter()
            for row, m in enumerate(matchers):
                llnp.fill_next_token_bitmask(m, ll_out, row)
            t3 = time.perf_counter()
            llnp.fill_next_token_bitmask_par(executor_ll, pairs, ll_out)
            t4 = time.perf_counter()
            times["ours"].append(t1 - t0)
            times["ours_threads"].append(t2 - t1)
            times["llg"].append(t3 - t2)
            times["llg_par"].append(t4 - t3)
            for row, (_, _, tokens) in enumerate(batch):
                if step < len(tokens):
                    ours[row].advance(tokens[step])
                    if not matchers[row].is_error() and not matchers[row].consume_token(tokens[step]):
                        refused += 1
        times["refused"] = [refused]
        return times

    executor_ll = llguidance.LLExecutor()
    rows = []
    for b in SIZES:
        cold = run(b, {})
        indexes: dict = {}
        run(b, indexes)
        warm = run(b, indexes)
        rows.append((b, cold, warm))
        print(b, {k: round(1e3 * statistics.median(v), 3) for k, v in warm.items() if k != "refused"}, flush=True)

    def ms(xs):
        return f"{1e3 * statistics.median(xs):.3f}"

    lines = [
        "# Batch bitmask fill against llguidance (2026-12-04)", "",
        f"`python benchmarks/bench_batch.py --steps {args.steps}`; {platform.python_version()}, llguidance "
        f"{getattr(llguidance, '__version__', '?')}, numpy {np.__version__}; SmolLM2-135M's vocabulary "
        f"({vocabulary.trie.vocab_size} tokens) from transformers for both; {len(documents)} corpus schemas, one "
        "sampled document each, tokenized by the same tokenizer; a 2-core machine shared with other work. "
        "Median ms per fill of the whole batch over the steps; warm = the second pass over the same "
        "documents (indexes and matchers' caches warm), cold = fresh indexes.", "",
        "| B | ours serial | ours, 2 threads | llguidance serial | llguidance par | cold: ours | cold: llg serial | cold: llg par | llg refused tokens |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for b, cold, warm in rows:
        lines.append(f"| {b} | {ms(warm['ours'])} | {ms(warm['ours_threads'])} | {ms(warm['llg'])} | "
                     f"{ms(warm['llg_par'])} | {ms(cold['ours'])} | {ms(cold['llg'])} | {ms(cold['llg_par'])} | "
                     f"{warm['refused'][0]} |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
