"""Dispatch of the built-in strategies' compiled kernels by integer id.

Each kernel reads only the observation array it is given (``haggis_sim.kernel.observe``
output), its float64 parameters and its own splitmix64 stream.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numba
import numpy as np
from numba.extending import overload

from haggis_sim.kernel import Compiled, njit

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
#: the kernels :func:`act_simple` dispatches to, and those :func:`act_learned` does
SIMPLE_IDS = frozenset({RANDOM_ID, GREEDY_ID, HEURISTIC_ID})
LEARNED_IDS = SIMPLE_IDS | {LEARNED_ID}

# Width of every compiled strategy's parameter array: the runner stacks the arrays of all
# strategies of a run into one matrix, so they share a width, the largest kernel's slot
# count (a kernel with more parameters widens it; nothing else caps the count).
PARAM_WIDTH = max(len(slots) for slots in PARAM_SLOTS.values())

__all__ = [
    "GREEDY_ID",
    "HEURISTIC_ID",
    "LEARNED_ID",
    "LEARNED_IDS",
    "MCTS_ID",
    "MCTS_PARAMS",
    "MCTS_PRIORS",
    "MCTS_ROLLOUTS",
    "PARAM_CHOICES",
    "PARAM_SLOTS",
    "PARAM_WIDTH",
    "RANDOM_ID",
    "SIMPLE_IDS",
    "UnknownKernelError",
    "act",
    "act_learned",
    "act_simple",
    "act_tagged",
    "dispatcher",
    "dispatcher_tag",
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
def act_simple(
    sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray
) -> int:
    """:func:`act` for the kernels of :data:`SIMPLE_IDS` only; UnknownKernelError for any
    other id. A run of these players compiles this dispatcher, a fraction of :func:`act`
    (the search and the network kernels are most of the compile)."""
    action: int
    if sid == RANDOM_ID:
        action = random_act(obs, params, rng, buf)
    elif sid == GREEDY_ID:
        action = greedy_act(obs, params, rng, buf)
    elif sid == HEURISTIC_ID:
        action = heuristic_act(obs, params, rng, buf)
    else:
        raise UnknownKernelError(sid)
    return action


@njit(cache=True)
def act_learned(
    sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray
) -> int:
    """:func:`act` for the kernels of :data:`LEARNED_IDS` only (the simple ones and the
    learned player, not the search); UnknownKernelError for any other id."""
    action: int
    if sid == LEARNED_ID:
        action = learned_act(obs, params, rng, buf)
    else:
        action = act_simple(sid, obs, params, rng, buf)
    return action


@njit(cache=True)
def act(sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray) -> int:
    """Dispatch to the kernel of strategy ``sid``; UnknownKernelError for any other id.

    Every id is matched explicitly (the search here, the others in :func:`act_learned`
    and :func:`act_simple`): an unknown one must stop the run, never fall through to
    some kernel and play games nobody asked for.
    """
    action: int  # the kernels are typed by numba (mypy sees their results as Any)
    if sid == MCTS_ID:
        action = mcts_act(obs, params, rng, buf)
    else:
        action = act_learned(sid, obs, params, rng, buf)
    return action


def dispatcher(sids: Iterable[int]) -> Compiled[..., int]:
    """The smallest dispatcher that holds every kernel of ``sids``: what a run of those
    players compiles (each dispatcher is compiled, and cached, on its own)."""
    wanted = set(sids)
    if wanted <= SIMPLE_IDS:
        return act_simple
    if wanted <= LEARNED_IDS:
        return act_learned
    return act


# Compiled code that takes "a dispatcher" is told which by the dtype of an empty array, a
# tag: numba compiles (and caches, keyed by the argument types) one version per dtype. A
# dispatcher passed as a function argument is also compiled once per dispatcher, but
# numba's cache does not find such a version again in another process.
_TAG_DTYPES: dict[Any, Any] = {act_simple: np.int8, act_learned: np.int16, act: np.int64}


def dispatcher_tag(sids: Iterable[int]) -> np.ndarray:
    """The tag of :func:`dispatcher` (``sids``) for compiled code that calls
    :func:`act_tagged`: an empty array whose dtype names the dispatcher."""
    return np.zeros(0, dtype=_TAG_DTYPES[dispatcher(sids)])


def act_tagged(
    tag: np.ndarray, sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray,
    buf: np.ndarray,
) -> int:  # fmt: skip
    """The action of kernel ``sid`` through the dispatcher ``tag`` names
    (:func:`dispatcher_tag`); in compiled code the choice is made when it is compiled."""
    chosen = next(d for d, dtype in _TAG_DTYPES.items() if tag.dtype == dtype)
    return int(chosen(sid, obs, params, rng, buf))


# inlined where it is called: each function numba compiles on its own re-optimises all
# it calls (its callees are linked into it), so a layer less is seconds less of a compile
@overload(act_tagged, inline="always")
def _act_tagged_compiled(tag: Any, sid: Any, obs: Any, params: Any, rng: Any, buf: Any) -> Any:
    chosen = next(d for d, dtype in _TAG_DTYPES.items() if tag.dtype == numba.from_dtype(dtype))

    def tagged(tag: Any, sid: Any, obs: Any, params: Any, rng: Any, buf: Any) -> Any:
        return chosen(sid, obs, params, rng, buf)

    return tagged
