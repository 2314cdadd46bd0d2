"""The report's sections: one DuckDB aggregation per table, returned as small polars frames.

:func:`connect_runs` opens one DuckDB connection over the Parquet parts of one or more
runs, with the views ``games``, ``rounds`` and ``moves`` unioned across runs (a ``run``
column numbers them) plus a few derived views:

- ``seats``: one row per (game, seat): strategy, final score, won;
- ``gstrat``: one row per (game, strategy): players, mean score over its seats, won (any seat won),
  and its ``--strategies`` entry index (``entry``; NULL in logs that predate it);
- ``rseats``: one row per (round, seat): strategy, the round's points by source, the bet
  declared, and the round margin (this seat's round total minus the best other seat's).

Each section function takes the connection and returns ``{table name: frame}``; nothing
reads whole tables into Python, every query aggregates in DuckDB. DuckDB running out of
memory in any of them raises :class:`~haggis_sim.logs.query.MemoryLimitError` (one line
naming ``HAGGIS_SIM_DUCKDB_MEMORY`` and a size to try), not DuckDB's own error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import polars as pl

from .. import stats
from ..kernel import layout as L
from ..logs import ledger
from ..logs import schema as logs
from ..logs.manifest import Manifest
from ..logs.query import check_parts, memory_bounded, new_connection, parquet_list

HAND = 17  # cards dealt to each seat: 14 suit cards + J, Q, K


def classic_points_sql(cards: str) -> str:
    """SQL for the classic card points of a logged ``cards`` mask (faces player-relative).

    Built from the engine's card bits (:data:`haggis_sim.kernel.layout`): each odd-rank
    suit card is 1 point, each face card its ``FACE_POINTS``; the same count as the
    engine's ``card_points`` under classic scoring.
    """
    faces = " + ".join(
        f"{points} * (({cards} >> {L.face_bit(f)}) & 1)" for f, points in enumerate(L.FACE_POINTS)
    )
    return f"bit_count({cards} & {L.ODD_MASK}) + {faces}"


Section = dict[str, pl.DataFrame]


def _parts(run_dir: Path, table: str) -> list[Path]:
    """The run's trusted parts of ``table`` (footers checked: DamagedLogError if damaged)."""
    files = ledger.table_files(run_dir, table)
    check_parts(run_dir, files)
    return files


def _q(text: str) -> str:
    return text.replace("'", "''")


@memory_bounded()
def connect_runs(
    run_dirs: list[Path], manifests: list[Manifest]
) -> tuple[duckdb.DuckDBPyConnection, list[int]]:
    """A DuckDB connection with the views of every run that has logged games.

    Returns the connection and the indices (into ``run_dirs``) of the runs included; an
    empty list means no run has a finished chunk, and no views are created. The
    connection can read these runs' parts and nothing else (:func:`new_connection`); a
    damaged part raises :class:`logs.DamagedLogError` naming it.
    """
    parts = [{t: _parts(d, t) for t in logs.TABLES} for d in run_dirs]
    included = [i for i, p in enumerate(parts) if all(p.values())]
    con = new_connection([f for i in included for files in parts[i].values() for f in files])
    if not included:
        return con, included
    for table in logs.TABLES:
        selects = []
        for i in included:
            src = f"read_parquet({parquet_list(parts[i][table])})"
            if table == "games":
                cp = _q(manifests[i].rules.card_points)
                players = manifests[i].players
                extra = f", '{cp}' AS card_points, {players} AS players"
                selects.append(f"SELECT {i} AS run, * REPLACE (CAST(rules AS VARCHAR) AS rules)"
                               f"{extra} FROM {src}")  # fmt: skip
            else:
                selects.append(f"SELECT {i} AS run, * FROM {src}")
        con.execute(f"CREATE VIEW {table} AS " + " UNION ALL BY NAME ".join(selects))
    games_cols = {r[0] for r in con.execute("DESCRIBE games").fetchall()}
    seat_sql = " UNION ALL ".join(
        f"SELECT run, game_id, deal_id, rules, players, card_points, {k} AS seat, "
        f"CAST(strategy_{k} AS VARCHAR) AS strategy, score_{k} AS score, "
        f"{f'entry_{k}' if f'entry_{k}' in games_cols else 'NULL'}::INT AS entry, "
        f"winner = {k} AS won FROM games WHERE strategy_{k} IS NOT NULL"
        for k in range(3)
    )
    con.execute(f"CREATE VIEW seats AS {seat_sql}")
    con.execute(
        "CREATE VIEW gstrat AS SELECT run, game_id, any_value(deal_id) AS deal_id, "
        "any_value(rules) AS rules, any_value(players) AS players, strategy, "
        "avg(score) AS score, bool_or(won) AS won, "
        "min(entry) AS entry "
        "FROM seats GROUP BY run, game_id, strategy"
    )
    con.execute(f"CREATE VIEW rseats AS {rseats_sql('TRUE')}")
    # which part holds which games, so a slice of games reads its own few files
    con.register(
        "part_list",
        pl.DataFrame(
            [
                (i, table, *ledger.part_range(f), str(f.absolute()))
                for i in included
                for table, files in parts[i].items()
                for f in files
            ],
            schema=["run", "tbl", "lo", "hi", "path"],
            orient="row",
        ),
    )
    con.execute("CREATE TEMP TABLE part_files AS SELECT * FROM part_list")
    con.unregister("part_list")
    return con, included


def slice_source(con: duckdb.DuckDBPyConnection, table: str, run: int, lo: int, hi: int) -> str:
    """A subquery of ``table``'s rows of run ``run``'s games ``lo .. hi - 1`` (moves or
    rounds) that opens only the parts holding them: the view over every part of a run
    costs a scan of thousands of files' footers however few games it returns. A slice
    that no part holds (a gap left by an interrupted run) gives an empty subquery."""
    files = [
        Path(path)
        for (path,) in con.execute(
            "SELECT path FROM part_files WHERE run = ? AND tbl = ? AND lo < ? AND hi > ? "
            "ORDER BY lo",
            [run, table, hi, lo],
        ).fetchall()
    ]
    if not files:
        return f"(SELECT * FROM {table} WHERE FALSE)"
    return (
        f"(SELECT {run} AS run, * FROM read_parquet({parquet_list(files)}) "
        f"WHERE game_id >= {lo} AND game_id < {hi})"
    )


def rseats_sql(where: str, rounds: str = "rounds") -> str:
    """One row per seat of each round (its bet, points, margin over the best other seat)
    with the seat's strategy, of the games matching ``where`` (on ``run``, ``game_id``):
    the view ``rseats`` is ``where`` TRUE; a slice of games filters both sides of the join
    itself rather than rely on DuckDB pushing the filter through it, and gives its own
    ``rounds`` source (:func:`slice_source`)."""
    big = -(2**15)
    rseat = []
    for k in range(3):
        others = ", ".join(f"coalesce(total_{j}, {big})" for j in range(3) if j != k)
        rseat.append(
            f"SELECT run, game_id, round, {k} AS seat, leader, shepherd, black_sheep, tricks, "
            f"bet_{k} AS bet, going_out_{k} AS going_out, cards_{k} AS cards, "
            f"bets_{k} AS bets, bonus_{k} AS bonus, total_{k} AS total, "
            f"total_{k} - greatest({others}) AS margin "
            f"FROM {rounds} WHERE total_{k} IS NOT NULL AND ({where})"
        )
    return (
        "SELECT r.*, s.strategy, s.rules, s.players, s.card_points "
        f"FROM ({' UNION ALL '.join(rseat)}) r "
        f"JOIN (SELECT * FROM seats WHERE {where}) s USING (run, game_id, seat)"
    )


def _pl(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    frame: pl.DataFrame = con.sql(sql).pl()  # duckdb types .pl() as Any
    return frame


def _with_wilson(frame: pl.DataFrame, k: str, n: str, prefix: str = "") -> pl.DataFrame:
    ivs = [stats.wilson(int(a), int(b)) for a, b in zip(frame[k], frame[n], strict=True)]
    return frame.with_columns(
        pl.Series(f"{prefix}low", [x[0] for x in ivs], dtype=pl.Float64),
        pl.Series(f"{prefix}high", [x[1] for x in ivs], dtype=pl.Float64),
    )


# --- results ---------------------------------------------------------------------------------


@memory_bounded()
def results(con: duckdb.DuckDBPyConnection) -> Section:
    """Per strategy and per pairing: win rate (Wilson) and score margin (paired t over deals).

    A strategy's row is per field it played in (its ``opponents``, joined by " + "), so a
    strategy that met different opponents in different runs is not pooled into one rate.

    A pairing (A, B) counts every game where both played; A is the strategy the user named
    first (the lower ``--strategies`` entry; by name in logs without entries), so results
    read in the order the runs were asked for. A "beats" B in a game when A's
    seat won, or neither won and A's final score was higher (with 2 players: A won).
    The margin is A's final score minus B's (mean over a strategy's seats). Its interval
    is a t-interval over deals: the games replaying one deal (rotated seats) are averaged
    first, so deal luck cancels; with fixed seats every game is its own deal.
    """
    per_strategy = _pl(
        con,
        "WITH f AS (SELECT run, game_id, list_sort(list_distinct(list(strategy))) AS field "
        "FROM seats GROUP BY run, game_id) "
        "SELECT rules, players, strategy, "
        "array_to_string(list_filter(field, lambda x: x <> strategy), ' + ') AS opponents, "
        "count(*) AS games, sum(won::INT)::BIGINT AS wins, avg(score) AS mean_score "
        "FROM gstrat JOIN f USING (run, game_id) GROUP BY rules, players, strategy, opponents "
        "ORDER BY rules, players, strategy, opponents",
    )
    per_strategy = per_strategy.with_columns((pl.col("wins") / pl.col("games")).alias("win_rate"))
    per_strategy = _with_wilson(per_strategy, "wins", "games", "win_")
    pairs = _pl(
        con,
        """
        WITH p AS (
          SELECT a.run, a.rules, a.players, a.deal_id, a.strategy AS a, b.strategy AS b,
                 a.entry AS entry_a,
                 (a.won OR (NOT a.won AND NOT b.won AND a.score > b.score))::INT AS a_win,
                 (b.won OR (NOT a.won AND NOT b.won AND b.score > a.score))::INT AS b_win,
                 a.score - b.score AS margin
          FROM gstrat a JOIN gstrat b USING (run, game_id)
          WHERE coalesce(a.entry < b.entry, a.strategy < b.strategy)),
        d AS (
          SELECT run, rules, players, a, b, deal_id, min(entry_a) AS entry_a, count(*) AS n,
                 sum(a_win) AS aw, sum(b_win) AS bw,
                 avg(margin) AS dm
          FROM p GROUP BY run, rules, players, a, b, deal_id)
        SELECT rules, players, a, b, sum(n)::BIGINT AS games, count(*)::BIGINT AS deals,
               sum(aw)::BIGINT AS wins_a, sum(bw)::BIGINT AS wins_b,
               avg(dm) AS margin, stddev_samp(dm) AS margin_sd
        FROM d GROUP BY rules, players, a, b ORDER BY rules, players, min(entry_a), a, b
        """,
    )
    pairs = pairs.with_columns((pl.col("wins_a") / pl.col("games")).alias("win_rate_a"))
    pairs = _with_wilson(pairs, "wins_a", "games", "win_")
    cis = [
        stats.mean_ci_from_moments(float(m), float(s) if s is not None else math.nan, int(n))
        for m, s, n in zip(pairs["margin"], pairs["margin_sd"], pairs["deals"], strict=True)
    ]
    pairs = pairs.with_columns(
        pl.Series("margin_low", [c[0] for c in cis], dtype=pl.Float64),
        pl.Series("margin_high", [c[1] for c in cis], dtype=pl.Float64),
    ).drop("margin_sd")
    out: Section = {"strategies": per_strategy, "pairs": pairs}
    names = sorted(set(per_strategy["strategy"].to_list()))
    if len(names) > 2:
        out["ratings"] = ratings(pairs, names)
    return out


def ratings(pairs: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Bradley–Terry ratings (Elo scale) fitted over all games of all pairings."""
    index = {n: i for i, n in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for row in pairs.iter_rows(named=True):
        i, j = index[row["a"]], index[row["b"]]
        wins[i, j] += row["wins_a"]
        wins[j, i] += row["wins_b"]
    elo = stats.elo_scale(stats.bradley_terry(wins))
    frame = pl.DataFrame(
        {
            "strategy": names,
            "rating": elo.tolist(),
            "pair_wins": wins.sum(axis=1).tolist(),
            "pair_losses": wins.sum(axis=0).tolist(),
        }
    )
    return frame.sort("rating", descending=True)


# --- seat and lead ---------------------------------------------------------------------------


def _win_rates(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    """The rows of ``sql`` (with ``wins`` and ``games``) plus ``win_rate`` and its Wilson
    interval."""
    frame = _pl(con, sql)
    frame = frame.with_columns((pl.col("wins") / pl.col("games")).alias("win_rate"))
    return _with_wilson(frame, "wins", "games", "win_")


@memory_bounded()
def seat_lead(con: duckdb.DuckDBPyConnection) -> Section:
    """Win rate and final score by seat; by whether the seat led the game's first round;
    and round points by whether the seat led that round."""
    seat = _win_rates(
        con,
        "SELECT rules, players, seat, count(*) AS games, sum(won::INT)::BIGINT AS wins, "
        "avg(score) AS mean_score FROM seats GROUP BY ALL ORDER BY rules, players, seat",
    )
    lead = _win_rates(
        con,
        "SELECT s.rules, s.players, s.seat = r.leader AS led_first, count(*) AS games, "
        "sum(s.won::INT)::BIGINT AS wins, avg(s.score) AS mean_score "
        "FROM seats s JOIN rounds r ON r.run = s.run AND r.game_id = s.game_id AND r.round = 0 "
        "GROUP BY ALL ORDER BY rules, players, led_first",
    )
    lead_round = _pl(
        con,
        "SELECT rules, players, seat = leader AS led_round, count(*) AS rounds, "
        "avg(total) AS mean_round_points, sum((shepherd = seat)::INT)::BIGINT AS first_out "
        "FROM rseats GROUP BY ALL ORDER BY rules, players, led_round",
    )
    lead_round = lead_round.with_columns(
        (pl.col("first_out") / pl.col("rounds")).alias("first_out_rate")
    )
    return {"seat": seat, "lead_game": lead, "lead_round": lead_round}


# --- where points come from ------------------------------------------------------------------


@memory_bounded()
def points(con: duckdb.DuckDBPyConnection) -> Section:
    """Mean points per round by source (going out, captured cards, bets, bonus), per
    strategy and rules preset, each with a 95% t-interval over rounds (``SOURCE_low`` and
    ``SOURCE_high``; rounds of one game are treated as independent, so these intervals are
    a little narrow)."""
    cols = ("going_out", "cards", "bets", "bonus", "total")
    aggs = ", ".join(f"avg({c}) AS {c}, stddev_samp({c}) AS {c}_sd" for c in cols)
    frame = _pl(
        con,
        f"SELECT rules, players, strategy, count(*) AS rounds, {aggs} "
        "FROM rseats GROUP BY rules, players, strategy ORDER BY rules, players, strategy",
    )
    for c in cols:
        cis = [
            stats.mean_ci_from_moments(float(m), float(s) if s is not None else math.nan, int(n))
            for m, s, n in zip(frame[c], frame[f"{c}_sd"], frame["rounds"], strict=True)
        ]
        frame = frame.with_columns(
            pl.Series(f"{c}_low", [x[0] for x in cis], dtype=pl.Float64),
            pl.Series(f"{c}_high", [x[1] for x in cis], dtype=pl.Float64),
        ).drop(f"{c}_sd")
    return {"points": frame}


# --- bets ------------------------------------------------------------------------------------


@memory_bounded()
def bets(con: duckdb.DuckDBPyConnection) -> Section:
    """How often each strategy bets each value, and how bets turn out by hand strength.

    Hand strength at bet time is the ``strength`` the moves log records on every bet: the
    heuristic's 0-100 estimate of the bettor's hand, bucketed by 5. A bet succeeded when
    the bettor's bet points in the round were positive; net points per bet are the
    bettor's bet points in the round.
    """
    freq = _pl(
        con,
        "SELECT rules, strategy, bet AS value, count(*) AS rounds FROM rseats "
        "GROUP BY ALL ORDER BY rules, strategy, value",
    )
    totals = freq.group_by("rules", "strategy").agg(pl.col("rounds").sum().alias("all_rounds"))
    freq = (
        freq.join(totals, on=["rules", "strategy"])
        .filter(pl.col("value") > 0)
        .with_columns((pl.col("rounds") / pl.col("all_rounds")).alias("rate"))
        .rename({"rounds": "bets"})
        .sort("rules", "strategy", "value")
    )
    outcome = _pl(
        con,
        """
        WITH b AS (
          SELECT run, game_id, round, seat, max(strength) AS strength FROM moves
          WHERE type = 'bet' GROUP BY ALL)
        SELECT r.rules, r.strategy, r.bet AS value,
               CASE WHEN b.strength IS NULL THEN 'unknown'
                    WHEN b.strength < 45 THEN '<45'
                    WHEN b.strength >= 65 THEN '65+'
                    ELSE CAST((b.strength // 5) * 5 AS VARCHAR) || '-'
                         || CAST((b.strength // 5) * 5 + 4 AS VARCHAR)
               END AS strength,
               count(*) AS bets, sum((r.bets > 0)::INT)::BIGINT AS successes,
               avg(r.bets) AS net_points, avg(r.total) AS round_points
        FROM rseats r LEFT JOIN b USING (run, game_id, round, seat)
        WHERE r.bet > 0 GROUP BY ALL ORDER BY rules, strategy, value, strength
        """,
    )
    outcome = outcome.with_columns((pl.col("successes") / pl.col("bets")).alias("success_rate"))
    outcome = _with_wilson(outcome, "successes", "bets", "success_")
    return {"bet_rates": freq, "bet_outcomes": outcome}


# --- bombs -----------------------------------------------------------------------------------

BOMB_SLICE = 250_000  # games per slice of the bombs section (about 3 M bombs of greedy play)


#: one row per bomb with the opponents' fewest cards left, the trick's points and the
#: bomber's round margin (:func:`rseats_sql` over the slice). An opponent's cards
#: left come from an equi-join of the few (bomb, opponent) rows with the moves, probed by
#: the moves as they stream past (``prior``), then their latest move before the bomb: an
#: ASOF join here would hold every move of every run in memory at once and fail at
#: DuckDB's default memory limit over an experiment's many runs.
def _bomb_slice(con: duckdb.DuckDBPyConnection, run: int, lo: int, hi: int) -> None:
    """Fill ``bomb_slice`` (one row per bomb) and ``bomb_rs`` (one row per seat of each
    round) for run ``run``'s games ``lo .. hi - 1``: computed slice by slice, so the joins
    against the moves hold one slice's rows at a time whatever the report's size (27 runs
    at once, or one run of 10 million games of greedy play with 125 million bombs, took
    more than DuckDB's 2 GB default), each slice reading only its own parts."""
    games = f"run = {run} AND game_id >= {lo} AND game_id < {hi}"
    mv = slice_source(con, "moves", run, lo, hi)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE bomb_gm AS "
        f"SELECT run, game_id, players, card_points FROM games WHERE {games}"
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE bomb_b AS
        SELECT m.run, m.game_id, m.round, m.trick, m.turn, m.seat, m.hand_after,
               m.won_trick, g.players
        FROM {mv} m JOIN bomb_gm g USING (run, game_id)
        WHERE m.type = 'bomb'
        """
    )
    rounds = slice_source(con, "rounds", run, lo, hi)
    con.execute(f"CREATE OR REPLACE TEMP TABLE bomb_rs AS {rseats_sql(games, rounds)}")
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE bomb_slice AS
        WITH opp AS (
          SELECT b.*, o.opp FROM bomb_b b, (SELECT unnest([0, 1, 2]) AS opp) o
          WHERE o.opp <> b.seat AND o.opp < b.players),
        prior AS (
          SELECT opp.run, opp.game_id, opp.round, opp.turn, opp.opp,
                 arg_max(m.hand_after, m.turn) AS hand
          FROM opp JOIN {mv} m
            ON m.run = opp.run AND m.game_id = opp.game_id AND m.round = opp.round
               AND m.seat = opp.opp AND m.turn < opp.turn
          GROUP BY ALL),
        left_ AS (
          SELECT opp.run, opp.game_id, opp.round, opp.turn,
                 min(coalesce(p.hand, {HAND})) AS opp_left
          FROM opp LEFT JOIN prior p USING (run, game_id, round, turn, opp)
          GROUP BY ALL),
        tp AS (
          SELECT m.run, m.game_id, m.round, m.trick,
                 sum(CASE WHEN g.card_points = 'per_card' THEN m.n_cards
                     ELSE {classic_points_sql("m.cards")} END)
                   AS trick_points
          FROM {mv} m JOIN bomb_gm g USING (run, game_id)
          SEMI JOIN (SELECT DISTINCT run, game_id, round, trick FROM bomb_b) k
            ON k.run = m.run AND k.game_id = m.game_id AND k.round = m.round
               AND k.trick = m.trick
          WHERE m.type IN ('set', 'sequence', 'bomb')
          GROUP BY ALL)
        SELECT b.*, l.opp_left, tp.trick_points, r.strategy, r.rules, r.margin,
               (b.won_trick AND r.margin > 0) AS worth
        FROM bomb_b b JOIN left_ l USING (run, game_id, round, turn)
        JOIN tp USING (run, game_id, round, trick)
        JOIN bomb_rs r USING (run, game_id, round, seat)
        """
    )


def _bomb_slices(con: duckdb.DuckDBPyConnection) -> list[tuple[int, int, int]]:
    """(run, first game, past the last game) of every slice of :data:`BOMB_SLICE` games."""
    ranges = con.execute(
        "SELECT run, min(game_id), max(game_id) FROM games GROUP BY run ORDER BY run"
    ).fetchall()
    return [
        (run, lo, min(lo + BOMB_SLICE, int(last) + 1))
        for run, first, last in ranges
        for lo in range(int(first), int(last) + 1, BOMB_SLICE)
    ]


@memory_bounded()
def bombs(con: duckdb.DuckDBPyConnection) -> Section:
    """When bombs are played and what they bring.

    For each bomb: its trick number, the bomber's cards left after it, and the fewest
    cards left in an opponent's hand at that moment (their last action before the bomb;
    17 if they had not acted). The bombed trick's card points are those of every play in
    that trick (classic values, or 1 per card under ``card_points=per_card``). A bomb
    counts as "worth it" when it took its trick and the bomber ended the round with more
    points than every opponent. Net points around a bomb: the bomber's round margin (round
    total minus the best opponent's) in rounds where that seat bombed, against rounds
    where the same strategy did not bomb.
    """
    # per slice of games, sums and counts that add up across slices (memory: one slice)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE bomb_sums (rules VARCHAR, strategy VARCHAR, "
        "bombs BIGINT, trick HUGEINT, bomber_left HUGEINT, opp_left HUGEINT, took HUGEINT, "
        "worth HUGEINT, trick_points HUGEINT, margin HUGEINT)"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE bomb_counts (strategy VARCHAR, measure VARCHAR, "
        "value INTEGER, bombs BIGINT)"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE bomb_without (rules VARCHAR, strategy VARCHAR, "
        "margin HUGEINT, n BIGINT)"
    )
    for run, lo, hi in _bomb_slices(con):
        _bomb_slice(con, run, lo, hi)
        con.execute(
            """
            INSERT INTO bomb_sums
            SELECT rules, strategy, count(*), sum(trick), sum(hand_after), sum(opp_left),
                   sum(won_trick::INT), sum(worth::INT), sum(trick_points), sum(margin)
            FROM bomb_slice GROUP BY rules, strategy
            """
        )
        con.execute(
            """
            INSERT INTO bomb_counts
            SELECT strategy, 'trick', trick, count(*) FROM bomb_slice GROUP BY ALL
            UNION ALL
            SELECT strategy, 'bomber cards left', hand_after, count(*) FROM bomb_slice
            GROUP BY ALL
            UNION ALL
            SELECT strategy, 'opponent cards left', opp_left, count(*) FROM bomb_slice
            GROUP BY ALL
            """
        )
        con.execute(
            """
            INSERT INTO bomb_without
            SELECT r.rules, r.strategy, sum(r.margin), count(*)
            FROM bomb_rs r ANTI JOIN (SELECT DISTINCT run, game_id, round, seat FROM bomb_b) x
              USING (run, game_id, round, seat)
            GROUP BY ALL
            """
        )
    for table in ("bomb_slice", "bomb_rs", "bomb_b", "bomb_gm"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
    summary = _pl(
        con,
        """
        SELECT rules, strategy, sum(bombs)::BIGINT AS bombs,
               sum(trick) / sum(bombs) AS mean_trick,
               sum(bomber_left) / sum(bombs) AS mean_bomber_left,
               sum(opp_left) / sum(bombs) AS mean_opp_left,
               sum(took) / sum(bombs) AS took_trick_rate, sum(worth)::BIGINT AS worth_it,
               sum(trick_points) / sum(bombs) AS mean_trick_points,
               sum(margin) / sum(bombs) AS margin_with_bomb
        FROM bomb_sums GROUP BY rules, strategy ORDER BY rules, strategy
        """,
    )
    without = _pl(
        con,
        """
        SELECT rules, strategy, sum(margin) / sum(n) AS margin_without_bomb
        FROM bomb_without GROUP BY ALL
        """,
    )
    summary = summary.join(without, on=["rules", "strategy"], how="left")
    summary = summary.with_columns((pl.col("worth_it") / pl.col("bombs")).alias("worth_it_rate"))
    summary = _with_wilson(summary, "worth_it", "bombs", "worth_it_")
    timing = _pl(
        con,
        """
        SELECT strategy, measure, value, sum(bombs)::BIGINT AS bombs FROM bomb_counts
        GROUP BY ALL ORDER BY 1, 2, 3
        """,
    )
    return {"bombs": summary, "bomb_timing": timing}


# --- game shape ------------------------------------------------------------------------------


@memory_bounded()
def shape(con: duckdb.DuckDBPyConnection) -> Section:
    """Rounds per game, tricks per round, and final margins (winner minus best other)."""
    gm = "list_sort([score_0, score_1, score_2], 'DESC', 'NULLS LAST')"
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW gshape AS SELECT run, game_id, rules, rounds, "
        f"{gm}[1] - {gm}[2] AS margin FROM games"
    )
    summary = _pl(
        con,
        """
        WITH t AS (
          SELECT g.rules, avg(r.tricks) AS mean_tricks_per_round
          FROM rounds r JOIN games g USING (run, game_id) GROUP BY g.rules)
        SELECT g.rules, count(*) AS games, avg(g.rounds) AS mean_rounds,
               any_value(t.mean_tricks_per_round) AS mean_tricks_per_round,
               avg(g.margin) AS mean_margin, median(g.margin) AS median_margin
        FROM gshape g JOIN t USING (rules) GROUP BY g.rules ORDER BY g.rules
        """,
    )
    rounds_dist = _pl(
        con, "SELECT rules, rounds, count(*) AS games FROM gshape GROUP BY ALL ORDER BY 1, 2"
    )
    tricks_dist = _pl(
        con,
        "SELECT g.rules, r.tricks, count(*) AS rounds FROM rounds r JOIN games g "
        "USING (run, game_id) GROUP BY ALL ORDER BY 1, 2",
    )
    margin_dist = _pl(
        con, "SELECT rules, margin, count(*) AS games FROM gshape GROUP BY ALL ORDER BY 1, 2"
    )
    return {
        "shape": summary,
        "shape_rounds": rounds_dist,
        "shape_tricks": tricks_dist,
        "shape_margins": margin_dist,
    }


SECTIONS: dict[str, Callable[[duckdb.DuckDBPyConnection], Section]] = {
    "results": results,
    "seat_lead": seat_lead,
    "points": points,
    "bets": bets,
    "bombs": bombs,
    "shape": shape,
}
