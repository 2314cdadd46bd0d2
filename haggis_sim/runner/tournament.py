"""Play a tournament from Python and get its logs as polars frames.

The one implementation of a run is :func:`~.run.execute` with a :class:`~.run.RunConfig`,
which is what ``haggis-sim run`` plays. :func:`tournament` only turns keyword arguments
into that configuration, checks it with the same :meth:`~.run.RunConfig.validate`, plays
it, and hands back a :class:`TournamentResult`: the run folder, its typed manifest, the
summary ``run`` prints (win rate with a 95% interval per strategy entry) and the three
log tables, read from the run's Parquet parts by the log readers when first used.

``from haggis_sim.runner.tournament import tournament``: the package top holds the typed
API only (below the runner), so ``import haggis_sim`` stays light.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import InputError
from ..logs import ledger
from ..logs.manifest import Manifest, python_call
from ..logs.schema import TABLES
from ..logs.store import location
from ..outputs import check_outside
from ..rules import Rules
from .run import RunConfig, RunError, execute
from .summary import has_pairing, summarize

#: what ``haggis-sim run`` plays when ``--players`` is not given
DEFAULT_PLAYERS = 2
#: the name the manifest's ``command`` gives the call
CALLED_AS = "haggis_sim.runner.tournament.tournament"
#: arguments the recorded call always shows (the others only when not at their default)
ALWAYS_SHOWN = ("strategies", "games")
#: arguments that do not change what is played and are not recorded
NOT_RECORDED = ("progress",)


@dataclass(frozen=True, eq=False)
class TournamentResult:
    """A played tournament: its folder, manifest, summary, and log tables as polars frames.

    ``games``, ``rounds`` and ``moves`` are :class:`polars.DataFrame` read from the run's
    Parquet parts on first use and then kept; :meth:`scan` gives a lazy frame instead, for
    runs too large to hold in memory. ``summary`` has one row per strategy entry (entry,
    strategy, games, wins, win_rate, low, high, mean_score; ``low``/``high`` the 95%
    Wilson interval of the win rate) -- the numbers ``haggis-sim run`` prints; when one
    entry fills every seat there is no pairing and the win columns are null. ``notes``
    are the ``note:`` lines ``run`` would print (e.g. fewer workers than asked for);
    ``temporary`` says whether the folder is the result's own (``out=None``).

    A result of ``out=None`` owns a temporary folder: :meth:`close` (or leaving a
    ``with`` block, or the result being garbage-collected, or the interpreter exiting)
    deletes it. Frames read before that stay usable; reading a table afterwards raises
    :class:`~haggis_sim.runner.run.RunError`. With ``out=PATH`` the folder is an ordinary
    run folder and is never deleted; :meth:`close` does nothing to it.
    """

    path: Path
    manifest: Manifest
    summary: pl.DataFrame
    notes: tuple[str, ...] = ()
    temporary: bool = False
    _cleanup: weakref.finalize[..., TournamentResult] | None = field(
        default=None, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.temporary:
            remove = weakref.finalize(self, shutil.rmtree, str(self.path), ignore_errors=True)
            object.__setattr__(self, "_cleanup", remove)

    @property
    def closed(self) -> bool:
        """Whether the temporary folder of this result has been deleted."""
        return self._cleanup is not None and not self._cleanup.alive

    def close(self) -> None:
        """Delete the temporary folder (``out=None``); nothing for ``out=PATH``. Idempotent."""
        if self._cleanup is not None:
            self._cleanup()

    def __enter__(self) -> TournamentResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def scan(self, table: str) -> pl.LazyFrame:
        """A lazy scan of ``table`` (games, rounds or moves) over the run's finished parts.

        RunError for an unknown table, for ``moves`` of a run played with
        ``moves=False``, and once the temporary folder has been deleted (:meth:`close`).
        """
        if table not in TABLES:
            raise RunError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
        if self.closed:
            raise RunError(
                f"this tournament's temporary folder {self.path} was deleted (the result was "
                "closed): read its frames before closing, or pass out=PATH to keep the run"
            )
        if table == "moves" and not self.manifest.config.log_moves:
            raise RunError("this tournament was played with moves=False: it has no moves table")
        return ledger.read_table(self.path, table)

    @cached_property
    def games(self) -> pl.DataFrame:
        """One row per game (the ``games`` table of the log schema), in game order."""
        return self.scan("games").collect()

    @cached_property
    def rounds(self) -> pl.DataFrame:
        """One row per round (the ``rounds`` table), in game order."""
        return self.scan("rounds").collect()

    @cached_property
    def moves(self) -> pl.DataFrame:
        """One row per action (the ``moves`` table), in game order."""
        return self.scan("moves").collect()


def tournament(
    strategies: Sequence[str],
    games: int = 1000,
    *,
    rules: Rules | str = "revised",
    players: int | None = None,
    seed: int = 0,
    jobs: int = 0,
    out: str | os.PathLike[str] | None = None,
    moves: bool = True,
    seats: str = "rotate",
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_size: int = 0,
    precision: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Play ``games`` complete games between ``strategies`` and return the logs and summary.

    The Python form of ``haggis-sim run``, with the same options and the same checks.
    ``strategies`` lists one spec per seat (``"greedy"``, ``"random:bet=0.2"``); fewer
    than the seats repeat. ``rules`` is a preset name played by ``players`` players (2 when
    not given, as ``run``), or a :class:`~haggis_sim.rules.Rules` (``Rules.preset(...,
    flag=value)`` for overrides), whose player count ``players`` may only repeat.
    ``seed`` decides every deal and every strategy's random choices: the same arguments
    give the same games whatever ``jobs`` (0: all cores), ``backend`` or ``chunk_size``.
    ``moves=False`` skips the moves table. ``precision`` (as ``run --precision``) stops
    early, at the first checkpoint where the first strategy's win rate is known to
    ``±precision``; ``games`` is then the most to play and ``result.manifest.games`` says
    how many were. ``progress(done, total)`` is called as chunks
    finish. ``out=None`` plays into a temporary folder that the result owns (see
    :class:`TournamentResult`); ``out=PATH`` writes a normal run folder there, which must
    be new or empty (an interrupted one is continued with ``haggis-sim run --resume``).

    Bad arguments raise :class:`~haggis_sim.errors.InputError` (a
    :class:`~haggis_sim.runner.run.RunError`, or the rules' own error) before anything is
    written. The manifest's ``command`` records the call, e.g.
    ``haggis_sim.runner.tournament.tournament(strategies=['greedy', 'random'], ...)``.

    >>> with tournament(["greedy", "random"], games=20, seed=7, jobs=1) as result:
    ...     print(result.games.height, result.summary["strategy"].to_list())
    ...     print(result.manifest.command.removeprefix("haggis_sim.runner.tournament."))
    20 ['greedy', 'random:bet=0.1']
    tournament(strategies=['greedy', 'random'], games=20, seed=7, jobs=1)
    >>> result.path.exists()
    False
    """
    arguments = {k: v for k, v in locals().items() if k in _PARAMETERS}
    if progress is not None and not callable(progress):
        raise RunError(f"progress must be a function (done, total) or None, got {progress!r}")
    the_rules = _rules(rules, players)
    config = RunConfig(
        strategies=_specs(strategies), games=games, rules=the_rules.as_dict(), seed=seed,
        seats=seats, chunk_size=chunk_size, log_moves=moves, jobs=jobs, backend=backend,
        scheduler=scheduler, precision=precision, command=_command(arguments),
    )  # fmt: skip
    config.validate()
    if out is not None and not isinstance(out, str | os.PathLike):
        raise RunError(f"out must be a folder path or None, got {out!r}")
    if out is not None:
        if isinstance(location(os.fspath(out)), str):
            raise RunError(
                f"out={str(out)!r} is an object-store URL: tournament plays into a local "
                "folder; give a local path, or use haggis-sim run --out for an object store"
            )
        check_outside(Path(out), "out", RunError)
    run_dir = Path(tempfile.mkdtemp(prefix="haggis-tournament-")) if out is None else Path(out)
    notes: list[str] = []
    try:
        manifest = execute(config, run_dir, on_progress=progress, on_note=notes.append)
    except BaseException:
        if out is None:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return TournamentResult(
        path=run_dir,
        manifest=manifest,
        summary=_summary_frame(run_dir, manifest),
        notes=tuple(notes),
        temporary=out is None,
    )


_PARAMETERS = inspect.signature(tournament).parameters


def _specs(strategies: Sequence[str]) -> list[str]:
    """The strategy specs as a list; RunError unless a list (or tuple) of strings."""
    if isinstance(strategies, str) or not isinstance(strategies, Sequence):
        raise RunError(
            f"strategies takes a list of specs such as ['greedy', 'random'], got {strategies!r}"
        )
    bad = [s for s in strategies if not isinstance(s, str)]
    if bad:
        raise RunError(f"strategies must be spec strings such as 'greedy', got {bad[0]!r}")
    return list(strategies)


def _rules(rules: Rules | str, players: int | None) -> Rules:
    """The rules to play: a preset for ``players`` (default 2), or the Rules given, whose
    player count ``players`` may repeat but not contradict."""
    if isinstance(rules, Rules):
        if players is not None and players != rules.players:
            raise RunError(
                f"players={players!r} contradicts the rules, which are for {rules.players} "
                "players: give the count in one place"
            )
        return rules
    if not isinstance(rules, str):
        raise RunError(f"rules takes a preset name or a haggis_sim.Rules, got {rules!r}")
    return Rules.preset(rules, players=DEFAULT_PLAYERS if players is None else players)


def _command(arguments: dict[str, Any]) -> str:
    """The call as the manifest records it: the required arguments, then every other
    argument not left at its default, each written as Python source."""
    shown = [
        (name, _source(value))
        for name, value in arguments.items()
        if name not in NOT_RECORDED
        and (name in ALWAYS_SHOWN or not _is_default(value, _PARAMETERS[name].default))
    ]
    return python_call(CALLED_AS, shown)


def _is_default(value: Any, default: Any) -> bool:
    return type(value) is type(default) and value == default


def _source(value: Any) -> str:
    """``value`` as Python source: rules as the ``Rules.preset`` call that makes them, a
    path as its string, a sequence as a list, anything else as its ``repr``."""
    if isinstance(value, Rules):
        return _rules_source(value)
    if isinstance(value, os.PathLike):
        return repr(os.fspath(value))
    if isinstance(value, Sequence) and not isinstance(value, str):
        return repr(list(value))
    return repr(value)


def _rules_source(rules: Rules) -> str:
    """``Rules.preset('classic', players=3, bomb_capture='tournament')`` for ``rules``
    (the flags that differ from the preset); the full ``repr`` if no preset makes them."""
    try:
        base = Rules.preset(rules.preset_name, players=rules.players)
    except InputError:  # built by hand for a player count its preset does not allow
        return repr(rules)
    flags = [
        f", {name}={getattr(rules, name)!r}"
        for name in Rules.flag_names()
        if getattr(rules, name) != getattr(base, name)
    ]
    return f"Rules.preset({rules.preset_name!r}, players={rules.players}{''.join(flags)})"


def _summary_frame(run_dir: Path, manifest: Manifest) -> pl.DataFrame:
    """The numbers ``haggis-sim run`` prints, one row per strategy entry."""
    rows = summarize(run_dir, manifest.specs, manifest.players)
    paired = has_pairing(rows)
    frame = pl.DataFrame(
        {
            "entry": [r.entry for r in rows],
            "strategy": [r.spec for r in rows],
            "games": [r.games for r in rows],
            "wins": [r.wins if paired else None for r in rows],
            "win_rate": [r.win_rate if paired else None for r in rows],
            "low": [r.low if paired else None for r in rows],
            "high": [r.high if paired else None for r in rows],
            "mean_score": [r.mean_score for r in rows],
        },
        schema={
            "entry": pl.Int64,
            "strategy": pl.String,
            "games": pl.Int64,
            "wins": pl.Int64,
            "win_rate": pl.Float64,
            "low": pl.Float64,
            "high": pl.Float64,
            "mean_score": pl.Float64,
        },
    )
    return frame
