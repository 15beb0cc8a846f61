"""JSON's mask strategies and per-vocabulary tables, plugged into the generic mask core.

Importing this package (``brzozowski.json`` does) registers, once per process:

- `json_strategies` with `brzozowski.masks.index.register_strategies`: every `TokenIndex` built
  afterwards tries, after the core's own, in this order: ``words``, ``counted strings``, ``named
  keys``, ``leaves``, ``strings``, ``keys``, ``opening``, ``literals``, ``options`` (each module's
  docstring states its claim; the order puts the strategies that need no derivative of the state
  first, and the exclusive ``words`` before all);
- `prepare_json_tables` with `brzozowski.vocab.vocabulary.register_preparer`: every `Vocabulary`
  built afterwards builds the JSON tables (strings, plain keys, formats, numerals) with its trie.

Rule: the mask core (`brzozowski.masks`) and the vocabulary layer import nothing from here; this
package reaches them only through those two registries.
"""

from __future__ import annotations

from ...masks.index import register_strategies
from ...masks.walk import Walker
from ...vocab.vocabulary import VocabTrie, register_preparer
from ..leaf_masks import prepare_leaves
from ..string_masks import build_all_tables
from .counted import CountedStrings
from .keys import KeyWalk, NamedKeys
from .leaves import Leaves, Options
from .past import PastTheQuote
from .strings import Opening, Strings
from .words import Literals, Words

__all__ = ["json_strategies", "prepare_json_tables"]


def json_strategies(walker: Walker) -> tuple:
    """The JSON strategies of one index (its `Walker`), wired to share their pieces, in dispatch order."""
    past = PastTheQuote(walker)
    literals = Literals(walker)
    leaves = Leaves(walker, past)
    strings = Strings(walker, past)
    options = Options(walker, leaves)
    return (Words(walker, literals), CountedStrings(walker, leaves), NamedKeys(walker, past), leaves, strings,
            KeyWalk(walker, past), Opening(walker, strings, options), literals, options)


def prepare_json_tables(trie: VocabTrie) -> None:
    """The JSON tables of a vocabulary, built with it (see `build_all_tables`, `prepare_leaves`)."""
    build_all_tables(trie)
    prepare_leaves(trie)


register_strategies(json_strategies)
register_preparer(prepare_json_tables)
