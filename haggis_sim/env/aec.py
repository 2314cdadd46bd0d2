"""Haggis as a PettingZoo AEC environment over the compiled engine.

One episode is one whole game, dealt exactly as ``hs.Game(rules, seed, game_id)`` and
the runner deal it (RULES.md; a game's rounds follow from its deal seed). Agents are
``player_0`` .. ``player_{n-1}`` (the engine's seats); the agent to act is the seat the
rules say acts next, so a seat acts several times in a row when it bets and then plays,
or when a give decision is its own.

Actions (``actions=``): ``"legal"`` (default) chooses among the legal actions of the
moment, slot ``k`` being the ``k``-th of them (:mod:`haggis_sim.env.legal`: a
``Discrete(MAX_LEGAL)`` space whose legal slots are ``0 .. n-1``, each described by
:meth:`HaggisEnv.legal_action_ids` and :meth:`HaggisEnv.legal_action_features`);
``"flat"`` indexes every action any seat could take in one fixed table
(:mod:`haggis_sim.env.actions`: 255,445 actions with 2 players, 869,266 with 3), so an
index means the same action everywhere. :meth:`HaggisEnv.flat_actions` gives the flat
indices of the legal actions in either representation.

Observations are dicts: ``"observation"``, the float32 vector of
:mod:`haggis_sim.env.encode` (the agent's information set only), and ``"action_mask"``,
int8 over the action space (1 exactly at the legal actions of the agent to act; all zero
for the others). ``infos[agent]["legal_actions"]`` holds the same legal actions as an
ascending array, for agents that would rather not scan the mask.

Rewards (``reward=``): ``"game"`` (default) gives nothing until the game ends, then the
winner +1 and every other seat -1/(players-1) (zero-sum); ``"round"`` gives every seat its
points at the end of each round, so an episode's return is the seat's final game score.

An illegal action raises :class:`haggis_sim.IllegalAction` and changes nothing (the
project's rule for every API; PettingZoo's TerminateIllegalWrapper is not applied).
"""

from __future__ import annotations

from typing import Any, Literal, TypeGuard

import numpy as np

from .. import kernel as K
from ..errors import IllegalAction, InputError
from ..kernel import layout as L
from ..position import Observation, game_seed
from ..rules import Rules
from . import actions as A
from . import encode as E
from . import legal as LG
from ._deps import gymnasium, pettingzoo

Reward = Literal["game", "round"]
REWARDS: tuple[Reward, ...] = ("game", "round")
Actions = Literal["legal", "flat"]
ACTIONS: tuple[Actions, ...] = ("legal", "flat")


class EnvStateError(InputError):
    """A call the environment's state does not allow now: before the first ``reset``, or
    a ``step`` after every agent has taken its last one."""


def make_rules(rules: Rules | None, preset: str, players: int, flags: dict[str, Any]) -> Rules:
    """The rules of an environment: ``rules`` as given, or a preset with flags."""
    if rules is not None:
        if not isinstance(rules, Rules):
            raise InputError(f"rules must be a haggis_sim.Rules, got {type(rules).__name__}")
        if flags:
            raise InputError("give either rules= or a preset with rule flags, not both")
        return rules
    return Rules.preset(preset, players=players, **flags)


def is_integer(value: object) -> TypeGuard[int | np.integer[Any]]:
    """Whether ``value`` is an integer, a numpy one included (not a bool): what an action
    index must be."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_int(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool) in ``[low, high)``."""
    return is_integer(value) and low <= int(value) < high


# pettingzoo ships no type information (no py.typed), so to mypy AECEnv is Any
class HaggisEnv(pettingzoo.AECEnv):  # type: ignore[misc]
    """A game of Haggis for 2 or 3 agents; see the module doc for spaces and rewards.

    >>> from haggis_sim.env import raw_env
    >>> env = raw_env(preset="revised", players=2)
    >>> env.reset(seed=7)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> obs["observation"].shape, int(obs["action_mask"].sum()) == len(info["legal_actions"])
    ((431,), True)
    >>> env.describe(0), env.legal_action_ids()[0].tolist()
    ('bet 15', [2, 0, 0, 0, 0])
    """

    metadata: dict[str, Any] = {
        "name": "haggis_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        preset: str = "revised",
        players: int = 2,
        reward: Reward = "game",
        rules: Rules | None = None,
        render_mode: str | None = None,
        actions: Actions = "legal",
        **flags: Any,
    ) -> None:
        super().__init__()
        self.rules = make_rules(rules, preset, players, flags)
        if reward not in REWARDS:
            raise InputError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if actions not in ACTIONS:
            raise InputError(f"actions must be one of {', '.join(ACTIONS)}, got {actions!r}")
        self.actions: Actions = actions
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InputError(
                f"render_mode must be one of {', '.join(self.metadata['render_modes'])} "
                f"or None, got {render_mode!r}"
            )
        self.reward_kind: Reward = reward
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self.n_actions = LG.MAX_LEGAL if actions == "legal" else A.n_actions(n)
        _, self._sorted_codes, self._sorted_index = A.table()
        low, high = E.bounds()
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (self.n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(self.n_actions) for a in self.possible_agents
        }
        self._rules_arr = self.rules.to_array()
        self._codes = np.empty(L.MAX_MOVES, dtype=np.int64)
        self._index_buf = np.empty(L.MAX_MOVES, dtype=np.int64)
        self._slot_codes = np.empty(L.MAX_MOVES, dtype=np.int64)
        self._legal = np.empty(0, dtype=np.int64)  # the legal actions (slots or flat indices)
        self._flat = np.empty(0, dtype=np.int64)  # their flat indices, ascending
        self._flat_list: list[int] = []  # the same as a list
        self._legal_codes: list[int] = []  # and their packed moves
        self._st: np.ndarray = K.init_state(self._rules_arr)
        self.seed_value = 0
        self.game_id = -1
        self.agents: list[str] = []

    # --- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    # --- the game ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: game ``options["game_id"]`` of run seed ``seed``.

        Without a seed the last one is kept (0 at first); without a game id the next
        game of that seed is dealt (0 after a new seed), so successive resets walk the
        games of a run as the runner numbers them.
        """
        if options is not None and not isinstance(options, dict):
            raise InputError(f"options must be a dict (or None), got {type(options).__name__}")
        game_id = None if options is None else options.get("game_id")
        # all checked before anything changes: a refused reset leaves the game as it was
        if seed is not None and not _is_int(seed, -(2**63), 2**63):
            raise InputError(f"seed must be a 64-bit integer, got {seed!r}")
        if game_id is not None and not _is_int(game_id, 0, 2**63):
            raise InputError(f"game_id must be a non-negative 64-bit integer, got {game_id!r}")
        if game_id is None and seed is None and self.game_id + 1 >= 2**63:
            raise InputError(
                f"game {self.game_id} is the last game id of a seed: give options="
                '{"game_id": ...} or a new seed'
            )
        if seed is not None:
            self.seed_value = int(seed)
            self.game_id = -1
        self.game_id = self.game_id + 1 if game_id is None else int(game_id)
        self._st = K.init_state(self._rules_arr)
        K.start_game(self._st, np.int64(game_seed(self.seed_value, self.game_id)))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        """Make the seat to act the selected agent and list its legal actions."""
        seat = int(self._st[L.S_TO_ACT])
        self.agent_selection = self.possible_agents[seat]
        idx, codes = self._index_buf, self._slot_codes
        n = A.legal_slots(self._st, self._codes, self._sorted_codes, self._sorted_index, idx, codes)
        if n < 0:
            code = int(self._codes[-1 - n])
            raise A.ActionTableError(f"legal action {code:#x} has no index in the action table")
        self._flat = idx[:n].copy()
        self._flat_list = self._flat.tolist()
        self._legal_codes = codes[:n].tolist()
        self._legal = np.arange(n, dtype=np.int64) if self.actions == "legal" else self._flat
        self.infos[self.agent_selection] = {"legal_actions": self._legal}

    def _dealt(self, what: str) -> None:
        """EnvStateError unless a game has been dealt (``reset``)."""
        if not hasattr(self, "agent_selection"):
            raise EnvStateError(f"{what} before reset(): call reset() to deal a game")

    def _known(self, agent: str) -> int:
        """The seat of ``agent``; InputError for a name that is no agent of this game."""
        if agent not in self.agent_name_mapping:
            raise InputError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return self.agent_name_mapping[agent]

    def step(self, action: int | None) -> None:
        self._dealt("step()")
        if not self.agents:
            raise EnvStateError(
                "the game is over and every agent has taken its last step: reset() deals a new one"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalAction(
                    f"{agent}: the game is over; its last step takes the action None"
                )
            self._was_dead_step(action)
            return
        code = self._code_of(agent, action)
        K.apply_action(self._st, np.int64(code))
        self.infos[agent] = {}
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if self._st[L.S_PHASE] == L.PH_ROUND_OVER:
            if self.reward_kind == "round":
                for s, a in enumerate(self.agents):
                    self.rewards[a] = float(self._st[L.S_SC_TOTAL + s])
            if K.next_round(self._st):
                self._game_over()
                return
        self._accumulate_rewards()
        self._select()

    def _is_legal(self, action: object) -> bool:
        """Whether ``action`` is one of the selected agent's legal actions now."""
        if not is_integer(action):
            return False
        if self.actions == "legal":
            return bool(0 <= action < len(self._legal_codes))
        return action in self._flat_list

    def _code_of(self, agent: str, action: object) -> int:
        """The packed move of the selected ``agent``'s legal ``action``; IllegalAction,
        saying why, for anything else."""
        if not is_integer(action):
            raise IllegalAction(f"{agent}: not an action index: {action!r}")
        if not self._is_legal(action):
            if not 0 <= action < self.n_actions:
                raise IllegalAction(
                    f"{agent}: action {action} is outside the action space 0..{self.n_actions - 1}"
                )
            if self.actions == "legal":
                raise IllegalAction(
                    f"{agent}: slot {action} is not legal now; its legal actions are the "
                    f"slots 0..{len(self._legal_codes) - 1}"
                )
            raise IllegalAction(
                f"{agent} cannot {A.describe_action(int(action), self.rules.players)} now"
            )
        if self.actions == "legal":
            return self._legal_codes[int(action)]
        return self._legal_codes[self._flat_list.index(int(action))]

    def _game_over(self) -> None:
        n = self.rules.players
        winner = int(self._st[L.S_WINNER])
        if self.reward_kind == "game":
            for s, a in enumerate(self.agents):
                self.rewards[a] = 1.0 if s == winner else -1.0 / (n - 1)
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {}
        self._legal = np.empty(0, dtype=np.int64)
        self._flat = np.empty(0, dtype=np.int64)
        self._flat_list = []
        self._legal_codes = []
        self._accumulate_rewards()
        # the game's last actor is still selected: every agent then takes its dead step

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward, termination, truncation and info (as
        PettingZoo's ``last``); EnvStateError before ``reset`` and once every agent has
        taken its last step."""
        self._dealt("last()")
        if not self.agents:
            raise EnvStateError(
                "the game is over and every agent has taken its last step: reset() deals a new one"
            )
        result: tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]
        result = super().last(observe)
        return result

    # --- what agents see ---------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._dealt("observe()")
        seat = self._known(agent)
        vec = np.zeros(E.SIZE, dtype=np.float32)
        E.encode_state(self._st, seat, vec)
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask[self._legal] = 1  # slots 0..n-1, or the flat indices
        return {"observation": vec, "action_mask": mask}

    def observation_of(self, agent: str) -> Observation:
        """The agent's full information set as a :class:`haggis_sim.Observation`."""
        self._dealt("observation_of()")
        seat = self._known(agent)
        return Observation.from_array(K.observe(self._st, seat), seat)

    def legal_actions(self) -> np.ndarray:
        """The legal actions of the selected agent, ascending (a copy; empty once over):
        slots ``0 .. n-1`` with ``actions="legal"``, flat indices with ``"flat"``."""
        return self._legal.copy()

    def flat_actions(self) -> np.ndarray:
        """The flat-table indices (:mod:`haggis_sim.env.actions`) of the selected agent's
        legal actions, in the order of :meth:`legal_actions` (a copy)."""
        return self._flat.copy()

    def legal_action_ids(self) -> np.ndarray:
        """The abstract ids of the selected agent's legal actions, one row per action in
        the order of :meth:`legal_actions` (:data:`haggis_sim.env.legal.ID_FIELDS`)."""
        self._dealt("legal_action_ids()")
        seat = int(self._st[L.S_TO_ACT])
        codes = np.array(self._legal_codes, dtype=np.int64)
        return LG.action_ids(codes, seat, self.rules.players, self.rules.bet_points)

    def legal_action_features(self) -> np.ndarray:
        """The float32 feature rows of the selected agent's legal actions, in the order of
        :meth:`legal_actions` (:func:`haggis_sim.env.legal.feature_fields`), computed from
        that agent's information set only."""
        self._dealt("legal_action_features()")
        seat = int(self._st[L.S_TO_ACT])
        codes = np.array(self._legal_codes, dtype=np.int64)
        return LG.action_features(K.observe(self._st, seat), codes, seat, self.rules.players)

    def describe(self, action: int) -> str:
        """A person's name for ``action`` in this environment's representation (a slot
        names the selected agent's legal action in it now): ``'pass'``, ``'bet 15'``,
        ``'play 3a 4a 5a (run to 5)'``; a bet by its published points (``'bet 15'``: the
        Little bet, whatever the rules' ``bet_points``)."""
        if self.actions == "flat":
            return A.describe_action(int(action), self.rules.players)
        if not self._is_legal(action):
            raise IllegalAction(f"slot {action!r} is not a legal action now")
        return A.describe_action(self._flat_list[int(action)], self.rules.players)

    def action_code(self, action: int, agent: str | None = None) -> int:
        """The engine's packed action of ``action`` for ``agent`` (default: selected); a
        slot names one of the selected agent's legal actions now, and a bet's code carries
        its points under the rules (``bet_points``)."""
        if self.actions == "legal":
            return self._code_of(agent or self.agent_selection, action)
        seat = self.agent_name_mapping[agent or self.agent_selection]
        return A.action_code(int(action), seat, self.rules.players, self.rules.bet_points)

    def action_index(self, code: int, agent: str | None = None) -> int:
        """The action of the engine's packed action ``code`` for ``agent`` (default:
        selected): its flat index (ActionTableError for a code that is no action), or
        with ``actions="legal"`` its slot among the selected agent's legal actions now
        (IllegalAction when it is not legal now)."""
        if self.actions == "legal":
            if int(code) not in self._legal_codes:
                raise IllegalAction(f"packed action {int(code):#x} is not a legal action now")
            return self._legal_codes.index(int(code))
        seat = self.agent_name_mapping[agent or self.agent_selection]
        return A.action_index(int(code), seat, self.rules.players, self.rules.bet_points)

    @property
    def state_array(self) -> np.ndarray:
        """A copy of the engine state (full information: for tests and tools, not agents)."""
        return self._st.copy()

    # --- showing it --------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        st = self._st
        n = self.rules.players
        phase = L.PHASES[int(st[L.S_PHASE])]
        lines = [
            f"{self.rules.label} game {self.game_id} of seed {self.seed_value}, "
            f"round {int(st[L.S_ROUND_NO]) + 1}, {phase}"
        ]
        top = int(st[L.S_TOP])
        if top:
            from ..combos import Combo

            lines.append(f"top: {Combo(top)} by player_{int(st[L.S_TOP_SEAT])}")
        for s in range(n):
            size = int(st[L.S_HAND + s]).bit_count()
            mark = "*" if s == int(st[L.S_TO_ACT]) and phase != "game_over" else " "
            lines.append(f"{mark} player_{s}: {size} cards, score {int(st[L.S_SCORE + s])}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release (the engine state is a numpy array)."""


def raw_env(**kwargs: Any) -> HaggisEnv:
    """The environment without PettingZoo's wrappers (fastest); arguments as :class:`HaggisEnv`."""
    return HaggisEnv(**kwargs)


class _OrderEnforcing(pettingzoo.utils.wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper, with the environment's own errors: a step,
    an observation or ``last`` before ``reset``, or a step once every agent has taken its
    last step, is an :class:`EnvStateError` (the wrapper would raise AssertionError, or
    only warn and do nothing)."""

    def step(self, action: int | None) -> None:
        if not self._has_reset or not self.env.agents:
            self.env.unwrapped.step(action)  # raises EnvStateError, changes nothing
        super().step(action)

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        if not self._has_reset:
            self.env.unwrapped.observe(agent)  # raises EnvStateError
        result: dict[str, np.ndarray] | None = super().observe(agent)
        return result

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        result: tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]
        result = self.env.unwrapped.last(observe)
        return result


def env(**kwargs: Any) -> Any:
    """The environment in PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return _OrderEnforcing(HaggisEnv(**kwargs))
