"""The end-of-run summary: win rate per strategy entry with a 95% Wilson interval."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..analytics.stats import wilson
from . import ledger


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
    seat_rows = pl.concat(
        [
            games.select(
                pl.col(f"entry_{k}").alias("entry"),
                pl.col(f"score_{k}").alias("score"),
                "game_id",
                "winner_entry",
            )
            for k in range(players)
        ]
    )
    per_game = seat_rows.group_by("game_id", "entry").agg(
        pl.col("score").mean(), (pl.col("winner_entry") == pl.col("entry")).first().alias("won")
    )
    table = (
        per_game.group_by("entry")
        .agg(
            pl.len().alias("games"),
            pl.col("won").sum().alias("wins"),
            pl.col("score").mean().alias("mean_score"),
        )
        .sort("entry")
        .collect()
    )
    out = []
    for row in table.iter_rows(named=True):
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
