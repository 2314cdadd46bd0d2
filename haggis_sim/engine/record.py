"""Move, round and game records filled inside compiled code (compiled).

Logs are plain int64 matrices, one row per record, with the column indices below; the
runner turns each chunk's matrices into typed Parquet columns. Both ways of driving a
game (wholly compiled, or step by step for strategies written in Python) record through
these same functions, so their logs are identical.
"""

from __future__ import annotations

from .._cache import njit
from .bits import popcount
from .layout import (
    CARDS_MASK,
    PASS,
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
    VALUE_MASK,
)
from .moves import move_length, move_rank, move_type, move_width, pack
from .state import apply_action, black_sheep

# Each table's column names are its single definition: the column indices below are
# computed from them (module-level ints, so compiled code sees them as constants), and
# the runner reads the matrices by name. Reordering a tuple moves writer and reader alike;
# tests/engine/test_orderings.py checks every name has its index.

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
MC_GAME = MOVE_COLUMNS.index("game_id")
MC_ROUND = MOVE_COLUMNS.index("round")
MC_TRICK = MOVE_COLUMNS.index("trick")
MC_TURN = MOVE_COLUMNS.index("turn")
MC_SEAT = MOVE_COLUMNS.index("seat")
MC_TYPE = MOVE_COLUMNS.index("type")
MC_WIDTH = MOVE_COLUMNS.index("width")
MC_LENGTH = MOVE_COLUMNS.index("length")
MC_RANK = MOVE_COLUMNS.index("rank")
MC_NCARDS = MOVE_COLUMNS.index("n_cards")
MC_CARDS = MOVE_COLUMNS.index("cards")
MC_VALUE = MOVE_COLUMNS.index("value")
MC_HAND_AFTER = MOVE_COLUMNS.index("hand_after")
MC_WON = MOVE_COLUMNS.index("won_trick")
MC_TRICK_TO = MOVE_COLUMNS.index("trick_to")
MC_STRENGTH = MOVE_COLUMNS.index("strength")
N_MOVE_COLUMNS = len(MOVE_COLUMNS)

# rounds columns: the fixed ones, then the per-seat ones for seats 0..2 (``bet_0`` ...)
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
RC_GAME = ROUND_COLUMNS.index("game_id")
RC_ROUND = ROUND_COLUMNS.index("round")
RC_DEALER = ROUND_COLUMNS.index("dealer")
RC_LEADER = ROUND_COLUMNS.index("leader")
RC_SHEPHERD = ROUND_COLUMNS.index("shepherd")
RC_SECOND_OUT = ROUND_COLUMNS.index("second_out")
RC_BLACK_SHEEP = ROUND_COLUMNS.index("black_sheep")
RC_HAGGIS_TO = ROUND_COLUMNS.index("haggis_to")
RC_TRICKS = ROUND_COLUMNS.index("tricks")
RC_ACTIONS = ROUND_COLUMNS.index("actions")
# seat s's column of a per-seat value: RC_<value> + s * RC_SEAT_STRIDE
RC_SEAT_STRIDE = ROUND_COLUMNS.index("bet_1") - ROUND_COLUMNS.index("bet_0")
RC_BET = ROUND_COLUMNS.index("bet_0")
RC_GOING_OUT = ROUND_COLUMNS.index("going_out_0")
RC_CARDS = ROUND_COLUMNS.index("cards_0")
RC_BETS = ROUND_COLUMNS.index("bets_0")
RC_BONUS = ROUND_COLUMNS.index("bonus_0")
RC_TOTAL = ROUND_COLUMNS.index("total_0")

GAME_COLUMNS = ("game_id", "winner", "rounds", "score_0", "score_1", "score_2")
N_GAME_COLUMNS = len(GAME_COLUMNS)
GC_GAME = GAME_COLUMNS.index("game_id")
GC_WINNER = GAME_COLUMNS.index("winner")
GC_ROUNDS = GAME_COLUMNS.index("rounds")
GC_SCORE = GAME_COLUMNS.index("score_0")  # seat s: GC_SCORE + s * GC_SEAT_STRIDE
GC_SEAT_STRIDE = GAME_COLUMNS.index("score_1") - GAME_COLUMNS.index("score_0")

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
        moves[row, MC_VALUE] = action & VALUE_MASK
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
    r[RC_GAME] = game_id
    r[RC_ROUND] = st[S_ROUND_NO]
    r[RC_DEALER] = st[S_DEALER]
    r[RC_LEADER] = st[S_FIRST_LEADER]
    r[RC_SHEPHERD] = st[S_OUT]
    r[RC_SECOND_OUT] = st[S_OUT + 1] if st[S_N_OUT] > 1 else -1
    r[RC_BLACK_SHEEP] = black_sheep(st)
    r[RC_HAGGIS_TO] = st[S_HAGGIS_TO_SEAT]
    r[RC_TRICKS] = st[S_CAPTURES]
    r[RC_ACTIONS] = st[S_TURN_NO]
    for s in range(3):
        k = s * RC_SEAT_STRIDE
        seated = s < n
        r[RC_BET + k] = st[S_BET + s] if seated else -1
        r[RC_GOING_OUT + k] = st[S_GO + s] if seated else -1
        r[RC_CARDS + k] = st[S_SC_CARDS + s] if seated else -1
        r[RC_BETS + k] = st[S_SC_BETS + s] if seated else -1
        r[RC_BONUS + k] = st[S_SC_BONUS + s] if seated else -1
        r[RC_TOTAL + k] = st[S_SC_TOTAL + s] if seated else -1
    cursor[C_ROUND] = row + 1


@njit(cache=True)
def record_game(st, game_id, games, cursor):
    """Record a finished game."""
    row = cursor[C_GAME]
    g = games[row]
    g[GC_GAME] = game_id
    g[GC_WINNER] = st[S_WINNER]
    g[GC_ROUNDS] = st[S_ROUND_NO]
    for s in range(3):
        g[GC_SCORE + s * GC_SEAT_STRIDE] = st[S_SCORE + s] if s < st[S_NP] else -1
    cursor[C_GAME] = row + 1


def pack_logged_action(
    type_: int, width: int, length: int, rank: int, cards: int, value: int
) -> int:
    """The packed engine action of one logged move row (for replays)."""
    if type_ in (T_BET, T_GIVE):
        return (type_ << TYPE_SHIFT) | value
    if type_ == T_PASS:
        return PASS
    return int(pack(type_, width, length, rank, cards))
