"""A decision study's table by situation, and guidance drawn from it only where data say so.

Each position of a study (:mod:`.decisions`) carries one difference: bomb minus the best
non-bomb play, or a bet minus not betting, in the search's reward (``value_diff``) and in
round margin points. Positions are binned one situation factor at a time (the trick's
and bomb's points, the wilds a bomb spends, the nearest opponent's cards; for bets the
chance of going out first, per settlement rule and bet value), and each bin gets the mean
difference with a 95% Student-t interval across positions (positions are independent
samples) and the share of positions where the alternative was better (Wilson interval).

A guidance line makes a claim ("bomb when …", "do not bet 30 when …") only where the
interval of the mean value difference excludes 0; elsewhere it says "no clear answer".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..stats import paired_mean_ci, wilson


@dataclass(frozen=True)
class Factor:
    """One way to bin positions: a column, its bin edges, and how a guidance line reads it."""

    name: str  # the table's label
    column: str | None  # None: every position in one bin
    edges: tuple[float, ...] = ()  # upper bounds: inclusive for counts, exclusive for shares
    start: int = 0  # the smallest count (labels of the first bin)
    share: bool = False  # a chance in [0, 1], labelled in percent
    phrase: str = ""  # "when ..." with {bin} for the bin label
    labels: tuple[str, ...] = ()  # labels of the bins, when the edges' own would mislead

    def bin(self, value: float) -> tuple[int, str]:
        """The bin index and label of ``value``."""
        if self.column is None:
            return 0, "all"
        if self.labels:
            i = next((i for i, e in enumerate(self.edges) if value <= e), len(self.edges))
            return i, self.labels[i]
        lo: float = 0.0 if self.share else self.start
        for i, edge in enumerate(self.edges):
            if (value < edge) if self.share else (value <= edge):
                return i, self._label(lo, edge)
            lo = edge if self.share else edge + 1
        return len(self.edges), (f"{lo * 100:.0f}–100%" if self.share else f"{lo:.0f}+")

    def _label(self, lo: float, hi: float) -> str:
        if self.share:
            return f"{lo * 100:.0f}–{hi * 100:.0f}%"
        return f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"


ALL = Factor("all positions", None)
# the game score: the actor's total minus the best opponent's, before this round
LEAD = Factor(
    "actor's lead in the game",
    "actor_lead",
    (-50, -1, 49),
    phrase="when {bin} in the game",
    labels=("behind by 50+ points", "behind by 1–49", "level or ahead by up to 49", "ahead by 50+"),
)
ACTOR_CARDS = Factor(
    "actor's cards", "actor_cards", (3, 7, 11), start=1, phrase="when it holds {bin} cards"
)
BOMB_FACTORS = (
    ALL,
    Factor(
        "trick + bomb points",
        "trick_plus_bomb_points",
        (5, 10, 15, 20),
        phrase="when the trick and the bomb's own cards are worth {bin} points",
    ),
    Factor(  # a bomb spends 0 (3-5-7-9), 2 (two of J, Q, K) or 3 wilds (J-Q-K)
        "wilds the bomb spends",
        "bomb_wilds",
        (0, 2),
        phrase="when the bomb spends {bin}",
        labels=("no wild", "2 wilds", "3 wilds"),
    ),
    Factor(
        "nearest opponent's cards",
        "min_opponent_cards",
        (2, 5, 9),
        start=1,
        phrase="when the opponent with fewest cards holds {bin} cards",
    ),
    ACTOR_CARDS,
    LEAD,
)
BET_FACTORS = (
    ALL,
    Factor(
        "chance of going out first",
        "first_out",
        (0.2, 0.4, 0.6, 0.8),
        share=True,
        phrase="when the chance of going out first is {bin}",
    ),
    LEAD,
)
COLUMNS = [
    "factor", "bin", "bin_order", "settlement", "bet", "positions",
    "value_diff", "value_low", "value_high", "margin_diff", "margin_low", "margin_high",
    "better_share", "better_low", "better_high",
]  # fmt: skip


def factors(kind: str) -> tuple[Factor, ...]:
    return BOMB_FACTORS if kind == "bombs" else BET_FACTORS


def summarize(kind: str, positions: pl.DataFrame) -> pl.DataFrame:
    """One row per factor, bin (and for bets settlement rule and bet value) with positions."""
    rows: list[dict[str, Any]] = []
    groups: Sequence[tuple[Any, pl.DataFrame]]
    if positions.height == 0:
        groups = []
    elif kind == "bets":
        parts = positions.partition_by("settlement", "bet", as_dict=True, maintain_order=True)
        groups = sorted(parts.items(), key=lambda kv: (str(kv[0][0]), int(kv[0][1])))
    else:
        groups = [((None, None), positions)]
    for key, part in groups:
        for factor in factors(kind):
            rows.extend(_factor_rows(factor, part, key))
    schema: dict[str, pl.DataType | type[pl.DataType]] = {c: pl.Float64 for c in COLUMNS}
    schema |= {"factor": pl.String, "bin": pl.String, "settlement": pl.String}
    schema |= {"bin_order": pl.Int64, "bet": pl.Int64, "positions": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def _factor_rows(factor: Factor, part: pl.DataFrame, key: Any) -> list[dict[str, Any]]:
    """Rows of one factor over one group of positions, in bin order."""
    values = part[factor.column].to_list() if factor.column else [0] * part.height
    bins: dict[tuple[int, str], list[int]] = {}
    for i, v in enumerate(values):
        bins.setdefault(factor.bin(v), []).append(i)
    out = []
    for (order, label), idx in sorted(bins.items()):
        diff = part["value_diff"].to_numpy()[idx]
        margin = part["margin_diff"].to_numpy()[idx]
        mean, lo, hi = paired_mean_ci(diff)
        m_mean, m_lo, m_hi = paired_mean_ci(margin)
        better = int(np.sum(diff > 0))
        b_lo, b_hi = wilson(better, len(idx))
        out.append(
            {
                "factor": factor.name, "bin": label, "bin_order": order,
                "settlement": key[0], "bet": key[1], "positions": len(idx),
                "value_diff": mean, "value_low": lo, "value_high": hi,
                "margin_diff": m_mean, "margin_low": m_lo, "margin_high": m_hi,
                "better_share": better / len(idx), "better_low": b_lo, "better_high": b_hi,
            }
        )  # fmt: skip
    return out


def guidance(kind: str, table: pl.DataFrame) -> list[str]:
    """One plain line per row of ``table``: a claim only where the interval excludes 0."""
    phrases = {f.name: f.phrase for f in factors(kind)}
    return [_line(kind, row, phrases[row["factor"]]) for row in table.iter_rows(named=True)]


def _line(kind: str, row: dict[str, Any], phrase: str) -> str:
    subject = "bomb" if kind == "bombs" else f"bet {row['bet']} ({row['settlement']})"
    where = (" " + phrase.format(bin=row["bin"])) if phrase else " (all positions)"
    n, lo, hi = row["positions"], row["value_low"], row["value_high"]
    if n < 2 or lo is None or math.isnan(lo):
        return f"{subject} or not{where}: no clear answer (only {n} position)"
    numbers = (
        f"{row['value_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] in value, "
        f"{row['margin_diff']:+.1f} [{row['margin_low']:+.1f}, {row['margin_high']:+.1f}] "
        f"points of margin ({n} positions)"
    )
    if lo > 0:
        return f"{subject}{where}: {numbers}"
    if hi < 0:
        return f"do not {subject}{where}: {numbers}"
    return f"{subject} or not{where}: no clear answer ({numbers})"
