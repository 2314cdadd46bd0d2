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

After a study of an experiment, :func:`follow_records` follows every guidance record that
gives advice, against every base, the (record, base) pairs in parallel on the runner's
pools (loky worker processes, or this process for one job). Each record is played on its
own deals, drawn from the study's seed and the record's index (:func:`record_seed`), the
same in every base, so the results do not depend on the workers. Its verdict
(:func:`verdict`): *advice* where following it wins in at least one base and loses in
none, *failed* where it loses in any base, *not confirmed* where no base separates it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl

import haggis_sim as hs
from strategies import make
from strategies.advice import AdviceRecord, advice_text

from ..analytics.compare import estimate
from ..errors import InputError
from ..kernel import record as R
from ..runner.chunk import play_chunk
from ..runner.pool import InlinePool, LokyPool, local_workers
from ..runner.seating import games_per_deal
from .separation import sign

DEFAULT_BASES = ("heuristic", "learned")
DEFAULT_GAMES = 2000  # games per base a study's guidance record is followed for
CHUNK = 200  # games per call of the chunk player
FOLLOW_STREAM = 0xF011  # the seed stream of followed games, apart from the study's own
#: a followed record's verdict: wins somewhere and loses nowhere / loses somewhere /
#: separable nowhere; NOT_TESTED: the study was told not to follow (``followed_games = 0``)
ADVICE, FAILED, UNCONFIRMED, NOT_TESTED = "advice", "failed", "not confirmed", "not tested"


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


# ---------------------------------------------------------------- a study's records


def record_seed(seed: int, index: int) -> int:
    """The deals guidance record ``index`` of a study seeded ``seed`` is followed on: the
    same in every base (the populations are paired), whichever worker plays them."""
    state = np.random.SeedSequence([seed, index, FOLLOW_STREAM]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def verdict(signs: Sequence[int]) -> str:
    """:data:`FAILED` if following loses in any base, else :data:`ADVICE` if it wins in
    one, else :data:`UNCONFIRMED` (no base separates it from not following)."""
    if any(s < 0 for s in signs):
        return FAILED
    return ADVICE if any(s > 0 for s in signs) else UNCONFIRMED


def follow_records(
    records: Sequence[Mapping[str, Any]],
    bases: Sequence[str],
    games: int,
    rules: hs.Rules,
    seed: int,
    jobs: int = 1,
    say: Callable[[str], None] | None = None,
    label: str = "",
) -> list[dict[str, Any] | None]:
    """Each of a study's guidance ``records`` (its ``advice`` entries) followed in play.

    Per record: None where it gives no advice (``"advice": null``); else its verdict
    (``status``), the games per base and per base the JSON of :func:`followed_json`.
    ``games = 0``: nothing is played, every record with advice is :data:`NOT_TESTED`.
    The (record, base) pairs run on ``jobs`` worker processes (0: every core), each
    record on :func:`record_seed` deals; ``say`` hears which line is being followed.
    """
    todo = [i for i, rec in enumerate(records) if rec.get("advice") is not None]
    out: list[dict[str, Any] | None] = [None] * len(records)
    if games == 0:
        for i in todo:
            out[i] = {"status": NOT_TESTED, "games": 0, "bases": []}
        return out
    tasks = [(k, i, base) for k, i in enumerate(todo) for base in bases]

    def start(task: tuple[int, int, str]) -> tuple[Any, ...]:
        k, i, base = task
        if say is not None:
            say(f"study {label}: following line {k + 1} of {len(todo)} in play "
                f"({base}, {games:,} games)")  # fmt: skip
        return (records[i], base, games, rules, record_seed(seed, i))

    played = iter(_in_pool(_follow_one, tasks, start, jobs))
    for i in todo:
        results = [followed_json(next(played), base) for base in bases]
        out[i] = {
            "status": verdict([r["sign"] for r in results]),
            "games": max(r["games"] for r in results),
            "bases": results,
        }
    return out


def followed_json(result: Followed, base: str) -> dict[str, Any]:
    """One base's result as ``summary.json`` holds it: ``base`` as declared, its spec, the
    advised player's spec, the games, the win rate with its interval, the edge over the
    fair share in points (``points``, ``low``, ``high``), its sign and its words."""
    x, low, high = result.points
    return {
        "base": base,
        "spec": result.base,
        "advised": result.advised,
        "games": result.games,
        "deals": result.deals,
        "win_rate": result.win_rate,
        "win_low": result.low,
        "win_high": result.high,
        "fair": result.fair,
        "points": x,
        "low": low,
        "high": high,
        "sign": result.sign,
        "text": replace(result, base=base).text(),
    }


def _follow_one(
    record: Mapping[str, Any], base: str, games: int, rules: hs.Rules, seed: int
) -> Followed:
    """One (record, base) pair of :func:`follow_records` (a worker's task)."""
    (result,) = followed(record, [base], games, rules, seed)
    return result


def _in_pool(
    fn: Callable[..., Any],
    tasks: Sequence[Any],
    start: Callable[[Any], tuple[Any, ...]],
    jobs: int,
) -> list[Any]:
    """``fn(*start(task))`` for every task, at most ``jobs`` at a time (0: every core) on
    the runner's pools (this process for one); the results in the tasks' order. ``start``
    runs here as its task is handed out, so progress is said when it happens."""
    workers, _ = local_workers(jobs, len(tasks))
    pool = InlinePool() if workers == 1 else LokyPool(workers)
    results: dict[int, Any] = {}
    running: dict[Any, int] = {}
    queue = list(range(len(tasks)))[::-1]
    try:
        while queue or running:
            while queue and len(running) < pool.workers:
                j = queue.pop()
                running[pool.submit(fn, *start(tasks[j]))] = j
            done, _ = pool.wait_any(list(running), timeout=60.0)
            for task in done:
                results[running.pop(task)] = pool.result(task)
    except BaseException:
        pool.close(cancel=True)
        raise
    pool.close(cancel=False)
    return [results[j] for j in range(len(tasks))]
