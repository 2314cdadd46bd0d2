"""Running a tournament: check everything, plan chunks, play them in parallel, resume.

Every chunk's games depend only on (run seed, game id), so ``--jobs``, the backend, the
chunk sizes and interruptions change nothing in the logs. Nothing is created until every
check has passed. The manifest records the configuration with a digest, written once at
the start (and marked complete at the end); which games are finished is recorded in the
ledger (:mod:`.ledger`), one line per chunk, and verified against the files on resume.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from strategies import Strategy, make

from .. import __version__
from .._cache import unannounced
from ..errors import InputError
from ..logs import ledger
from ..logs import schema as logs
from ..logs.manifest import (
    GAME_KEYS,
    MANIFEST,
    MANIFEST_FORMAT,
    RESUMABLE_FORMATS,
    Manifest,
    RunSettings,
    StrategyEntry,
    config_digest,
    load_manifest,
    parse_manifest,
    write_manifest,
)
from ..rules import LISTED_FLAGS, Rules
from ..strategy_spec import SPEC_VERSION
from . import lock
from .chunk import play_chunk
from .parts import (
    ChunkResult,
    check_engine,
    engine_id,
    put_parts,
    receive,
    record_chunk,
    serialize_parts,
    ship,
    unship,
    worker_address,
    write_blobs,
)
from .plan import ChunkPlanner, format_duration
from .pool import (
    DaskPool,
    InlinePool,
    LokyPool,
    Pool,
    WorkersLost,
    check_backend,
    local_workers,
)
from .precision import PrecisionStop, precision_problem
from .seating import SEAT_MODES, SEATING_SCHEME, base_entries, games_per_deal
from .warmup import CompileWatch, warm_up

BACKENDS = ("loky", "dask")
MAX_GAMES = 2**32 - 1  # game ids are logged as UInt32
# what a resume may change: how the games are executed, never which games
RESUME_KEYS = ("jobs", "backend", "scheduler", "chunk_size")


class RunError(InputError):
    """A run that cannot start: bad configuration, or an output folder in the way."""


class Sync(Protocol):
    """Where a run's logs go besides its folder (:mod:`.remote`: an object store)."""

    # the URL workers that do not share the client's disk put their moves and rounds
    # parts to themselves (:func:`.parts.put_parts`); None: they send them to the client
    direct: str | None

    def reopen(self, run_dir: Path, say: Callable[[str], None]) -> list[ledger.Entry]:
        """On resume, instead of :func:`reopen_run`: the good entries, checked there."""

    def begin(self) -> None:
        """Once the run's manifest and ledger are in ``run_dir``, before any chunk is
        submitted (a worker may put parts in the store from then on)."""

    def check(self, result: ChunkResult) -> None:
        """Before a chunk is recorded: RunError unless the parts its worker put in the
        store (``result.stored``) are there at the sizes the worker reported."""

    def recorded(self, entry: ledger.Entry, stored: tuple[str, ...]) -> None:
        """After a chunk's parts and ledger line are written in ``run_dir`` (but the
        tables in ``stored``, which its worker put in the store)."""


def _whole(value: object, low: int, high: int | None = None) -> bool:
    """Whether ``value`` is a Python int (a bool is not) from ``low`` up to, not
    including, ``high`` (no bound above without one)."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and low <= value
        and (high is None or value < high)
    )


def scheduler_problem(backend: str, scheduler: str | None) -> str | None:
    """Why ``scheduler`` cannot be used with ``backend``, or None: a scheduler address is a
    Dask cluster's, and without ``--backend dask`` it would be silently ignored."""
    if scheduler is not None and backend != "dask":
        return (
            f"--scheduler {scheduler} is the address of a Dask scheduler: give --backend dask "
            "with it (or leave --scheduler out to play on this machine)"
        )
    if scheduler is not None and not _SCHEDULER.match(scheduler):
        return (
            f"--scheduler {scheduler!r} is not a Dask scheduler address: give "
            "tcp://HOST:PORT (or tls://HOST:PORT)"
        )
    return None


#: a Dask scheduler address: an optional comm scheme, a host (name, IPv4 or [IPv6]), a port
_SCHEDULER = re.compile(r"^((tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")


@dataclass(frozen=True)
class RunConfig(RunSettings):
    """Everything that determines a run's games (and how it is executed).

    The fields are :class:`~haggis_sim.logs.manifest.RunSettings`' (what a manifest
    records); this adds the checks and the digest. ``strategies`` may be given as a list
    and is held as a tuple.
    """

    def game_rules(self) -> Rules:
        """The typed rules; RunError with a readable message if they are not rules."""
        try:
            rules = {**self.rules, "bet_values": tuple(self.rules["bet_values"])}
            listed = {k: tuple(v) for k, v in rules.items() if k in LISTED_FLAGS}
            return Rules(**{**rules, **listed})
        except (TypeError, ValueError) as exc:
            raise RunError(str(exc)) from None
        except KeyError as exc:
            raise RunError(f"the rules lack {exc.args[0]}") from None

    def validate(self) -> tuple[Rules, list[Strategy]]:
        """The typed rules and strategies; RunError with a readable message if bad."""
        rules = self.game_rules()
        if not _whole(self.seed, -(2**63), 2**63):
            raise RunError(f"--seed must be a 64-bit integer, got {self.seed!r}")
        if not _whole(self.games, 1):
            raise RunError(f"--games must be a positive whole number, got {self.games!r}")
        if not isinstance(self.log_moves, bool):
            raise RunError(f"moves (--log-moves) must be True or False, got {self.log_moves!r}")
        if self.games > MAX_GAMES:
            raise RunError(f"--games must be at most {MAX_GAMES:,} (game ids are 32-bit)")
        if self.seats not in SEAT_MODES:
            raise RunError(f"--seats must be rotate or fixed, got {self.seats!r}")
        if self.backend not in BACKENDS:
            raise RunError(f"--backend must be loky or dask, got {self.backend!r}")
        if why := scheduler_problem(self.backend, self.scheduler):
            raise RunError(why)
        if not _whole(self.chunk_size, 0):
            raise RunError("--chunk-size must be 0 (automatic) or a positive number of games")
        if not _whole(self.jobs, 0):
            raise RunError(f"--jobs must be 0 (all cores) or more, got {self.jobs}")
        if not self.strategies:
            raise RunError("--strategies needs at least one strategy")
        if why := precision_problem(self.precision, len(self.strategies)):
            raise RunError(why)
        if len(self.strategies) > rules.players:
            raise RunError(
                f"{len(self.strategies)} strategies for {rules.players} seats: "
                f"give at most {rules.players}"
            )
        try:
            built = [make(spec) for spec in self.strategies]
        except ValueError as exc:
            raise RunError(str(exc)) from None
        return rules, built

    def digest(self) -> str:
        """SHA-256 of the settings that decide the games (:data:`GAME_KEYS`)."""
        return config_digest(self.as_dict())


def run_chunk(
    config: dict[str, Any],
    run_dir: str | None,
    start: int,
    stop: int,
    strategies: Sequence[Strategy | str] | None = None,
    engine: str | None = None,
    store: str | None = None,
) -> ChunkResult:
    """Play games ``start .. stop - 1`` (worker side) and serialize their three parts.

    With ``run_dir`` (a local worker, same disk) the parts are written there and the
    caller records the chunk in the ledger; with None (shared-nothing Dask) nothing is
    written: the result carries the parts' bytes for the client (:mod:`.parts`), but the
    moves and rounds parts when ``store`` (the run's object-store URL) can be written
    from here: those are put there (:func:`.parts.put_parts`).
    ``strategies`` are as :func:`.parts.ship` sends them (default: made from the specs);
    ``engine`` is the client's :func:`.parts.engine_id` (WorkerError if this worker's
    differs; None: not checked).
    """
    t0 = time.perf_counter()
    check_engine(engine)
    cfg = RunConfig(**config)
    if strategies is None:
        rules, built = cfg.validate()
    else:
        rules, built = cfg.game_rules(), unship(strategies)
    specs = [s.spec for s in built]
    game_ids = np.arange(start, stop, dtype=np.int64)
    with unannounced():  # a worker's compile (a plug-in's own code) is the run's to say
        result = play_chunk(rules.to_array(), built, game_ids, cfg.seed, cfg.seats, cfg.log_moves)
    per = games_per_deal(cfg.seats, rules.players, len(built))
    parts = serialize_parts(result, game_ids, game_ids // per, specs, rules)
    stored: tuple[str, ...] = ()
    problem = None
    if run_dir is not None:
        write_blobs(Path(run_dir), parts)
    elif store is not None:
        parts, stored, problem = put_parts(store, parts)
    sent = None if run_dir is not None else parts
    seconds = time.perf_counter() - t0
    return ChunkResult(
        start, stop, len(result.moves), seconds, parts.files, sent, worker_address(),
        stored, problem,
    )  # fmt: skip


def verified_config(run_dir: Path, manifest: Manifest) -> RunConfig:
    """The configuration a manifest records, checked against its digest.

    RunError if the manifest is of an older format, was edited after the run started
    (its configuration no longer matches the digest, or the summary fields disagree with
    the configuration), or numbers its games by another seating scheme
    (:func:`stale_seating`). Missing or mistyped fields were refused when it was loaded.
    """
    where = run_dir / MANIFEST
    if manifest.format not in RESUMABLE_FORMATS:
        raise RunError(
            f"{where} is not a format-{MANIFEST_FORMAT} manifest (written by another "
            "haggis-sim version?); it cannot be resumed safely: start a new run"
        )
    if config_digest(manifest.config.as_dict()) != manifest.config_digest:
        raise RunError(
            f"{where} was edited: its configuration does not match the digest recorded when "
            "the run started; refusing to resume (start a new run for new settings)"
        )
    config = RunConfig(**manifest.config.field_values())
    try:
        rules = config.game_rules()
    except RunError as exc:
        raise RunError(f"{where}: bad configuration ({exc}); cannot resume") from None
    if (
        manifest.specs != [s.text for s in config.records]
        or manifest.seed != config.seed
        or manifest.games != config.games
        or manifest.rules != rules
    ):
        raise RunError(
            f"{where} was edited: its strategies, seed, games or rules disagree with its "
            "recorded configuration; refusing to resume"
        )
    why = stale_seating(manifest)
    if why:
        raise RunError(f"{where}: {why}; it cannot be resumed: start a new run")
    return config


def stale_seating(manifest: Manifest | dict[str, Any]) -> str | None:
    """Why a run's game ids mean other seatings than this version plays, or None.

    Format 2 rotated seats through every permutation, repeated seatings included; that
    numbers the games as now unless an entry fills more than one seat (rotated seats,
    fewer entries than seats). Format 3 records its scheme in ``seating``. A plain JSON
    object (from :func:`~haggis_sim.logs.manifest.read_manifest`) is checked as a
    manifest first (ManifestError if it is not one).
    """
    if isinstance(manifest, dict):
        manifest = parse_manifest(manifest, MANIFEST)
    if manifest.format == MANIFEST_FORMAT:
        if manifest.seating == SEATING_SCHEME:
            return None
        return (
            f"it records seating {manifest.seating!r}, not {SEATING_SCHEME!r}: its game ids "
            "mean other seatings"
        )
    n = len(manifest.config.strategies)
    entries = base_entries(n, manifest.players) if n else []
    if manifest.config.seats == "rotate" and len(set(entries)) < len(entries):
        return (
            f"it was made when rotated seats replayed repeated seatings (manifest format "
            f"{manifest.format}); its game ids mean other seatings now"
        )
    return None


def make_pool(config: RunConfig, games_to_play: int) -> tuple[Pool, str | None]:
    """The pool that will run the chunks, and a note if fewer workers than asked for."""
    if config.backend == "dask":
        workers, note = local_workers(config.jobs, games_to_play)
        if config.scheduler:
            workers = config.jobs or 0
        pool = DaskPool(workers, config.scheduler)
        return pool, pool.note if config.scheduler else note
    workers, note = local_workers(config.jobs, games_to_play)
    if workers == 1:
        return InlinePool(), note
    return LokyPool(workers), note


def _refuse_out(run_dir: Path) -> None:
    """RunError unless ``run_dir`` is new, empty, or a skeleton left by a killed start
    (an empty ledger, a manifest's temporary, a lock file nobody holds any more)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise RunError(f"--out {run_dir} is a file, not a folder")
    if not run_dir.is_dir():
        return
    skeleton = {ledger.LEDGER, f".{MANIFEST}.tmp", lock.LOCK}
    for path in run_dir.rglob("*"):
        if path.is_dir():
            continue
        empty_ledger = path.name == ledger.LEDGER and path.stat().st_size == 0
        if (
            path.parent == run_dir
            and path.name in skeleton
            and (empty_ledger or path.name != ledger.LEDGER)
        ):
            continue
        hint = (
            f"use --resume {run_dir} to continue it"
            if (run_dir / MANIFEST).exists()
            else "it holds files"
        )
        raise RunError(f"output folder {run_dir} already exists ({hint}); choose another --out")


def create_run(config: RunConfig, run_dir: Path) -> Manifest:
    """Create the run folder with its manifest, tables and empty ledger (all checks done)."""
    rules, strategies = config.validate()
    settings = replace(config, strategies=tuple(s.spec for s in strategies))
    manifest = Manifest(
        format=MANIFEST_FORMAT,
        seating=SEATING_SCHEME,
        command=config.command,
        version=__version__,
        created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        config=settings,
        config_digest=settings.digest(),
        rules=rules,
        strategies=tuple(StrategyEntry(s.spec, s.name, s.values) for s in strategies),
        players=rules.players,
        seed=config.seed,
        games=config.games,
        ledger=ledger.LEDGER,
        schema=logs.SCHEMA_DOC,
        status="running",
        spec_version=SPEC_VERSION,
    )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        for table in logs.TABLES:
            (run_dir / table).mkdir(exist_ok=True)
        ledger.rewrite(run_dir, [])
        write_manifest(run_dir, manifest)  # last: a folder with a manifest is a whole run
    except OSError as exc:
        raise RunError(f"cannot write the run folder {run_dir}: {exc.strerror or exc}") from None
    return manifest


def completed(manifest: Manifest) -> Manifest:
    """The manifest of the run once every game is logged: complete, and since when."""
    return replace(manifest, status="complete", finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))


def reopen_run(run_dir: Path, say: Callable[[str], None]) -> list[ledger.Entry]:
    """Check a run's finished parts against the ledger; return the good entries.

    Damaged, torn and unaccounted-for parts are removed (they are the run's own files,
    re-played next), temporaries of killed writers too, and the ledger is rewritten with
    the good entries only.
    """
    try:
        for table in logs.TABLES:
            (run_dir / table).mkdir(exist_ok=True)
        logs.clean_temporaries(run_dir)
        checked = ledger.verify(run_dir, full=True)
        for entry, why in checked.damaged:
            say(f"damaged: {why}; games {entry.start}..{entry.stop - 1} will be played again")
        if checked.torn_lines:
            say(f"{checked.torn_lines} unreadable ledger line(s) dropped (an interrupted write)")
        for path in checked.strays:
            path.unlink(missing_ok=True)
        ledger.rewrite(run_dir, checked.good)
    except OSError as exc:
        raise RunError(f"cannot update the run folder {run_dir}: {exc.strerror or exc}") from None
    return checked.good


def execute(
    config: RunConfig,
    run_dir: Path,
    resume: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    sync: Sync | None = None,
    on_compile: CompileWatch | None = None,
) -> Manifest:
    """Play every unfinished game of the run; return the final manifest.

    With ``resume`` the configuration is the manifest's (verified against its digest);
    only :data:`RESUME_KEYS` are taken from ``config`` (a chunk size of 0 keeps the
    recorded one). ``on_progress(done, total)`` is
    called as chunks finish (first once the engine is compiled); ``on_note`` receives
    plain-language notes (the engine compiling, workers capped, damaged parts re-played,
    a long estimated run time). ``sync`` (:mod:`.remote`) reopens a resumed run and
    receives each recorded chunk. ``on_compile`` shows the engine's compile, if the run
    compiles it, for as long as it takes (:func:`.warmup.warm_up`'s ``watch``).
    """
    say = on_note or (lambda _m: None)
    if resume:
        config = resumed_config(run_dir, config)
    else:
        try:
            _refuse_out(run_dir)
        except RunError:
            lock.check_free(run_dir)  # a writer at work in it: say so, with its PID
            raise
    config.validate()
    check_backend(config.backend, config.scheduler)
    # the folder must exist to be locked: a new run creates it here (and removes what it
    # created if it fails before the manifest is written, e.g. an unreachable scheduler)
    made = [] if resume else [d for d in (run_dir, *run_dir.parents) if not d.exists()]
    try:
        if not resume:
            run_dir.mkdir(parents=True, exist_ok=True)
        held = lock.RunLock(run_dir)
    except OSError as exc:
        raise RunError(f"cannot write the run folder {run_dir}: {exc.strerror or exc}") from None
    try:
        if not resume:  # again under the lock: another writer may have filled it since
            _refuse_out(run_dir)
        return _execute_locked(config, run_dir, resume, on_progress, say, sync, on_compile)
    finally:
        held.release()
        if made and not (run_dir / MANIFEST).exists():
            for d in made:  # innermost first; a folder another process filled stays
                with contextlib.suppress(OSError):
                    d.rmdir()


def extend(
    config: RunConfig,
    run_dir: Path,
    on_progress: Callable[[int, int], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> Manifest:
    """Play the run in ``run_dir`` on to ``config.games`` games; return the final manifest.

    A finished or interrupted run is extended, never replayed: every game id below the
    recorded count is kept as logged (verified as on resume), and the games from the old
    count on are played in new chunks. Since a game depends only on (run seed, game id) --
    its deal is ``game id // seatings per deal`` (:mod:`.seating`) -- the result is the
    run a fresh ``execute`` of ``config.games`` games would have written, game for game
    and row for row; only part boundaries, the manifest's timestamps and its command may
    differ. An extension that ends inside a deal of rotated seats is still that fresh run
    (the rest of the deal is simply not played yet); callers that want whole deals round
    ``games`` themselves.

    Only ``games`` may grow: every other setting that decides the games (strategies,
    rules, seed, seats, move logging) must equal the recorded one, and fewer games than
    recorded are refused (RunError, nothing changed); :data:`RESUME_KEYS` are taken from
    ``config`` as on resume. A separate function rather than ``execute(resume=True)``
    with a larger count, because ``run --resume`` passes no game count and must never
    grow a run by accident. The manifest, with the new count and its digest and status
    ``running``, is replaced atomically under the run's lock before any new game is
    played; an extension interrupted after that is an ordinary unfinished run of the new
    count (``run --resume``, or ``extend`` again, completes it).
    """
    say = on_note or (lambda _m: None)
    _extended_manifest(config, run_dir)  # refuse before locking: nothing is touched
    check_backend(config.backend, config.scheduler)
    try:
        held = lock.RunLock(run_dir)
    except OSError as exc:
        raise RunError(f"cannot write the run folder {run_dir}: {exc.strerror or exc}") from None
    try:
        manifest = _extended_manifest(config, run_dir)  # again: the latest, under the lock
        try:
            write_manifest(run_dir, manifest)
        except OSError as exc:
            raise RunError(f"cannot write {run_dir / MANIFEST}: {exc.strerror or exc}") from None
        return _execute_locked(resumed_config(run_dir, config), run_dir, True, on_progress, say)
    finally:
        held.release()


def _extended_manifest(config: RunConfig, run_dir: Path) -> Manifest:
    """The manifest of the run in ``run_dir`` grown to ``config.games`` games (unchanged
    if it has that many); RunError if any other game-deciding setting differs, or if
    ``config`` asks for fewer games than the run has."""
    manifest = load_manifest(run_dir)
    stored = verified_config(run_dir, manifest)
    _, strategies = config.validate()
    asked = replace(config, strategies=tuple(s.spec for s in strategies)).as_dict()
    # the recorded specs as today writes them: one recorded at an older spec version names
    # fewer parameters, and the migration table supplies those it played with
    _, recorded = stored.validate()
    have = replace(stored, strategies=tuple(s.spec for s in recorded)).as_dict()
    for key in GAME_KEYS:
        if key != "games" and _canon(asked[key]) != _canon(have[key]):
            raise RunError(
                f"{run_dir} was played with another {key} ({have[key]!r}, not "
                f"{asked[key]!r}); only the number of games of a run can grow: start a new run"
            )
    if config.games < stored.games:
        raise RunError(
            f"{run_dir} has {stored.games:,} games; it cannot be cut to {config.games:,} "
            "(a run only grows)"
        )
    if config.games == stored.games:
        return manifest
    settings = replace(stored, games=config.games, precision=None)  # a count, not a rule
    return replace(
        manifest,
        config=settings,
        config_digest=settings.digest(),
        games=config.games,
        status="running",
        finished=None,
    )


def _canon(value: Any) -> str:
    """A setting as canonical JSON (key order and tuples vs lists do not count)."""
    return json.dumps(value, sort_keys=True, default=list)


def resumed_config(run_dir: Path, config: RunConfig) -> RunConfig:
    """The configuration a resume plays: the manifest's (verified against its digest),
    with :data:`RESUME_KEYS` from ``config`` (a chunk size of 0 keeps the recorded one)."""
    stored = verified_config(run_dir, load_manifest(run_dir))
    changes = {k: getattr(config, k) for k in RESUME_KEYS}
    if not config.chunk_size:  # automatic: keep the recorded size
        changes["chunk_size"] = stored.chunk_size
    return RunConfig(**{**stored.field_values(), **changes})


def _execute_locked(
    config: RunConfig,
    run_dir: Path,
    resume: bool,
    on_progress: Callable[[int, int], None] | None,
    say: Callable[[str], None],
    sync: Sync | None = None,
    on_compile: CompileWatch | None = None,
) -> Manifest:
    """:func:`execute` once the checks passed and the run folder's lock is held."""
    if resume:
        manifest = load_manifest(run_dir)  # read under the lock: the latest status
        good = sync.reopen(run_dir, say) if sync else reopen_run(run_dir, say)
    else:
        good = []
    pending = ledger.pending_ranges(good, config.games)
    done_games = config.games - sum(b - a for a, b in pending)
    sizing = PrecisionStop.start(run_dir, config, good)
    pending = sizing.cut(pending)  # at checkpoints, none past a stop already reached
    if pending:  # compile here, once and said, before the workers would (warmup.py)
        warm_up(config, say, on_compile)
    pool, note = make_pool(config, config.games - done_games)
    if note:
        say(note)
    try:
        if not resume:
            manifest = create_run(config, run_dir)
        if sync:
            sync.begin()
        _play(config, run_dir, pool, pending, done_games, sizing, sync, Listeners(on_progress, say))
    finally:
        pool.close(cancel=False)
    manifest = completed(sizing.settle(manifest))
    try:
        write_manifest(run_dir, manifest)
    except OSError as exc:  # every game is logged: a resume only marks it complete
        raise RunError(
            f"cannot write {run_dir / MANIFEST}: {exc.strerror or exc}; every game is "
            f"logged (--resume {run_dir} marks the run complete)"
        ) from None
    return manifest


@dataclass(frozen=True)
class Listeners:
    """Whom a run tells how it goes: ``on_progress(done, total)`` as chunks are logged
    (None: no one), and ``say(line)`` for its notes."""

    on_progress: Callable[[int, int], None] | None
    say: Callable[[str], None]


def _play(
    config: RunConfig,
    run_dir: Path,
    pool: Pool,
    pending: list[tuple[int, int]],
    done: int,
    sizing: PrecisionStop,
    sync: Sync | None,
    listeners: Listeners,
) -> None:
    """Keep every worker busy with a chunk until all pending games are logged, or until
    ``sizing`` has the run's size (chunks played past it are then dropped, not logged)."""
    planner = ChunkPlanner(pending, config.games, config.chunk_size, config.log_moves)
    cfg = config.as_dict()
    shipped = ship(config.validate()[1])  # built once: a model's weights travel with them
    dest = str(run_dir) if pool.shared_disk else None  # None: the client writes the parts
    engine = None if pool.shared_disk else engine_id()  # another machine: the same engine?
    direct = sync.direct if sync is not None and not pool.shared_disk else None
    if listeners.on_progress:
        listeners.on_progress(done, config.games)
    in_flight: list[Any] = []
    finished_chunks = 0
    estimated = False
    try:
        while True:
            # one chunk per worker in flight: nothing queued that a Ctrl-C would have to
            # cancel inside the pool (queued items race loky's shutdown)
            while len(in_flight) < pool.workers:
                chunk = None if sizing.stopped else planner.next_chunk()
                if chunk is None:
                    break
                in_flight.append(pool.submit(run_chunk, cfg, dest, *chunk, shipped, engine, direct))
            if not in_flight:
                break
            finished, in_flight = pool.wait_any(in_flight, timeout=0.5)
            for note in pool.watch():
                listeners.say(note)
            for task in finished:
                try:
                    result = receive(pool, task, run_dir)
                    if result.store_problem:  # once per worker: it sends its parts here
                        listeners.say(
                            f"worker {result.worker}: {result.store_problem}; "
                            "its parts go through the client"
                        )
                    if sizing.beyond(result.start):  # played past the run's size
                        sizing.discard(result.start, result.stop)
                        continue
                    if sync:
                        sync.check(result)
                    entry = record_chunk(run_dir, result)  # written before the next submit
                    sizing.record(entry)
                    if sync:
                        sync.recorded(entry, result.stored)
                except OSError as exc:  # a full disk, for one (no temporary is left)
                    raise RunError(
                        f"writing the logs in {run_dir} failed: {exc.strerror or exc}; "
                        f"finished chunks are kept (--resume {run_dir})"
                    ) from None
                planner.record(result.games, result.seconds)
                done += result.games
                finished_chunks += 1
                if listeners.on_progress:
                    listeners.on_progress(done, config.games)
                if not estimated and finished_chunks >= 2 * pool.workers + 1 and planner.rate:
                    estimated = True
                    left = config.games - done
                    seconds = left / (planner.rate * pool.workers)
                    if seconds > 3600:
                        listeners.say(
                            f"estimated time: {format_duration(seconds)} for {left:,} more "
                            f"games on {pool.workers} worker(s) "
                            f"({planner.rate * pool.workers:,.1f} games/s). Ctrl-C keeps "
                            f"finished work (continue with --resume {run_dir}); to scale "
                            f"out: haggis-sim run --resume {run_dir} --backend dask "
                            "--scheduler ADDRESS"
                        )
    except WorkersLost as exc:  # while waiting for a chunk, or for its result
        pool.close(cancel=True)
        for note in exc.notes:
            listeners.say(note)
        raise RunError(f"{exc}; finished chunks are kept (--resume {run_dir})") from None
    except BaseException:
        pool.close(cancel=True)
        raise
