"""Constructed experiments and games for the verdict tests: arms whose per-game results
are set exactly, so every difference between them is known."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from haggis_sim.experiment import Arm, Experiment, parse_experiment
from haggis_sim.experiment.summary import Played, summarize


def experiment(arms: list[str], goal: str = "max") -> Experiment:
    """An experiment of arms that all play heuristic vs greedy, by win rate of entry 0."""
    base = parse_experiment({"name": "aa", "question": "A/A?", "games": 10, "seed": 1,
                             "strategies": ["heuristic", "greedy"], "metric": "win_rate",
                             "goal": goal, "players": 2})  # fmt: skip
    rules = base.arms[0].rules
    return replace(base, arms=tuple(Arm(n, base.arms[0].strategies, rules) for n in arms))


def summary_of(exp: Experiment, frames: list[pl.DataFrame]) -> dict[str, Any]:
    names = [a.name for a in exp.arms]
    return summarize(exp, Path("aa"), Played(exp, dict(zip(names, frames, strict=True))))


def frame(wins: list[int] | np.ndarray) -> pl.DataFrame:
    """Games whose entry 0 won (1) or lost (0), one deal each; arms built from frames of
    the same length play the same deals, so their differences pair game by game."""
    ids = range(len(wins))
    won = np.asarray(wins, dtype=float)
    return pl.DataFrame({"game_id": ids, "deal_id": ids, "deal_seed": ids,
                         "players": [2] * len(won), "win_rate_0": won})  # fmt: skip


def pair(n: int, only_x: int, only_y: int, both: int) -> tuple[np.ndarray, np.ndarray]:
    """Two arms' wins on the same ``n`` games: x alone wins ``only_x``, y alone ``only_y``,
    both ``both``; the paired difference x − y is (only_x − only_y) / n exactly."""
    x, y = np.zeros(n), np.zeros(n)
    x[:only_x] = 1
    y[only_x : only_x + only_y] = 1
    x[only_x + only_y : only_x + only_y + both] = y[only_x + only_y : only_x + only_y + both] = 1
    return x, y
