"""The search's learned prior: PUCT at the root over the softmax of the learned model.

What is guarded: the prior is the softmax of the very scores the ``learned`` kernel plays
by (computed from the observation only), PUCT visits the moves in the order the prior and
the values give, the strategy's model parameters are pinned and checked like
``learned``'s, and ``prior=none`` is the search without any model.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from test_learned import features_of, positions

import strategies
from haggis_sim import UNVERSIONED, StrategySpec
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.training.model_io import model_bytes
from strategies import ismcts
from strategies.base import InertParameterError, StrategyError
from strategies.builtin import ROLLOUT_MCTS, MctsStrategy
from strategies.learned_model import (
    MCTS_PRIOR_MODEL,
    MODELS_DIR,
    SHIPPED_MODELS,
    load_model,
)

#: the prior of the rollout search these tests pin (ROLLOUT_MCTS, the default before 2026-12):
#: a linear model, so its scores are features times weights
PRIOR_MODEL = MODELS_DIR / SHIPPED_MODELS["gen2"]
NO_Q = (np.zeros(3), np.zeros(3))  # no root move starts from a value estimate (qinit=0)


def root_plays(st: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The acting seat's observation and its legal plays and passes (no bets)."""
    obs = S.observe(st, st[L.S_TO_ACT])
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    n = int(S.legal_actions(obs, buf, False))
    return obs, buf[:n].copy()


def test_the_prior_is_the_softmax_of_the_learned_scores() -> None:
    """Same scores as the learned kernel's, restricted to the plays (bets are listed first
    by the model and searched separately), normalised."""
    model = load_model(PRIOR_MODEL)
    checked = 0
    for st in positions():
        obs, moves = root_plays(st)
        if len(moves) < 2:
            continue
        legal, f = features_of(st)
        scores = f @ model.weights[int(st[L.S_NP]) - 2]
        first = len(legal) - len(moves)
        assert np.array_equal(legal[first:], moves)
        want = np.exp(scores[first:] - scores[first:].max())
        want /= want.sum()
        got = ismcts.root_policy(obs, model.param_array(), moves)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        checked += 1
    assert checked >= 50


def test_the_prior_refuses_moves_that_are_not_the_positions_plays() -> None:
    model = load_model(PRIOR_MODEL).param_array()
    st = next(s for s in positions() if len(root_plays(s)[1]) >= 2)
    obs, moves = root_plays(st)
    with pytest.raises(ValueError, match="not the legal plays"):
        ismcts.root_policy(obs, model, moves[::-1].copy())
    with pytest.raises(ValueError, match="does not hold a model"):
        ismcts.root_policy(obs, model[:10].copy(), moves)


def test_puct_tries_the_likeliest_move_first_then_weighs_values() -> None:
    root_child = np.array([-1, -1, -1], dtype=np.int64)
    prior = np.array([0.2, 0.5, 0.3])
    visits = np.zeros(8)
    reward = np.zeros(8)
    assert ismcts._puct_pick(root_child, prior, visits, reward, 0.0, 0.7, *NO_Q) == 1
    # move 1 searched 4 times and lost every time: an unvisited move (valued at the
    # root's mean, 0) with prior 0.3 now scores more than it
    root_child[1] = 1
    visits[0], visits[1], reward[1] = 4.0, 4.0, 0.0
    assert ismcts._puct_pick(root_child, prior, visits, reward, 0.0, 0.7, *NO_Q) == 2
    # ... but had it won every time, against a root mean of 0.5, it would be searched again
    reward[1] = 4.0
    assert ismcts._puct_pick(root_child, prior, visits, reward, 2.0, 0.7, *NO_Q) == 1
    # an unvisited move is valued at the root's mean so far: with a mean of 1 it is tried
    assert ismcts._puct_pick(root_child, prior, visits, reward, 4.0, 0.7, *NO_Q) == 2
    # equal scores: the lowest index
    assert ismcts._puct_pick(np.full(2, -1, np.int64), np.array([0.5, 0.5]), np.zeros(3),
                             np.zeros(3), 0.0, 0.7, np.zeros(2), np.zeros(2)) == 0  # fmt: skip


def test_puct_starts_a_move_from_its_value_estimate() -> None:
    """qinit: a move with virtual visits is valued at its estimate while unvisited and
    blended with its searched rewards after, weighted by the visits."""
    root_child = np.array([-1, -1, -1], dtype=np.int64)
    prior = np.array([0.2, 0.5, 0.3])
    visits, reward = np.zeros(8), np.zeros(8)
    visits[0] = 4.0
    q0, n0 = np.array([0.9, 0.1, 0.0]), np.array([3.0, 3.0, 0.0])
    # unvisited: move 0 at its estimate 0.9 beats the prior's favourite at 0.1 and move 2
    # at the root's mean (0.5)
    assert ismcts._puct_pick(root_child, prior, visits, reward, 2.0, 0.7, *NO_Q) == 1
    assert ismcts._puct_pick(root_child, prior, visits, reward, 2.0, 0.7, q0, n0) == 0
    # move 0 searched twice, lost both: (0 + 3 * 0.9) / (2 + 3) = 0.54, against the
    # unvisited move 2 at the root's mean 0.5: 0.54 + 0.7 * 2 * 0.2 / 3 < 0.5 + 0.7 * 2 * 0.3
    root_child[0] = 1
    visits[1], reward[1] = 2.0, 0.0
    assert ismcts._puct_pick(root_child, prior, visits, reward, 2.0, 0.7, q0, n0) == 2
    # with 30 virtual visits the estimate outweighs the two losses: 27 / 32 + 0.09 > 0.92
    assert ismcts._puct_pick(root_child, prior, visits, reward, 2.0, 0.7, q0, n0 * 10) == 0


def test_one_iteration_searches_the_priors_favourite() -> None:
    """With one iteration the only root child is the prior's argmax; with prior=none it
    is the expansion order's pick, which differs somewhere."""
    learned = strategies.make("mcts:iters=1,value=game,model=gen2").param_array()
    plain = strategies.make("mcts:iters=1,prior=none,value=game").param_array()
    model = load_model(PRIOR_MODEL).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    out_moves, out_visits = np.empty(3, dtype=np.int64), np.empty(3)
    differ = checked = 0
    for i, st in enumerate(positions()):
        obs, moves = root_plays(st)
        if len(moves) < 2:
            continue
        favourite = moves[int(np.argmax(ismcts.root_policy(obs, model, moves)))]
        n = ismcts.search_root(obs, learned, new_stream(np.int64(i)), buf, False, out_moves,
                               out_visits)  # fmt: skip
        assert n == 1 and out_moves[0] == favourite
        ismcts.search_root(obs, plain, new_stream(np.int64(i)), buf, False, out_moves,
                           out_visits)  # fmt: skip
        differ += int(out_moves[0] != favourite)
        checked += 1
    assert checked >= 50 and differ > 0


def test_a_sure_prior_plays_its_favourite_and_an_unsure_one_searches() -> None:
    """sure=p: where the prior's favourite has at least p, the root is that move alone,
    with one visit and no random number drawn; elsewhere the search is sure=0's, visit
    for visit, from the same stream."""
    sure = strategies.make("mcts:iters=16,value=game,model=gen2,sure=0.6").param_array()
    plain = strategies.make("mcts:iters=16,value=game,model=gen2").param_array()
    model = load_model(PRIOR_MODEL).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    moves_a, visits_a = ismcts.root_buffers(plain)
    moves_b, visits_b = ismcts.root_buffers(plain)
    skipped = searched = 0
    for i, st in enumerate(positions()):
        obs, moves = root_plays(st)
        if len(moves) < 2:
            continue
        prior = ismcts.root_policy(obs, model, moves)
        rng = new_stream(np.int64(i))
        before = rng.copy()
        n = ismcts.search_root(obs, sure, rng, buf, False, moves_a, visits_a)
        if prior.max() >= 0.6:
            assert n == 1 and moves_a[0] == moves[int(np.argmax(prior))] and visits_a[0] == 1
            assert np.array_equal(rng, before)
            skipped += 1
        else:
            m = ismcts.search_root(obs, plain, new_stream(np.int64(i)), buf, False, moves_b,
                                   visits_b)  # fmt: skip
            assert n == m and visits_a[:n].sum() == 16
            assert np.array_equal(moves_a[:n], moves_b[:m])
            assert np.array_equal(visits_a[:n], visits_b[:m])
            searched += 1
    assert skipped >= 10 and searched >= 10


def test_the_budget_spreads_over_the_priors_moves() -> None:
    """Over 64 iterations the search visits more than one root move at most positions with
    a choice (a move with a prior near 1 that keeps winning may take them all), and the
    most visited has a prior among the larger ones (PUCT follows the prior)."""
    params = strategies.make(ROLLOUT_MCTS).param_array()
    model = load_model(PRIOR_MODEL).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    out_moves, out_visits = ismcts.root_buffers(params)
    spread = in_top = checked = 0
    for i, st in enumerate(positions()):
        obs, moves = root_plays(st)
        if len(moves) < 3:
            continue
        prior = ismcts.root_policy(obs, model, moves)
        n = ismcts.search_root(obs, params, new_stream(np.int64(i)), buf, False, out_moves,
                               out_visits)  # fmt: skip
        assert out_visits[:n].sum() == 64
        spread += int(n > 1)
        best = out_moves[int(np.argmax(out_visits[:n]))]
        rank = int((prior > prior[list(moves).index(best)]).sum())
        in_top += int(rank < 3)
        checked += 1
    assert checked >= 40
    assert spread >= 0.8 * checked
    assert in_top >= 0.8 * checked


def test_the_model_is_part_of_the_decision() -> None:
    """The kernel reads the weights after the named slots: other weights, other moves;
    an array without them is refused."""
    params = strategies.make("mcts:iters=16,value=game,model=gen2").param_array()
    flat = params.copy()
    assert flat[ismcts.VALUE_BASE] == 0  # no value model: the prior follows at once
    flat[ismcts.VALUE_BASE + 2 :] = 0.0  # every move equally likely
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    differ = 0
    for i, st in enumerate(positions(per_ruleset=6)):
        obs = S.observe(st, st[L.S_TO_ACT])
        a = ismcts.mcts_act(obs, params, new_stream(np.int64(i)), buf)
        b = ismcts.mcts_act(obs, flat, new_stream(np.int64(i)), buf)
        differ += int(a != b)
    assert differ > 0
    st = next(s for s in positions() if len(root_plays(s)[1]) >= 2)
    obs = S.observe(st, st[L.S_TO_ACT])
    with pytest.raises(ValueError, match="does not hold a model"):
        ismcts.mcts_act(obs, params[: ismcts.VALUE_BASE].copy(), new_stream(np.int64(1)), buf)


def test_the_strategy_pins_its_model_like_learned(tmp_path: Path) -> None:
    plain = strategies.make("mcts:prior=none,value=game")
    assert isinstance(plain, MctsStrategy) and plain.model is None
    assert len(plain.param_array()) == ismcts.VALUE_BASE
    assert strategies.make("mcts").values["model"] == MCTS_PRIOR_MODEL == "mix5"  # by name
    guided = strategies.make(ROLLOUT_MCTS)
    assert isinstance(guided, MctsStrategy) and guided.model is not None
    sha = guided.values["sha"]
    assert len(sha) == 16 and guided.values["model"] == "gen2"
    np.testing.assert_array_equal(
        ismcts.prior_params(guided.param_array()), load_model(PRIOR_MODEL).param_array()
    )
    # a copy: recorded resolved; a changed file: refused by the recorded sha
    copy = tmp_path / "m.npz"
    shutil.copy(PRIOR_MODEL, copy)
    spec = strategies.make(f"mcts:model={copy},value=game").spec
    assert f"model={copy.resolve()}" in spec and f"sha={sha}" in spec
    model = load_model(copy)
    copy.write_bytes(model_bytes(model.weights * 2.0, model.provenance))
    with pytest.raises(StrategyError, match="changed since"):
        strategies.make(spec)
    with pytest.raises(StrategyError, match="^mcts: cannot read model file"):
        strategies.make(f"mcts:model={tmp_path / 'missing.npz'}")
    for extra in (f"model={copy}", "sha=abc"):
        with pytest.raises(InertParameterError, match="prior=none"):
            strategies.make(f"mcts:prior=none,{extra}")


def test_the_train_commands_default_teacher_is_the_library_default() -> None:
    import inspect

    from haggis_sim.cli.train import train
    from haggis_sim.training.train import DEFAULT_GAMES, DEFAULT_TEACHER, HIDDEN, generate

    cli = inspect.signature(train).parameters
    assert cli["teacher"].default == DEFAULT_TEACHER
    assert inspect.signature(generate).parameters["teacher"].default == DEFAULT_TEACHER
    assert cli["hidden"].default == HIDDEN and int(cli["games"].default) == DEFAULT_GAMES
    assert cli["improve_iters"].default == 0  # stage 2 tunes linear models only
    # the default teacher is the rollout search, with the pinned gen2 prior
    assert (
        DEFAULT_TEACHER == ROLLOUT_MCTS
        and strategies.make(DEFAULT_TEACHER).values["model"] == "gen2"
    )


def test_the_shipped_models_form_the_chain_the_readme_states() -> None:
    """gen1 was taught by the search without a prior; gen2 by the search with gen1 as its
    prior (its teacher's spec pins gen1's SHA-256); gen3 (``default``, a hidden layer) by
    the rollout search, the default before 2026-12, whose prior is gen2 (pinned by name and
    SHA-256); ``model=gen1`` and ``model=gen2`` name those files, kept by name in the spec."""
    gen1 = load_model(MODELS_DIR / SHIPPED_MODELS["gen1"])
    gen2 = load_model(MODELS_DIR / SHIPPED_MODELS["gen2"])
    default = load_model(MODELS_DIR / SHIPPED_MODELS["gen3"])
    assert len({gen1.sha256, gen2.sha256, default.sha256}) == 3
    assert gen1.provenance["teacher"].startswith("mcts:iters=200,")
    assert "prior" not in gen1.provenance["teacher"]  # before the prior existed
    teacher = gen2.provenance["teacher"]
    assert "prior=learned" in teacher and teacher.endswith(f"sha={gen1.sha256[:16]}")
    assert gen1.hidden is None and gen2.hidden is None
    teacher = default.provenance["teacher"]
    # the rollout search (its spec has grown parameters since, at their neutral values)
    assert strategies.make(teacher).spec == strategies.make(ROLLOUT_MCTS).spec
    assert teacher.endswith(f"model=gen2,sha={gen2.sha256[:16]}")
    assert default.hidden is not None and default.provenance["hidden_units"] == 16
    for name, model in (("gen1", gen1), ("gen2", gen2)):
        strat = strategies.make(f"learned:model={name}")
        assert strat.values == {"model": name, "sha": model.sha256[:16]}


@pytest.mark.parametrize(
    ("name", "teacher_spec", "parent"),
    [
        # the mixed search (value model and rollouts at leaves, 256 iterations) over the
        # gen2 prior and the vgen1 value
        ("mix1", "mcts:value=net,mix=0.75,iters=256,model=gen2,qinit=0", "gen2"),
        # the search with mix1 as its prior, its leaves half vgen1 and half rollouts (64
        # iterations)
        ("mix2", "mcts:model=mix1,value=net,mix=0.5,iters=64,qinit=0", "mix1"),
        # the next generation: the same search with mix2 as its prior
        ("mix3", "mcts:model=mix2,value=net,mix=0.5,iters=64,qinit=0", "mix2"),
        # and the next: the search with mix3 as its prior, the root's moves started from
        # the value (qinit=3)
        ("mix4", "mcts:model=mix3,value=net,mix=0.5,iters=64,qinit=3", "mix3"),
        # the same search with mix4 as its prior
        ("mix5", "mcts:model=mix4,value=net,mix=0.5,iters=64,qinit=3", "mix4"),
        # the same search with mix5 as its prior
        ("mix6", "mcts:model=mix5,value=net,mix=0.5,iters=64,qinit=3", "mix5"),
    ],
)
def test_a_mixed_prior_names_its_teacher_and_plays_by_name(
    name: str, teacher_spec: str, parent: str
) -> None:
    """Each prior of the mixed line was taught by ``teacher_spec`` (written in full: the
    defaults moved since), whose
    spec pins its parent prior by SHA-256, so the chain of priors can be followed file
    by file; by name it is a ``learned`` model and mcts's prior (not a path), and it is
    not any other shipped file."""
    model = load_model(MODELS_DIR / SHIPPED_MODELS[name])
    parent_sha = load_model(MODELS_DIR / SHIPPED_MODELS[parent]).sha256
    others = {load_model(MODELS_DIR / f).sha256 for n, f in SHIPPED_MODELS.items() if n != name}
    assert model.sha256 not in others
    teacher = model.provenance["teacher"]
    recorded = strategies.make(StrategySpec.parse(teacher, UNVERSIONED))  # a provenance's
    assert recorded.spec == strategies.make(teacher_spec).spec
    assert f"model={parent},sha={parent_sha[:16]}" in teacher
    assert model.hidden is not None and model.provenance["hidden_units"] == 16
    assert model.provenance["seed"] == 3 and model.provenance["games"] == 2000
    assert strategies.make(f"learned:model={name}").values == {
        "model": name,
        "sha": model.sha256[:16],
    }
    guided = strategies.make(f"mcts:model={name}")
    assert guided.values["model"] == name and guided.values["sha"] == model.sha256[:16]
    np.testing.assert_array_equal(ismcts.prior_params(guided.param_array()), model.param_array())
