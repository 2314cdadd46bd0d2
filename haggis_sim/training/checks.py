"""Held-out checks of a trained model: its win rate against the default heuristic on fresh
deals, games apart from those training played or tuned on."""

from __future__ import annotations

from typing import Any

import numpy as np

from haggis_sim.stats import wilson

from .fit import PLAYER_COUNTS
from .games import outcomes_of, schedule, spec_row

CHECK_RULES = "revised"  # the held-out check's rules (haggis-sim run's default)
TAG_CHECK = 14  # the seed-sequence tag of the check's games (stage 2 uses 11 to 13)


def refine_seed(seed: int, players: int) -> int:
    """The seed of the stage 2 refinement for ``players`` (its own games, apart from the
    first stage 2's)."""
    return int(np.random.SeedSequence([seed & (2**64 - 1), players]).generate_state(1)[0] >> 1)


def check_summary(wins: int, games: int, preset: tuple[str, int]) -> dict[str, Any]:
    """A held-out check's record: ``wins`` of ``games`` on ``preset`` (rules, players),
    with its rate and 95% Wilson interval."""
    return {
        "games": games,
        "rules": f"{preset[0]}, {preset[1]} players, rotated seats, fresh deals",
        "wins": wins,
        "win_rate": round(wins / games, 4),
        "wilson95": [round(x, 4) for x in wilson(wins, games)],
    }


def heldout_checks(params: np.ndarray, seed: int, games: int) -> dict[str, Any]:
    """The model's win rate against the default heuristic on fresh deals of
    :data:`CHECK_RULES`, 2 players and 3 (one model against two heuristics), rotated
    seats: ``games`` games each, fixed by the seed (games apart from training's)."""
    out: dict[str, Any] = {}
    for players in PLAYER_COUNTS:
        sched = schedule(refine_seed(seed, players), (TAG_CHECK,), games, 1,
                         [(CHECK_RULES, players)])  # fmt: skip
        wins = int(outcomes_of(sched, params, [spec_row("heuristic")])[:, 0].sum())
        out[str(players)] = check_summary(wins, len(sched), (CHECK_RULES, players))
    return out


def check_line(players: str, check: dict[str, Any]) -> str:
    """A held-out check against the heuristic (two of them with 3 players), in words."""
    lo, hi = check["wilson95"]
    against = "two heuristics" if players == "3" else "heuristic"
    return (
        f"held-out vs {against} ({check['games']} games, {check['rules']}): "
        f"{check['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]"
    )
