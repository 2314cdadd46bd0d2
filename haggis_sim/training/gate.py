"""Head-to-head matches between two compiled strategies on fresh deals: how a new
generation is gated (promoted only when its win rate's 95% interval lies above 50%, or
above one in three as one against two with 3 players).

The games are laid out by :func:`~haggis_sim.training.games.schedule` from the seed
alone (rotated seats, every preset of the player count in turn) and played in compiled
code without logs, split over processes without changing a single game.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from haggis_sim.stats import wilson

from .games import Schedule, param_table, play_games, schedule, spec_row
from .positions import combos
from .tasks import in_order

TAG_GATE = 15  # the seed-sequence tag of a gate's games (stage 2 uses 11-13, checks 14)


@dataclass(frozen=True)
class MatchResult:
    """A match's count: the candidate's wins of its games, and their 95% Wilson interval."""

    candidate: str
    opponent: str
    players: int
    games: int
    wins: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def chance(self) -> float:
        """The win rate of an equal candidate: one seat of ``players``."""
        return 1.0 / self.players

    @property
    def promoted(self) -> bool:
        """The interval lies wholly above chance: the candidate is the stronger."""
        return self.interval[0] > self.chance

    def as_dict(self) -> dict[str, Any]:
        lo, hi = self.interval
        return {"candidate": self.candidate, "opponent": self.opponent,
                "players": self.players, "games": self.games, "wins": self.wins,
                "win_rate": round(self.win_rate, 4), "wilson95": [round(lo, 4), round(hi, 4)],
                "promoted": self.promoted}  # fmt: skip


def _play(sched: Schedule, sids: np.ndarray, table: np.ndarray) -> np.ndarray:
    out = np.empty((len(sched), 4), dtype=np.int64)
    play_games(sched.rules, sids, table, sched.entries, sched.words, out)
    won: npt.NDArray[np.bool_] = out[:, 0] == sched.seat
    return won.astype(np.int64)


def match(
    candidate: str, opponent: str, games: int, players: int, seed: int, jobs: int = 1
) -> MatchResult:
    """``candidate`` in one seat against ``opponent`` in the others, at least ``games``
    games of every preset with ``players`` players in turn, seats rotated over each deal;
    the same games whatever ``jobs``."""
    rows = [spec_row(candidate), spec_row(opponent)]
    sids = np.array([sid for sid, _ in rows], dtype=np.int64)
    table = param_table([r for _, r in rows])
    pairs = [c for c in combos() if c[1] == players]
    sched = schedule(seed, (TAG_GATE, players), games, 1, pairs)
    step = -(-len(sched) // max(1, jobs * 4))
    parts = [sched.part(slice(i, i + step)) for i in range(0, len(sched), step)]
    wins = list(in_order(_play, [(p, sids, table) for p in parts], jobs))
    return MatchResult(candidate, opponent, players, len(sched), int(np.concatenate(wins).sum()))


def promotes(gates: list[MatchResult]) -> bool:
    """A generation's verdict from its gates (one match per player count): promoted when
    it is shown stronger at one player count (the interval wholly above chance) and not
    shown weaker at any (no interval wholly below chance).

    >>> a = MatchResult("new", "old", 2, 1000, 560)
    >>> b = MatchResult("new", "old", 3, 1000, 330)
    >>> promotes([a, b]), promotes([b]), promotes([a, MatchResult("new", "old", 3, 1000, 280)])
    (True, False, False)
    """
    shown_weaker = any(g.interval[1] < g.chance for g in gates)
    return any(g.promoted for g in gates) and not shown_weaker


def trial_path(path: Path) -> Path:
    """The hidden copy of a new model file ``path`` that its gate plays (removed after)."""
    return path.with_name(f".{path.name}.gate-{os.getpid()}.npz")


def removed_on_exit(trials: ExitStack, path: Path) -> Path:
    """``path``, to be removed when ``trials`` closes, however its block ends (a gate's
    copy must not outlive the gate, interrupted or not). Register a copy just before it
    is written, and only one that is: no other file is ever removed."""
    trials.callback(path.unlink, missing_ok=True)
    return path


def gate_generation(
    candidate: Callable[[Path], str],
    trial: Path,
    path: Path,
    champion: str,
    games: int,
    seed: int,
    jobs: int,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> list[MatchResult]:
    """A new model's gate: the search ``candidate(trial)`` makes with the model at
    ``trial`` against ``champion``, ``games`` games with 2 players and as many with 3
    (one against two); the results name ``candidate(path)``, the model's own file.
    ``on_progress`` hears of each match as the stage ``gate, N players``."""
    gates = []
    for players in (2, 3):
        name = f"gate, {players} players"
        if on_progress:
            on_progress(name, 0, 1)
        got = match(candidate(trial), champion, games, players, seed, jobs)
        gates.append(replace(got, candidate=candidate(path)))
        if on_progress:
            on_progress(name, 1, 1)
    return gates
