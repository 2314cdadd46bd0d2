"""One game of a person against bots, played through the runner and logged as a run.

The game is a run of one game (game id 0, seats fixed in the order given, the human seat
named ``human`` in the manifest), played by the runner's step-by-step driver
(:func:`haggis_sim.runner.chunk.play_chunk`), so its log has exactly the Parquet schema
of ``haggis-sim run`` and ``report``, ``replay`` and ``query`` read it. Nothing is
written while the game is played: the run folder (manifest, the three parts, the ledger)
is created once the game is over, so a game stopped early leaves no files. The folder is
checked before the first card is dealt, with the run folder rules of ``haggis-sim run``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console

import haggis_sim as hs
from strategies import Strategy
from strategies.human import HumanStrategy, seated

from ..logs import ledger
from ..logs.manifest import Manifest, write_manifest
from ..runner.chunk import ChunkLogs, play_chunk
from ..runner.parts import write_parts
from ..runner.run import RunConfig, RunError, _refuse_out, completed, create_run
from .play_session import NarratedBot, TerminalPlayer

GAME_ID = 0
DEFAULT_PARENT = Path("haggis-games")


def default_out(seed: int, parent: Path = DEFAULT_PARENT) -> Path:
    """``haggis-games/seed-N``, or ``seed-N-2``, ``-3``, ...: the first that does not exist."""
    base = parent / f"seed-{seed}"
    path, k = base, 1
    while path.exists():
        k += 1
        path = parent / f"{base.name}-{k}"
    return path


@dataclass
class Table:
    """Who sits where: the human's seat and every seat's strategy spec."""

    rules: hs.Rules
    seat: int
    bots: list[Strategy]  # in seat order, the human's seat left out
    seed: int

    @property
    def specs(self) -> list[str]:
        out = [b.spec for b in self.bots]
        out.insert(self.seat, HumanStrategy.name)
        return out

    def config(self) -> RunConfig:
        """The run configuration of this game: one game, fixed seats, one worker."""
        return RunConfig(
            strategies=self.specs,
            games=1,
            rules=self.rules.as_dict(),
            seed=self.seed,
            seats="fixed",
            chunk_size=1,
            log_moves=True,
            jobs=1,
        )


def check_out(run_dir: Path) -> None:
    """RunError unless ``run_dir`` may become the game's run folder (as ``run --out``)."""
    _refuse_out(run_dir)


def play_game(
    table: Table, console: Console, read: Callable[[str], str] = input
) -> tuple[ChunkLogs, TerminalPlayer]:
    """Play the game at the terminal; its raw logs and the player (who narrated it).

    Raises :class:`~.play_session.QuitGame`, KeyboardInterrupt or EOFError when the person
    stops; nothing has been written then.
    """
    names = [b.name for b in table.bots]
    names.insert(table.seat, "you")
    player = TerminalPlayer(table.rules, table.seat, names, table.seed, GAME_ID, console, read=read)
    with seated(player):
        human = HumanStrategy()
    strategies: list[Strategy] = [
        NarratedBot(bot, s + (s >= table.seat), table.seed, GAME_ID, player)
        for s, bot in enumerate(table.bots)
    ]
    strategies.insert(table.seat, human)
    game_ids = np.array([GAME_ID], dtype=np.int64)
    result = play_chunk(table.rules.to_array(), strategies, game_ids, table.seed, "fixed", True)
    return result, player


def write_game(table: Table, result: ChunkLogs, run_dir: Path) -> Manifest:
    """Create the run folder of a finished game: manifest, parts, ledger; the manifest.

    Written in the order ``haggis-sim run`` writes (manifest first, each part atomically,
    the ledger line once the parts are in place, the manifest marked complete last). If
    anything fails or is interrupted, the folder is removed again: a folder is either a
    whole logged game or absent.
    """
    check_out(run_dir)
    existed = run_dir.exists()
    config = table.config()
    try:
        with seated(_NoOne()):
            manifest = create_run(config, run_dir)
        specs = manifest.specs
        ids = np.array([GAME_ID], dtype=np.int64)
        files = write_parts(run_dir, result, ids, ids, specs, table.rules)
        ledger.append(run_dir, ledger.Entry(GAME_ID, GAME_ID + 1, files))
        manifest = completed(manifest)
        write_manifest(run_dir, manifest)
    except BaseException as exc:
        _remove(run_dir, keep_folder=existed)
        if isinstance(exc, OSError):
            raise RunError(f"cannot write the game to {run_dir}: {exc.strerror or exc}") from None
        raise
    return manifest


class _NoOne:
    """The controller of the human seat while the manifest is written: nobody is asked."""

    def decide(self, observation: hs.Observation, legal: list[hs.Action]) -> hs.Action:
        raise RuntimeError("no decision is taken while the game is logged")


def _remove(run_dir: Path, keep_folder: bool) -> None:
    """Delete what :func:`write_game` created in ``run_dir`` (the folder too if it made it)."""
    if not run_dir.is_dir():
        return
    for path in sorted(run_dir.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink(missing_ok=True)
    if not keep_folder:
        run_dir.rmdir()
