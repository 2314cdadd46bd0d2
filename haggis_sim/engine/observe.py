"""Information sets (compiled): what a seat may see of a state.

An observation is a state array holding zero wherever the seat may not look; strategies
only ever receive observations (see :func:`observe`).
"""

from __future__ import annotations

import numpy as np

from .._cache import njit
from . import layout as L
from .bits import popcount

# The state slots every seat sees as they are; an observation holds zero everywhere else,
# except what observe() derives: the seat's own hand, the face cards each other seat
# still holds, hand sizes, and the black sheep's last cards once the round is over.
# Hiding is the default: a slot added to the layout stays hidden from strategies until it
# is listed here (tests/engine/test_compiled_guards.py pins this list).
PUBLIC_FIELDS = (
    (L.S_NP, 1),
    (L.S_NSUITS, 1),
    (L.S_PHASE, 1),
    (L.S_TO_ACT, 1),
    (L.S_LEADER, 1),
    (L.S_TOP, 1),
    (L.S_TOP_SEAT, 1),
    (L.S_BEATEN_SEAT, 1),
    (L.S_PASSES, 1),
    (L.S_TRICK_NO, 1),
    (L.S_TURN_NO, 1),
    (L.S_TRICK_CARDS, 1),
    (L.S_N_OUT, 1),
    (L.S_OUT, 3),
    (L.S_CAPT, 3),
    (L.S_BET, 3),
    (L.S_PLAYED, 3),
    (L.S_GO, 3),
    (L.S_SC_CARDS, 3),
    (L.S_SC_BETS, 3),
    (L.S_SC_BONUS, 3),
    (L.S_SC_TOTAL, 3),
    (L.S_LAST_NB, 3),
    (L.S_PLAY_SEQ, 1),
    (L.S_LAST_PLAYER, 1),
    (L.S_FIRST_LEADER, 1),
    (L.S_DEALER, 1),
    (L.S_LAST_RECEIVER, 1),
    (L.S_GAME, 1),
    (L.S_SCORE, 3),
    (L.S_ROUND_NO, 1),
    (L.S_PREV_FIRST_LEADER, 1),
    (L.S_WINNER, 1),
    (L.S_HAGGIS_TO_SEAT, 1),
    (L.S_CAPTURES, 1),
    (L.R_BASE, L.STATE_SIZE - L.R_BASE),  # the rules
)
PUBLIC_SLOTS = np.array(
    sorted({start + i for start, count in PUBLIC_FIELDS for i in range(count)}), dtype=np.int64
)


@njit(cache=True)
def observe(st, seat):
    """The state as ``seat`` may see it: its own hand and public information only.

    Built up from zero: the slots in ``PUBLIC_SLOTS`` are copied, then the seat's own
    hand, every other hand's face cards (dealt face up, so public), every hand's size,
    and (once the round is over) the black sheep's remaining cards. Everything else
    (other hands' suit cards, the Haggis, the deal seed, any slot not declared public)
    stays zero.
    """
    obs = np.zeros_like(st)
    for i in PUBLIC_SLOTS:
        obs[i] = st[i]
    n = st[L.S_NP]
    for o in range(3):
        obs[L.S_SIZE + o] = popcount(st[L.S_HAND + o]) if o < n else 0
        obs[L.S_HAND + o] = st[L.S_HAND + o] if o == seat else st[L.S_HAND + o] & ~L.SUIT_ALL
    if st[L.S_PHASE] == L.PH_ROUND_OVER or st[L.S_PHASE] == L.PH_GAME_OVER:
        obs[L.S_BLACK_LEFT] = st[L.S_BLACK_LEFT]
    return obs
