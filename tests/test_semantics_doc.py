"""docs/semantics.md states the contract: its hand-example tables are what the code computes."""

from __future__ import annotations

import re
from pathlib import Path

from brzozowski import TokenIndex, regex_to_dfa
from brzozowski.golden.oracle import Oracle

from .corpus import HAND, HAND_EOS, HAND_MASKS, HAND_STATE_TEXT, HAND_VOCAB

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
    assert f"The pattern `{HAND}`." in DOC
    dfa = regex_to_dfa(HAND)
    rows = _table("Its canonical DFA:")
    assert [int(r[0]) for r in rows] == list(range(dfa.n_states))
    for state, _text, accepting, transitions in rows:
        s = int(state)
        assert (accepting == "yes") == bool(dfa.accept[s])
        documented = {(m[0], int(m[1])) for m in re.findall(r"`(.)` → (\d)", transitions)}
        actual = {(chr(b), int(dfa.trans[s, b])) for b in range(256) if dfa.trans[s, b] >= 0}
        assert documented == actual, state


def test_the_documented_masks_are_the_masks_of_the_index_and_the_oracle():
    documented_vocab = re.search(r"The vocabulary `([^`]*)`", DOC)[1].split(" ")
    assert documented_vocab == [{None: "<eos>", b"": '""'}.get(t) or t.decode() for t in HAND_VOCAB]
    assert f"EOS is {HAND_EOS}" in DOC
    dfa = regex_to_dfa(HAND)
    index = TokenIndex(dfa, HAND_VOCAB, eos_id=HAND_EOS)
    oracle = Oracle(HAND, HAND_VOCAB, eos_id=HAND_EOS)
    rows = _table("has these masks:")
    assert [int(r[0]) for r in rows] == [0, 3, 5, 6]
    for state, allowed, _why in rows:
        ids = [int(i) for i in re.findall(r"(\d+) (?:`|EOS)", allowed)]
        text = HAND_STATE_TEXT[int(state)]
        assert ids == HAND_MASKS[int(state)]
        assert ids == index.mask(int(state)).nonzero()[0].tolist()
        assert ids == oracle.mask_after(text)
        assert dfa.step(0, text) == int(state)


def test_every_test_the_pitfall_table_names_exists():
    """The pitfall table points at tests by name: a renamed or deleted test must not leave it stale."""
    rows = _table("## Pitfalls and the tests that catch them")
    assert [int(r[0].split(".")[0]) for r in rows] == list(range(1, 13))
    defined = set()
    for path in (Path(__file__).resolve().parent).glob("test_*.py"):
        defined |= set(re.findall(r"^\s*def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    named = {name for row in rows for name in re.findall(r"`(test_\w+)`", row[2])}
    assert len(named) >= 12 and named <= defined, sorted(named - defined)
