"""Pictures of automata as SVG, for Jupyter: a `DFA` shows itself as a drawing (`DFA._repr_svg_`).

`dfa_svg(dfa)` draws a canonical DFA. With the Graphviz ``dot`` program on the PATH it renders
`DFA.to_dot` (the nicest layout); without it, a small pure-Python layout draws the same picture,
so notebooks need no system package:

- states are placed in columns by breadth-first depth from the start (state 0 on the left), and in
  a column in the order of their numbers (the canonical numbering is breadth first, so the
  picture reads left to right as the text is read);
- a circle per state, a double circle when it accepts, an arrow from nowhere into the start;
- one arrow per (source, target) labelled with its byte set (``show_byte_set``: ``[rt]``,
  ``[^"\\\\]``, ``\\x00``...); an arrow to the next column is straight, any other bends to the
  left of its direction of travel (so forward jumps arc above, backward edges below, and the two
  arrows between a pair of states never overlap); a self-loop is a loop above its state.

Invariant: the SVG is a well-formed XML document with one ``<g class="state">`` per state and one
``<g class="edge">`` per (source, target) pair of `DFA.edges`, whatever engine drew it (Graphviz
also writes one ``class="node"``/``class="edge"`` group per state and edge). Automata with more than
`MAX_DRAWN_STATES` states are not drawn: `DFA._repr_svg_` returns None and Jupyter falls back to
the text ``repr`` (a schema's DFA of hundreds of states is no picture anyone can read).

>>> from brzozowski import regex_to_dfa
>>> svg = dfa_svg(regex_to_dfa("(cat|car|dog)s?"), engine="python")
>>> svg.startswith("<svg"), svg.count('class="state"'), svg.count('class="edge"')
(True, 7, 7)

Reference: the DOT language, https://graphviz.org/doc/info/lang.html; SVG 1.1,
https://www.w3.org/TR/SVG11/ (paths, markers).
"""

from __future__ import annotations

import math
import shutil
import subprocess
from typing import Protocol
from xml.sax.saxutils import escape

import numpy as np

from ..core.alphabet import byte_set_of_ranges, show_byte_set
from ..errors import DrawingError

__all__ = ["MAX_DRAWN_STATES", "Drawable", "Picture", "dfa_svg"]


class Drawable(Protocol):
    """What a drawing reads of an automaton (`brzozowski.automata.dfa.DFA` is one). This module depends on
    this protocol, not on `dfa`: `DFA._repr_svg_` imports `draw`, and nothing here imports back."""

    @property
    def n_states(self) -> int: ...

    @property
    def accept(self) -> np.ndarray: ...  # bool[n_states]

    def edges(self) -> list[tuple[int, list[tuple[int, int]], int]]: ...

    def to_dot(self) -> str: ...

MAX_DRAWN_STATES = 60
"""Larger automata are not drawn: past a few dozen states a drawing is a hairball, and the text
table (`DFA.describe`) says more."""

MAX_LABEL_CHARS = 24
"""Edge labels longer than this are cut with an ellipsis (the full set is in the tooltip)."""

_ENGINES = ("auto", "python", "graphviz")
_DOT_TIMEOUT_SECONDS = 10

# Geometry of the pure-Python layout, in SVG user units (pixels).
_RADIUS = 18
_ROW_GAP = 72
_MIN_COLUMN_GAP = 96
_MARGIN = 36
_CHAR_WIDTH = 7.2  # width of one character of the 12px monospace label font


def dfa_svg(dfa: Drawable, engine: str = "auto", notes: dict[int, str] | None = None) -> str:
    """An SVG drawing of `dfa`: with Graphviz when `engine` is "graphviz" or ("auto" and ``dot``
    is on the PATH), else the pure-Python layout. `notes` (state -> short text) are written under
    the states (pure-Python layout; Graphviz puts them in the node label).

    Raises `DrawingError` for an unknown engine, for "graphviz" without ``dot``, and for an
    automaton with more than `MAX_DRAWN_STATES` states.
    """
    if engine not in _ENGINES:
        raise DrawingError(f"engine must be one of {_ENGINES}, not {engine!r}")
    if dfa.n_states > MAX_DRAWN_STATES:
        raise DrawingError(
            f"the DFA has {dfa.n_states} states, more than MAX_DRAWN_STATES = {MAX_DRAWN_STATES} "
            "that a drawing can show legibly; use dfa.describe() for the table"
        )
    notes = {int(s): str(t) for s, t in (notes or {}).items()}
    for state in notes:
        if not 0 <= state < dfa.n_states:
            raise DrawingError(f"a note for state {state}, which does not exist "
                                  f"(states 0..{dfa.n_states - 1})")
    if engine == "graphviz" or (engine == "auto" and shutil.which("dot")):
        svg = _graphviz(dfa, notes, required=engine == "graphviz")
        if svg is not None:
            return svg
    return _python_layout(dfa, notes)


class Picture:
    """An SVG text that Jupyter displays as a picture (``Picture(dfa_svg(dfa, notes=...))``)."""

    def __init__(self, svg: str) -> None:
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"Picture({len(self.svg)} characters of SVG)"


# -- Graphviz ------------------------------------------------------------------------------------


def _graphviz(dfa: Drawable, notes: dict[int, str], required: bool) -> str | None:
    """`dot -Tsvg` of the DFA's DOT text; None (fall back) on any failure unless `required`."""
    dot = dfa.to_dot()
    if notes:
        extra = [f'  {s} [label="{s}\\n{_dot_escape(t)}"];' for s, t in sorted(notes.items())]
        dot = dot[: dot.rindex("}")] + "\n".join(extra) + "\n}"
    executable = shutil.which("dot")
    try:
        if executable is None:
            raise FileNotFoundError("the Graphviz program 'dot' is not on the PATH")
        done = subprocess.run([executable, "-Tsvg"], input=dot, capture_output=True, text=True,
                              timeout=_DOT_TIMEOUT_SECONDS, check=True)
    except (OSError, subprocess.SubprocessError) as error:
        if required:
            raise DrawingError(f"Graphviz failed to draw the DFA: {error}") from error
        return None
    svg = done.stdout
    return svg[svg.index("<svg"):] if "<svg" in svg else None


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


# -- the pure-Python layout ----------------------------------------------------------------------


def _python_layout(dfa: Drawable, notes: dict[int, str]) -> str:
    """The pure-Python picture: columns by depth, rows by predecessors, then the start arrow, the
    edges and the states drawn on a `_Canvas`."""
    edges = dfa.edges()
    labels = {(s, t): show_byte_set(byte_set_of_ranges(ranges)) for s, ranges, t in edges}
    depth, forward = _depths(dfa.n_states, edges)
    columns = _columns(dfa.n_states, depth, forward)
    looped = {s for s, _, t in edges if s == t}
    loop_below = {c[-1] for c in columns if len(c) > 1 and c[-1] in looped}
    position = _positions(columns, labels, bool(notes and looped))
    canvas = _Canvas()
    canvas.start(*position[0])
    for s, _, t in edges:
        canvas.edge(s, t, labels, position, depth, loop_below)
    for state in range(dfa.n_states):
        canvas.state(state, position[state], bool(dfa.accept[state]), notes.get(state), state in loop_below)
    return canvas.svg()


def _depths(n_states: int, edges: list) -> tuple[dict[int, int], dict[int, list[int]]]:
    """The column of every state, and per state the edges that point to a later column.

    Without cycles (self-loops aside), the longest path from the start: every edge points right,
    and paths that merge (the words of an enum) meet where the longest one arrives. With cycles,
    the breadth-first depth (as the numbering), so the picture stays compact."""
    successors: dict[int, list[int]] = {state: [] for state in range(n_states)}
    for s, _, t in edges:
        if s != t:
            successors[s].append(t)
    forward, order, cyclic = _depth_first(successors)
    depth = dict.fromkeys(range(n_states), 0)
    if cyclic:
        _breadth_first_depths(successors, depth)
        forward = {q: [t for t in successors[q] if depth[t] > depth[q]] for q in successors}
    else:
        for state in reversed(order):
            for child in forward[state]:
                depth[child] = max(depth[child], depth[state] + 1)
    return depth, forward


def _depth_first(successors: dict[int, list[int]]) -> tuple[dict[int, list[int]], list[int], bool]:
    """A depth-first search from state 0: its tree and cross edges (`forward`), the postorder
    (reversed: a topological order when there is no cycle), and whether an edge closed a cycle."""
    forward: dict[int, list[int]] = {state: [] for state in successors}
    on_stack, done, order = {0}, set(), []
    cyclic = False
    stack = [(0, iter(successors[0]))]
    while stack:
        state, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            on_stack.discard(state)
            done.add(state)
            order.append(state)
        elif child in on_stack:  # an edge to a state on the stack closes a cycle
            cyclic = True
        else:
            forward[state].append(child)
            if child not in done:
                on_stack.add(child)
                stack.append((child, iter(successors[child])))
    return forward, order, cyclic


def _breadth_first_depths(successors: dict[int, list[int]], depth: dict[int, int]) -> None:
    """Sets `depth` of every state reached from state 0 to its breadth-first distance."""
    seen, frontier = {0}, [0]
    while frontier:
        following = []
        for state in frontier:
            for child in successors[state]:
                if child not in seen:
                    seen.add(child)
                    depth[child] = depth[state] + 1
                    following.append(child)
        frontier = following


def _columns(n_states: int, depth: dict[int, int], forward: dict[int, list[int]]) -> list[list[int]]:
    """The states of each column, top to bottom: a column in the order of the mean row of its
    states' predecessors (fewer crossings), ties by state number."""
    columns: list[list[int]] = [[] for _ in range(max(depth.values()) + 1)]
    row: dict[int, float] = {}
    predecessors: dict[int, list[int]] = {state: [] for state in range(n_states)}
    for s, targets in forward.items():
        for t in targets:
            predecessors[t].append(s)
    for state in sorted(range(n_states), key=lambda q: (depth[q], q)):
        columns[depth[state]].append(state)
    for states in columns:
        def key(q: int) -> tuple[float, int]:
            rows = [row[p] for p in predecessors[q] if p in row]
            return (sum(rows) / len(rows) if rows else 0.0, q)
        states.sort(key=key)
        for r, state in enumerate(states):
            row[state] = r - (len(states) - 1) / 2
    return columns


def _positions(columns: list[list[int]], labels: dict[tuple[int, int], str],
               noted_loops: bool) -> dict[int, tuple[float, float]]:
    """The centre of every state: columns as wide as the widest label needs, each column centred
    vertically; rows further apart when notes and self-loops share the space between them."""
    widest = max((len(_cut(label)) for label in labels.values()), default=0)
    column_gap = max(_MIN_COLUMN_GAP, widest * _CHAR_WIDTH + 2 * _RADIUS + 24)
    tallest = max(len(c) for c in columns)
    row_gap = _ROW_GAP + (30 if noted_loops else 0)  # room for a note and the next row's loop
    top = _MARGIN + 40  # room for self-loops and arcs above the first row
    position: dict[int, tuple[float, float]] = {}
    for c, states in enumerate(columns):
        offset = (tallest - len(states)) * row_gap / 2
        for r, state in enumerate(states):
            position[state] = (_MARGIN + 40 + c * column_gap, top + offset + r * row_gap)
    return position


class _Canvas:
    """The SVG elements drawn so far and the extent they cover (the view box grows to it)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        inf = float("inf")
        self.extent = [inf, inf, -inf, -inf]  # min x, min y, max x, max y of what was drawn

    def grow(self, x: float, y: float, pad_x: float = 0.0, pad_y: float | None = None) -> None:
        pad_y = pad_x if pad_y is None else pad_y
        extent = self.extent
        extent[0], extent[1] = min(extent[0], x - pad_x), min(extent[1], y - pad_y)
        extent[2], extent[3] = max(extent[2], x + pad_x), max(extent[3], y + pad_y)

    def start(self, x0: float, y0: float) -> None:
        """The arrow from nowhere into the start state at (x0, y0)."""
        self.parts.append(f'<g class="start"><path class="arc" d="M{x0 - _RADIUS - 30:.1f},{y0:.1f} '
                          f'L{x0 - _RADIUS - 2:.1f},{y0:.1f}" marker-end="url(#arrow)"/></g>')
        self.grow(x0 - _RADIUS - 30, y0)

    def edge(self, s: int, t: int, labels: dict[tuple[int, int], str],
             position: dict[int, tuple[float, float]], depth: dict[int, int], loop_below: set[int]) -> None:
        """The arrow s -> t with its (cut) label, the full byte set in its tooltip."""
        label = _cut(labels[(s, t)])
        full = escape(labels[(s, t)])
        if s == t:
            path, lx, ly = self._loop(position[s], label, s in loop_below)
        else:
            path, lx, ly = self._arc(s, t, label, labels, position, depth)
        self.parts.append(
            f'<g class="edge"><title>{s} -&gt; {t} on {full}</title>'
            f'<path class="arc" d="{path}" marker-end="url(#arrow)"/>'
            f'<text x="{lx:.1f}" y="{ly:.1f}" class="label">{escape(label)}</text></g>'
        )

    def _loop(self, centre: tuple[float, float], label: str, below: bool) -> tuple[str, float, float]:
        """A self-loop above its state (below the lowest state of a crowded column): path, label x, y."""
        x1, y1 = centre
        up = -1 if not below else 1
        a, b = math.radians(-125 * -up), math.radians(-55 * -up)
        sx, sy = x1 + _RADIUS * math.cos(a), y1 + _RADIUS * math.sin(a)
        ex, ey = x1 + _RADIUS * math.cos(b), y1 + _RADIUS * math.sin(b)
        path = (f"M{sx:.1f},{sy:.1f} C{sx - 22:.1f},{sy + 42 * up:.1f} "
                f"{ex + 22:.1f},{ey + 42 * up:.1f} {ex:.1f},{ey:.1f}")
        lx, ly = x1, y1 + up * (_RADIUS + 36) + (9 if up > 0 else 0)
        self.grow(x1, y1 + up * (_RADIUS + 50), len(label) * _CHAR_WIDTH / 2, 0)
        return path, lx, ly

    def _arc(self, s: int, t: int, label: str, labels: dict[tuple[int, int], str],
             position: dict[int, tuple[float, float]], depth: dict[int, int]) -> tuple[str, float, float]:
        """An arrow between two states: straight to the next column, else bent to the left of its
        direction of travel (forward jumps arc above, backward edges below): path, label x, y."""
        (x1, y1), (x2, y2) = position[s], position[t]
        adjacent = depth.get(t, -1) == depth.get(s, -1) + 1
        dx, dy = x2 - x1, y2 - y1
        distance = math.hypot(dx, dy)
        ux, uy = dx / distance, dy / distance
        if adjacent and (t, s) not in labels:
            bend = 0.0  # the usual case: straight to the next column
        elif depth.get(s, -1) == depth.get(t, -1) + 1 and (t, s) in labels:
            bend = 22.0  # the way back between neighbours: just apart from the way there
        elif depth.get(s, -1) == depth.get(t, -1):
            bend = 18 + 0.45 * distance  # within a column: wide, to keep its middle free
        else:
            bend = 18 + 0.22 * distance
        # The control point sits `bend` to the left of the direction of travel.
        cx, cy = (x1 + x2) / 2 + uy * bend, (y1 + y2) / 2 - ux * bend
        # Start and end on the circles, aimed at the control point.
        sx, sy = _toward(x1, y1, cx if bend else x2, cy if bend else y2, _RADIUS)
        ex, ey = _toward(x2, y2, cx if bend else x1, cy if bend else y1, _RADIUS + 2)
        path = f"M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}"
        # The label sits beside the curve's midpoint, on the side the curve bends to.
        lx = 0.25 * sx + 0.5 * cx + 0.25 * ex + uy * 10
        ly = 0.25 * sy + 0.5 * cy + 0.25 * ey - ux * 10 + 4
        self.grow(lx, ly, 4 + len(label) * _CHAR_WIDTH / 2, 12)
        self.grow(cx, (y1 + y2 + 2 * cy) / 4, 0, 4)  # the curve's apex
        return path, lx, ly

    def state(self, state: int, centre: tuple[float, float], accepting: bool, note: str | None,
              loop_below: bool) -> None:
        """A circle (a double one when accepting) with the state's number and its note under it."""
        x, y = centre
        circles = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_RADIUS}"/>'
        if accepting:
            circles += f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_RADIUS - 4}"/>'
        text = ""
        if note is not None:
            cut = _cut(note, 2 * MAX_LABEL_CHARS)
            below = y + _RADIUS + (60 if loop_below else 15)
            text = f'<text x="{x:.1f}" y="{below:.1f}" class="note">{escape(cut)}</text>'
            self.grow(x, below + 5, len(cut) * _CHAR_WIDTH / 2, 0)
        kind = "accepting" if accepting else "not accepting"
        self.parts.append(
            f'<g class="state"><title>state {state} ({kind})</title>{circles}'
            f'<text x="{x:.1f}" y="{y + 5:.1f}" class="name">{state}</text>{text}</g>'
        )
        self.grow(x, y, _RADIUS + 4)

    def svg(self) -> str:
        """The SVG document: the view box around what was drawn, the arrowhead marker, the styles."""
        extent = self.extent
        min_x, min_y = extent[0] - 8, extent[1] - 8
        width, height = extent[2] - min_x + 8, extent[3] - min_y + 8
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="{min_x:.1f} {min_y:.1f} {width:.1f} {height:.1f}">'
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
            'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>'
            "<style>path.arc{fill:none;stroke:#333;stroke-width:1.3}"
            "circle{fill:#fdfdf6;stroke:#333;stroke-width:1.5}"
            "text{font-family:Menlo,Consolas,monospace;font-size:12px;text-anchor:middle;fill:#222}"
            "text.name{font-size:14px;font-weight:bold}text.note{fill:#555;font-size:11px}"
            "text.label{fill:#1a4f8b}</style>"
            + "".join(self.parts)
            + "</svg>"
        )


def _cut(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _toward(x: float, y: float, tx: float, ty: float, r: float) -> tuple[float, float]:
    """The point at distance r from (x, y) in the direction of (tx, ty)."""
    d = math.hypot(tx - x, ty - y) or 1.0
    return x + (tx - x) * r / d, y + (ty - y) * r / d
