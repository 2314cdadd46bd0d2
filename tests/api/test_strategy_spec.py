"""The strategy spec record: one parser for every spec text, a written form that reads
back as the same record, and one clear error for each way a spec cannot be read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import strategies
from haggis_sim import SPEC_VERSION, InputError, SpecError, StrategySpec

_word = st.text("abcdefghijklmnopqrstuvwxyz_0123456789.", min_size=1, max_size=8)


@given(
    name=_word,
    params=st.dictionaries(_word, st.text("abc0123456789.-/;", max_size=6), max_size=5),
    version=st.integers(1, SPEC_VERSION),
)
def test_the_written_form_reads_back_as_the_same_record(
    name: str, params: dict[str, str], version: int
) -> None:
    spec = StrategySpec(name, tuple(params.items()), version)
    again = StrategySpec.parse(spec.text, version)
    assert again == spec and str(again) == spec.text
    assert again.values() == params and again.name == name


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty strategy name in ''"),
        (":iters=3", "empty strategy name"),
        ("mcts:iters", "strategy parameters are k=v, got 'iters'"),
        ("mcts:=3", "strategy parameters are k=v, got '=3'"),
        ("mcts:iters=3,iters=4", "parameter 'iters' given twice"),
    ],
)
def test_an_unreadable_spec_is_one_specific_error(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as caught:
        StrategySpec.parse(text)
    assert isinstance(caught.value, InputError) and "\n" not in str(caught.value)
    with pytest.raises(strategies.StrategyError, match=message):
        strategies.make(text)


def test_the_record_and_its_text_make_the_same_strategy() -> None:
    text = "heuristic:bet=0.45,bomb=never"
    assert strategies.make(StrategySpec.parse(text)).spec == strategies.make(text).spec
    assert StrategySpec.parse(" heuristic : bet = 0.45 ").values() == {"bet": "0.45"}
    assert StrategySpec.parse("greedy").with_params({"x": "1"}).text == "greedy:x=1"
