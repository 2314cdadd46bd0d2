"""The public compiled API: what a compiled (numba) strategy may call.

A compiled strategy receives an *observation array* (``observe(state, seat)``: the
state with every hidden card zeroed, see :mod:`haggis_sim.engine.layout` for offsets),
a float64 parameter array and a splitmix64 stream, and returns a packed action. These
re-exports are the stable surface for that; strategies do not import the engine's
private modules.
"""

from __future__ import annotations

from .engine import layout
from .engine.bits import lowest_bit, popcount
from .engine.layout import (
    BET_VALUES,
    CARDS_MASK,
    FACE_SHIFT,
    MAX_MOVES,
    PH_GIVE_HAGGIS,
    PH_GIVE_TRICK,
    PH_PLAY,
    R_BASE,
    R_BET_MASK,
    S_BET,
    S_CAPT,
    S_HAND,
    S_NP,
    S_NSUITS,
    S_PHASE,
    S_PLAYED,
    S_SCORE,
    S_SIZE,
    S_TO_ACT,
    S_TOP,
    S_TOP_SEAT,
    S_TRICK_CARDS,
    SUIT_ALL,
    T_BET,
    T_BOMB,
    T_GIVE,
    T_PASS,
    T_SEQ,
    T_SET,
    TYPE_SHIFT,
)
from .engine.moves import (
    beats,
    generate,
    move_cards,
    move_length,
    move_rank,
    move_type,
    move_width,
)
from .engine.rng import below, derive, new_stream, next_u64, uniform
from .engine.state import can_bet, card_points, legal_actions, observe

__all__ = [
    "BET_VALUES",
    "CARDS_MASK",
    "FACE_SHIFT",
    "MAX_MOVES",
    "PH_GIVE_HAGGIS",
    "PH_GIVE_TRICK",
    "PH_PLAY",
    "R_BASE",
    "R_BET_MASK",
    "SUIT_ALL",
    "S_BET",
    "S_CAPT",
    "S_HAND",
    "S_NP",
    "S_NSUITS",
    "S_PHASE",
    "S_PLAYED",
    "S_SCORE",
    "S_SIZE",
    "S_TO_ACT",
    "S_TOP",
    "S_TOP_SEAT",
    "S_TRICK_CARDS",
    "TYPE_SHIFT",
    "T_BET",
    "T_BOMB",
    "T_GIVE",
    "T_PASS",
    "T_SEQ",
    "T_SET",
    "below",
    "beats",
    "can_bet",
    "card_points",
    "derive",
    "generate",
    "layout",
    "legal_actions",
    "lowest_bit",
    "move_cards",
    "move_length",
    "move_rank",
    "move_type",
    "move_width",
    "new_stream",
    "next_u64",
    "observe",
    "popcount",
    "uniform",
]
