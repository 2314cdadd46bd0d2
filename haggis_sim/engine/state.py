"""Round and game state transitions (compiled).

A position is one int64 array laid out as in :mod:`haggis_sim.engine.layout`. The
functions come in verify/apply pairs: :func:`check_action` says whether an action is
legal (0) or why not (an ``E_*`` code) without touching the state, :func:`apply_action`
performs an action already known to be legal.
"""

from __future__ import annotations

import numpy as np

from .._cache import njit
from .bits import popcount
from .layout import (
    BC_TOURNAMENT,
    BC_WINNER_CHOOSES,
    BET_VALUES,
    BS_SPLIT,
    BS_THRESHOLD,
    CP_CLASSIC,
    FACE_SHIFT,
    GE_ROUNDS,
    HT_LAST_TO_PLAY,
    HT_SHEPHERD,
    JACKS,
    KINGS,
    LT_LEFT_OF_DEALER,
    MAX_MOVES,
    ODD_MASK,
    PH_GAME_OVER,
    PH_GIVE_HAGGIS,
    PH_GIVE_TRICK,
    PH_PLAY,
    PH_ROUND_OVER,
    QUEENS,
    R_BASE,
    R_BET_MASK,
    R_BOMB_CAPTURE,
    R_BONUS,
    R_CARD_POINTS,
    R_END_VALUE,
    R_GAME_END,
    R_HAGGIS_TO,
    R_LEAD_TIEBREAK,
    R_PLAYERS,
    R_SETTLEMENT,
    S_BEATEN_SEAT,
    S_BET,
    S_BLACK_LEFT,
    S_CAPT,
    S_CAPTURES,
    S_DEALER,
    S_FIRST_LEADER,
    S_GAME,
    S_GO,
    S_HAGGIS,
    S_HAGGIS_TO_SEAT,
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
    S_PREV_FIRST_LEADER,
    S_ROUND_NO,
    S_SC_BETS,
    S_SC_BONUS,
    S_SC_CARDS,
    S_SC_TOTAL,
    S_SCORE,
    S_SEED,
    S_SIZE,
    S_TO_ACT,
    S_TOP,
    S_TOP_SEAT,
    S_TRICK_CARDS,
    S_TRICK_NO,
    S_TURN_NO,
    S_WINNER,
    STATE_SIZE,
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
from .rng import below, derive, new_stream, uniform

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
def face_bits(seat):
    return np.int64(7) << (FACE_SHIFT + 3 * seat)


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


@njit(cache=True)
def card_points(st, mask):
    if st[R_BASE + R_CARD_POINTS] == CP_CLASSIC:
        return (
            popcount(mask & ODD_MASK)
            + 2 * popcount(mask & JACKS)
            + 3 * popcount(mask & QUEENS)
            + 5 * popcount(mask & KINGS)
        )
    return popcount(mask)


# --- setting up ------------------------------------------------------------------------------
@njit(cache=True)
def init_state(rules):
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    for i in range(rules.shape[0]):
        st[R_BASE + i] = rules[i]
    n = rules[R_PLAYERS]
    st[S_NP] = n
    st[S_NSUITS] = 4 if n == 2 else 5
    st[S_WINNER] = -1
    st[S_PREV_FIRST_LEADER] = -1
    return st


@njit(cache=True)
def start_round(st, hands, haggis, leader, dealer):
    """Start a round from given physical hands (global masks) and Haggis."""
    n = st[S_NP]
    for i in range(3):
        st[S_OUT + i] = -1
        st[S_HAND + i] = hands[i] if i < n else 0
        st[S_CAPT + i] = 0
        st[S_BET + i] = 0
        st[S_PLAYED + i] = 0
        st[S_GO + i] = 0
        st[S_SC_CARDS + i] = 0
        st[S_SC_BETS + i] = 0
        st[S_SC_BONUS + i] = 0
        st[S_SC_TOTAL + i] = 0
        st[S_LAST_NB + i] = 0
    st[S_HAGGIS] = haggis
    st[S_PHASE] = PH_PLAY
    st[S_TO_ACT] = leader
    st[S_LEADER] = leader
    st[S_FIRST_LEADER] = leader
    st[S_DEALER] = dealer
    st[S_TOP] = 0
    st[S_TOP_SEAT] = -1
    st[S_BEATEN_SEAT] = -1
    st[S_PASSES] = 0
    st[S_TRICK_NO] = 0
    st[S_TURN_NO] = 0
    st[S_TRICK_CARDS] = 0
    st[S_N_OUT] = 0
    st[S_PLAY_SEQ] = 0
    st[S_LAST_PLAYER] = -1
    st[S_LAST_RECEIVER] = -1
    st[S_CAPTURES] = 0
    st[S_BLACK_LEFT] = 0
    st[S_HAGGIS_TO_SEAT] = -1


@njit(cache=True)
def deal(st, round_no):
    """Deal a round from the game's seed: the hands (global masks) and the Haggis."""
    n = st[S_NP]
    nsuits = st[S_NSUITS]
    rng = new_stream(derive(st[S_SEED], round_no))
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
    n = st[S_NP]
    st[S_GAME] = 1
    st[S_SEED] = seed
    for i in range(3):
        st[S_SCORE + i] = 0
    st[S_ROUND_NO] = 0
    st[S_WINNER] = -1
    hands, haggis, rng = deal(st, 0)
    dealer = below(rng, n)
    leader = (dealer + 1) % n
    st[S_PREV_FIRST_LEADER] = -1
    start_round(st, hands, haggis, leader, dealer)


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
                    out[n] = (np.int64(T_BET) << TYPE_SHIFT) | BET_VALUES[i]
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
        ok = False
        mask = st[R_BASE + R_BET_MASK]
        for i in range(3):
            if (mask >> i) & 1 and BET_VALUES[i] == v:
                ok = True
        if not ok:
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
        st[S_GO + seat] = 5 * most
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
        _round_end_captures(st)
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
def black_sheep(st):
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
def _round_end_captures(st):
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
            _give_haggis(st, last)
        elif n == 2:
            _give_haggis(st, 1 - last)
        else:
            st[S_PHASE] = PH_GIVE_HAGGIS
            st[S_TO_ACT] = last
            return
    _score_round(st)


@njit(cache=True)
def _give_haggis(st, to):
    st[S_CAPT + to] |= st[S_HAGGIS]
    st[S_HAGGIS] = 0
    st[S_HAGGIS_TO_SEAT] = to


@njit(cache=True)
def _give(st, to):
    if st[S_PHASE] == PH_GIVE_TRICK:
        st[S_PHASE] = PH_PLAY
        _capture_trick(st, to)
        _after_trick(st)
    else:
        _give_haggis(st, to)
        _score_round(st)
    st[S_TURN_NO] += 1


@njit(cache=True)
def _score_round(st):
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


# --- several rounds ----------------------------------------------------------------------------
@njit(cache=True)
def _first_tied_from(st, value, start, use_max):
    n = st[S_NP]
    for i in range(n):
        s = (start + i) % n
        if st[S_SCORE + s] == value:
            return s
    return -1


@njit(cache=True)
def next_round(st):
    """Add the finished round to the game totals; end the game or deal the next round.

    Returns True when the game is over (then ``S_WINNER`` holds the winner).
    """
    n = st[S_NP]
    for s in range(n):
        st[S_SCORE + s] += st[S_SC_TOTAL + s]
    st[S_ROUND_NO] += 1
    hi = st[S_SCORE]
    lo = st[S_SCORE]
    for s in range(1, n):
        hi = max(hi, st[S_SCORE + s])
        lo = min(lo, st[S_SCORE + s])
    n_hi = 0
    for s in range(n):
        if st[S_SCORE + s] == hi:
            n_hi += 1
    if st[R_BASE + R_GAME_END] == GE_ROUNDS:
        reached = st[S_ROUND_NO] >= st[R_BASE + R_END_VALUE]
    else:
        reached = hi >= st[R_BASE + R_END_VALUE]
    if reached and n_hi == 1:
        for s in range(n):
            if st[S_SCORE + s] == hi:
                st[S_WINNER] = s
        st[S_PHASE] = PH_GAME_OVER
        st[S_TO_ACT] = -1
        return True
    shep = st[S_OUT]
    dealer = _first_tied_from(st, hi, shep, True)
    if st[R_BASE + R_LEAD_TIEBREAK] == LT_LEFT_OF_DEALER:
        leader = _first_tied_from(st, lo, dealer + 1, False)
    else:
        leader = _first_tied_from(st, lo, st[S_FIRST_LEADER] + 1, False)
    st[S_PREV_FIRST_LEADER] = st[S_FIRST_LEADER]
    hands, haggis, _ = deal(st, st[S_ROUND_NO])
    start_round(st, hands, haggis, leader, dealer)
    return False


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


# --- information sets -------------------------------------------------------------------------
# The state slots every seat sees as they are; an observation holds zero everywhere else,
# except what observe() derives: the seat's own hand, the face cards each other seat
# still holds, hand sizes, and the black sheep's last cards once the round is over.
# Hiding is the default: a slot added to the layout stays hidden from strategies until it
# is listed here (tests/test_traps.py pins this list).
PUBLIC_FIELDS = (
    (S_NP, 1),
    (S_NSUITS, 1),
    (S_PHASE, 1),
    (S_TO_ACT, 1),
    (S_LEADER, 1),
    (S_TOP, 1),
    (S_TOP_SEAT, 1),
    (S_BEATEN_SEAT, 1),
    (S_PASSES, 1),
    (S_TRICK_NO, 1),
    (S_TURN_NO, 1),
    (S_TRICK_CARDS, 1),
    (S_N_OUT, 1),
    (S_OUT, 3),
    (S_CAPT, 3),
    (S_BET, 3),
    (S_PLAYED, 3),
    (S_GO, 3),
    (S_SC_CARDS, 3),
    (S_SC_BETS, 3),
    (S_SC_BONUS, 3),
    (S_SC_TOTAL, 3),
    (S_LAST_NB, 3),
    (S_PLAY_SEQ, 1),
    (S_LAST_PLAYER, 1),
    (S_FIRST_LEADER, 1),
    (S_DEALER, 1),
    (S_LAST_RECEIVER, 1),
    (S_GAME, 1),
    (S_SCORE, 3),
    (S_ROUND_NO, 1),
    (S_PREV_FIRST_LEADER, 1),
    (S_WINNER, 1),
    (S_HAGGIS_TO_SEAT, 1),
    (S_CAPTURES, 1),
    (R_BASE, STATE_SIZE - R_BASE),  # the rules
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
    n = st[S_NP]
    for o in range(3):
        obs[S_SIZE + o] = popcount(st[S_HAND + o]) if o < n else 0
        obs[S_HAND + o] = st[S_HAND + o] if o == seat else st[S_HAND + o] & ~SUIT_ALL
    if st[S_PHASE] == PH_ROUND_OVER or st[S_PHASE] == PH_GAME_OVER:
        obs[S_BLACK_LEFT] = st[S_BLACK_LEFT]
    return obs


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
                    vals[k] = BET_VALUES[i]
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
