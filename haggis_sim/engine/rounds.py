"""Dealing and moving between rounds (compiled): a fresh state from the rules, a round's
deal from the game's seed, and the step from one finished round to the next.

Applying actions within a round is :mod:`haggis_sim.engine.state`'s; this module only
sets positions up, so it needs nothing from there.
"""

from __future__ import annotations

import numpy as np

from .._cache import njit
from . import layout as L
from .rng import below, derive, new_stream


@njit(cache=True, inline="always")
def face_bits(seat):
    """The bits of ``seat``'s three face cards (its J, Q, K) in a global hand mask."""
    return np.int64(7) << (L.FACE_SHIFT + 3 * seat)


@njit(cache=True)
def init_state(rules):
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    for i in range(rules.shape[0]):
        st[L.R_BASE + i] = rules[i]
    n = rules[L.R_PLAYERS]
    st[L.S_NP] = n
    st[L.S_NSUITS] = 4 if n == 2 else 5
    st[L.S_WINNER] = -1
    st[L.S_PREV_FIRST_LEADER] = -1
    return st


@njit(cache=True)
def start_round(st, hands, haggis, leader, dealer):
    """Start a round from given physical hands (global masks) and Haggis."""
    n = st[L.S_NP]
    for i in range(3):
        st[L.S_OUT + i] = -1
        st[L.S_HAND + i] = hands[i] if i < n else 0
        st[L.S_CAPT + i] = 0
        st[L.S_BET + i] = 0
        st[L.S_PLAYED + i] = 0
        st[L.S_GO + i] = 0
        st[L.S_SC_CARDS + i] = 0
        st[L.S_SC_BETS + i] = 0
        st[L.S_SC_BONUS + i] = 0
        st[L.S_SC_TOTAL + i] = 0
        st[L.S_LAST_NB + i] = 0
    st[L.S_HAGGIS] = haggis
    st[L.S_PHASE] = L.PH_PLAY
    st[L.S_TO_ACT] = leader
    st[L.S_LEADER] = leader
    st[L.S_FIRST_LEADER] = leader
    st[L.S_DEALER] = dealer
    st[L.S_TOP] = 0
    st[L.S_TOP_SEAT] = -1
    st[L.S_BEATEN_SEAT] = -1
    st[L.S_PASSES] = 0
    st[L.S_TRICK_NO] = 0
    st[L.S_TURN_NO] = 0
    st[L.S_TRICK_CARDS] = 0
    st[L.S_N_OUT] = 0
    st[L.S_PLAY_SEQ] = 0
    st[L.S_LAST_PLAYER] = -1
    st[L.S_LAST_RECEIVER] = -1
    st[L.S_CAPTURES] = 0
    st[L.S_BLACK_LEFT] = 0
    st[L.S_HAGGIS_TO_SEAT] = -1


@njit(cache=True)
def deal(st, round_no):
    """Deal a round from the game's seed: the hands (global masks) and the Haggis."""
    n = st[L.S_NP]
    nsuits = st[L.S_NSUITS]
    rng = new_stream(derive(st[L.S_SEED], round_no))
    deck = np.empty(45, dtype=np.int64)
    k = 0
    for r in range(9):
        for s in range(nsuits):
            deck[k] = r * 5 + s
            k += 1
    for i in range(k - 1, 0, -1):
        j = below(rng, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    hands = np.zeros(3, dtype=np.int64)
    for seat in range(n):
        h = face_bits(seat)
        for i in range(14):
            h |= np.int64(1) << deck[seat * 14 + i]
        hands[seat] = h
    haggis = np.int64(0)
    for i in range(n * 14, k):
        haggis |= np.int64(1) << deck[i]
    return hands, haggis, rng


@njit(cache=True)
def start_game(st, seed):
    """Make ``st`` (from :func:`init_state`) a fresh game dealt from ``seed``."""
    n = st[L.S_NP]
    st[L.S_GAME] = 1
    st[L.S_SEED] = seed
    for i in range(3):
        st[L.S_SCORE + i] = 0
    st[L.S_ROUND_NO] = 0
    st[L.S_WINNER] = -1
    hands, haggis, rng = deal(st, 0)
    dealer = below(rng, n)
    leader = (dealer + 1) % n
    st[L.S_PREV_FIRST_LEADER] = -1
    start_round(st, hands, haggis, leader, dealer)


@njit(cache=True)
def _first_tied_from(st, value, start, use_max):
    n = st[L.S_NP]
    for i in range(n):
        s = (start + i) % n
        if st[L.S_SCORE + s] == value:
            return s
    return -1


@njit(cache=True)
def next_round(st):
    """Add the finished round to the game totals; end the game or deal the next round.

    Returns True when the game is over (then ``S_WINNER`` holds the winner).
    """
    n = st[L.S_NP]
    for s in range(n):
        st[L.S_SCORE + s] += st[L.S_SC_TOTAL + s]
    st[L.S_ROUND_NO] += 1
    hi = st[L.S_SCORE]
    lo = st[L.S_SCORE]
    for s in range(1, n):
        hi = max(hi, st[L.S_SCORE + s])
        lo = min(lo, st[L.S_SCORE + s])
    n_hi = 0
    for s in range(n):
        if st[L.S_SCORE + s] == hi:
            n_hi += 1
    if st[L.R_BASE + L.R_GAME_END] == L.GE_ROUNDS:
        reached = st[L.S_ROUND_NO] >= st[L.R_BASE + L.R_END_VALUE]
    else:
        reached = hi >= st[L.R_BASE + L.R_END_VALUE]
    if reached and n_hi == 1:
        for s in range(n):
            if st[L.S_SCORE + s] == hi:
                st[L.S_WINNER] = s
        st[L.S_PHASE] = L.PH_GAME_OVER
        st[L.S_TO_ACT] = -1
        return True
    shep = st[L.S_OUT]
    dealer = _first_tied_from(st, hi, shep, True)
    if st[L.R_BASE + L.R_LEAD_TIEBREAK] == L.LT_LEFT_OF_DEALER:
        leader = _first_tied_from(st, lo, dealer + 1, False)
    else:
        leader = _first_tied_from(st, lo, st[L.S_FIRST_LEADER] + 1, False)
    st[L.S_PREV_FIRST_LEADER] = st[L.S_FIRST_LEADER]
    hands, haggis, _ = deal(st, st[L.S_ROUND_NO])
    start_round(st, hands, haggis, leader, dealer)
    return False
