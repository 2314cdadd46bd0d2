"""The built-in strategies under changed bet points (the ``bet_points`` rule flag): whole
games play through with every bet at the rules' points, and the ``learned`` features and
the heuristic's bet choice read a bet's kind from its slot (Baby, Little, Big), not from
its published points."""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import record as R
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.runner.chunk import ChunkLogs, play_chunk
from strategies import CompiledStrategy
from strategies.learned_features import FEATURES, decision_features
from strategies.simple_kernels import bet_success_chance

POINTS = (5, 20, 40)  # Baby, Little, Big
BET = L.T_BET << L.TYPE_SHIFT


def _rules(preset: str) -> hs.Rules:
    return hs.Rules.preset(preset, players=3, bet_points=POINTS, target_score=120)


def _check_games(arr: np.ndarray, logs: ChunkLogs) -> None:
    """Replay every logged game through check_action: each action legal, each game ended
    as recorded."""
    for i in range(len(logs.games)):
        gid = int(logs.games[i, 0])
        st = S.init_state(arr)
        S.start_game(st, logs.deal_seeds[i])
        for row in logs.moves[logs.moves[:, R.MC_GAME] == gid]:
            if st[L.S_PHASE] == L.PH_ROUND_OVER:
                assert not S.next_round(st)
            code = R.pack_logged_action(*(int(row[c]) for c in (5, 6, 7, 8, 10, 11)))
            assert S.check_action(st, np.int64(code)) == 0, f"game {gid}: illegal {row}"
            S.apply_action(st, np.int64(code))
        assert st[L.S_PHASE] == L.PH_ROUND_OVER and S.next_round(st)
        assert st[L.S_WINNER] == logs.games[i, 1]


@pytest.mark.parametrize(
    ("spec", "preset"),
    [
        ("learned", "aid"),
        ("heuristic:bet=0.3,big=0.45,baby=0.2", "aid"),
        ("heuristic:bet=0.3,big=0.45,baby=0.2", "deluxe"),
        ("mcts:iters=12", "aid"),
        ("mcts:iters=12", "deluxe"),
    ],
)
def test_a_strategy_plays_whole_games_betting_the_rules_points(spec: str, preset: str) -> None:
    """Three seats of ``spec`` play whole games under bet points 5, 20, 40 (threshold: aid;
    takes_all: deluxe); every action is legal and every bet is at the rules' points."""
    arr = _rules(preset).to_array()
    made = [strategies.make(spec) for _ in range(3)]
    logs = play_chunk(arr, made, np.arange(3), 11, "rotate")
    assert len(logs.games) == 3 and (logs.games[:, 1] >= 0).all()
    _check_games(arr, logs)
    bets = logs.moves[logs.moves[:, R.MC_TYPE] == L.T_BET, R.MC_VALUE]
    assert len(bets) > 0 and set(bets.tolist()) <= set(POINTS)


def _first_decision(preset: str, game: int = 0) -> tuple[np.ndarray, int]:
    """The observation of the first seat to act in a fresh deal (it may bet) and its seat."""
    st = S.init_state(_rules(preset).to_array())
    S.start_game(st, np.int64(game))
    seat = int(st[L.S_TO_ACT])
    assert S.can_bet(st, seat)
    return S.observe(st, seat), seat


def test_the_learned_bet_features_name_a_bet_by_its_kind() -> None:
    """bet5, bet15 and bet30 are the Baby, Little and Big bets whatever their points, and
    each bet's chance feature is the success chance of its own points (threshold: aid)."""
    obs, seat = _first_decision("aid")
    codes = np.array([BET | v for v in POINTS], dtype=np.int64)
    feats = decision_features(obs, codes, len(codes))
    kinds = [FEATURES.index(f) for f in ("bet5", "bet15", "bet30")]
    chances = [FEATURES.index(f"{f}_x_chance") for f in ("bet5", "bet15", "bet30")]
    assert np.array_equal(feats[:, kinds], np.eye(3))
    expected = [bet_success_chance(obs, seat, v) for v in POINTS]
    assert np.allclose(feats[:, chances], np.diag(expected))
    assert expected[1] < bet_success_chance(obs, seat, 15)  # 20 points are harder to reach


def _heuristic(**thresholds: float) -> CompiledStrategy:
    spec = "heuristic:" + ",".join(f"{k}={v}" for k, v in thresholds.items())
    strat = strategies.make(spec)
    assert isinstance(strat, CompiledStrategy)
    return strat


@pytest.mark.parametrize("game", range(4))
def test_the_heuristic_weighs_each_bet_at_its_points(game: int) -> None:
    """Under threshold the heuristic's chance falls with a bet's points: with its Little
    threshold between the chance of 20 points and that of 15 it makes no Little bet (20
    points are what the rules' Little bet scores), just below the chance of 20 it bets 20."""
    obs, seat = _first_decision("aid", game)
    c15, c20 = bet_success_chance(obs, seat, 15), bet_success_chance(obs, seat, 20)
    assert c20 < c15
    rng = new_stream(np.int64(1))
    between = _heuristic(bet=(c15 + c20) / 2, big=1.01, baby=1.01)
    assert between.act_array(obs, rng) >> L.TYPE_SHIFT != L.T_BET
    below = _heuristic(bet=c20 * 0.999, big=1.01, baby=1.01)
    assert below.act_array(obs, rng) == BET | 20
    big = _heuristic(bet=1.01, big=0.0, baby=1.01)
    assert big.act_array(obs, rng) == BET | 40
    baby = _heuristic(bet=1.01, big=1.01, baby=0.0)
    assert baby.act_array(obs, rng) == BET | 5
