"""The balance table a game designer asks for: per rule variant (arm) and population.

For an experiment that declares ``balance = true``, every arm of every population gets
the figures that say whether a variant plays fair and exciting games, each with its 95%
interval and each arm's difference from the first arm (paired game by game where the two
played the same deals):

- the seat-0 edge (``seat0_win``) and the first-lead edge (``first_lead_win``), beside
  their fair value 1 / players;
- comebacks: how often the seat ahead after round 1 wins (``ahead_r1_win``; lower means
  more comebacks); the margin, the game length;
- drama: lead changes per game and how late the eventual winner takes the lead for good
  (``lead_changes``, ``winner_lead_round``);
- where the arm pairs a stronger entry 0 against weaker entries (strategies entry 0 is
  no other entry's strategy, e.g. a population with ``strategies = ["learned",
  "heuristic", "heuristic"]``; at 3 players ``["learned", "heuristic"]`` seats entry 0
  twice, and its fair share is 2/3): *skill expression*, entry 0's win rate (does the
  variant reward the stronger player more?), and *luck share*, how often a weaker entry
  wins (1 − skill expression; its interval and difference are those of the win rate,
  mirrored).

Every figure is :func:`haggis_sim.analytics.compare.estimate` (and ``difference``) of a
per-game metric, so the table repeats the metric estimates exactly. The result goes into
``summary.json`` (``balance``), ``summary.md`` (:func:`balance_markdown`) and the page
(:func:`balance_for_page`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..analytics.compare import (
    Difference,
    Estimate,
    difference,
    estimate,
    fair_value,
    fmt_interval,
    fmt_value,
    game_metrics,
    metric_column,
    same_deals,
)
from ..runner.seating import base_entries
from .arms import Arm
from .separation import num
from .spec import Experiment, population_experiment
from .summary import markdown_table, nan_to_none


@dataclass(frozen=True)
class Quantity:
    """One row of the balance table: the per-game metric behind it and what it means."""

    key: str
    metric: str
    words: str
    mirrored: bool = False  # 1 − the metric (luck share from entry 0's win rate)
    pairing: bool = False  # only for arms that pair a stronger entry 0 against weaker ones


QUANTITIES = (
    Quantity("seat0_win", "seat0_win", "seat-0 edge: seat 0 wins the game (fair: 1 / players)"),
    Quantity(
        "first_lead_win",
        "first_lead_win",
        "first-lead edge: the seat that led round 1 wins (fair: 1 / players)",
    ),
    Quantity(
        "ahead_r1_win",
        "ahead_r1_win",
        "comebacks: the seat ahead after round 1 wins (lower: more comebacks)",
    ),
    Quantity("margin", "margin", "margin: winner's final score minus the runner-up's"),
    Quantity("rounds", "rounds", "rounds per game (game length)"),
    Quantity("lead_changes", "lead_changes", "drama: lead changes per game"),
    Quantity(
        "winner_lead_round",
        "winner_lead_round",
        "drama: share of the rounds played before the winner leads for good",
    ),
    Quantity(
        "skill_expression",
        "win_rate",
        "skill expression: the stronger entry 0 wins the game",
        pairing=True,
    ),
    Quantity(
        "luck_share",
        "win_rate",
        "luck share: a weaker entry wins the game (1 − skill expression)",
        mirrored=True,
        pairing=True,
    ),
)


def pairs_stronger(arm: Arm) -> bool:
    """Whether ``arm`` seats a stronger entry 0 against weaker ones: two or more entries,
    and entry 0's strategy is no other entry's (self-play has no stronger side)."""
    return len(arm.strategies) > 1 and arm.strategies[0] not in arm.strategies[1:]


def balance_table(exp: Experiment, out: Path) -> dict[str, Any]:
    """The balance table of the experiment played into ``out``: per population (one
    group ``None`` without populations) per quantity per arm the estimate and the
    difference from the first arm (JSON-ready)."""
    groups: list[tuple[str | None, Experiment, Path]] = [(None, exp, out)]
    if exp.populations:
        groups = [(p.name, population_experiment(exp, p), out / p.name) for p in exp.populations]
    return {
        "quantities": {q.key: q.words for q in QUANTITIES},
        "groups": [_group(name, sub, folder) for name, sub, folder in groups],
    }


def _group(population: str | None, exp: Experiment, out: Path) -> dict[str, Any]:
    """One population's block: its arms and one row per quantity that applies."""
    frames = {arm.name: game_metrics(out / arm.name) for arm in exp.arms}
    rows = []
    for q in QUANTITIES:
        if q.pairing and not any(pairs_stronger(a) for a in exp.arms):
            continue
        cells = [_cell(q, exp.arms[0], arm, frames) for arm in exp.arms]
        rows.append({"quantity": q.key, "metric": q.metric, "cells": cells})
    return {"population": population, "arms": [a.name for a in exp.arms], "rows": rows}


def _cell(q: Quantity, first: Arm, arm: Arm, frames: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """One arm's figure of quantity ``q``: estimate, fair value, difference from ``first``
    (values None where the quantity does not apply to the arm or to the first arm)."""
    col = metric_column(q.metric, 0)
    cell: dict[str, Any] = {"arm": arm.name, "fair": None, "vs_first": None}
    if q.pairing and not pairs_stronger(arm):
        return {**cell, "mean": None, "low": None, "high": None, "n": 0}
    cell["fair"] = quantity_fair(q, arm.players, len(arm.strategies))
    cell |= nan_to_none(asdict(quantity_estimate(q, frames[arm.name])))
    if arm is not first and (not q.pairing or pairs_stronger(first)):
        a, b = frames[first.name], frames[arm.name]
        paired = first.players == arm.players and same_deals(a, b)
        d = difference(a, b, col, col, paired)
        if q.mirrored:
            d = Difference(0.0 - d.diff, 0.0 - d.high, 0.0 - d.low, d.n, d.paired)  # no -0.0
        cell["vs_first"] = nan_to_none(asdict(d))
    return cell


def quantity_estimate(q: Quantity, frame: pl.DataFrame) -> Estimate:
    """Quantity ``q`` over a run's games (:func:`game_metrics`), with its 95% interval."""
    est = estimate(frame, metric_column(q.metric, 0))
    if q.mirrored:
        return Estimate(1 - est.mean, 1 - est.high, 1 - est.low, est.n, est.sd)
    return est


def quantity_fair(q: Quantity, players: int, entries: int) -> float | None:
    """Quantity ``q``'s fair value with ``players`` seats filled by ``entries``
    strategies (None: it has none)."""
    if q.metric in ("seat0_win", "first_lead_win"):
        return fair_value(q.metric, players)
    if not q.pairing:
        return None
    fair = fair_value("win_rate", players, base_entries(entries, players).count(0))
    return 1 - fair if q.mirrored and fair is not None else fair


def cell_words(metric: str, cell: dict[str, Any], first: bool = False) -> str:
    """A cell in words: the value and its interval, for an arm after the first also its
    difference from the first arm and that difference's interval."""
    if cell["mean"] is None:
        return "–"
    text = (
        f"{fmt_value(metric, cell['mean'])} "
        f"[{fmt_interval(metric, num(cell['low']), num(cell['high']))}]"
    )
    d = cell["vs_first"]
    if first or d is None:
        return text
    return (
        f"{text}; Δ {fmt_value(metric, num(d['diff']), signed=True)} "
        f"[{fmt_interval(metric, num(d['low']), num(d['high']), signed=True)}]"
    )


def balance_rows(table: dict[str, Any], group: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One group's table as texts: the header (the quantity, then each arm; after the
    first ``Δ`` from it) and per quantity its words and each arm's cell."""
    first = group["arms"][0]
    header = ["quantity", *(a if a == first else f"{a} (Δ from {first})" for a in group["arms"])]
    rows = [
        [
            table["quantities"][row["quantity"]],
            *(cell_words(row["metric"], c, c["arm"] == first) for c in row["cells"]),
        ]
        for row in group["rows"]
    ]
    return header, rows


def _group_title(group: dict[str, Any]) -> str:
    return f"population {group['population']}" if group["population"] else ""


def balance_markdown(table: dict[str, Any] | None) -> list[str]:
    """``summary.md``'s balance section (nothing without a balance table)."""
    if not table:
        return []
    lines = ["", "## Balance per rule variant", "", _NOTE]
    for group in table["groups"]:
        header, rows = balance_rows(table, group)
        if group["population"]:
            lines += ["", f"### Balance in {_group_title(group)}"]
        lines += ["", *markdown_table(header, rows)]
    return [*lines, ""]


def balance_for_page(table: dict[str, Any] | None) -> dict[str, Any] | None:
    """The balance section for the page templates: the note and per group its title,
    header and rows (None without a balance table)."""
    if not table:
        return None
    groups = []
    for group in table["groups"]:
        header, rows = balance_rows(table, group)
        groups.append({"title": _group_title(group), "header": header, "rows": rows})
    return {"note": _NOTE, "groups": groups}


_NOTE = (
    "Each figure with its 95% interval (clustered by deal); after the first arm, Δ is the "
    "arm minus the first arm with its 95% interval, paired game by game where the arms "
    "played the same deals. Skill expression and luck share appear where the arm seats a "
    "stronger entry 0 (listed first) against weaker entries."
)
