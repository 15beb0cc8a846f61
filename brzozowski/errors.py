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


class BrzozowskiError(ValueError):
    """Base class of every error this library raises on bad input."""


class InputTypeError(BrzozowskiError, TypeError):
    """A value of the wrong type given to a constructor or function (a pattern that is not text, an
    automaton that is not one); the message names the value. Also a `TypeError`, as Python would say."""


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


class StateBudgetError(BrzozowskiError):
    """Building the automaton would need more states than the budget allows (a state explosion)."""


class SchemaError(BrzozowskiError):
    """A JSON schema that is malformed or uses a keyword outside the supported subset.

    `pointer` is the JSON pointer (RFC 6901) of the offending place, `keyword` the keyword, if any.
    """

    def __init__(self, message: str, pointer: str, keyword: str | None = None) -> None:
        self.message = message
        self.pointer = pointer
        self.keyword = keyword
        where = pointer if pointer else "(root)"
        super().__init__(f"{message} at {where}")


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


class GoldenError(BrzozowskiError):
    """The golden masks file or its generation: a case that cannot be recorded, a bad argument."""


class GoldenMismatchError(GoldenError):
    """Our masks, completeness or tables differ from the golden file, or the file is not one."""
