"""The experiment's numbers: per arm and metric a mean with its 95% interval, the
difference from the first arm, per metric the top arm with its difference from every other
arm (best only where separable, else tied); with populations, one such summary per
population and then, per metric, whether the answer holds in every population.

The summary is a JSON-ready dict (``summary.json``); :mod:`.verdicts` words it and
:mod:`.page` lays it out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
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
from .ladder import default_tolerance, ladder_section
from .separation import games_to_settle, sign
from .spec import Experiment, population_experiment
from .verdicts import apart, cross_population


def json_default(value: Any) -> Any:
    """NaN as JSON null (``json.dumps(..., default=json_default)``)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"not JSON serializable: {value!r}")


def markdown_table(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    """A Markdown table's lines: the header, its rule, one line per row of texts."""
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def nan_to_none(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with NaN values as None (JSON null)."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def _est(e: Estimate) -> dict[str, Any]:
    return nan_to_none(asdict(e))


def _diff(d: Difference) -> dict[str, Any]:
    return nan_to_none(asdict(d))


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
        **({"axis": exp.axis} if exp.axis else {}),
    }


def summarize(exp: Experiment, out: Path, played: Played | None = None) -> dict[str, Any]:
    """Per arm and metric: the mean with its 95% interval and the difference from the
    first arm (paired by game id when both arms played the same deals); per metric the top
    arm with its difference from every other arm (:func:`top_arm`), the question's as
    ``best``.

    ``played``: the arms' games; read from ``out/<arm>`` when not given (the A/A tests
    give frames split from one run).

    An arm whose single strategy fills every seat has no pairing: its win rates (and net
    bet points) are left empty (``no_pairing``) instead of a meaningless 100%, and it
    takes no part in the best-arm ranking of such a metric."""
    played = played or Played.read(exp, out)
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
                "label": arm.label or arm.name,
                "head_to_head": arm.head_to_head,
                "at": arm.at,
            }
            for arm in exp.arms
        ],
        "results": metrics,
        "best": metrics[exp.metric]["top"],
    }


class Played:
    """The arms' games (one frame of per-game metrics per arm, :func:`game_metrics`):
    which arms pair and which have no pairing."""

    def __init__(self, exp: Experiment, frames: dict[str, pl.DataFrame]) -> None:
        self.frames = frames
        self.players = {arm.name: arm.players for arm in exp.arms}
        self.first = exp.arms[0].name
        self.lone = {arm.name for arm in exp.arms if not has_pairing(list(arm.strategies))}

    @classmethod
    def read(cls, exp: Experiment, out: Path) -> Played:
        """The games of every arm as played into ``out/<arm>``."""
        return cls(exp, {arm.name: game_metrics(out / arm.name) for arm in exp.arms})

    def pairable(self, a: str, b: str) -> bool:
        """Whether arms ``a`` and ``b`` played the same deals (differences pair by game)."""
        return self.players[a] == self.players[b] and same_deals(self.frames[a], self.frames[b])

    def meaningless(self, metric: str, *arms: str) -> bool:
        """A win or net-bet figure of an arm where one entry fills every seat."""
        return metric in PAIRING_METRICS and any(a in self.lone for a in arms)


def _metric_result(exp: Experiment, played: Played, metric: str) -> dict[str, Any]:
    """One metric: per arm its estimate, fair value and difference from the first arm; the
    top arm by the experiment's goal (the question's metric) or highest first (the others)."""
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
    goal = exp.goal if metric == exp.metric else "max"
    # a head-to-head arm has another opponent than the baseline: it is not ranked with it
    skip = {arm.name for arm in exp.arms if arm.head_to_head}
    ranked = [r for r in rows if r["arm"] not in skip]
    tolerance = exp.tolerance.get(metric) or default_tolerance(metric, exp.arms[0].players)
    return {"column": col, "rows": rows, "top": top_arm(played, col, ranked, goal, tolerance)}


def top_arm(
    played: Played, col: str, rows: list[dict[str, Any]], goal: str, tolerance: float
) -> dict[str, Any] | None:
    """The top arm of one metric as a statistic, not a ranking.

    The arm with the best mean by ``goal`` (``max`` or ``min``; arms without a value take
    no part), and its difference from every other valued arm (top minus other, paired
    where the two played the same deals), best-ranked first (``vs_others``). ``kind`` is
    ``best`` only when every one of those differences is separable in the goal's
    direction (:func:`sign`); otherwise ``tied``, with ``tied`` the arms not separable
    from the top, in rank order, and ``more_games`` the games that would settle the
    difference from the first of them (the runner-up, unless it is separated already):
    power-based, or with 80% power to find a true difference of ``tolerance`` where the
    observed difference is smaller than that, none for identical games
    (:func:`games_to_settle`). ``only`` for a single valued arm. The runner-up
    fields (``runner_up``, ``vs_runner_up``, ``clear``) stay for the code that reads them.
    """
    ranked = sorted(
        (r for r in rows if r["mean"] is not None), key=lambda r: r["mean"], reverse=goal == "max"
    )
    if not ranked:
        return None
    top = ranked[0]["arm"]
    out: dict[str, Any] = {"arm": top, "mean": ranked[0]["mean"], "low": ranked[0]["low"],
                           "high": ranked[0]["high"], "goal": goal}  # fmt: skip
    if len(ranked) == 1:
        return {**out, "kind": "only", "tied": [], "vs_others": [], "more_games": None}
    want = 1 if goal == "max" else -1
    frames = played.frames
    others = []
    for r in ranked[1:]:
        d = difference(frames[r["arm"]], frames[top], col, col, played.pairable(r["arm"], top))
        others.append({"arm": r["arm"], **_diff(d)})
    tied = [o for o in others if sign(o) != want]
    more = None
    if tied:
        games = min(frames[top].height, frames[tied[0]["arm"]].height)
        got = games_to_settle(tied[0], games, tolerance) or {"more": None, "half_width": None}
        interval = {k: tied[0][k] for k in ("diff", "low", "high")}
        more = {"vs": tied[0]["arm"], "games": games, **interval, **got}
    runner = others[0]
    return {
        **out,
        "runner_up": runner["arm"],
        "vs_runner_up": {k: v for k, v in runner.items() if k != "arm"},
        "clear": sign(runner) == want,
        "kind": "tied" if tied else "best",
        "tied": [o["arm"] for o in tied],
        "vs_others": others,
        "more_games": more,
    }


def widest_half_width(result: dict[str, Any]) -> float | None:
    """The half-width sizing aims to bring down (:func:`.play.size_arms`), of one metric's result:
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
    return widest_half_width(_metric_result(exp, Played.read(exp, out), exp.metric))


def _sizing(exp: Experiment, played: Played, metrics: dict[str, Any]) -> dict[str, Any]:
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


def with_spec(summary: dict[str, Any], exp: Experiment) -> dict[str, Any]:
    """``summary`` (as ``summary.json`` holds it, perhaps from before the page keys
    existed) with every arm's ``label``, ``head_to_head`` and ``at`` and the ``axis`` taken
    from ``exp``, the experiment file it was run from; with a ladder, the ladder section
    judged again without the head-to-head arms (:func:`ranked_only`). The top arms stay as
    summarized (they need the games): a page never calls a head-to-head arm the best."""
    arms = {a.name: a for a in exp.arms}
    axis = {"axis": exp.axis} if exp.axis else {}

    def one(sub: dict[str, Any]) -> dict[str, Any]:
        keys = [{"label": arms[a["name"]].label or a["name"],
                 "head_to_head": arms[a["name"]].head_to_head, "at": arms[a["name"]].at}
                if a["name"] in arms else {} for a in sub["arms"]]  # fmt: skip
        return {**sub, "arms": [{**a, **k} for a, k in zip(sub["arms"], keys, strict=True)],
                **axis}  # fmt: skip

    if "populations" not in summary:
        return one(summary)
    pops = [{**p, "summary": one(p["summary"])} for p in summary["populations"]]
    out = {**summary, "populations": pops, **axis}
    if "ladder" in summary and exp.tolerance:
        out["ladder"] = ladder_section(ranked_only(pops), exp.tolerance)
    return out


def ranked_only(pops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``pops`` with every metric's rows of head-to-head arms left out (their difference
    from the first arm compares different opponents, so no ladder judges it)."""
    out = []
    for p in pops:
        skip = apart(p["summary"])
        results = {m: {**r, "rows": [row for row in r["rows"] if row["arm"] not in skip]}
                   for m, r in p["summary"]["results"].items()}  # fmt: skip
        out.append({**p, "summary": {**p["summary"], "results": results}})
    return out


def summarize_populations(exp: Experiment, out: Path) -> dict[str, Any]:
    """Per population today's summary (:func:`summarize` of :func:`population_experiment`
    over ``out/<population>``), then per metric the cross-population verdict
    (:func:`cross_population`); with ``ladder = true`` also per metric the per-rung
    table and the convergence verdict (:func:`.ladder.ladder_section`)."""
    pops: list[dict[str, Any]] = []
    for pop in exp.populations:
        sub = summarize(population_experiment(exp, pop), out / pop.name)
        sized = {} if "sizing" not in sub else {"sizing": sub["sizing"]}
        pops.append({"name": pop.name, "games_per_arm": pop.games, "swap": dict(pop.swap),
                     "strategies": list(pop.strategies) if pop.strategies else None,
                     **sized, "summary": sub})  # fmt: skip
    named = [(p["name"], p["summary"]) for p in pops]
    out_summary = {
        **_summary_head(exp),
        "populations": pops,
        "cross": {m: cross_population(named, m) for m in exp.metrics},
    }
    if exp.ladder:  # the populations are rungs: has the answer converged?
        out_summary["ladder"] = ladder_section(ranked_only(pops), exp.tolerance)
    return out_summary
