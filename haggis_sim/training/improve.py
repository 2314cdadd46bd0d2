"""Stage 2 of ``haggis-sim train``: improve the imitation weights by playing whole games.

Objective. A candidate's score on a set of games is the mean over the games of its win
(0/1) plus :data:`MARGIN_WEIGHT` times its score margin over the best opponent, divided
by the game's target (100 for round-count games) and clipped to [-1, 1]. Winning is what
the issue measures; the small margin term separates candidates whose few changed
decisions flip no game result, so the search still sees which way is better.

Pool. Every evaluation plays all (preset, players) pairs against the heuristic at its
defaults, five heuristic variants, greedy and the incumbent weights themselves
(self-play), the candidate rotating through the seats of each deal. Default mcts is
never in the pool: games against it are the out-of-sample check.

Optimiser: a seeded (1+lambda) evolution strategy. Each iteration draws ``lambda``
Gaussian steps of size ``sigma`` (relative to the weights' RMS) around the incumbent and
plays the incumbent and every candidate on the *same* games (common random numbers:
differences come from decisions, not deals). The best candidate replaces the incumbent
only when it scores higher; ``sigma`` grows after a success and shrinks after a failure
(the one-fifth rule). Every iteration has new deals, so no candidate keeps a lucky score.
Two starts compete on their own games first: the imitation weights and the same weights
with the heuristic's choice weighted until it is the top action in 90% of the held-out
decisions. At the end the start and the final weights play a separate set of games and
the better is returned: the returned weights never score below the start on them.

Every game is fixed by (seed, tag, iteration, unit), so results do not depend on --jobs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from strategies.kernels import LEARNED_ID
from strategies.learned_features import FEATURES

from .checks import TAG_CHECK, check_summary
from .games import Schedule, outcomes, schedule, spec_row, weights_row
from .metrics import top1
from .settings import Improvement
from .tasks import in_order

POOL: tuple[str, ...] = ("heuristic", "heuristic:bomb=never", "heuristic:bet=0.45",
                         "heuristic:bet=0.7,big=0.8", "heuristic:wild=0.2", "heuristic:wild=0.8",
                         "greedy")  # fmt: skip
SELF = "self (the incumbent weights)"
MARGIN_WEIGHT = 0.1
LAMBDA = 8
SIGMA0 = 0.15  # first step size, relative to the RMS of the weights
SIGMA_RANGE = (0.01, 1.0)
FOLLOW_SHARE = 0.9  # the heuristic-following start ranks the heuristic's choice first this often
CHUNK = 120  # games per worker task
# seed-sequence tags keep the games of each purpose apart (TAG_CHECK = 14: the checks')
TAG_ITER, TAG_START, TAG_FINAL = 11, 12, 13
CHECK_PRESET = ("revised", 2)  # haggis-sim run's default rules and player count

Progress = Callable[[int, int, str], None]


@dataclass
class ImproveResult:
    weights: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)


def objective(res: np.ndarray, sched: Schedule) -> float:
    """Mean of win + MARGIN_WEIGHT * clipped normalised margin over the games."""
    margin = np.clip(res[:, 1] / sched.scale, -1.0, 1.0)
    return float(np.mean(res[:, 0] + MARGIN_WEIGHT * margin))


def _task(sched: Schedule, cand: np.ndarray, opps: list[tuple[int, np.ndarray]]) -> np.ndarray:
    return outcomes(sched, cand, opps)


class Evaluator:
    """Plays candidates on schedules, split into tasks of :data:`CHUNK` games over ``jobs``
    loky worker processes (joblib's); per-game results are put back in game order, so
    sums do not depend on it."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        """Nothing to close: joblib's loky backend keeps its worker processes between calls."""

    def run(
        self,
        sched: Schedule,
        cands: list[np.ndarray],
        opps: list[tuple[int, np.ndarray]] | list[list[tuple[int, np.ndarray]]],
    ) -> list[np.ndarray]:
        """Per candidate, its (games, 2) outcomes; ``opps`` is one opponent table for all
        candidates or one per candidate."""
        tables = opps if opps and isinstance(opps[0], list) else [opps] * len(cands)
        parts = [slice(i, min(i + CHUNK, len(sched))) for i in range(0, len(sched), CHUNK)]
        jobs = [(c, p) for c in range(len(cands)) for p in parts]
        calls = [(sched.part(p), cands[c], tables[c]) for c, p in jobs]
        res = list(in_order(_task, calls, self.jobs))
        per = len(parts)
        return [np.concatenate(res[c * per : (c + 1) * per]) for c in range(len(cands))]


def follow_heuristic(
    weights: np.ndarray, x: np.ndarray, decision: np.ndarray, heuristic: np.ndarray
) -> np.ndarray:
    """``weights`` with the ``heuristic_choice`` weight raised (bisection) until the
    heuristic's action is top-1 in :data:`FOLLOW_SHARE` of the decisions it can be."""
    j = FEATURES.index("heuristic_choice")
    base = x @ weights

    def share(c: float) -> float:
        return top1(base + c * x[:, j], decision, heuristic)

    most = share(1e6)
    lo, hi = 0.0, 1e3
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if share(mid) >= FOLLOW_SHARE * most else (mid, hi)
    out = weights.copy()
    out[j] += hi
    return out


def _search(
    ev: Evaluator,
    start: np.ndarray,
    *,
    seed: int,
    iters: int,
    games: int,
    pool: list[tuple[int, np.ndarray]],
    combos: list[tuple[str, int]],
    tick: Callable[[str], None],
) -> tuple[np.ndarray, dict[str, Any]]:
    """The evolution strategy's ``iters`` iterations from ``start`` (module doc): the
    final incumbent, and the record of the search."""
    inc = start.copy()
    scale = float(np.sqrt(np.mean(start**2))) or 1.0
    sigma = SIGMA0
    history = []
    accepted = 0
    per_candidate = len(schedule(seed, (TAG_START,), games, len(pool), combos))
    for t in range(iters):
        rng = np.random.default_rng([seed & (2**64 - 1), TAG_ITER, t])
        cands = [inc] + [inc + sigma * scale * rng.standard_normal(len(inc))
                         for _ in range(LAMBDA)]  # fmt: skip
        sched = schedule(seed, (TAG_ITER, t), games, len(pool) + 1, combos)
        per_candidate = len(sched)
        table = pool + [(LEARNED_ID, weights_row(inc))]
        scores = [objective(r, sched) for r in ev.run(sched, cands, table)]
        best = 1 + int(np.argmax(scores[1:]))
        success = scores[best] > scores[0]
        if success:
            inc = cands[best]
            accepted += 1
        sigma *= np.exp(0.8 if success else -0.2)
        sigma = float(np.clip(sigma, *SIGMA_RANGE))
        history.append([round(scores[0], 4), round(scores[best], 4), round(sigma, 4)])
        tick(f"iteration {t + 1}: {scores[0]:.3f} -> {scores[best]:.3f}")
    record = {"games_per_candidate": per_candidate, "accepted_steps": accepted,
              "history": history}  # fmt: skip
    return inc, record


def improve(
    starts: dict[str, np.ndarray],
    improvement: Improvement,
    *,
    seed: int,
    check_games: int,
    combos: list[tuple[str, int]],
    jobs: int = 1,
    on_progress: Progress | None = None,
    check_preset: tuple[str, int] = CHECK_PRESET,
) -> ImproveResult:
    """Run stage 2 from ``starts`` (name -> weights), ``improvement.iters`` iterations of
    ``improvement.games`` games per candidate, and return the better of the chosen start
    and the final weights on the final games, with the held-out check vs heuristic on
    ``check_preset`` (rules preset, players; with 3 players, one candidate against two
    heuristics)."""
    iters, games = improvement.iters, improvement.games
    t0 = time.monotonic()
    pool = [spec_row(s) for s in POOL]
    total = iters + 3
    step = 0

    def tick(msg: str) -> None:
        nonlocal step
        step += 1
        if on_progress:
            on_progress(step, total, msg)

    names = list(starts)
    with Evaluator(jobs) as ev:
        sched = schedule(seed, (TAG_START,), games, len(pool), combos)
        first = [objective(r, sched) for r in ev.run(sched, [starts[n] for n in names], pool)]
        chosen = names[int(np.argmax(first))]
        start = starts[chosen]
        tick(f"start: {chosen} ({max(first):.3f})")
        inc, record = _search(ev, start, seed=seed, iters=iters, games=games, pool=pool,
                              combos=combos, tick=tick)  # fmt: skip
        sched = schedule(seed, (TAG_FINAL,), 2 * games, len(pool), combos)
        final = [objective(r, sched) for r in ev.run(sched, [start, inc], pool)]
        weights = inc if final[1] >= final[0] else start
        tick(f"final: start {final[0]:.3f}, improved {final[1]:.3f}")
        check = schedule(seed, (TAG_CHECK,), check_games, 1, [check_preset])
        heur = [spec_row("heuristic")]
        res = ev.run(check, [start, weights], heur)
        tick("held-out check")
    wins = [int(r[:, 0].sum()) for r in res]
    n = len(check)
    info = {
        "optimiser": f"(1+{LAMBDA}) evolution strategy, one-fifth rule, common random numbers",
        "objective": f"mean of win + {MARGIN_WEIGHT} * clip(margin / target, -1, 1)",
        "iters": iters,
        "games_per_candidate": record["games_per_candidate"],
        "pool": [*POOL, SELF],
        "presets_players": [f"{p}/{n_}" for p, n_ in combos],
        "starts": {n_: round(s, 4) for n_, s in zip(names, first, strict=True)},
        "start_chosen": chosen,
        "accepted_steps": record["accepted_steps"],
        "history": record["history"],
        "final_games": len(sched),
        "final_objective": {"start": round(final[0], 4), "improved": round(final[1], 4)},
        "returned": "improved" if weights is inc else "start",
        "heldout_vs_heuristic": {
            **check_summary(wins[1], n, check_preset),
            "start_win_rate": round(wins[0] / n, 4),
        },
        "seconds": round(time.monotonic() - t0, 1),
    }
    return ImproveResult(np.asarray(weights, dtype=np.float64), info)
