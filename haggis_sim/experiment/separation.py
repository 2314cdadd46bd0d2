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
  settle it (:func:`games_to_settle`): where the observed difference is at least the
  metric's tolerance, the games per arm at which a true difference that large would be
  separated four times in five (:func:`games_to_resolve`); where it is smaller, the games
  at which a true difference of the tolerance would be found four times in five
  (:func:`games_to_detect`): a difference below the tolerance is not worth resolving, and
  chasing it by its own size gives absurd counts.

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


def games_to_detect(d: Mapping[str, Any], games: int, size: float, z: float = Z95) -> int | None:
    """How many *more* games per arm (beyond ``games``) give 80% power to find a true
    difference of ``size`` with an interval of ``z`` standard errors each side (95% by
    default): the standard error must fall to ``size / (z + 0.84)``, and it shrinks as
    ``1/√games`` from the one behind ``d``'s interval. None without an interval.

    >>> games_to_detect({"diff": 0.0, "low": -0.02, "high": 0.02}, 1000, 0.015)
    2633
    """
    se = standard_error(d)
    if not se > 0 or games < 1 or not size > 0:
        return None
    target_se = size / (z + Z80)
    return max(0, math.ceil(games * (se / target_se) ** 2) - games)


def identical(d: Mapping[str, Any]) -> bool:
    """A difference of exactly 0 with no width: the arms played identical games.

    >>> identical({"diff": 0.0, "low": 0.0, "high": 0.0})
    True
    >>> identical({"diff": 0.0, "low": -0.01, "high": 0.01})
    False
    """
    return num(d.get("diff")) == 0 and num(d.get("low")) == 0 and num(d.get("high")) == 0


def games_to_settle(d: Mapping[str, Any], games: int, tolerance: float) -> dict[str, Any] | None:
    """The games that would settle a tied difference ``d`` at ``games`` per arm:
    ``{"more", "half_width", "basis"}`` (and ``detect``, the difference the games are
    sized to find), or None without an interval.

    * ``identical``: the arms played identical games; nothing to settle (0 more);
    * ``tolerance`` with 0 more: the interval already lies within ±``tolerance`` (the
      metric's, :func:`.ladder.default_tolerance`): any true difference is too small to
      matter;
    * ``power``: the observed difference is at least the tolerance; the games that would
      separate a true difference that large four times in five (:func:`games_to_resolve`);
    * ``tolerance``: otherwise, the games that give 80% power to find a true difference
      of the tolerance (:func:`games_to_detect`): a smaller one the question does not
      care about, and narrowing the interval to the tolerance alone finds a difference
      that large only half the time.

    >>> r = games_to_settle({"diff": 0.05, "low": 0.0, "high": 0.1}, 1000, 0.015)
    >>> r["more"], round(r["half_width"], 4), r["basis"]
    (1044, 0.035, 'power')
    >>> r = games_to_settle({"diff": 0.002, "low": -0.012, "high": 0.014}, 4000, 0.015)
    >>> r["more"], round(r["half_width"], 4), r["basis"]
    (0, 0.013, 'tolerance')
    >>> r = games_to_settle({"diff": 0.002, "low": -0.028, "high": 0.032}, 1000, 0.015)
    >>> r["more"], round(r["half_width"], 4), r["basis"], r["detect"]
    (7173, 0.0105, 'tolerance', 0.015)
    >>> games_to_settle({"diff": 0.0, "low": 0.0, "high": 0.0}, 1000, 0.015)
    {'more': 0, 'half_width': 0.0, 'basis': 'identical'}
    """
    if identical(d):
        return {"more": 0, "half_width": 0.0, "basis": "identical"}
    low, high = num(d.get("low")), num(d.get("high"))
    if math.isnan(low) or math.isnan(high):
        return None
    if -tolerance <= low and high <= tolerance:
        return {"more": 0, "half_width": (high - low) / 2, "basis": "tolerance",
                "detect": tolerance}  # fmt: skip
    if abs(num(d.get("diff"))) >= tolerance:
        power = games_to_resolve(d, games)
        if power is not None:
            return {"more": power[0], "half_width": power[1], "basis": "power"}
    more = games_to_detect(d, games, tolerance)
    if more is None:
        return None
    return {"more": more, "half_width": Z95 * tolerance / (Z95 + Z80), "basis": "tolerance",
            "detect": tolerance}  # fmt: skip
