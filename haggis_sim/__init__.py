"""haggis-sim: play Haggis exactly by the rules, fast, and measure strategies and variants.

The public API is a thin typed layer over the compiled engine in :mod:`haggis_sim.engine`.
"""

from __future__ import annotations

from ._cache import compiled_cache

with compiled_cache():
    from . import kernel
    from .cards import Cards, parse_cards
    from .combos import Combo, beats, legal_plays, readings
    from .errors import IllegalAction
    from .position import Action, Game, Observation, Round, RoundResult, game_seed
    from .rules import PRESETS, Rules

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Action",
    "Cards",
    "Combo",
    "Game",
    "IllegalAction",
    "Observation",
    "Round",
    "RoundResult",
    "Rules",
    "__version__",
    "beats",
    "game_seed",
    "kernel",
    "legal_plays",
    "parse_cards",
    "readings",
]
