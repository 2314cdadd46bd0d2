"""Strategies for haggis-sim: the plug-in interface, the registry and the built-in players.

Only the public API of :mod:`haggis_sim` (and its compiled surface
:mod:`haggis_sim.kernel`) is used here.
"""

from __future__ import annotations

from . import kernels
from .advised import AdvisedStrategy  # registers ``advised`` (a base that follows advice)
from .base import Param, Strategy, StrategyError, parse_spec
from .builtin import (
    BUILTIN,
    CompiledStrategy,
    GreedyStrategy,
    HeuristicStrategy,
    RandomStrategy,
    is_compiled,
)
from .human import HumanStrategy  # registers ``human`` (refused outside haggis-sim play)
from .registry import ENTRY_POINT_GROUP, known, make, register

__all__ = [
    "AdvisedStrategy",
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "CompiledStrategy",
    "GreedyStrategy",
    "HeuristicStrategy",
    "HumanStrategy",
    "Param",
    "RandomStrategy",
    "Strategy",
    "StrategyError",
    "is_compiled",
    "kernels",
    "known",
    "make",
    "parse_spec",
    "register",
]
