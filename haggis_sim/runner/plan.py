"""Cutting the games still to play into chunks, sized from measured speed.

A chunk's games depend only on (run seed, game id), so chunk boundaries may follow the
measured speed without changing any game. Automatic sizing aims at chunks of a few
seconds: progress moves within seconds for any strategy, and an interruption loses at
most one chunk per worker. The first chunks hold 4 games (the speed is unknown, and the
first result should come at once); then chunks grow at most fourfold per chunk, within a
memory bound per chunk and, once the speed is known, at least 1/20,000 of the run, so a
run never has more than about 20,000 parts per table.
"""

from __future__ import annotations

import math
from collections import deque

TARGET_SECONDS = 3.0  # aimed-at duration of one chunk
FIRST_CHUNK = 4  # games in a chunk before any speed is known
MAX_CHUNK_WITH_MOVES = 2000  # games a worker holds in memory with move logs (~0.5 GiB)
MAX_CHUNK_NO_MOVES = 20_000
MAX_PARTS = 20_000  # chunks per run at most (each is one file per table), where memory allows


class ChunkPlanner:
    """Hands out game ranges ``[start, stop)`` covering ``pending``, in order."""

    def __init__(
        self,
        pending: list[tuple[int, int]],
        total_games: int,
        fixed_size: int = 0,
        log_moves: bool = True,
        target_seconds: float = TARGET_SECONDS,
    ) -> None:
        self._ranges = deque(pending)
        self.fixed_size = fixed_size
        self.max_size = MAX_CHUNK_WITH_MOVES if log_moves else MAX_CHUNK_NO_MOVES
        self.min_size = min(self.max_size, max(1, math.ceil(total_games / MAX_PARTS)))
        self.target_seconds = target_seconds
        self.rate: float | None = None  # games per second of one worker, smoothed
        self.last_size = 0

    def remaining_games(self) -> int:
        return sum(b - a for a, b in self._ranges)

    def next_size(self) -> int:
        if self.fixed_size:
            return self.fixed_size
        if self.rate is None:  # small while the speed is unknown: progress within seconds
            return min(FIRST_CHUNK, self.max_size)
        size = int(self.rate * self.target_seconds)
        if self.last_size:
            size = min(size, 4 * self.last_size)
        return max(self.min_size, min(self.max_size, max(1, size)))

    def next_chunk(self) -> tuple[int, int] | None:
        """The next range to play, or None when every pending game is handed out."""
        if not self._ranges:
            return None
        start, stop = self._ranges.popleft()
        size = self.next_size()
        end = min(stop, start + size)
        if end < stop:
            self._ranges.appendleft((end, stop))
        self.last_size = max(self.last_size, end - start)
        return start, end

    def record(self, games: int, seconds: float) -> None:
        """Learn from a finished chunk: ``games`` played by one worker in ``seconds``."""
        if games <= 0 or seconds <= 0:
            return
        rate = games / seconds
        self.rate = rate if self.rate is None else 0.5 * self.rate + 0.5 * rate


class RateMeter:
    """Games per second over wall time, smoothed so the ETA does not swing.

    An exponentially weighted average of the throughput between updates, with a time
    constant of ``window`` seconds.
    """

    def __init__(self, window: float = 30.0) -> None:
        self.window = window
        self.rate: float | None = None
        self._last: tuple[float, int] | None = None

    def update(self, now: float, done: int) -> None:
        if self._last is None:
            self._last = (now, done)
            return
        t0, d0 = self._last
        dt = now - t0
        if dt <= 0:
            return
        inst = (done - d0) / dt
        weight = 1.0 - math.exp(-dt / self.window)
        self.rate = inst if self.rate is None else self.rate + weight * (inst - self.rate)
        self._last = (now, done)

    def eta(self, remaining: int) -> float | None:
        """Seconds to play ``remaining`` games at the smoothed rate (None: not known yet)."""
        if not self.rate or self.rate <= 0:
            return None
        return remaining / self.rate


def format_duration(seconds: float) -> str:
    """``3 h 05 min``, ``12 min 30 s`` or ``45 s``."""
    s = int(round(seconds))
    if s >= 86_400:
        return f"{s // 86_400} d {s % 86_400 // 3600} h"
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"
