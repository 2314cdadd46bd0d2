"""The vector environment's compiled step: many games of one learning seat against
compiled opponents, advanced together in one call.

Each game ``i`` of the batch holds its engine state ``states[i]``, the packed legal
actions of the learning seat in slot order (``codes[i, :n_legal[i]]``, ascending flat
index as in :mod:`haggis_sim.env.legal`) and its observation vector ``obs[i]``
(:mod:`haggis_sim.env.encode`). A step plays each game's chosen slot, then the
opponents (the runner's compiled kernels, their streams seeded from (run seed, game id,
seat) as the runner seeds them) until the learning seat is to act again; a game that
ends is dealt again at once as the next game id of its lane (``lane + k * games``), so
the observation returned is the new game's first (Gymnasium's same-step autoreset) and
the ended game's last vector goes to ``final_obs``.
"""

from __future__ import annotations

import numpy as np

from strategies.kernels import act_tagged

from .. import kernel as K
from .._cache import njit
from ..kernel import layout as L
from ..runner.seating import strategy_seed
from . import actions as A
from . import encode as E

#: what a step says of a game: it goes on, it ended, or its action was not a legal slot
GOING, ENDED, ILLEGAL = 0, 1, 2


@njit(cache=True)
def _advance(st, agent, sids, params, rngs, tag, buf, reward_round, reward):
    """Play the opponents until ``agent`` is to act or the game is over (True); add the
    agent's round points to ``reward[0]`` at each round's end when ``reward_round``."""
    while True:
        while st[L.S_PHASE] == L.PH_ROUND_OVER:
            if reward_round:
                reward[0] += st[L.S_SC_TOTAL + agent]
            if K.next_round(st):
                return True
        seat = st[L.S_TO_ACT]
        if seat == agent:
            return False
        obs = K.observe(st, seat)
        a = act_tagged(tag, sids[seat], obs, params[seat], rngs[seat], buf)
        K.apply_action(st, a)


@njit(cache=True)
def _list(st, codes_row, mask_row, old, buf, idx, sorted_codes, sorted_index):
    """The learning seat's legal actions in ascending flat index into ``codes_row``, and
    its mask row (``old`` slots were legal before); the count, or a negative number when
    one has no index (an engine fault)."""
    n = A.legal_slots(st, buf, sorted_codes, sorted_index, idx, codes_row)
    if n < 0:
        return n
    for k in range(n, old):
        mask_row[k] = 0
    for k in range(old, n):
        mask_row[k] = 1
    return n


@njit(cache=True)
def _deal(st, rules, run_seed, gid, agent, sids, params, rngs, tag, buf, reward_round, reward):
    """Deal game ``gid`` on ``st`` (its streams seeded as the runner's) and play the
    opponents up to the agent's first decision (a game never ends before it)."""
    st[:] = K.init_state(rules)
    K.start_game(st, K.derive(np.int64(run_seed), np.int64(gid)))
    for s in range(rules[L.R_PLAYERS]):
        rngs[s, 0] = K.new_stream(strategy_seed(run_seed, gid, s))[0]
    return _advance(st, agent, sids, params, rngs, tag, buf, reward_round, reward)


@njit(cache=True)
def _observe(st, agent, row):
    row[:] = 0.0
    E.encode_state(st, agent, row)


@njit(cache=True)
def reset_batch(states, rules, run_seed, game_ids, agent, sids, params, rngs, tag, codes,
                n_legal, obs, mask, sorted_codes, sorted_index):  # fmt: skip
    """Deal game ``game_ids[i]`` in every lane ``i``, up to the agent's first decision.
    Returns 0, or -1 - i when lane ``i`` lists a legal action without an index."""
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    idx = np.empty(L.MAX_MOVES, dtype=np.int64)
    reward = np.zeros(1)
    for i in range(states.shape[0]):
        _deal(states[i], rules, run_seed, game_ids[i], agent, sids, params, rngs[i], tag, buf,
              False, reward)  # fmt: skip
        n = _list(states[i], codes[i], mask[i], n_legal[i], buf, idx, sorted_codes, sorted_index)
        if n < 0:
            return -1 - i
        n_legal[i] = n
        _observe(states[i], agent, obs[i])
    return 0


@njit(cache=True)
def step_batch(states, rules, run_seed, game_ids, lanes, agent, sids, params, rngs, tag,
               codes, n_legal, actions, reward_round, illegal_reward, obs, mask, final_obs,
               rewards, status, scores, winners, sorted_codes, sorted_index):  # fmt: skip
    """Play ``actions[i]`` (a slot) in every lane, then the opponents, and deal the lane's
    next game where one ends. ``status[i]`` says how: GOING; ENDED (``final_obs[i]``,
    ``scores[i]`` and ``winners[i]`` hold the ended game's last view and result); or
    ILLEGAL (the action was no legal slot: nothing played, the episode ends with
    ``illegal_reward``, its last view in ``final_obs[i]``, no result). Returns 0, or
    -1 - i when lane ``i`` lists a legal action without an index."""
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    idx = np.empty(L.MAX_MOVES, dtype=np.int64)
    reward = np.zeros(1)
    players = rules[L.R_PLAYERS]
    for i in range(states.shape[0]):
        st = states[i]
        a = actions[i]
        reward[0] = 0.0
        if a < 0 or a >= n_legal[i]:
            status[i] = ILLEGAL
            reward[0] = illegal_reward
            final_obs[i, :] = obs[i, :]
            over = True
        else:
            K.apply_action(st, codes[i, a])
            over = _advance(st, agent, sids, params, rngs[i], tag, buf, reward_round, reward)
            status[i] = ENDED if over else GOING
            if over:
                winner = st[L.S_WINNER]
                winners[i] = winner
                for s in range(players):
                    scores[i, s] = st[L.S_SCORE + s]
                if not reward_round:
                    reward[0] = 1.0 if winner == agent else -1.0 / (players - 1)
                _observe(st, agent, final_obs[i])
        rewards[i] = reward[0]
        if over:
            game_ids[i] += lanes
            _deal(st, rules, run_seed, game_ids[i], agent, sids, params, rngs[i], tag, buf,
                  False, np.zeros(1))  # fmt: skip
        n = _list(st, codes[i], mask[i], n_legal[i], buf, idx, sorted_codes, sorted_index)
        if n < 0:
            return -1 - i
        n_legal[i] = n
        _observe(st, agent, obs[i])
    return 0
