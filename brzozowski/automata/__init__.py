"""Automata over terms: the lazy DFA, the canonical tables, class-coded transitions, leaf atoms, pictures.

Built on `brzozowski.core`; knows no tokenizer, mask or JSON.
"""
