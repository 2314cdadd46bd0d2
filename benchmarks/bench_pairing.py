"""How much two arms that share their deals still share: where their games part ways.

Run from the repository root: ``python benchmarks/bench_pairing.py``; the table is also
written to ``benchmarks/results/bench_pairing.md`` (``--out``). For each of the two
questions whose answers need the most games, two arms are played on the same deals and
seeds with move logs (the question's rule or setting the only difference):

* scoring-rules' comebacks (``ahead_r1_win``): ``learned`` in all three seats, fixed
  seats, revised rules with the old card points against the per-card scoring;
* bomb-timing's win rate: ``heuristic:bomb=early`` against ``heuristic:bomb=late``,
  each against ``learned``, two players, rotated seats.

Reported per question: the share of games whose moves differ somewhere between the arms,
how far into a game (share of its moves, the first arm's) the first difference comes,
the correlation of the two arms' per-game outcomes (Fisher's 95% interval, over whole
deals), and the games per arm a ±1.5-point 95% interval needs as two independent means
and paired deal by deal (today's estimator,
:func:`haggis_sim.analytics.compare.difference`). The paired estimator gains
``1 / (1 - correlation)`` over independent means; replaying a game several times from
where the arms part ways (conditional Monte Carlo) saves at most the share of moves
before that point on every extra replay.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
from _results import add_out_option, recorded

import haggis_sim as hs
from haggis_sim.analytics.compare import difference, game_metrics
from haggis_sim.experiment.ladder import RATE_TOLERANCE
from haggis_sim.experiment.separation import Z95
from haggis_sim.runner.run import RunConfig, execute
from haggis_sim.stats import games_for_half_width

# (question, metric column, players, seats, [(arm label, strategies, rule overrides)])
QUESTIONS = [
    (
        "scoring-rules: ahead_r1_win, per-card − old points, learned ×3",
        "ahead_r1_win",
        3,
        "fixed",
        [
            ("old points", ["learned"], {"card_points": "classic"}),
            ("per-card", ["learned"], {"card_points": "per_card"}),
        ],
    ),
    (
        "bomb-timing: win rate of the heuristic, early − late, against learned",
        "win_rate_0",
        2,
        "rotate",
        [
            ("late", ["heuristic:bomb=late", "learned"], {}),
            ("early", ["heuristic:bomb=early", "learned"], {}),
        ],
    ),
]


def play(folder: Path, strategies: list[str], players: int, seats: str, rule: dict, games: int,
         seed: int, jobs: int) -> None:  # fmt: skip
    rules = hs.Rules.preset("revised", players=players).as_dict() | rule
    config = RunConfig(
        strategies=strategies, games=games, rules=rules, seed=seed, seats=seats,
        log_moves=True, jobs=jobs, command="bench_pairing",
    )  # fmt: skip
    execute(config, folder)


def first_difference(a: Path, b: Path) -> pl.DataFrame:
    """Per game of ``a``: its move count and the index (from 1) of its first move that
    differs from ``b``'s (null: the same moves throughout)."""
    order = "row_number() OVER (PARTITION BY game_id ORDER BY round, turn)"
    cols = "game_id, seat, type, cards"
    sql = f"""
        WITH ma AS (SELECT {cols}, {order} AS i FROM read_parquet('{a}/moves/*.parquet')),
             mb AS (SELECT {cols}, {order} AS i FROM read_parquet('{b}/moves/*.parquet'))
        SELECT ma.game_id AS game_id, count(*) AS moves,
               min(ma.i) FILTER (WHERE mb.i IS NULL OR ma.seat != mb.seat
                   OR ma.type != mb.type OR ma.cards IS DISTINCT FROM mb.cards) AS first
        FROM ma LEFT JOIN mb USING (game_id, i) GROUP BY ma.game_id
    """
    con = duckdb.connect()
    try:
        frame: pl.DataFrame = con.sql(sql).pl()
    finally:
        con.close()
    return frame


def correlation_interval(rho: float, deals: int) -> tuple[float, float]:
    """Fisher's 95% interval for a correlation, counting only whole deals as
    independent (a deal's games share their cards): wider than the games would give."""
    half = Z95 / math.sqrt(deals - 3)
    return math.tanh(math.atanh(rho) - half), math.tanh(math.atanh(rho) + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000, help="games per arm")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0: every core)")
    add_out_option(parser, "bench_pairing")
    opts = parser.parse_args()
    if opts.games < 100:
        parser.error("--games: at least 100 per arm, for an interval worth reading")
    with recorded(opts.out):
        print("# Where two arms on the same deals part ways\n")
        print(f"{opts.games:,} games per arm, seed {opts.seed}, moves logged; games per arm")
        print("for a ±1.5-point 95% interval: games × (half-width / 1.5 points)².\n")
        print("| question | games differing | first difference, share of moves (mean) "
              "| outcome correlation [95%] | independent: games for ±1.5 "
              "| paired: games for ±1.5 | paired gain |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|---:|")
        for title, column, players, seats, arms in QUESTIONS:
            with tempfile.TemporaryDirectory() as tmp:
                folders = []
                for label, strategies, rule in arms:
                    folder = Path(tmp) / label.replace(" ", "-")
                    play(folder, strategies, players, seats, rule, opts.games, opts.seed,
                         opts.jobs)  # fmt: skip
                    folders.append(folder)
                a, b = (game_metrics(f) for f in folders)
                fd = first_difference(*folders)
                both = a.select("game_id", "deal_id", pl.col(column).alias("_a")).join(
                    b.select("game_id", pl.col(column).alias("_b")), on="game_id"
                )
                both = both.drop_nulls()
                rho = float(np.corrcoef(both["_a"].to_numpy(), both["_b"].to_numpy())[0, 1])
                low, high = correlation_interval(rho, both["deal_id"].n_unique())
                unpaired = difference(a, b, column, column, paired=False)
                paired = difference(a, b, column, column, paired=True)
                need_u, need_p = (
                    games_for_half_width(len(a), (d.high - d.low) / 2, RATE_TOLERANCE)
                    for d in (unpaired, paired)
                )
                parted = fd.filter(pl.col("first").is_not_null())
                share = float((parted["first"] / parted["moves"]).mean() or 0.0)
                print(f"| {title} | {len(parted) / len(fd):.1%} | {share:.1%} "
                      f"| {rho:+.2f} [{low:+.2f}, {high:+.2f}] | {need_u:,} | {need_p:,} "
                      f"| {need_u / need_p:.2f}× |")  # fmt: skip


if __name__ == "__main__":
    main()
