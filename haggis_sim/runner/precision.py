"""Runs sized by precision (``run --precision``): play until the headline win rate is
known to within ``±precision``, or until ``--games``.

The headline pairing is the first strategy entry's win rate against the others -- the
first row of the summary -- with its 95% Wilson interval (:func:`~haggis_sim.stats.wilson`);
its half-width is half the interval's width. With one entry in every seat there is no
pairing, and ``--precision`` is refused.

The stop must not depend on how the games were executed (``--jobs``, the backend, chunk
sizes, interruptions), so the rule is looked at only at fixed *checkpoints* of game ids:
every :func:`checkpoint_step` games (a twentieth of the games a 50% pairing needs for
the precision, in whole deals), and at ``--games``. A checkpoint is judged when every
game below it is logged, over exactly those games; the first checkpoint whose interval
is narrow enough is the run's size ``N``. Chunks are cut at checkpoints (none straddles
one), so every chunk lies wholly below or wholly above ``N``: once ``N`` is known no
chunk is handed out, chunks beyond it that were in flight or already logged are dropped
(ledger line and files), and the manifest records ``N`` games -- the run is the fixed
``--games N`` run, part boundaries aside. A resume recomputes the same checkpoints from
the logged games and reaches the same ``N``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl

from ..logs import ledger
from ..logs.manifest import Manifest, RunSettings, config_digest
from ..logs.schema import TABLES
from ..stats import games_for_half_width, wilson
from .seating import games_per_deal
from .summary import EntrySummary

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
CHECKPOINTS = 20  # checkpoints on the way to the games a 50% win rate needs


#: the finest half-width a run may be sized to: ±0.01 points of a win rate already needs
#: about 10 billion games, and a finer one overflows the games it would ask for
MIN_PRECISION = 1e-4


def precision_problem(precision: object, entries: int) -> str | None:
    """Why ``precision`` cannot size a run of ``entries`` strategy entries, or None."""
    if precision is None:
        return None
    if (
        not isinstance(precision, float | int)
        or isinstance(precision, bool)
        or not MIN_PRECISION <= precision < 0.5
    ):
        return (
            f"--precision must be a half-width from {MIN_PRECISION:g} to below 0.5 (0.01: a "
            f"±1-point interval of the win rate), got {precision!r}"
        )
    if entries < 2:
        return (
            "--precision needs a pairing: one strategy fills every seat, so there is no "
            "win rate to narrow; give two strategies or more"
        )
    return None


def half_width(wins: int, games: int) -> float:
    """Half the width of the 95% Wilson interval of ``wins / games``."""
    low, high = wilson(wins, games)
    return (high - low) / 2


def checkpoint_step(precision: float, per_deal: int) -> int:
    """Games between two checkpoints: 1/:data:`CHECKPOINTS` of the games a 50% win rate
    needs for ``precision`` (``(1.96 · 0.5 / precision)²``), rounded up to whole deals of
    ``per_deal`` games. ``0.01`` gives 482 games with 2 players (a coin-flip pairing stops
    near the 20th checkpoint, a lopsided one sooner); the overshoot past the games the rule
    needed is at most one step."""
    worst = (Z95 * 0.5 / precision) ** 2
    games = max(1, math.ceil(worst / CHECKPOINTS))
    return math.ceil(games / per_deal) * per_deal


class PrecisionStop:
    """The stopping rule of one run while it plays (inert when ``precision`` is None).

    It learns each logged chunk's games (:meth:`record`, from the chunk's ``games`` part),
    judges checkpoints in order as the logged prefix reaches them, and once one is narrow
    enough holds the run's size in :attr:`stop`.
    """

    def __init__(self, run_dir: Path, precision: float | None, games: int, per_deal: int) -> None:
        self.run_dir = run_dir
        self.precision = precision
        self.games = games  # --games: the last checkpoint
        self.step = checkpoint_step(precision, per_deal) if precision is not None else games
        self.stop: int | None = None
        self._counts: dict[int, list[int]] = {}  # checkpoint index -> [games, wins] below it
        self._next = 0  # index of the next checkpoint to judge
        self._wins = self._played = 0  # over the judged prefix

    @classmethod
    def start(cls, run_dir: Path, config: RunSettings, logged: list[ledger.Entry]) -> PrecisionStop:
        """The rule of the run ``config`` in ``run_dir``, which has logged ``logged`` (a
        resume judges the same checkpoints again from the logged games: the same ``N``)."""
        players = int(config.rules["players"])
        per_deal = games_per_deal(config.seats, players, len(config.strategies))
        rule = cls(run_dir, config.precision, config.games, per_deal)
        for entry in sorted(logged, key=lambda e: e.start):
            rule.record(entry)
        return rule

    @property
    def stopped(self) -> bool:
        """Whether the run's size is known (no more chunks are handed out)."""
        return self.stop is not None

    def cut(self, pending: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``pending`` split at every checkpoint (so that no chunk straddles one), without
        what lies beyond the stop once it is known."""
        if self.precision is None:
            return pending
        end = self.games if self.stop is None else self.stop
        out = []
        for a, b in pending:
            b = min(b, end)
            while a < b:
                edge = min(b, (a // self.step + 1) * self.step)
                out.append((a, edge))
                a = edge
        return out

    def beyond(self, start: int) -> bool:
        """Whether a chunk starting at game ``start`` lies past the run's size."""
        return self.stop is not None and start >= self.stop

    def discard(self, start: int, stop: int) -> None:
        """Remove the parts of a chunk played past the run's size (never recorded)."""
        for table in TABLES:
            (self.run_dir / table / ledger.part_name(start, stop)).unlink(missing_ok=True)

    def record(self, entry: ledger.Entry) -> None:
        """Count a logged chunk's games and wins of entry 0 per checkpoint, then judge every
        checkpoint whose games are now all logged."""
        if self.precision is None or self.stop is not None:
            return
        path = entry.path(self.run_dir, "games")
        frame = pl.read_parquet(path, columns=["game_id", "winner_entry"], glob=False)
        ids = frame["game_id"].to_numpy().astype(np.int64)
        won = frame["winner_entry"].to_numpy() == 0
        index = ids // self.step
        for k in np.unique(index):
            here = index == k
            counts = self._counts.setdefault(int(k), [0, 0])
            counts[0] += int(here.sum())
            counts[1] += int(won[here].sum())
        self._judge()

    def _judge(self) -> None:
        """Judge checkpoints in order while every game below the next one is logged."""
        assert self.precision is not None
        while self.stop is None and self._next * self.step < self.games:
            low = self._next * self.step
            high = min(self.games, low + self.step)
            played, wins = self._counts.get(self._next, (0, 0))
            if played < high - low:
                return
            self._played += played
            self._wins += wins
            self._next += 1
            if half_width(self._wins, self._played) <= self.precision:
                self.stop = high

    def settle(self, manifest: Manifest) -> Manifest:
        """The manifest of the run cut to its size ``N`` (unchanged unless the rule stopped
        it before ``--games``): ledger lines beyond ``N`` dropped first, then their files,
        and the manifest's games, configuration and digest set to ``N``."""
        if self.stop is None or self.stop >= manifest.games:
            return manifest
        entries, _ = ledger.read_entries(self.run_dir)
        ledger.rewrite(self.run_dir, [e for e in entries if e.stop <= self.stop])
        for e in entries:
            if e.stop > self.stop:
                self.discard(e.start, e.stop)
        settings = replace(manifest.config, games=self.stop)
        digest = config_digest(settings.as_dict())
        return replace(manifest, config=settings, config_digest=digest, games=self.stop)


def stop_line(rows: list[EntrySummary], precision: float, per_deal: int) -> str:
    """Which of ``--precision`` and ``--games`` stopped a finished run, from its summary
    rows: the headline win rate with its half-width and, when ``--games`` stopped it, about
    how many more games (in whole deals) would reach the precision
    (:func:`~haggis_sim.stats.games_for_half_width`)."""
    head = rows[0]
    half = half_width(head.wins, head.games)
    name = f"#{head.entry} {head.spec.split(':')[0]}"  # the table's row, its short name
    where = f"{name}'s win rate {head.win_rate:.1%} ±{100 * half:.2f} at {head.games:,} games"
    if half <= precision:
        return f"stopped by --precision: {where}"
    more = games_for_half_width(head.games, half, precision, per_deal) - head.games
    return f"stopped by --games: {where}; about {more:,} more games for ±{100 * precision:g}"
