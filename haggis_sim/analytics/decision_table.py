"""A decision study's table by situation, and guidance drawn from it only where data say so.

Each position of a study (:mod:`haggis_sim.counterfactual.decisions`) carries one
difference: bomb minus the best non-bomb play, or a bet minus not betting, in the
search's reward (``value_diff``) and in round margin points. Positions are binned one
situation factor at a time (the trick's and bomb's points, the wilds a bomb spends, the
nearest opponent's cards; for bets the chance of going out first, per settlement rule
and bet value), and by the factors that decide crossed (:data:`BOMB_CROSS`: wilds ×
nearest opponent's cards × trick + bomb points; :data:`BET_CROSS`: chance of going out
first × the actor's lead). Each bin gets the mean difference with a 95% interval and the
share of positions where the alternative was better.

Intervals under stratified sampling (:mod:`haggis_sim.counterfactual.decisions` scores
at most ``min_per_bin`` positions per stratum, a cell of the crossing, so rare cells are
not drowned by common ones): a position carries its stratum and weight ``seen / scored``
of that stratum. A bin whose positions all come from one stratum is a random sample of
it: its mean and Student-t interval are the plain ones across positions. A bin spanning
strata — the "all positions" row, most one-factor rows — is *reweighted* to the strata's
shares among the opportunities the study looked at (a random sample of the run's): the
weighted mean, with the linearized variance of a stratified domain mean (per stratum
``N_h² s²_h / n_h`` of the deviations inside the bin, 0 outside it, over the bin's
weighted size squared), a t interval on ``positions - 1`` degrees of freedom. So every
row estimates its bin as the run's play meets it, not as the sampling over-represents
it. The share where the alternative was better is the (reweighted) share with a Wilson
interval on the bin's positions.

A guidance line makes a claim ("bomb when …", "do not bet 30 when …") only where the
interval of the mean value difference excludes 0 and the bin holds at least
``min_per_bin`` positions; a smaller bin says "too few positions (n)", an interval over 0
"no clear answer". Each line is also an :class:`Advice` record (the bin as conditions on
named features, see :mod:`haggis_sim.counterfactual.decisions` for their definitions)
that a player can follow.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sps

from ..stats import paired_mean_ci, wilson

#: a feature's range in an :class:`Advice`: [low, high], both ends included
Range = list[float]
#: the bound of an open end (a bin "9+" is [9, OPEN], "behind by 50+" [-OPEN, -50]):
#: finite, so a record is plain JSON and every range reads low <= x <= high
OPEN = 1e9


@dataclass(frozen=True)
class Factor:
    """One way to bin positions: a column, its bin edges, and how a guidance line reads it."""

    name: str  # the table's label
    column: str | None  # None: every position in one bin
    edges: tuple[float, ...] = ()  # upper bounds: inclusive for counts, exclusive for shares
    start: int | None = 0  # the smallest count (labels of the first bin); None: unbounded
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
        lo: float = 0.0 if self.share else (self.start or 0)
        for i, edge in enumerate(self.edges):
            if (value < edge) if self.share else (value <= edge):
                return i, self._label(lo, edge)
            lo = edge if self.share else edge + 1
        return len(self.edges), (f"{lo * 100:.0f}–100%" if self.share else f"{lo:.0f}+")

    def where(self, label: str) -> str:
        """The bin's phrase in a guidance line (" (all positions)" without a column)."""
        return " " + self.phrase.format(bin=label) if self.phrase else " (all positions)"

    def conditions(self, order: int) -> dict[str, Range]:
        """Bin ``order`` as ``{column: [low, high]}``, both ends included (:data:`OPEN`
        where the bin has no bound). A share's bin ``[a, b)`` reads ``[a, b⁻]``, ``b⁻``
        the largest float below ``b`` (the top bin up to 1), so it is inclusive too."""
        if self.column is None:
            return {}
        last = order == len(self.edges)
        if self.share:
            lo = 0.0 if order == 0 else self.edges[order - 1]
            hi = 1.0 if last else float(np.nextafter(self.edges[order], 0.0))
            return {self.column: [lo, hi]}
        first = -OPEN if self.start is None else self.start
        low = first if order == 0 else self.edges[order - 1] + 1
        return {self.column: [float(low), OPEN if last else float(self.edges[order])]}

    def _label(self, lo: float, hi: float) -> str:
        if self.share:
            return f"{lo * 100:.0f}–{hi * 100:.0f}%"
        return f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"


@dataclass(frozen=True)
class Cross:
    """Factors crossed: a bin is one bin of each (where positions fall), labelled together."""

    name: str
    parts: tuple[Factor, ...]

    @property
    def column(self) -> str:
        return self.name

    def where(self, label: str) -> str:
        """ " when A and B and C" for the cell labelled ``label`` (its parts' labels)."""
        said = [f.where(b).strip() for f, b in zip(self.parts, label.split(", "), strict=True)]
        return " " + " and ".join([said[0], *(w.removeprefix("when ") for w in said[1:])])

    def sizes(self) -> tuple[int, ...]:
        """Bins of each part: the crossing has their product of cells."""
        return tuple(len(f.edges) + 1 for f in self.parts)

    def key(self, row: dict[str, Any]) -> tuple[int, str]:
        """The cell of a position (its features ``row``): order (mixed radix) and label."""
        bins = [f.bin(row[f.column]) if f.column else (0, "all") for f in self.parts]
        order = 0
        for (i, _), size in zip(bins, self.sizes(), strict=True):
            order = order * size + i
        return order, ", ".join(label for _, label in bins)

    def conditions(self, order: int) -> dict[str, Range]:
        out: dict[str, Range] = {}
        for f, size in reversed(list(zip(self.parts, self.sizes(), strict=True))):
            out = f.conditions(order % size) | out
            order //= size
        return out


ALL = Factor("all positions", None)
# the game score: the actor's total minus the best opponent's, before this round
LEAD = Factor(
    "actor's lead in the game",
    "actor_lead",
    (-50, -1, 49),
    start=None,
    phrase="when {bin} in the game",
    labels=("behind by 50+ points", "behind by 1–49", "level or ahead by up to 49", "ahead by 50+"),
)
ACTOR_CARDS = Factor(
    "actor's cards", "actor_cards", (3, 7, 11), start=1, phrase="when it holds {bin} cards"
)
POINTS_PHRASE = "when the trick and the bomb's own cards are worth {bin} points"
WILDS = Factor(  # a bomb spends 0 (3-5-7-9), 2 (two of J, Q, K) or 3 wilds (J-Q-K)
    "wilds the bomb spends",
    "bomb_wilds",
    (0, 2),
    phrase="when the bomb spends {bin}",
    labels=("no wild", "2 wilds", "3 wilds"),
)
NEAREST = Factor(
    "nearest opponent's cards",
    "min_opponent_cards",
    (3, 8),
    start=1,
    phrase="when the opponent with fewest cards holds {bin} cards",
)
FIRST_OUT = Factor(
    "chance of going out first",
    "first_out",
    (0.2, 0.4, 0.6, 0.8),
    share=True,
    phrase="when the chance of going out first is {bin}",
)
#: the cells stratified sampling fills: the factors that decide a bomb, crossed
BOMB_CROSS = Cross(
    "wilds × nearest opponent's cards × trick + bomb points",
    (
        WILDS,
        NEAREST,
        Factor("trick + bomb points", "trick_plus_bomb_points", (9,), phrase=POINTS_PHRASE),
    ),
)
#: and a bet's
BET_CROSS = Cross("chance of going out first × actor's lead", (FIRST_OUT, LEAD))
BOMB_FACTORS: tuple[Factor | Cross, ...] = (
    ALL,
    Factor("trick + bomb points", "trick_plus_bomb_points", (5, 10, 15, 20), phrase=POINTS_PHRASE),
    WILDS,
    NEAREST,
    ACTOR_CARDS,
    LEAD,
    BOMB_CROSS,
)
BET_FACTORS: tuple[Factor | Cross, ...] = (ALL, FIRST_OUT, LEAD, BET_CROSS)
COLUMNS = [
    "factor", "bin", "bin_order", "settlement", "bet", "positions",
    "value_diff", "value_low", "value_high", "margin_diff", "margin_low", "margin_high",
    "better_share", "better_low", "better_high",
]  # fmt: skip


def factors(kind: str) -> tuple[Factor | Cross, ...]:
    return BOMB_FACTORS if kind == "bombs" else BET_FACTORS


def crossing(kind: str) -> Cross:
    """The crossed factors whose cells a study's stratified sampling fills."""
    return BOMB_CROSS if kind == "bombs" else BET_CROSS


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


def _factor_rows(factor: Factor | Cross, part: pl.DataFrame, key: Any) -> list[dict[str, Any]]:
    """Rows of one factor over one group of positions, in bin order."""
    bins: dict[tuple[int, str], list[int]] = {}
    for i, row in enumerate(part.iter_rows(named=True)):
        cell = factor.key(row) if isinstance(factor, Cross) else _one(factor, row)
        bins.setdefault(cell, []).append(i)
    weight, stratum = _strata(part)
    diff = part["value_diff"].to_numpy()
    margin = part["margin_diff"].to_numpy()
    better = (diff > 0).astype(float)
    out = []
    for (order, label), idx in sorted(bins.items()):
        inside = np.zeros(part.height, dtype=bool)
        inside[idx] = True
        mean, lo, hi = bin_mean_ci(diff, weight, stratum, inside)
        m_mean, m_lo, m_hi = bin_mean_ci(margin, weight, stratum, inside)
        share = bin_mean_ci(better, weight, stratum, inside)[0]
        b_lo, b_hi = wilson(round(share * len(idx)), len(idx))  # reweighted share, n positions
        out.append(
            {
                "factor": factor.name, "bin": label, "bin_order": order,
                "settlement": key[0], "bet": key[1], "positions": len(idx),
                "value_diff": mean, "value_low": lo, "value_high": hi,
                "margin_diff": m_mean, "margin_low": m_lo, "margin_high": m_hi,
                "better_share": share, "better_low": b_lo, "better_high": b_hi,
            }
        )  # fmt: skip
    return out


def _one(factor: Factor, row: dict[str, Any]) -> tuple[int, str]:
    return factor.bin(row[factor.column]) if factor.column else (0, "all")


def _strata(part: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each position's weight and stratum (all 1 and one stratum when not stratified)."""
    if "weight" not in part.columns:
        return np.ones(part.height), np.zeros(part.height, dtype=np.int64)
    return part["weight"].to_numpy().astype(float), part["stratum"].to_numpy()


def bin_mean_ci(
    y: np.ndarray, weight: np.ndarray, stratum: np.ndarray, inside: np.ndarray
) -> tuple[float, float, float]:
    """Mean of ``y`` over the positions ``inside`` a bin, with its 95% interval.

    One stratum in the bin: the plain mean and t interval across its positions. Several:
    the weighted mean (``weight`` = opportunities seen / positions scored, per stratum)
    with the stratified domain estimator's variance, ``sum_h N_h² s²_h / n_h / W²`` where
    ``s²_h`` is the variance over stratum h's scored positions of ``y - mean`` inside the
    bin and 0 outside, ``N_h`` the stratum's opportunities, ``W`` the bin's weighted size;
    t on ``positions - 1`` degrees of freedom. NaN bounds for a single position.
    """
    if len(set(stratum[inside].tolist())) == 1:
        return paired_mean_ci(y[inside])
    w = weight[inside]
    total = float(w.sum())
    mean = float((w * y[inside]).sum() / total)
    z = np.where(inside, y - mean, 0.0)
    var = 0.0
    for h in set(stratum[inside].tolist()):
        sel = stratum == h
        n_h = int(sel.sum())
        big_n = float(weight[sel][0]) * n_h
        s2 = float(z[sel].var(ddof=1)) if n_h > 1 else float(z[sel][0] ** 2)
        var += big_n * big_n * s2 / n_h
    half = float(sps.t.ppf(0.975, int(inside.sum()) - 1)) * math.sqrt(var) / total
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Advice:
    """One guidance line as a record a player can follow (JSON in ``summary.json``).

    ``bin`` is the bin as conditions: feature column -> [low, high], both ends included
    (see :meth:`Factor.conditions`; :data:`OPEN` for no bound), ``label`` its words;
    ``advice`` is "bomb" / "do not bomb", for bets "bet" (``bet`` the value, under
    ``settlement``) / "no bet", None where the line gives no advice (no clear answer, too
    few positions). The value difference and its interval are in the search's reward.
    """

    kind: str
    factor: str
    label: str
    bin: dict[str, Range]
    advice: str | None
    bet: int | None
    settlement: str | None
    value_diff: float | None
    value_low: float | None
    value_high: float | None
    margin_diff: float | None
    margin_low: float | None
    margin_high: float | None
    positions: int
    text: str


def guidance(kind: str, table: pl.DataFrame, min_per_bin: int = 0) -> list[str]:
    """One plain line per row of ``table``: a claim only where the interval excludes 0 and
    the bin holds at least ``min_per_bin`` positions (and 2)."""
    return [a.text for a in advice(kind, table, min_per_bin)]


def advice(kind: str, table: pl.DataFrame, min_per_bin: int = 0) -> list[Advice]:
    """The guidance lines of :func:`guidance` as :class:`Advice` records, one per row."""
    by_name = {f.name: f for f in factors(kind)}
    out = []
    for row in table.iter_rows(named=True):
        factor = by_name[row["factor"]]
        text, claim = _line(kind, row, factor.where(row["bin"]), max(2, min_per_bin))
        out.append(
            Advice(
                kind=kind,
                factor=row["factor"],
                label=row["bin"],
                bin=factor.conditions(row["bin_order"]),
                advice=_advice(kind, claim),
                bet=row["bet"],
                settlement=row["settlement"],
                **{k: _number(row[k]) for k in _NUMBERS},
                positions=row["positions"],
                text=text,
            )
        )
    return out


_NUMBERS = ("value_diff", "value_low", "value_high", "margin_diff", "margin_low", "margin_high")


def _number(v: float | None) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def _advice(kind: str, claim: int) -> str | None:
    if claim == 0:
        return None
    if kind == "bombs":
        return "bomb" if claim > 0 else "do not bomb"
    return "bet" if claim > 0 else "no bet"


def _line(kind: str, row: dict[str, Any], where: str, least: int) -> tuple[str, int]:
    """The line of one row and its claim: +1 for, -1 against, 0 none."""
    subject = "bomb" if kind == "bombs" else f"bet {row['bet']} ({row['settlement']})"
    n, lo, hi = row["positions"], row["value_low"], row["value_high"]
    if n < least or lo is None or math.isnan(lo):
        return f"{subject} or not{where}: too few positions ({n})", 0
    numbers = (
        f"{row['value_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] in value, "
        f"{row['margin_diff']:+.1f} [{row['margin_low']:+.1f}, {row['margin_high']:+.1f}] "
        f"points of margin ({n} positions)"
    )
    if lo > 0:
        return f"{subject}{where}: {numbers}", 1
    if hi < 0:
        return f"do not {subject}{where}: {numbers}", -1
    return f"{subject} or not{where}: no clear answer ({numbers})", 0
