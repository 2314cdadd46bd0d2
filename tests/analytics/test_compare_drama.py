"""The drama metrics ``lead_changes`` and ``winner_lead_round`` (issue 25, item 5).

Checked twice: against games written by hand (the running totals, ties for the lead and
the rounds before the winner leads for good worked out on paper), and against a
brute-force Python oracle over the ``rounds`` table of small real runs (2 and 3 players).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from cli_helpers import invoke

from haggis_sim.analytics.compare import (
    GAME_METRICS,
    RATE_METRICS,
    _game_sql,
    fmt_value,
    game_metrics,
)
from haggis_sim.logs.query import connect, run_files

SOURCES = ("going_out", "cards", "bets", "bonus")

# three 2-player games, each a list of per-round points (seat 0, seat 1):
#   running totals      strictly ahead   lead changes   winner ahead for good from
# A (0,10)(20,0)(5,0) -> (0,10)(20,10)(25,10): 1, 0, 0 -> 1 change; winner 0 from round 1
#                                                        of 3 -> 1/3
# B (5,5)(10,0)(0,20)(0,0)(0,5) -> (5,5)(15,5)(15,25)(15,25)(15,30): tie, 0, 1, 1, 1
#                                  -> 1 change (the tie is no leader); winner 1 from round
#                                  2 of 5 -> 2/5
# C (30,0)(0,0)(0,40)(20,0) -> (30,0)(30,0)(30,40)(50,40): 0, 0, 1, 0 -> 2 changes; winner 0
#                                  only from the last round 3 of 4 -> 3/4
# D (10,10)(20,0) -> (10,10)(30,10): tie, 0 -> 0 changes; winner 0 from round 1 -> 1/2
# E (40,0) -> (40,0): 0 -> 0 changes; winner ahead from the first round -> 0
# F (10,0)(0,10)(5,0) -> (10,0)(10,10)(15,10): 0, tie, 0 -> 0 changes (a tie between the
#                                  same leader is no change); winner 0 ahead for good only
#                                  after the tie, from round 2 of 3 -> 2/3
HAND = {
    "A": ([(0, 10), (20, 0), (5, 0)], 0, 1, 1 / 3),
    "B": ([(5, 5), (10, 0), (0, 20), (0, 0), (0, 5)], 1, 1, 2 / 5),
    "C": ([(30, 0), (0, 0), (0, 40), (20, 0)], 0, 2, 3 / 4),
    "D": ([(10, 10), (20, 0)], 0, 0, 1 / 2),
    "E": ([(40, 0)], 0, 0, 0.0),
    "F": ([(10, 0), (0, 10), (5, 0)], 0, 0, 2 / 3),
}


def _hand_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    games, rounds = [], []
    for gid, (points, winner, _, _) in enumerate(HAND.values()):
        finals = [sum(p[k] for p in points) for k in (0, 1)]
        games.append(
            {"game_id": gid, "deal_id": gid, "deal_seed": gid, "entry_0": 0, "entry_1": 1,
             "score_0": finals[0], "score_1": finals[1], "winner": winner,
             "winner_entry": winner, "rounds": len(points)}
        )  # fmt: skip
        for r, pts in enumerate(points):
            row = {"game_id": gid, "round": r, "leader": 0}
            for k in (0, 1):
                row |= {f"{s}_{k}": 0 for s in SOURCES}
                row |= {f"going_out_{k}": pts[k], f"total_{k}": pts[k]}
            rounds.append(row)
    return pl.DataFrame(games), pl.DataFrame(rounds)


def test_drama_metrics_of_hand_written_games() -> None:
    games, rounds = _hand_tables()
    con = duckdb.connect()
    con.register("games", games.to_arrow())
    con.register("rounds", rounds.to_arrow())
    got = con.sql(_game_sql(2, 2)).pl()
    assert got["lead_changes"].to_list() == [v[2] for v in HAND.values()]
    assert got["winner_lead_round"].to_list() == pytest.approx([v[3] for v in HAND.values()])


def _oracle(run_dir: Path) -> dict[int, tuple[float, float]]:
    """Per game (lead changes, winner_lead_round) recomputed in plain Python from the
    run's rounds and games tables."""
    con = connect(run_dir, run_files(run_dir))
    rounds = con.sql("SELECT * FROM rounds ORDER BY game_id, round").fetchall()
    names = [d[0] for d in con.sql("SELECT * FROM rounds LIMIT 0").description]
    games = dict(con.sql("SELECT game_id, winner FROM games").fetchall())
    con.close()
    per_game: dict[int, list[dict[str, object]]] = {}
    for row in rounds:
        rec = dict(zip(names, row, strict=True))
        per_game.setdefault(int(rec["game_id"]), []).append(rec)  # type: ignore[call-overload]
    out = {}
    for gid, recs in per_game.items():
        seats = [k for k in range(3) if recs[0][f"total_{k}"] is not None]
        totals = dict.fromkeys(seats, 0)
        ahead: list[int | None] = []
        for rec in recs:
            for k in seats:
                totals[k] += int(rec[f"total_{k}"])  # type: ignore[call-overload]
            best = max(totals.values())
            top = [k for k in seats if totals[k] == best]
            ahead.append(top[0] if len(top) == 1 else None)
        leaders = [a for a in ahead if a is not None]
        changes = sum(1 for x, y in zip(leaders, leaders[1:], strict=False) if x != y)
        took = len(ahead)
        while took > 0 and ahead[took - 1] == games[gid]:
            took -= 1
        out[gid] = (float(changes), took / len(ahead))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("strategies", "players"), [("heuristic,greedy", 2), ("random", 3)])
def test_drama_metrics_equal_a_python_oracle(tmp_path: Path, strategies: str, players: int) -> None:
    out = tmp_path / "run"
    res = invoke(
        "run", "--strategies", strategies, "--players", str(players), "--games", "40",
        "--seed", "9", "--jobs", "1", "--quiet", "--no-log-moves", "--out", str(out),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    frame = game_metrics(out)
    oracle = _oracle(out)
    got = {
        int(g): (c, w)
        for g, c, w in frame.select("game_id", "lead_changes", "winner_lead_round").iter_rows()
    }
    assert got.keys() == oracle.keys()
    for gid, (changes, late) in oracle.items():
        assert got[gid][0] == changes, gid
        assert got[gid][1] == pytest.approx(late), gid
    assert frame["lead_changes"].sum() > 0  # the run has lead changes to count


def test_drama_metrics_are_documented_and_shown_as_they_mean() -> None:
    assert "lead_changes" in GAME_METRICS and "winner_lead_round" in GAME_METRICS
    assert "winner_lead_round" in RATE_METRICS  # a share of the rounds: shown in percent
    assert fmt_value("winner_lead_round", 0.25) == "25.0%"
    assert fmt_value("lead_changes", 1.5) == "1.50"
