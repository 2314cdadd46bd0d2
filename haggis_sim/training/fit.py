"""Stage 1's fits: a conditional logit over each decision's actions, linear or with a
hidden layer of tanh units, and the numpy scores of such a model.

Both minimise the cross-entropy to the targets (visit shares or the chosen action) with
an L2 penalty by scipy's L-BFGS with the analytic gradient: deterministic for the data
(the hidden fit's starting weights are drawn from the seed) in a given numerical
environment (:mod:`haggis_sim.training.environment`; BLAS threads fixed while fitting).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from strategies.learned_model import Hidden

from .environment import fit_threads
from .metrics import groups

L2 = 1e-3
L2_HIDDEN = 1e-4
HIDDEN_MAXITER = 400
PLAYER_COUNTS = (2, 3)  # a model holds one row of weights per player count


def fit(
    x: np.ndarray, decision: np.ndarray, target: np.ndarray, l2: float = L2
) -> tuple[np.ndarray, dict[str, Any]]:
    """Weights of a conditional logit over each decision's rows, with L2 penalty ``l2``.

    ``target`` holds each row's share of its decision (summing to 1 per decision: the
    search's visit shares, or 1 on the chosen row). Loss: mean over decisions of the
    cross-entropy -sum target x log softmax + l2/2 |w|^2, minimised by L-BFGS-B with its
    analytic gradient from zero weights.
    """
    from scipy.optimize import minimize

    x = np.ascontiguousarray(x, dtype=np.float64)
    starts, idx = groups(decision)
    n_dec = len(starts)
    y = target.astype(np.float64)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = x @ w
        m = np.maximum.reduceat(s, starts)
        e = np.exp(s - m[idx])
        z = np.add.reduceat(e, starts)
        ll = float(np.sum(s * y) - np.sum(m) - np.sum(np.log(z)))
        p = e / z[idx]
        grad = x.T @ (p - y) / n_dec + l2 * w
        return -ll / n_dec + 0.5 * l2 * float(w @ w), grad

    with fit_threads():
        res = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B",
                       options={"maxiter": 500})  # fmt: skip
    return res.x, {"loss": float(res.fun), "iterations": int(res.nit), "converged": res.success}


def fit_hidden(
    x: np.ndarray,
    decision: np.ndarray,
    target: np.ndarray,
    players: np.ndarray,
    units: int,
    seed: int,
    l2: float = L2_HIDDEN,
    maxiter: int = HIDDEN_MAXITER,
) -> tuple[np.ndarray, Hidden, dict[str, Any]]:
    """A conditional logit whose score adds a hidden layer of ``units`` tanh units to the
    linear term, fitted like :func:`fit` (cross-entropy to the targets, L2 penalty ``l2``
    on every weight, L-BFGS-B with the analytic gradient) from small random weights drawn
    from ``seed``.

    The two player counts share one network whose inputs are the features and the
    features times "3 players" (so each count's weights are the shared ones plus a 3-player
    difference); the result is returned per player count, as the kernel reads it: linear
    weights (2, features) and :class:`~strategies.learned_model.Hidden`.
    """
    from scipy.optimize import minimize

    nf = x.shape[1]
    is3 = (players == 3).astype(np.float64)[:, None]
    xa = np.ascontiguousarray(np.hstack((x, x * is3)), dtype=np.float64)
    d = xa.shape[1]
    starts, idx = groups(decision)
    n_dec = len(starts)
    y = target.astype(np.float64)

    def unpack(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        k = d * units
        return (p[:k].reshape(d, units), p[k : k + units], p[k + units : k + 2 * units],
                p[k + 2 * units :])  # fmt: skip

    def loss(p: np.ndarray) -> tuple[float, np.ndarray]:
        w_in, b, v, u = unpack(p)
        h = np.tanh(xa @ w_in + b)
        s = h @ v + xa @ u
        m = np.maximum.reduceat(s, starts)
        e = np.exp(s - m[idx])
        z = np.add.reduceat(e, starts)
        ll = float(np.sum(s * y) - np.sum(m) - np.sum(np.log(z)))
        g = (e / z[idx] - y) / n_dec  # d loss / d score
        ga = (g[:, None] * v[None, :]) * (1.0 - h * h)
        grad = np.concatenate(((xa.T @ ga).ravel(), ga.sum(axis=0), h.T @ g, xa.T @ g))
        return -ll / n_dec + 0.5 * l2 * float(p @ p), grad + l2 * p

    rng = np.random.default_rng([seed & (2**64 - 1), 21])
    p0 = np.concatenate((0.1 * rng.standard_normal(d * units), np.zeros(units),
                         0.1 * rng.standard_normal(units), np.zeros(d)))  # fmt: skip
    with fit_threads():
        res = minimize(loss, p0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
    w_in, b, v, u = unpack(res.x)
    linear = np.vstack((u[:nf], u[:nf] + u[nf:]))
    hidden = Hidden(
        weights=np.stack((w_in[:nf], w_in[:nf] + w_in[nf:])),
        bias=np.vstack((b, b)),
        output=np.vstack((v, v)),
    )
    info = {"loss": float(res.fun), "iterations": int(res.nit), "converged": bool(res.success),
            "hidden_units": units, "l2": l2, "init_seed": [seed, 21]}  # fmt: skip
    return linear, hidden, info


def hidden_scores(
    x: np.ndarray, players: np.ndarray, linear: np.ndarray, hidden: Hidden
) -> np.ndarray:
    """Each row's score under a model with a hidden layer (the kernel's formula, in numpy)."""
    out = np.zeros(len(x))
    for r, n in enumerate(PLAYER_COUNTS):
        rows = players == n
        xr = x[rows].astype(np.float64)
        act = np.tanh(xr @ hidden.weights[r] + hidden.bias[r])
        out[rows] = xr @ linear[r] + act @ hidden.output[r]
    return out


def flagged_share(decision: np.ndarray, chosen: np.ndarray, flag: np.ndarray) -> float:
    """Share of decisions where the flagged row is the chosen one."""
    return float(np.sum(chosen & flag) / len(np.unique(decision)))
