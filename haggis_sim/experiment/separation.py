"""When two numbers of an experiment are separable, and how many games would separate them.

The verdicts (:mod:`.verdicts`) and the strength ladder's convergence rest on three
pieces, kept here so they are stated once:

* a difference (``{"diff", "low", "high", ...}`` as :mod:`.summary` stores it) is
  *separable* when its 95% interval excludes 0 (:func:`sign`);
* the *interaction* of two differences measured on different players (the same arm pair
  in two populations, or an arm's difference at two rungs of a ladder) is their
  difference, with the standard errors of two independent estimates combined
  (:func:`interaction`);
* a difference that is not separable gets a power-based estimate of the games that would
  separate it (:func:`games_to_resolve`): the games per arm at which a true difference as
  large as the observed one would be found four times in five; where that would resolve
  less than the metric's tolerance, the games that narrow the interval to the tolerance
  instead (:func:`games_to_settle`): a difference below the tolerance is not worth
  resolving, and chasing it gave absurd counts ("925,769 more games would resolve ±0.1
  points").

Standard errors are read back from the stored 95% intervals (``(high - low) / (2·1.96)``):
paired differences are ``mean ± t·SE`` with hundreds of deals, so ``t`` is 1.96 to three
digits; Newcombe intervals of rates are close to symmetric away from 0% and 100%.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from scipy.stats import norm

Z95 = float(norm.ppf(0.975))  # 1.95996...: the half-width of a 95% interval in SEs
Z80 = float(norm.ppf(0.80))  # 0.84162...: the power term (a difference found 4 times in 5)


def num(v: Any) -> float:
    """A summary number (None for no value, as JSON holds it) as a float (NaN for none)."""
    return math.nan if v is None else float(v)


def sign(d: Mapping[str, Any]) -> int:
    """+1 or -1 when the 95% interval of difference ``d`` lies above or below 0, else 0
    (also for a difference without an interval).

    >>> sign({"diff": 0.03, "low": 0.01, "high": 0.05})
    1
    >>> sign({"diff": 0.01, "low": -0.01, "high": 0.03})
    0
    >>> sign({"diff": None, "low": None, "high": None})
    0
    """
    low, high = num(d.get("low")), num(d.get("high"))
    return 1 if low > 0 else -1 if high < 0 else 0


def standard_error(d: Mapping[str, Any]) -> float:
    """The standard error behind a stored 95% interval (NaN without one).

    >>> round(standard_error({"low": -0.0196, "high": 0.0196}), 6)
    0.01
    """
    low, high = num(d.get("low")), num(d.get("high"))
    if math.isnan(low) or math.isnan(high):
        return math.nan
    return (high - low) / (2 * Z95)


def interaction(a: Mapping[str, Any], b: Mapping[str, Any], z: float = Z95) -> dict[str, float]:
    """``a - b`` for two differences measured on independent games (another population,
    another rung), with its interval (``z`` standard errors each side; 95% by default).

    >>> r = interaction({"diff": 0.05, "low": 0.03, "high": 0.07},
    ...                 {"diff": 0.01, "low": -0.01, "high": 0.03})
    >>> round(r["diff"], 3), round(r["low"], 3), round(r["high"], 3)
    (0.04, 0.012, 0.068)
    """
    diff = num(a.get("diff")) - num(b.get("diff"))
    se = math.hypot(standard_error(a), standard_error(b))
    return {"diff": diff, "low": diff - z * se, "high": diff + z * se, "se": se}


def games_to_resolve(
    d: Mapping[str, Any], games: int, half_width: float | None = None
) -> tuple[int, float] | None:
    """How many *more* games per arm (beyond ``games``) would resolve difference ``d``, and
    the 95% half-width they give: ``(more, half_width)``; None without an interval.

    Without ``half_width``: the games at which a true difference as large as the observed
    one is separated with 80% power (``SE = |diff| / (1.96 + 0.84)``, so the interval
    is about ±0.7·|diff|). With ``half_width`` (a tolerance): the games at which the 95%
    interval is that narrow. The standard error shrinks as ``1/√games`` (the observed
    spread stays). An observed difference of exactly 0 cannot be resolved by power; it
    gets None unless ``half_width`` is given.

    >>> more, hw = games_to_resolve({"diff": 0.01, "low": -0.01, "high": 0.03}, 1000)
    >>> more, round(hw, 4)
    (7173, 0.007)
    >>> games_to_resolve({"diff": 0.0, "low": -0.02, "high": 0.02}, 1000, half_width=0.01)
    (3000, 0.01)
    """
    se = standard_error(d)
    if not se > 0 or games < 1:
        return None
    if half_width is None:
        diff = abs(num(d.get("diff")))
        if not diff > 0:
            return None
        target_se = diff / (Z95 + Z80)
        half_width = Z95 * target_se
    else:
        target_se = half_width / Z95
    needed = math.ceil(games * (se / target_se) ** 2)
    return max(0, needed - games), half_width


def games_to_settle(d: Mapping[str, Any], games: int, tolerance: float) -> dict[str, Any] | None:
    """The games that would settle a tied difference ``d`` at ``games`` per arm:
    ``{"more", "half_width", "basis"}``, or None without an interval.

    By power (``basis`` ``"power"``, :func:`games_to_resolve`) when the half-width that
    resolves a difference as large as the observed one is at least ``tolerance`` (the
    metric's, :func:`.ladder.default_tolerance`); otherwise by ``"tolerance"``: the games
    at which the interval is ``±tolerance`` (0 more when it is that narrow already), since
    a true difference smaller than the tolerance is one the question does not care about.

    >>> r = games_to_settle({"diff": 0.05, "low": 0.0, "high": 0.1}, 1000, 0.015)
    >>> r["more"], round(r["half_width"], 4), r["basis"]
    (1044, 0.035, 'power')
    >>> games_to_settle({"diff": 0.002, "low": -0.013, "high": 0.017}, 4000, 0.015)
    {'more': 0, 'half_width': 0.015, 'basis': 'tolerance'}
    >>> games_to_settle({"diff": 0.002, "low": -0.028, "high": 0.032}, 1000, 0.015)
    {'more': 3000, 'half_width': 0.015, 'basis': 'tolerance'}
    """
    power = games_to_resolve(d, games)
    if power is not None and power[1] >= tolerance:
        return {"more": power[0], "half_width": power[1], "basis": "power"}
    settle = games_to_resolve(d, games, half_width=tolerance)
    if settle is None:
        return None
    return {"more": settle[0], "half_width": tolerance, "basis": "tolerance"}
