"""Small statistics used by the report: binomial and paired-mean intervals, ratings.

Rates get Wilson intervals (and differences of rates Newcombe's, built from them), never
a normal approximation: those collapse to zero width at 0% and 100%.

Every function works on plain numbers or arrays (the report computes counts and sums in
DuckDB and passes only those here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# The quantiles come from scipy.special (the functions scipy.stats' norm.ppf and t.ppf
# evaluate, bit for bit), imported where a quantile is taken: scipy.stats takes one to
# two seconds to import, which every `haggis-sim run` paid to print its summary.


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial rate ``k / n`` (as scipy ``binomtest`` gives).

    ``n == 0`` gives the uninformative interval ``(0, 1)``. At ``k == 0`` or ``k == n``
    the interval still has width (``wilson(0, 100)`` is about ``(0, 0.037)``), unlike a
    normal approximation, whose width vanishes there.

    >>> lo, hi = wilson(30, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.219, 0.396)
    """
    if n <= 0:
        return (0.0, 1.0)
    return wilson_rate(k / n, n, confidence)


def wilson_rate(p: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a rate ``p`` observed over ``n`` trials, ``n`` possibly
    fractional: an *effective* number of trials (games clustered by deal count for less
    than their number). ``n <= 0`` or a NaN gives ``(0, 1)``.

    >>> lo, hi = wilson_rate(1.0, 50)
    >>> round(lo, 3), hi
    (0.929, 1.0)
    """
    if not n > 0 or math.isnan(p):
        return (0.0, 1.0)
    from scipy.special import ndtri  # the normal quantile (scipy.stats.norm.ppf)

    z = float(ndtri(0.5 + confidence / 2))
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(max(p * (1 - p), 0.0) / n + z2n / (4 * n))
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return (low, high)


def games_for_half_width(games: int, half: float, target: float, step: int = 1) -> int:
    """Games needed to narrow an interval of half-width ``half`` seen after ``games``
    games to ``target``: ``ceil(games · (half / target)²)``, rounded up to a whole
    multiple of ``step`` (whole deals). A half-width shrinks as ``1/√n``, so this is the
    estimate; the one rule behind ``run --precision``'s "about N more games" and the
    experiments' sizing (:func:`haggis_sim.experiment.play.size_arms`).

    >>> games_for_half_width(1000, 0.02, 0.01)
    4000
    >>> games_for_half_width(1000, 0.015, 0.01, step=6)
    2250
    """
    wanted = math.ceil(games * (half / target) ** 2)
    return math.ceil(wanted / step) * step


def newcombe(
    p_a: float, ci_a: tuple[float, float], p_b: float, ci_b: tuple[float, float]
) -> tuple[float, float]:
    """Interval of ``p_b - p_a`` from the two rates' Wilson intervals (Newcombe's hybrid
    score method, for independent samples): never of zero width, even at 0% or 100%.

    >>> lo, hi = newcombe(0.0, wilson(0, 100), 0.0, wilson(0, 100))
    >>> round(lo, 3), round(hi, 3)
    (-0.037, 0.037)
    """
    d = p_b - p_a
    low = d - math.sqrt((p_b - ci_b[0]) ** 2 + (ci_a[1] - p_a) ** 2)
    high = d + math.sqrt((ci_b[1] - p_b) ** 2 + (p_a - ci_a[0]) ** 2)
    return (low, high)


def sign_test_interval(
    gains: int, losses: int, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Exact interval of a paired difference of rates ``(gains - losses) / n`` conditional
    on its ``gains + losses`` discordant games (the exact sign test, McNemar's exact form):
    given ``m`` discordant games, the gains are binomial with share ``π``, and the
    difference is ``m / n · (2π - 1)``; ``π`` gets its Clopper–Pearson interval (as scipy's
    ``binomtest(...).proportion_ci()``). Where a normal approximation calls four
    discordant games all one way separable, this interval holds 0 (p = 0.125).

    >>> lo, hi = sign_test_interval(4, 0, 20)
    >>> round(lo, 3), hi
    (-0.041, 0.2)
    >>> sign_test_interval(0, 0, 20)
    (0.0, 0.0)
    """
    m = gains + losses
    if m == 0 or n <= 0:
        return (0.0, 0.0)
    from scipy.stats import binomtest

    ci = binomtest(gains, m).proportion_ci(confidence_level=confidence, method="exact")
    scale = m / n
    return (scale * (2 * ci.low - 1), scale * (2 * ci.high - 1))


def mean_ci_from_moments(
    mean: float, sd: float, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Student-t interval of a mean from its sample mean, sample SD and count.

    ``n < 2`` (or a NaN SD) gives ``(nan, nan)``: no interval can be stated.
    """
    if n < 2 or sd is None or math.isnan(sd):
        return (math.nan, math.nan)
    from scipy.special import stdtrit  # Student's t quantile (scipy.stats.t.ppf)

    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * sd / math.sqrt(n)
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
