"""The end-of-run summary: win rate per strategy entry with a 95% Wilson interval.

When one strategy entry fills every seat (``--strategies heuristic``) it wins every game
by construction: there is no pairing, so the summary says so and shows no win rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..logs import ledger
from ..stats import wilson


@dataclass(frozen=True)
class EntrySummary:
    entry: int
    spec: str
    games: int
    wins: int
    win_rate: float
    low: float
    high: float
    mean_score: float


def summarize(run_dir: Path, specs: list[str], players: int) -> list[EntrySummary]:
    """Per --strategies entry: games, wins, win rate with interval, mean final score.

    An entry that fills several seats of a game (fewer strategies than seats) wins the
    game when any of its seats wins; its score is the mean over its seats.
    """
    games = ledger.read_table(run_dir, "games")
    aggregations = []
    for e in range(len(specs)):
        seats = [pl.col(f"entry_{k}") == e for k in range(players)]
        filled = pl.sum_horizontal(seats)  # the seats entry e fills in a game
        scores = pl.sum_horizontal(
            pl.when(seat).then(pl.col(f"score_{k}")).otherwise(0) for k, seat in enumerate(seats)
        )
        aggregations += [
            (filled > 0).sum().alias(f"games_{e}"),
            (pl.col("winner_entry") == e).sum().alias(f"wins_{e}"),
            (scores / filled).filter(filled > 0).mean().alias(f"score_{e}"),
        ]
    # one streaming pass, a few numbers per entry: memory does not grow with the games
    totals = games.select(aggregations).collect(engine="streaming").row(0, named=True)
    rows = [
        {"entry": e, "games": totals[f"games_{e}"], "wins": totals[f"wins_{e}"],
         "mean_score": totals[f"score_{e}"]}
        for e in range(len(specs)) if totals[f"games_{e}"]
    ]  # fmt: skip
    out = []
    for row in rows:
        lo, hi = wilson(int(row["wins"]), int(row["games"]))
        out.append(
            EntrySummary(
                entry=int(row["entry"]),
                spec=specs[int(row["entry"])],
                games=int(row["games"]),
                wins=int(row["wins"]),
                win_rate=row["wins"] / row["games"],
                low=lo,
                high=hi,
                mean_score=float(row["mean_score"]),
            )
        )
    return out


NO_PAIRING = (
    "one strategy fills every seat: no pairing to compare; seat and score figures are in the logs"
)


def has_pairing(rows: list[EntrySummary]) -> bool:
    """Whether the games seat more than one strategy entry, so that win rates compare them.

    Entries count, not specs: ``heuristic,heuristic`` is two entries (self-play, about
    even), while ``heuristic`` alone is one entry in every seat that wins every game.
    """
    return len(rows) > 1


def summary_table(rows: list[EntrySummary], games: int, seconds: float) -> RenderableType:
    """The end-of-run table: per entry games, wins, win rate with interval, mean score.

    Without a pairing (see :func:`has_pairing`) the win columns are left out and a line
    says why: a 100% win rate of the only entry would be meaningless.
    """
    rate = f" ({games / seconds:,.0f} games/s)" if seconds > 0 else ""
    table = Table(title=f"{games:,} games in {seconds:,.1f} s{rate}")
    paired = has_pairing(rows)
    cols: tuple[str, ...] = (
        "#",
        "strategy",
        "games",
        "wins",
        "win rate",
        "95% interval",
        "mean score",
    )
    if not paired:
        cols = ("#", "strategy", "games", "mean score")
    for col in cols:
        table.add_column(col, justify="left" if col == "strategy" else "right")
    for r in rows:
        if paired:
            table.add_row(
                str(r.entry), r.spec, f"{r.games:,}", f"{r.wins:,}", f"{r.win_rate:.1%}",
                f"{r.low:.2%} – {r.high:.2%}", f"{r.mean_score:.1f}",
            )  # fmt: skip
        else:
            table.add_row(str(r.entry), r.spec, f"{r.games:,}", f"{r.mean_score:.1f}")
    if paired:
        return table
    return Group(table, Text(NO_PAIRING))
