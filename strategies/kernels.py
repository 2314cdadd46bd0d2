"""Compiled decision kernels of the built-in strategies, dispatched by integer id.

Each kernel reads only the observation array it is given (``haggis_sim.kernel.observe``
output), its float64 parameters and its own splitmix64 stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from haggis_sim import kernel as K

RANDOM_ID = 0
GREEDY_ID = 1


@njit(cache=True)
def _give_to_lowest_score(obs):
    """Give to the opponent with the fewest game points (first clockwise on ties)."""
    n = obs[K.S_NP]
    me = obs[K.S_TO_ACT]
    best = -1
    for i in range(1, n):
        s = (me + i) % n
        if best < 0 or obs[K.S_SCORE + s] < obs[K.S_SCORE + best]:
            best = s
    return (np.int64(K.T_GIVE) << K.TYPE_SHIFT) | best


@njit(cache=True)
def random_act(obs, params, rng, buf):
    """Uniform over legal actions; when it may bet, it bets with probability params[0]."""
    seat = obs[K.S_TO_ACT]
    if obs[K.S_PHASE] == K.PH_PLAY and params[0] > 0.0 and K.can_bet(obs, seat):
        if K.uniform(rng) < params[0]:
            mask = obs[K.R_BASE + K.R_BET_MASK]
            vals = np.empty(3, dtype=np.int64)
            k = 0
            for i in range(3):
                if (mask >> i) & 1:
                    vals[k] = K.BET_VALUES[i]
                    k += 1
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | vals[K.below(rng, k)]
    n = K.legal_actions(obs, buf, False)
    return buf[K.below(rng, n)]


@njit(cache=True)
def greedy_act(obs, params, rng, buf):
    """The cheapest play that beats; leads its weakest combination; never bets.

    Cheapest: no bomb before any non-bomb, then fewest face cards (wilds kept), then
    lowest rank; leading also prefers more cards at equal rank. Passes when nothing
    beats. Gives bombed tricks and the Haggis to the opponent with the fewest points.
    """
    ph = obs[K.S_PHASE]
    if ph == K.PH_GIVE_TRICK or ph == K.PH_GIVE_HAGGIS:
        return _give_to_lowest_score(obs)
    n = K.legal_actions(obs, buf, False)
    leading = obs[K.S_TOP] == 0
    best = np.int64(0)
    best_key = np.int64(1) << 62
    for i in range(n):
        m = buf[i]
        if m == 0:
            continue
        bomb = 1 if K.move_type(m) == K.T_BOMB else 0
        faces = K.popcount((m >> K.FACE_SHIFT) & 7)
        key = bomb * 1_000_000 + faces * 10_000 + K.move_rank(m) * 100
        if leading:
            key += 50 - K.popcount(m & K.CARDS_MASK)
        if key < best_key:
            best_key = key
            best = m
    return best


@njit(cache=True)
def act(sid: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray) -> int:
    """Dispatch to the kernel of strategy ``sid``."""
    if sid == RANDOM_ID:
        return random_act(obs, params, rng, buf)
    return greedy_act(obs, params, rng, buf)
