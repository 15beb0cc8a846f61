"""The derivative oracle: which tokens may come next, from Brzozowski derivatives on strings only.

This is the small reference a port reads. It uses the regex term and derivatives and nothing else:
no DFA tables, no vocabulary trie, no minimization, no `TokenIndex`. After the text w, with β(t)
the bytes of token t (the mask rule of docs/semantics.md)::

    t is allowed   iff  ∂_{w·β(t)} r is not dead   (t neither special nor empty)
    EOS is allowed iff  ∂_w r is nullable            ("the text so far is complete")

A derivative is *dead* when no string continues it; `is_dead` is the one place that decides it.

Because terms are interned and derivatives memoized on them, the oracle walks w once, keeps
∂_w r, takes ``derivative_of_string(∂_w r, β(t))`` per token (prefixes shared through the memo: the
oracle keeps every derivative it computed alive, as memos refer to them weakly), and remembers the
answer per term: two texts with the same derivative have the same mask.

Invariant: the masks depend on the term, the vocabulary and the EOS id alone.

The hand example of docs/semantics.md (ids 0-14, EOS 13 a special token, token 14 empty):

>>> vocab = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]
>>> oracle = Oracle("(cat|car|dog)s?", vocab, eos_id=13)
>>> oracle.mask_after(b""), oracle.mask_after(b"ca"), oracle.mask_after(b"cats")
([0, 4, 8, 9, 10], [2, 3, 11], [13])

Reference: J. Brzozowski, "Derivatives of regular expressions", J. ACM 11(4), 1964.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.derivatives import derivative_of_string
from ..errors import InputTypeError, VocabularyError
from ..automata.lazy import bytes_argument, is_empty
from ..core.syntax import parse
from ..core.terms import EMPTY, Term

__all__ = ["Oracle", "is_dead"]


def is_dead(term: Term) -> bool:
    """Whether no string continues `term`: its language is empty.

    Without intersection or complement a derivative that cannot match anything is the term ∅ and
    this is an identity test; with them, `brzozowski.automata.lazy.is_empty` searches the derivatives.
    """
    return is_empty(term)


class Oracle:
    """Masks of one vocabulary after any text, from the derivatives of one term.

    `pattern`: a `Term`, or a pattern (parsed with `brzozowski.core.syntax.parse`). `vocab`: token id ->
    bytes, or None for a special token (never allowed, nor is an empty token). `eos_id`: the
    end-of-sequence token, allowed exactly when the text so far is in the language. Arguments of
    the wrong type raise `InputTypeError` naming them.
    """

    def __init__(self, pattern: str | bytes | Term, vocab: Sequence[bytes | None],
                 eos_id: int | None = None) -> None:
        self.term = pattern if isinstance(pattern, Term) else parse(pattern)
        if isinstance(vocab, (str, bytes)) or not isinstance(vocab, Sequence):
            raise InputTypeError(f"vocab must be a sequence of token bytes, not {type(vocab).__name__}: {vocab!r:.60}")
        self.vocab = list(vocab)
        for t, data in enumerate(self.vocab):
            if data is not None and not isinstance(data, bytes):
                raise InputTypeError(f"vocab[{t}] must be bytes or None, not {type(data).__name__}: {data!r:.40}")
        if eos_id is not None and (isinstance(eos_id, bool) or not isinstance(eos_id, int)):
            raise InputTypeError(f"eos_id must be an int or None, not {type(eos_id).__name__}: {eos_id!r:.40}")
        if eos_id is not None and not 0 <= eos_id < len(self.vocab):
            raise VocabularyError(f"eos_id {eos_id} is outside the vocabulary (0..{len(self.vocab) - 1})")
        self.eos_id = eos_id
        # the tokens that can ever be allowed: not EOS, not special, not empty
        self._candidates = [
            (t, data) for t, data in enumerate(self.vocab) if t != eos_id and data
        ]
        self._memo: dict[Term, tuple[tuple[int, ...], dict[int, Term]]] = {}
        self._derived: list[Term] = []  # every derivative computed: alive, so memoized

    def after(self, text: bytes) -> Term:
        """∂_text r: what may follow `text` (bytes; dead when nothing may)."""
        return derivative_of_string(self.term, bytes_argument(text, "text"), self._derived)

    def _entry(self, d: Term) -> tuple[tuple[int, ...], dict[int, Term]]:
        if not isinstance(d, Term):
            raise InputTypeError(f"d must be a Term (a derivative, from `after`), not {type(d).__name__}: {d!r:.40}")
        entry = self._memo.get(d)
        if entry is None:
            successors: dict[int, Term] = {}
            if not is_dead(d):
                for t, data in self._candidates:
                    nxt = derivative_of_string(d, data, self._derived)
                    if not is_dead(nxt):
                        successors[t] = nxt
            allowed = list(successors)
            if self.eos_id is not None and d.nullable:
                allowed.append(self.eos_id)
            entry = (tuple(sorted(allowed)), successors)
            self._memo[d] = entry
        return entry

    def allowed(self, d: Term) -> tuple[int, ...]:
        """The sorted ids allowed when the text so far has the derivative `d` (EOS included)."""
        return self._entry(d)[0]

    def successors(self, d: Term) -> dict[int, Term]:
        """Every allowed non-EOS token -> ∂_{β(t)} d (never dead)."""
        return self._entry(d)[1]

    def advance(self, d: Term, token_id: int) -> Term:
        """The derivative after `token_id`; a dead term if the token is not allowed after `d`.

        EOS leaves the text (so the derivative) unchanged when allowed."""
        if token_id == self.eos_id:
            return d if d.nullable else EMPTY
        return self.successors(d).get(token_id, EMPTY)

    def mask_after(self, text: bytes) -> list[int]:
        """The sorted allowed ids after `text`."""
        return list(self.allowed(self.after(text)))
