"""The leaf value's data and fit: positions of the teacher's self-play, each with the
acting seat's reward at the end of its round, and the network that estimates that reward
(:mod:`strategies.value_features`; ``haggis-sim train-value``).

Game ``g`` is fixed by the seed and ``g`` alone (rules: the ``g``-th (preset, players)
pair; every seat the teacher; deal and streams from ``SeedSequence([seed, g])``), so the
data does not depend on how many processes made it. At every decision of every seat it
records that seat's value features (from its own observation) and, once the round is
over, the seat's reward for the round as the search scores a finished round
(``round_values`` with the game value): the network learns what a rollout would measure,
under the teacher's play rather than a greedy rollout's. Games with ``g % 5 == 4`` are
held out of the fit and measure it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.selfplay import play_out
from strategies import StrategyError, kernels
from strategies.learned_model import Hidden
from strategies.value_features import N_VALUE_FEATURES

from .environment import fit_threads
from .positions import BATCH, check_teacher, combos
from .tasks import in_order
from .value_rows import ValueRecorder, ValueRows

VALUE_UNITS = 16  # hidden tanh units of haggis-sim train-value's default value model
VALUE_L2 = 1e-4  # L2 penalty of the value fit
VALUE_MAXITER = 400  # L-BFGS iterations of the value fit


def value_game(g: int, seed: int, teacher: str) -> ValueRows:
    """Play value game ``g`` (the teacher in every seat) and return its rows."""
    pairs = combos()
    preset, players = pairs[g % len(pairs)]
    ss = np.random.SeedSequence([seed & (2**64 - 1), g])
    words = ss.generate_state(6, np.uint64).astype(np.int64)
    teach = check_teacher(teacher)
    sid = teach.compiled_id
    assert sid is not None  # check_teacher: a compiled strategy, so it names its kernel
    params = teach.param_array()
    streams = [K.new_stream(words[1 + s]) for s in range(players)]
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    rec = ValueRecorder(g, players)

    def choose(seat: int, obs: np.ndarray) -> int:
        rec.decision(seat, obs)
        return int(kernels.act(sid, obs, params, streams[seat], buf))

    play_out(hs.Rules.preset(preset, players=players).to_array(), words[0], choose,
             rec.round_over)  # fmt: skip
    return rec.rows()


def _batch(games: list[int], seed: int, teacher: str) -> list[ValueRows]:
    return [value_game(g, seed, teacher) for g in games]


def generate_values(
    games: int,
    seed: int,
    teacher: str,
    jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
) -> ValueRows:
    """Play ``games`` value games (in ``jobs`` processes) and put their rows together in
    game order: the result does not depend on ``jobs``."""
    check_teacher(teacher)
    batches = [list(range(i, min(i + BATCH, games))) for i in range(0, games, BATCH)]
    parts: list[ValueRows] = []
    for batch in in_order(_batch, [(b, seed, teacher) for b in batches], jobs):
        parts.extend(batch)
        if on_progress:
            on_progress(len(parts), games)
    if not parts or not any(len(p.target) for p in parts):
        raise StrategyError("the value games recorded no decisions: play more games (--games)")
    return ValueRows.joined(parts)


def _unpack(p: np.ndarray, f: int, units: int) -> tuple[np.ndarray, ...]:
    """Linear weights (f), hidden weights (f x units), biases and output weights."""
    k = f * units
    return p[:f], p[f : f + k].reshape(f, units), p[f + k : f + k + units], p[f + k + units :]


def fit_value(
    rows: ValueRows,
    units: int,
    seed: int,
    l2: float = VALUE_L2,
    maxiter: int = VALUE_MAXITER,
) -> tuple[np.ndarray, Hidden, dict[str, object]]:
    """The value model: per player count, score = x . w + v . tanh(x @ W + b) and the
    estimated reward its sigmoid, fitted to the round-end rewards of the training games
    (soft targets in [0, 1]) by L-BFGS on the cross-entropy with an L2 penalty, from
    small weights drawn from ``seed``: deterministic for the data. Returns the linear
    weights (2, features), the hidden layer and the fit's figures (held-out mean squared
    error of the estimate, and of the training mean, per player count)."""
    from scipy.optimize import minimize

    f = N_VALUE_FEATURES
    ws, whs, bhs, vs = [], [], [], []
    info: dict[str, object] = {"units": units, "l2": l2, "maxiter": maxiter}
    holdout = rows.holdout
    for n in (2, 3):
        sel = (rows.players == n) & ~holdout
        x = rows.features[sel].astype(np.float64)
        y = rows.target[sel].astype(np.float64)
        m = max(1, len(y))

        def loss(
            p: np.ndarray, x: np.ndarray = x, y: np.ndarray = y, m: int = m
        ) -> tuple[float, npt.NDArray[np.float64]]:
            w, wh, b, v = _unpack(p, f, units)
            h = np.tanh(x @ wh + b)
            q = 1.0 / (1.0 + np.exp(-(x @ w + h @ v)))
            eps = 1e-12
            ce = -np.sum(y * np.log(q + eps) + (1.0 - y) * np.log(1.0 - q + eps)) / m
            g = (q - y) / m
            ga = (g[:, None] * v[None, :]) * (1.0 - h * h)
            grad = np.concatenate((x.T @ g, (x.T @ ga).ravel(), ga.sum(axis=0), h.T @ g))
            return float(ce + 0.5 * l2 * p @ p), grad + l2 * p

        rng = np.random.default_rng([seed & (2**64 - 1), n])
        p0 = np.concatenate((np.zeros(f), 0.1 * rng.standard_normal(f * units),
                             np.zeros(units), 0.1 * rng.standard_normal(units)))  # fmt: skip
        if len(y):
            with fit_threads():
                p0 = minimize(loss, p0, jac=True, method="L-BFGS-B",
                              options={"maxiter": maxiter}).x  # fmt: skip
        w, wh, b, v = _unpack(p0, f, units)
        ws.append(w)
        whs.append(wh)
        bhs.append(b)
        vs.append(v)
        info[f"train_rows_{n}p"] = int(sel.sum())
        ho = (rows.players == n) & holdout
        info[f"holdout_rows_{n}p"] = int(ho.sum())
        if ho.any() and len(y):
            xh = rows.features[ho].astype(np.float64)
            yh = rows.target[ho].astype(np.float64)
            q = 1.0 / (1.0 + np.exp(-(xh @ w + np.tanh(xh @ wh + b) @ v)))
            info[f"holdout_mse_{n}p"] = round(float(np.mean((q - yh) ** 2)), 5)
            info[f"holdout_mse_mean_{n}p"] = round(float(np.mean((y.mean() - yh) ** 2)), 5)
    hidden = Hidden(np.stack(whs), np.stack(bhs), np.stack(vs))
    return np.stack(ws), hidden, info
