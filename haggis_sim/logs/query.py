"""SQL over a run's Parquet logs with DuckDB: views ``games``, ``rounds``, ``moves``.

Every DuckDB connection the tool opens comes from :func:`new_connection`, which confines it
before anything else runs: it may read the Parquet parts it was given and nothing else (no
other file, no network, no extension), it spills large sorts to a temporary folder only
DuckDB's own buffer manager uses, and its configuration is locked so no statement can
lift these limits. ``haggis-sim query`` further takes a single read-only statement
(:func:`read_only_statement`) and writes ``--to`` files itself, atomically.

Damaged parts (truncated, overwritten) are reported as :class:`logs.DamagedLogError` naming
the file, never as a DuckDB traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputError
from . import ledger
from . import schema as logs

ALLOWED = (
    "query takes one read-only statement: SELECT, WITH ... SELECT, VALUES, FROM ..., "
    "DESCRIBE, SHOW, SUMMARIZE, or EXPLAIN of one of these"
)
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?:ANALYZE\s+)?(?:\([^)]*\)\s*)?", re.IGNORECASE)
# words of DuckDB errors met while decoding a damaged part whose footer is intact (such an
# error may name no file, e.g. "TProtocolException: Invalid data")
_DECODE_WORDS = ("parquet", "thrift", "tprotocol", "magic bytes", "decompress", "corrupt")
_BATCH_ROWS = 100_000


class QueryError(InputError):
    """A statement ``query`` refuses, one that fails while it runs, or a bad ``--to``."""


def _lit(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _abs(path: Path) -> str:
    return os.path.abspath(path)


def parquet_list(files: Sequence[Path]) -> str:
    """``files`` as a DuckDB list literal of absolute paths, for ``read_parquet``."""
    return "[" + ", ".join(_lit(_abs(f)) for f in files) + "]"


def new_connection(files: Sequence[Path] = ()) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection that can read ``files`` and nothing else.

    Settings, in this order (each must precede ``lock_configuration``):

    - ``memory_limit`` (``HAGGIS_SIM_DUCKDB_MEMORY``, default ``2GB``) and a
      ``temp_directory`` of its own, ``haggis-duckdb-<pid>-<random>`` in the system
      temporary folder: big sorts and joins spill there instead of taking the machine's
      memory. DuckDB creates it on the first spill and removes it when the connection
      closes. DuckDB always lets a connection reach its temp directory, so it must be a
      fresh one (a shared folder would expose whatever else is in it).
    - ``allowed_paths`` = exactly ``files`` (absolute), then ``enable_external_access =
      false``: no other file can be read or written (``COPY``, ``ATTACH``,
      ``read_text``, globs, other runs), and no extension installed or loaded.
    - ``autoinstall_known_extensions`` / ``autoload_known_extensions`` = false: a query
      never fetches code from the network.
    - ``python_enable_replacements`` = false: SQL cannot read Python variables of the
      calling code by name.
    - ``lock_configuration`` = true: no later ``SET``/``RESET``/``PRAGMA`` can undo any
      of this.
    """
    con = duckdb.connect()
    limit = os.environ.get("HAGGIS_SIM_DUCKDB_MEMORY", "2GB")
    spill = os.path.join(
        tempfile.gettempdir(), f"haggis-duckdb-{os.getpid()}-{secrets.token_hex(8)}"
    )
    settings = [
        f"SET memory_limit = {_lit(limit)}",
        f"SET temp_directory = {_lit(spill)}",
        "SET preserve_insertion_order = false",
        "SET enable_progress_bar = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET python_enable_replacements = false",
        f"SET allowed_paths = {parquet_list(files)}",
        "SET enable_external_access = false",
        "SET lock_configuration = true",
    ]
    try:
        for statement in settings:
            con.execute(statement)
    except duckdb.Error as exc:  # a bad HAGGIS_SIM_DUCKDB_MEMORY, for one
        con.close()
        raise QueryError(f"cannot set up DuckDB: {str(exc).splitlines()[0]}") from None
    return con


# --- damaged parts -------------------------------------------------------------------------------


def _damaged(run_dir: Path, path: Path, reason: str) -> logs.DamagedLogError:
    reason = reason.splitlines()[0].strip() if reason.strip() else "unreadable"
    return logs.DamagedLogError(
        f"damaged log file {path}: {reason}; re-play it with haggis-sim run --resume {run_dir}"
    )


def check_parts(run_dir: Path, files: Sequence[Path]) -> None:
    """Raise DamagedLogError for the first part whose Parquet footer cannot be read.

    Reads only the footers (cheap): a truncated or overwritten part has no valid footer.
    Damage inside a part with an intact footer is found when it is read
    (:func:`damage_from`).
    """
    for path in files:
        try:
            pq.read_metadata(path)
        except (OSError, ValueError, pa.ArrowException):
            raise _damaged(run_dir, path, "not a complete Parquet file") from None


def locate_damage(run_dir: Path, files: Sequence[Path]) -> logs.DamagedLogError | None:
    """Read every part in full, one at a time; the error for the first that fails, if any."""
    for path in files:
        try:
            pq.ParquetFile(path).read()
        except (OSError, ValueError, pa.ArrowException) as exc:
            return _damaged(run_dir, path, f"its data cannot be decoded ({exc})".splitlines()[0])
    return None


def damage_from(
    run_dir: Path, files: Sequence[Path], exc: Exception
) -> logs.DamagedLogError | None:
    """The DamagedLogError behind ``exc`` (a DuckDB or polars error), or None.

    A message that names one of ``files`` points at it. A polars read error, or a DuckDB
    error about decoding Parquet that names no file (damage inside a part whose footer is
    intact), makes the parts be read one by one to find the damaged one; None if they all
    read. Errors of the statement itself (a bad cast, ``error()``) never cost that scan.
    """
    message = str(exc)
    for path in files:
        if _abs(path) in message or str(path) in message:
            return _damaged(run_dir, path, f"cannot be read ({message.splitlines()[0]})")
    if isinstance(exc, pl.exceptions.PolarsError) or any(
        word in message.lower() for word in _DECODE_WORDS
    ):
        return locate_damage(run_dir, files)
    return None  # a bad cast, error('...'), a full disk: not the logs' fault


# --- the query command ---------------------------------------------------------------------------


def run_files(run_dir: Path) -> dict[str, list[Path]]:
    """The parts of each table of a run, each checked for a readable footer."""
    files = {table: ledger.table_files(run_dir, table) for table in logs.TABLES}
    for table, parts in files.items():
        if not parts:
            raise FileNotFoundError(f"{run_dir / table} has no Parquet parts")
        check_parts(run_dir, parts)
    return files


def connect(run_dir: Path, files: dict[str, list[Path]] | None = None) -> duckdb.DuckDBPyConnection:
    """A confined in-memory DuckDB connection with the run's tables as views.

    ``files`` (from :func:`run_files`) saves listing and checking the parts again.
    """
    files = run_files(run_dir) if files is None else files
    con = new_connection([f for parts in files.values() for f in parts])
    for table, parts in files.items():
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({parquet_list(parts)})")
    return con


def read_only_statement(sql: str) -> str:
    """The single read-only statement in ``sql``; QueryError (naming what is allowed) if not.

    EXPLAIN is accepted only when what it explains is itself read-only (``EXPLAIN
    ANALYZE`` runs its statement).
    """
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(str(exc).splitlines()[0]) from None
    if len(statements) != 1:
        raise QueryError(f"{ALLOWED}; got {len(statements)} statements")
    # (an empty list: only comments or semicolons)
    (statement,) = statements
    kind = statement.type
    if kind == duckdb.StatementType.EXPLAIN:
        match = _EXPLAIN.match(statement.query)
        inner = statement.query[match.end() :] if match else ""
        try:
            inner_ok = [s.type for s in duckdb.extract_statements(inner)] == [
                duckdb.StatementType.SELECT
            ]
        except duckdb.Error:
            inner_ok = False
        if not inner_ok:
            raise QueryError(f"{ALLOWED}; EXPLAIN of something else is refused")
    elif kind != duckdb.StatementType.SELECT:
        words = statement.query.split()
        raise QueryError(f"{ALLOWED}; {words[0].upper() if words else kind} is refused")
    return statement.query.strip().rstrip(";")


def _check_target(run_dir: Path, to: Path, force: bool) -> None:
    if to.suffix not in (".csv", ".parquet"):
        raise QueryError(f"--to must end in .csv or .parquet, got {to.name!r}")
    if to.is_dir():
        raise QueryError(f"--to {to} is a folder")
    if to.exists() and not force:
        raise QueryError(f"--to {to} already exists (add --force to replace it)")
    if not to.parent.is_dir():
        raise QueryError(f"--to {to}: folder {to.parent} does not exist")
    inside = Path(_abs(to.parent))
    run_abs = Path(_abs(run_dir))
    if inside in {run_abs / t for t in logs.TABLES} or Path(_abs(to)) == run_abs / "manifest.json":
        raise QueryError(f"--to {to} is inside the run's logs; write it elsewhere")


def _write(reader: pa.RecordBatchReader, tmp: Path, suffix: str) -> None:
    """Stream the result into ``tmp``: memory stays one batch, whatever the result size."""
    if suffix == ".parquet":
        with pq.ParquetWriter(tmp, reader.schema, compression="zstd") as writer:
            for batch in reader:
                writer.write_batch(batch)
        return
    with open(tmp, "wb") as fh:
        frame = pl.from_arrow(reader.schema.empty_table())
        assert isinstance(frame, pl.DataFrame)
        frame.write_csv(fh)
        for batch in reader:
            part = pl.from_arrow(batch)
            assert isinstance(part, pl.DataFrame)
            part.write_csv(fh, include_header=False)


def _reader(rel: duckdb.DuckDBPyRelation) -> pa.RecordBatchReader:
    if hasattr(rel, "to_arrow_reader"):  # DuckDB 1.4+; the older name warns there
        return rel.to_arrow_reader(_BATCH_ROWS)
    return rel.fetch_arrow_reader(_BATCH_ROWS)


def _failure(run_dir: Path, files: Sequence[Path], exc: Exception) -> ValueError:
    """DamagedLogError if ``exc`` comes from a damaged part, else a one-line QueryError."""
    damage = damage_from(run_dir, files, exc)
    if damage is not None:
        return damage
    line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if line.startswith("Permission Error"):
        line += " (query reads only the run's games, rounds and moves)"
    return QueryError(line)


def run_query(run_dir: Path, sql: str, to: Path | None = None, force: bool = False) -> str | None:
    """Run one read-only statement over a run; return the result as text, or write ``to``.

    ``to`` (.csv or .parquet) is written by this function, not by DuckDB: to a temporary
    file in the same folder, renamed into place when complete, so a failed query leaves
    nothing behind. An existing ``to`` is refused unless ``force``. Raises QueryError for
    a refused statement, a failing statement or a bad ``to``; DamagedLogError for a
    damaged part; FileNotFoundError for a run without parts.
    """
    statement = read_only_statement(sql)
    if to is not None:
        _check_target(run_dir, to, force)
    files = run_files(run_dir)
    all_files = [f for parts in files.values() for f in parts]
    tmp = None
    if to is not None:
        tmp = to.with_name(f".{to.name}.tmp-{os.getpid()}")
        try:  # a folder we cannot write to fails here, before the query runs
            tmp.open("xb").close()
        except OSError as exc:
            raise QueryError(f"cannot write --to {to}: {exc.strerror or exc}") from None
    con = None
    try:
        con = connect(run_dir, files)
        rel = con.sql(statement)
        if to is None:
            shown = io.StringIO()
            with contextlib.redirect_stdout(shown):
                rel.show(max_width=200, max_rows=100)
            return shown.getvalue()
        assert tmp is not None
        _write(_reader(rel), tmp, to.suffix)
        os.replace(tmp, to)
        return None
    except OSError as exc:
        if exc.errno is not None:  # the disk filled up, for one
            raise QueryError(f"cannot write --to {to}: {exc.strerror or exc}") from None
        raise _failure(run_dir, all_files, exc) from None  # DuckDB, through the Arrow stream
    except (duckdb.Error, pl.exceptions.PolarsError, pa.ArrowException) as exc:
        raise _failure(run_dir, all_files, exc) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if con is not None:
            con.close()
