"""The end of a round (compiled): who gets the Haggis and the black sheep's cards, and
the round's score parts.

:mod:`haggis_sim.engine.state` calls in here once only one player still holds cards
(:func:`round_end_captures`) or once the chosen receiver of the Haggis is known
(:func:`give_haggis`, then :func:`score_round`).
"""

from __future__ import annotations

from .._cache import njit
from .bits import popcount
from .layout import (
    BS_SPLIT,
    BS_THRESHOLD,
    CP_CLASSIC,
    HT_LAST_TO_PLAY,
    HT_SHEPHERD,
    JACKS,
    KINGS,
    ODD_MASK,
    PH_GIVE_HAGGIS,
    PH_ROUND_OVER,
    QUEENS,
    R_BASE,
    R_BONUS,
    R_CARD_POINTS,
    R_FACE_POINTS,
    R_HAGGIS_TO,
    R_SETTLEMENT,
    S_BET,
    S_BLACK_LEFT,
    S_CAPT,
    S_GO,
    S_HAGGIS,
    S_HAGGIS_TO_SEAT,
    S_HAND,
    S_LAST_PLAYER,
    S_N_OUT,
    S_NP,
    S_OUT,
    S_PHASE,
    S_SC_BETS,
    S_SC_BONUS,
    S_SC_CARDS,
    S_SC_TOTAL,
    S_TO_ACT,
    S_TOP,
    T_BOMB,
)
from .moves import move_type


@njit(cache=True)
def card_points(st, mask):
    """The card points of the cards in ``mask`` under the rules' card_points flag."""
    if st[R_BASE + R_CARD_POINTS] == CP_CLASSIC:
        return (
            popcount(mask & ODD_MASK)
            + st[R_BASE + R_FACE_POINTS] * popcount(mask & JACKS)
            + st[R_BASE + R_FACE_POINTS + 1] * popcount(mask & QUEENS)
            + st[R_BASE + R_FACE_POINTS + 2] * popcount(mask & KINGS)
        )
    return popcount(mask)


@njit(cache=True)
def black_sheep(st):
    """The seat that has not gone out (the last holding cards; -1: none)."""
    n = st[S_NP]
    for s in range(n):
        out = False
        for i in range(st[S_N_OUT]):
            if st[S_OUT + i] == s:
                out = True
        if not out:
            return s
    return -1


@njit(cache=True)
def round_end_captures(st):
    """End the round once only the black sheep holds cards, by the haggis_to rule: the
    shepherd (first out) takes the Haggis and the black sheep's cards (shepherd), or the
    black sheep's cards while the Haggis goes to the last player, to an opponent after a
    bomb (last_to_play), or nobody takes either (nobody); then the round is scored. A
    bombed last trick with 3 players under last_to_play first waits in the give-Haggis
    phase for its winner to choose who receives the Haggis."""
    n = st[S_NP]
    black = black_sheep(st)
    shep = st[S_OUT]
    st[S_BLACK_LEFT] = st[S_HAND + black]
    rule = st[R_BASE + R_HAGGIS_TO]
    if rule == HT_SHEPHERD:
        st[S_CAPT + shep] |= st[S_HAGGIS] | st[S_HAND + black]
        st[S_HAGGIS_TO_SEAT] = shep
        st[S_HAGGIS] = 0
        st[S_HAND + black] = 0
    elif rule == HT_LAST_TO_PLAY:
        st[S_CAPT + shep] |= st[S_HAND + black]
        st[S_HAND + black] = 0
        last = st[S_LAST_PLAYER]
        if move_type(st[S_TOP]) != T_BOMB:
            give_haggis(st, last)
        elif n == 2:
            give_haggis(st, 1 - last)
        else:
            st[S_PHASE] = PH_GIVE_HAGGIS
            st[S_TO_ACT] = last
            return
    score_round(st)


@njit(cache=True)
def give_haggis(st, to):
    """Seat ``to`` captures the Haggis."""
    st[S_CAPT + to] |= st[S_HAGGIS]
    st[S_HAGGIS] = 0
    st[S_HAGGIS_TO_SEAT] = to


@njit(cache=True)
def score_round(st):
    """Fill the round's score parts and end it (phase round-over, nobody to act).

    Per seat: going-out points (set in :func:`_play`), captured-card points, bet
    settlement under the rules' bet_settlement flag (RULES.md section 6: takes_all,
    split, threshold) and the shepherd's first_out_bonus; their sum is ``S_SC_TOTAL``.
    The game totals are added by :func:`next_round`, so the round's parts stay
    readable (recorded logs and :class:`haggis_sim.Round` scores) until then.
    """
    n = st[S_NP]
    shep = st[S_OUT]
    for s in range(n):
        st[S_SC_CARDS + s] = card_points(st, st[S_CAPT + s])
        st[S_SC_BETS + s] = 0
        st[S_SC_BONUS + s] = 0
    st[S_SC_BONUS + shep] = st[R_BASE + R_BONUS]
    rule = st[R_BASE + R_SETTLEMENT]
    if rule == BS_SPLIT and n == 3:
        second = st[S_OUT + 1]
        sheep_bets = 0
        for s in range(n):
            if s != shep:
                sheep_bets += st[S_BET + s]
        third = (sheep_bets + 1) // 3
        st[S_SC_BETS + shep] += st[S_BET + shep] + sheep_bets - third
        st[S_SC_BETS + second] += third
    else:
        for b in range(n):
            v = st[S_BET + b]
            if v == 0:
                continue
            if rule == BS_THRESHOLD:
                won = st[S_GO + b] + st[S_SC_CARDS + b] >= v
            else:
                won = b == shep
            if won:
                st[S_SC_BETS + b] += v
            else:
                st[S_SC_BETS + shep] += v
                for o in range(n):
                    if o != shep and st[S_BET + o] == 0:
                        st[S_SC_BETS + o] += v
    for s in range(n):
        st[S_SC_TOTAL + s] = (
            st[S_GO + s] + st[S_SC_CARDS + s] + st[S_SC_BETS + s] + st[S_SC_BONUS + s]
        )
    st[S_PHASE] = PH_ROUND_OVER
    st[S_TO_ACT] = -1
