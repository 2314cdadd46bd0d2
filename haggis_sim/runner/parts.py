"""A chunk's log parts: serialized by whoever played it, written by whoever owns ``--out``.

Playing a chunk ends in three Parquet parts (moves, rounds, games) and the ledger line
that records them. Two halves, so both execution paths share one implementation:
:func:`serialize_parts` (in memory: bytes, rows, size, digest) and :func:`write_blobs`
(each part under a temporary name, renamed into place).

- Local pools (``--jobs``, loky) share the client's disk: the worker that played a chunk
  writes its parts itself, so serializing and writing run in parallel on every worker
  and no part crosses a pipe; the client only appends the ledger line.
- Dask (``--backend dask``) is shared-nothing: a worker's disk is not the client's. The
  task returns the serialized parts; the client checks each blob against the size and
  digest the worker computed (:func:`verify_blobs`), writes it with the same writer and
  then appends the ledger line. Nothing is written by a worker on its disk.
- Dask with ``--out`` an object-store URL: a worker puts its chunk's moves and rounds
  parts (nine tenths of the bytes) into the store itself (:func:`put_parts`, with the
  worker's own credentials) and sends only the games part and every part's size and
  digest; the client checks that the objects are there at those sizes, writes and
  uploads the games part (it keeps the games table: the summary and ``--precision`` read
  it) and records the chunk; the client alone writes the ledger. A worker that cannot
  write to the store (no credentials, no route) sends all three parts as above, and the
  client says so once for that worker.

Strategies travel to the workers built (:func:`ship`): a ``learned`` or ``mcts`` model's
weights are in the strategy's parameter array, so a worker never reads a model file. A
plug-in strategy (a class outside this package) travels as its spec and is made on the
worker, which must have it installed; if it does not, :class:`WorkerError` names the
worker and the missing piece in one line.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from strategies import Strategy, make

from .. import __version__
from .._cache import source_hash
from ..errors import InputError
from ..logs import ledger
from ..logs import schema as logs
from ..logs.store import RunStore, StoreError
from ..rules import Rules
from .chunk import ChunkLogs
from .pool import Pool


class WorkerError(InputError):
    """A worker cannot play a chunk as the client asked (a plug-in strategy it lacks), or
    a chunk's parts arrived other than the worker sent them."""


@dataclass(frozen=True)
class Parts:
    """A chunk's three serialized parts: Parquet bytes and what its ledger line records."""

    name: str  # the part file name (the same in every table)
    blobs: dict[str, bytes]
    files: dict[str, ledger.PartFile]


@dataclass
class ChunkResult:
    """What a worker reports for a chunk: its games, and its parts as written (``parts``
    None) or as bytes for the client to write (shared-nothing)."""

    start: int
    stop: int
    moves: int
    seconds: float
    files: dict[str, ledger.PartFile]
    parts: Parts | None = None
    worker: str = ""
    stored: tuple[str, ...] = ()  # tables whose part the worker put in the object store
    store_problem: str | None = None  # why the worker could not write to the store

    @property
    def games(self) -> int:
        return self.stop - self.start


def serialize_parts(
    result: ChunkLogs,
    game_ids: np.ndarray,
    deal_ids: np.ndarray,
    specs: list[str],
    rules: Rules,
) -> Parts:
    """The three parts (moves, rounds, games) of the consecutive games ``game_ids``, in
    memory, each with its rows, size and digest."""
    name = ledger.part_name(int(game_ids[0]), int(game_ids[-1]) + 1)
    frames = {
        "moves": logs.moves_frame(result.moves),
        "rounds": logs.rounds_frame(result.rounds),
        "games": logs.games_frame(
            result.games,
            result.entries,
            result.deal_seeds,
            deal_ids,
            specs,
            rules.players,
            rules.label,
        ),
    }
    blobs, files = {}, {}
    for table, frame in frames.items():
        data = logs.parquet_bytes(frame)
        blobs[table] = data
        files[table] = ledger.PartFile(frame.height, len(data), ledger.digest(data))
    return Parts(name, blobs, files)


def write_blobs(run_dir: Path, parts: Parts) -> None:
    """Write each part under a temporary name and rename it into place."""
    for table, data in parts.blobs.items():
        logs.write_bytes_atomic(data, run_dir / table / parts.name)


def write_parts(
    run_dir: Path,
    result: ChunkLogs,
    game_ids: np.ndarray,
    deal_ids: np.ndarray,
    specs: list[str],
    rules: Rules,
) -> dict[str, ledger.PartFile]:
    """Serialize and write the three parts of the games ``game_ids``; return what their
    ledger line records. Used where the writer shares the run folder's disk (local
    workers, ``play``)."""
    parts = serialize_parts(result, game_ids, deal_ids, specs, rules)
    write_blobs(run_dir, parts)
    return parts.files


# the tables a worker puts in an object store itself; the games part goes to the client
DIRECT_TABLES = ("moves", "rounds")
_unwritable: dict[str, str] = {}  # store URL -> why this worker process cannot write there


def put_parts(url: str, parts: Parts) -> tuple[Parts, tuple[str, ...], str | None]:
    """Put the moves and rounds parts at ``url`` from this worker (one PUT each).

    Returns the parts still to send to the client (the games part; all three if this
    worker cannot write to the store), the tables put, and the reason the store could
    not be written (only the first time: a worker that failed once sends every later
    chunk's parts to the client without trying again, so an unreachable store costs its
    connect timeout once, not once per chunk).
    """
    if url in _unwritable:
        return parts, (), None
    try:
        store = RunStore(url)
        for table in DIRECT_TABLES:
            store.write(parts.blobs[table], table, parts.name)
    except StoreError as exc:
        _unwritable[url] = str(exc)
        return parts, (), str(exc)
    rest = {t: b for t, b in parts.blobs.items() if t not in DIRECT_TABLES}
    return Parts(parts.name, rest, parts.files), DIRECT_TABLES, None


def verify_blobs(
    parts: Parts, files: dict[str, ledger.PartFile], worker: str, stored: tuple[str, ...] = ()
) -> None:
    """WorkerError unless every blob has the size and digest the worker computed (the
    tables in ``stored`` are in the object store, not among the blobs)."""
    for table, want in files.items():
        if table in stored:
            continue
        data = parts.blobs.get(table)
        got = None if data is None else (len(data), ledger.digest(data))
        if got != (want.size, want.digest):
            have = "missing" if got is None else f"{got[0]:,} bytes, digest {got[1]}"
            raise WorkerError(
                f"the {table} part {parts.name} from worker {worker} arrived damaged "
                f"({have}; the worker sent {want.size:,} bytes, digest {want.digest}); "
                "it is not recorded"
            )


def receive(pool: Pool, task: Any, run_dir: Path) -> ChunkResult:
    """A finished chunk task's result, its parts (if the worker sent them as bytes)
    verified but not yet written.

    WorkerError (one line) if the worker could not play it or its parts arrived damaged.
    """
    try:
        result: ChunkResult = pool.result(task)
        if result.parts is not None:
            verify_blobs(result.parts, result.files, result.worker, result.stored)
    except WorkerError as exc:
        raise WorkerError(f"{exc}; finished chunks are kept (--resume {run_dir})") from None
    return result


def record_chunk(run_dir: Path, result: ChunkResult) -> ledger.Entry:
    """Record a received chunk in the run: its parts are written first if the worker sent
    them as bytes (then released, before the next chunk is fetched), then its ledger line
    is appended. OSError if the disk refuses."""
    if result.parts is not None:
        write_blobs(run_dir, result.parts)
        result.parts = None
    entry = ledger.Entry(result.start, result.stop, result.files)
    ledger.append(run_dir, entry)
    return entry


def engine_id() -> str:
    """This installation's engine: the package version and the hash of every compiled
    source (:func:`haggis_sim._cache.source_hash`), which decide the games a chunk plays."""
    return f"{__version__}+{_engine_hash()}"


@functools.cache
def _engine_hash() -> str:
    return source_hash()


def check_engine(expected: str | None) -> None:
    """WorkerError naming this worker unless it runs the engine ``expected`` (the
    client's :func:`engine_id`; None: not checked). A worker with another haggis-sim
    would play other games under the same seed, so its chunks must not be recorded."""
    if expected is not None and expected != engine_id():
        raise WorkerError(
            f"worker {worker_address()} runs another haggis-sim (engine {engine_id()}, the "
            f"client's {expected}): install the same haggis-sim on every worker"
        )


def worker_address() -> str:
    """This worker as the client can name it: its Dask address, else its process id.

    A Dask worker has imported ``distributed``; a process that has not is no Dask worker,
    and is not made to import it (most of a second) to learn so."""
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        with contextlib.suppress(ValueError):  # ValueError: not on a Dask worker
            return str(distributed.get_worker().address)
    return f"process {os.getpid()}"


def ship(strategies: Sequence[Strategy]) -> list[Strategy | str]:
    """The strategies as chunk tasks carry them: this package's built (with any model
    weights), a plug-in's as its spec (made on the worker, where it must be installed)."""
    return [s if type(s).__module__.split(".")[0] == "strategies" else s.spec for s in strategies]


def unship(shipped: Sequence[Strategy | str]) -> list[Strategy]:
    """The strategies a task carries, plug-ins made here; WorkerError naming this worker
    and the strategy if one cannot be made here (not installed, a file it reads absent)."""
    built = []
    for item in shipped:
        if isinstance(item, str):
            try:
                item = make(item)
            except ValueError as exc:
                raise WorkerError(
                    f"worker {worker_address()} cannot make strategy {item!r}: {exc} "
                    "(install the same haggis-sim and plug-ins on every worker)"
                ) from None
        built.append(item)
    return built
