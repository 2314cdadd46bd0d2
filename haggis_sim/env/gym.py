"""A Gymnasium single-agent wrapper: one learning seat, the other seats played by strategies.

The opponents are any built-in or plug-in strategy specs (``"mcts:iters=64"``,
``"heuristic"``, a registered plug-in's name), asked exactly as the runner asks them:
the same observation, the same random streams seeded from (run seed, game id, seat).
So an episode of seed ``s`` and game id ``g`` in which the learning seat happens to play
as some strategy would play is game ``g`` of ``haggis-sim run --seed s --seats fixed``
with that strategy in the learning seat (tests/env/test_gym.py checks it).

An action that is not legal now ends the episode (``terminated``) with the reward
:data:`ILLEGAL_REWARD` and ``info["illegal_action"]`` set, the game left as it was, as
PettingZoo's ``TerminateIllegalWrapper`` does: a learner that samples without the mask
is told, not stopped (the engine's API and the PettingZoo env raise ``IllegalAction``).
:meth:`HaggisGymEnv.action_masks` gives the legal actions as a boolean mask (the hook
sb3-contrib's MaskablePPO calls). Registered with Gymnasium as ``haggis_sim.env.ENV_ID``:
``gymnasium.make("haggis_sim.env:HaggisSim/Haggis-v0", opponents=["greedy"])`` (the
``haggis_sim.env:`` prefix imports the package, which registers it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from strategies import Strategy, make

from .. import kernel as K
from ..errors import InputError
from ..kernel import layout as L
from ..runner.chunk import seat_action, seat_streams
from ._deps import gymnasium
from .aec import Actions, HaggisEnv, Reward, is_integer

#: the reward of a step whose action is not legal now, which ends the episode
ILLEGAL_REWARD = -1.0


def opponents_by_seat(
    opponents: Sequence[str | Strategy] | str | Strategy, players: int | None, seat: int
) -> tuple[int, dict[int, str | Strategy]]:
    """The player count and each other seat's opponent, in turn order after ``seat``
    (one opponent: the same in every other seat; ``players`` None: one seat more than
    the opponents given); InputError for a count or seat that does not fit."""
    specs = [opponents] if isinstance(opponents, str | Strategy) else list(opponents)
    if players is None:
        players = len(specs) + 1
    if players not in (2, 3):
        raise InputError(f"players must be 2 or 3, not {players!r}")
    if len(specs) == 1:
        specs = specs * (players - 1)
    if len(specs) != players - 1:
        raise InputError(
            f"{players} players need {players - 1} opponents (or one for every seat), "
            f"got {len(specs)}"
        )
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise InputError(f"seat must be 0..{players - 1}, got {seat!r}")
    return players, {(seat + 1 + k) % players: spec for k, spec in enumerate(specs)}


def as_strategy(spec: str | Strategy) -> Strategy:
    """``spec`` made into a strategy (a strategy as it is)."""
    return spec if isinstance(spec, Strategy) else make(spec)


class HaggisGymEnv(gymnasium.Env):
    """Haggis from one seat's chair: ``step(action)`` plays the agent's action, then the
    opponents' until the agent is to act again or the game is over.

    ``opponents`` names a strategy for every other seat, in turn order after ``seat``
    (one spec: the same strategy in every other seat). Spaces, observations, rewards and
    ``reset(seed=, options={"game_id": })`` are those of :class:`HaggisEnv` for the
    agent's seat; the reward of a step is what the agent earned since its last action.
    ``actions=`` chooses the action representation as there (``"legal"`` slots by
    default; :meth:`legal_action_features` describes them).

    >>> from haggis_sim.env import HaggisGymEnv
    >>> env = HaggisGymEnv(opponents=["heuristic"], preset="revised")
    >>> obs, info = env.reset(seed=3)
    >>> obs["observation"].shape, int(env.action_space.n) == obs["action_mask"].size
    ((431,), True)
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # fps: for recorders

    def __init__(
        self,
        opponents: Sequence[str | Strategy] | str = ("heuristic",),
        preset: str = "revised",
        players: int | None = None,
        seat: int = 0,
        reward: Reward = "game",
        render_mode: str | None = None,
        actions: Actions = "legal",
        **flags: Any,
    ) -> None:
        players, specs = opponents_by_seat(opponents, players, seat)
        self.aec = HaggisEnv(
            preset=preset,
            players=players,
            reward=reward,
            render_mode=render_mode,
            actions=actions,
            **flags,
        )
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponents: dict[int, Strategy] = {s: as_strategy(v) for s, v in specs.items()}
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = render_mode
        self._buf = np.empty(L.MAX_MOVES, dtype=np.int64)
        self._ended = False  # an illegal action ended the episode

    @property
    def rules(self) -> Any:
        return self.aec.rules

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal a game (as :meth:`HaggisEnv.reset`) and play the opponents up to the
        agent's first decision."""
        self.aec.reset(seed=seed, options=options)  # checks both first; InputError if bad
        # Gymnasium's own generator (unused by the game) wants a non-negative seed
        super().reset(seed=None if seed is None else int(seed) & (2**64 - 1))
        players = self.aec.rules.players
        self._streams, self._gens = seat_streams(self.aec.seed_value, self.aec.game_id, players)
        self._reward = 0.0
        self._ended = False
        self._play_opponents()
        return self.aec.observe(self.agent), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponents'. An integer action that is not
        legal now ends the episode with :data:`ILLEGAL_REWARD` (the game unchanged);
        anything but an integer is IllegalAction."""
        self._live()
        if is_integer(action) and not self.aec._is_legal(action):
            self._ended = True
            info = {**self._info(), "illegal_action": int(action)}
            return self.aec.observe(self.agent), ILLEGAL_REWARD, True, False, info
        self.aec.step(action)
        self._play_opponents()
        over = self.aec.terminations[self.agent]
        return self.aec.observe(self.agent), self._reward, over, False, self._info()

    def _play_opponents(self) -> None:
        aec = self.aec
        st = aec._st
        while not aec.terminations[self.agent] and aec.agent_selection != self.agent:
            seat = int(st[L.S_TO_ACT])
            code = seat_action(
                self.opponents[seat],
                st,
                K.observe(st, seat),
                seat,
                self._streams[seat],
                self._gens[seat],
                self._buf,
                aec.game_id,
            )
            aec.step(aec.action_index(code, aec.agent_selection))
        # everything the agent earned since it last acted (its own step and the opponents')
        self._reward = float(aec._cumulative_rewards[self.agent])

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent now, as a boolean mask over the action space
        (all False once the episode is over)."""
        mask = np.zeros(self.aec.n_actions, dtype=bool)
        if not self._ended and self.aec.agents and not self.aec.terminations[self.agent]:
            mask[self.aec._legal] = True
        return mask

    def _live(self) -> None:
        if self._ended or not self.aec.agents or self.aec.terminations[self.agent]:
            raise InputError("no game in progress (over, or never dealt): call reset() first")

    def legal_action_ids(self) -> np.ndarray:
        """The abstract ids of the agent's legal actions (:meth:`HaggisEnv.legal_action_ids`)."""
        self._live()
        return self.aec.legal_action_ids()

    def legal_action_features(self) -> np.ndarray:
        """The feature rows of the agent's legal actions, from its information set only
        (:meth:`HaggisEnv.legal_action_features`)."""
        self._live()
        return self.aec.legal_action_features()

    def describe(self, action: int) -> str:
        """A person's name for the agent's ``action`` now (:meth:`HaggisEnv.describe`)."""
        return self.aec.describe(action)

    def _info(self) -> dict[str, Any]:
        info = dict(self.aec.infos.get(self.agent, {}))
        if "legal_actions" in info:  # each call's own: a caller may keep and change it
            info["legal_actions"] = info["legal_actions"].copy()
        if self.aec.terminations[self.agent]:
            st = self.aec._st
            info["scores"] = tuple(int(st[L.S_SCORE + s]) for s in range(self.rules.players))
            info["winner"] = int(st[L.S_WINNER])
        return info

    def render(self) -> str | None:
        return self.aec.render()
