"""docs/semantics.md states the contract: its hand-example tables are what the code computes."""

from __future__ import annotations

import re
from pathlib import Path

from brzozowski import TokenIndex, regex_to_dfa
from brzozowski.golden.cases import HAND_VOCAB
from brzozowski.golden.oracle import Oracle

DOC = (Path(__file__).resolve().parent.parent / "docs" / "semantics.md").read_text(encoding="utf-8")


def _table(after: str) -> list[list[str]]:
    """The rows of the first markdown table after the line `after` (header and rule dropped)."""
    lines = DOC[DOC.index(after):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_documented_dfa_is_the_canonical_dfa():
    dfa = regex_to_dfa("(cat|car|dog)s?")
    rows = _table("Its canonical DFA:")
    assert [int(r[0]) for r in rows] == list(range(dfa.n_states))
    for state, _text, accepting, transitions in rows:
        s = int(state)
        assert (accepting == "yes") == bool(dfa.accept[s])
        documented = {(m[0], int(m[1])) for m in re.findall(r"`(.)` → (\d)", transitions)}
        actual = {(chr(b), int(dfa.trans[s, b])) for b in range(256) if dfa.trans[s, b] >= 0}
        assert documented == actual, state


def test_the_documented_masks_are_the_masks_of_the_index_and_the_oracle():
    dfa = regex_to_dfa("(cat|car|dog)s?")
    index = TokenIndex(dfa, HAND_VOCAB, eos_id=13)
    oracle = Oracle("(cat|car|dog)s?", HAND_VOCAB, eos_id=13)
    texts = {0: b"", 3: b"ca", 5: b"cat", 6: b"cats"}
    rows = _table("has these masks:")
    assert [int(r[0]) for r in rows] == sorted(texts)
    for state, allowed, _why in rows:
        ids = [int(i) for i in re.findall(r"(\d+) (?:`|EOS)", allowed)]
        assert ids == index.mask(int(state)).nonzero()[0].tolist()
        assert ids == oracle.mask_after(texts[int(state)])
        assert dfa.step(0, texts[int(state)]) == int(state)
