"""Tuning: every threshold of the mask engine in one frozen object.

A threshold decides *how* a mask is computed (Python or numpy, which trie, a table or a walk),
never *what* it is: every mask is the same whatever the tuning (the brute-force tests run under
extreme tunings to show it). `TokenIndex(..., tuning=...)` takes one; tests that explore a
decision pass a `Tuning` rather than patching modules.

Fields marked *per vocabulary* size or shape tables that a vocabulary builds once and every
index over it shares: they are read from `DEFAULT_TUNING` by the preparer that builds them
(`brzozowski.json.masks.prepare_json_tables`), not from an index's tuning. Measurements behind the defaults:
``benchmarks/record/``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_TUNING", "Tuning"]


@dataclass(frozen=True)
class Tuning:
    """The thresholds of the mask engine (see the module docstring); each line says why its value."""

    # -- the trie walk (brzozowski.masks.walk) --------------------------------------------------
    dense_fraction: int = 8
    """A level is expanded densely when at least 1/this of the level above lives: a dense node costs a fraction of a sparse child."""
    small_level: int = 1024
    """Levels this small are always expanded densely: a handful of numpy calls, whatever lives."""
    small_trie: int = 1 << 16
    """Tries of at most this many nodes record liveness in one array from the start of a walk."""
    gather_fraction: int = 8
    """A walk's tokens come from one gather over the vocabulary once more than 1/this of it is allowed (else a scatter)."""
    python_frontier: int = 48
    """A walk stays in plain Python while a level has at most this many live nodes ..."""
    python_work: int = 4096
    """... and while it has looked at fewer children than this; then numpy takes over (a numpy call costs a thousand children in Python)."""
    few_tokens: int = 256
    """A walk that ends in Python with at most this many tokens lists their ids (no array over the vocabulary)."""
    class_trie_payoff: int = 32
    """Switch to the class-string trie once walks have looked at this many byte tries' worth of nodes (its build costs about thirty dense walks)."""
    class_trie_step_nodes: int = 64_000
    """... and build it over the walks that follow, this many byte-trie nodes at each (about the widest level: one level is the least a step can take, and each step stays near a walk's own cost)."""
    compress_below: float = 0.8
    """Walk the class-string trie only when it has at most this fraction of the byte trie's nodes."""
    compress_max_classes: int = 100
    """Patterns with more byte classes than this never try the class-string trie (little would merge)."""

    # -- a term's moves in the Python walk (brzozowski.masks.moves) -----------------------------
    few_children: int = 4
    """A term is derived by each child's byte (no derivative classes) at a node of at most this many children, or when it begins with at most this many bytes."""
    classes_per_child: int = 2
    """... or when its derivative classes outnumber the node's children this many times over."""
    few_inner: int = 16
    """Below a path, a term is derived by each live child's byte while at most this many have children of their own (then by class)."""
    wide_node_fraction: int = 8
    """Below a path, a node's allowed bytes are looked up among its children when fewer than 1/this of them."""
    few_pairs: int = 64
    """A state's moves list their live (byte, target) pairs when at most this many bytes live (each then found among a node's children)."""
    recent_derivatives: int = 64
    """The walks hold their last this many derivatives alive (memos are weak): the advance and the next mask derive them again."""
    index_memo_entries: int = 1 << 16
    """Each per-index memo (moves, recognized states, rests) holds at most this many entries, the first stored out first."""
    next_state_memo: int = 1 << 16
    """How many (state, token) -> next state answers an index remembers."""

    # -- token sets (brzozowski.masks.tokenset) -------------------------------------------------
    few_bits: int = 48
    """At most this many ids are set in a bitmask one by one in Python (a numpy scatter has a fixed cost, high on cooled caches)."""
    pack_fraction: int = 16
    """More ids than 1/this of the vocabulary are set in a bitmask through a bool array packed (else a scatter by byte)."""

    # -- JSON strategies (brzozowski.json.masks) ------------------------------------------------
    key_work: int = 20_000
    """The most children the key walk looks at in Python before it gives the state back to the usual walk."""
    max_paired: int = 64
    """The most automaton states `recognize` pairs with a JSON string's states before it gives up (each paired state is a state created)."""
    few_over_bound: int = 4096
    """The tokens over a string's character bound are listed and cleared one by one while at most this many (else one comparison over the vocabulary)."""
    wide_leaf_bytes: int = 32
    """Leaf states that at least this many first bytes continue are served by their string tables; narrower ones by their listed exits."""
    past_masks_bytes: int = 8 * 1024 * 1024
    """Per vocabulary: the memory of the cache of masks past a closing quote (one per set of live rests)."""
    count_bounds: int = 64
    """Per vocabulary: how many (string state, character bound) bitmasks are kept (schemas repeat a few maxLength values)."""
    counted_masks_bytes: int = 8 * 1024 * 1024
    """Per index, the counted strings' cache of twins' masks: entries per pattern state, which recurs at every count; as the past-the-quote masks' budget."""
    shared_pattern_states: int = 20_000
    """Shared by the indexes of one vocabulary and tuning: the automaton of the patterns met, whose passes over the trie every index shares (`brzozowski.json.masks.passes`), starts afresh past this many states. It bounds what the process keeps whatever schemas come and go (a table row is 1 KiB, the table's capacity at most twice its states), far above the tens of states one pattern's pass meets."""
    shared_pattern_bytes: int = 32 * 1024 * 1024
    """Shared likewise: the memory of the pattern passes (five bytes a token each: some thirty patterns over a 200,000-token vocabulary)."""
    counted_repeat_cap: int = 2
    """A counted string's pattern forgets its repeat counts over this many in the sandwich its masks are read from (`brzozowski.automata.sandwich`): a token seldom reads more repetitions of a word than this."""
    counted_checked_tokens: int = 128
    """A counted string's tokens within the pattern's completion bound of its length bound, and the tokens between a pattern's sandwich sides, are read one by one on the pattern's derivatives while at most this many (else in one pass of the pattern's automaton over the trie, or a walk, which costs as much as a few hundred)."""
    counted_exact_tokens: int = 64
    """... and those of them that end inside a character, on the state's own derivatives, while at most this many (each makes new terms)."""
    leaf_table_bytes: int = 32 * 1024 * 1024
    """Per vocabulary: the memory of the cache of leaf tables and exits."""
    python_tail_nodes: int = 32
    """Per vocabulary: a table's walk reads the levels below at most this many live nodes in Python (a few long tokens, many levels deep)."""
    dense_codes_fraction: int = 8
    """Per vocabulary: a table's walk codes a whole level when at least 1/this of it has a live parent."""
    prepared_depth: int = 2
    """Per vocabulary: a format's states within this many bytes of its start get their tables with the vocabulary."""
    prepared_narrow_states: int = 400
    """Per vocabulary: a narrow format with at most this many states gets every state's exits with the vocabulary (a document walks one per byte)."""
    prepared_narrow_tokens: int = 10_000
    """Per vocabulary: ... only for a vocabulary of at least this many tokens (a tokenizer's, built once; not a test's hand-made one)."""
    format_trie_live_bytes: int = 128
    """Per vocabulary: formats that this many bytes or more lead somewhere in get no class trie (it would be most of the byte trie)."""


DEFAULT_TUNING = Tuning()
