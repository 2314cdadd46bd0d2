"""A strength ladder: whether an experiment's answer has converged as the players get
stronger.

With ``ladder = true`` the ``[[populations]]`` are rungs, weakest first. Per metric the
*answer* of a rung is, per arm, its paired difference from the first arm (``vs_first``);
an experiment with a single arm has no difference, so its answer is the arm's level.
Whether the answer still changes with strength is read at the top two rungs: per arm the
interaction (:func:`.separation.interaction`) of its answer at the strongest rung minus
its answer at the second strongest, with an interval that is family-wise over the arms
judged (Bonferroni: ``z = norm.ppf(1 - 0.05 / (2k))`` for ``k`` arms), so that a ladder
with many arms does not find movement by chance. The verdict (:func:`converge`):

* ``converged`` — every arm's interval lies inside ± the metric's tolerance: the two
  strongest players agree within it (a change that is real but smaller than the
  tolerance still counts as converged: the tolerance is what matters);
* ``still moving`` — otherwise, some arm's interval excludes 0; the sentence names the
  arm, the direction with numbers and its answer at every rung;
* ``not known`` — neither; the sentence gives the widest interval and about how many more
  games per arm at each of the top two rungs would settle it: converged four times in
  five if nothing changes, moving nine times in ten if the change is the tolerance.

Everything here reads the per-population summaries (:mod:`.summary`) and returns plain
data and text, so ``summary.json``, ``summary.md`` and the page say the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from scipy.stats import norm

from ..analytics.compare import BINARY_METRICS, fmt_change, fmt_interval, fmt_value, fmt_width
from .separation import Z95, interaction, num

FAMILY_ALPHA = 0.05  # the chance of calling any arm "moving" when none moves
RATE_TOLERANCE = 0.015  # ±1.5 points of a rate or a share
POINT_TOLERANCE = 3.0  # score, margin, bet points: ±3 points of the game's score
ROUNDS_TOLERANCE = 0.1  # game length: ±0.1 rounds; lead changes: ±0.1 a game
#: the power term of the games that settle a verdict: with no change the interval lies
#: within the tolerance four times in five (and a change of the tolerance is found nine
#: times in ten)
SETTLE_POWER_Z = float(norm.ppf(0.90))


LADDER_NOTE = (
    "The populations are the rungs of a strength ladder, weakest first. Per metric the "
    "answer (each arm's difference from the first arm; with one arm, its level) is compared "
    "between the two strongest rungs: *converged* when every arm's change lies within the "
    "metric's tolerance, *still moving* when a change excludes 0, otherwise *not known* "
    "(intervals family-wise over the arms)."
)
VERDICT_KINDS = ("converged", "still moving", "not known")


def default_tolerance(metric: str, players: int) -> float:
    """The tolerance of ``metric`` when the file gives none: ±1.5 points for a rate or a
    share (``win_vs_fair`` is a rate times ``players``; ``winner_lead_round`` a share of the
    game's rounds), ±0.1 rounds or lead changes a game, ±3 points of score.

    >>> default_tolerance("win_rate", 2), default_tolerance("win_vs_fair", 3)
    (0.015, 0.045)
    >>> default_tolerance("winner_lead_round", 3), default_tolerance("lead_changes", 3)
    (0.015, 0.1)
    """
    if metric in BINARY_METRICS or metric.startswith("share_") or metric == "winner_lead_round":
        return RATE_TOLERANCE
    if metric == "win_vs_fair":
        return RATE_TOLERANCE * players
    if metric in ("rounds", "lead_changes"):
        return ROUNDS_TOLERANCE
    return POINT_TOLERANCE


def tolerances(
    metrics: list[str], given: float | Mapping[str, float] | None, players: int
) -> dict[str, float]:
    """The tolerance of every metric (the question's first in ``metrics``): a number
    ``given`` is the question's metric's, a table gives its metrics', the rest default
    (:func:`default_tolerance`)."""
    if given is None:
        table: Mapping[str, float] = {}
    elif isinstance(given, Mapping):
        table = given
    else:
        table = {metrics[0]: given}
    return {m: float(table.get(m, default_tolerance(m, players))) for m in metrics}


def family_z(arms: int) -> float:
    """The half-width in standard errors of an interval that is 95% family-wise over
    ``arms`` intervals (Bonferroni).

    >>> round(family_z(1), 3), round(family_z(3), 3)
    (1.96, 2.394)
    """
    return float(norm.ppf(1 - FAMILY_ALPHA / (2 * max(arms, 1))))


def interval_words(z: float) -> str:
    """``95%`` for one arm judged, ``family-wise 95%`` for several (a wider ``z``)."""
    return "95%" if math.isclose(z, Z95) else "family-wise 95%"


def _answer(row: Mapping[str, Any], single: bool) -> dict[str, Any]:
    """An arm's answer at one rung: its level (``single``) or its difference from the
    first arm, as a difference dict (``diff``, ``low``, ``high``)."""
    if single:
        return {"diff": row["mean"], "low": row["low"], "high": row["high"]}
    return dict(row["vs_first"])


def _has_value(d: Mapping[str, Any]) -> bool:
    return all(d.get(k) is not None and not math.isnan(d[k]) for k in ("diff", "low", "high"))


def _fmt_answer(metric: str, value: float, single: bool) -> str:
    return fmt_value(metric, value) if single else fmt_change(metric, value)


def _fmt_interval(metric: str, d: Mapping[str, Any]) -> str:
    return f"{fmt_change(metric, d['low'])} … {fmt_change(metric, d['high'])}"


def ladder_section(pops: list[dict[str, Any]], tolerance: Mapping[str, float]) -> dict[str, Any]:
    """The ``ladder`` section of the populations summary: the rungs (weakest first) and,
    per metric of ``tolerance``, :func:`converge` over the populations ``pops`` (as
    :func:`.summary.summarize_populations` builds them)."""
    return {
        "rungs": [p["name"] for p in pops],
        "family_alpha": FAMILY_ALPHA,
        "metrics": {m: converge(pops, m, tol) for m, tol in tolerance.items()},
    }


def converge(pops: list[dict[str, Any]], metric: str, tol: float) -> dict[str, Any]:
    """Whether the answer by ``metric`` has converged at the top two rungs of ``pops``
    (see the module's docstring): the verdict, its sentence, the tolerance, the
    family-wise ``z``, per arm judged its interaction and per arm and rung the table."""
    names = [p["name"] for p in pops]
    rows = {p["name"]: p["summary"]["results"][metric]["rows"] for p in pops}
    arms = [r["arm"] for r in rows[names[0]]]
    single = len(arms) == 1
    judged = arms if single else arms[1:]
    z = family_z(len(judged))
    top, second = names[-1], names[-2]
    moves: dict[str, dict[str, Any]] = {}
    for i, arm in enumerate(arms):
        if arm not in judged:
            continue
        a, b = _answer(rows[top][i], single), _answer(rows[second][i], single)
        if not (_has_value(a) and _has_value(b)):
            continue
        moves[arm] = interaction(a, b, z)
    result = {
        "tolerance": tol,
        "z": z,
        "single_arm": single,
        "top": top,
        "second": second,
        "interactions": {arm: {k: m[k] for k in ("diff", "low", "high", "se")}
                         for arm, m in moves.items()},
        "table": _table(pops, metric),
    }  # fmt: skip
    verdict, sentence = _verdict(pops, metric, tol, moves, z)
    return {"verdict": verdict, "sentence": sentence, **result}


def _table(pops: list[dict[str, Any]], metric: str) -> dict[str, list[dict[str, Any]]]:
    """Per arm, per rung (weakest first): the value with its interval and the difference
    from the first arm with its interval."""
    table: dict[str, list[dict[str, Any]]] = {}
    for p in pops:
        for r in p["summary"]["results"][metric]["rows"]:
            table.setdefault(r["arm"], []).append(
                {"rung": p["name"], "mean": r["mean"], "low": r["low"], "high": r["high"],
                 "n": r["n"], "vs_first": r["vs_first"]}
            )  # fmt: skip
    return table


def _label(arms: list[str], arm: str, single: bool) -> str:
    return arm if single else f"{arm} − {arms[0]}"


def _verdict(
    pops: list[dict[str, Any]],
    metric: str,
    tol: float,
    moves: dict[str, dict[str, Any]],
    z: float,
) -> tuple[str, str]:
    """The verdict and its sentence from the judged arms' interactions ``moves`` (at
    ``z`` standard errors each side)."""
    names = [p["name"] for p in pops]
    top, second = names[-1], names[-2]
    arms = [r["arm"] for r in pops[0]["summary"]["results"][metric]["rows"]]
    single = len(arms) == 1
    band = fmt_width(metric, tol)
    level = interval_words(z)
    if not moves:
        return "not known", (
            f"Not known whether it has converged: no value at the top two rungs ({second}, {top})."
        )
    widest = max(moves, key=lambda a: (moves[a]["se"], abs(moves[a]["diff"])))
    w = moves[widest]
    if all(-tol <= m["low"] and m["high"] <= tol for m in moves.values()):
        return "converged", (
            f"Converged: the two strongest rungs ({second}, {top}) agree within {band}; "
            f"the widest change from {second} to {top}, {_label(arms, widest, single)}, is "
            f"{fmt_change(metric, w['diff'])} ({level} {_fmt_interval(metric, w)})."
        )
    moving = [a for a, m in moves.items() if m["low"] > 0 or m["high"] < 0]
    if moving:
        moving.sort(key=lambda a: -abs(moves[a]["diff"]))
        parts = [_moving_part(pops, metric, arms, a, moves[a], single, level) for a in moving]
        return "still moving", "Still moving with strength: " + "; ".join(parts) + "."
    open_arms = [a for a, m in moves.items() if not (-tol <= m["low"] and m["high"] <= tol)]
    widest = max(open_arms, key=lambda a: _settle_factor(moves[a], tol, z))
    w = moves[widest]
    more = _more_games(pops, w, tol, z)
    return "not known", (
        f"Not known whether it has converged: the change from {second} to {top} furthest "
        f"from settled, {_label(arms, widest, single)} {fmt_change(metric, w['diff'])} "
        f"({level} {_fmt_interval(metric, w)}), neither excludes 0 nor lies within {band}"
        + (f"; {more} would settle it (four times in five)." if more else ".")
    )


def _moving_part(
    pops: list[dict[str, Any]],
    metric: str,
    arms: list[str],
    arm: str,
    move: Mapping[str, Any],
    single: bool,
    level: str,
) -> str:
    """``A − B rises from x at R2 to y at R1: +d (95% lo … hi); over the rungs ...``."""
    i = arms.index(arm)
    series = [(p["name"], _answer(p["summary"]["results"][metric]["rows"][i], single)["diff"])
              for p in pops]  # fmt: skip
    (second, before), (top, after) = series[-2], series[-1]
    way = "rises" if move["diff"] > 0 else "falls"
    trend = ", ".join(
        f"{name} {'–' if v is None else _fmt_answer(metric, v, single)}" for name, v in series
    )
    return (
        f"{_label(arms, arm, single)} {way} from {_fmt_answer(metric, before, single)} at "
        f"{second} to {_fmt_answer(metric, after, single)} at {top}: "
        f"{fmt_change(metric, move['diff'])} ({level} {_fmt_interval(metric, move)}); "
        f"over the rungs {trend}"
    )


def _settle_factor(move: Mapping[str, Any], tol: float, z: float) -> float:
    """By how much both rungs' games must grow to settle the change ``move``, judged at
    its observed size ``d``: a change of less than half the tolerance settles as
    converged once ``(z + 1.28)·SE ≤ tol − |d|``, a larger one as moving once
    ``(z + 1.28)·SE ≤ |d|`` (for ``d = 0``: ``SE = tol / (z + 1.28)``). NaN without an
    interval.

    >>> round(_settle_factor({"diff": 0.0, "se": 0.01}, 0.015, 1.96), 2)
    4.67
    >>> _settle_factor({"diff": 0.0, "se": 0.0}, 0.015, 1.96)
    nan
    """
    se = float(move.get("se", math.nan))
    if not se > 0:
        return math.nan
    d = abs(float(move["diff"]))
    margin = max(d, tol - d)
    return float((se * (z + SETTLE_POWER_Z) / margin) ** 2)


def _more_games(pops: list[dict[str, Any]], move: Mapping[str, Any], tol: float, z: float) -> str:
    """``about N more games per arm at TOP and M at SECOND`` that would settle ``move``
    (the interaction furthest from settled) at ± ``tol`` with ``z`` standard errors each
    side; "" when it cannot say.

    Settled means, for a true change of the observed size (:func:`_settle_factor`): the
    verdict comes out converged, or moving, four times in five (with no change: the
    interval inside ± ``tol``, and a change of ``tol`` found moving nine times in ten).
    The interaction's variance is the sum of the two rungs' variances, so scaling both
    rungs' games by one factor scales it by the inverse factor: the same factor applies to
    each rung's games."""
    factor = _settle_factor(move, tol, z)
    if not factor > 0:
        return ""
    parts = []
    for p in (pops[-1], pops[-2]):
        games = int(p["games_per_arm"])
        if games < 1:
            return ""
        parts.append((p["name"], max(0, math.ceil(games * factor) - games)))
    (top, more_top), (second, more_second) = parts
    return f"about {more_top:,} more games per arm at {top} and {more_second:,} at {second}"


def rung_rows(ladder_metric: Mapping[str, Any], metric: str) -> tuple[list[str], list[list[str]]]:
    """The per-rung table of one metric for display: a header (arm, one column per rung,
    the change between the top two rungs) and one row per arm; each rung's cell is the
    value with its 95% interval and the difference from the first arm with its interval."""
    table = ladder_metric["table"]
    rungs = [c["rung"] for c in next(iter(table.values()))]
    level = interval_words(ladder_metric["z"])
    header = ["arm", *rungs, f"change {ladder_metric['second']} → {ladder_metric['top']} "
              f"({level})"]  # fmt: skip
    rows = []
    for i, (arm, cells) in enumerate(table.items()):
        row = [arm]
        for c in cells:
            value = (
                f"{fmt_value(metric, num(c['mean']))} "
                f"({fmt_interval(metric, num(c['low']), num(c['high']))})"
            )
            d = c["vs_first"]
            delta = "baseline" if i == 0 else (
                f"Δ {fmt_change(metric, num(d['diff']))} ({fmt_change(metric, num(d['low']))}"
                f" … {fmt_change(metric, num(d['high']))})"
            )  # fmt: skip
            row.append(f"{value}; {delta}")
        inter = ladder_metric["interactions"].get(arm)
        row.append(
            f"{fmt_change(metric, inter['diff'])} ({_fmt_interval(metric, inter)})" if inter else ""
        )
        rows.append(row)
    return header, rows
