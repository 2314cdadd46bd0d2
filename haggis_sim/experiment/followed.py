"""Advice tested in play: an advised player head to head against the same player without it.

A study's guidance line is only advice if following it wins. :func:`followed` turns one
advice record (:class:`strategies.advice.AdviceRecord`, or its structured form from a
study) into the ``advised`` strategy around each base player and plays it against that
base: entry 0 is ``advised:base=X,advice=...``, every other seat ``X``, seats rotated
over every deal (so each deal is played from every seat, and seat and deal luck cancel),
the same deals in every population. Per population it returns the advised player's win
rate and its edge over the fair share (``1 / players``) in points of games won, with a
95% interval clustered by deal (:func:`haggis_sim.analytics.compare.estimate`): the
paired comparison, since both players meet on the same deals.

Games are played in this process through the runner's chunk player (the advised wrapper
is plain Python, so every game takes the step-by-step driver): a few hundred games per
population take seconds to a minute; the lead's experiments call it with thousands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

import haggis_sim as hs
from strategies import make
from strategies.advice import AdviceRecord, advice_text

from ..analytics.compare import estimate
from ..engine import record as R
from ..errors import InputError
from ..runner.chunk import play_chunk
from ..runner.seating import games_per_deal
from .separation import sign

DEFAULT_BASES = ("heuristic", "learned")
CHUNK = 200  # games per call of the chunk player


@dataclass(frozen=True)
class Followed:
    """One population's result: the advised player against its base, on ``games`` games."""

    base: str  # the base's spec
    advised: str  # the advised player's spec
    games: int
    deals: int
    win_rate: float
    low: float
    high: float
    fair: float  # the even share, 1 / players

    @property
    def points(self) -> tuple[float, float, float]:
        """The edge over the fair share, in points of games won: (x, low, high)."""
        return tuple(100 * (v - self.fair) for v in (self.win_rate, self.low, self.high))  # type: ignore[return-value]

    @property
    def sign(self) -> int:
        """+1 / -1 when the interval of the edge excludes 0 (following wins / loses), else 0."""
        x, low, high = self.points
        return sign({"diff": x, "low": low, "high": high})

    def text(self) -> str:
        """``followed: +x points [lo, hi] of games won`` (with the base and the games)."""
        x, low, high = self.points
        return (
            f"followed: {x:+.1f} points [{low:+.1f}, {high:+.1f}] of games won "
            f"({self.base}, {self.games:,} games)"
        )


def advised_spec(base: str, record: AdviceRecord | Mapping[str, Any]) -> str:
    """The ``advised`` spec that follows ``record`` around base spec ``base``."""
    return f"advised:base={base.replace(',', ';')},advice={advice_text([record])}"


def followed(
    record: AdviceRecord | Mapping[str, Any],
    bases: Sequence[str] = DEFAULT_BASES,
    games: int = 2000,
    rules: hs.Rules | None = None,
    seed: int = 0,
) -> list[Followed]:
    """Play ``record`` followed against not followed, once per base in ``bases``.

    ``games`` per population (rounded up to whole deals), under ``rules`` (default:
    revised, 2 players), deals from ``seed`` (the same in every population). InputError
    for a bad record, base or count.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(f"games must be a positive whole number, got {games!r}")
    rules = rules or hs.Rules.preset("revised", players=2)
    rec = record if isinstance(record, AdviceRecord) else AdviceRecord.from_record(record)
    return [_population(rec, base, games, rules, seed) for base in bases]


def _population(
    record: AdviceRecord, base: str, games: int, rules: hs.Rules, seed: int
) -> Followed:
    players = rules.players
    advised = make(advised_spec(base, record))
    plain = make(base)
    entries = [advised, *[plain] * (players - 1)]
    per_deal = games_per_deal("rotate", players, len(entries))
    total = -(-games // per_deal) * per_deal
    arr = rules.to_array()
    winners: list[np.ndarray] = []
    for start in range(0, total, CHUNK):
        ids = np.arange(start, min(total, start + CHUNK), dtype=np.int64)
        logs = play_chunk(arr, entries, ids, seed, "rotate", log_moves=False)
        won = logs.entries[np.arange(len(ids)), logs.games[:, R.GC_WINNER]] == 0
        winners.append(won.astype(np.int64))
    frame = pl.DataFrame(
        {
            "game_id": np.arange(total),
            "deal_id": np.arange(total) // per_deal,
            "win_rate_0": np.concatenate(winners),
        }
    )
    est = estimate(frame, "win_rate_0")
    return Followed(
        base=plain.spec,
        advised=advised.spec,
        games=total,
        deals=total // per_deal,
        win_rate=est.mean,
        low=est.low,
        high=est.high,
        fair=1 / players,
    )
