"""``haggis-sim run --precision``: the line saying which of ``--precision`` and ``--games``
stopped the run, its "about N more games" estimate, and the refusals (one line, status 2).

Random against a bolder random at 2 players: about even, cheap; ``--precision 0.05``
checks every 20 games and stops near 400.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from cli_helpers import invoke, one_line_error

from haggis_sim.logs import ledger
from haggis_sim.stats import games_for_half_width, wilson

PAIR = ["-s", "random,random:bet=0.3", "--seed", "11", "--jobs", "1", "-q"]


def headline(run_dir: Path) -> tuple[int, int, float]:
    """Entry 0's wins, games and interval half-width, read from the logged games."""
    games = pl.read_parquet(ledger.table_files(run_dir, "games"))
    wins, n = int((games["winner_entry"] == 0).sum()), games.height
    low, high = wilson(wins, n)
    return wins, n, (high - low) / 2


def test_stopped_by_precision_says_so(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = invoke("run", *PAIR, "-n", "1000", "--precision", "0.05", "--out", str(out))
    assert res.exit_code == 0, (res.stderr, res.exception)
    wins, n, half = headline(out)
    assert n < 1000 and n % 20 == 0 and half <= 0.05
    line = f"stopped by --precision: #0 random's win rate {wins / n:.1%} ±{100 * half:.2f} "
    assert f"{line}at {n:,} games\n" in res.stdout
    assert "stopped by --games" not in res.stdout


def test_stopped_by_games_says_how_many_more(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = invoke("run", *PAIR, "-n", "100", "--precision", "0.05", "--out", str(out))
    assert res.exit_code == 0, (res.stderr, res.exception)
    wins, n, half = headline(out)
    assert n == 100 and half > 0.05
    more = games_for_half_width(100, half, 0.05, step=2) - 100  # 2 games per deal
    found = re.search(r"stopped by --games: .* ±([\d.]+) at 100 games; about ([\d,]+) more "
                      r"games for ±5\n", res.stdout)  # fmt: skip
    assert found, res.stdout
    assert float(found[1]) == round(100 * half, 2)
    assert int(found[2].replace(",", "")) == more > 0


def test_without_precision_no_stop_line(tmp_path: Path) -> None:
    res = invoke("run", *PAIR, "-n", "20", "--out", str(tmp_path / "run"))
    assert res.exit_code == 0, (res.stderr, res.exception)
    assert "stopped by" not in res.stdout and "more games" not in res.stdout


def test_refusals_are_one_line(tmp_path: Path) -> None:
    out = str(tmp_path / "run")
    for bad in ("0", "0.5", "-0.1", "2", "1e-300", "0.00009"):
        res = invoke("run", *PAIR, "-n", "100", "--precision", bad, "--out", out)
        one_line_error(res, "--precision must be a half-width from 0.0001 to below 0.5")
    res = invoke("run", "-s", "greedy", "-n", "100", "--precision", "0.01", "--out", out)
    one_line_error(res, "--precision needs a pairing", "one strategy fills every seat")
    assert not (tmp_path / "run").exists()
    res = invoke("run", *PAIR, "-n", "20", "--out", out)
    assert res.exit_code == 0
    res = invoke("run", "--resume", out, "--precision", "0.01")
    one_line_error(res, "--precision cannot be changed on --resume")
