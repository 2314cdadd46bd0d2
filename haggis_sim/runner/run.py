"""Running a tournament: plan chunks, play them in parallel, write logs, resume.

Every chunk's games depend only on (run seed, game id), so ``--jobs``, the backend and
interruptions change nothing in the logs. The manifest records the configuration; which
chunks are finished is read from the files themselves (a chunk is done when its
``games`` part exists), so a run killed at any moment resumes correctly.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from strategies import Strategy, make

from .. import __version__
from ..rules import Rules
from . import logs
from .chunk import play_chunk
from .seating import SEAT_MODES, games_per_deal

BACKENDS = ("loky", "dask")
MANIFEST = "manifest.json"


class RunError(ValueError):
    """A run that cannot start: bad configuration, or an output folder in the way."""


@dataclass
class RunConfig:
    """Everything that determines a run's games (and how it is executed)."""

    strategies: list[str]
    games: int
    rules: dict[str, Any]
    seed: int = 0
    seats: str = "rotate"
    chunk_size: int = 2000
    log_moves: bool = True
    jobs: int = 0  # 0: all cores
    backend: str = "loky"
    scheduler: str | None = None
    command: str = field(default_factory=lambda: shlex.join(["haggis-sim", *sys.argv[1:]]))

    def validate(self) -> tuple[Rules, list[Strategy]]:
        """The typed rules and strategies; RunError with a readable message if bad."""
        try:
            rules = Rules(**{**self.rules, "bet_values": tuple(self.rules["bet_values"])})
        except (TypeError, ValueError) as exc:
            raise RunError(str(exc)) from None
        if not isinstance(self.seed, int) or not -(2**63) <= self.seed < 2**63:
            raise RunError(f"--seed must be a 64-bit integer, got {self.seed!r}")
        if not isinstance(self.games, int) or self.games <= 0:
            raise RunError(f"--games must be a positive whole number, got {self.games!r}")
        if self.games >= 2**32:
            raise RunError("--games must be below 4,294,967,296")
        if self.seats not in SEAT_MODES:
            raise RunError(f"--seats must be rotate or fixed, got {self.seats!r}")
        if self.backend not in BACKENDS:
            raise RunError(f"--backend must be loky or dask, got {self.backend!r}")
        if self.chunk_size <= 0:
            raise RunError("--chunk-size must be positive")
        if not self.strategies:
            raise RunError("--strategies needs at least one strategy")
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

    def chunks(self) -> list[tuple[int, int, int]]:
        """(chunk id, first game id, end game id) of every chunk."""
        return [
            (i, start, min(start + self.chunk_size, self.games))
            for i, start in enumerate(range(0, self.games, self.chunk_size))
        ]


@dataclass
class ChunkResult:
    chunk_id: int
    games: int
    moves: int
    seconds: float


def run_chunk(
    config: dict[str, Any], run_dir: str, chunk_id: int, start: int, stop: int
) -> ChunkResult:
    """Play one chunk and write its three parts (worker side)."""
    t0 = time.perf_counter()
    cfg = RunConfig(**config)
    rules, strategies = cfg.validate()
    specs = [s.spec for s in strategies]
    game_ids = np.arange(start, stop, dtype=np.int64)
    result = play_chunk(rules.to_array(), strategies, game_ids, cfg.seed, cfg.seats, cfg.log_moves)
    out = Path(run_dir)
    name = logs.part_name(chunk_id)
    per = games_per_deal(cfg.seats, rules.players)
    logs.write_atomic(logs.moves_frame(result.moves), out / "moves" / name)
    logs.write_atomic(logs.rounds_frame(result.rounds), out / "rounds" / name)
    logs.write_atomic(
        logs.games_frame(
            result.games,
            result.entries,
            result.deal_seeds,
            game_ids // per,
            specs,
            rules.players,
            rules.label,
        ),
        out / "games" / name,
    )
    return ChunkResult(chunk_id, stop - start, len(result.moves), time.perf_counter() - t0)


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    tmp = run_dir / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2))
    os.replace(tmp, run_dir / MANIFEST)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = run_dir / MANIFEST
    if not path.exists():
        raise RunError(f"{run_dir} is not a haggis-sim run (no {MANIFEST})")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def prepare(config: RunConfig, run_dir: Path, resume: bool) -> dict[str, Any]:
    """Create (or reopen, when resuming) the run folder and its manifest."""
    rules, strategies = config.validate()
    if resume:
        manifest = read_manifest(run_dir)
        for table in logs.TABLES:
            (run_dir / table).mkdir(exist_ok=True)
        logs.clean_temporaries(run_dir)
        return manifest
    if run_dir.exists() and not run_dir.is_dir():
        raise RunError(f"--out {run_dir} is a file, not a folder")
    if run_dir.exists() and any(p.is_file() for p in run_dir.rglob("*")):
        raise RunError(
            f"output folder {run_dir} already exists; use --resume {run_dir} to continue it "
            "or choose another --out"
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    cfg = asdict(config)
    cfg["strategies"] = [s.spec for s in strategies]
    manifest = {
        "command": config.command,
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "config": cfg,
        "rules": rules.as_dict(),
        "strategies": [{"spec": s.spec, "name": s.name, "params": s.values} for s in strategies],
        "players": rules.players,
        "seed": config.seed,
        "games": config.games,
        "chunks": [
            {"id": i, "start": a, "stop": b, "status": "pending"} for i, a, b in config.chunks()
        ],
        "schema": logs.SCHEMA_DOC,
        "status": "running",
    }
    write_manifest(run_dir, manifest)  # first: a folder with files always has a manifest
    for table in logs.TABLES:
        (run_dir / table).mkdir(exist_ok=True)
    return manifest


def _executor(
    config: RunConfig, pending: list[tuple[int, int, int]], run_dir: Path
) -> Iterator[ChunkResult]:
    from joblib import Parallel, delayed, parallel_config

    cfg = asdict(config)
    jobs = config.jobs or os.cpu_count() or 1
    tasks = (delayed(run_chunk)(cfg, str(run_dir), i, a, b) for i, a, b in pending)
    if config.backend == "dask":
        try:
            from distributed import Client
        except ImportError:
            raise RunError(
                "--backend dask needs dask.distributed: pip install 'haggis-sim[cluster]'"
            ) from None
        client = (
            Client(config.scheduler)
            if config.scheduler
            else Client(n_workers=jobs, threads_per_worker=1, dashboard_address=None)
        )
        try:
            with parallel_config(backend="dask"):
                yield from Parallel(return_as="generator_unordered")(tasks)
        finally:
            client.close()
        return
    if jobs == 1:
        for i, a, b in pending:
            yield run_chunk(cfg, str(run_dir), i, a, b)
        return
    yield from Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")(tasks)


def execute(
    config: RunConfig,
    run_dir: Path,
    resume: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Play every unfinished chunk of the run; return the final manifest.

    ``on_progress(games_done, games_total)`` is called as chunks finish.
    """
    manifest = prepare(config, run_dir, resume)
    if resume:
        config = RunConfig(
            **{
                **manifest["config"],
                "jobs": config.jobs,
                "backend": config.backend,
                "scheduler": config.scheduler,
            }
        )
    chunks = config.chunks()
    done = {i for i, _, _ in chunks if logs.chunk_done(run_dir, i)}
    pending = [c for c in chunks if c[0] not in done]
    games_done = sum(b - a for i, a, b in chunks if i in done)
    if on_progress:
        on_progress(games_done, config.games)
    for c in manifest["chunks"]:
        c["status"] = "done" if c["id"] in done else "pending"
    for result in _executor(config, pending, run_dir):
        games_done += result.games
        manifest["chunks"][result.chunk_id]["status"] = "done"
        write_manifest(run_dir, manifest)
        if on_progress:
            on_progress(games_done, config.games)
    manifest["status"] = "complete"
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    write_manifest(run_dir, manifest)
    return manifest
