"""SQL over a run's Parquet logs with DuckDB: views ``games``, ``rounds``, ``moves``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import duckdb

from . import logs


def new_connection() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with bounded memory.

    Large sorts and joins spill to a temporary folder instead of taking most of the
    machine's memory; ``HAGGIS_SIM_DUCKDB_MEMORY`` (default ``2GB``) sets the limit.
    """
    con = duckdb.connect()
    limit = os.environ.get("HAGGIS_SIM_DUCKDB_MEMORY", "2GB")
    con.execute(f"SET memory_limit = '{limit.replace(chr(39), '')}'")
    con.execute(
        f"SET temp_directory = '{tempfile.gettempdir().replace(chr(39), '')}/haggis-duckdb'"
    )
    con.execute("SET preserve_insertion_order = false")
    return con


def connect(run_dir: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the run's tables as views."""
    con = new_connection()
    for table in logs.TABLES:
        parts = sorted((run_dir / table).glob("part-*.parquet"))
        if not parts:
            raise FileNotFoundError(f"{run_dir / table} has no Parquet parts")
        pattern = str(run_dir / table / "part-*.parquet").replace("'", "''")
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{pattern}')")
    return con


def run_query(run_dir: Path, sql: str, to: Path | None = None) -> duckdb.DuckDBPyRelation | None:
    """Run ``sql``; write the result to ``to`` (.csv or .parquet) or return the relation."""
    con = connect(run_dir)
    rel = con.sql(sql)
    if to is None:
        return rel
    if to.suffix == ".csv":
        rel.write_csv(str(to))
    elif to.suffix == ".parquet":
        rel.write_parquet(str(to))
    else:
        raise ValueError(f"--to must end in .csv or .parquet, got {to.name!r}")
    return None
