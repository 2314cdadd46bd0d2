"""haggis-sim: play Haggis exactly by the rules, fast, and measure strategies and variants.

The public API is a thin typed layer over the compiled engine in :mod:`haggis_sim.engine`.
Its names are imported on first use (``hs.Game`` loads the engine), so that tools which
only need a corner of the package, such as ``haggis-sim --help``, start fast. The names
here are the typed API only; tournaments, which play through the runner, are imported
from the runner's own module (docs/api.md). :func:`compile_notes` turns off (or on) the
note on standard error with which a process says that it compiles the engine (docs/cache.md).
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

from ._lazy import lazy_names

try:  # the one definition is pyproject.toml's ``version``
    __version__ = importlib.metadata.version("haggis-sim")
except importlib.metadata.PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

# public name -> the module that defines it
_API = {
    "compile_notes": "haggis_sim._cache",
    "kernel": "haggis_sim.kernel",
    "Cards": "haggis_sim.cards",
    "parse_cards": "haggis_sim.cards",
    "Combo": "haggis_sim.combos",
    "beats": "haggis_sim.combos",
    "legal_plays": "haggis_sim.combos",
    "readings": "haggis_sim.combos",
    "IllegalAction": "haggis_sim.errors",
    "InputError": "haggis_sim.errors",
    "Action": "haggis_sim.position",
    "Game": "haggis_sim.position",
    "Observation": "haggis_sim.position",
    "Round": "haggis_sim.position",
    "RoundResult": "haggis_sim.position",
    "game_seed": "haggis_sim.position",
    "PRESETS": "haggis_sim.presets",
    "Rules": "haggis_sim.rules",
    "SPEC_VERSION": "haggis_sim.strategy_spec",
    "SpecError": "haggis_sim.strategy_spec",
    "StrategySpec": "haggis_sim.strategy_spec",
    "UNVERSIONED": "haggis_sim.strategy_spec",
}

if TYPE_CHECKING:
    from . import kernel
    from ._cache import compile_notes
    from .cards import Cards, parse_cards
    from .combos import Combo, beats, legal_plays, readings
    from .errors import IllegalAction, InputError
    from .position import Action, Game, Observation, Round, RoundResult, game_seed
    from .presets import PRESETS
    from .rules import Rules
    from .strategy_spec import SPEC_VERSION, UNVERSIONED, SpecError, StrategySpec


__getattr__, __dir__ = lazy_names(__name__, _API, globals())


__all__ = [
    "PRESETS",
    "Action",
    "Cards",
    "Combo",
    "Game",
    "IllegalAction",
    "InputError",
    "Observation",
    "Round",
    "RoundResult",
    "Rules",
    "SPEC_VERSION",
    "SpecError",
    "StrategySpec",
    "UNVERSIONED",
    "__version__",
    "beats",
    "compile_notes",
    "game_seed",
    "kernel",
    "legal_plays",
    "parse_cards",
    "readings",
]
