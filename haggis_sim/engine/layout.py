"""Encodings shared by the compiled core and the Python layer.

Cards
    A suit card of rank r (2..10) and suit s (0..4, letters a..e) is bit ``(r - 2) * 5 + s``
    (bits 0..44). Face cards belong to a seat: seat k's J, Q, K are bits ``45 + 3k``,
    ``46 + 3k``, ``47 + 3k``, so every physical card of a deal is one distinct bit and a pile
    of cards (hand, trick, captured pile, Haggis) is one ``int64``.

Moves
    A move is one ``int64``: bits 0..44 its suit cards, bits 45..47 its face cards
    *relative to the player* (J, Q, K), bits 48..51 rank, 52..55 length, 56..59 width,
    60..62 type. Sets have width = number of cards and length 1; bombs have width and
    length 0 and rank = bomb order 1..6. Two non-bomb moves are comparable exactly when
    ``move >> 52`` is equal. Pass is 0; bets and gives are further action types.

State
    A round or game is one ``int64`` array of ``STATE_SIZE`` entries at the offsets below
    (the rules flags are copied into it, from ``R_BASE`` on), so copying a position is a
    plain array copy.
"""

from __future__ import annotations

import numpy as np

# --- cards -------------------------------------------------------------------------------
N_SUIT_RANKS = 9  # ranks 2..10
N_SUITS_MAX = 5  # suits a..e
SUIT_BITS = N_SUIT_RANKS * N_SUITS_MAX
SUIT_ALL = (1 << SUIT_BITS) - 1
FACE_SHIFT = SUIT_BITS
FACES = ("J", "Q", "K")
J, Q, K = 1, 2, 4  # relative face bits
FACE_RANK = (11, 12, 13)
FACE_POINTS = (2, 3, 5)  # classic card points of J, Q, K
ODD_RANKS = (3, 5, 7, 9)  # classic card points: each of these suit cards is 1 point


def suit_bit(rank: int, suit: int) -> int:
    """The bit of the suit card of ``rank`` (2..10) and ``suit`` (0..4)."""
    return (rank - 2) * N_SUITS_MAX + suit


def face_bit(face: int, seat: int = 0) -> int:
    """The bit of face card ``face`` (0 J, 1 Q, 2 K) of ``seat``.

    Seat 0's bits are also the player-relative face bits of a packed move.
    """
    return FACE_SHIFT + len(FACES) * seat + face


# --- move packing ------------------------------------------------------------------------
CARDS_MASK = (1 << (FACE_SHIFT + len(FACES))) - 1
RANK_SHIFT = 48
LENGTH_SHIFT = 52
WIDTH_SHIFT = 56
TYPE_SHIFT = 60
SHAPE_SHIFT = 52

VALUE_MASK = 255  # bets and gives: the bet value or the receiving seat, in the low bits

# action types: the names are the logs' ``type`` values, the index is the packed type
ACTION_TYPES = ("pass", "set", "sequence", "bomb", "bet", "give")
T_PASS = ACTION_TYPES.index("pass")
T_SET = ACTION_TYPES.index("set")
T_SEQ = ACTION_TYPES.index("sequence")
T_BOMB = ACTION_TYPES.index("bomb")
T_BET = ACTION_TYPES.index("bet")
T_GIVE = ACTION_TYPES.index("give")

PASS = T_PASS << TYPE_SHIFT
if PASS != 0 or len(ACTION_TYPES) > 1 << (64 - 1 - TYPE_SHIFT):
    raise ImportError("action types: 'pass' must be type 0 and every type must fit the type bits")
# capacity of a move buffer (the worst hand found has 6,556 leads); the generator raises past it
MAX_MOVES = 16384

# --- rule flag values --------------------------------------------------------------------
# each flag's value names (haggis_sim.rules.CHOICES); the engine stores the index
BOMB_CAPTURE = ("winner_chooses", "tournament", "tournament_nonbomb")
HAGGIS_TO = ("shepherd", "last_to_play", "nobody")
CARD_POINTS = ("classic", "per_card")
BET_SETTLEMENT = ("takes_all", "split", "threshold")
LEAD_TIEBREAK = ("left_of_dealer", "left_of_previous_leader")
GAME_END = ("target", "rounds")
BC_WINNER_CHOOSES = BOMB_CAPTURE.index("winner_chooses")
BC_TOURNAMENT = BOMB_CAPTURE.index("tournament")
BC_TOURNAMENT_NONBOMB = BOMB_CAPTURE.index("tournament_nonbomb")
HT_SHEPHERD = HAGGIS_TO.index("shepherd")
HT_LAST_TO_PLAY = HAGGIS_TO.index("last_to_play")
HT_NOBODY = HAGGIS_TO.index("nobody")
CP_CLASSIC = CARD_POINTS.index("classic")
CP_PER_CARD = CARD_POINTS.index("per_card")
BS_TAKES_ALL = BET_SETTLEMENT.index("takes_all")
BS_SPLIT = BET_SETTLEMENT.index("split")
BS_THRESHOLD = BET_SETTLEMENT.index("threshold")
LT_LEFT_OF_DEALER = LEAD_TIEBREAK.index("left_of_dealer")
LT_LEFT_OF_PREVIOUS_LEADER = LEAD_TIEBREAK.index("left_of_previous_leader")
GE_TARGET = GAME_END.index("target")
GE_ROUNDS = GAME_END.index("rounds")

# --- rules array (copied into the state at R_BASE) ----------------------------------------
R_PLAYERS = 0
R_BOMB_CAPTURE = 1
R_HAGGIS_TO = 2
R_CARD_POINTS = 3
R_BONUS = 4
R_BET_MASK = 5  # the bets offered: bit 0 Baby, bit 1 Little, bit 2 Big (bet_values 5, 15, 30)
R_SETTLEMENT = 6
R_LEAD_TIEBREAK = 7
R_GAME_END = 8
R_END_VALUE = 9
R_OUT_POINTS = 10  # points per card of the largest opponent hand, to a player going out
R_FACE_POINTS = 11  # 3 entries: a captured J, Q, K's points under card_points classic
R_BET_POINTS = 14  # 3 entries: the points of a Baby, Little and Big bet, strictly increasing
N_RULES = 17
#: the published points of the Baby, Little and Big bets: the names of the bets in the
#: rules' bet_values (a bet move and S_BET carry the rules' points, R_BET_POINTS)
BET_VALUES = (5, 15, 30)

# --- phases (the names are haggis_sim.position.PHASES) -------------------------------------
PHASES = ("play", "give_trick", "give_haggis", "round_over", "game_over")
PH_PLAY = PHASES.index("play")
PH_GIVE_TRICK = PHASES.index("give_trick")
PH_GIVE_HAGGIS = PHASES.index("give_haggis")
PH_ROUND_OVER = PHASES.index("round_over")
PH_GAME_OVER = PHASES.index("game_over")

# --- state offsets -------------------------------------------------------------------------
S_NP = 0
S_NSUITS = 1
S_PHASE = 2
S_TO_ACT = 3
S_LEADER = 4  # leader of the current trick
S_TOP = 5  # packed top play of the current trick (0: none)
S_TOP_SEAT = 6
S_BEATEN_SEAT = 7  # seat of the play the top play beat (-1: the top play was the lead)
S_PASSES = 8  # consecutive passes since the last play
S_TRICK_NO = 9
S_TURN_NO = 10  # actions taken in this round
S_HAGGIS = 11
S_TRICK_CARDS = 12
S_N_OUT = 13
S_OUT = 14  # 3 entries: seats in the order they went out
S_HAND = 17  # 3 entries
S_CAPT = 20  # 3 entries
S_BET = 23  # 3 entries: the declared bet's points (R_BET_POINTS), 0 none
S_PLAYED = 26  # 3 entries: has played a card this round
S_GO = 29  # 3 entries: going-out points
S_SC_CARDS = 32  # 3 entries: captured-card points
S_SC_BETS = 35  # 3 entries
S_SC_BONUS = 38  # 3 entries
S_SC_TOTAL = 41  # 3 entries
S_LAST_NB = 44  # 3 entries: sequence number of the seat's last non-bomb play in this trick
S_PLAY_SEQ = 47
S_LAST_PLAYER = 48
S_FIRST_LEADER = 49
S_DEALER = 50
S_LAST_RECEIVER = 51  # who received the last finished trick (-1 none)
S_BLACK_LEFT = 52  # the black sheep's cards left at the end of the round
S_GAME = 53  # 1 when the state is a whole game (rounds are dealt from the seed)
S_SCORE = 54  # 3 entries: game totals before the current round
S_ROUND_NO = 57
S_PREV_FIRST_LEADER = 58
S_WINNER = 59
S_SEED = 60  # the game's deal seed
S_HAGGIS_TO_SEAT = 61  # who received the Haggis (-1 nobody)
S_SIZE = 62  # 3 entries: hand sizes, filled only in observations
S_CAPTURES = 65  # tricks captured so far this round
R_BASE = 66
STATE_SIZE = R_BASE + N_RULES


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    range_mask = np.zeros((16, 16), dtype=np.int64)
    for r0 in range(2, 11):
        for r1 in range(r0, 11):
            m = 0
            for r in range(r0, r1 + 1):
                m |= 31 << (5 * (r - 2))
            range_mask[r0, r1] = m
    lane = np.zeros(32, dtype=np.int64)
    for s in range(32):
        m = 0
        for r in range(N_SUIT_RANKS):
            m |= s << (5 * r)
        lane[s] = m
    face_all = np.zeros(3, dtype=np.int64)
    for f in range(3):
        face_all[f] = sum(1 << face_bit(f, seat) for seat in range(3))
    return range_mask, lane, face_all


RANGE_MASK, LANE, FACE_ALL = _tables()
ODD_MASK = sum(1 << suit_bit(r, s) for r in ODD_RANKS for s in range(N_SUITS_MAX))
JACKS = int(FACE_ALL[0])
QUEENS = int(FACE_ALL[1])
KINGS = int(FACE_ALL[2])
