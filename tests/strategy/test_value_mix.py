"""``mcts:value=net,mix=λ``: the leaf's reward is λ times the value model's estimate plus
1 - λ times a rollout valued as ``value=game`` (AlphaGo's mixed leaf evaluation). At
``mix=1`` (the default) no rollout is played: the search is ``value=net`` as it was
before ``mix`` existed (its rounds and moves are pinned in
``test_mcts_pinned_decisions.py``); at ``mix=0`` it is ``value=game``, decision for
decision. ``qinit`` (the root's likeliest moves start from the value model's estimate)
is tested here too: it only reads the estimate, so it lives beside the mixing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from run_helpers import play_phase_states, played_run, table_digest

import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from strategies.base import InertParameterError
from strategies.ismcts import root_policy, root_values
from strategies.ismcts_values import VALUE_GAME, VALUE_NET, rollout_reward
from strategies.learned_model import (
    MCTS_PRIOR_MODEL,
    MODELS_DIR,
    SHIPPED_MODELS,
    SHIPPED_VALUE_MODELS,
    load_model,
    load_value_model,
)
from strategies.simple_kernels import MCTS_QINIT_MOVES
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
                       no_params, vparams, x, 1.0)  # fmt: skip
        mixed = np.zeros(3)
        leaf = st.copy()
        rollout_reward(leaf, new_stream(np.int64(i)), buf, 1, VALUE_NET, mixed,
                       no_params, vparams, x, mix)  # fmt: skip
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
    rollout_reward(leaf, rng, buf, 1, VALUE_NET, out, np.zeros(8), vparams, x, 1.0)
    # no action applied (leaf_values may fill in the hand sizes) and no number drawn
    assert leaf[L.S_PHASE] == L.PH_PLAY and leaf[L.S_TURN_NO] == st[L.S_TURN_NO]
    assert np.array_equal(rng, before)
    want = np.zeros(3)
    leaf_values(st.copy(), vparams, x, want)
    assert np.array_equal(out, want)


def _moves_digest(spec: str, tmp: Path, players: int) -> str:
    """The moves table's golden digest of 2 games of ``spec`` against heuristic (and
    greedy), seats rotated."""
    run = tmp / f"{players}-{len(list(tmp.iterdir()))}"
    played_run(run, [spec, "heuristic", "greedy"][:players], 2, players, seed=31, chunk_size=2)
    return table_digest(run, "moves")


@pytest.mark.parametrize("players", [2, 3])
def test_mix_zero_decides_as_the_game_value(players: int, tmp_path: Path) -> None:
    """mix=0 weighs only the rollout: every logged move (bets included) is value=game's."""
    game = _moves_digest("mcts:iters=24", tmp_path, players)
    assert _moves_digest("mcts:iters=24,value=net,mix=0", tmp_path, players) == game
    assert _moves_digest("mcts:iters=24,value=net,mix=0.5", tmp_path, players) != game


def test_mix_without_the_net_value_is_refused_and_bounded() -> None:
    with pytest.raises(InertParameterError, match="value=net") as info:
        strategies.make("mcts:mix=0.5")
    assert "no value estimate to mix with rollouts" in str(info.value)
    with pytest.raises(strategies.StrategyError, match=r"mix must be in \[0.0, 1.0\]"):
        strategies.make("mcts:value=net,mix=1.5")
    assert strategies.make("mcts:value=net,mix=0.5").values["mix"] == 0.5


@pytest.mark.parametrize("players", [2, 3])
def test_qinit_plays_other_moves_than_the_search_without_it(players: int, tmp_path: Path) -> None:
    """qinit=3 moves logged decisions. (qinit=0 is the default, the very spec without it;
    that it plays as the search before the parameter existed is pinned by the value=net
    cases of test_mcts_pinned_decisions.)"""
    plain = _moves_digest("mcts:iters=24,value=net,mix=0.5", tmp_path, players)
    assert _moves_digest("mcts:iters=24,value=net,mix=0.5,qinit=3", tmp_path, players) != plain


def test_qinit_without_the_net_value_or_the_prior_is_refused_and_bounded() -> None:
    with pytest.raises(InertParameterError, match="value=net") as info:
        strategies.make("mcts:qinit=3")
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
