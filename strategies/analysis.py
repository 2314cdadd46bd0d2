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

A sample's value is the acting seat's reward, as in mcts (``value="round"``, the default
of :func:`analyze` for a bare position: the round score margin over the best other seat
squashed to [0, 1], ``0.5 + 0.5 tanh(margin / 60)``; ``value="game"``, mcts's default and
the decision studies': its chance of winning the game from the totals after the round,
see :func:`strategies.ismcts.game_values`, which for a lone round falls back to the
margin); the raw round margin in points is reported too. Standard
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

:func:`root_visits` runs instead the play-time search of the rollout ``mcts``
(``strategies.builtin.ROLLOUT_MCTS``: PUCT at the root with the shipped gen2 model as
prior, :func:`strategies.ismcts.search_root`)
and returns each root move's visits and prior: which moves that search would consider,
for a study that must *choose* among many alternatives the way the strongest player does.

Each alternative also reports ``first_out``, the share of its samples in which the acting
seat went out first. :func:`compare` scores alternatives against a baseline on the same
deals and gives each difference an exact paired standard error; :data:`NO_BET`, "do not
bet now, play on", may be analyzed against the bets wherever the seat may bet.
"""

from __future__ import annotations

import functools
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
#: how a study chooses among many alternatives: "learned", the rollout mcts's PUCT root
#: search with the learned prior (:func:`root_visits`), or "none", equal samples for each
PRIORS = ("learned", "none")
#: The alternative "do not bet now": no action is applied and the seat's play below it is
#: searched (the search never bets deeper down). Legal wherever the seat may bet; its
#: :class:`~haggis_sim.Action` is a bet of value 0 with this code (see :func:`describe`).
NO_BET = int(ismcts.KEEP)


@dataclass(frozen=True)
class Alternative:
    """The estimated worth of one action for the seat to act."""

    action: hs.Action
    value: float  # mean reward in [0, 1] (chance of winning the game, or squashed margin)
    stderr: float  # standard error of ``value``
    margin: float  # mean round score margin over the best other seat, in points
    margin_stderr: float
    samples: int
    first_out: float  # share of samples in which the acting seat went out first
    first_out_stderr: float  # its binomial standard error, sqrt(p (1 - p) / samples)


@dataclass(frozen=True)
class Difference:
    """One alternative minus the baseline, measured on the same deals and streams.

    ``stderr`` and ``margin_stderr`` come from the per-deal differences, so they are the
    paired standard errors: far smaller than the two alternatives' own errors combined
    when common random numbers make the alternatives move together.
    """

    action: hs.Action
    baseline: hs.Action
    value: float  # mean reward of ``action`` minus the baseline's
    stderr: float
    margin: float  # mean round margin difference, in points
    margin_stderr: float
    samples: int


@dataclass(frozen=True)
class Comparison:
    """:func:`compare`'s answer: the baseline, each alternative, and their differences."""

    baseline: Alternative
    alternatives: tuple[Alternative, ...]
    differences: tuple[Difference, ...]  # one per alternative, in the same order


def describe(action: hs.Action) -> str:
    """``str(action)``, except that :data:`NO_BET` reads "seat N does not bet"."""
    return f"seat {action.seat} does not bet" if action.code == NO_BET else str(action)


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
    be legal, or :data:`NO_BET` where the seat may bet); by default every legal action,
    bets included. Each alternative gets exactly ``samples`` search iterations. ``value``
    is the reward, ``"game"`` or ``"round"`` (see the module docstring). Returns one
    :class:`Alternative` per action, in the order given (by default the engine's order of
    legal actions).
    """
    alternatives, _ = _run(position, actions, samples, c, rollout, value, seed)
    return alternatives


def compare(
    position: hs.Round | hs.Game | hs.Observation,
    baseline: hs.Action | int,
    actions: Sequence[hs.Action | int],
    *,
    samples: int = 200,
    c: float = 0.7,
    rollout: str = "greedy",
    value: str = "round",
    seed: int = 0,
) -> Comparison:
    """Score ``actions`` against ``baseline`` at ``position``, on the same deals.

    Why: a decision is about a difference ("bomb or the best other play?", "bet 15 or
    not?"), and under common random numbers a difference is measured far more precisely
    than either value; :class:`Difference` carries its exact paired standard error. The
    alternatives score exactly as :func:`analyze` scores them (same seed, same numbers).
    """
    if not actions:
        raise ValueError("no actions to compare with the baseline")
    alternatives, sums = _run(position, [baseline, *actions], samples, c, rollout, value, seed)
    base = alternatives[0]
    diffs = []
    for alt, row in zip(alternatives[1:], sums[1:], strict=True):
        n = alt.samples
        d = alt.value - base.value
        dm = alt.margin - base.margin
        diffs.append(
            Difference(
                action=alt.action,
                baseline=base.action,
                value=d,
                stderr=_stderr(d * n, float(row[6]), n),
                margin=dm,
                margin_stderr=_stderr(dm * n, float(row[7]), n),
                samples=n,
            )
        )
    return Comparison(base, tuple(alternatives[1:]), tuple(diffs))


def _run(
    position: hs.Round | hs.Game | hs.Observation,
    actions: Sequence[hs.Action | int] | None,
    samples: int,
    c: float,
    rollout: str,
    value: str,
    seed: int,
) -> tuple[list[Alternative], np.ndarray]:
    """Check the request, run the forced-root-children search; the alternatives and raw sums."""
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
    codes = _codes(obs, seat, actions, buf)
    moves = np.array(codes, dtype=np.int64)
    sums = ismcts.analyze_alternatives(
        obs,
        moves,
        samples,
        np.int64(seed),
        float(c),
        ROLLOUTS[rollout],
        VALUES[value],
        buf,
        np.zeros(0),
        1.0,
        np.int64(0),
    )
    result = []
    for code, row in zip(codes, sums, strict=True):
        s, s2, m, m2, count, outs = (float(x) for x in row[:6])
        n = int(count)
        p = outs / n
        result.append(
            Alternative(
                action=_action(seat, code),
                value=s / n,
                stderr=_stderr(s, s2, n),
                margin=m / n,
                margin_stderr=_stderr(m, m2, n),
                samples=n,
                first_out=p,
                first_out_stderr=math.sqrt(p * (1.0 - p) / n),
            )
        )
    return result, sums


def _codes(
    obs: np.ndarray, seat: int, actions: Sequence[hs.Action | int] | None, buf: np.ndarray
) -> list[int]:
    """The packed codes to analyze: every legal action, or ``actions`` checked one by one."""
    legal = [int(x) for x in buf[: K.legal_actions(obs, buf, True)]]
    if actions is None:
        return legal
    if K.can_bet(obs, seat):
        legal.append(NO_BET)
    codes = []
    for a in actions:
        code = a.code if isinstance(a, hs.Action) else a
        if isinstance(a, hs.Action) and a.seat != seat:
            raise ValueError(f"{a} is an action of seat {a.seat}; seat {seat} is to act")
        if not isinstance(code, int | np.integer) or int(code) not in legal:
            if isinstance(code, int | np.integer) and int(code) == NO_BET:
                raise ValueError(f"NO_BET: seat {seat} may not bet here")
            raise ValueError(f"{a!r} is not a legal action of seat {seat} here")
        codes.append(int(code))
    if not codes:
        raise ValueError("no actions to analyze")
    return codes


def _action(seat: int, code: int) -> hs.Action:
    """The Action of a packed code; :data:`NO_BET` is a bet of value 0."""
    if code == NO_BET:
        return hs.Action(seat, "bet", NO_BET, value=0)
    return action_from_code(seat, code)


def _stderr(total: float, squares: float, n: int) -> float:
    """Standard error of a mean from a sum and a sum of squares (0 for one sample)."""
    if n < 2:
        return 0.0
    var = max(0.0, (squares - total * total / n) / (n - 1))
    return math.sqrt(var / n)


@functools.cache
def _prior_params() -> np.ndarray:
    """The rollout mcts's parameter array (its named slots, then the prior model's
    weights), read once: the model file is loaded and checked the way ``mcts`` loads it.

    The search pinned is ``strategies.builtin.ROLLOUT_MCTS`` (gen2 as prior, leaves
    valued by rollouts), whose alternatives and figures
    the decision analyses published; the value-net default is not what they measure.
    """
    from .builtin import ROLLOUT_MCTS
    from .registry import make

    return make(ROLLOUT_MCTS).param_array()


def root_visits(
    position: hs.Round | hs.Game | hs.Observation,
    iters: int,
    *,
    c: float = 0.7,
    rollout: str = "greedy",
    value: str = "game",
    seed: int = 0,
) -> dict[int, tuple[float, float]]:
    """The rollout mcts's root search at ``position``: packed code -> (visits, prior).

    ``iters`` iterations of :func:`strategies.ismcts.search_root` with ``prior=learned``
    (PUCT over every legal play, the shipped model's softmax as prior; no early stop),
    from the acting seat's observation only. Every legal play (bets aside) is a key;
    a move the search never tried has 0 visits and keeps its prior, so callers can rank
    by (visits, prior) as the search itself would break the tie.
    """
    obs = _observation(position)
    if isinstance(iters, bool) or not isinstance(iters, int) or iters < 1:
        raise ValueError(f"iters must be a positive whole number, got {iters!r}")
    if rollout not in ROLLOUTS or value not in VALUES:
        raise ValueError(
            f"rollout must be one of {', '.join(ROLLOUTS)}, value of {', '.join(VALUES)}"
        )
    params = _prior_params().copy()
    params[ismcts.M_ITERS] = iters
    params[ismcts.M_C] = c
    params[ismcts.M_ROLLOUT] = ROLLOUTS[rollout]
    params[ismcts.M_VALUE] = VALUES[value]
    params[ismcts.M_MS] = 0.0
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    k = K.legal_actions(obs, buf, False)
    legal = buf[:k].copy()
    prior = ismcts.root_policy(obs, ismcts.prior_params(params), legal)
    out_moves, out_visits = ismcts.root_buffers(params)
    rng = K.new_stream(np.int64(seed))
    n = ismcts.search_root(obs, params, rng, buf, False, out_moves, out_visits)
    visits = {int(m): float(v) for m, v in zip(out_moves[:n], out_visits[:n], strict=True)}
    return {int(m): (visits.get(int(m), 0.0), float(p)) for m, p in zip(legal, prior, strict=True)}
