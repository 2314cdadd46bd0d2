"""The built-in strategies (each also runs wholly in compiled code)."""

from __future__ import annotations

from typing import Any

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K

from . import kernels
from .base import Param, Strategy


class CompiledStrategy(Strategy):
    """A strategy whose decisions are a compiled kernel (driven through :meth:`act_array`).

    A subclass that overrides :meth:`act` is played step by step through that method
    instead (see :func:`is_compiled`).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Reject a compiled strategy with no kernel and no ``act`` of its own."""
        super().__init_subclass__(**kwargs)
        if cls.compiled_id is None and cls.act is CompiledStrategy.act:
            raise TypeError(
                f"strategy class {cls.__qualname__} is a CompiledStrategy without a "
                "compiled_id: name one of the compiled kernels or override act()"
            )

    def act_array(self, obs: np.ndarray, rng_state: np.ndarray) -> int:
        """The kernel's action for an observation array and a splitmix64 stream."""
        if self.compiled_id is None:
            raise TypeError(f"{type(self).__qualname__} has no compiled kernel")
        buf = np.empty(K.MAX_MOVES, dtype=np.int64)
        return int(kernels.act(self.compiled_id, obs, self.param_array(), rng_state, buf))

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        raise TypeError(
            f"{self.name} is compiled: drive it with act_array and its splitmix64 stream"
        )


class RandomStrategy(CompiledStrategy):
    name = "random"
    description = "Uniformly random over legal plays, passes and gives; bets at a set rate."
    params = (Param("bet", float, 0.1, "chance of betting at each chance to bet", 0.0, 1.0),)
    compiled_id = kernels.RANDOM_ID


class GreedyStrategy(CompiledStrategy):
    name = "greedy"
    description = (
        "Cheapest play that beats (no bombs or wilds while anything else beats, lowest rank); "
        "leads its weakest combination; never bets."
    )
    params = ()
    compiled_id = kernels.GREEDY_ID


class HeuristicStrategy(CompiledStrategy):
    name = "heuristic"
    description = (
        "Sheds cheaply (low ranks, many cards per lead, wilds spent as 'wild' allows), bets "
        "when its hand-strength estimate passes a threshold, bombs early, late or never."
    )
    params = (
        Param("bet", float, 0.55, "hand strength at which it makes a Little bet (15)", 0.0, 1.01),
        Param("big", float, 0.6, "hand strength at which it makes a Big bet (30)", 0.0, 1.01),
        Param("baby", float, 0.5, "hand strength for a Baby bet (5), where allowed", 0.0, 1.01),
        Param(
            "bomb",
            str,
            "late",
            "early: bomb whenever nothing else wins the trick; late: only when an opponent "
            "is close to going out or the trick is worth bomb_points; never",
            choices=("early", "late", "never"),
        ),
        Param("bomb_cards", int, 5, "late bombing: an opponent holds at most this many", 1, 17),
        Param("bomb_points", int, 5, "late bombing: the trick is worth at least this", 0, 200),
        Param("wild", float, 0.5, "readiness to spend J/Q/K as wild cards (1: freely)", 0.0, 1.0),
    )
    compiled_id = kernels.HEURISTIC_ID


class MctsStrategy(CompiledStrategy):
    name = "mcts"
    description = (
        "Information-set MCTS: a fresh deal of the unseen cards every iteration, UCB with "
        "availability counts, rollouts to the end of the round valued by the round's score "
        "margin (or the chance of winning the game); bets by scoring each bet option under "
        "the rules in force."
    )
    params = (
        Param(
            "iters",
            int,
            200,
            "search iterations per decision (fewer when the most visited action can no "
            "longer be overtaken; none when only one action is legal)",
            1,
            100_000,
        ),
        Param("c", float, 0.7, "UCB exploration constant", 0.0, 10.0),
        Param("rollout", str, "greedy", "rollout policy", choices=("random", "greedy")),
        Param(
            "ms",
            float,
            0.0,
            "time budget per decision in ms, stopping before iters when reached (0: none; "
            "a budget makes decisions depend on machine speed, so runs are not reproducible)",
            0.0,
            60_000.0,
        ),
        Param(
            "value",
            str,
            "round",
            "what a rollout is worth: round (the round's score margin, squashed) or game "
            "(the chance of winning the game from the totals after the round; no better "
            "head to head over 3,000 games)",
            choices=("game", "round"),
        ),
        Param(
            "bets",
            str,
            "search",
            "search: score not betting and each bet the rules allow (iters iterations "
            "shared), declare the best; never: do not bet",
            choices=("search", "never"),
        ),
    )
    compiled_id = kernels.MCTS_ID


def is_compiled(strategy: Strategy) -> bool:
    """Whether ``strategy`` runs in compiled code (a built-in whose ``act`` is not overridden)."""
    return isinstance(strategy, CompiledStrategy) and type(strategy).act is CompiledStrategy.act


BUILTIN: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (RandomStrategy, GreedyStrategy, HeuristicStrategy, MctsStrategy)
}
