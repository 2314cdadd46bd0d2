"""A reinforcement-learning baseline: a softmax policy over the legal actions, learned by
policy gradient in the Gymnasium environment against a pool of opponents.

The policy scores each legal action by a linear function of its decision features (the
``decision`` block of :func:`haggis_sim.env.legal.action_features`, which are the
``learned`` strategy's :data:`~strategies.learned_features.FEATURES`) and samples from
the softmax of the scores while it learns. Its weights are written as a ``learned``
model file (:mod:`haggis_sim.training.model_io`), so the trained policy plays in
``haggis-sim run`` as ``learned:model=FILE``, which plays the highest score (the
policy's most likely action). Nothing is imitated: the weights start at zero (the
uniformly random policy) and move only by the rewards of the games played. The features
include the default heuristic's choice, so following it is one of the things the policy
can learn.

Training is REINFORCE with a baseline: after each game the log-probability gradients of
the agent's actions are weighted by the game's return less the running mean return
against that opponent, summed over a batch of games and applied with Adam. The return
is the final score margin (the agent's game points less the opponent's, in hundreds): a
dense signal, where the win/loss reward gives a policy that starts uniformly random no
signal against any opponent it never beats. Every
random choice flows from the seed: the games are game ids ``0, 1, ...`` of run seed
``seed``, the opponent of each game and the agent's samples are drawn from a generator
seeded with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from strategies.learned_features import N_FEATURES

from ..errors import InputError

#: the opponents a baseline learns against by default (each game draws one)
DEFAULT_OPPONENTS = ("random", "greedy", "heuristic")


@dataclass(frozen=True)
class BaselineSettings:
    """What a baseline training plays: ``games`` 2-player games of ``preset`` against
    opponents drawn from ``opponents``, updated every ``batch`` games at step size
    ``learning_rate``; ``seed`` fixes everything."""

    games: int = 6000
    opponents: tuple[str, ...] = DEFAULT_OPPONENTS
    preset: str = "revised"
    seed: int = 0
    batch: int = 32
    learning_rate: float = 0.02

    def check(self) -> None:
        """InputError, before anything is played, for settings that cannot train."""
        if not isinstance(self.games, int) or not 1 <= self.games <= 10_000_000:
            raise InputError(f"games must be an integer 1..10,000,000, got {self.games!r}")
        if not isinstance(self.batch, int) or not 1 <= self.batch <= self.games:
            raise InputError(f"batch must be an integer 1..games, got {self.batch!r}")
        if not self.opponents:
            raise InputError("opponents must name at least one strategy")
        if not 0.0 < self.learning_rate <= 1.0:
            raise InputError(f"learning_rate must be in (0, 1], got {self.learning_rate!r}")


@dataclass(frozen=True)
class TrainingPoint:
    """The policy's results over one batch of training games (sampled play)."""

    games: int  # games played so far
    wins: dict[str, tuple[int, int]]  # per opponent: (games won, games) in this batch
    seconds: float  # since training began


@dataclass
class Baseline:
    """A trained baseline: its weights (2-player row and 3-player row, the latter a copy:
    it learns 2-player games only) and the curve of its training."""

    weights: np.ndarray
    curve: list[TrainingPoint] = field(default_factory=list)


class _Adam:
    """Adam's update for gradient ascent on one weight vector."""

    def __init__(self, size: int, rate: float) -> None:
        self.rate = rate
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def step(self, weights: np.ndarray, grad: np.ndarray) -> None:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad * grad
        m_hat = self.m / (1 - 0.9**self.t)
        v_hat = self.v / (1 - 0.999**self.t)
        weights += self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


def policy(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The softmax probabilities of the legal actions whose decision features are the
    rows of ``features``.

    >>> policy(np.array([[1.0, 0.0], [0.0, 1.0]]), np.zeros(2)).tolist()
    [0.5, 0.5]
    """
    scores = features @ weights
    scores -= scores.max()
    p = np.exp(scores)
    out: np.ndarray = p / p.sum()
    return out


def log_policy_gradient(
    features: np.ndarray, weights: np.ndarray, chosen: int, p: np.ndarray | None = None
) -> np.ndarray:
    """The gradient of log pi(chosen) with respect to ``weights``: the chosen row less the
    policy's mean row (``p``: the policy's probabilities, when already computed)."""
    if p is None:
        p = policy(features, weights)
    out: np.ndarray = features[chosen] - p @ features
    return out


def train_baseline(
    settings: BaselineSettings,
    progress: Callable[[TrainingPoint], None] | None = None,
) -> Baseline:
    """Train a baseline as ``settings`` say; ``progress`` is called after every batch."""
    from haggis_sim.env import HaggisGymEnv
    from haggis_sim.env import legal as LG

    settings.check()
    decision = sum(size for _, size, _ in LG.feature_fields()[:-1])
    envs = {
        name: HaggisGymEnv(opponents=[name], players=2, preset=settings.preset)
        for name in settings.opponents
    }
    rng = np.random.default_rng(settings.seed)
    weights = np.zeros(N_FEATURES)
    adam = _Adam(N_FEATURES, settings.learning_rate)
    baseline = dict.fromkeys(settings.opponents, 0.0)
    seen = dict.fromkeys(settings.opponents, 0)
    result = Baseline(weights=np.zeros((2, N_FEATURES)))
    start = time.perf_counter()
    grad = np.zeros(N_FEATURES)
    wins: dict[str, list[int]] = {name: [0, 0] for name in settings.opponents}
    for game in range(settings.games):
        name = settings.opponents[int(rng.integers(len(settings.opponents)))]
        env = envs[name]
        env.reset(seed=settings.seed, options={"game_id": game})
        game_grad = np.zeros(N_FEATURES)
        done = False
        while not done:
            features = env.legal_action_features()[:, decision:].astype(np.float64)
            p = policy(features, weights)
            chosen = int(rng.choice(len(p), p=p))
            game_grad += log_policy_gradient(features, weights, chosen, p)
            _, _, done, _, info = env.step(chosen)
        seen[name] += 1
        margin = (info["scores"][0] - info["scores"][1]) / 100.0
        advantage = margin - baseline[name]
        baseline[name] += (margin - baseline[name]) / min(seen[name], 100)
        grad += advantage * game_grad
        wins[name][0] += int(info["winner"] == 0)
        wins[name][1] += 1
        if (game + 1) % settings.batch == 0 or game + 1 == settings.games:
            adam.step(weights, grad / settings.batch)
            grad[:] = 0.0
            point = TrainingPoint(
                games=game + 1,
                wins={k: (w, n) for k, (w, n) in wins.items()},
                seconds=time.perf_counter() - start,
            )
            result.curve.append(point)
            wins = {k: [0, 0] for k in settings.opponents}
            if progress is not None:
                progress(point)
    result.weights = np.stack([weights, weights])
    return result
