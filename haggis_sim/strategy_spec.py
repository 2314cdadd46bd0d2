"""A strategy spec as a value: its name, its parameters as written, and the format version
of the parameters' meaning.

A spec is written ``name`` or ``name:key=value,key=value`` on the command line, in an
experiment file and in a run's manifest. It is parsed here, once, where it arrives; every
other module asks the record (``.name``, ``.get``, ``.values``) instead of taking the text
apart. A spec recorded by a run carries the version its parameters meant then, so that
``strategies`` can lift an older recording to today's parameters through one migration
table (:mod:`strategies.migrations`).

>>> spec = StrategySpec.parse(" mcts : iters=64 , value=game")
>>> spec.name, spec.get("iters"), spec.get("c")
('mcts', '64', None)
>>> str(spec)
'mcts:iters=64,value=game'
>>> StrategySpec.parse("greedy").text
'greedy'
>>> StrategySpec.parse("mcts:iters")
Traceback (most recent call last):
...
haggis_sim.strategy_spec.SpecError: strategy parameters are k=v, got 'iters' in 'mcts:iters'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import InputError

#: the meaning of a spec's parameters today. 1: recorded where no spec version is named;
#: 2: with mcts's prior, mix, qinit and horizon; 3: today's parameters, with mcts's sure
#: (the migration table lifts each version to the next)
SPEC_VERSION = 3
#: the version of a spec recorded where no version is named: a manifest without
#: ``spec_version``, an experiment summary, a model file's provenance. A recorded spec
#: writes every parameter out, so reading a later one at this version changes nothing
UNVERSIONED = 1


class SpecError(InputError):
    """A strategy spec that cannot be read: empty name, a parameter not ``k=v``, or a key
    given twice."""


@dataclass(frozen=True)
class StrategySpec:
    """One strategy with its parameters, as given (values are texts; the strategy's own
    parameter declarations type and check them when it is made)."""

    name: str
    params: tuple[tuple[str, str], ...] = ()
    version: int = SPEC_VERSION

    @classmethod
    def parse(cls, text: str, version: int = SPEC_VERSION) -> StrategySpec:
        """The spec written in ``text``; SpecError (one line) when it cannot be read."""
        if not isinstance(text, str):
            raise SpecError(f"a strategy spec is text like 'mcts:iters=64', got {text!r}")
        name, _, rest = text.strip().partition(":")
        if not name.strip():
            raise SpecError(f"empty strategy name in {text!r}")
        values: dict[str, str] = {}
        for item in filter(None, (x.strip() for x in rest.split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise SpecError(f"strategy parameters are k=v, got {item!r} in {text!r}")
            if key.strip() in values:
                raise SpecError(f"parameter {key.strip()!r} given twice in {text!r}")
            values[key.strip()] = value.strip()
        return cls(name.strip(), tuple(values.items()), version)

    @classmethod
    def of(cls, spec: str | StrategySpec) -> StrategySpec:
        """``spec`` itself when it is a record, else the record its text writes."""
        return spec if isinstance(spec, StrategySpec) else cls.parse(spec)

    @property
    def text(self) -> str:
        """The spec as written: ``name`` or ``name:k=v,...`` in the parameters' order."""
        if not self.params:
            return self.name
        return f"{self.name}:{','.join(f'{k}={v}' for k, v in self.params)}"

    def __str__(self) -> str:
        return self.text

    def values(self) -> dict[str, str]:
        """The parameters given, by name (texts as written)."""
        return dict(self.params)

    def get(self, key: str, default: str | None = None) -> str | None:
        """The text given for parameter ``key``, else ``default``."""
        return dict(self.params).get(key, default)

    def with_params(self, params: Mapping[str, str]) -> StrategySpec:
        """This spec with ``params`` set (added at the end when new), same version."""
        merged = dict(self.params)
        merged.update(params)
        return StrategySpec(self.name, tuple(merged.items()), self.version)
