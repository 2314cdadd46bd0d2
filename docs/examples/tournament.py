"""A tournament from Python: greedy against the heuristic, a polars query, one figure.

Run it as ``python docs/examples/tournament.py [FIGURE]`` (default ``tournament.png``).
It prints each strategy's win rate with its 95% interval, the heuristic's win rate by
the seat it played from, and saves a histogram of the final scores to FIGURE.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # draw into files, no window
import matplotlib.pyplot as plt
import polars as pl

from haggis_sim.runner.tournament import tournament

figure = Path(sys.argv[1] if len(sys.argv) > 1 else "tournament.png")

# 2,000 games of two players. Seats rotate: each deal is played twice, once from each
# seat. out=None plays into a temporary folder that the with block deletes at its end.
with tournament(["greedy", "heuristic"], games=2000, seed=7) as result:
    # the summary `haggis-sim run` prints: one row per strategy, win rate with interval
    for row in result.summary.iter_rows(named=True):
        name = row["strategy"].split(":")[0]  # the full spec is e.g. heuristic:bet=0.55,...
        print(
            f"{name}: won {row['win_rate']:.1%} of {row['games']:,} games "
            f"(95% interval {row['low']:.1%} to {row['high']:.1%}), "
            f"mean final score {row['mean_score']:.0f}"
        )

    # a polars query on the games table: the heuristic (entry 1) by the seat it sat in
    games = result.games
    heuristic = 1
    by_seat = (
        pl.concat(
            games.filter(pl.col(f"entry_{seat}") == heuristic).select(
                pl.lit(seat).alias("seat"), (pl.col("winner") == seat).alias("won")
            )
            for seat in (0, 1)
        )
        .group_by("seat")
        .agg(pl.len().alias("games"), pl.col("won").mean().alias("win_rate"))
        .sort("seat")
    )
    for row in by_seat.iter_rows(named=True):
        print(
            f"heuristic from seat {row['seat']}: won {row['win_rate']:.1%} "
            f"of {row['games']:,} games"
        )

    # each strategy's final score in every game (the seat it sat in decides the column)
    scores = games.select(
        *(
            pl.when(pl.col("entry_0") == entry)
            .then(pl.col("score_0"))
            .otherwise(pl.col("score_1"))
            .alias(name)
            for entry, name in enumerate(["greedy", "heuristic"])
        )
    )

fig, ax = plt.subplots(figsize=(7, 4))
bins = range(0, int(scores.max().max_horizontal()[0]) + 10, 10)  # the same 10-point bins
for name in scores.columns:
    ax.hist(scores[name], bins=bins, alpha=0.6, label=name)
ax.set_xlabel("final score")
ax.set_ylabel("games")
ax.set_title("Final scores, greedy vs heuristic (2,000 games)")
ax.legend()
fig.tight_layout()
fig.savefig(figure, dpi=100)
print(f"figure: {figure}")
