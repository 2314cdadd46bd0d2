"""Hostile input to ``haggis-sim query`` and the read side (issue 8, items 2, 3 and 5).

Every DuckDB connection the tool opens reads the given runs' parts and nothing else;
``query`` takes one read-only statement; ``--to`` is written by the tool, atomically, and
never over an existing file without ``--force``; statement errors and damaged parts are
one line and exit status 2. Each case checks that its effect did not happen.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim.analytics.replay import replay
from haggis_sim.analytics.sections import connect_runs
from haggis_sim.logs import ledger
from haggis_sim.logs import schema as logs
from haggis_sim.logs.manifest import load_manifest
from haggis_sim.logs.query import QueryError, connect, new_connection, read_only_statement
from haggis_sim.report import build_tables

REFUSED = "one read-only statement"


def make_run(out: Path, seed: int) -> Path:
    res = invoke(
        "run", "--strategies", "greedy,random", "--games", "20", "--chunk-size", "10",
        "--jobs", "1", "--seed", str(seed), "--out", str(out), "-q",
    )  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr, res.exception)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("hostile-runs")
    return {"a": make_run(base / "a", 1), "other": make_run(base / "other", 2)}


@pytest.fixture()
def run_copy(runs: dict[str, Path], tmp_path: Path) -> Path:
    """A private copy of run ``a`` that a test may damage."""
    return Path(shutil.copytree(runs["a"], tmp_path / "copy"))


# --- statements query refuses or that fail -------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "ATTACH 'x.duckdb' AS x",
        "INSTALL httpfs",
        "LOAD httpfs",
        "DROP VIEW games",
        "CREATE TABLE t AS SELECT 1",
        "SET enable_external_access = true",
        "RESET lock_configuration",
        "PRAGMA show_tables",
        "PRAGMA enable_profiling",
        "CALL pragma_version()",
        "DETACH memory",
        "EXPORT DATABASE 'exported'",
        "SELECT 1; SELECT 2",
        "EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1",
        ";",
    ],
)
def test_statements_that_are_not_read_only_are_refused(
    runs: dict[str, Path], sql: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where a relative ATTACH / EXPORT would create files
    before = sorted(p.name for p in runs["a"].rglob("*"))
    one_line_error(invoke("query", str(runs["a"]), sql), REFUSED)
    assert list(tmp_path.iterdir()) == []
    assert sorted(p.name for p in runs["a"].rglob("*")) == before
    # the views are still there (and no statement has any lasting effect anyway)
    res = invoke("query", str(runs["a"]), "SELECT count(*) AS n FROM games")
    assert res.exit_code == 0 and "20" in res.stdout


def test_copy_writes_nothing(runs: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "x.csv"
    for sql in (
        f"COPY (SELECT 1) TO '{target}'",
        f"SELECT 42 AS answer; COPY (SELECT 1) TO '{target}'",
        f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{target}'",
    ):
        res = invoke("query", str(runs["a"]), sql)
        one_line_error(res, REFUSED)
        assert res.stdout == ""  # not even the first statement's result
        assert not target.exists()


def test_no_file_outside_the_run_can_be_read(runs: dict[str, Path], tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-1234\n")
    other = runs["other"]
    other_part = ledger.table_files(other, "games")[0]
    other_ids = pl.read_parquet(other_part)["deal_seed"].cast(pl.String).to_list()
    for sql in (
        f"SELECT content FROM read_text('{secret}')",
        "SELECT content FROM read_text('/etc/passwd')",
        f"SELECT * FROM read_csv('{secret}')",
        f"SELECT * FROM glob('{tmp_path}/*')",
        f"SELECT * FROM read_parquet('{other}/games/*.parquet')",
        f"SELECT * FROM read_parquet(['{other_part}'])",
        f"SELECT * FROM read_parquet('{runs['a']}/games/../../other/games/part-000000.parquet')",
        "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    ):
        res = invoke("query", str(runs["a"]), sql)
        line = one_line_error(res)
        assert "TOPSECRET" not in res.stdout + res.stderr
        assert "root:" not in res.stdout + res.stderr
        assert not any(seed in res.stdout for seed in other_ids)
        assert "Permission" in line or "disabled" in line, line


@pytest.mark.parametrize(
    ("sql", "word"),
    [
        ("SELECT CAST('x' AS INTEGER)", "Conversion"),
        ("SELECT error('boom')", "boom"),
        ("SELECT 1 // 0", "Division by zero"),
        ("SELECT count(*) // 0 FROM games", "Division by zero"),
        ("SELECT nosuch FROM games", "nosuch"),
        ("SELEC 1", "syntax"),
    ],
)
def test_errors_while_a_query_runs_are_one_line(runs: dict[str, Path], sql: str, word: str) -> None:
    one_line_error(invoke("query", str(runs["a"]), sql), word)


@pytest.mark.parametrize(
    "sql",
    [
        "WITH w AS (SELECT winner FROM games) SELECT count(*) AS n FROM w",
        "VALUES (20), (21)",
        "FROM games SELECT count(*) AS n",
        "DESCRIBE moves",
        "SUMMARIZE rounds",
        "EXPLAIN SELECT count(*) FROM games",
    ],
)
def test_read_only_statements_work(runs: dict[str, Path], sql: str) -> None:
    res = invoke("query", str(runs["a"]), sql)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip()


def test_read_only_statement_api() -> None:
    assert read_only_statement("SELECT 1;") == "SELECT 1"
    for sql in ("COPY (SELECT 1) TO 'x.csv'", "SELECT 1; DROP VIEW games", "EXPLAIN DROP VIEW g"):
        with pytest.raises(QueryError, match=REFUSED):
            read_only_statement(sql)


# --- every connection the tool opens is confined -------------------------------------------------


def test_library_connections_are_confined(runs: dict[str, Path], tmp_path: Path) -> None:
    """The report's and compare's connections (not only ``query``) read their runs only."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET\n")
    secret_frame = pl.DataFrame({"s": ["TOPSECRET"]})  # a Python variable SQL must not see
    assert secret_frame.height == 1
    a, other = runs["a"], runs["other"]
    report_con, included = connect_runs([a], [load_manifest(a)])
    assert included == [0]
    for con in (connect(a), report_con):
        assert con.sql("SELECT count(*) FROM games").fetchall() == [(20,)]
        for sql in (
            f"SELECT * FROM read_text('{secret}')",
            f"COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'",
            f"ATTACH '{tmp_path / 'x.duckdb'}' AS x",
            f"SELECT * FROM read_parquet('{ledger.table_files(other, 'games')[0]}')",
            "INSTALL httpfs",
            "LOAD httpfs",
            "SELECT * FROM secret_frame",
        ):
            with pytest.raises(duckdb.Error):
                con.execute(sql).fetchall()
        for sql in (
            "SET enable_external_access = true",
            f"SET allowed_paths = ['{secret}']",
            "SET autoload_known_extensions = true",
            "RESET lock_configuration",
        ):
            with pytest.raises(duckdb.Error, match="locked"):
                con.execute(sql)
        con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.txt"]


def test_large_sorts_still_spill_to_a_private_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sort larger than the memory limit completes on a confined connection; it spills
    to a folder of its own, removed on close; the temporary folder around it stays closed."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("HAGGIS_SIM_DUCKDB_MEMORY", "64MB")
    planted = tmp_path / "haggis-duckdb" / "planted.txt"  # the old shared spill folder
    planted.parent.mkdir()
    planted.write_text("TOPSECRET\n")
    con = new_connection()
    sql = (
        "SELECT count(*) FROM (SELECT i::VARCHAR || repeat('x', 40) AS a "
        "FROM range(2000000) t(i) ORDER BY a)"
    )
    assert con.sql(sql).fetchall() == [(2_000_000,)]
    (spill,) = tmp_path.glob("haggis-duckdb-*")  # it spilled there
    with pytest.raises(duckdb.Error):
        con.sql(f"SELECT content FROM read_text('{planted}')").fetchall()
    with pytest.raises(duckdb.Error):
        con.sql(f"SELECT * FROM glob('{tmp_path}/*')").fetchall()
    con.close()
    assert not spill.exists()


def test_a_bad_memory_setting_is_one_line(
    runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HAGGIS_SIM_DUCKDB_MEMORY", "lots")
    one_line_error(invoke("query", str(runs["a"]), "SELECT 1"), "DuckDB")


# --- --to ---------------------------------------------------------------------------------------


def test_to_writes_csv_and_parquet(runs: dict[str, Path], tmp_path: Path) -> None:
    games = pl.read_parquet(ledger.table_files(runs["a"], "games"))
    sql = "SELECT game_id, winner, strategy_0 FROM games ORDER BY game_id"
    for name in ("g.csv", "g.parquet"):
        res = invoke("query", str(runs["a"]), sql, "--to", str(tmp_path / name))
        assert res.exit_code == 0, res.stderr
        got = (
            pl.read_csv(tmp_path / name)
            if name.endswith("csv")
            else pl.read_parquet(tmp_path / name)
        )
        assert got["game_id"].to_list() == sorted(games["game_id"].to_list())
        assert got["strategy_0"].cast(pl.String).to_list() == (
            games.sort("game_id")["strategy_0"].cast(pl.String).to_list()
        )
    empty = tmp_path / "empty.csv"
    assert (
        invoke(
            "query", str(runs["a"]), "SELECT game_id FROM games WHERE false", "--to", str(empty)
        ).exit_code
        == 0
    )
    assert empty.read_text().strip() == "game_id"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.csv", "g.csv", "g.parquet"]


def test_to_refuses_an_existing_file_unless_force(runs: dict[str, Path], tmp_path: Path) -> None:
    mine = tmp_path / "thesis.csv"
    mine.write_text("my,data\n1,2\n")
    one_line_error(invoke("query", str(runs["a"]), "SELECT 1 AS one", "--to", str(mine)), "--force")
    assert mine.read_text() == "my,data\n1,2\n"
    res = invoke("query", str(runs["a"]), "SELECT 1 AS one", "--to", str(mine), "--force")
    assert res.exit_code == 0, res.stderr
    assert mine.read_text().split() == ["one", "1"]


def test_to_in_a_bad_place_is_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    run = runs["a"]
    before = sorted(p.name for p in run.rglob("*"))
    one_line_error(
        invoke("query", str(run), "SELECT 1", "--to", str(tmp_path / "no" / "x.csv")),
        "does not exist",
    )
    one_line_error(invoke("query", str(run), "SELECT 1", "--to", "/proc/x.csv"), "cannot write")
    one_line_error(invoke("query", str(run), "SELECT 1", "--to", str(tmp_path)))
    part = ledger.table_files(run, "games")[0]
    one_line_error(
        invoke("query", str(run), "SELECT 1", "--to", str(part), "--force"), "inside the run"
    )
    one_line_error(
        invoke("query", str(run), "SELECT 1", "--to", str(run / "games" / "p.parquet")),
        "inside the run",
    )
    assert sorted(p.name for p in run.rglob("*")) == before
    assert list(tmp_path.iterdir()) == []


def test_a_query_that_fails_midway_leaves_no_file(runs: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    sql = "SELECT CASE WHEN i > 150000 THEN error('boom') END AS x FROM range(200000) t(i)"
    one_line_error(invoke("query", str(runs["a"]), sql, "--to", str(target)), "boom")
    assert list(tmp_path.iterdir()) == []
    target.write_text("kept\n")
    one_line_error(invoke("query", str(runs["a"]), sql, "--to", str(target), "--force"), "boom")
    assert target.read_text() == "kept\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


# --- damaged logs ---------------------------------------------------------------------------------


def truncate_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def garble(path: Path) -> None:
    path.write_bytes(b"not parquet at all " * 50)


def scramble_middle(path: Path) -> None:
    """Damage inside the part; its footer stays intact."""
    data = bytearray(path.read_bytes())
    for i in range(100, len(data) // 2):
        data[i] = (data[i] * 7 + 13) % 256
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("table", "damage"),
    [("moves", truncate_half), ("games", garble), ("moves", scramble_middle)],
)
def test_damaged_part_is_named_by_query_and_replay(run_copy: Path, table: str, damage: Any) -> None:
    part = ledger.table_files(run_copy, table)[1]  # games 10-19
    damage(part)
    want = f"damaged log file {part}"
    sql = "SELECT sum(cards) AS c FROM moves" if table == "moves" else "SELECT * FROM games"
    one_line_error(invoke("query", str(run_copy), sql), want, "--resume")
    one_line_error(invoke("replay", str(run_copy), "15"), want)
    with pytest.raises(logs.DamagedLogError, match=want):
        list(replay(run_copy, 15))


@pytest.mark.parametrize("damage", [truncate_half, garble])
def test_damaged_part_is_named_by_report_and_compare(
    runs: dict[str, Path], run_copy: Path, damage: Any
) -> None:
    part = ledger.table_files(run_copy, "moves")[0]
    damage(part)
    with pytest.raises(logs.DamagedLogError, match=f"damaged log file {part}"):
        build_tables([run_copy], [load_manifest(run_copy)])
    # compared with another run: a copy of run a is run a, which compare refuses as such
    one_line_error(invoke("compare", str(runs["other"]), str(run_copy)), f"damaged log file {part}")
