"""Per-game metrics of a run, their intervals, and the comparison of two runs.

Everything starts from one table with a row per game (:func:`game_metrics`), computed by
DuckDB over the run's Parquet parts. Every metric is the mean of a per-game value, so two
runs that played the same deals (same seed, players and seating: the same ``deal_seed``
for every ``game_id``) can be compared game by game: a *paired* difference, whose
interval is far narrower than the two runs' own intervals (common random numbers).

Intervals are 95% intervals ``mean ± t·SE``, with the standard error clustered by deal:
with rotated seats consecutive games replay one deal, so they are not independent, and
the deal (not the game) is the unit of the variance estimate. A rate (a per-game value of
0 or 1, :data:`BINARY_METRICS`) gets a Wilson interval instead, at the effective number
of games the clustered standard error implies (at most the games; the deals where the
rate is 0% or 100%, which leave no spread to measure), so it never has zero width; a
difference of rates is ``mean ± t·SE`` when paired games differ (no narrower than the
exact sign-test interval where few of them differ), exactly 0 when the paired games are
identical, otherwise Newcombe's interval built from the two Wilson intervals.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
from scipy.stats import t as student_t

from ..errors import InputError
from ..logs import ledger
from ..logs.manifest import Manifest, config_digest, load_manifest
from ..logs.query import check_parts, connect, damage_from, memory_bounded, run_files
from ..pages import render
from ..stats import newcombe, sign_test_interval, wilson_rate
from ..strategy_spec import StrategySpec

SOURCES = ("going_out", "cards", "bets", "bonus")

# per-game metrics that follow one --strategies entry (suffix _<entry> in the table)
ENTRY_METRICS: dict[str, str] = {
    "win_rate": "the entry wins the game",
    "win_vs_fair": "the entry's win rate times the number of players (1.0 = a fair share)",
    "score": "the entry's final score (mean over its seats)",
    "bet_points": "the entry's net points from bets over the game: its bet points minus its "
    "opponents' (mean per seat on each side)",
}
# per-game metrics of the game itself
GAME_METRICS: dict[str, str] = {
    "margin": "winner's final score minus the runner-up's",
    "rounds": "rounds played (game length)",
    "seat0_win": "seat 0 wins the game (seat advantage)",
    "first_lead_win": "the seat that led round 1 wins the game (lead advantage)",
    "ahead_r1_win": "the seat ahead after round 1 wins the game (ties after round 1: left out)",
    "lead_changes": "how often the lead changes hands: the number of times the seat strictly "
    "ahead on the running totals after a round differs from the seat strictly ahead after the "
    "last round that had one (rounds ending in a tie for the lead are skipped, so a tie is "
    "neither a change nor a new leader)",
    "winner_lead_round": "how late the eventual winner takes the lead for good: the share of "
    "the game's rounds played before the winner is strictly ahead after every round from then "
    "on (0 = ahead from round 1 on; (rounds - 1) / rounds = took it in the last round)",
    **{
        f"decisive_{s}": f"without its {s.replace('_', '-')} points the winner would not be "
        "strictly ahead (how often this source decides the game)"
        for s in SOURCES
    },
    **{
        f"share_{s}": f"share of all points scored in the game that came from {s.replace('_', '-')}"
        for s in SOURCES
    },
}
METRICS: dict[str, str] = {**ENTRY_METRICS, **GAME_METRICS}
#: metrics whose per-game value is 0 or 1: rates, with Wilson intervals (``win_vs_fair``
#: is one too, times the number of players)
BINARY_METRICS = frozenset(
    {"win_rate", "seat0_win", "first_lead_win", "ahead_r1_win"} | {f"decisive_{s}" for s in SOURCES}
)
# entry metrics that measure one entry against the others: meaningless when a single
# entry fills every seat (it wins every game; it has no opponent of another entry)
PAIRING_METRICS = frozenset({"win_rate", "win_vs_fair", "bet_points"})


def has_pairing(strategies: list[str]) -> bool:
    """Whether a run with these ``--strategies`` entries seats more than one entry.

    Entries count, not specs: ``heuristic,heuristic`` is a pairing (self-play between
    entries #0 and #1); ``heuristic`` alone fills every seat and wins every game.
    """
    return len(strategies) > 1


def no_pairing_note(where: str) -> str:
    """The words that replace win rates where (``"in A and B"``) there is no pairing."""
    return (
        f"one strategy fills every seat {where}: no pairing to compare, so no win rate "
        "(mean scores and game figures are compared)"
    )


def metric_column(metric: str, entry: int = 0) -> str:
    """The column of :func:`game_metrics` holding ``metric`` (for ``entry`` if per entry)."""
    if metric in ENTRY_METRICS:
        return f"{metric}_{entry}"
    if metric in GAME_METRICS:
        return metric
    raise InputError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")


def metric_of(column: str) -> str:
    """The metric a column of :func:`game_metrics` holds (``win_rate_1`` -> ``win_rate``)."""
    base, _, tail = column.rpartition("_")
    return base if tail.isdigit() and base in ENTRY_METRICS else column


def same_run(dir_a: Path, a: Manifest, dir_b: Path, b: Manifest) -> str | None:
    """Why two run arguments are one run, or None: the same folder (also through a
    symlink), or the same configuration digest (same strategies, games, rules, seed,
    seats and logging: the same games, as in a copy of the folder). Given twice, its
    games would count twice in a report; compared with itself, it shows nothing."""
    if dir_a.resolve() == dir_b.resolve():
        return "the same folder"
    if config_digest(a.config.as_dict()) == config_digest(b.config.as_dict()):
        return "the same configuration, so the same games"
    return None


def _run_files(run_dir: Path) -> dict[str, list[Path]]:
    """The run's parts, footers checked; InputError for a run without any yet."""
    try:
        return run_files(run_dir)
    except FileNotFoundError as exc:
        raise InputError(f"{exc} (an empty or unfinished run)") from None


def _game_sql(players: int, n_entries: int) -> str:
    seats = range(players)
    sums = ", ".join(f"sum({s}_{k})::DOUBLE AS {s}_{k}" for k in seats for s in (*SOURCES, "total"))
    first = ", ".join(f"total_{k}::DOUBLE AS r1_{k}" for k in seats)
    cols: list[str] = []
    for e in range(n_entries):
        n_seats = " + ".join(f"(coalesce(entry_{k} = {e}, false))::INT" for k in seats)
        score = " + ".join(
            f"CASE WHEN entry_{k} = {e} THEN score_{k}::DOUBLE ELSE 0 END" for k in seats
        )
        bets = " + ".join(f"CASE WHEN entry_{k} = {e} THEN bets_{k} ELSE 0 END" for k in seats)
        others = " + ".join(
            f"CASE WHEN coalesce(entry_{k} = {e}, false) THEN 0 ELSE bets_{k} END" for k in seats
        )
        win = f"(winner_entry = {e})::DOUBLE"
        cols += [
            f"{win} AS win_rate_{e}",
            f"{win} * {players} AS win_vs_fair_{e}",
            f"({score}) / nullif({n_seats}, 0) AS score_{e}",
            f"({bets}) / nullif({n_seats}, 0) - "
            f"coalesce(({others}) / nullif({players} - ({n_seats}), 0), 0) AS bet_points_{e}",
        ]
    scores = [f"score_{k}::DOUBLE" for k in seats]
    if players == 2:
        cols.append(f"abs({scores[0]} - {scores[1]}) AS margin")
    else:
        lst = f"list_sort([{', '.join(scores)}], 'DESC')"
        cols.append(f"{lst}[1] - {lst}[2] AS margin")
    cols += [
        "rounds::DOUBLE AS rounds",
        "(winner = 0)::DOUBLE AS seat0_win",
        "(winner = first_leader)::DOUBLE AS first_lead_win",
    ]
    ahead = " ".join(
        f"WHEN {' AND '.join(f'r1_{k} > r1_{j}' for j in seats if j != k)} THEN (winner = {k})"
        for k in seats
    )
    cols.append(f"(CASE {ahead} ELSE NULL END)::DOUBLE AS ahead_r1_win")
    all_total = " + ".join(f"total_{k}" for k in seats)
    for s in SOURCES:
        adj = {k: f"(score_{k} - {s}_{k})" for k in seats}
        still = " OR ".join(
            f"(winner = {k} AND {' AND '.join(f'{adj[k]} > {adj[j]}' for j in seats if j != k)})"
            for k in seats
        )
        cols.append(f"(NOT ({still}))::DOUBLE AS decisive_{s}")
        src = " + ".join(f"{s}_{k}" for k in seats)
        cols.append(f"({src}) / nullif({all_total}, 0) AS share_{s}")
    cols += [
        "coalesce(lc.changes, 0)::DOUBLE AS lead_changes",
        "wl.took::DOUBLE / rounds AS winner_lead_round",
    ]
    return f"""
        WITH r AS (SELECT game_id, {sums} FROM rounds GROUP BY game_id),
        r0 AS (SELECT game_id, leader AS first_leader, {first} FROM rounds WHERE round = 0),
        {_lead_sql(players)}
        SELECT game_id::BIGINT AS game_id, deal_id::BIGINT AS deal_id, deal_seed,
               {players} AS players, {", ".join(cols)}
        FROM games JOIN r USING (game_id) JOIN r0 USING (game_id)
             LEFT JOIN lc USING (game_id) JOIN wl USING (game_id)
        ORDER BY game_id
    """


def _lead_sql(players: int) -> str:
    """The common table expressions behind ``lead_changes`` and ``winner_lead_round``.

    ``ahead``: per game and round the seat strictly ahead on the running totals after the
    round (null on a tie for the lead); ``lc``: per game the changes of that seat between
    consecutive rounds that have one (a game always tied has no row: 0 changes); ``wl``:
    per game the rounds played before the winner is ahead for good (the last round the
    winner is not strictly ahead, plus one; 0 when ahead after every round).
    """
    seats = range(players)
    running = ", ".join(
        f"sum(total_{k}) OVER (PARTITION BY game_id ORDER BY round "
        f"ROWS UNBOUNDED PRECEDING) AS c_{k}"
        for k in seats
    )
    ahead = " ".join(
        f"WHEN {' AND '.join(f'c_{k} > c_{j}' for j in seats if j != k)} THEN {k}" for k in seats
    )
    return f"""
        cum AS (SELECT game_id, round, {running} FROM rounds),
        ahead AS (SELECT game_id, round, CASE {ahead} ELSE NULL END AS seat FROM cum),
        led AS (SELECT game_id, seat,
                       lag(seat) OVER (PARTITION BY game_id ORDER BY round) AS before
                FROM ahead WHERE seat IS NOT NULL),
        lc AS (SELECT game_id, count(*) FILTER (WHERE seat <> before) AS changes
               FROM led GROUP BY game_id),
        wl AS (SELECT a.game_id,
                      coalesce(max(a.round) FILTER (WHERE a.seat IS DISTINCT FROM g.winner) + 1,
                               0) AS took
               FROM ahead a JOIN games g USING (game_id) GROUP BY a.game_id)"""


@memory_bounded()
def game_metrics(run_dir: Path) -> pl.DataFrame:
    """One row per game: ``game_id``, ``deal_id``, ``deal_seed``, ``players`` and every
    metric column.

    Per-entry metrics carry the entry as suffix (``win_rate_0``, ``score_1``, ...).
    """
    manifest = load_manifest(run_dir)
    players = manifest.players
    n_entries = len(manifest.strategies)
    files = _run_files(run_dir)
    con = connect(run_dir, files)
    try:
        frame: pl.DataFrame = con.sql(_game_sql(players, n_entries)).pl()  # duckdb: Any
    except duckdb.Error as exc:  # damage inside a part: name the part, as query does
        damage = damage_from(run_dir, [f for parts in files.values() for f in parts], exc)
        if damage is None:
            raise
        raise damage from None
    finally:
        con.close()
    return frame


@dataclass(frozen=True)
class Estimate:
    """A mean over games with its 95% interval (clustered by deal)."""

    mean: float
    low: float
    high: float
    n: int  # games with a value
    sd: float  # standard deviation of the per-game value (the spread)


@dataclass(frozen=True)
class Difference:
    """``b - a`` with its 95% interval; paired game by game or not."""

    diff: float
    low: float
    high: float
    n: int  # games paired (paired) or the smaller of the two game counts
    paired: bool


def _clustered(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float, int]:
    """Mean, clustered standard error, number of clusters."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(values.mean())
    _, inverse = np.unique(clusters, return_inverse=True)
    sums = np.bincount(inverse, weights=values - mean)
    m = len(sums)
    if m < 2:
        return mean, math.nan, m
    se = math.sqrt(m / (m - 1) * float((sums**2).sum())) / n
    return mean, se, m


def _tq(df: int) -> float:
    return float(student_t.ppf(0.975, df)) if df >= 1 else math.nan


def binary_scale(frame: pl.DataFrame, column: str) -> float | None:
    """What a column's per-game values are a 0/1 value times (None: not a rate)."""
    metric = metric_of(column)
    if metric in BINARY_METRICS:
        return 1.0
    if metric == "win_vs_fair" and "players" in frame.columns and frame.height:
        return float(frame["players"][0])
    return None


def rate_interval(p: float, se: float, deals: int, games: int) -> tuple[float, float]:
    """Wilson interval of a rate ``p`` over ``games`` games in ``deals`` deals, whose
    deal-clustered standard error is ``se``: at the effective number of games
    ``p(1 - p) / se²`` (at most ``games``); where that is undefined (``p`` at 0% or 100%,
    no spread, a single deal) at the number of deals, so the width never vanishes."""
    if 0 < p < 1 and se > 0:
        n_eff = min(float(games), p * (1 - p) / se**2)
    else:
        n_eff = float(deals)
    return wilson_rate(p, n_eff)


def estimate(frame: pl.DataFrame, column: str) -> Estimate:
    """Mean of ``column`` over the games where it is not null, with its 95% interval
    (Wilson for a rate, :func:`rate_interval`; ``mean ± t·SE`` otherwise)."""
    sub = frame.select("deal_id", column).drop_nulls()
    values = sub[column].to_numpy().astype(float)
    mean, se, m = _clustered(values, sub["deal_id"].to_numpy())
    sd = float(values.std(ddof=1)) if len(values) > 1 else math.nan
    scale = binary_scale(frame, column)
    if scale and len(values):
        low, high = rate_interval(mean / scale, se / scale, m, len(values))
        return Estimate(mean, low * scale, high * scale, len(values), sd)
    half = _tq(m - 1) * se
    return Estimate(mean, mean - half, mean + half, len(values), sd)


def same_deals(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    """Both runs played the same games on the same deals (pairing by game id is valid)."""
    if a.height != b.height or a.height == 0:
        return False
    left = a.select("game_id", "deal_seed").sort("game_id")
    right = b.select("game_id", "deal_seed").sort("game_id")
    return left.equals(right)


def difference(
    a: pl.DataFrame, b: pl.DataFrame, col_a: str, col_b: str, paired: bool
) -> Difference:
    """``mean(b) - mean(a)``: paired by game id (clustered by deal) or two independent means.

    Paired games that are all identical give exactly 0 (no interval width: nothing
    differs, and no number of games would find a difference). For rates: paired,
    ``mean ± t·SE``, widened to the exact conditional interval where fewer than
    :data:`EXACT_BELOW` games differ; with no spread (every game's difference the same
    and not 0) or unpaired, Newcombe's interval from the two Wilson intervals, which never
    has zero width.
    """
    rates = binary_scale(a, col_a) is not None and binary_scale(b, col_b) is not None
    if paired:
        joined = (
            a.select("game_id", "deal_id", pl.col(col_a).alias("_a"))
            .join(b.select("game_id", pl.col(col_b).alias("_b")), on="game_id")
            .drop_nulls()
        )
        d = (joined["_b"] - joined["_a"]).to_numpy().astype(float)
        mean, se, m = _clustered(d, joined["deal_id"].to_numpy())
        if len(d) and not d.any():  # identical games: the difference is exactly 0
            return Difference(0.0, 0.0, 0.0, len(d), True)
        half = _tq(m - 1) * se
        if rates and len(d):
            gains, losses = int((d > 0).sum()), int((d < 0).sum())
            if gains + losses < EXACT_BELOW:
                return _few_discordant(d, mean, half, gains, losses, binary_scale(a, col_a))
            if not se > 0:
                low, high = _newcombe(a, b, col_a, col_b)
                return Difference(mean, low, high, len(d), True)
        return Difference(mean, mean - half, mean + half, len(d), True)
    if rates:
        ra, rb = estimate(a, col_a), estimate(b, col_b)
        low, high = _newcombe(a, b, col_a, col_b)
        return Difference(rb.mean - ra.mean, low, high, min(ra.n, rb.n), False)
    ea, eb = _se_of(a, col_a), _se_of(b, col_b)
    diff = eb[0] - ea[0]
    half = _tq(min(ea[2], eb[2]) - 1) * math.sqrt(ea[1] ** 2 + eb[1] ** 2)
    return Difference(diff, diff - half, diff + half, min(ea[3], eb[3]), False)


#: below this many discordant games (paired games whose rate differs) a paired difference of
#: rates also takes the exact conditional interval (:func:`~haggis_sim.stats.sign_test_interval`)
EXACT_BELOW = 100


def _few_discordant(
    d: np.ndarray, mean: float, half: float, gains: int, losses: int, scale: float | None
) -> Difference:
    """A paired difference of rates over few discordant games: the wider of the clustered
    ``mean ± t·SE`` interval and the exact conditional one, so a handful of games all one
    way is not called separable by a normal approximation."""
    s = scale or 1.0
    low, high = sign_test_interval(gains, losses, len(d))
    low, high = low * s, high * s
    if half > 0:
        low, high = min(low, mean - half), max(high, mean + half)
    return Difference(mean, low, high, len(d), True)


def _newcombe(a: pl.DataFrame, b: pl.DataFrame, col_a: str, col_b: str) -> tuple[float, float]:
    ea, eb = estimate(a, col_a), estimate(b, col_b)
    if math.isnan(ea.mean) or math.isnan(eb.mean):
        return math.nan, math.nan
    return newcombe(ea.mean, (ea.low, ea.high), eb.mean, (eb.low, eb.high))


def _se_of(frame: pl.DataFrame, column: str) -> tuple[float, float, int, int]:
    sub = frame.select("deal_id", column).drop_nulls()
    values = sub[column].to_numpy().astype(float)
    mean, se, m = _clustered(values, sub["deal_id"].to_numpy())
    return mean, se, m, len(values)


@dataclass(frozen=True)
class CompareRow:
    metric: str  # metric name (see METRICS)
    label: str  # what is measured, in words (with the entry's strategy)
    column: str
    a: Estimate
    b: Estimate
    diff: Difference


@dataclass(frozen=True)
class Comparison:
    run_a: str
    run_b: str
    rules_a: str
    rules_b: str
    strategies_a: list[str]
    strategies_b: list[str]
    paired: bool
    note: str
    rows: list[CompareRow]
    no_pairing: list[str] = field(default_factory=list)  # "A"/"B": one entry in every seat

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


COMPARE_GAME_METRICS = (
    "margin",
    "rounds",
    "seat0_win",
    *(f"share_{s}" for s in SOURCES),
)


def _rules_label(run_dir: Path) -> str:
    files = ledger.table_files(run_dir, "games")
    if not files:
        return ""
    check_parts(run_dir, files)
    try:
        first = pl.scan_parquet(files, glob=False).select("rules").head(1).collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        damage = damage_from(run_dir, files, exc)
        if damage is None:
            raise
        raise damage from None
    return str(first["rules"][0]) if first.height else ""


def compare_runs(run_a: Path, run_b: Path) -> Comparison:
    """The metrics of two runs side by side, with ``B - A`` and its 95% interval.

    Paired by game id when both runs played the same deals (same seed, players and
    seating, same game ids); otherwise an unpaired interval, and ``note`` says so.
    Per-entry metrics are compared for the entries both runs have; win rates only when
    both runs have a pairing (:func:`has_pairing`), and ``note`` says when one has not.
    """
    ma, mb = load_manifest(run_a), load_manifest(run_b)
    why = same_run(run_a, ma, run_b, mb)
    if why:
        raise InputError(
            f"{run_a} and {run_b} are the same run ({why}): comparing a run with itself "
            "shows nothing; give two different runs"
        )
    fa, fb = game_metrics(run_a), game_metrics(run_b)
    specs_a, specs_b = ma.specs, mb.specs
    paired = ma.players == mb.players and same_deals(fa, fb)
    if paired:
        note = f"paired by game id: both runs played the same deals ({fa.height:,} games)"
    else:
        reasons = []
        if ma.players != mb.players:
            reasons.append(f"{ma.players} vs {mb.players} players")
        if ma.seed != mb.seed:
            reasons.append(f"seeds {ma.seed} vs {mb.seed}")
        if fa.height != fb.height:
            reasons.append(f"{fa.height:,} vs {fb.height:,} games")
        why = "; ".join(reasons) or "the deals differ"
        note = f"unpaired (the runs did not play the same deals: {why}): independent intervals"
    lone = [name for name, specs in (("A", specs_a), ("B", specs_b)) if not has_pairing(specs)]
    if lone:
        note += f"; {no_pairing_note('in ' + ' and '.join(lone))}"
    rows: list[CompareRow] = []
    for metric in ("score",) if lone else ("win_rate", "score"):
        for e in range(min(len(specs_a), len(specs_b))):
            col = metric_column(metric, e)
            same = specs_a[e] == specs_b[e]
            who = StrategySpec.parse(specs_a[e]).name if same else f"{specs_a[e]} / {specs_b[e]}"
            label = f"{'win rate' if metric == 'win_rate' else 'mean final score'} of #{e} {who}"
            rows.append(_row(metric, label, col, fa, fb, paired))
    for metric in COMPARE_GAME_METRICS:
        rows.append(_row(metric, GAME_METRICS[metric], metric, fa, fb, paired))
    return Comparison(
        run_a=str(run_a),
        run_b=str(run_b),
        rules_a=_rules_label(run_a),
        rules_b=_rules_label(run_b),
        strategies_a=specs_a,
        strategies_b=specs_b,
        paired=paired,
        note=note,
        rows=rows,
        no_pairing=lone,
    )


def _row(
    metric: str, label: str, col: str, fa: pl.DataFrame, fb: pl.DataFrame, paired: bool
) -> CompareRow:
    return CompareRow(
        metric,
        label,
        col,
        estimate(fa, col),
        estimate(fb, col),
        difference(fa, fb, col, col, paired),
    )


RATE_METRICS = {"win_rate", "seat0_win", "first_lead_win", "ahead_r1_win", "winner_lead_round"} | {
    f"{p}_{s}" for p in ("decisive", "share") for s in SOURCES
}


def fmt_value(metric: str, value: float, signed: bool = False) -> str:
    """A metric value for display: rates and shares as percent, points with one decimal."""
    if math.isnan(value):
        return "–"
    sign = "+" if signed else ""
    if metric in RATE_METRICS:
        return f"{value:{sign}.1%}"
    if metric == "win_vs_fair":
        return f"{value:{sign}.3f}"
    return f"{value:{sign}.2f}"


def fmt_interval(metric: str, low: float, high: float, signed: bool = False) -> str:
    if math.isnan(low) or math.isnan(high):
        return "–"
    return f"{fmt_value(metric, low, signed)} … {fmt_value(metric, high, signed)}"


def fair_value(metric: str, players: int, seats: int = 1) -> float | None:
    """The value ``metric`` takes when nobody has an edge, or None if it has no such value:
    a fair share ``seats / players`` for an entry filling ``seats`` seats (``win_rate``;
    ``seats`` for ``win_vs_fair``), ``1 / players`` for seat 0 and the first leader."""
    if metric == "win_rate":
        return seats / players
    if metric == "win_vs_fair":
        return float(seats)
    if metric in ("seat0_win", "first_lead_win"):
        return 1 / players
    return None


def fmt_change(metric: str, value: float) -> str:
    """A signed difference: rates and shares in percentage points, others as displayed."""
    if math.isnan(value):
        return "–"
    if metric in RATE_METRICS:
        return f"{value * 100:+.1f} points"
    return fmt_value(metric, value, signed=True)


def fmt_width(metric: str, width: float) -> str:
    """A half-width or tolerance: ``±1.5 points`` (a rate or share), ``±0.10`` (rounds),
    ``±0.045`` (win vs fair)."""
    return "±" + fmt_change(metric, width).lstrip("+")


def fair_claim(metric: str, mean: float, low: float, high: float, fair: float) -> str:
    """How a value compares with its fair value: "no edge" only when the 95% interval
    holds the fair value; otherwise the measured edge with its interval."""
    fair_text = fmt_value(metric, fair)
    if math.isnan(mean) or math.isnan(low) or math.isnan(high):
        return f"no interval to compare with a fair {fair_text}"
    if low <= fair <= high:
        return (
            f"no edge over a fair {fair_text} separable at 95% "
            f"({fmt_value(metric, mean)}, 95% {fmt_interval(metric, low, high)})"
        )
    return (
        f"an edge of {fmt_change(metric, mean - fair)} over a fair {fair_text} "
        f"(95% {fmt_change(metric, low - fair)} … {fmt_change(metric, high - fair)})"
    )


def compare_section_html(comparison: Comparison) -> str:
    """An HTML fragment (a heading, a note and a table) for a report to embed (template
    ``compare.html.j2``); rows whose interval excludes 0 are marked ``significant``."""
    rows = [
        {
            "significant": not (r.diff.low <= 0 <= r.diff.high),
            "cells": [
                r.label,
                fmt_value(r.metric, r.a.mean),
                fmt_value(r.metric, r.b.mean),
                fmt_value(r.metric, r.diff.diff, signed=True),
                fmt_interval(r.metric, r.diff.low, r.diff.high, signed=True),
            ],
        }
        for r in comparison.rows
    ]
    return render(
        "compare.html.j2",
        c=comparison,
        strategies_a=", ".join(comparison.strategies_a),
        strategies_b=", ".join(comparison.strategies_b),
        rows=rows,
    )
