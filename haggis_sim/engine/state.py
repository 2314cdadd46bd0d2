"""Round and game state transitions (compiled).

A position is one int64 array laid out as in :mod:`haggis_sim.engine.layout`. The
functions come in verify/apply pairs: :func:`check_action` says whether an action is
legal (0) or why not (an ``E_*`` code) without touching the state, :func:`apply_action`
performs an action already known to be legal.

Setting positions up (dealing, the next round) is in :mod:`~haggis_sim.engine.rounds`,
the end of a round (the Haggis, the black sheep's cards, the score parts) in
:mod:`~haggis_sim.engine.scoring`, and what a seat may see in
:mod:`~haggis_sim.engine.observe`; their public functions are re-exported here, so
``state`` stays the one module to import for positions.
"""

from __future__ import annotations

import numpy as np

from .._cache import njit
from .bits import popcount
from .layout import (
    BC_TOURNAMENT,
    BC_WINNER_CHOOSES,
    FACE_SHIFT,
    MAX_MOVES,
    PH_GAME_OVER,
    PH_GIVE_HAGGIS,
    PH_GIVE_TRICK,
    PH_PLAY,
    PH_ROUND_OVER,
    R_BASE,
    R_BET_MASK,
    R_BET_POINTS,
    R_BOMB_CAPTURE,
    R_OUT_POINTS,
    S_BEATEN_SEAT,
    S_BET,
    S_CAPT,
    S_CAPTURES,
    S_GO,
    S_HAND,
    S_LAST_NB,
    S_LAST_PLAYER,
    S_LAST_RECEIVER,
    S_LEADER,
    S_N_OUT,
    S_NP,
    S_NSUITS,
    S_OUT,
    S_PASSES,
    S_PHASE,
    S_PLAY_SEQ,
    S_PLAYED,
    S_TO_ACT,
    S_TOP,
    S_TOP_SEAT,
    S_TRICK_CARDS,
    S_TRICK_NO,
    S_TURN_NO,
    SUIT_ALL,
    T_BET,
    T_BOMB,
    T_GIVE,
    T_PASS,
    T_SEQ,
    T_SET,
    TYPE_SHIFT,
)
from .moves import beats, generate, is_reading, move_cards, move_type
from .observe import PUBLIC_FIELDS as PUBLIC_FIELDS
from .observe import PUBLIC_SLOTS as PUBLIC_SLOTS
from .observe import observe as observe
from .rng import below, derive, new_stream, uniform
from .rounds import deal as deal
from .rounds import face_bits as face_bits
from .rounds import init_state as init_state
from .rounds import next_round as next_round
from .rounds import start_game as start_game
from .rounds import start_round as start_round
from .scoring import black_sheep as black_sheep
from .scoring import card_points as card_points
from .scoring import give_haggis, round_end_captures, score_round

# (``import x as x`` above: defined in a sibling module, re-exported so that importers
# find the whole state API here, as before the split)

# error codes of check_action
E_OK = 0
E_OVER = 1
E_PHASE = 2
E_NOT_HELD = 3
E_NOT_COMBO = 4
E_NO_BEAT = 5
E_LEAD_PASS = 6
E_BET_PLAYED = 7
E_BET_TWICE = 8
E_BET_VALUE = 9
E_GIVE_TARGET = 10
E_BAD_ACTION = 11


# --- small helpers -------------------------------------------------------------------------
@njit(cache=True, inline="always")
def to_global(cards, seat):
    """Relative move cards (faces at bits 45..47) to the seat's physical cards."""
    return (cards & SUIT_ALL) | (((cards >> FACE_SHIFT) & 7) << (FACE_SHIFT + 3 * seat))


@njit(cache=True, inline="always")
def hand_suits(st, seat):
    return st[S_HAND + seat] & SUIT_ALL


@njit(cache=True, inline="always")
def hand_faces(st, seat):
    return (st[S_HAND + seat] >> (FACE_SHIFT + 3 * seat)) & 7


@njit(cache=True)
def next_holder(st, seat):
    """The next seat clockwise after ``seat`` that still holds cards (-1: none)."""
    n = st[S_NP]
    for i in range(1, n + 1):
        s = (seat + i) % n
        if st[S_HAND + s] != 0:
            return s
    return -1


# --- legal actions ---------------------------------------------------------------------------
@njit(cache=True)
def can_bet(st, seat):
    return (
        st[S_PHASE] == PH_PLAY
        and st[S_TO_ACT] == seat
        and st[S_BET + seat] == 0
        and st[S_PLAYED + seat] == 0
        and st[R_BASE + R_BET_MASK] != 0
    )


@njit(cache=True)
def bet_slot(st, v):
    """The slot (0 Baby, 1 Little, 2 Big) of a bet of ``v`` points under the rules of
    ``st`` (a state or an observation: R_BET_POINTS), -1 if no bet scores ``v`` points.
    Whether the rules offer that bet is R_BET_MASK's bit of the slot."""
    for i in range(3):
        if st[R_BASE + R_BET_POINTS + i] == v:
            return i
    return -1


@njit(cache=True)
def legal_actions(st, out, with_bets):
    """Fill ``out`` with every legal action of the seat to act; return the count."""
    ph = st[S_PHASE]
    n = 0
    if ph == PH_PLAY:
        seat = st[S_TO_ACT]
        if with_bets and can_bet(st, seat):
            mask = st[R_BASE + R_BET_MASK]
            for i in range(3):
                if (mask >> i) & 1:
                    out[n] = (np.int64(T_BET) << TYPE_SHIFT) | st[R_BASE + R_BET_POINTS + i]
                    n += 1
        top = st[S_TOP]
        n += generate(hand_suits(st, seat), hand_faces(st, seat), st[S_NSUITS], top, out[n:], True)
        if top != 0:
            out[n] = 0
            n += 1
    elif ph == PH_GIVE_TRICK or ph == PH_GIVE_HAGGIS:
        chooser = st[S_TO_ACT]
        for s in range(st[S_NP]):
            if s != chooser:
                out[n] = (np.int64(T_GIVE) << TYPE_SHIFT) | s
                n += 1
    return n


@njit(cache=True)
def check_action(st, action):
    """0 when ``action`` is legal for the seat to act, else an ``E_*`` code. Pure."""
    ph = st[S_PHASE]
    if ph == PH_ROUND_OVER or ph == PH_GAME_OVER:
        return E_OVER
    t = move_type(action)
    seat = st[S_TO_ACT]
    if t == T_GIVE:
        if ph != PH_GIVE_TRICK and ph != PH_GIVE_HAGGIS:
            return E_PHASE
        to = action & 7
        if (action & ~((np.int64(T_GIVE) << TYPE_SHIFT) | 7)) != 0:
            return E_BAD_ACTION
        if to == seat or to >= st[S_NP]:
            return E_GIVE_TARGET
        return E_OK
    if ph != PH_PLAY:
        return E_PHASE
    if t == T_BET:
        v = action & 255
        if (action >> 8) != (np.int64(T_BET) << (TYPE_SHIFT - 8)):
            return E_BAD_ACTION
        if st[S_PLAYED + seat] != 0:
            return E_BET_PLAYED
        if st[S_BET + seat] != 0:
            return E_BET_TWICE
        i = bet_slot(st, v)
        if i < 0 or ((st[R_BASE + R_BET_MASK] >> i) & 1) == 0:
            return E_BET_VALUE
        return E_OK
    if t == T_PASS:
        if action != 0:
            return E_BAD_ACTION
        if st[S_TOP] == 0:
            return E_LEAD_PASS
        return E_OK
    if t != T_SET and t != T_SEQ and t != T_BOMB:
        return E_BAD_ACTION
    g = to_global(move_cards(action), seat)
    if move_cards(action) == 0:
        return E_NOT_COMBO
    if (g & ~st[S_HAND + seat]) != 0:
        return E_NOT_HELD
    if not is_reading(action, st[S_NSUITS]):
        return E_NOT_COMBO
    if not beats(action, st[S_TOP]):
        return E_NO_BEAT
    return E_OK


# --- applying actions --------------------------------------------------------------------
@njit(cache=True)
def apply_action(st, action):
    """Perform a legal action (see :func:`check_action`) of the seat to act."""
    t = move_type(action)
    if t == T_GIVE:
        _give(st, action & 7)
    elif t == T_BET:
        st[S_BET + st[S_TO_ACT]] = action & 255
        st[S_TURN_NO] += 1
    elif t == T_PASS:
        _pass(st)
    else:
        _play(st, action)


@njit(cache=True)
def _play(st, mv):
    """Play the legal combination ``mv`` for the seat to act; pass the turn on.

    The cards move from the hand to the trick and ``mv`` becomes the top play. Non-bomb
    plays are numbered (``S_PLAY_SEQ``/``S_LAST_NB``) because the tournament_nonbomb
    rule gives a bombed trick to the opponent whose non-bomb play came last. A player
    who empties the hand goes out and earns 5 points per card of the largest opponent
    hand at that moment (RULES.md section 4, so it is counted here). When only one
    player still holds cards the round is over and the last play wins the final trick,
    so the trick ends here instead of waiting for passes.
    """
    n = st[S_NP]
    seat = st[S_TO_ACT]
    g = to_global(move_cards(mv), seat)
    st[S_HAND + seat] &= ~g
    st[S_TRICK_CARDS] |= g
    st[S_PLAYED + seat] = 1
    if move_type(mv) != T_BOMB:
        st[S_PLAY_SEQ] += 1
        st[S_LAST_NB + seat] = st[S_PLAY_SEQ]
    st[S_BEATEN_SEAT] = st[S_TOP_SEAT] if st[S_TOP] != 0 else -1
    st[S_TOP] = mv
    st[S_TOP_SEAT] = seat
    st[S_PASSES] = 0
    st[S_LAST_PLAYER] = seat
    st[S_TURN_NO] += 1
    if st[S_HAND + seat] == 0:
        most = 0
        for o in range(n):
            if o != seat and st[S_HAND + o] != 0:
                most = max(most, popcount(st[S_HAND + o]))
        st[S_GO + seat] = st[R_BASE + R_OUT_POINTS] * most
        st[S_OUT + st[S_N_OUT]] = seat
        st[S_N_OUT] += 1
        if st[S_N_OUT] == n - 1:
            _end_trick(st)
            return
    st[S_TO_ACT] = next_holder(st, seat)


@njit(cache=True)
def _pass(st):
    n = st[S_NP]
    seat = st[S_TO_ACT]
    st[S_PASSES] += 1
    st[S_TURN_NO] += 1
    top_seat = st[S_TOP_SEAT]
    others = 0
    for s in range(n):
        if s != top_seat and st[S_HAND + s] != 0:
            others += 1
    if st[S_PASSES] >= others:
        _end_trick(st)
    else:
        st[S_TO_ACT] = next_holder(st, seat)


@njit(cache=True)
def bomb_receiver(st):
    """Who receives a trick won by a bomb when nobody chooses (-1: the winner chooses)."""
    n = st[S_NP]
    winner = st[S_TOP_SEAT]
    if n == 2:
        return 1 - winner
    rule = st[R_BASE + R_BOMB_CAPTURE]
    if rule == BC_WINNER_CHOOSES:
        return -1
    leader_right = (st[S_LEADER] + n - 1) % n
    if rule == BC_TOURNAMENT:
        b = st[S_BEATEN_SEAT]
        return b if b >= 0 else leader_right
    # tournament_nonbomb: the opponent whose non-bomb play came last in the trick
    best = -1
    best_seq = 0
    for s in range(n):
        if s != winner and st[S_LAST_NB + s] > best_seq:
            best_seq = st[S_LAST_NB + s]
            best = s
    if best >= 0:
        return best
    if leader_right != winner:
        return leader_right
    return (winner + n - 1) % n


@njit(cache=True)
def _end_trick(st):
    """Close the trick: its cards go to the receiver, or the winner must choose one.

    A trick won by a non-bomb goes to its winner. A bombed trick goes to an opponent
    (the bomb_capture rule, :func:`bomb_receiver`); under winner_chooses the round
    pauses in the give-trick phase with the winner to act, and :func:`_give` finishes
    the trick once the winner has chosen.
    """
    winner = st[S_TOP_SEAT]
    if move_type(st[S_TOP]) == T_BOMB:
        recv = bomb_receiver(st)
        if recv < 0:
            st[S_PHASE] = PH_GIVE_TRICK
            st[S_TO_ACT] = winner
            return
    else:
        recv = winner
    _capture_trick(st, recv)
    _after_trick(st)


@njit(cache=True)
def _capture_trick(st, recv):
    st[S_CAPT + recv] |= st[S_TRICK_CARDS]
    st[S_TRICK_CARDS] = 0
    st[S_LAST_RECEIVER] = recv
    st[S_CAPTURES] += 1


@njit(cache=True)
def _after_trick(st):
    n = st[S_NP]
    if st[S_N_OUT] == n - 1:
        round_end_captures(st)
        return
    winner = st[S_TOP_SEAT]
    leader = winner if st[S_HAND + winner] != 0 else next_holder(st, winner)
    st[S_TOP] = 0
    st[S_TOP_SEAT] = -1
    st[S_BEATEN_SEAT] = -1
    st[S_PASSES] = 0
    st[S_PLAY_SEQ] = 0
    for s in range(3):
        st[S_LAST_NB + s] = 0
    st[S_TRICK_NO] += 1
    st[S_LEADER] = leader
    st[S_TO_ACT] = leader
    st[S_PHASE] = PH_PLAY


@njit(cache=True)
def _give(st, to):
    if st[S_PHASE] == PH_GIVE_TRICK:
        st[S_PHASE] = PH_PLAY
        _capture_trick(st, to)
        _after_trick(st)
    else:
        give_haggis(st, to)
        score_round(st)
    st[S_TURN_NO] += 1


# --- random play (benchmarks and fuzzing) -------------------------------------------------------
@njit(cache=True)
def play_random_round(st, rng, buf):
    """Play the current round to its end with uniformly random plays, passes and gives."""
    while st[S_PHASE] != PH_ROUND_OVER:
        k = legal_actions(st, buf, False)
        apply_action(st, buf[below(rng, k)])


@njit(cache=True)
def random_rounds(rules, n_rounds, seed):
    """Deal and play ``n_rounds`` rounds with random players; return the actions taken."""
    st = init_state(rules)
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    total = 0
    for i in range(n_rounds):
        start_game(st, derive(seed, i))
        rng = new_stream(derive(seed, ~i))
        play_random_round(st, rng, buf)
        total += st[S_TURN_NO]
    return total


@njit(cache=True)
def random_action(st, rng, buf, bet_rate):
    """A uniformly random legal action; a bet (when allowed) with probability bet_rate."""
    seat = st[S_TO_ACT]
    if st[S_PHASE] == PH_PLAY and bet_rate > 0.0 and can_bet(st, seat):
        if uniform(rng) < bet_rate:
            mask = st[R_BASE + R_BET_MASK]
            k = 0
            vals = np.empty(3, dtype=np.int64)
            for i in range(3):
                if (mask >> i) & 1:
                    vals[k] = st[R_BASE + R_BET_POINTS + i]
                    k += 1
            return (np.int64(T_BET) << TYPE_SHIFT) | vals[below(rng, k)]
    k = legal_actions(st, buf, False)
    return buf[below(rng, k)]


@njit(cache=True)
def random_game_trace(rules, seed, bet_rate, states, actions):
    """Play one whole game with random players, recording every state.

    Row i of ``states`` is the state after ``actions[i]``; a new round's deal is recorded
    with action -1. Returns the number of rows (-1 if the buffers were too small).
    """
    st = init_state(rules)
    start_game(st, seed)
    rng = new_stream(derive(seed, 12345))
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    i = 0
    states[i, :] = st
    actions[i] = -1
    i += 1
    while True:
        if i >= states.shape[0]:
            return -1
        if st[S_PHASE] == PH_ROUND_OVER:
            over = next_round(st)
            states[i, :] = st
            actions[i] = -1
            i += 1
            if over:
                return i
            continue
        a = random_action(st, rng, buf, bet_rate)
        apply_action(st, a)
        states[i, :] = st
        actions[i] = a
        i += 1
