"""The environments' observation vector: one seat's information set as fixed-size numbers.

The vector is computed (compiled) from the engine's observation array of the seat
(``observe``: its own hand and public information, every hidden card zeroed), so it
cannot hold what the seat may not see. Seats are *relative*: block 0 is the observing
seat, block 1 the next seat in turn order, block 2 the one after (all zero with two
players). Card fields hold one entry per suit card (index ``(rank - 2) * 5 + suit``,
suits a..e = 0..4) and then the number of J, Q and K among the cards. Counts and points
are raw numbers (not scaled).

:data:`FIELDS` lists the layout in order (name, size, meaning); the docs' table is
printed from it.
"""

from __future__ import annotations

import numpy as np

from .._cache import njit
from ..kernel import bet_slot, observe, popcount
from ..kernel import layout as L

#: points and counts: large enough for any game the rules validator admits
BIG = 1.0e6
N_CARD = 48  # 45 suit cards, then the counts of J, Q, K
SEAT_FIELDS: tuple[tuple[str, int, float, str], ...] = (
    ("present", 1, 1.0, "1 when this seat is in the game (0: the third block of 2 players)"),
    ("hand_size", 1, 17.0, "cards in hand"),
    ("faces_held", 3, 1.0, "J, Q, K still in this seat's hand (face cards are public)"),
    ("bet", 3, 1.0, "declared bet: one-hot over Baby, Little, Big (5, 15, 30 as published)"),
    ("has_played", 1, 1.0, "has played a card this round"),
    ("out_place", 3, 1.0, "went out 1st, 2nd, 3rd this round (one-hot)"),
    ("captured", N_CARD, 3.0, "cards captured this round (suit cards, then J/Q/K counts)"),
    ("score", 1, BIG, "game points before this round"),
    ("round_points", 1, BIG, "points of this round (set once the round is scored)"),
)
SEAT_SIZE = sum(f[1] for f in SEAT_FIELDS)

FIELDS: tuple[tuple[str, int, float, str], ...] = (
    ("hand", N_CARD, 1.0, "own cards: suit cards, then own J, Q, K held"),
    ("phase", 5, 1.0, "one-hot: play, give_trick, give_haggis, round_over, game_over"),
    ("to_act", 3, 1.0, "relative seat to act (one-hot; zero when nobody is)"),
    ("leader", 3, 1.0, "relative seat that led the current trick (one-hot)"),
    ("top_seat", 3, 1.0, "relative seat of the top play (one-hot; zero when none)"),
    ("top_kind", 4, 1.0, "top play's kind, one-hot: none, set, sequence, bomb"),
    ("top_shape", 3, 15.0, "top play's width, length and rank (bombs: 0, 0, order 1..6)"),
    ("top_cards", N_CARD, 1.0, "top play's cards (faces: J, Q, K of its player)"),
    ("trick_cards", N_CARD, 3.0, "every card in the current trick"),
    ("played", N_CARD, 3.0, "every card played this round (captured piles and trick)"),
    ("passes", 1, 3.0, "consecutive passes since the last play"),
    ("trick_no", 1, BIG, "tricks begun this round"),
    ("round_no", 1, BIG, "rounds finished in this game"),
    ("seat_0", SEAT_SIZE, BIG, "the observing seat: per-seat fields (below)"),
    ("seat_1", SEAT_SIZE, BIG, "the next seat in turn order"),
    ("seat_2", SEAT_SIZE, BIG, "the seat after that (zero with 2 players)"),
    ("players", 2, 1.0, "rules: 2 or 3 players (one-hot)"),
    ("bomb_capture", 3, 1.0, "rules: winner_chooses, tournament, tournament_nonbomb"),
    ("haggis_to", 3, 1.0, "rules: shepherd, last_to_play, nobody"),
    ("card_points", 2, 1.0, "rules: classic, per_card"),
    ("first_out_bonus", 1, BIG, "rules: points to the first out"),
    ("bet_values", 3, 1.0, "rules: Baby, Little, Big bets allowed (named 5, 15, 30)"),
    ("bet_settlement", 3, 1.0, "rules: takes_all, split, threshold"),
    ("lead_tiebreak", 2, 1.0, "rules: left_of_dealer, left_of_previous_leader"),
    ("game_end", 2, 1.0, "rules: target score, number of rounds"),
    ("end_value", 1, BIG, "rules: the target score or the number of rounds"),
    ("out_points", 1, BIG, "rules: points per card of the largest hand, to a player out"),
    ("face_points", 3, BIG, "rules: a captured J, Q, K's points (card_points classic)"),
    ("bet_points", 3, BIG, "rules: a Baby, Little and Big bet's points"),
)
SIZE = sum(f[1] for f in FIELDS)


def offsets() -> dict[str, int]:
    """Where each field of :data:`FIELDS` starts in the vector."""
    out, at = {}, 0
    for name, size, _, _ in FIELDS:
        out[name] = at
        at += size
    return out


def bounds() -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every entry: the observation space's box."""
    high = np.empty(SIZE, dtype=np.float32)
    at = 0
    for name, size, top, _ in FIELDS:
        if name.startswith("seat_"):
            k = at
            for _, sz, t, _ in SEAT_FIELDS:
                high[k : k + sz] = t
                k += sz
        else:
            high[at : at + size] = top
        at += size
    return np.zeros(SIZE, dtype=np.float32), high


_OFF = offsets()
O_HAND = _OFF["hand"]
O_PHASE = _OFF["phase"]
O_TO_ACT = _OFF["to_act"]
O_LEADER = _OFF["leader"]
O_TOP_SEAT = _OFF["top_seat"]
O_TOP_KIND = _OFF["top_kind"]
O_TOP_SHAPE = _OFF["top_shape"]
O_TOP_CARDS = _OFF["top_cards"]
O_TRICK = _OFF["trick_cards"]
O_PLAYED = _OFF["played"]
O_PASSES = _OFF["passes"]
O_TRICK_NO = _OFF["trick_no"]
O_ROUND_NO = _OFF["round_no"]
O_SEATS = _OFF["seat_0"]
O_PLAYERS = _OFF["players"]
O_BOMB_CAPTURE = _OFF["bomb_capture"]
O_HAGGIS_TO = _OFF["haggis_to"]
O_CARD_POINTS = _OFF["card_points"]
O_BONUS = _OFF["first_out_bonus"]
O_BET_VALUES = _OFF["bet_values"]
O_SETTLEMENT = _OFF["bet_settlement"]
O_TIEBREAK = _OFF["lead_tiebreak"]
O_GAME_END = _OFF["game_end"]
O_END_VALUE = _OFF["end_value"]
O_OUT_POINTS = _OFF["out_points"]
O_FACE_POINTS = _OFF["face_points"]
O_BET_POINTS = _OFF["bet_points"]
_SOFF: dict[str, int] = {}
_at = 0
for _field in SEAT_FIELDS:
    _SOFF[_field[0]] = _at
    _at += _field[1]
P_PRESENT = _SOFF["present"]
P_SIZE = _SOFF["hand_size"]
P_FACES = _SOFF["faces_held"]
P_BET = _SOFF["bet"]
P_PLAYED = _SOFF["has_played"]
P_OUT = _SOFF["out_place"]
P_CAPT = _SOFF["captured"]
P_SCORE = _SOFF["score"]
P_ROUND = _SOFF["round_points"]


@njit(cache=True)
def _cards(mask, out, at):
    """Suit cards as 45 entries, then the counts of J, Q and K (any seat's)."""
    m = mask & L.SUIT_ALL
    while m != 0:
        low = m & -m
        out[at + popcount(low - 1)] = 1.0
        m ^= low
    out[at + 45] = popcount(mask & L.JACKS)
    out[at + 46] = popcount(mask & L.QUEENS)
    out[at + 47] = popcount(mask & L.KINGS)


@njit(cache=True)
def _rel(seat, me, n):
    return (seat - me + n) % n


@njit(cache=True)
def encode_observation(obs, me, out):
    """Write the vector of seat ``me`` from its observation array ``obs`` into ``out``
    (zeroed by the caller)."""
    n = obs[L.S_NP]
    hand = obs[L.S_HAND + me]
    _cards(hand & L.SUIT_ALL, out, O_HAND)
    for f in range(3):
        out[O_HAND + 45 + f] = (hand >> (L.FACE_SHIFT + 3 * me + f)) & 1
    out[O_PHASE + obs[L.S_PHASE]] = 1.0
    ph = obs[L.S_PHASE]
    if obs[L.S_TO_ACT] >= 0 and ph != L.PH_ROUND_OVER and ph != L.PH_GAME_OVER:
        out[O_TO_ACT + _rel(obs[L.S_TO_ACT], me, n)] = 1.0
    out[O_LEADER + _rel(obs[L.S_LEADER], me, n)] = 1.0
    top = obs[L.S_TOP]
    if top != 0 and obs[L.S_TOP_SEAT] >= 0:
        out[O_TOP_SEAT + _rel(obs[L.S_TOP_SEAT], me, n)] = 1.0
        out[O_TOP_KIND + ((top >> L.TYPE_SHIFT) & 7)] = 1.0
        out[O_TOP_SHAPE] = (top >> L.WIDTH_SHIFT) & 15
        out[O_TOP_SHAPE + 1] = (top >> L.LENGTH_SHIFT) & 15
        out[O_TOP_SHAPE + 2] = (top >> L.RANK_SHIFT) & 15
        _cards(top & L.SUIT_ALL, out, O_TOP_CARDS)
        for f in range(3):
            out[O_TOP_CARDS + 45 + f] = (top >> (L.FACE_SHIFT + f)) & 1
    else:
        out[O_TOP_KIND] = 1.0
    trick = obs[L.S_TRICK_CARDS]
    _cards(trick, out, O_TRICK)
    played = trick
    for s in range(n):
        played |= obs[L.S_CAPT + s]
    _cards(played, out, O_PLAYED)
    out[O_PASSES] = obs[L.S_PASSES]
    out[O_TRICK_NO] = obs[L.S_TRICK_NO]
    out[O_ROUND_NO] = obs[L.S_ROUND_NO]
    for r in range(n):
        s = (me + r) % n
        b = O_SEATS + r * SEAT_SIZE
        out[b + P_PRESENT] = 1.0
        out[b + P_SIZE] = obs[L.S_SIZE + s]
        for f in range(3):
            out[b + P_FACES + f] = (obs[L.S_HAND + s] >> (L.FACE_SHIFT + 3 * s + f)) & 1
        kind = bet_slot(obs, obs[L.S_BET + s])
        if kind >= 0:
            out[b + P_BET + kind] = 1.0
        out[b + P_PLAYED] = 1.0 if obs[L.S_PLAYED + s] != 0 else 0.0
        for i in range(obs[L.S_N_OUT]):
            if obs[L.S_OUT + i] == s:
                out[b + P_OUT + i] = 1.0
        _cards(obs[L.S_CAPT + s], out, b + P_CAPT)
        out[b + P_SCORE] = obs[L.S_SCORE + s]
        if ph == L.PH_ROUND_OVER or ph == L.PH_GAME_OVER:
            out[b + P_ROUND] = obs[L.S_SC_TOTAL + s]
    rb = L.R_BASE
    out[O_PLAYERS + n - 2] = 1.0
    out[O_BOMB_CAPTURE + obs[rb + L.R_BOMB_CAPTURE]] = 1.0
    out[O_HAGGIS_TO + obs[rb + L.R_HAGGIS_TO]] = 1.0
    out[O_CARD_POINTS + obs[rb + L.R_CARD_POINTS]] = 1.0
    out[O_BONUS] = obs[rb + L.R_BONUS]
    for j in range(3):
        out[O_BET_VALUES + j] = (obs[rb + L.R_BET_MASK] >> j) & 1
    out[O_SETTLEMENT + obs[rb + L.R_SETTLEMENT]] = 1.0
    out[O_TIEBREAK + obs[rb + L.R_LEAD_TIEBREAK]] = 1.0
    out[O_GAME_END + obs[rb + L.R_GAME_END]] = 1.0
    out[O_END_VALUE] = obs[rb + L.R_END_VALUE]
    out[O_OUT_POINTS] = obs[rb + L.R_OUT_POINTS]
    for j in range(3):
        out[O_FACE_POINTS + j] = obs[rb + L.R_FACE_POINTS + j]
        out[O_BET_POINTS + j] = obs[rb + L.R_BET_POINTS + j]


@njit(cache=True)
def encode_state(st, me, out):
    """:func:`encode_observation` of seat ``me`` at the full state ``st`` (observed first,
    so nothing hidden from the seat reaches the vector)."""
    encode_observation(observe(st, me), me, out)
