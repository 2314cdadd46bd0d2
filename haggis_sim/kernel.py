"""The public compiled API: what compiled (numba) code above the engine may call.

A compiled strategy receives an *observation array* (``observe(state, seat)``: the
state with every hidden card zeroed, see :data:`layout` for offsets), a float64
parameter array and a splitmix64 stream, and returns a packed action
(:func:`random_action` is the random player's). These re-exports are the stable surface
for that; nothing above the typed API imports the engine's private modules
(``haggis_sim.engine``), ``tests/test_layers.py`` checks it.

Beside a strategy's surface, the compiled game loops above the engine (the runner, the
RL environments, training) drive a game with :func:`init_state`, :func:`start_game`,
:func:`next_round` and :func:`apply_action`, and record it with :data:`record`: the log
record's columns (``MOVE_COLUMNS``, ``ROUND_COLUMNS``, ``GAME_COLUMNS`` and their
indices, which the log schema reads) and its compiled recorders. The names are the
engine's own objects (same compiled functions, same constants).
"""

from __future__ import annotations

from ._cache import Compiled, njit
from .engine import layout, record
from .engine.bits import lowest_bit, popcount
from .engine.layout import (
    BET_VALUES,
    CARDS_MASK,
    FACE_SHIFT,
    GE_ROUNDS,
    MAX_MOVES,
    PH_GIVE_HAGGIS,
    PH_GIVE_TRICK,
    PH_PLAY,
    PH_ROUND_OVER,
    R_BASE,
    R_BET_MASK,
    R_END_VALUE,
    R_GAME_END,
    S_BET,
    S_BLACK_LEFT,
    S_CAPT,
    S_GAME,
    S_HAGGIS,
    S_HAND,
    S_N_OUT,
    S_NP,
    S_NSUITS,
    S_OUT,
    S_PHASE,
    S_PLAYED,
    S_ROUND_NO,
    S_SC_TOTAL,
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
    pack,
)
from .engine.rng import below, derive, new_stream, next_u64, uniform
from .engine.state import (
    apply_action,
    can_bet,
    card_points,
    init_state,
    legal_actions,
    next_round,
    observe,
    random_action,
    start_game,
)

__all__ = [
    "Compiled",
    "njit",
    "BET_VALUES",
    "CARDS_MASK",
    "FACE_SHIFT",
    "GE_ROUNDS",
    "MAX_MOVES",
    "PH_GIVE_HAGGIS",
    "PH_GIVE_TRICK",
    "PH_PLAY",
    "PH_ROUND_OVER",
    "R_BASE",
    "R_BET_MASK",
    "R_END_VALUE",
    "R_GAME_END",
    "SUIT_ALL",
    "S_BET",
    "S_BLACK_LEFT",
    "S_CAPT",
    "S_GAME",
    "S_HAGGIS",
    "S_HAND",
    "S_NP",
    "S_N_OUT",
    "S_NSUITS",
    "S_OUT",
    "S_PHASE",
    "S_PLAYED",
    "S_ROUND_NO",
    "S_SC_TOTAL",
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
    "apply_action",
    "below",
    "beats",
    "can_bet",
    "card_points",
    "derive",
    "generate",
    "init_state",
    "layout",
    "legal_actions",
    "lowest_bit",
    "move_cards",
    "move_length",
    "move_rank",
    "move_type",
    "move_width",
    "new_stream",
    "next_round",
    "next_u64",
    "observe",
    "pack",
    "popcount",
    "random_action",
    "record",
    "start_game",
    "uniform",
]
