"""The experiment's numbers: per arm and metric a mean with its 95% interval, the
difference from the first arm, the best arm; with populations, one such summary per
population and then, per metric, whether the answer holds in every population.

The summary is a JSON-ready dict (``summary.json``); :mod:`.verdicts` words it and
:mod:`.page` lays it out.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import polars as pl

from ..analytics.compare import (
    METRICS,
    PAIRING_METRICS,
    Difference,
    Estimate,
    difference,
    estimate,
    fair_value,
    game_metrics,
    has_pairing,
    metric_column,
    same_deals,
)
from ..runner.seating import base_entries, games_per_deal
from .spec import Experiment, population_experiment
from .verdicts import cross_population


def json_default(value: Any) -> Any:
    """NaN as JSON null (``json.dumps(..., default=json_default)``)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"not JSON serializable: {value!r}")


def _nan_to_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def _est(e: Estimate) -> dict[str, Any]:
    return _nan_to_none(asdict(e))


def _diff(d: Difference) -> dict[str, Any]:
    return _nan_to_none(asdict(d))


def _summary_head(exp: Experiment) -> dict[str, Any]:
    """The summary's fields that describe the experiment itself (with or without
    populations): name, question, games, seed, seats, metric, goal, entry, metric texts."""
    return {
        "name": exp.name,
        "question": exp.question,
        "games_per_arm": exp.games,
        "seed": exp.seed,
        "seats": exp.seats,
        "metric": exp.metric,
        "goal": exp.goal,
        "entry": exp.entry,
        "metrics_described": {m: METRICS[m] for m in exp.metrics},
    }


def summarize(exp: Experiment, out: Path) -> dict[str, Any]:
    """Per arm and metric: the mean with its 95% interval and the difference from the
    first arm (paired by game id when both arms played the same deals); the best arm by
    the question's metric, with its difference from the runner-up.

    An arm whose single strategy fills every seat has no pairing: its win rates (and net
    bet points) are left empty (``no_pairing``) instead of a meaningless 100%, and it
    takes no part in the best-arm ranking of such a metric."""
    played = _Played(exp, out)
    metrics = {metric: _metric_result(exp, played, metric) for metric in exp.metrics}
    sized = {} if exp.precision is None else {"sizing": _sizing(exp, played, metrics)}
    return {
        **_summary_head(exp),
        **sized,
        "arms": [
            {
                "name": arm.name,
                "dir": str(out / arm.name),
                "players": arm.players,
                "rules": arm.rules.label,
                "strategies": list(arm.strategies),
                "games": played.frames[arm.name].height,
                "paired_with_first": played.pairable(played.first, arm.name),
                "no_pairing": arm.name in played.lone,
            }
            for arm in exp.arms
        ],
        "results": metrics,
        "best": _best(exp, played, metrics[exp.metric]),
    }


class _Played:
    """The arms' games as played into ``out``: which arms pair and which have no pairing."""

    def __init__(self, exp: Experiment, out: Path) -> None:
        self.frames: dict[str, pl.DataFrame] = {
            arm.name: game_metrics(out / arm.name) for arm in exp.arms
        }
        self.players = {arm.name: arm.players for arm in exp.arms}
        self.first = exp.arms[0].name
        self.lone = {arm.name for arm in exp.arms if not has_pairing(list(arm.strategies))}

    def pairable(self, a: str, b: str) -> bool:
        """Whether arms ``a`` and ``b`` played the same deals (differences pair by game)."""
        return self.players[a] == self.players[b] and same_deals(self.frames[a], self.frames[b])

    def meaningless(self, metric: str, *arms: str) -> bool:
        """A win or net-bet figure of an arm where one entry fills every seat."""
        return metric in PAIRING_METRICS and any(a in self.lone for a in arms)


def _metric_result(exp: Experiment, played: _Played, metric: str) -> dict[str, Any]:
    """One metric: per arm its estimate, fair value and difference from the first arm."""
    col = metric_column(metric, exp.entry)
    frames, first = played.frames, played.first
    rows = []
    for arm in exp.arms:
        f = frames[arm.name]
        est = estimate(f, col)
        if played.meaningless(metric, arm.name):
            est = Estimate(math.nan, math.nan, math.nan, f.height, math.nan)
        d = difference(frames[first], f, col, col, played.pairable(first, arm.name))
        if played.meaningless(metric, first, arm.name):
            d = Difference(math.nan, math.nan, math.nan, 0, d.paired)
        seats = base_entries(len(arm.strategies), arm.players).count(exp.entry)
        rows.append(
            {
                "arm": arm.name,
                **_est(est),
                "no_pairing": played.meaningless(metric, arm.name),
                "fair": fair_value(metric, arm.players, seats),
                "vs_first": _diff(d),
            }
        )
    return {"column": col, "rows": rows}


def _best(exp: Experiment, played: _Played, result: dict[str, Any]) -> dict[str, Any] | None:
    """The best arm by the question's metric, with its difference from the runner-up."""
    ranked = sorted(
        (r for r in result["rows"] if r["mean"] is not None),
        key=lambda r: r["mean"],
        reverse=exp.goal == "max",
    )
    if not ranked:
        return None
    top = ranked[0]
    best = {"arm": top["arm"], "mean": top["mean"], "low": top["low"], "high": top["high"]}
    if len(ranked) > 1:
        second = ranked[1]["arm"]
        col = result["column"]
        frames = played.frames
        d = difference(
            frames[second], frames[top["arm"]], col, col, played.pairable(second, top["arm"])
        )
        best["runner_up"] = second
        best["vs_runner_up"] = _diff(d)
        best["clear"] = d.low > 0 or d.high < 0 if not math.isnan(d.low) else False
    return best


def widest_half_width(result: dict[str, Any]) -> float | None:
    """The half-width sizing aims to bring down (:mod:`.sizing`), of one metric's result:
    the widest 95% half-width among the differences from the first arm (paired where the
    arms played the same deals); with one arm, its level's. None without any interval."""
    rows = result["rows"]
    spans = [r["vs_first"] for r in rows[1:]] if len(rows) > 1 else rows
    widths = [
        (d["high"] - d["low"]) / 2 for d in spans if d["low"] is not None and d["high"] is not None
    ]
    return max(widths) if widths else None


def question_half_width(exp: Experiment, out: Path) -> float | None:
    """:func:`widest_half_width` of the question's metric over the arms played into
    ``out`` (the arms of one population)."""
    return widest_half_width(_metric_result(exp, _Played(exp, out), exp.metric))


def _sizing(exp: Experiment, played: _Played, metrics: dict[str, Any]) -> dict[str, Any]:
    """What sizing reached (``precision`` given): the precision and budget asked for, the
    games per arm played, the achieved half-width, and why it stopped: ``precision``
    (reached), ``budget`` (the budget stopped it first) or ``rounds`` (the rounds ran out
    first; a re-run goes on)."""
    assert exp.precision is not None and exp.budget is not None
    half = widest_half_width(metrics[exp.metric])
    games = min(f.height for f in played.frames.values())
    cap = budget_games(exp)
    if half is not None and half <= exp.precision:
        stopped = "precision"
    elif games >= cap or half is None:
        stopped = "budget" if half is not None else "no interval"
    else:
        stopped = "rounds"
    return {
        "precision": exp.precision,
        "budget": exp.budget,
        "first_batch": exp.games,
        "games": games,
        "half_width": half,
        "stopped_by": stopped,
    }


def deal_games(exp: Experiment) -> int:
    """The games of one whole deal in every arm (the seatings per deal, see
    :func:`~haggis_sim.runner.seating.games_per_deal`; their least common multiple)."""
    sizes = [games_per_deal(exp.seats, a.players, len(a.strategies)) for a in exp.arms]
    return math.lcm(*sizes)


def budget_games(exp: Experiment) -> int:
    """The most games per arm sizing plays: the budget in whole deals (never below the
    first batch)."""
    assert exp.budget is not None
    step = deal_games(exp)
    return max(exp.games, exp.budget // step * step)


def summarize_populations(exp: Experiment, out: Path) -> dict[str, Any]:
    """Per population today's summary (:func:`summarize` of :func:`population_experiment`
    over ``out/<population>``), then per metric the cross-population verdict
    (:func:`cross_population`)."""
    pops: list[dict[str, Any]] = []
    for pop in exp.populations:
        sub = summarize(population_experiment(exp, pop), out / pop.name)
        sized = {} if "sizing" not in sub else {"sizing": sub["sizing"]}
        pops.append({"name": pop.name, "games_per_arm": pop.games, "swap": dict(pop.swap),
                     **sized, "summary": sub})  # fmt: skip
    named = [(p["name"], p["summary"]) for p in pops]
    return {
        **_summary_head(exp),
        "populations": pops,
        "cross": {m: cross_population(named, m) for m in exp.metrics},
    }
