"""Pictures of automata (brzozowski.automata.draw, DFA._repr_svg_): well-formed SVG that shows every state
and edge of the DFA, with accepting states doubled; too large or bad requests refused."""

import re
import xml.etree.ElementTree as ET

import pytest

from brzozowski import BrzozowskiError, regex_to_dfa
from brzozowski.errors import DrawingError
from brzozowski.automata.draw import MAX_DRAWN_STATES, Picture, dfa_svg

from .corpus import DRAWN_PATTERNS, HAND

SVG = "{http://www.w3.org/2000/svg}"


def groups(svg: str, kind: str) -> list[ET.Element]:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == SVG + "svg"
    return [g for g in root.iter(SVG + "g") if g.get("class") == kind]


@pytest.mark.parametrize("pattern", DRAWN_PATTERNS)
def test_python_layout_draws_every_state_and_edge(pattern):
    dfa = regex_to_dfa(pattern)
    svg = dfa_svg(dfa, engine="python")
    states = groups(svg, "state")
    assert [g.find(SVG + "text").text for g in states] == [str(s) for s in range(dfa.n_states)]
    for state, g in enumerate(states):  # a double circle exactly when the state accepts
        assert len(g.findall(SVG + "circle")) == (2 if dfa.accept[state] else 1)
    titles = [g.find(SVG + "title").text for g in groups(svg, "edge")]
    assert titles == [f"{s} -> {t} on {title_set(dfa, s, t)}" for s, _, t in dfa.edges()]
    assert len(groups(svg, "start")) == 1
    # Nothing is drawn outside the picture: every coordinate lies inside the viewBox.
    x0, y0, w, h = map(float, ET.fromstring(svg).get("viewBox").split())
    for x, y in re.findall(r'c?x="(-?[\d.]+)" c?y="(-?[\d.]+)"', svg):
        assert x0 <= float(x) <= x0 + w and y0 <= float(y) <= y0 + h


def title_set(dfa, s, t):
    """The label that describe() writes for the edge s -> t (the same byte-set notation)."""
    line = dfa.describe().splitlines()[1 + s]
    labels = dict((int(target), label) for label, target in re.findall(r"(\S+) -> (\d+)", line))
    return labels[t]


def test_the_hand_example_reads_left_to_right():
    svg = dfa_svg(regex_to_dfa(HAND), engine="python")
    xs = [float(g.find(SVG + "circle").get("cx")) for g in groups(svg, "state")]
    # Columns by breadth-first depth: 0 | 1 2 | 3 4 | 5 | 6
    assert xs[0] < xs[1] == xs[2] < xs[3] == xs[4] < xs[5] < xs[6]


def test_notes_are_written_under_their_states():
    svg = dfa_svg(regex_to_dfa("ab"), engine="python", notes={0: "ab", 2: "ε & <x>"})
    notes = [t.text for t in ET.fromstring(svg).iter(SVG + "text") if t.get("class") == "note"]
    assert notes == ["ab", "ε & <x>"]
    with pytest.raises(DrawingError, match="state 9"):
        dfa_svg(regex_to_dfa("ab"), notes={9: "no such state"})


def test_repr_svg_and_its_limit():
    assert regex_to_dfa(HAND)._repr_svg_().startswith("<svg")
    big = regex_to_dfa(f"(a|b)*a(a|b){{{MAX_DRAWN_STATES.bit_length()}}}")
    assert big.n_states > MAX_DRAWN_STATES
    assert big._repr_svg_() is None  # Jupyter falls back to the text repr
    with pytest.raises(DrawingError, match="MAX_DRAWN_STATES"):
        dfa_svg(big)


def test_bad_engine_and_missing_graphviz(monkeypatch):
    assert issubclass(DrawingError, BrzozowskiError) and issubclass(DrawingError, ValueError)
    with pytest.raises(DrawingError, match="engine"):
        dfa_svg(regex_to_dfa("a"), engine="neato")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(DrawingError, match="Graphviz"):
        dfa_svg(regex_to_dfa("a"), engine="graphviz")
    assert groups(dfa_svg(regex_to_dfa("a")), "state")  # auto falls back to the Python layout


def test_picture_shows_its_svg():
    svg = dfa_svg(regex_to_dfa("a"), engine="python")
    assert Picture(svg)._repr_svg_() == svg


def test_draw_does_not_import_the_dfa_module():
    """draw depends on its `Drawable` protocol; only `dfa` imports `draw` (no import cycle)."""
    import ast
    from pathlib import Path

    import brzozowski.automata.draw

    tree = ast.parse(Path(brzozowski.automata.draw.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    assert not {name for name in imported if name and name.split(".")[-1] == "dfa"}
