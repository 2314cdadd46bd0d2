"""A Gymnasium vector environment: many games of one learning seat, stepped in one compiled call.

:class:`HaggisVectorEnv` is ``num_envs`` copies of :class:`~haggis_sim.env.HaggisGymEnv`
with legal-slot actions (the same single observation and action spaces), whose
opponents are compiled strategies (``random``, ``greedy``, ``heuristic``, ``learned``,
``mcts`` with any parameters) played inside the same compiled loop as the agent's
actions: one ``step`` call advances every game without returning to Python per game.

Lane ``i`` plays game ids ``first + i``, ``first + i + num_envs``, ... of the run seed
(``reset(seed=, options={"game_id": first})``), each dealt and its opponents seeded as
``haggis-sim run --seats fixed`` deals and seeds that game, so a lane's games are the
single env's games of the same ids. A game that ends is dealt again at once
(Gymnasium's same-step autoreset, ``metadata["autoreset_mode"]``): the observation
returned is the next game's first, the ended game's last is in ``infos["final_obs"]``.
An action that is no legal slot ends that lane's episode with
:data:`~haggis_sim.env.gym.ILLEGAL_REWARD` (``infos["illegal_action"]``), as the single
env does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from strategies import CompiledStrategy, Strategy, is_compiled
from strategies.kernels import dispatcher_tag

from ..errors import InputError
from ..kernel import layout as L
from ..runner.chunk import kernel_arrays
from . import actions as A
from . import legal as LG
from . import vector_kernel as VK
from ._deps import gymnasium
from .aec import REWARDS, Reward, is_integer, make_rules
from .encode import SIZE, bounds
from .gym import ILLEGAL_REWARD, as_strategy, opponents_by_seat

#: the most games one vector env holds (each lane keeps a legal-action buffer of 128 KiB)
MAX_ENVS = 4096


class HaggisVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of Haggis from one seat's chair against compiled opponents.

    Arguments as :class:`~haggis_sim.env.HaggisGymEnv` (``opponents``, ``preset``,
    ``players``, ``seat``, ``reward``, rule flags), each opponent a compiled strategy.
    ``copy=False`` returns the env's own observation arrays, overwritten by the next step.

    >>> from haggis_sim.env import HaggisVectorEnv
    >>> envs = HaggisVectorEnv(4, opponents=["greedy"])
    >>> obs, info = envs.reset(seed=1)
    >>> obs["observation"].shape, info["legal_count"].shape
    ((4, 431), (4,))
    """

    metadata: dict[str, Any] = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 64,
        opponents: Sequence[str | Strategy] | str = ("heuristic",),
        preset: str = "revised",
        players: int | None = None,
        seat: int = 0,
        reward: Reward = "game",
        copy: bool = True,
        **flags: Any,
    ) -> None:
        if not is_integer(num_envs) or not 1 <= num_envs <= MAX_ENVS:
            raise InputError(f"num_envs must be an integer 1..{MAX_ENVS}, got {num_envs!r}")
        players, specs = opponents_by_seat(opponents, players, seat)
        if reward not in REWARDS:
            raise InputError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        self.rules = make_rules(None, preset, players, flags)
        self.num_envs = int(num_envs)
        self.seat = seat
        self.reward_kind: Reward = reward
        self.copy = copy
        strats: dict[int, CompiledStrategy] = {}
        for s, spec in specs.items():
            strat = as_strategy(spec)
            if not is_compiled(strat) or not isinstance(strat, CompiledStrategy):
                raise InputError(
                    f"the vector env plays compiled opponents only; {strat.spec} is written "
                    "in Python (use HaggisGymEnv for it)"
                )
            strats[s] = strat
        self.opponents = strats
        # a row per seat, the engine's seats: the agent's seat holds a stand-in, never asked
        stand_in = next(iter(strats.values()))
        self._sids, self._params = kernel_arrays([strats.get(s, stand_in) for s in range(3)])
        self._tag = dispatcher_tag(int(i) for i in self._sids)
        self._rules_arr = self.rules.to_array()
        _, self._sorted_codes, self._sorted_index = A.table()

        low, high = bounds()
        self.single_observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (LG.MAX_LEGAL,), dtype=np.int8),
            }
        )
        self.single_action_space = gymnasium.spaces.Discrete(LG.MAX_LEGAL)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        n = self.num_envs
        self._states = np.zeros((n, L.STATE_SIZE), dtype=np.int64)
        self._codes = np.zeros((n, LG.MAX_LEGAL), dtype=np.int64)
        self._n_legal = np.zeros(n, dtype=np.int64)
        self._obs = np.zeros((n, SIZE), dtype=np.float32)
        self._mask = np.zeros((n, LG.MAX_LEGAL), dtype=np.int8)
        self._final = np.zeros((n, SIZE), dtype=np.float32)
        self._rewards = np.zeros(n)
        self._status = np.zeros(n, dtype=np.int64)
        self._scores = np.zeros((n, 3), dtype=np.int64)
        self._winners = np.full(n, -1, dtype=np.int64)
        self._rngs = np.zeros((n, 3, 1), dtype=np.uint64)
        self._game_ids = np.zeros(n, dtype=np.int64)
        self.seed_value = 0
        self._dealt = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every lane: lane ``i`` game ``first + i`` of run seed ``seed`` (the last
        seed, 0 at first; ``first`` from ``options["game_id"]``, 0 by default)."""
        if options is not None and not isinstance(options, dict):
            raise InputError(f"options must be a dict (or None), got {type(options).__name__}")
        first = 0 if options is None else options.get("game_id", 0)
        if seed is not None and not (is_integer(seed) and -(2**63) <= seed < 2**63):
            raise InputError(f"seed must be a 64-bit integer, got {seed!r}")
        if not is_integer(first) or not 0 <= first <= 2**62:
            raise InputError(f"game_id must be an integer 0..2**62, got {first!r}")
        if seed is not None:
            self.seed_value = int(seed)
        self._game_ids[:] = int(first) + np.arange(self.num_envs)
        fault = VK.reset_batch(
            self._states, self._rules_arr, np.int64(self.seed_value), self._game_ids,
            np.int64(self.seat), self._sids, self._params, self._rngs, self._tag, self._codes,
            self._n_legal, self._obs, self._mask, self._sorted_codes, self._sorted_index,
        )  # fmt: skip
        self._check(fault)
        self._dealt = True
        return self._observations(), {"legal_count": self._n_legal.copy()}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play every lane's slot, then its opponents; deal again where a game ended."""
        if not self._dealt:
            raise InputError("no games dealt: call reset() first")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise InputError(
                f"actions must be {self.num_envs} integers (one slot per game), got "
                f"{chosen.dtype} of shape {chosen.shape}"
            )
        fault = VK.step_batch(
            self._states, self._rules_arr, np.int64(self.seed_value), self._game_ids,
            np.int64(self.num_envs), np.int64(self.seat), self._sids, self._params,
            self._rngs, self._tag, self._codes, self._n_legal, chosen.astype(np.int64),
            self.reward_kind == "round", ILLEGAL_REWARD, self._obs, self._mask, self._final,
            self._rewards, self._status, self._scores, self._winners, self._sorted_codes,
            self._sorted_index,
        )  # fmt: skip
        self._check(fault)
        ended = self._status != VK.GOING
        infos: dict[str, Any] = {"legal_count": self._n_legal.copy()}
        if ended.any():
            final = np.empty(self.num_envs, dtype=object)
            for i in np.flatnonzero(ended):
                final[i] = {
                    "observation": self._final[i].copy(),
                    "action_mask": np.zeros(LG.MAX_LEGAL, dtype=np.int8),
                }
            finished = self._status == VK.ENDED
            illegal = self._status == VK.ILLEGAL
            infos.update(
                final_obs=final,
                _final_obs=ended,
                winner=np.where(finished, self._winners, -1),
                _winner=finished,
                scores=np.where(finished[:, None], self._scores[:, : self.rules.players], 0),
                _scores=finished,
                illegal_action=np.where(illegal, chosen, -1),
                _illegal_action=illegal,
            )
        truncated = np.zeros(self.num_envs, dtype=bool)
        rewards = self._rewards.copy()
        return self._observations(), rewards, ended, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The legal slots of every lane as booleans, ``(num_envs, MAX_LEGAL)``."""
        return self._mask.astype(bool)

    def game_ids(self) -> np.ndarray:
        """The game id each lane is playing now."""
        return self._game_ids.copy()

    def state_arrays(self) -> np.ndarray:
        """A copy of every lane's engine state (full information: for tests and tools)."""
        return self._states.copy()

    def _observations(self) -> dict[str, np.ndarray]:
        if not self.copy:
            return {"observation": self._obs, "action_mask": self._mask}
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def _check(self, fault: int) -> None:
        if fault < 0:
            raise A.ActionTableError(
                f"game {int(self._game_ids[-1 - fault])}: a legal action has no index in the "
                "action table"
            )
