"""What an ISMCTS iteration samples and what it scores (compiled): determinizations of
the searcher's information set, rollouts to the end of the round, the reward of a
finished round (a seat's estimated chance of winning the game or its squashed round
margin), or, with ``value=net``, the learned estimate of that reward at the leaf
(:func:`strategies.value_features.leaf_values`; see :mod:`strategies.ismcts` for how
the search uses them).
"""

from __future__ import annotations

import math

import numpy as np

from haggis_sim import kernel as K
from haggis_sim.kernel import njit

from .simple_kernels import MCTS_ROLLOUTS, MCTS_VALUES, greedy_rollout_act, seen_cards
from .value_features import leaf_values

ROLLOUT_RANDOM = MCTS_ROLLOUTS.index("random")
ROLLOUT_GREEDY = MCTS_ROLLOUTS.index("greedy")
VALUE_GAME = MCTS_VALUES.index("game")
VALUE_ROUND = MCTS_VALUES.index("round")
VALUE_NET = MCTS_VALUES.index("net")
# The game-value model (game_values): one round moves the score of the round's top scorer
# by ROUND_TOP points on average, and two seats' totals apart with a standard deviation of
# ROUND_SPREAD x ROUND_TOP. Measured from 4,000 heuristic self-play games per
# preset (rounds table: mean of the highest round total; stddev of total_0 - total_1):
# 2 players, top 39.5-51.9 points, spread 0.87-0.89 x top (mcts vs heuristic: 51.0, 0.93);
# 3 players, top 54.5-60.6, spread 0.65-0.69 x top. The value depends on them only through
# a square root, so one pair per player count serves every preset.
ROUND_TOP = (0.0, 0.0, 45.0, 57.0)  # by player count
ROUND_SPREAD = (0.0, 0.0, 0.9, 0.67)


@njit(cache=True)
def determinize(obs, seat, rng):
    """A full state consistent with ``seat``'s observation, hidden cards dealt at random."""
    st = obs.copy()
    determinize_into(obs, seat, rng, st, np.empty(45, dtype=np.int64))
    return st


@njit(cache=True)
def determinize_into(obs, seat, rng, st, unseen):
    """:func:`determinize` into preallocated ``st`` (obs-sized) and ``unseen`` (45 slots)."""
    st[:] = obs
    n = obs[K.S_NP]
    nsuits = obs[K.S_NSUITS]
    seen = seen_cards(obs, seat)
    k = 0
    for r in range(9):
        for su in range(nsuits):
            bit = r * 5 + su
            if not (seen >> bit) & 1:
                unseen[k] = bit
                k += 1
    for i in range(k - 1, 0, -1):
        j = K.below(rng, i + 1)
        t = unseen[i]
        unseen[i] = unseen[j]
        unseen[j] = t
    pos = 0
    for o in range(n):
        if o == seat:
            continue
        faces = obs[K.S_HAND + o] & ~K.SUIT_ALL
        need = obs[K.S_SIZE + o] - K.popcount(faces)
        h = faces
        for _ in range(need):
            h |= np.int64(1) << unseen[pos]
            pos += 1
        st[K.S_HAND + o] = h
    hag = np.int64(0)
    for i in range(pos, k):
        hag |= np.int64(1) << unseen[i]
    st[K.S_HAGGIS] = hag


@njit(cache=True)
def _phi(x):
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@njit(cache=True)
def game_values(st, out):
    """Each seat's estimated chance of winning the game, from the totals after this round.

    ``st`` is a finished round of a whole game. If the game ends with this round (the
    target reached, or the last of a fixed number of rounds) the unique leader gets 1;
    leaders tied on the highest total play on and share 1 equally. Otherwise the rest of
    the game is a random walk: each remaining round moves two seats' totals apart with
    standard deviation ``sigma = ROUND_SPREAD x ROUND_TOP``, and about
    ``R = (target - highest total) / ROUND_TOP`` rounds remain (at least 1; with a
    fixed number of rounds, exactly the rounds left). Seat s beats seat o with chance
    ``Phi((T_s - T_o) / (sigma sqrt(R)))``; with 3 players the product over both
    opponents, normalised over the seats to sum to 1. Close to the end a lead is worth
    almost a win and a deficit needs a big round; early on the value is close to the
    squashed round margin.
    """
    n = st[K.S_NP]
    tot = np.zeros(3, dtype=np.float64)
    hi = -1e18
    for s in range(n):
        tot[s] = st[K.S_SCORE + s] + st[K.S_SC_TOTAL + s]
        hi = max(hi, tot[s])
    end_value = st[K.R_BASE + K.R_END_VALUE]
    top = ROUND_TOP[n]
    if st[K.R_BASE + K.R_GAME_END] == K.GE_ROUNDS:
        rounds_left = end_value - (st[K.S_ROUND_NO] + 1)
        over = rounds_left <= 0
    else:
        rounds_left = (end_value - hi) / top
        over = hi >= end_value
    if over:
        n_hi = 0
        for s in range(n):
            if tot[s] == hi:
                n_hi += 1
        for s in range(n):
            out[s] = 1.0 / n_hi if tot[s] == hi else 0.0
        return
    scale = ROUND_SPREAD[n] * top * np.sqrt(max(1.0, rounds_left))
    total = 0.0
    for s in range(n):
        p = 1.0
        for o in range(n):
            if o != s:
                p *= _phi((tot[s] - tot[o]) / scale)
        out[s] = p
        total += p
    for s in range(n):
        out[s] /= total


@njit(cache=True)
def round_values(st, value, out):
    """Each seat's reward in [0, 1] for the finished round ``st``.

    ``value`` is VALUE_GAME (:func:`game_values`; a round that is not part of a game,
    such as a lone ``hs.Round``, falls back to the round margin) or VALUE_ROUND: the
    seat's round score margin over the best other seat, ``0.5 + 0.5 tanh(margin / 60)``.
    """
    if value == VALUE_GAME and st[K.S_GAME] == 1:
        game_values(st, out)
        return
    n = st[K.S_NP]
    for s in range(n):
        best_other = -1_000_000
        for o in range(n):
            if o != s:
                best_other = max(best_other, st[K.S_SC_TOTAL + o])
        margin = st[K.S_SC_TOTAL + s] - best_other
        out[s] = 0.5 + 0.5 * np.tanh(margin / 60.0)


@njit(cache=True)
def rollout_reward(st, rng, buf, policy, value, rewards, no_params, vparams, x, mix, horizon):
    """Each seat's reward, into ``rewards``, for the search leaf ``st`` (changed).

    ``value=net``: the learned leaf value of the unfinished round
    (:func:`~strategies.value_features.leaf_values` with the value model's array
    ``vparams``, ``x`` its :func:`~strategies.value_features.value_scratch` buffer),
    weighted ``mix`` against a rollout scored as ``game`` (weight 1 - ``mix``; none is
    played when ``mix`` is 1); a finished round is scored as ``game``. With ``horizon``
    above 0 that rollout stops after ``horizon`` moves, and a round still unfinished
    there is valued by the value model at the position reached (a truncated rollout).
    Otherwise the round is played out by the rollout ``policy`` and scored by
    :func:`round_values`.
    """
    net0 = net1 = net2 = 0.0
    if value == VALUE_NET:
        if st[K.S_PHASE] == K.PH_ROUND_OVER:
            round_values(st, VALUE_GAME, rewards)
            return
        leaf_values(st, vparams, x, rewards)
        if mix >= 1.0:
            return
        net0, net1, net2 = rewards[0], rewards[1], rewards[2]
    limit = horizon if value == VALUE_NET and horizon > 0 else -1  # -1: no cut
    steps = 0
    while st[K.S_PHASE] != K.PH_ROUND_OVER:
        if steps == limit:
            break
        steps += 1
        if policy == ROLLOUT_GREEDY:
            a = greedy_rollout_act(st, no_params, rng, buf)
        else:
            k = K.legal_actions(st, buf, False)
            a = buf[K.below(rng, k)]
        K.apply_action(st, a)
    if value != VALUE_NET:
        round_values(st, value, rewards)
        return
    if st[K.S_PHASE] == K.PH_ROUND_OVER:
        round_values(st, VALUE_GAME, rewards)
    else:
        leaf_values(st, vparams, x, rewards)
    rest = 1.0 - mix
    rewards[0] = mix * net0 + rest * rewards[0]
    rewards[1] = mix * net1 + rest * rewards[1]
    rewards[2] = mix * net2 + rest * rewards[2]
