"""The RL baseline: its gradient is the policy's, training is fixed by its seed, bad
settings are refused, and what it learns plays in the runner as a ``learned`` model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import haggis_sim as hs  # noqa: E402
from haggis_sim.runner.tournament import tournament  # noqa: E402
from haggis_sim.training.model_io import save_model  # noqa: E402
from haggis_sim.training.rl_baseline import (  # noqa: E402
    BaselineSettings,
    log_policy_gradient,
    policy,
    train_baseline,
)


def test_the_gradient_is_that_of_the_log_policy() -> None:
    rng = np.random.default_rng(0)
    features = rng.normal(size=(7, 5))
    weights = rng.normal(size=5)
    for chosen in range(7):
        grad = log_policy_gradient(features, weights, chosen)
        numeric = np.empty(5)
        for j in range(5):
            step = np.zeros(5)
            step[j] = 1e-6
            up = np.log(policy(features, weights + step)[chosen])
            down = np.log(policy(features, weights - step)[chosen])
            numeric[j] = (up - down) / 2e-6
        assert np.allclose(grad, numeric, atol=1e-6)
    assert policy(features, weights).sum() == pytest.approx(1.0)


def test_training_is_fixed_by_its_seed() -> None:
    runs = [train_baseline(BaselineSettings(games=48, batch=16, seed=s)) for s in (3, 3, 4)]
    assert np.array_equal(runs[0].weights, runs[1].weights)
    assert [p.wins for p in runs[0].curve] == [p.wins for p in runs[1].curve]
    assert not np.array_equal(runs[0].weights, runs[2].weights)
    assert [p.games for p in runs[0].curve] == [16, 32, 48]
    assert np.array_equal(runs[0].weights[0], runs[0].weights[1])  # 3p reads the 2p row


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (BaselineSettings(games=0), "games must be"),
        (BaselineSettings(games=10, batch=11), "batch must be"),
        (BaselineSettings(opponents=()), "at least one"),
        (BaselineSettings(learning_rate=0.0), "learning_rate"),
        (BaselineSettings(opponents=("nobody",)), "nobody"),
    ],
)
def test_bad_settings_are_refused_before_playing(settings: BaselineSettings, words: str) -> None:
    with pytest.raises(hs.InputError, match=words):
        train_baseline(settings)


@pytest.mark.slow
def test_a_trained_baseline_beats_greedy_as_a_learned_model_in_the_runner(tmp_path: Path) -> None:
    """2,560 games against greedy and random: its policy, written as a learned model and
    played by the runner against greedy on deals it never trained on, wins far more often
    than the untrained policy (all weights zero: the first legal action)."""
    trained = train_baseline(BaselineSettings(games=2560, opponents=("greedy", "random"), seed=5))
    rates = []
    for name, weights in (("zero", np.zeros_like(trained.weights)), ("trained", trained.weights)):
        path = tmp_path / f"{name}.npz"
        save_model(path, weights, {"test": name})
        spec = f"learned:model={path}"
        with tournament([spec, "greedy"], games=200, seed=1, moves=False, jobs=1) as run:
            rates.append(int((run.games["winner_entry"] == 0).sum()) / 200)
    assert rates[1] > rates[0] + 0.3, rates
