"""Decision analysis: score every alternative of one decision from the actor's information set.

:func:`analyze` answers "what is each option worth here?" — bomb now or the best
non-bomb play, each bet value, every lead — for the seat to act, using only what that
seat sees (its :class:`~haggis_sim.Observation`: never other hands or the Haggis).

Method: ISMCTS with *forced root children*. Each alternative is its own root child, so
unlike a play-time search (progressive widening expands bombs last and may never visit
them) every alternative gets exactly ``samples`` iterations. Each iteration deals the
hidden cards afresh, consistent with the observation; the same deal is used for every
alternative (common random numbers, so differences between alternatives are measured on
the same deals), then one ISMCTS iteration runs below that alternative (UCB with
availability counts, progressive widening, rollouts to the end of the round, as in
:mod:`strategies.ismcts`), so later decisions of every seat improve as samples grow.

A sample's value is the acting seat's reward, as mcts's (``value="round"``, the default:
the round score margin over the best other seat squashed to [0, 1],
``0.5 + 0.5 tanh(margin / 60)``; ``value="game"``: its chance of winning the game from
the totals after the round, see :func:`strategies.ismcts.game_values`, which for a lone
round falls back to the margin); the raw round margin in points is reported too. Standard
errors treat the samples as independent (they are not quite: the subtree learns), so read
them as a guide. Results depend only
on the observation, the alternatives, the parameters and ``seed``.

>>> import haggis_sim as hs
>>> from strategies.analysis import analyze
>>> rnd = hs.Round(hs.Rules.preset("revised", players=2), hands=["Ta Tb", "5b 7c"], leader=1)
>>> _ = rnd.play(1, "5b")
>>> values = {str(a.action): a.value for a in analyze(rnd, samples=50)}
>>> min(values, key=values.get)  # passing lets seat 1 lead its last card and go out
'seat 0 passes'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.position import action_from_code

from . import ismcts

ROLLOUTS = {"random": ismcts.ROLLOUT_RANDOM, "greedy": ismcts.ROLLOUT_GREEDY}
VALUES = {"game": ismcts.VALUE_GAME, "round": ismcts.VALUE_ROUND}


@dataclass(frozen=True)
class Alternative:
    """The estimated worth of one action for the seat to act."""

    action: hs.Action
    value: float  # mean reward in [0, 1] (chance of winning the game, or squashed margin)
    stderr: float  # standard error of ``value``
    margin: float  # mean round score margin over the best other seat, in points
    margin_stderr: float
    samples: int


def _observation(position: hs.Round | hs.Game | hs.Observation) -> np.ndarray:
    """The acting seat's observation array; ValueError if nobody can act or it is not theirs."""
    if isinstance(position, hs.Observation):
        if position.to_act is None:
            raise ValueError("the observed round is over: there is no decision to analyze")
        if position.to_act != position.seat:
            raise ValueError(
                f"this observation is seat {position.seat}'s but seat {position.to_act} is to "
                "act: analyze the acting seat's observation"
            )
        return np.asarray(position.array, dtype=np.int64)
    if isinstance(position, hs.Round | hs.Game):
        if position.to_act is None:
            raise ValueError("the round is over: there is no decision to analyze")
        return position.observation(position.to_act).array
    raise TypeError(f"analyze needs a Round, Game or Observation, got {type(position).__name__}")


def analyze(
    position: hs.Round | hs.Game | hs.Observation,
    actions: Sequence[hs.Action | int] | None = None,
    *,
    samples: int = 200,
    c: float = 0.7,
    rollout: str = "greedy",
    value: str = "round",
    seed: int = 0,
) -> list[Alternative]:
    """Score each alternative of the decision at ``position`` for the seat to act.

    ``position`` is a :class:`~haggis_sim.Round` or :class:`~haggis_sim.Game` (only the
    acting seat's observation of it is used) or that seat's
    :class:`~haggis_sim.Observation`. ``actions`` restricts the alternatives (each must
    be legal); by default every legal action, bets included. Each alternative gets
    exactly ``samples`` search iterations. ``value`` is the reward, ``"game"`` or
    ``"round"`` (see the module docstring). Returns one :class:`Alternative` per action,
    in the order given (by default the engine's order of legal actions).
    """
    obs = _observation(position)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive whole number, got {samples!r}")
    if not (isinstance(c, int | float) and math.isfinite(c) and c >= 0):
        raise ValueError(f"c must be a finite number >= 0, got {c!r}")
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
    if value not in VALUES:
        raise ValueError(f"value must be one of {', '.join(VALUES)}, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63:
        raise ValueError(f"seed must be a 64-bit integer, got {seed!r}")
    seat = int(obs[K.S_TO_ACT])
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    legal = [int(x) for x in buf[: K.legal_actions(obs, buf, True)]]
    if actions is None:
        codes = legal
    else:
        codes = []
        for a in actions:
            code = a.code if isinstance(a, hs.Action) else a
            if isinstance(a, hs.Action) and a.seat != seat:
                raise ValueError(f"{a} is an action of seat {a.seat}; seat {seat} is to act")
            if not isinstance(code, int | np.integer) or int(code) not in legal:
                raise ValueError(f"{a!r} is not a legal action of seat {seat} here")
            codes.append(int(code))
        if not codes:
            raise ValueError("no actions to analyze")
    moves = np.array(codes, dtype=np.int64)
    sums = ismcts.analyze_alternatives(
        obs, moves, samples, np.int64(seed), float(c), ROLLOUTS[rollout], VALUES[value], buf
    )
    result = []
    for code, (s, s2, m, m2, count) in zip(codes, sums, strict=True):
        n = int(count)
        result.append(
            Alternative(
                action=action_from_code(seat, code),
                value=s / n,
                stderr=_stderr(s, s2, n),
                margin=m / n,
                margin_stderr=_stderr(m, m2, n),
                samples=n,
            )
        )
    return result


def _stderr(total: float, squares: float, n: int) -> float:
    """Standard error of a mean from a sum and a sum of squares (0 for one sample)."""
    if n < 2:
        return 0.0
    var = max(0.0, (squares - total * total / n) / (n - 1))
    return math.sqrt(var / n)
