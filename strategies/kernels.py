"""Dispatch of the built-in strategies' compiled kernels by integer id.

Each kernel reads only the observation array it is given (``haggis_sim.kernel.observe``
output), its float64 parameters and its own splitmix64 stream.
"""

from __future__ import annotations

import numpy as np

from haggis_sim.kernel import njit

from .ismcts import mcts_act
from .learned_features import learned_act
from .simple_kernels import (
    BOMB_MODES,
    HEURISTIC_PARAMS,
    MCTS_BETS,
    MCTS_PARAMS,
    MCTS_PRIORS,
    MCTS_ROLLOUTS,
    MCTS_VALUES,
    RANDOM_PARAMS,
    greedy_act,
    heuristic_act,
    random_act,
)

RANDOM_ID = 0
GREEDY_ID = 1
HEURISTIC_ID = 2
MCTS_ID = 3
LEARNED_ID = 4

# each kernel's parameter names in slot order: Strategy.param_array places values by these
PARAM_SLOTS: dict[int, tuple[str, ...]] = {
    RANDOM_ID: RANDOM_PARAMS,
    GREEDY_ID: (),
    HEURISTIC_ID: HEURISTIC_PARAMS,
    MCTS_ID: MCTS_PARAMS,
    # the learned kernel reads a model's weights, not these: LearnedStrategy.param_array
    # builds its array from the model file the two parameters name (wider than the others;
    # the runner pads a run's arrays to one width)
    LEARNED_ID: ("model", "sha"),
}
# choice parameters: the kernel reads the index of the value in these tuples
PARAM_CHOICES: dict[tuple[int, str], tuple[str, ...]] = {
    (HEURISTIC_ID, "bomb"): BOMB_MODES,
    (MCTS_ID, "rollout"): MCTS_ROLLOUTS,
    (MCTS_ID, "value"): MCTS_VALUES,
    (MCTS_ID, "bets"): MCTS_BETS,
    (MCTS_ID, "prior"): MCTS_PRIORS,
}
# Width of every compiled strategy's parameter array: the runner stacks the arrays of all
# strategies of a run into one matrix, so they share a width, the largest kernel's slot
# count (a kernel with more parameters widens it; nothing else caps the count).
PARAM_WIDTH = max(len(slots) for slots in PARAM_SLOTS.values())

__all__ = [
    "GREEDY_ID",
    "HEURISTIC_ID",
    "LEARNED_ID",
    "MCTS_ID",
    "MCTS_PARAMS",
    "MCTS_PRIORS",
    "MCTS_ROLLOUTS",
    "PARAM_CHOICES",
    "PARAM_SLOTS",
    "PARAM_WIDTH",
    "RANDOM_ID",
    "UnknownKernelError",
    "act",
]


class UnknownKernelError(RuntimeError):
    """Compiled code was asked for a kernel id that has no kernel (an internal failure).

    Raised from inside compiled code, so a run stops with this error instead of
    playing a game with some other kernel's decisions.
    """

    def __init__(self, sid: int) -> None:
        super().__init__(sid)
        self.sid = sid

    def __str__(self) -> str:
        return (
            f"no compiled strategy kernel has id {self.sid} "
            f"(known: {', '.join(map(str, sorted(PARAM_SLOTS)))})"
        )


@njit(cache=True)
def act(sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray) -> int:
    """Dispatch to the kernel of strategy ``sid``; UnknownKernelError for any other id.

    Every id is matched explicitly: an unknown one must stop the run, never fall
    through to some kernel and play games nobody asked for.
    """
    action: int  # the kernels are typed by numba (mypy sees their results as Any)
    if sid == RANDOM_ID:
        action = random_act(obs, params, rng, buf)
    elif sid == GREEDY_ID:
        action = greedy_act(obs, params, rng, buf)
    elif sid == HEURISTIC_ID:
        action = heuristic_act(obs, params, rng, buf)
    elif sid == MCTS_ID:
        action = mcts_act(obs, params, rng, buf)
    elif sid == LEARNED_ID:
        action = learned_act(obs, params, rng, buf)
    else:
        raise UnknownKernelError(sid)
    return action
