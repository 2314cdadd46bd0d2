"""Dispatch of the built-in strategies' compiled kernels by integer id.

Each kernel reads only the observation array it is given (``haggis_sim.kernel.observe``
output), its float64 parameters and its own splitmix64 stream.
"""

from __future__ import annotations

import numpy as np

from haggis_sim.kernel import njit

from .ismcts import mcts_act
from .simple_kernels import (
    BOMB_MODES,
    HEURISTIC_PARAMS,
    RANDOM_PARAMS,
    greedy_act,
    heuristic_act,
    random_act,
)

RANDOM_ID = 0
GREEDY_ID = 1
HEURISTIC_ID = 2
MCTS_ID = 3

# the MCTS kernel's parameter slots (its M_* constants; tests check they agree)
MCTS_PARAMS = ("iters", "c", "rollout", "bet", "ms")
MCTS_ROLLOUTS = ("random", "greedy")  # values of ``rollout`` (ROLLOUT_* constants)

# each kernel's parameter names in slot order: Strategy.param_array places values by these
PARAM_SLOTS: dict[int, tuple[str, ...]] = {
    RANDOM_ID: RANDOM_PARAMS,
    GREEDY_ID: (),
    HEURISTIC_ID: HEURISTIC_PARAMS,
    MCTS_ID: MCTS_PARAMS,
}
# choice parameters: the kernel reads the index of the value in these tuples
PARAM_CHOICES: dict[tuple[int, str], tuple[str, ...]] = {
    (HEURISTIC_ID, "bomb"): BOMB_MODES,
    (MCTS_ID, "rollout"): MCTS_ROLLOUTS,
}


@njit(cache=True)
def act(sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray) -> int:
    """Dispatch to the kernel of strategy ``sid``."""
    if sid == RANDOM_ID:
        return random_act(obs, params, rng, buf)
    if sid == HEURISTIC_ID:
        return heuristic_act(obs, params, rng, buf)
    if sid == MCTS_ID:
        return mcts_act(obs, params, rng, buf)
    return greedy_act(obs, params, rng, buf)
