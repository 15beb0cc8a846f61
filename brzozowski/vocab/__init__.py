"""Tokenizer vocabularies as byte strings, and the per-vocabulary trie the masks walk.

`tokenizers` turns a tokenizer (GPT-2 byte map, Hugging Face, tiktoken, SentencePiece) into
``list[bytes | None]``; `vocabulary` builds the shared trie. Knows no automaton and no JSON.
"""

