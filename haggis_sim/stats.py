"""Small statistics used by the report: binomial and paired-mean intervals, ratings.

Every function works on plain numbers or arrays (the report computes counts and sums in
DuckDB and passes only those here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as _st
from scipy.stats import binomtest


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial rate ``k / n`` (scipy ``binomtest``).

    ``n == 0`` gives the uninformative interval ``(0, 1)``.

    >>> lo, hi = wilson(30, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.219, 0.396)
    """
    if n <= 0:
        return (0.0, 1.0)
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mean_ci_from_moments(
    mean: float, sd: float, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Student-t interval of a mean from its sample mean, sample SD and count.

    ``n < 2`` (or a NaN SD) gives ``(nan, nan)``: no interval can be stated.
    """
    if n < 2 or sd is None or math.isnan(sd):
        return (math.nan, math.nan)
    half = float(_st.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def paired_mean_ci(
    diffs: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Mean of paired differences with its t-interval: ``(mean, low, high)``.

    One difference per independent unit (with rotated seats: per deal, the mean over
    the games that replayed it, so deal luck cancels).

    >>> m, lo, hi = paired_mean_ci([1.0, 2.0, 3.0])
    >>> m, round(lo, 3), round(hi, 3)
    (2.0, -0.484, 4.484)
    """
    x = np.asarray(diffs, dtype=float)
    if len(x) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if len(x) > 1 else math.nan
    lo, hi = mean_ci_from_moments(mean, sd, len(x), confidence)
    return (mean, lo, hi)


def bradley_terry(
    wins: np.ndarray, iterations: int = 1000, tol: float = 1e-10, prior: float = 0.5
) -> np.ndarray:
    """Bradley–Terry strengths from a wins matrix by the MM iteration (Hunter 2004).

    ``wins[i, j]`` is how often ``i`` beat ``j``. Returns log-strengths centred on 0
    (``P(i beats j) = 1 / (1 + exp(s_j - s_i))``). ``prior`` pseudo-wins are added both
    ways to every pair that met, so a strategy that never lost still gets a finite rating.

    >>> s = bradley_terry(np.array([[0, 75], [25, 0]]))
    >>> round(float(1 / (1 + np.exp(s[1] - s[0]))), 3)
    0.748
    """
    w = np.asarray(wins, dtype=float).copy()
    m = len(w)
    if m == 0:
        return np.zeros(0)
    games = w + w.T
    met = games > 0
    w = w + prior * met
    games = w + w.T
    p = np.ones(m)
    total_wins = w.sum(axis=1)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), p)
        new = new / np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    logs = np.log(p)
    return np.asarray(logs - logs.mean())


def elo_scale(log_strength: np.ndarray) -> np.ndarray:
    """Bradley–Terry log-strengths on the Elo scale (400 points = 10:1 odds)."""
    return np.asarray(log_strength) * 400.0 / math.log(10.0)
