"""``mcts:value=net,mix=λ``: the leaf's reward is λ times the value model's estimate plus
1 - λ times a rollout valued as ``value=game`` (AlphaGo's mixed leaf evaluation). At
``mix=1`` (the default) no rollout is played: the search is ``value=net`` as it was
before ``mix`` existed (its rounds and moves are pinned in
``test_mcts_pinned_decisions.py``); at ``mix=0`` it is ``value=game``, decision for
decision. ``qinit`` (the root's likeliest moves start from the value model's estimate)
is tested here too: it only reads the estimate, so it lives beside the mixing, and so is
``horizon`` (the mixed rollout cut after that many moves and valued by the model where it
stopped)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from run_helpers import play_phase_states, played_run, table_digest

import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.kernel import apply_action
from strategies.base import InertParameterError
from strategies.ismcts import analyze_alternatives, root_policy, root_values
from strategies.ismcts_values import VALUE_GAME, VALUE_NET, rollout_reward, round_values
from strategies.learned_model import (
    MCTS_PRIOR_MODEL,
    MODELS_DIR,
    SHIPPED_MODELS,
    SHIPPED_VALUE_MODELS,
    load_model,
    load_value_model,
)
from strategies.simple_kernels import MCTS_QINIT_MOVES, greedy_rollout_act
from strategies.value_features import (
    N_VALUE_FEATURES,
    leaf_values,
    value_features,
    value_logit,
    value_scratch,
)


@pytest.mark.parametrize(("players", "mix"), [(2, 0.5), (3, 0.5), (3, 0.25), (2, 0.0)])
def test_a_mixed_leaf_is_the_weighted_estimate_and_rollout(players: int, mix: float) -> None:
    """At every fourth play-phase state of a game, as a leaf: mix x the value model's
    estimates (from the leaf) + (1 - mix) x the game values after a greedy rollout from it
    (same stream)."""
    vparams = load_value_model(MODELS_DIR / SHIPPED_VALUE_MODELS["vgen1"]).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    no_params = np.zeros(8)
    x = value_scratch(vparams)
    checked = 0
    for i, st in enumerate(play_phase_states("revised", players, 21)[::4]):
        net = np.zeros(3)
        leaf_values(st.copy(), vparams, x, net)
        rolled = np.zeros(3)
        rollout_reward(st.copy(), new_stream(np.int64(i)), buf, 1, VALUE_GAME, rolled,
                       no_params, vparams, x, 1.0, 0)  # fmt: skip
        mixed = np.zeros(3)
        leaf = st.copy()
        rollout_reward(leaf, new_stream(np.int64(i)), buf, 1, VALUE_NET, mixed,
                       no_params, vparams, x, mix, 0)  # fmt: skip
        want = mix * net[:players] + (1 - mix) * rolled[:players]
        assert mixed[:players] == pytest.approx(want, abs=1e-12)
        assert leaf[L.S_PHASE] == L.PH_ROUND_OVER  # the rollout was played on the leaf
        checked += 1
    assert checked > 10


def test_mix_one_plays_no_rollout() -> None:
    vparams = load_value_model(MODELS_DIR / SHIPPED_VALUE_MODELS["vgen1"]).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    x = value_scratch(vparams)
    st = play_phase_states("revised", 2, 22)[3]
    leaf = st.copy()
    out = np.zeros(3)
    rng = new_stream(np.int64(1))
    before = rng.copy()
    rollout_reward(leaf, rng, buf, 1, VALUE_NET, out, np.zeros(8), vparams, x, 1.0, 4)
    # no action applied (leaf_values may fill in the hand sizes) and no number drawn
    assert leaf[L.S_PHASE] == L.PH_PLAY and leaf[L.S_TURN_NO] == st[L.S_TURN_NO]
    assert np.array_equal(rng, before)
    want = np.zeros(3)
    leaf_values(st.copy(), vparams, x, want)
    assert np.array_equal(out, want)


@pytest.mark.parametrize(("players", "horizon"), [(2, 1), (2, 6), (3, 4)])
def test_a_cut_rollout_is_valued_by_the_model_where_it_stopped(players: int, horizon: int) -> None:
    """At every third play-phase state of a game, as a leaf with mix=0.5: half the value
    model's estimate at the leaf plus half, after at most ``horizon`` greedy rollout moves
    (same stream), the game value of the finished round or else the model's estimate
    where the rollout stopped. Both ends occur."""
    vparams = load_value_model(MODELS_DIR / SHIPPED_VALUE_MODELS["vgen1"]).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    no_params = np.zeros(8)
    x = value_scratch(vparams)
    ends = {"cut": 0, "over": 0}
    for i, st in enumerate(play_phase_states("revised", players, 23)[::3]):
        net = np.zeros(3)
        leaf_values(st.copy(), vparams, x, net)
        walk = st.copy()
        rng = new_stream(np.int64(i))
        for _ in range(horizon):
            if walk[L.S_PHASE] == L.PH_ROUND_OVER:
                break
            apply_action(walk, greedy_rollout_act(walk, no_params, rng, buf))
        end = np.zeros(3)
        if walk[L.S_PHASE] == L.PH_ROUND_OVER:
            round_values(walk, VALUE_GAME, end)
            ends["over"] += 1
        else:
            leaf_values(walk, vparams, x, end)
            ends["cut"] += 1
        got = np.zeros(3)
        rollout_reward(st.copy(), new_stream(np.int64(i)), buf, 1, VALUE_NET, got,
                       no_params, vparams, x, 0.5, horizon)  # fmt: skip
        assert got[:players] == pytest.approx(0.5 * net[:players] + 0.5 * end[:players], abs=1e-12)
    assert ends["cut"] > 3 and ends["over"] > 0, ends


def _moves_digest(spec: str, tmp: Path, players: int) -> str:
    """The moves table's golden digest of 2 games of ``spec`` against heuristic (and
    greedy), seats rotated."""
    run = tmp / f"{players}-{len(list(tmp.iterdir()))}"
    played_run(run, [spec, "heuristic", "greedy"][:players], 2, players, seed=31, chunk_size=2)
    return table_digest(run, "moves")


@pytest.mark.parametrize("players", [2, 3])
def test_mix_zero_decides_as_the_game_value(players: int, tmp_path: Path) -> None:
    """mix=0 weighs only the rollout: every logged move (bets included) is value=game's."""
    game = _moves_digest("mcts:iters=24,value=game", tmp_path, players)
    assert _moves_digest("mcts:iters=24,value=net,mix=0,qinit=0", tmp_path, players) == game
    assert _moves_digest("mcts:iters=24,value=net,mix=0.5,qinit=0", tmp_path, players) != game


def test_mix_without_the_net_value_is_refused_and_bounded() -> None:
    with pytest.raises(InertParameterError, match="value=net") as info:
        strategies.make("mcts:value=game,mix=0.5")
    assert "no value estimate to mix with rollouts" in str(info.value)
    with pytest.raises(strategies.StrategyError, match=r"mix must be in \[0.0, 1.0\]"):
        strategies.make("mcts:value=net,mix=1.5")
    assert strategies.make("mcts:value=net,mix=0.5").values["mix"] == 0.5


@pytest.mark.parametrize("players", [2, 3])
def test_a_horizon_longer_than_a_round_decides_as_none(players: int, tmp_path: Path) -> None:
    """No round lasts 1,000 moves: horizon=1000 rolls out to the end as horizon=0 does,
    decision for decision; horizon=4 cuts rollouts and moves logged decisions."""
    spec = "mcts:iters=24,value=net,mix=0.5,bets=never"  # the search's moves alone
    whole = _moves_digest(spec, tmp_path, players)
    assert _moves_digest(spec + ",horizon=1000", tmp_path, players) == whole
    assert _moves_digest(spec + ",horizon=4", tmp_path, players) != whole


def test_the_bet_scores_cut_their_rollouts_at_the_horizon() -> None:
    """analyze_alternatives (how bets are scored) takes the horizon too: at 1,000 its sums
    are those without one, at 2 they differ."""
    vparams = load_value_model(MODELS_DIR / SHIPPED_VALUE_MODELS["vgen1"]).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    st = play_phase_states("revised", 2, 24)[2]
    obs = S.observe(st, int(st[L.S_TO_ACT]))
    k = S.legal_actions(obs, buf, False)
    moves = buf[: min(k, 3)].copy()

    def sums(horizon: int) -> np.ndarray:
        return analyze_alternatives(obs, moves, 8, np.int64(5), 0.7, 1, VALUE_NET, buf,
                                    vparams, 0.5, np.int64(horizon))  # fmt: skip

    assert np.array_equal(sums(1000), sums(0))
    assert not np.array_equal(sums(2), sums(0))


def test_horizon_without_a_mixed_rollout_is_refused_and_bounded() -> None:
    with pytest.raises(InertParameterError, match="value=net") as info:
        strategies.make("mcts:value=game,horizon=8")
    assert "no value estimate to end a cut rollout with" in str(info.value)
    with pytest.raises(InertParameterError, match="mix=1"):
        strategies.make("mcts:value=net,mix=1,horizon=8")
    for bad in ("-1", "1001"):
        with pytest.raises(strategies.StrategyError, match=r"horizon must be in \[0, 1000\]"):
            strategies.make(f"mcts:value=net,mix=0.5,horizon={bad}")
    assert strategies.make("mcts:value=net,mix=0.5,horizon=8").values["horizon"] == 8


@pytest.mark.parametrize("players", [2, 3])
def test_qinit_plays_other_moves_than_the_search_without_it(players: int, tmp_path: Path) -> None:
    """qinit=3 moves logged decisions. (qinit=0, the default before 2026-12, plays as the
    search before the parameter existed: pinned by the value=net cases of
    test_mcts_pinned_decisions.)"""
    plain = _moves_digest("mcts:iters=24,value=net,mix=0.5,qinit=0", tmp_path, players)
    assert _moves_digest("mcts:iters=24,value=net,mix=0.5,qinit=3", tmp_path, players) != plain


def test_qinit_without_the_net_value_or_the_prior_is_refused_and_bounded() -> None:
    with pytest.raises(InertParameterError, match="value=net") as info:
        strategies.make("mcts:value=game,qinit=3")
    assert "no value estimate to start the root's moves with" in str(info.value)
    with pytest.raises(InertParameterError, match="prior=none"):
        strategies.make("mcts:value=net,prior=none,qinit=3")
    with pytest.raises(strategies.StrategyError, match=r"qinit must be in \[0.0, 1000.0\]"):
        strategies.make("mcts:value=net,qinit=-1")
    assert strategies.make("mcts:value=net,qinit=3").values["qinit"] == 3.0


@pytest.mark.parametrize("players", [2, 3])
def test_qinit_values_the_likeliest_moves_by_the_searchers_own_features(players: int) -> None:
    """root_values scores the MCTS_QINIT_MOVES moves of highest prior, each by the sigmoid
    of the network over the searcher's own features after the move (the finished round's
    game value where the move ends it), and no other move."""
    vparams = load_value_model(MODELS_DIR / SHIPPED_VALUE_MODELS["vgen1"]).param_array()
    prior_model = load_model(MODELS_DIR / SHIPPED_MODELS[MCTS_PRIOR_MODEL]).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    x = value_scratch(vparams)
    wide = checked = 0
    for st in play_phase_states("revised", players, 23)[:40]:
        seat = int(st[L.S_TO_ACT])
        obs = S.observe(st, seat)
        moves = buf[: S.legal_actions(obs, buf, False)].copy()
        prior = root_policy(obs, prior_model, moves)
        out = np.zeros(len(moves))
        deal, after = np.empty_like(obs), np.empty_like(obs)
        scored = root_values(obs, moves, prior, vparams, x, new_stream(np.int64(5)),
                             np.empty(45, np.int64), deal, after, out)  # fmt: skip
        top = np.sort(prior)[::-1][:MCTS_QINIT_MOVES]
        assert set(np.flatnonzero(scored)) == set(np.flatnonzero(prior >= top[-1]))
        wide += len(moves) > MCTS_QINIT_MOVES
        for i in np.flatnonzero(scored):
            nxt = deal.copy()
            S.apply_action(nxt, moves[i])
            if nxt[L.S_PHASE] == L.PH_ROUND_OVER:
                continue
            mine = S.observe(nxt, seat)  # what the searcher sees after its move
            f = np.zeros(N_VALUE_FEATURES)
            value_features(mine, seat, f)
            want = 1.0 / (1.0 + np.exp(-value_logit(f, vparams, players)))
            assert out[i] == pytest.approx(want, rel=1e-12), (i, moves[i])
            checked += 1
    assert checked >= 100 and wide >= 3, (checked, wide)
