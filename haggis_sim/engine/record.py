"""Move, round and game records filled inside compiled code (compiled).

Logs are plain int64 matrices, one row per record, with the column indices below; the
runner turns each chunk's matrices into typed Parquet columns. Both ways of driving a
game (wholly compiled, or step by step for strategies written in Python) record through
these same functions, so their logs are identical.
"""

from __future__ import annotations

from numba import njit

from .bits import popcount
from .layout import (
    CARDS_MASK,
    S_BET,
    S_CAPTURES,
    S_DEALER,
    S_FIRST_LEADER,
    S_GO,
    S_HAGGIS_TO_SEAT,
    S_HAND,
    S_LAST_RECEIVER,
    S_N_OUT,
    S_NP,
    S_OUT,
    S_ROUND_NO,
    S_SC_BETS,
    S_SC_BONUS,
    S_SC_CARDS,
    S_SC_TOTAL,
    S_SCORE,
    S_TO_ACT,
    S_TRICK_NO,
    S_TURN_NO,
    S_WINNER,
    T_BET,
    T_GIVE,
    T_PASS,
    TYPE_SHIFT,
)
from .moves import move_length, move_rank, move_type, move_width
from .state import apply_action, black_sheep

# moves columns
MOVE_COLUMNS = (
    "game_id",
    "round",
    "trick",
    "turn",
    "seat",
    "type",
    "width",
    "length",
    "rank",
    "n_cards",
    "cards",
    "value",
    "hand_after",
    "won_trick",
    "trick_to",
    "strength",
)
MC_GAME, MC_ROUND, MC_TRICK, MC_TURN, MC_SEAT, MC_TYPE = 0, 1, 2, 3, 4, 5
MC_WIDTH, MC_LENGTH, MC_RANK, MC_NCARDS, MC_CARDS, MC_VALUE = 6, 7, 8, 9, 10, 11
MC_HAND_AFTER, MC_WON, MC_TRICK_TO, MC_STRENGTH = 12, 13, 14, 15
N_MOVE_COLUMNS = len(MOVE_COLUMNS)

# rounds columns: 10 fixed, then 6 per seat (seats 0..2)
ROUND_FIXED = (
    "game_id",
    "round",
    "dealer",
    "leader",
    "shepherd",
    "second_out",
    "black_sheep",
    "haggis_to",
    "tricks",
    "actions",
)
ROUND_PER_SEAT = ("bet", "going_out", "cards", "bets", "bonus", "total")
ROUND_COLUMNS = ROUND_FIXED + tuple(f"{c}_{s}" for s in range(3) for c in ROUND_PER_SEAT)
N_ROUND_COLUMNS = len(ROUND_COLUMNS)

GAME_COLUMNS = ("game_id", "winner", "rounds", "score_0", "score_1", "score_2")
N_GAME_COLUMNS = len(GAME_COLUMNS)

# cursor entries
C_MOVE = 0  # next free row of the moves matrix
C_ROUND = 1
C_GAME = 2
C_TOP_ROW = 3  # row of the current trick's top play (-1 none)
N_CURSOR = 4


@njit(cache=True)
def step_recorded(st, action, game_id, moves, cursor, log_moves, strength):
    """Apply a legal action of the seat to act and record it (when ``log_moves``).

    ``strength`` (0..100, -1 none) is recorded with the row: the runner passes the
    actor's hand-strength estimate on bets.
    """
    seat = st[S_TO_ACT]
    captures = st[S_CAPTURES]
    rnd = st[S_ROUND_NO]
    trick = st[S_TRICK_NO]
    turn = st[S_TURN_NO]
    apply_action(st, action)
    if not log_moves:
        return
    row = cursor[C_MOVE]
    if row >= moves.shape[0]:
        raise ValueError("moves buffer full")
    t = move_type(action)
    moves[row, MC_GAME] = game_id
    moves[row, MC_ROUND] = rnd
    moves[row, MC_TRICK] = trick
    moves[row, MC_TURN] = turn
    moves[row, MC_SEAT] = seat
    moves[row, MC_TYPE] = t
    moves[row, MC_WON] = 0
    moves[row, MC_TRICK_TO] = -1
    moves[row, MC_STRENGTH] = strength
    if t == T_BET or t == T_GIVE:
        moves[row, MC_WIDTH] = 0
        moves[row, MC_LENGTH] = 0
        moves[row, MC_RANK] = 0
        moves[row, MC_NCARDS] = 0
        moves[row, MC_CARDS] = 0
        moves[row, MC_VALUE] = action & 255
    else:
        cards = action & CARDS_MASK
        moves[row, MC_WIDTH] = move_width(action)
        moves[row, MC_LENGTH] = move_length(action)
        moves[row, MC_RANK] = move_rank(action)
        moves[row, MC_NCARDS] = popcount(cards)
        moves[row, MC_CARDS] = cards
        moves[row, MC_VALUE] = 0
        if t != T_PASS:
            cursor[C_TOP_ROW] = row
    moves[row, MC_HAND_AFTER] = popcount(st[S_HAND + seat])
    cursor[C_MOVE] = row + 1
    if st[S_CAPTURES] != captures:
        top = cursor[C_TOP_ROW]
        moves[top, MC_WON] = 1
        moves[top, MC_TRICK_TO] = st[S_LAST_RECEIVER]
        cursor[C_TOP_ROW] = -1


@njit(cache=True)
def record_round(st, game_id, rounds, cursor):
    """Record the round just finished (state in the round-over phase)."""
    row = cursor[C_ROUND]
    if row >= rounds.shape[0]:
        raise ValueError("rounds buffer full")
    n = st[S_NP]
    r = rounds[row]
    r[0] = game_id
    r[1] = st[S_ROUND_NO]
    r[2] = st[S_DEALER]
    r[3] = st[S_FIRST_LEADER]
    r[4] = st[S_OUT]
    r[5] = st[S_OUT + 1] if st[S_N_OUT] > 1 else -1
    r[6] = black_sheep(st)
    r[7] = st[S_HAGGIS_TO_SEAT]
    r[8] = st[S_CAPTURES]
    r[9] = st[S_TURN_NO]
    for s in range(3):
        base = 10 + 6 * s
        if s < n:
            r[base] = st[S_BET + s]
            r[base + 1] = st[S_GO + s]
            r[base + 2] = st[S_SC_CARDS + s]
            r[base + 3] = st[S_SC_BETS + s]
            r[base + 4] = st[S_SC_BONUS + s]
            r[base + 5] = st[S_SC_TOTAL + s]
        else:
            for k in range(6):
                r[base + k] = -1
    cursor[C_ROUND] = row + 1


@njit(cache=True)
def record_game(st, game_id, games, cursor):
    """Record a finished game."""
    row = cursor[C_GAME]
    g = games[row]
    g[0] = game_id
    g[1] = st[S_WINNER]
    g[2] = st[S_ROUND_NO]
    for s in range(3):
        g[3 + s] = st[S_SCORE + s] if s < st[S_NP] else -1
    cursor[C_GAME] = row + 1


def pack_logged_action(
    type_: int, width: int, length: int, rank: int, cards: int, value: int
) -> int:
    """The packed engine action of one logged move row (for replays)."""
    if type_ in (T_BET, T_GIVE):
        return (type_ << TYPE_SHIFT) | value
    if type_ == T_PASS:
        return 0
    return (type_ << TYPE_SHIFT) | (width << 56) | (length << 52) | (rank << 48) | cards
