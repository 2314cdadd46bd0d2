"""Finding strategies by name: the built-ins plus the ``haggis_sim.strategies`` entry points.

A package adds its own strategy without touching this repository by declaring, in its
``pyproject.toml``::

    [project.entry-points."haggis_sim.strategies"]
    mine = "my_package.module:MyStrategy"
"""

from __future__ import annotations

from importlib.metadata import entry_points

import haggis_sim as hs

from .base import Strategy, StrategyError, parse_spec
from .builtin import BUILTIN
from .migrations import migrate

ENTRY_POINT_GROUP = "haggis_sim.strategies"
_extra: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    """Register a strategy class under its ``name`` (usable as a class decorator)."""
    if not cls.name:
        raise StrategyError(f"{cls.__name__} has no name")
    _extra[cls.name] = cls
    return cls


def known() -> dict[str, type[Strategy]]:
    """Every strategy by name: built-ins, then registered ones, then entry points."""
    found: dict[str, type[Strategy]] = dict(BUILTIN)
    found.update(_extra)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in found:
            continue
        try:
            cls = ep.load()
        except Exception as exc:  # a broken plug-in must not hide the others
            raise StrategyError(f"strategy plug-in {ep.name!r} failed to load: {exc}") from exc
        if not (isinstance(cls, type) and issubclass(cls, Strategy)):
            raise StrategyError(f"entry point {ep.name!r} is not a Strategy subclass")
        found[ep.name] = cls
    return found


def make(spec: str | hs.StrategySpec) -> Strategy:
    """A strategy from ``name`` or ``name:param=value,...`` (text typed today) or from a
    :class:`haggis_sim.StrategySpec` of any version (a recorded one is migrated first,
    :mod:`strategies.migrations`); StrategyError if unknown or bad."""
    if isinstance(spec, hs.StrategySpec):
        record = migrate(spec)
        name, values = record.name, record.values()
    else:
        name, values = parse_spec(spec)
    table = known()
    if name not in table:
        raise StrategyError(f"unknown strategy {name!r}; known: {', '.join(sorted(table))}")
    return table[name](**values)
