"""Honest statistics (issue #11, item 4): each deal once per distinct seating, no
zero-width interval at 0% or 100%, and "no edge" only where the interval holds the fair
value.

Runs are tiny (a few dozen games of the built-in compiled strategies).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from run_helpers import played_run
from typer.testing import CliRunner

from haggis_sim.analytics.compare import difference, estimate, fair_claim, fair_value
from haggis_sim.cli import app
from haggis_sim.experiment import fair_sentence, verdict_sentence
from haggis_sim.runner.run import stale_seating
from haggis_sim.runner.seating import (
    deal_seeds,
    distinct_seatings,
    games_per_deal,
    seat_entries,
    seatings,
)
from haggis_sim.stats import newcombe, wilson, wilson_rate

runner = CliRunner()

# ------------------------------------------------------------------ distinct seatings


def test_distinct_seating_counts() -> None:
    assert games_per_deal("rotate", 2, 2) == 2
    assert games_per_deal("rotate", 2, 3) == 2  # more strategies than seats: base (0, 1)
    assert games_per_deal("rotate", 3, 2) == 3  # base (0, 1, 0)
    assert len(distinct_seatings((0, 1, 1))) == 3
    assert games_per_deal("rotate", 3, 3) == 6
    assert games_per_deal("rotate", 3, 1) == games_per_deal("rotate", 2, 1) == 1
    assert games_per_deal("fixed", 3, 2) == games_per_deal("fixed", 3, 3) == 1
    # itertools order, a repeated seating dropped where it first recurs
    assert seatings("rotate", 3, 2) == ((0, 1, 0), (0, 0, 1), (1, 0, 0))
    assert distinct_seatings((0, 1, 1)) == ((0, 1, 1), (1, 0, 1), (1, 1, 0))


@pytest.mark.parametrize("base", [(0, 1), (0, 1, 0), (0, 1, 1), (0, 1, 2), (0, 0, 0)])
def test_distinct_seatings_are_distinct_and_balanced(base: tuple[int, ...]) -> None:
    """No seating twice; every entry sits in every seat equally often (seat luck cancels)."""
    chosen = distinct_seatings(base)
    assert len(set(chosen)) == len(chosen)
    assert all(sorted(s) == sorted(base) for s in chosen)
    for entry in set(base):
        per_seat = {sum(s[k] == entry for s in chosen) for k in range(len(base))}
        assert len(per_seat) == 1, (base, entry, per_seat)


def test_seat_entries_and_deal_seeds_agree_on_deals() -> None:
    gids = pl.Series(range(12)).to_numpy()
    entries = seat_entries(gids, "rotate", 3, 2)
    seeds = deal_seeds(7, gids, "rotate", 3, 2)
    for deal in range(4):
        rows = {tuple(entries[g, :3]) for g in range(3 * deal, 3 * deal + 3)}
        assert len(rows) == 3  # three seatings, none twice
        assert len(set(seeds[3 * deal : 3 * deal + 3])) == 1
    assert len(set(seeds)) == 4


@pytest.fixture(scope="module")
def run3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 players, heuristic,greedy (entries 0, 1, 0): deterministic strategies, so a
    seating played twice on one deal would be the very same game twice."""
    return played_run(
        tmp_path_factory.mktemp("seat") / "run3",
        ["heuristic", "greedy"],
        31,
        3,
        seed=3,
        chunk_size=7,
    )


def test_no_two_games_of_a_deal_share_a_seating(run3: Path) -> None:
    games = pl.read_parquet(run3 / "games" / "*.parquet").sort("game_id")
    assert games.height == 31  # not a multiple of 3: the last deal is played in part
    assert (games["deal_id"] == games["game_id"] // 3).all()
    for (deal,), group in games.group_by("deal_id"):
        seatings_ = group.select("entry_0", "entry_1", "entry_2").rows()
        assert len(set(seatings_)) == group.height, (deal, seatings_)
        assert group["deal_seed"].n_unique() == 1
        assert group.height == (3 if int(deal) < 10 else 1)


def test_three_player_rotation_has_no_identical_duplicate_games(run3: Path) -> None:
    games = pl.read_parquet(run3 / "games" / "*.parquet")
    moves = pl.read_parquet(run3 / "moves" / "*.parquet").sort("game_id", "round", "turn")
    cols = [c for c in moves.columns if c != "game_id"]
    plays = moves.group_by("game_id", maintain_order=True).agg(
        pl.concat_str([pl.col(c).cast(pl.String) for c in cols], separator=",").alias("m")
    )
    signature = {
        int(row["game_id"]): tuple(row["m"]) for row in plays.iter_rows(named=True)
    }  # fmt: skip
    seen: dict[Any, int] = {}
    for row in games.iter_rows(named=True):
        key = (row["deal_seed"], *(row[f"strategy_{k}"] for k in range(3)))
        assert key not in seen, f"games {seen[key]} and {row['game_id']}: same deal and seats"
        seen[key] = row["game_id"]
    # games of one deal differ in seating, so they rarely replay each other move for move
    # (two strategies may happen to play a short game alike: not a duplicate seating)
    by_deal = Counter((row["deal_seed"], signature[row["game_id"]]) for row in games.iter_rows(
        named=True))  # fmt: skip
    assert sum(v > 1 for v in by_deal.values()) <= len(by_deal) // 10


def test_a_run_from_before_distinct_seatings_is_not_resumed(tmp_path: Path) -> None:
    """A format-2 run with a repeated entry numbered its games by every permutation: it
    is refused with one line; a format-2 run whose seatings are all distinct resumes."""
    old = played_run(tmp_path / "old3", ["heuristic", "greedy"], 6, 3, seed=3, chunk_size=7)
    path = old / "manifest.json"
    m = json.loads(path.read_text())
    assert m["format"] == 3 and m["seating"] == "distinct" and stale_seating(m) is None
    del m["seating"]
    m["format"], m["status"] = 2, "running"
    path.write_text(json.dumps(m))
    assert stale_seating(m) and "repeated seatings" in str(stale_seating(m))
    before = {p: p.read_bytes() for p in old.rglob("*") if p.is_file()}
    res = runner.invoke(app, ["run", "--resume", str(old), "--jobs", "1", "-q"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "seatings" in lines[0]
    assert {p: p.read_bytes() for p in old.rglob("*") if p.is_file()} == before

    other = dict(m, format=3, seating="every-permutation")
    assert "every-permutation" in str(stale_seating(other))

    two = played_run(tmp_path / "old2", ["heuristic", "greedy"], 6, 2, seed=3, chunk_size=7)
    m2 = json.loads((two / "manifest.json").read_text())
    del m2["seating"]
    m2["format"], m2["status"] = 2, "running"
    (two / "manifest.json").write_text(json.dumps(m2))
    assert stale_seating(m2) is None  # (0, 1): every permutation is a distinct seating
    res = runner.invoke(app, ["run", "--resume", str(two), "--jobs", "1", "-q"])
    assert res.exit_code == 0, res.stderr


# ------------------------------------------------------------------ intervals


@pytest.mark.parametrize("n", [1, 10, 1000])
def test_wilson_has_width_at_zero_and_at_n(n: int) -> None:
    lo, hi = wilson(0, n)
    assert lo == 0.0 and hi > 0.0
    lo, hi = wilson(n, n)
    assert hi == 1.0 and lo < 1.0
    assert wilson_rate(0.0, n * 0.5)[1] > 0 and wilson_rate(1.0, n * 0.5)[0] < 1
    width = newcombe(0.0, wilson(0, n), 0.0, wilson(0, n))
    assert width[0] < 0 < width[1]


def _frame(values: list[float], per_deal: int, column: str = "seat0_win") -> pl.DataFrame:
    return pl.DataFrame(
        {
            "game_id": list(range(len(values))),
            "deal_id": [g // per_deal for g in range(len(values))],
            "players": [3] * len(values),
            column: values,
        }
    )


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_rate_estimates_and_differences_have_width_at_the_extremes(value: float) -> None:
    frame = _frame([value] * 60, 3)
    est = estimate(frame, "seat0_win")
    assert est.mean == value and est.high - est.low > 0.01
    assert est.low <= value <= est.high
    # unpaired, two such runs could still differ: Newcombe's interval has width; paired
    # game by game they are the same games, so the difference is exactly 0
    d = difference(frame, frame, "seat0_win", "seat0_win", paired=False)
    assert d.diff == 0 and d.low < 0 < d.high, d
    d = difference(frame, frame, "seat0_win", "seat0_win", paired=True)
    assert (d.diff, d.low, d.high) == (0.0, 0.0, 0.0), d
    wins = _frame([value * 3] * 60, 3, "win_vs_fair_0")  # win_vs_fair: 0 or players
    est = estimate(wins, "win_vs_fair_0")
    assert est.high - est.low > 0.03 and est.low <= value * 3 <= est.high
    # a non-rate metric keeps mean ± t·SE: constant values have no spread to show
    margin = estimate(_frame([value] * 60, 3, "margin"), "margin")
    assert margin.low == margin.high == value


def test_rate_interval_counts_deals_not_games_where_spread_is_undefined() -> None:
    """At 0% the effective sample is the deals: a 3-game deal counts once."""
    by_deal = estimate(_frame([0.0] * 60, 3), "seat0_win")
    by_game = estimate(_frame([0.0] * 60, 1), "seat0_win")
    assert by_deal.high == pytest.approx(wilson(0, 20)[1])
    assert by_game.high == pytest.approx(wilson(0, 60)[1])


# ------------------------------------------------------------------ "no edge" wording


def test_no_edge_only_where_the_interval_holds_the_fair_value() -> None:
    third = 1 / 3
    holds = fair_claim("first_lead_win", 0.335, 0.330, 0.340, third)
    assert holds.startswith("no edge over a fair 33.3%")
    excludes = fair_claim("first_lead_win", 0.340, 0.337, 0.343, third)
    assert "no edge" not in excludes
    assert excludes.startswith("an edge of +0.7 points over a fair 33.3%")
    assert "+0.4 points … +1.0 points" in excludes
    below = fair_claim("win_vs_fair", 0.9, 0.85, 0.95, 1.0)
    assert below.startswith("an edge of -0.100 over a fair 1.000")
    assert "no edge" not in fair_claim("seat0_win", 0.4, math.nan, math.nan, 0.5)
    assert fair_value("win_rate", 3, 2) == pytest.approx(2 / 3)
    assert fair_value("seat0_win", 2) == 0.5 and fair_value("margin", 2) is None


def _summary(rows: list[tuple[str, float, float, float, tuple[float, float, float]]]) -> dict:
    """A summary.json-shaped dict for first_lead_win with 3 players: per arm (name, mean,
    low, high, (diff, low, high) from the first)."""
    return {
        "metric": "first_lead_win", "entry": 0,
        "metrics_described": {"first_lead_win": "the first leader wins"},
        "arms": [{"name": r[0]} for r in rows],
        "results": {"first_lead_win": {"rows": [
            {"arm": name, "mean": m, "low": lo, "high": hi, "n": 100, "no_pairing": False,
             "fair": 1 / 3, "vs_first": {"diff": d[0], "low": d[1], "high": d[2], "paired": True}}
            for name, m, lo, hi, d in rows
        ]}},
    }  # fmt: skip


def test_experiment_sentences_follow_the_wording_rule() -> None:
    summary = _summary(
        [
            ("classic", 0.340, 0.337, 0.343, (0.0, 0.0, 0.0)),
            ("deluxe", 0.334, 0.330, 0.338, (-0.006, -0.01, -0.002)),
            ("thin", 0.335, 0.33, 0.34, (0.001, math.nan, math.nan)),
        ]
    )
    labels = {"classic": "classic", "deluxe": "deluxe", "thin": "thin"}
    fair = fair_sentence(summary, "first_lead_win", labels)
    assert "classic an edge of +0.7 points over a fair 33.3%" in fair
    assert "deluxe no edge over a fair 33.3% separable at 95%" in fair
    text = verdict_sentence(summary, "first_lead_win", labels)
    assert text.endswith(fair) and "lower in deluxe" in text
    assert "no difference separable at 95% in thin" not in text  # no interval: no claim
    assert "no interval (too few deals) in thin" in text
