"""Shared Hypothesis strategies: random patterns in the supported subset, and byte strings over a
small alphabet that those patterns care about (so random strings actually hit the interesting cases).
"""

from __future__ import annotations

from hypothesis import strategies as st

ATOMS = [
    "a", "b", "c", ".", r"\d", r"\w", r"\s", r"\D", "[a-c]", "[^a]", "[ab0]", r"\x00", r"\n",
    r"[^\n]", r"\.", "(?:)",
]
ALPHABET = b"abc0\n. _"


def _quantify(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def build(args: tuple[str, str]) -> str:
        body, op = args
        return f"(?:{body}){op}"

    ops = st.sampled_from(["*", "+", "?", "{2}", "{0,2}", "{1,3}", "{2,}", "{,2}"])
    return st.tuples(inner, ops).map(build)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    concat = st.lists(children, min_size=2, max_size=3).map("".join)
    alternation = st.lists(children, min_size=2, max_size=3).map(lambda xs: "(" + "|".join(xs) + ")")
    return st.one_of(concat, alternation, _quantify(children))


patterns = st.recursive(st.sampled_from(ATOMS), _combine, max_leaves=8)
"""Random patterns of the supported subset (every one has a non-empty language)."""

texts = st.binary(max_size=8).map(lambda bs: bytes(ALPHABET[b % len(ALPHABET)] for b in bs))
"""Short byte strings over the alphabet the patterns use."""
