"""The learned leaf value of ``mcts:value=net``: its features see one seat's information
only, its network computes what the model file says, the fit learns a planted relation,
its data and gate do not depend on processes, and the strategy binds its model as the
prior's is bound."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_helpers import invoke, one_line_error
from run_helpers import play_phase_states

import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.training.gate import match
from haggis_sim.training.model_io import save_model
from haggis_sim.training.value_data import ValueRows, fit_value, generate_values
from haggis_sim.training.value_train import candidate_spec
from strategies import StrategyError, ismcts
from strategies.base import InertParameterError
from strategies.learned_model import (
    MODELS_DIR,
    SHIPPED_VALUE_MODELS,
    Hidden,
    load_model,
    load_value_model,
    param_row,
)
from strategies.value_features import (
    N_VALUE_FEATURES,
    VALUE_FEATURES,
    leaf_values,
    value_features,
    value_logit,
    value_scratch,
)

SHIPPED_VALUE = MODELS_DIR / SHIPPED_VALUE_MODELS["vgen1"]


@pytest.mark.parametrize(("preset", "players"), [("revised", 2), ("classic", 3), ("deluxe", 3)])
def test_features_of_a_state_are_the_features_of_the_seats_observation(
    preset: str, players: int
) -> None:
    """leaf_values reads a determinized state directly (no observation is made): the
    features it computes for a seat equal those of that seat's observation, which hides
    the other hands and the Haggis, so the value of a seat depends on what it sees only.
    Checked for every seat of every play-phase state of a whole game."""
    x_state = np.empty(N_VALUE_FEATURES)
    x_obs = np.empty(N_VALUE_FEATURES)
    states = play_phase_states(preset, players, 7)
    checked = 0
    for st in states:
        full = st.copy()
        for s in range(players):
            full[L.S_SIZE + s] = bin(int(full[L.S_HAND + s])).count("1")
        for seat in range(players):
            value_features(full, seat, x_state)
            value_features(S.observe(st, seat), seat, x_obs)
            assert np.array_equal(x_state, x_obs), (preset, players, seat)
            checked += 1
    assert checked > 50
    assert np.ptp(x_obs) > 0


def test_leaf_values_are_each_seats_network_value_normalised() -> None:
    """Every seat's leaf value is the sigmoid of value_logit over that seat's features,
    normalised over the seats (a distribution), whatever the scratch held before; a
    scratch shorter than value_scratch's is refused rather than written past."""
    model = load_value_model(SHIPPED_VALUE)
    params = model.param_array()
    scratch = value_scratch(params)
    assert scratch.shape == (N_VALUE_FEATURES + 16,)
    x = np.empty(N_VALUE_FEATURES)
    out = np.zeros(3)
    for players in (2, 3):
        for st in play_phase_states("revised", players, 3)[::5]:
            scratch[:] = np.nan
            leaf_values(st.copy(), params, scratch, out)
            full = st.copy()
            for s in range(players):
                full[L.S_SIZE + s] = bin(int(full[L.S_HAND + s])).count("1")
            want = np.empty(players)
            for s in range(players):
                value_features(full, s, x)
                want[s] = 1.0 / (1.0 + np.exp(-value_logit(x, params, players)))
            assert np.allclose(out[:players], want / want.sum(), rtol=1e-14, atol=0.0)
            assert np.all(out[:players] > 0) and abs(out[:players].sum() - 1.0) < 1e-12
    with pytest.raises(ValueError, match="scratch"):
        leaf_values(st.copy(), params, np.empty(N_VALUE_FEATURES), out)


def test_value_logit_is_the_model_files_network() -> None:
    """value_logit over the kernel array equals x . w + v . tanh(x @ W + b) computed by
    numpy from the arrays the file holds, per player count, for features of either sign
    and features that are 0."""
    model = load_value_model(SHIPPED_VALUE)
    assert model.hidden is not None
    params = model.param_array()
    rng = np.random.default_rng(5)
    for players in (2, 3):
        r = players - 2
        for _ in range(20):
            # signed features, about half of them 0 (the kernel skips those)
            x = rng.standard_normal(N_VALUE_FEATURES) * (rng.random(N_VALUE_FEATURES) < 0.5)
            want = (
                x @ model.weights[r]
                + np.tanh(x @ model.hidden.weights[r] + model.hidden.bias[r])
                @ model.hidden.output[r]
            )
            assert value_logit(x, params, players) == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.slow  # two fits
def test_fit_learns_a_planted_relation_and_is_deterministic() -> None:
    """Targets made from two features through a known logistic curve: the fit's held-out
    error is a small fraction of the mean's; refitting gives bit-identical weights."""
    rng = np.random.default_rng(1)
    n = 6000
    x = rng.random((n, N_VALUE_FEATURES)).astype(np.float32)
    x[:, 0] = 1.0
    logit = 3.0 * x[:, 5] - 2.0 * x[:, 10] - 0.3
    y = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
    rows = ValueRows(x, y, np.where(np.arange(n) % 2 == 0, 2, 3), np.arange(n) // 3)
    w, hidden, info = fit_value(rows, 4, seed=3, maxiter=200)
    for p in (2, 3):
        assert info[f"holdout_mse_{p}p"] < 0.05 * info[f"holdout_mse_mean_{p}p"], info
    w2, hidden2, _ = fit_value(rows, 4, seed=3, maxiter=200)
    assert np.array_equal(w, w2) and np.array_equal(hidden.weights, hidden2.weights)


def test_value_data_does_not_depend_on_processes() -> None:
    one = generate_values(6, 17, "greedy", jobs=1)
    two = generate_values(6, 17, "greedy", jobs=2)
    for k in ("features", "target", "players", "game"):
        assert np.array_equal(getattr(one, k), getattr(two, k)), k
    assert set(one.players.tolist()) == {2, 3}
    assert np.all((one.target >= 0) & (one.target <= 1)) and np.ptp(one.target) > 0


def test_gate_games_do_not_depend_on_processes_and_separate_strength() -> None:
    """The same match split over two processes counts the same wins; heuristic against
    random is promoted, random against heuristic is not, and an A/A match is not."""
    a = match("heuristic", "random", 40, 2, seed=4, jobs=1)
    b = match("heuristic", "random", 40, 2, seed=4, jobs=2)
    assert (a.wins, a.games) == (b.wins, b.games) and a.games >= 40
    assert a.promoted
    assert not match("random", "heuristic", 40, 2, seed=4).promoted
    assert not match("greedy", "greedy", 60, 3, seed=4).promoted
    # an even pair, so another split of other games would count other wins
    even = [match("random:bet=0.5", "random", 120, 2, seed=4, jobs=j) for j in (1, 2)]
    assert even[0].wins == even[1].wins and 0 < even[0].wins < even[0].games


def test_the_gate_promotes_on_the_interval_not_the_rate() -> None:
    """55 wins of 100 is above chance but its 95% interval is not: a tie, not promoted;
    65 of 100 is; with 3 players the bar is one in three."""
    from haggis_sim.training.gate import MatchResult

    assert not MatchResult("a", "b", 2, 100, 55).promoted
    assert MatchResult("a", "b", 2, 100, 65).promoted
    assert not MatchResult("a", "b", 3, 300, 110).promoted  # 36.7% [31.4, 42.3]
    assert MatchResult("a", "b", 3, 300, 125).promoted


def test_value_net_search_binds_and_pins_its_model() -> None:
    strat = strategies.make("mcts:iters=8,value=net")
    assert strat.values["vmodel"] == "vgen1"
    assert strat.values["vsha"] == load_value_model(SHIPPED_VALUE).sha256[:16]
    params = strat.param_array()
    vals = ismcts.value_params(params)
    assert np.array_equal(vals, load_value_model(SHIPPED_VALUE).param_array())
    prior = ismcts.prior_params(params)
    rollout = strategies.make("mcts:value=game").param_array()  # the same prior, no value model
    assert np.array_equal(prior, rollout[ismcts.VALUE_BASE + 1 :])
    with pytest.raises(StrategyError, match="SHA-256"):
        strategies.make("mcts:value=net,vsha=0000000000000000")


@pytest.mark.parametrize(
    "spec",
    ["mcts:value=game,vmodel=vgen1x", "mcts:value=round,vsha=abc", "mcts:value=game,vmodel=x.npz"],
)
def test_value_model_settings_without_value_net_are_refused(spec: str) -> None:
    with pytest.raises(InertParameterError, match="value=net"):
        strategies.make(spec)


def test_a_policy_model_is_not_a_value_model_nor_the_reverse(tmp_path: Path) -> None:
    policy = MODELS_DIR / "learned-gen2.npz"
    with pytest.raises(StrategyError, match="other features"):
        strategies.make(f"mcts:value=net,vmodel={policy}")
    with pytest.raises(StrategyError, match="other features"):
        load_model(SHIPPED_VALUE)
    # a value model over the first features only is read, the others weighted 0
    short = tmp_path / "short.npz"
    f = 10
    save_model(
        short,
        np.ones((2, f)),
        {"kind": "value"},
        hidden=Hidden(np.zeros((2, f, 2)), np.zeros((2, 2)), np.zeros((2, 2))),
        features=VALUE_FEATURES[:f],
    )
    m = load_value_model(short)
    assert m.weights.shape == (2, N_VALUE_FEATURES) and not m.weights[:, f:].any()
    assert param_row(m.weights, m.hidden)[0] == N_VALUE_FEATURES


def test_the_gate_plays_the_teachers_settings_with_the_value() -> None:
    spec = candidate_spec("mcts:iters=32,c=0.5", Path("/tmp/v.npz"))
    made = strategies.make(spec.replace("/tmp/v.npz", "vgen1"))
    assert made.values["iters"] == 32 and made.values["c"] == 0.5
    assert made.values["value"] == "net"
    with pytest.raises(StrategyError, match="mcts spec"):
        candidate_spec("heuristic", Path("/tmp/v.npz"))


def test_train_value_cli_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "v.npz"
    res = invoke("train-value", "--out", str(out), "--games", "x")
    assert res.exit_code == 2
    one_line_error(res, "--games")
    res = invoke("train-value", "--out", str(out), "--gate-games", "-3")
    assert res.exit_code == 2
    one_line_error(res, "--gate-games")
    res = invoke("train-value", "--out", str(out), "--teacher", "heuristic", "-n", "5")
    assert res.exit_code == 2
    one_line_error(res, "mcts spec")
    out.write_bytes(b"mine")
    res = invoke("train-value", "--out", str(out), "-n", "5")
    assert res.exit_code == 2
    one_line_error(res, "--force")
    assert out.read_bytes() == b"mine"
    assert not list(tmp_path.glob("*.tmp*"))


@pytest.mark.slow  # trains a network on thousands of positions
def test_training_a_value_model_is_reproducible(tmp_path: Path) -> None:
    """Two trainings with the same seed write bit-identical weights (the provenance's date
    aside), with the gate's result recorded; another seed gives other weights."""
    from dataclasses import replace

    from haggis_sim.training.environment import numeric_environment
    from haggis_sim.training.settings import ValueFit
    from haggis_sim.training.value_train import train_value

    fit = ValueFit(games=10, seed=5, teacher="mcts:iters=4", units=3, gate_games=6)
    train_value(tmp_path / "a.npz", fit)
    train_value(tmp_path / "b.npz", fit)
    train_value(tmp_path / "c.npz", replace(fit, seed=6))
    # the gate's copy of each model is gone: only the three models are left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npz", "b.npz", "c.npz"]
    a, b, c = (load_value_model(tmp_path / f"{k}.npz") for k in "abc")
    assert a.hidden is not None and b.hidden is not None and c.hidden is not None
    assert np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.hidden.weights, b.hidden.weights)
    assert not np.array_equal(a.weights, c.weights)
    # what else a reproduction must match: the libraries and the BLAS kernels of the fit
    assert a.provenance["environment"] == numeric_environment()
    gates = a.provenance["gate"]
    assert [g["players"] for g in gates] == [2, 3]
    assert [g["wins"] for g in gates] == [g["wins"] for g in b.provenance["gate"]]
    assert all(g["games"] >= 6 and 0 <= g["wins"] <= g["games"] for g in gates)


def test_the_shipped_value_model_records_how_it_was_made() -> None:
    model = load_value_model(SHIPPED_VALUE)
    p = model.provenance
    assert p["kind"] == "value" and p["games"] >= 1000 and p["hidden_units"] == 16
    assert p["teacher"].startswith("mcts:iters=64,") and "value=game" in p["teacher"]
    for n in (2, 3):  # the fit explains a good part of the round-end reward
        assert p["fit"][f"holdout_mse_{n}p"] < 0.7 * p["fit"][f"holdout_mse_mean_{n}p"]
    assert {g["players"] for g in p["gate"]} == {2, 3}


@pytest.mark.slow  # trains a network on thousands of positions
def test_the_hidden_layer_learns_what_a_linear_score_cannot() -> None:
    """A planted interaction of two features (no linear part): the fitted network's
    held-out error is a small fraction of the mean's, which only the hidden layer and
    its gradient can achieve."""
    rng = np.random.default_rng(2)
    n = 8000
    x = rng.random((n, N_VALUE_FEATURES)).astype(np.float32)
    x[:, 0] = 1.0
    logit = 24.0 * (x[:, 5] - 0.5) * (x[:, 10] - 0.5)
    y = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
    rows = ValueRows(x, y, np.where(np.arange(n) % 2 == 0, 2, 3), np.arange(n) // 3)
    _, _, info = fit_value(rows, 8, seed=3, maxiter=300)
    for p in (2, 3):
        assert info[f"holdout_mse_{p}p"] < 0.2 * info[f"holdout_mse_mean_{p}p"], info
