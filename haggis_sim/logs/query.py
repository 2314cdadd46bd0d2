"""SQL over a run's Parquet logs with DuckDB: views ``games``, ``rounds``, ``moves``.

Every DuckDB connection the tool opens comes from :func:`new_connection`, which confines it
before anything else runs: it may read the Parquet parts it was given and nothing else (no
other file, no network, no extension), it spills large sorts to a temporary folder only
DuckDB's own buffer manager uses, and its configuration is locked so no statement can
lift these limits. ``haggis-sim query`` further takes a single read-only statement
(:func:`read_only_statement`) and writes ``--to`` files itself, atomically; it stops the
statement past a time limit, on Ctrl-C or on SIGTERM, and removes its spill folder on every
exit it survives (and those of dead processes at its next start, :func:`sweep_stale_spills`).

Damaged parts (truncated, overwritten) are reported as :class:`logs.DamagedLogError` naming
the file, never as a DuckDB traceback; running out of the memory DuckDB may use, as
:class:`MemoryLimitError` naming ``HAGGIS_SIM_DUCKDB_MEMORY`` and a size to try
(:func:`memory_bounded`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from .. import outputs
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
DEFAULT_TIMEOUT = 600.0
"""Seconds a ``query`` statement may run (``--timeout``) unless told otherwise: 10 minutes."""
MAX_TIMEOUT = 86_400.0
"""The longest ``--timeout`` accepted: one day."""
MEMORY_VARIABLE = "HAGGIS_SIM_DUCKDB_MEMORY"
"""The environment variable that sets the memory every DuckDB connection may use."""
DEFAULT_MEMORY = "2GB"
"""That memory when the variable is not set."""
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")
SPILL_PREFIX = "haggis-duckdb-"
# a spill folder of new_connection: the prefix, the process id, 16 lowercase hex digits
_SPILL_NAME = re.compile(r"haggis-duckdb-([0-9]+)-[0-9a-f]{16}")
_POLL = 0.05  # seconds between looks at the running statement: the latency of Ctrl-C


class QueryError(InputError):
    """A statement ``query`` refuses, one that fails while it runs, or a bad ``--to``."""


class QueryTimeout(QueryError):
    """The statement ran past its time limit and DuckDB was interrupted."""


class MemoryLimitError(QueryError):
    """DuckDB needed more memory than ``HAGGIS_SIM_DUCKDB_MEMORY`` lets it use; the message
    names the variable, its value and a size to try."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread (:func:`sigterm_stops`) so that it stops a
    query, and cleans up after it, exactly as Ctrl-C does."""


class _Halted(Exception):
    """Raised in the worker thread when it is told to stop between two batches."""


def _lit(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _abs(path: Path) -> str:
    return os.path.abspath(path)


def glob_literal(path: str) -> str:
    """``path`` as a DuckDB glob that matches that one file: DuckDB expands ``*``, ``?``
    and ``[...]`` in every path it reads, so each is put in a character class of its own
    (``runs/a[1]`` -> ``runs/a[[]1]``), and a folder named like a pattern never reads
    its siblings.

    >>> glob_literal("/r/gz*/a[1]?.parquet")
    '/r/gz[*]/a[[]1][?].parquet'
    """
    return path.replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")


def parquet_list(files: Sequence[Path]) -> str:
    """``files`` as a DuckDB list literal of absolute paths, for ``read_parquet``, each
    matching exactly its own file (:func:`glob_literal`)."""
    return "[" + ", ".join(_lit(glob_literal(_abs(f))) for f in files) + "]"


def _allowed(files: Sequence[Path]) -> str:
    """The ``allowed_paths`` list for ``files``: each path, and where it holds a glob
    character also the pattern :func:`parquet_list` reads it by (DuckDB checks the
    pattern, then the file it expands to; the pattern matches that one file only)."""
    paths = [_abs(f) for f in files]
    both = [p for path in paths for p in dict.fromkeys((path, glob_literal(path)))]
    return "[" + ", ".join(_lit(p) for p in both) + "]"


def new_connection(files: Sequence[Path] = ()) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection that can read ``files`` and nothing else.

    Settings, in this order (each must precede ``lock_configuration``):

    - ``memory_limit`` (``HAGGIS_SIM_DUCKDB_MEMORY``, default ``2GB``) and a
      ``temp_directory`` of its own, ``haggis-duckdb-<pid>-<random>`` in the system
      temporary folder: big sorts and joins spill there instead of taking the machine's
      memory. DuckDB creates it on the first spill and removes it when the connection
      closes. DuckDB always lets a connection reach its temp directory, so it must be a
      fresh one (a shared folder would expose whatever else is in it).
    - ``allowed_paths`` = exactly ``files`` (absolute; :func:`_allowed`), then
      ``enable_external_access = false``: no other file can be read or written
      (``COPY``, ``ATTACH``, ``read_text``, globs, other runs), and no extension
      installed or loaded.
    - ``autoinstall_known_extensions`` / ``autoload_known_extensions`` = false: a query
      never fetches code from the network.
    - ``python_enable_replacements`` = false: SQL cannot read Python variables of the
      calling code by name.
    - ``lock_configuration`` = true: no later ``SET``/``RESET``/``PRAGMA`` can undo any
      of this.
    """
    con = duckdb.connect()
    limit = memory_limit()
    spill = os.path.join(
        tempfile.gettempdir(), f"{SPILL_PREFIX}{os.getpid()}-{secrets.token_hex(8)}"
    )
    settings = [
        f"SET memory_limit = {_lit(limit)}",
        f"SET temp_directory = {_lit(spill)}",
        "SET preserve_insertion_order = false",
        "SET parquet_metadata_cache = true",  # a report scans each part many times
        "SET enable_progress_bar = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET python_enable_replacements = false",
        f"SET allowed_paths = {_allowed(files)}",
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


# --- running out of memory ---------------------------------------------------------------------


def memory_limit() -> str:
    """The memory a DuckDB connection may use: ``HAGGIS_SIM_DUCKDB_MEMORY``, or ``2GB``."""
    return os.environ.get(MEMORY_VARIABLE, DEFAULT_MEMORY)


def larger_size(limit: str) -> str | None:
    """Twice ``limit`` in its own unit (``2GB`` -> ``4GB``, ``30MB`` -> ``60MB``), or None
    for a value that is not a number with a unit."""
    match = _SIZE.fullmatch(limit)
    if match is None:
        return None
    return f"{2 * float(match.group(1)):g}{match.group(2)}"


def out_of_memory(exc: BaseException) -> MemoryLimitError | None:
    """The one-line :class:`MemoryLimitError` for ``exc`` if it is DuckDB running out of
    memory (also as it reaches Python through an Arrow stream), else None."""
    if not isinstance(exc, duckdb.OutOfMemoryException) and "Out of Memory Error" not in str(exc):
        return None
    limit = memory_limit()
    larger = larger_size(limit)
    hint = f"{MEMORY_VARIABLE}={larger}" if larger else f"{MEMORY_VARIABLE} above {limit}"
    return MemoryLimitError(
        f"DuckDB ran out of memory at its limit of {limit} ({MEMORY_VARIABLE}); "
        f"set {hint} (or more, as the machine allows) and run it again"
    )


@contextlib.contextmanager
def memory_bounded() -> Iterator[None]:
    """Inside (or, as a decorator, in the function): DuckDB running out of memory raises
    :class:`MemoryLimitError` instead, every other error goes on unchanged."""
    try:
        yield
    except (duckdb.Error, pa.ArrowException, OSError) as exc:
        error = out_of_memory(exc)
        if error is None:
            raise
        raise error from None


# --- damaged parts -------------------------------------------------------------------------------


def _damaged(run_dir: Path, path: Path, reason: str) -> logs.DamagedLogError:
    reason = reason.splitlines()[0].strip() if reason.strip() else "unreadable"
    return logs.DamagedLogError(
        f"damaged log file {path}: {reason}; re-play it with haggis-sim run --resume {run_dir}"
    )


#: per table, the columns every reader relies on and the kind of values they hold
#: (``int``: an integer type; ``text``: a string or a dictionary of strings)
REQUIRED_COLUMNS: dict[str, dict[str, str]] = {
    "games": {"game_id": "int", "winner": "int", "winner_entry": "int", "rounds": "int",
              "score_0": "int", "score_1": "int", "strategy_0": "text", "rules": "text"},
    "rounds": {"game_id": "int", "round": "int", "total_0": "int", "total_1": "int"},
    "moves": {"game_id": "int", "round": "int", "seat": "int", "type": "text"},
}  # fmt: skip
#: the largest seat number a log can hold (3 players at most)
MAX_SEAT = 2
_PART_NAME = re.compile(r"part-(\d+)-(\d+)\.parquet$")


def _kind_of(arrow_type: pa.DataType) -> str:
    if pa.types.is_dictionary(arrow_type):
        return _kind_of(arrow_type.value_type)
    if pa.types.is_integer(arrow_type):
        return "int"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "text"
    return str(arrow_type)


def _column_stats(meta: pq.FileMetaData, index: int) -> tuple[Any, Any] | None:
    """The least and greatest value of column ``index`` over every row group, from the
    footer's statistics; None where a row group has none."""
    low = high = None
    for g in range(meta.num_row_groups):
        stats = meta.row_group(g).column(index).statistics
        if stats is None or not stats.has_min_max:
            return None
        low = stats.min if low is None else min(low, stats.min)
        high = stats.max if high is None else max(high, stats.max)
    return None if low is None else (low, high)


def _footer_problem(path: Path, meta: pq.FileMetaData) -> str | None:
    """What in a part's footer contradicts the log schema (a column a reader needs gone or
    retyped, a winner that is no seat, game ids outside the part's range), or None."""
    table = path.parent.name
    schema = meta.schema.to_arrow_schema()
    for name, kind in REQUIRED_COLUMNS.get(table, {}).items():
        index = schema.get_field_index(name)
        if index < 0:
            return f"it has no column {name!r}, which the log schema requires"
        got = _kind_of(schema.field(index).type)
        if got != kind:
            return f"its column {name!r} holds {got}, not {kind} as the log schema says"
    columns = {schema.field(i).name: i for i in range(len(schema))}
    if table == "games":
        winner = _column_stats(meta, columns["winner"])
        if winner is not None and winner[1] > MAX_SEAT:
            return f"a game's winner is seat {winner[1]}, and no game has more than 3 seats"
    named = _PART_NAME.search(path.name)
    ids = _column_stats(meta, columns["game_id"])
    if named and ids is not None:
        first, stop = int(named.group(1)), int(named.group(2))
        if ids[0] < first or ids[1] >= stop:
            return f"it holds game ids {ids[0]}..{ids[1]}, outside its games {first}..{stop - 1}"
        if table == "games" and meta.num_rows != stop - first:
            return f"it holds {meta.num_rows:,} rows for {stop - first:,} games"
    return None


def check_parts(run_dir: Path, files: Sequence[Path]) -> None:
    """Raise DamagedLogError for the first part whose Parquet footer cannot be read, or
    whose footer contradicts the log schema (:func:`_footer_problem`).

    Reads only the footers (cheap): a truncated or overwritten part has no valid footer,
    and a hand-edited one (a column renamed or retyped, a winner that is no seat, a game
    counted twice) shows in its schema and column statistics. Damage inside a part with
    an intact footer is found when it is read (:func:`damage_from`).
    """
    for path in files:
        try:
            meta = pq.read_metadata(path)
        except (OSError, ValueError, pa.ArrowException):
            raise _damaged(run_dir, path, "not a complete Parquet file") from None
        problem = _footer_problem(path, meta)
        if problem:
            raise _damaged(run_dir, path, problem)


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
    outputs.check_outside(to, "--to", QueryError)  # nor inside another run, report, experiment


def _write(schema: pa.Schema, batches: Iterable[pa.RecordBatch], tmp: Path, to: Path) -> None:
    """Stream the result into ``tmp``: memory stays one batch, whatever the result size.

    A write the disk refuses is a QueryError naming ``to`` (polars' own error names no file).
    """
    if to.suffix == ".parquet":
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            for batch in batches:
                writer.write_batch(batch)
        return
    with open(tmp, "wb") as fh:
        _write_csv(schema.empty_table(), fh, to, header=True)
        for batch in batches:
            _write_csv(batch, fh, to, header=False)


def _write_csv(data: pa.Table | pa.RecordBatch, fh: IO[bytes], to: Path, header: bool) -> None:
    frame = pl.from_arrow(data)
    assert isinstance(frame, pl.DataFrame)
    try:
        frame.write_csv(fh, include_header=header)
    except (OSError, pl.exceptions.PolarsError) as exc:  # "File too large (os error 27)"
        raise QueryError(f"cannot write --to {to}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__


def _reader(rel: duckdb.DuckDBPyRelation) -> pa.RecordBatchReader:
    if hasattr(rel, "to_arrow_reader"):  # DuckDB 1.4+; the older name warns there
        return rel.to_arrow_reader(_BATCH_ROWS)
    return rel.fetch_arrow_reader(_BATCH_ROWS)


def _failure(run_dir: Path, files: Sequence[Path], exc: Exception) -> ValueError:
    """MemoryLimitError if DuckDB ran out of memory, DamagedLogError if ``exc`` comes from a
    damaged part, else a one-line QueryError."""
    memory = out_of_memory(exc)
    if memory is not None:
        return memory
    damage = damage_from(run_dir, files, exc)
    if damage is not None:
        return damage
    line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if line.startswith("Permission Error"):
        line += " (query reads only the run's games, rounds and moves)"
    return QueryError(line)


# --- stopping a statement, and its spill folder --------------------------------------------------


def check_timeout(seconds: float) -> float:
    """``seconds`` if it is a usable time limit (more than 0, at most a day); QueryError if not."""
    if not 0 < seconds <= MAX_TIMEOUT:  # NaN too
        raise QueryError(
            f"--timeout must be more than 0 and at most {MAX_TIMEOUT:,.0f} seconds, got {seconds:g}"
        )
    return seconds


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated` in the main thread.

    A process ended by SIGTERM's default action removes nothing: DuckDB's spill folder
    (gigabytes, for a big sort) and the ``--to`` temporary would stay. Raised as an
    exception, it runs the same cleanup as Ctrl-C. Outside the main thread (where no
    handler can be installed) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame: FrameType | None) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _run_stoppable(
    con: duckdb.DuckDBPyConnection, work: Callable[[threading.Event], str | None], timeout: float
) -> str | None:
    """``work(stop)`` in a worker thread, waited for at most ``timeout`` seconds.

    DuckDB runs in C++ and a Python signal handler runs only between bytecodes of the main
    thread, so a statement run in the main thread cannot be stopped by Ctrl-C. Here the
    main thread only waits, in short slices, so Ctrl-C (KeyboardInterrupt) and SIGTERM
    (:class:`Terminated`) reach it within one slice. On either, and when the time is up,
    DuckDB is interrupted and the worker waited for before the exception goes on (the
    caller may then close the connection); QueryTimeout for the time limit. An exception
    of ``work`` itself is raised here, in the calling thread.

    The worker's end is an Event of its own, not ``Thread.join``: on Python 3.11 a
    KeyboardInterrupt inside ``join`` can leave the thread marked as ended while it runs.
    """
    stop, done = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work(stop)
        except BaseException as exc:  # handed to the calling thread
            outcome["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=target, name="haggis-sim-query", daemon=True)
    deadline = time.monotonic() + timeout
    try:
        worker.start()
        while not done.is_set() and time.monotonic() < deadline:
            done.wait(min(_POLL, max(deadline - time.monotonic(), 0.0)))
    except BaseException:  # Ctrl-C, SIGTERM
        _halt(con, done, stop)
        raise
    if not done.is_set():
        _halt(con, done, stop)
        raise QueryTimeout(f"the query ran past --timeout {timeout:g} s and was stopped")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _halt(con: duckdb.DuckDBPyConnection, done: threading.Event, stop: threading.Event) -> None:
    """Interrupt DuckDB until the worker is ``done``; a further Ctrl-C meanwhile changes nothing.

    The interrupt is repeated: one sent between two DuckDB calls of the worker is lost, and
    DuckDB refuses one (as "busy") while the worker is inside some of its calls.
    """
    stop.set()
    while not done.is_set():
        try:
            with contextlib.suppress(duckdb.Error):
                con.interrupt()
            done.wait(_POLL)
        except KeyboardInterrupt:
            continue


def _until(stop: threading.Event, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``batches``, ending with _Halted once ``stop`` is set (writing is Python, not DuckDB)."""
    for batch in batches:
        if stop.is_set():
            raise _Halted
        yield batch


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user's, which cannot be signalled, does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's; no process id at all: not ours
        return True
    return True


def sweep_stale_spills(folder: Path | None = None) -> list[Path]:
    """Remove the spill folders that processes now dead left in ``folder``; return them.

    ``folder`` defaults to the system temporary folder, where :func:`new_connection` puts
    them. A process killed outright (``kill -9``, a crash) cannot remove its own. Only a
    folder named exactly ``haggis-duckdb-<pid>-<16 hex digits>`` whose process is gone is
    removed: never a live process's, a file or link of that name, or anything else.
    """
    folder = Path(tempfile.gettempdir()) if folder is None else folder
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    removed = []
    for entry in entries:
        match = _SPILL_NAME.fullmatch(entry.name)
        if match is None or entry.is_symlink() or not entry.is_dir():
            continue
        if not _alive(int(match.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _spill_folder(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The spill folder :func:`new_connection` gave ``con`` (None if it is not one of those)."""
    ((setting,),) = con.execute("SELECT current_setting('temp_directory')").fetchall()
    path = Path(str(setting))
    return path if _SPILL_NAME.fullmatch(path.name) else None


def _produce(
    con: duckdb.DuckDBPyConnection,
    statement: str,
    out: tuple[Path, Path] | None,
    stop: threading.Event,
) -> str | None:
    """Run ``statement``: its result as text, or streamed into ``out``'s temporary file."""
    rel = con.sql(statement)
    if out is None:
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            rel.show(max_width=200, max_rows=100)
        return shown.getvalue()
    tmp, to = out
    reader = _reader(rel)
    try:
        _write(reader.schema, _until(stop, reader), tmp, to)
    finally:  # an open stream keeps the connection busy: it could not be closed
        reader.close()
    return None


def run_query(
    run_dir: Path,
    sql: str,
    to: Path | None = None,
    force: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> str | None:
    """Run one read-only statement over a run; return the result as text, or write ``to``.

    ``to`` (.csv or .parquet) is written by this function, not by DuckDB: to a temporary
    file in the same folder, renamed into place when complete, so a failed query leaves
    nothing behind. An existing ``to`` is refused unless ``force``. Raises QueryError for
    a refused statement, a failing statement or a bad ``to`` (one the disk refuses
    included); DamagedLogError for a damaged part; FileNotFoundError for a run without
    parts.

    The statement is stopped (DuckDB interrupted) after ``timeout`` seconds, raising
    QueryTimeout, and at once on Ctrl-C (KeyboardInterrupt) or, inside
    :func:`sigterm_stops`, SIGTERM (:class:`Terminated`). On every way out the temporary
    file and the connection's spill folder are removed; spill folders left by dead
    processes are swept first (:func:`sweep_stale_spills`).
    """
    check_timeout(timeout)
    statement = read_only_statement(sql)
    if to is not None:
        _check_target(run_dir, to, force)
    sweep_stale_spills()
    files = run_files(run_dir)
    all_files = [f for parts in files.values() for f in parts]
    out = None
    if to is not None:
        # a folder we cannot write to fails here, before the query runs
        out = (outputs.reserve_file(to, QueryError, "--to"), to)
    con = spill = None
    try:
        con = live = connect(run_dir, files)
        spill = _spill_folder(live)
        shown = _run_stoppable(live, lambda stop: _produce(live, statement, out, stop), timeout)
        if out is not None:
            os.replace(*out)
        return shown
    except OSError as exc:
        if exc.errno is not None:  # the disk filled up, for one
            raise QueryError(f"cannot write --to {to}: {exc.strerror or exc}") from None
        raise _failure(run_dir, all_files, exc) from None  # DuckDB, through the Arrow stream
    except (duckdb.Error, pl.exceptions.PolarsError, pa.ArrowException) as exc:
        raise _failure(run_dir, all_files, exc) from None
    finally:
        if out is not None:
            with contextlib.suppress(OSError):
                out[0].unlink()
        if con is not None:
            con.close()
        if spill is not None:  # DuckDB removes it on close; this makes sure
            shutil.rmtree(spill, ignore_errors=True)
