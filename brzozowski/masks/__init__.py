"""Token masks: which tokens of a vocabulary may come next in each state of an automaton.

The generic core; it knows no JSON. Read in this order: `index` (the mask rule, `TokenIndex` and
its strategy dispatch), `walk` (the trie walk every mask can fall back on), `moves` (how the walk
in Python expands a node), `tokenset` (every bit operation), `tuning` (every threshold), `cache`
(the one bounded cache). JSON's strategies live in `brzozowski.json.masks` and register here.
"""
