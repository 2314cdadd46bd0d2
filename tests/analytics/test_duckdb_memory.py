"""Reports, queries and comparisons within DuckDB's memory limit, and one line when over it.

The bombs section finds each opponent's cards left at a bomb without an ASOF join (which
held every move in memory); its numbers are checked against polars here. DuckDB running
out of the memory ``HAGGIS_SIM_DUCKDB_MEMORY`` allows is one ``error:`` line naming the
variable and a size to try, from every command that runs DuckDB.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from cli_helpers import invoke, one_line_error
from run_helpers import played_run

from haggis_sim.analytics import sections
from haggis_sim.logs import ledger
from haggis_sim.logs.manifest import load_manifest
from haggis_sim.logs.query import MemoryLimitError, larger_size, run_query
from haggis_sim.report.build import build_tables

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

HEAVY = (  # a statement whose lists cannot spill: over any small memory limit
    "SELECT a.game_id, b.turn, list(a.turn ORDER BY a.turn) AS l FROM moves a "
    "JOIN moves b USING (game_id) GROUP BY ALL ORDER BY 3"
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("runs")
    return [
        played_run(
            base / "r3", ["heuristic", "greedy", "random:bet=0.3"], 60, 3, seed=5, chunk_size=30
        ),
        played_run(base / "r2", ["heuristic", "greedy"], 60, 2, seed=5, chunk_size=30),
    ]


def _moves(run: Path) -> pl.DataFrame:
    return ledger.read_table(run, "moves").collect()


def _opp_left_reference(run: Path) -> pl.DataFrame:
    """Per bomb the fewest cards an opponent held (their last action before it; 17 if
    none), computed in polars from the moves, counted per value."""
    players = load_manifest(run).players
    moves = _moves(run)
    bombs = moves.filter(pl.col("type") == "bomb").select("game_id", "round", "turn", "seat")
    lefts = []
    for bomb in bombs.iter_rows(named=True):
        same = moves.filter(
            (pl.col("game_id") == bomb["game_id"]) & (pl.col("round") == bomb["round"])
            & (pl.col("turn") < bomb["turn"])
        )  # fmt: skip
        hands = []
        for opp in range(players):
            if opp == bomb["seat"]:
                continue
            before = same.filter(pl.col("seat") == opp).sort("turn")
            hands.append(int(before["hand_after"][-1]) if before.height else sections.HAND)
        lefts.append(min(hands))
    return (
        pl.DataFrame({"value": lefts}).group_by("value").agg(pl.len().alias("bombs")).sort("value")
    )


def test_bombs_opponent_cards_left_match_the_moves(runs: list[Path]) -> None:
    for run in runs:
        con, _ = sections.connect_runs([run], [load_manifest(run)])
        try:
            timing = sections.bombs(con)["bomb_timing"]
        finally:
            con.close()
        got = (
            timing.filter(pl.col("measure") == "opponent cards left")
            .group_by("value").agg(pl.col("bombs").sum()).sort("value")
        )  # fmt: skip
        want = _opp_left_reference(run)
        assert want.height > 1, "the run must hold bombs at several counts"
        assert got["value"].cast(pl.Int64).to_list() == want["value"].to_list()
        assert got["bombs"].cast(pl.Int64).to_list() == want["bombs"].cast(pl.Int64).to_list()


def test_larger_size_doubles_in_the_same_unit() -> None:
    assert larger_size("2GB") == "4GB"
    assert larger_size("30MB") == "60MB"
    assert larger_size(" 1.5GiB ") == "3GiB"
    assert larger_size("lots") is None


def test_report_over_the_memory_limit_is_one_line(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HAGGIS_SIM_DUCKDB_MEMORY", "30MB")
    out = tmp_path / "rep"
    res = invoke("report", *map(str, runs), "--out", str(out))
    one_line_error(res, "ran out of memory", "HAGGIS_SIM_DUCKDB_MEMORY=60MB")
    assert not out.exists()
    with pytest.raises(MemoryLimitError, match="limit of 30MB"):
        build_tables(runs)


def test_query_and_compare_over_the_memory_limit_are_one_line(
    runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HAGGIS_SIM_DUCKDB_MEMORY", "4MB")
    res = invoke("query", str(runs[0]), HEAVY)
    one_line_error(res, "ran out of memory", "HAGGIS_SIM_DUCKDB_MEMORY=8MB")
    with pytest.raises(MemoryLimitError, match="HAGGIS_SIM_DUCKDB_MEMORY=8MB"):
        run_query(runs[0], HEAVY)
    monkeypatch.setenv("HAGGIS_SIM_DUCKDB_MEMORY", "1MB")
    res = invoke("compare", str(runs[0]), str(runs[1]))
    one_line_error(res, "ran out of memory at its limit of 1MB", "HAGGIS_SIM_DUCKDB_MEMORY=2MB")


def _bomb_tables(runs: list[Path]) -> tuple[dict[str, pl.DataFrame], int]:
    """The bombs section's tables over ``runs``, and the number of slices it added up."""
    con, _ = sections.connect_runs(runs, [load_manifest(r) for r in runs])
    try:
        return sections.bombs(con), len(sections._bomb_slices(con))
    finally:
        con.close()


def test_bombs_computed_in_slices_of_games_equal_one_pass(
    runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bombs section adds up slices of games (memory: one slice); slices that cut the
    runs anywhere, even inside a chunk, give the tables of one slice per run."""
    whole, n = _bomb_tables(runs)
    assert n == 2
    played = sum(_moves(r).filter(pl.col("type") == "bomb").height for r in runs)
    assert whole["bombs"]["bombs"].sum() == played  # every bomb of every game, once
    monkeypatch.setattr(sections, "BOMB_SLICE", 7)  # 9 slices per run, the last one short
    sliced, n = _bomb_tables(runs)
    assert n == 18
    for name, frame in whole.items():
        assert frame.height > 1, name
        assert sliced[name].columns == frame.columns, name
        keys = [c for c in frame.columns if frame[c].dtype in (pl.String, pl.Utf8)]
        keys += ["measure", "value"] if name == "bomb_timing" else []
        a, b = frame.sort(keys), sliced[name].sort(keys)
        for column in frame.columns:
            if frame[column].dtype.is_float():
                assert (a[column] - b[column]).abs().max() < 1e-9, (name, column)
            else:
                assert a[column].to_list() == b[column].to_list(), (name, column)


def test_a_slice_reads_its_own_parts_only(runs: list[Path]) -> None:
    """A slice's source holds exactly its games' rows (a slice across a chunk boundary
    takes from both parts) and names no other part; a slice no part holds is empty."""
    con, _ = sections.connect_runs(runs, [load_manifest(r) for r in runs])
    try:
        for table in ("moves", "rounds"):
            src = sections.slice_source(con, table, 1, 25, 35)  # chunks of 30 games
            got = con.execute(f"SELECT game_id, count(*) FROM {src} GROUP BY 1 ORDER BY 1")
            want = (
                ledger.read_table(runs[1], table).collect()
                .filter(pl.col("game_id").is_between(25, 34))
                .group_by("game_id").len().sort("game_id")
            )  # fmt: skip
            assert got.fetchall() == [tuple(r) for r in want.iter_rows()], table
            assert src.count(".parquet") == 2, src
            assert "part-0000000030-0000000060" in sections.slice_source(con, table, 1, 40, 45)
            assert ".parquet" not in sections.slice_source(con, table, 1, 40, 45).replace(
                f"{table}/part-0000000030-0000000060.parquet", ""
            )
            empty = sections.slice_source(con, table, 1, 60, 90)
            assert con.execute(f"SELECT count(*) FROM {empty}").fetchone() == (0,)
    finally:
        con.close()
