"""Every error class is raised where its docstring says, by the public entry points, with a message
that names the problem; and no module raises the bare base class."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from brzozowski import DEAD, DFA, LazyDFA, TokenIndex, compile_json_schema, errors, parse, regex_to_dfa
from brzozowski.cli import main
from brzozowski.demo import tasks_for
from brzozowski.errors import (
    ArgumentError,
    BrzozowskiError,
    EmptyLanguageError,
    InputFileError,
    ModelError,
    StateError,
    TableError,
)
from brzozowski.runtime.llama import load_model, logits_processor

from .corpus import HAND, HAND_EOS, HAND_VOCAB

PACKAGE = Path(__file__).resolve().parent.parent / "brzozowski"


def test_no_module_raises_the_bare_base_class():
    raising = [f"{path.relative_to(PACKAGE)}:{n}" for path in sorted(PACKAGE.rglob("*.py"))
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"raise BrzozowskiError\b", line)]
    assert raising == []


def test_every_error_class_is_a_value_error_with_a_docstring():
    classes = [c for c in vars(errors).values() if inspect.isclass(c) and issubclass(c, BrzozowskiError)]
    assert len(classes) >= 17
    for cls in classes:
        assert issubclass(cls, ValueError) and cls.__doc__ and len(cls.__doc__) > 40, cls


@pytest.mark.parametrize("automaton", [regex_to_dfa(HAND), LazyDFA(HAND)],
                         ids=["DFA", "LazyDFA"])
def test_a_missing_state_is_a_state_error_in_every_automaton_and_in_the_index(automaton):
    for ask in (lambda: automaton.row(99), lambda: automaton.is_accepting(99),
                lambda: automaton.step(99, b"c")):
        with pytest.raises(StateError, match=r"state 99 does not exist \(states 0\.\."):
            ask()
    index = TokenIndex(automaton, HAND_VOCAB, eos_id=HAND_EOS)
    with pytest.raises(StateError, match="state 99 does not exist"):
        index.mask(99)
    with pytest.raises(StateError, match="state -1 is DEAD"):
        index.bitmask(DEAD)


def test_an_empty_language_is_an_empty_language_error():
    a_and_not_a = parse("aa*") & ~parse("a+")  # one language twice: no smart constructor sees it
    with pytest.raises(EmptyLanguageError, match=r"the term aa\*&~a\+ has an empty language"):
        LazyDFA(a_and_not_a)
    with pytest.raises(EmptyLanguageError, match="has an empty language"):
        regex_to_dfa(a_and_not_a)


def test_canonical_tables_of_an_empty_language_are_an_empty_language_error():
    from brzozowski.automata.dfa import canonical

    with pytest.raises(EmptyLanguageError, match="the language is empty: no state accepts"):
        canonical(np.array([False, False]), np.zeros((2, 256), dtype=np.int32))


def test_tables_of_the_wrong_shape_or_range_are_a_table_error():
    with pytest.raises(TableError, match=r"accept must be a non-empty 1-D bool array, not shape \(0,\)"):
        DFA(np.zeros(0, dtype=bool), np.zeros((0, 256), dtype=np.int32))
    with pytest.raises(TableError, match=r"trans must have shape \(1, 256\) to match accept, not \(1, 255\)"):
        DFA(np.array([True]), np.zeros((1, 255), dtype=np.int32))
    with pytest.raises(TableError, match=r"trans entries must lie in -1\.\.0"):
        DFA(np.array([True]), np.full((1, 256), -2, dtype=np.int32))


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda: LazyDFA("a", max_states=0), "max_states must be at least 1, not 0"),
        (lambda: LazyDFA("a", max_alternatives=-3), "max_alternatives must be at least 1, not -3"),
        (lambda: compile_json_schema({}, unknown_keywords="warn"),
         "unknown_keywords must be 'refuse' or 'ignore', not 'warn'"),
        (lambda: compile_json_schema({}, max_depth=-1), "max_depth must be a non-negative integer, not -1"),
        (lambda: compile_json_schema({}, separators=(";", ":")), "separators must be (item, key)"),
        (lambda: tasks_for(1, schema={}, regex="a"), "give a schema or a regex, not both"),
        (lambda: logits_processor(object()), "needs exactly one of schema= or regex="),
    ],
)
def test_an_argument_out_of_range_is_an_argument_error(call, says):
    with pytest.raises(ArgumentError, match=re.escape(says)):
        call()


def test_an_unreadable_schema_file_is_an_input_file_error(tmp_path, capsys):
    from brzozowski.cli import _read_schema

    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(InputFileError, match=r"the schema file '.*broken\.json' is not JSON"):
        _read_schema(str(tmp_path / "broken.json"))
    with pytest.raises(InputFileError, match=r"cannot read the schema file '.*missing\.json'"):
        _read_schema(str(tmp_path / "missing.json"))
    assert main(["schema", str(tmp_path / "broken.json")]) == 2
    assert "is not JSON" in capsys.readouterr().err


def test_a_missing_model_file_is_a_model_error():
    with pytest.raises(ModelError, match="no model file at '/no/such.gguf'"):
        load_model("/no/such.gguf")
