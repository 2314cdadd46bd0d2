"""mcts plays for the game (game_values) and chooses bets by their value under the rules."""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
import strategies
from haggis_sim import kernel as K
from strategies import ismcts
from strategies.analysis import analyze


def _finished(preset: str, players: int, totals: tuple[int, ...], round_scores: tuple[int, ...],
              rounds_done: int = 0, **rule: object) -> np.ndarray:  # fmt: skip
    """A finished round's state, made part of a game with the given totals before it."""
    rules = hs.Rules.preset(preset, players=players)
    if rule:
        rules = rules.with_flags(**rule)
    hands = ["5a", "9a 9b"] if players == 2 else ["5a", "9a 9b", "7a 7b"]
    rnd = hs.Round(rules, hands=hands, leader=0)
    rnd.play(0, "5a")  # seat 0 goes out (with 2 players the round is over)
    assert rnd.over or players == 3  # game_values reads only the scores and the rules
    st = rnd.state_array.copy()
    st[K.S_GAME] = 1
    st[K.S_ROUND_NO] = rounds_done
    for s in range(players):
        st[K.S_SCORE + s] = totals[s]
        st[K.S_SC_TOTAL + s] = round_scores[s]
    return st


def _values(st: np.ndarray) -> list[float]:
    out = np.zeros(3)
    ismcts.game_values(st, out)
    return [float(x) for x in out[: int(st[K.S_NP])]]


def test_the_game_decided_by_the_round_is_worth_one_or_zero() -> None:
    assert _values(_finished("revised", 2, (240, 200), (20, 0))) == [1.0, 0.0]
    assert _values(_finished("revised", 2, (240, 250), (20, 0))) == [1.0, 0.0]  # 260 > 250
    assert _values(_finished("revised", 2, (240, 245), (10, 5))) == [0.5, 0.5]  # tied: play on
    assert _values(_finished("revised", 3, (100, 260, 50), (0, 0, 0))) == [0.0, 1.0, 0.0]


def test_equal_totals_are_even_and_values_sum_to_one() -> None:
    assert _values(_finished("revised", 2, (100, 100), (10, 10))) == pytest.approx([0.5, 0.5])
    three = _values(_finished("revised", 3, (30, 90, 60), (5, 0, 10)))
    assert sum(three) == pytest.approx(1.0)
    assert three[1] > three[2] > three[0]


def test_a_lead_is_worth_more_near_the_target() -> None:
    early = _values(_finished("revised", 2, (0, 0), (30, 0)))[0]
    late = _values(_finished("revised", 2, (200, 200), (30, 0)))[0]
    assert 0.5 < early < late < 1.0
    # the round margin's value ignores the totals: the same at both points of the game
    out_early, out_late = np.zeros(3), np.zeros(3)
    ismcts.round_values(_finished("revised", 2, (0, 0), (30, 0)), ismcts.VALUE_ROUND, out_early)
    ismcts.round_values(_finished("revised", 2, (200, 200), (30, 0)), ismcts.VALUE_ROUND, out_late)
    assert out_early[0] == out_late[0] == pytest.approx(0.5 + 0.5 * np.tanh(0.5))


def test_fixed_round_count_ends_after_the_last_round() -> None:
    kwargs = {"game_end": "rounds", "rounds": 6}
    last = _finished("revised", 2, (90, 100), (20, 0), rounds_done=5, **kwargs)
    assert _values(last) == [1.0, 0.0]
    before_last = _finished("revised", 2, (90, 100), (20, 0), rounds_done=4, **kwargs)
    assert 0.5 < _values(before_last)[0] < 1.0


def test_a_lone_round_is_valued_by_its_margin() -> None:
    st = _finished("revised", 2, (0, 0), (30, 0))
    st[K.S_GAME] = 0
    out = np.zeros(3)
    ismcts.round_values(st, ismcts.VALUE_GAME, out)
    assert out[0] == pytest.approx(0.5 + 0.5 * np.tanh(0.5))


def _bet_decision(preset: str, spec: str = "mcts:iters=120") -> str:
    """Seat 0 holds Ta Tb and leads: the pair cannot be beaten, so it goes out first."""
    rnd = hs.Round(hs.Rules.preset(preset, players=2), hands=["Ta Tb", "5b 7c"], leader=0)
    strat = strategies.make(spec)
    assert isinstance(strat, strategies.CompiledStrategy)
    code = strat.act_array(rnd.observation(0).array, K.new_stream(np.int64(3)))
    return str(hs.position.action_from_code(0, code))


def test_a_sure_shepherd_bets_the_most_when_going_out_first_wins_the_bet() -> None:
    assert _bet_decision("revised") == "seat 0 bets 30"  # takes_all
    assert _bet_decision("deluxe") == "seat 0 bets 30"  # takes_all with Baby bets


def test_under_the_threshold_rule_the_bet_is_sized_to_the_points_it_can_reach() -> None:
    # aid: a bet succeeds only if the bettor's going-out and card points reach its value.
    # Seat 0 goes out first in every deal; what it scores besides bets lies between 15
    # and 30 (checked below), so Little succeeds and Big would fail (paying the opponent
    # too): the same hand that bets 30 under takes_all bets 15 here.
    rnd = hs.Round(hs.Rules.preset("aid", players=2), hands=["Ta Tb", "5b 7c"], leader=0)
    (none,) = analyze(rnd, [rnd.legal_actions()[-1]], samples=30, value="round")
    assert none.margin_stderr == 0 and 15 <= none.margin < 30  # the opponent scores 0
    assert _bet_decision("aid") == "seat 0 bets 15"


def test_bets_never_does_not_bet() -> None:
    assert _bet_decision("revised", "mcts:iters=120,bets=never").startswith("seat 0 plays")
