"""JSON integers and numbers under ``minimum``/``maximum``/``exclusiveMinimum``/``exclusiveMaximum``
and ``multipleOf``, as terms over their JSON text.

The basic idea: a bound on a value is a bound on its digits. The canonical integers in ``[lo, hi]``
are, per digit count, a fixed-width range, and a fixed-width range is a short alternation (take the
first digit equal to the bound's, or strictly between, then recurse on the rest); decimal fractions
compare digit by digit the same way. `fixed_width_range` is that recursion for any mixed radix and any
digit spelling, so the UTF-8 and ``\\uXXXX`` ranges of `brzozowski.json.strings` use it too.

The same integers have a second, equal form: `integer_table` builds their DFA from the bounds alone,
a state being what may still follow the digits read (per count of digits to come, the interval of
values they may spell), so `brzozowski.json.leaf_terms` makes bounded integers one table's atom
without building or deriving the term (the tests check the two forms' canonical DFAs are equal).

What ``jsonschema`` compares is the value ``json.loads`` makes: an integer text becomes an exact
Python ``int``, a text with a fraction becomes the nearest ``float``. A decimal a hair below a bound
can round onto it. Rounding to nearest is monotone, so "the double of v is at least d" holds exactly
for the decimals v at or above the midpoint between d and the double below it (ties go to the even
one): the fraction branch compares the exact decimal with that midpoint, and is exact.

Invariant (soundness and exactness): a text is matched iff it is a JSON number in the canonical
spelling ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?`` (plus an exponent when no bound is given) whose
``json.loads`` value satisfies the keywords as ``jsonschema`` decides. Under a bound, texts with an
exponent are left out (whether ``1e400`` beats a bound depends on comparing a written exponent with a
count of digits, which is not regular); this is noted. ``multipleOf`` takes integer divisors (those
of a power of ten by their last digits, others up to `MAX_ELIMINATED_DIVISOR` by the remainder
automaton), intersected with the bounds, and keeps only integer spellings.

>>> from brzozowski.core.derivatives import matches
>>> t = number_term(minimum=-1.5, exclusive_maximum=2)
>>> [matches(t, s) for s in (b"-1.5", b"-1.50001", b"1.9999", b"2", b"-0", b"1e0")]
[True, False, True, False, True, False]
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Hashable
from fractions import Fraction

import numpy as np

from ..core.alphabet import DEAD
from ..core.derivatives import derivative
from ..budget import check_deadline
from ..errors import SchemaError
from ..automata.lazy import is_empty
from ..core.terms import EMPTY, EPSILON, Term, alt, byte, byte_set, concat, inter, literal, repeat, star

__all__ = [
    "INTEGER_TABLE_DIGITS", "MAX_BOUND_DIGITS", "MAX_ELIMINATED_DIVISOR", "MAX_MULTIPLE_OF_SUFFIXES",
    "IntegerParts", "fixed_width_range", "integer_parts", "integer_table", "integer_term", "natural_range",
    "number_term",
]

#: The most decimal digits a bound (or the rounding midpoint next to it) may have: 350 hold every
#: integer-valued double (up to 309 digits) and the exact midpoints next to doubles down to ~1e-40;
#: smaller bounds are compared soundly with a rounded bound, and noted. (A term holds a few
#: alternatives per digit, so a longer bound costs only memory, but nobody needs one.)
MAX_BOUND_DIGITS = 350

#: ``multipleOf: k`` with k dividing 10^t is "the last t digits form a multiple of k": an alternation
#: of 10^t/k suffixes. More suffixes than this are refused (k = 2^10 would need ten million).
MAX_MULTIPLE_OF_SUFFIXES = 2000
_MAX_SUFFIX_WIDTH = 12

#: Any other divisor up to this one gets the remainder automaton as a term (state elimination). The
#: term grows fast with the divisor (state elimination over d remainders): beyond this one its
#: automaton is too large to build within a compile.
MAX_ELIMINATED_DIVISOR = 11

_DIGIT = byte_set(sum(1 << b for b in b"0123456789"))
_DIGITS = star(_DIGIT)
_MINUS = byte(ord("-"))
_DOT = byte(ord("."))
_EXPONENT = concat(byte_set((1 << ord("e")) | (1 << ord("E"))),
                   alt(EPSILON, byte_set((1 << ord("+")) | (1 << ord("-")))), repeat(_DIGIT, 1, None))
_MAX_DOUBLE = Fraction(2) ** 1024  # where float() of a decimal overflows, as a neighbour of the largest double

Bound = tuple[Fraction, bool]  # (value, inclusive)


def _decimal_digits(lo: int, hi: int) -> int:
    return ((1 << (ord("0") + hi + 1)) - 1) ^ ((1 << (ord("0") + lo)) - 1)


def _build(root: Hashable, expand: Callable[[Hashable], tuple[list[Term], list[tuple[Term, Hashable]]]]) -> Term:
    """Evaluate a recursive digit construction without recursion (bounds may have hundreds of digits).

    ``expand(key)`` gives the key's language as terms that need nothing (``done``) and pairs
    ``(head, subkey)`` meaning ``head`` followed by the subkey's language; each is built once.
    Each key built is a unit of work of the current deadline (`brzozowski.budget.check_deadline`).
    """
    built: dict[Hashable, Term] = {}
    stack = [root]
    while stack:
        check_deadline()
        key = stack[-1]
        if key in built:
            stack.pop()
            continue
        done, pending = expand(key)
        missing = [sub for _, sub in pending if sub not in built]
        if missing:
            stack.extend(missing)
            continue
        built[key] = alt(*done, *(concat(head, built[sub]) for head, sub in pending))
        stack.pop()
    return built[root]


def fixed_width_range(lo: int, hi: int, bases: tuple[int, ...], digit: Callable[[int, int, int], Term]) -> Term:
    """The strings of ``len(bases)`` digits whose value is in ``[lo, hi]``.

    Digit i (most significant first) is in base ``bases[i]``; ``digit(i, a, b)`` is the term of the
    digits ``a..b`` at position i. The result has O(len(bases)) alternatives: take the first digit of
    both bounds, the ones strictly between with anything after them, or a bound's with the rest of
    that bound after it.

    >>> from brzozowski.core.derivatives import matches
    >>> r = fixed_width_range(17, 42, (10, 10), lambda i, a, b: byte_set(_decimal_digits(a, b)))
    >>> [n for n in range(100) if matches(r, b"%02d" % n)] == list(range(17, 43))
    True
    """
    places = [math.prod(bases[i + 1:]) for i in range(len(bases))]

    def expand(key: Hashable) -> tuple[list[Term], list[tuple[Term, Hashable]]]:
        lo, hi, i = key
        if i == len(bases):
            return [EPSILON], []
        place = places[i]
        head_lo, tail_lo = divmod(lo, place)
        head_hi, tail_hi = divmod(hi, place)
        if head_lo == head_hi:
            return [], [(digit(i, head_lo, head_lo), (tail_lo, tail_hi, i + 1))]
        pending = []
        if tail_lo:
            pending.append((digit(i, head_lo, head_lo), (tail_lo, place - 1, i + 1)))
            head_lo += 1
        if tail_hi != place - 1:
            pending.append((digit(i, head_hi, head_hi), (0, tail_hi, i + 1)))
            head_hi -= 1
        if head_lo <= head_hi:
            pending.append((digit(i, head_lo, head_hi), (0, place - 1, i + 1)))
        return [], pending

    return _build((lo, hi, 0), expand)


def _decimal(i: int, a: int, b: int) -> Term:
    return byte_set(_decimal_digits(a, b))


def natural_range(lo: int, hi: int | None) -> Term:
    """The canonical decimal naturals ``0|[1-9][0-9]*`` in ``[lo, hi]`` (``hi`` None: unbounded)."""
    lo = max(lo, 0)
    if hi is not None and lo > hi:
        return EMPTY
    parts = []
    width = len(str(lo))
    last = len(str(hi)) if hi is not None else width
    for w in range(width, last + 1):
        start = max(lo, 10 ** (w - 1) if w > 1 else 0)
        end = 10**w - 1 if hi is None else min(hi, 10**w - 1)
        parts.append(fixed_width_range(start, end, (10,) * w, _decimal))
    if hi is None:  # every natural with more digits than lo
        parts.append(concat(byte_set(_decimal_digits(1, 9)), repeat(_DIGIT, last, None)))
    return alt(*parts)


def _fraction_digits(value: Fraction) -> str:
    """The decimal digits after the point of ``value`` in [0, 1), without trailing zeros (finite only)."""
    denominator = value.denominator  # 2^a 5^b: n = max(a, b) digits after the point
    twos = (denominator & -denominator).bit_length() - 1
    fives, power = 0, denominator >> twos
    if power > 1:
        fives = max(int(math.log(power, 5)) - 1, 0)
        while 5**fives < power:
            fives += 1
    n = max(twos, fives)
    return str(int(value * 10**n)).rjust(n, "0").rstrip("0") if n else ""


def _fraction_range(lo: tuple[str, bool] | None, hi: tuple[str, bool] | None) -> Term:
    """Digit strings s (possibly empty) with lo ≤ 0.s ≤ hi; bounds are (digits, inclusive), None: open."""
    return _build((lo, hi), _fraction_step)


def _fraction_step(key: Hashable) -> tuple[list[Term], list[tuple[Term, Hashable]]]:
    """One digit of `_fraction_range`: the first digit, and the bounds left for the digits after it."""
    lo, hi = key
    if lo == ("", True):
        lo = None  # 0.s ≥ 0 always
    if hi is not None and hi[0] == "":
        if not hi[1] or lo is not None:  # 0.s < 0, or 0 < 0.s ≤ 0
            return [], []
        return [star(byte(ord("0")))], []
    if lo is None and hi is None:
        return [_DIGITS], []
    if lo == ("", False) and hi is None:  # 0.s > 0: some digit is not 0
        return [concat(star(byte(ord("0"))), byte_set(_decimal_digits(1, 9)), _DIGITS)], []
    if hi is None and lo is not None and lo[0].startswith("00"):  # lo = 0.0^z t, t's first digit not 0
        zeros = len(lo[0]) - len(lo[0].lstrip("0"))  # fewer zeros then a digit that is not 0, or z then ≥ t
        return ([concat(repeat(byte(ord("0")), 0, zeros - 1), byte_set(_decimal_digits(1, 9)), _DIGITS)],
                [(repeat(byte(ord("0")), zeros, zeros), ((lo[0][zeros:], lo[1]), None))])
    done = [EPSILON] if lo is None else []  # the empty string is the value 0 < hi
    first = int(lo[0][0]) if lo is not None and lo[0] else 0
    last = int(hi[0][0]) if hi is not None else 9
    groups: dict[tuple, int] = {}
    for d in range(first, last + 1):
        rest = (
            (lo[0][1:], lo[1]) if lo is not None and d == first else None,
            (hi[0][1:], hi[1]) if hi is not None and d == last else None,
        )
        groups[rest] = groups.get(rest, 0) | _decimal_digits(d, d)
    return done, [(byte_set(bits), rest) for rest, bits in groups.items()]


def _nonempty(term: Term) -> Term:
    """`term` without the empty string, as digits: one digit, then what may follow it."""
    return alt(*(concat(byte(b), derivative(term, b)) for b in b"0123456789"))


def _clip(lo: Bound | None, hi: Bound | None) -> tuple[Bound, Bound | None]:
    """The part of the interval at or above zero (lo becomes a bound)."""
    if lo is None or lo[0] < 0:
        lo = (Fraction(0), True)
    return lo, hi


def _signed_parts(lo: Bound | None, hi: Bound | None) -> tuple[tuple[Bound, Bound | None] | None, ...]:
    """The magnitude intervals of the texts ``-?m`` with value in [lo, hi]: the part without the
    minus sign, then the part behind it (None where there is none)."""
    positive = _clip(lo, hi) if hi is None or hi[0] >= 0 else None
    negative = None
    if lo is None or lo[0] <= 0:
        negative = _clip(None if hi is None else (-hi[0], hi[1]), None if lo is None else (-lo[0], lo[1]))
    return positive, negative


def _signed(magnitudes: Callable[[Bound, Bound | None], Term], lo: Bound | None, hi: Bound | None) -> Term:
    """Texts ``-?m`` with value in [lo, hi], given the magnitude texts of a non-negative interval."""
    positive, negative = _signed_parts(lo, hi)
    return alt(EMPTY if positive is None else magnitudes(*positive),
               EMPTY if negative is None else concat(_MINUS, magnitudes(*negative)))


def _natural_interval(lo: Bound, hi: Bound | None) -> tuple[int, int | None]:
    """The first and last integers of [lo, hi] (lo at or above zero; last None: unbounded)."""
    first = math.ceil(lo[0]) if lo[1] else math.floor(lo[0]) + 1
    return first, None if hi is None else (math.floor(hi[0]) if hi[1] else math.ceil(hi[0]) - 1)


def _natural_magnitudes(lo: Bound, hi: Bound | None) -> Term:
    return natural_range(*_natural_interval(lo, hi))


def _fraction_magnitudes(lo: Bound, hi: Bound | None) -> Term:
    """Texts ``I.F`` (F at least one digit) with value in [lo, hi]; lo, hi ≥ 0 with finite decimals."""
    (a, a_incl) = lo
    whole_a = math.floor(a)
    frac_a = (_fraction_digits(a - whole_a), a_incl)
    if hi is not None:
        (b, b_incl) = hi
        if b < a or (b == a and not (a_incl and b_incl)):
            return EMPTY
        whole_b = math.floor(b)
        frac_b = (_fraction_digits(b - whole_b), b_incl)
        if whole_a == whole_b:
            return concat(*_digit_bytes(whole_a), _DOT, _nonempty(_fraction_range(frac_a, frac_b)))
    parts = [
        concat(*_digit_bytes(whole_a), _DOT, _nonempty(_fraction_range(frac_a, None))),
        concat(natural_range(whole_a + 1, None if hi is None else whole_b - 1), _DOT, repeat(_DIGIT, 1, None)),
    ]
    if hi is not None:
        parts.append(concat(*_digit_bytes(whole_b), _DOT, _nonempty(_fraction_range(None, frac_b))))
    return alt(*parts)


def _digit_bytes(n: int) -> list[Term]:
    """The digits of n as one term each: concatenated flat, a long number never nests deeply."""
    return [byte(b) for b in str(n).encode()]


def _is_even(d: float) -> bool:
    """Whether the double d has an even significand (where round-half-even sends a tie); ±inf: yes."""
    if math.isinf(d):
        return True
    return struct.unpack("<q", struct.pack("<d", d))[0] & 1 == 0


def _exact(d: float) -> Fraction:
    return Fraction(d) if math.isfinite(d) else (_MAX_DOUBLE if d > 0 else -_MAX_DOUBLE)


def _double_at_least(value: Fraction, strict: bool) -> float:
    """The smallest double ≥ value (strict: > value); inf when there is none."""
    try:
        d = float(value)
    except OverflowError:
        d = math.inf if value > 0 else -math.inf
    while (Fraction(d) <= value if strict else Fraction(d) < value) if math.isfinite(d) else d < 0:
        d = math.nextafter(d, math.inf)
    return d


def _float_lower(value: Fraction, strict: bool) -> tuple[Bound, bool]:
    """A bound on decimals v such that v beyond it makes the nearest double ≥ value (strict: > value).

    Exact (second item True) when the midpoint below the first double past the bound has at most
    `MAX_BOUND_DIGITS` decimals; otherwise (doubles near zero) the double itself, rounded up to 17
    significant digits: sound, and narrower only by decimals that round up onto the bound.
    """
    d = _double_at_least(value, strict)
    midpoint = (_exact(math.nextafter(d, -math.inf)) + _exact(d)) / 2
    if _decimals(midpoint) <= MAX_BOUND_DIGITS:
        return (midpoint, _is_even(d)), True
    exact = Fraction(d)
    if exact == 0:
        return (exact, True), False
    scale = Fraction(10) ** min(16 - math.floor(math.log10(abs(d))), MAX_BOUND_DIGITS)
    return (Fraction(math.ceil(exact * scale)) / scale, True), False


def _decimals(value: Fraction) -> int:
    """How many digits after the point the (finite) decimal expansion of a dyadic `value` has."""
    return value.denominator.bit_length() - 1


def _float_upper(value: Fraction, strict: bool) -> tuple[Bound, bool]:
    """As `_float_lower`, mirrored: v below the bound makes the nearest double ≤ value (strict: < value)."""
    (lower, inclusive), exact = _float_lower(-value, strict)
    return (-lower, inclusive), exact


def _tighter_lower(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None or b is None:
        return a or b
    return max(a, b, key=lambda bound: (bound[0], not bound[1]))


def _tighter_upper(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None or b is None:
        return a or b
    return min(a, b, key=lambda bound: (bound[0], bound[1]))


def _as_fraction(value: object, keyword: str) -> Fraction | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(f"{keyword} must be a number, got {value!r}", "", keyword)
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{keyword} must be a finite number, got {value!r}", "", keyword)
    exact = Fraction(value)
    numerator = abs(exact.numerator)
    huge = numerator.bit_length() > 4 * MAX_BOUND_DIGITS  # (its decimal string is not made: Python caps them)
    if huge or len(str(numerator)) > MAX_BOUND_DIGITS:
        shown = f"(an integer of {numerator.bit_length()} bits)" if huge else repr(value)
        raise SchemaError(f"{keyword} {shown} has more than {MAX_BOUND_DIGITS} digits: give a smaller bound",
                          "", keyword)
    return exact


class _Bounds:
    """The four bound keywords, checked, as exact fractions."""

    def __init__(self, minimum: object, maximum: object, exclusive_minimum: object, exclusive_maximum: object):
        self.given = {
            "minimum": _as_fraction(minimum, "minimum"),
            "maximum": _as_fraction(maximum, "maximum"),
            "exclusiveMinimum": _as_fraction(exclusive_minimum, "exclusiveMinimum"),
            "exclusiveMaximum": _as_fraction(exclusive_maximum, "exclusiveMaximum"),
        }
        self.any = any(v is not None for v in self.given.values())

    def exact(self) -> tuple[Bound | None, Bound | None]:
        """The bounds as jsonschema applies them to an exact value (an int)."""
        g = self.given
        lower = _tighter_lower(None if g["minimum"] is None else (g["minimum"], True),
                               None if g["exclusiveMinimum"] is None else (g["exclusiveMinimum"], False))
        upper = _tighter_upper(None if g["maximum"] is None else (g["maximum"], True),
                               None if g["exclusiveMaximum"] is None else (g["exclusiveMaximum"], False))
        return lower, upper

    def on_decimals(self, notes: list[str] | None) -> tuple[Bound | None, Bound | None]:
        """The bounds on the exact decimal v of a text that json.loads turns into a float."""
        lower = upper = None
        for keyword, value in self.given.items():
            if value is None:
                continue
            if keyword in ("minimum", "exclusiveMinimum"):
                bound, exact = _float_lower(value, keyword == "exclusiveMinimum")
                lower = _tighter_lower(lower, bound)
            else:
                bound, exact = _float_upper(value, keyword == "exclusiveMaximum")
                upper = _tighter_upper(upper, bound)
            if not exact and notes is not None:
                notes.append(f"{keyword}: decimals that only round onto the bound (within half a unit in "
                             "the last place of a double this close to zero) are not written")
        return lower, upper

    def first_keyword(self) -> str:
        return next(k for k, v in self.given.items() if v is not None)


def _multiples(divisor: object) -> Term:
    """The canonical integer texts divisible by `divisor` (a positive integer, within the limits)."""
    if isinstance(divisor, bool) or not isinstance(divisor, int):
        if isinstance(divisor, float) and divisor.is_integer() and divisor > 0:
            hint = f"write it as the integer {int(divisor)} (jsonschema divides by a float inexactly)"
        else:
            hint = "only integer divisors are supported"
        raise SchemaError(f"multipleOf {divisor!r}: {hint}", "", "multipleOf")
    if divisor <= 0:
        raise SchemaError(f"multipleOf must be greater than 0, got {divisor}", "", "multipleOf")
    width = next((w for w in range(_MAX_SUFFIX_WIDTH + 1) if 10**w % divisor == 0), None)
    if width is not None and 10**width // divisor <= MAX_MULTIPLE_OF_SUFFIXES:
        magnitude = _multiples_by_suffix(divisor, width)
    elif divisor <= MAX_ELIMINATED_DIVISOR:
        magnitude = _multiples_by_remainder(divisor)
    else:
        raise SchemaError(
            f"multipleOf {divisor} is not supported: the divisor must be at most {MAX_ELIMINATED_DIVISOR} or divide "
            f"a power of ten in at most {MAX_MULTIPLE_OF_SUFFIXES:,} steps (1, 2, 4, 5, 8, 10, 16, 20, 25, 50, "
            "100, …)", "", "multipleOf")
    return concat(alt(EPSILON, _MINUS), magnitude)


def _multiples_by_suffix(divisor: int, width: int) -> Term:
    """Naturals divisible by a divisor of 10^width: short ones listed, longer ones by their last digits."""
    if width == 0:
        return natural_range(0, None)
    short = alt(*(literal(str(n).encode()) for n in range(0, 10**width, divisor)))
    suffixes = alt(*(literal(str(n).rjust(width, "0").encode()) for n in range(0, 10**width, divisor)))
    return alt(short, concat(byte_set(_decimal_digits(1, 9)), _DIGITS, suffixes))


def _multiples_by_remainder(divisor: int) -> Term:
    """Naturals divisible by `divisor`: the remainder automaton (state r, digit d → (10r+d) mod divisor)
    turned into a term by state elimination (Brzozowski and McCluskey 1963)."""
    edge = {(i, j): EMPTY for i in range(divisor) for j in range(divisor)}
    for i in range(divisor):
        for d in range(10):
            j = (10 * i + d) % divisor
            edge[i, j] = alt(edge[i, j], byte(ord("0") + d))
    start = {j: byte_set(sum(1 << (ord("0") + d) for d in range(1, 10) if d % divisor == j)) for j in range(divisor)}
    final = {j: EPSILON if j == 0 else EMPTY for j in range(divisor)}
    through = EMPTY  # the paths from the start to the end through eliminated states
    remaining = list(range(divisor))
    for q in reversed(range(divisor)):
        loop = star(edge[q, q])
        remaining.remove(q)
        for i in remaining:
            via = concat(edge[i, q], loop)
            for j in remaining:
                edge[i, j] = alt(edge[i, j], concat(via, edge[q, j]))
            final[i] = alt(final[i], concat(via, final[q]))
        for j in remaining:
            start[j] = alt(start[j], concat(start[q], loop, edge[q, j]))
        through = alt(through, concat(start[q], loop, final[q]))
    return alt(byte(ord("0")), through)


def _noted_if_empty(term: Term, bounds: _Bounds, kind: str, notes: list[str] | None) -> Term:
    """`term`, or ∅ and a note when the keywords leave nothing (another type may still be allowed)."""
    if is_empty(term):
        if notes is not None:
            keyword = bounds.first_keyword() if bounds.any else "multipleOf"
            notes.append(f"{keyword}: no {kind} satisfies the keywords")
        return EMPTY
    return term


def integer_term(*, minimum: object = None, maximum: object = None, exclusive_minimum: object = None,
                 exclusive_maximum: object = None, multiple_of: object = None,
                 notes: list[str] | None = None) -> Term:
    """The canonical JSON integer texts ``-?(0|[1-9][0-9]*)`` allowed by the keywords (exact)."""
    bounds = _Bounds(minimum, maximum, exclusive_minimum, exclusive_maximum)
    integers = _signed(_natural_magnitudes, *bounds.exact())
    if multiple_of is not None:
        integers = inter(_multiples(multiple_of), integers)
    return _noted_if_empty(integers, bounds, "integer", notes)


INTEGER_TABLE_DIGITS = 20
"""`integer_parts` takes bounds of at most this many digits (every 64-bit integer);
a longer bound keeps its term (`integer_term`)."""

_INTEGER_CLASSES = np.zeros(256, dtype=np.intp)
_INTEGER_CLASSES[ord("-")] = 1
_INTEGER_CLASSES[ord("0"):ord("9") + 1] = np.arange(2, 12)
"""The byte classes of `integer_table`: every other byte (0), the minus sign (1), each digit (2-11)."""

_Completions = tuple[tuple[tuple[int, int] | None, ...], int | None]
"""What a digit string may still be followed by inside an interval of naturals: per count k of
digits to come (0, 1, ...), the interval of the values those k digits may spell (None: none),
and the count from which on every string of digits is allowed (None: no such count). Exactly one
value describes each language: no interval at or past that count, none trailing None."""

_ZERO: _Completions = (((0, 0),), None)  # nothing more may come (a lone zero read, or a bound)
_START, _MINUS_READ = -1, -2  # the states before any byte and after a leading minus sign
_POWERS = [10**k for k in range(INTEGER_TABLE_DIGITS + 2)]  # 10**k, k digits to come


IntegerParts = tuple[tuple[int, int | None] | None, tuple[int, int | None] | None]
"""The integers `integer_term` allows under bounds, as the magnitudes written without a minus sign
and those behind one: each the first and last (None: no limit), or None for none."""


def integer_parts(*, minimum: object = None, maximum: object = None, exclusive_minimum: object = None,
                  exclusive_maximum: object = None) -> IntegerParts | None:
    """The `IntegerParts` of the integers within these bounds (the same keywords give the same
    language, and so do different spellings of one: 1 and 1.0, ``minimum: 1`` and
    ``exclusiveMinimum: 0``); None when a bound has more than `INTEGER_TABLE_DIGITS` digits or no
    integer satisfies them. The caller has checked the keywords (`integer_term`)."""
    lo, hi = _Bounds(minimum, maximum, exclusive_minimum, exclusive_maximum).exact()
    parts: list[tuple[int, int | None] | None] = []
    for part in _signed_parts(lo, hi):
        if part is not None:
            first, last = _natural_interval(*part)
            first = max(first, 0)
            top = first if last is None else max(first, last)
            if top.bit_length() > 4 * INTEGER_TABLE_DIGITS or len(str(top)) > INTEGER_TABLE_DIGITS:
                return None  # (the bit length first: no decimal string of a huge bound is made)
            part = None if last is not None and last < first else (first, last)
        parts.append(part)
    return None if parts == [None, None] else (parts[0], parts[1])


def integer_table(parts: IntegerParts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A DFA of `integer_term`'s language for these `integer_parts` as (each byte's class, the
    transitions per class with DEAD = -1, whether each state accepts; start 0), built from the
    integers directly, no derivative taken: a state is what may still follow (its `_Completions`),
    the start and the state after the minus sign apart. The states are those of the canonical DFA
    but for those two, which another state may equal."""
    numbers: dict[object, int] = {_START: 0}  # states numbered as found, breadth first
    todo: list[object] = [_START]
    rows, accept = [], []
    for state in todo:
        row = [DEAD] * 12
        for b, target in _integer_moves(state, *parts):
            number = numbers.get(target)
            if number is None:
                number = numbers[target] = len(numbers)
                todo.append(target)
            row[_INTEGER_CLASSES[b]] = number
        rows.append(row)
        accept.append(state not in (_START, _MINUS_READ) and _accepts(state))
    return _INTEGER_CLASSES, np.array(rows, dtype=np.int32), np.array(accept, dtype=bool)


def _integer_moves(state: object, positive: tuple[int, int | None] | None,
                   negative: tuple[int, int | None] | None) -> list[tuple[int, object]]:
    """(byte, state) for each byte that leads somewhere from `state` (`integer_table`)."""
    if state == _START or state == _MINUS_READ:
        part = positive if state == _START else negative
        moves = [(ord("-"), _MINUS_READ)] if state == _START and negative is not None else []
        if part is not None:
            first, last = part
            if first == 0:
                moves.append((ord("0"), _ZERO))
            for d in range(1, 10):
                after = _completions(d, first, last)
                if after != ((), None):
                    moves.append((ord("0") + d, after))
        return moves
    return [(ord("0") + d, after) for d in range(10)
            if (after := _next_completions(state, d)) != ((), None)]


def _completions(prefix: int, first: int, last: int | None) -> _Completions:
    """The `_Completions` of a digit string of value `prefix` (at least 1) in [first, last]."""
    intervals: list[tuple[int, int] | None] = []
    scale = 1  # 10**k
    while last is None or prefix * scale <= last:
        low = prefix * scale
        if last is None and low >= first:
            return _normal(intervals, len(intervals))
        lowest, highest = max(0, first - low), scale - 1 if last is None else min(scale - 1, last - low)
        intervals.append((lowest, highest) if lowest <= highest else None)
        scale *= 10
    return _normal(intervals, None)


def _next_completions(state: _Completions, d: int) -> _Completions:
    """The `_Completions` after one more digit d."""
    intervals, full = state
    moved: list[tuple[int, int] | None] = []
    for interval, scale in zip(intervals[1:], _POWERS):  # k + 1 digits to come before d, k after
        if interval is None:
            moved.append(None)
            continue
        lowest, highest = interval[0] - d * scale, interval[1] - d * scale
        moved.append(None if lowest >= scale or highest < 0
                     else (lowest if lowest > 0 else 0, highest if highest < scale else scale - 1))
    return _normal(moved, None if full is None else max(full - 1, 0))


def _normal(intervals: list[tuple[int, int] | None], full: int | None) -> _Completions:
    """The one value of `_Completions` for this language: the full intervals that end the list
    folded into `full`; trailing None dropped."""
    if full is not None:
        while intervals and intervals[-1] == (0, 10 ** (len(intervals) - 1) - 1):
            intervals.pop()
        full = len(intervals)
    else:
        while intervals and intervals[-1] is None:
            intervals.pop()
    return tuple(intervals), full


def _accepts(state: _Completions) -> bool:
    intervals, full = state
    return full == 0 or (bool(intervals) and intervals[0] == (0, 0))


def number_term(*, minimum: object = None, maximum: object = None, exclusive_minimum: object = None,
                exclusive_maximum: object = None, multiple_of: object = None,
                notes: list[str] | None = None) -> Term:
    """The JSON number texts allowed by the keywords (see the module doc for what is left out)."""
    bounds = _Bounds(minimum, maximum, exclusive_minimum, exclusive_maximum)
    integers = _signed(_natural_magnitudes, *bounds.exact())
    if multiple_of is not None:
        if notes is not None:
            notes.append(f"multipleOf {multiple_of}: only integers are written (no fraction or exponent)")
        return _noted_if_empty(inter(_multiples(multiple_of), integers), bounds, "number", notes)
    if not bounds.any:
        fraction = alt(EPSILON, concat(_DOT, repeat(_DIGIT, 1, None)))
        return concat(integers, fraction, alt(EPSILON, _EXPONENT))
    fractions = _signed(_fraction_magnitudes, *bounds.on_decimals(notes))
    if notes is not None:
        notes.append(f"{bounds.first_keyword()}: numbers are written without an exponent")
    return _noted_if_empty(alt(integers, fractions), bounds, "number", notes)
