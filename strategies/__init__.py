"""Strategies for haggis-sim: the plug-in interface, the registry and the built-in players.

Only the public API of :mod:`haggis_sim` (and its compiled surface
:mod:`haggis_sim.kernel`) is used here.
"""

from __future__ import annotations

from .base import Param, Strategy, StrategyError, parse_spec
from .builtin import BUILTIN, CompiledStrategy, GreedyStrategy, RandomStrategy
from .registry import ENTRY_POINT_GROUP, known, make, register

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "CompiledStrategy",
    "GreedyStrategy",
    "Param",
    "RandomStrategy",
    "Strategy",
    "StrategyError",
    "known",
    "make",
    "parse_spec",
    "register",
]
