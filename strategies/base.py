"""The strategy interface: a named player with typed, validated parameters.

A strategy decides, from its own information set only (an :class:`haggis_sim.Observation`),
whether and what to bet, which play or pass, and who receives a bombed trick or the
Haggis when the rules make that a choice. Its randomness comes from the generator the
runner injects, seeded from (run seed, game id, seat).

Built-in strategies also have a compiled kernel (``compiled_id``) so whole games run in
compiled code; a strategy written in plain Python overrides :meth:`Strategy.act`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

import haggis_sim as hs
from haggis_sim.errors import InputError

from .kernels import PARAM_CHOICES, PARAM_SLOTS, PARAM_WIDTH

INERT = "<inert>"  # a policy key's value for a parameter that cannot change a decision


class StrategyError(InputError):
    """An unknown strategy, or bad parameters for one."""


class InertParameterError(StrategyError):
    """Parameter values that make one of the parameters inert (it could never act).

    Example: a heuristic whose Little-bet threshold ``bet`` is not below its Big-bet
    threshold ``big`` would never make a Little bet, so its ``bet`` value means nothing;
    such a strategy is refused when made rather than run as something it does not say.
    """


def _check_compiled_id(owner: str, cid: object) -> None:
    """TypeError naming class ``owner`` unless ``cid`` is None or a compiled kernel's id.

    An unknown id is a broken strategy class, not bad input: it is stopped before any
    game is played (the compiled dispatch raises too, as a last line).
    """
    if cid is None:
        return
    if isinstance(cid, bool) or not isinstance(cid, int) or cid not in PARAM_SLOTS:
        known = ", ".join(map(str, sorted(PARAM_SLOTS)))
        raise TypeError(
            f"strategy class {owner} has compiled_id {cid!r}, which names no compiled "
            f"kernel (known ids: {known}; None for a strategy written in Python)"
        )


@dataclass(frozen=True)
class Param:
    """One parameter: its name, type, default, allowed range or choices, and help."""

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None

    def parse(self, value: Any) -> Any:
        """Validate and convert ``value`` (text from the command line, or a Python value)."""
        try:
            if self.type is int and isinstance(value, float) and not value.is_integer():
                raise ValueError
            if self.type is bool and isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError
                v: Any = value.lower() in ("true", "1", "yes")
            else:
                v = self.type(value)
        except (TypeError, ValueError):
            raise StrategyError(
                f"parameter {self.name} takes {self.type.__name__}, got {value!r}"
            ) from None
        if isinstance(v, float) and not math.isfinite(v):
            raise StrategyError(f"parameter {self.name} must be a finite number, got {value!r}")
        if self.choices is not None and v not in self.choices:
            raise StrategyError(
                f"parameter {self.name} must be one of {', '.join(self.choices)}, got {value!r}"
            )
        if self.low is not None and v < self.low or self.high is not None and v > self.high:
            raise StrategyError(
                f"parameter {self.name} must be in [{self.low}, {self.high}], got {value!r}"
            )
        return v

    def describe(self) -> str:
        if self.choices:
            rng = "|".join(self.choices)
        elif self.low is not None or self.high is not None:
            rng = f"{self.low}..{self.high}"
        else:
            rng = self.type.__name__
        return f"{self.name}={self.default} ({rng}): {self.help}"


class Strategy:
    """Base class of every strategy. Subclasses set ``name``, ``description``, ``params``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    compiled_id: ClassVar[int | None] = None  # built-ins: id of the compiled kernel

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Reject a class whose ``compiled_id`` names no kernel, as soon as it is defined."""
        super().__init_subclass__(**kwargs)
        _check_compiled_id(cls.__qualname__, cls.compiled_id)

    def __init__(self, **values: Any) -> None:
        # checked again: compiled_id may have been changed after the class was defined
        _check_compiled_id(type(self).__qualname__, self.compiled_id)
        known = {p.name: p for p in self.params}
        for key in values:
            if key not in known:
                names = ", ".join(known) or "none"
                raise StrategyError(
                    f"strategy {self.name} has no parameter {key!r} (parameters: {names})"
                )
        self.values: dict[str, Any] = {
            p.name: p.parse(values[p.name]) if p.name in values else p.default for p in self.params
        }
        #: the parameters the spec named (the rest took their defaults): check_values may
        #: treat a parameter left unsaid differently from one given the same value
        self.given: frozenset[str] = frozenset(values)
        self.check_values()

    def check_values(self) -> None:
        """Refuse combinations of parameter values that could not mean what they say.

        Called once the values are parsed (:attr:`given` names the ones the spec said);
        a subclass raises :class:`InertParameterError` for a combination that leaves a
        parameter inert whatever the rules, and may settle a parameter left unsaid. The
        base class accepts every combination.
        """

    def policy_key(self, rules: hs.Rules) -> tuple[Any, ...]:
        """What decides this strategy's play under ``rules``: equal keys, equal decisions.

        Two strategies with equal keys under the same rules make the same decision in
        every position from the same random stream (experiments use this to refuse arms
        that would replay one policy). The base class keys on the name and every value;
        a subclass may replace a value that is inert under ``rules`` by a marker saying
        why (see :meth:`inert_params`), and must never merge values that can differ.
        """
        inert = self.inert_params(rules)
        return (self.name, *((k, INERT if k in inert else v) for k, v in self.values.items()))

    def inert_params(self, rules: hs.Rules) -> dict[str, str]:
        """Parameters whose value cannot change a decision under ``rules``, with the reason.

        The base class names none.
        """
        return {}

    @property
    def spec(self) -> str:
        """The strategy as ``name:param=value,...`` with every parameter explicit."""
        return hs.StrategySpec(self.name, tuple((k, str(v)) for k, v in self.values.items())).text

    def param_array(self) -> np.ndarray:
        """Parameters as the float64 array a compiled kernel reads (a choice: its index).

        A built-in (``compiled_id`` set) puts each parameter in the slot its kernel reads
        it from, by name (``strategies.kernels.PARAM_SLOTS``), so the order of ``params``
        is free; parameters and slots that do not match one to one raise TypeError (a
        kernel would otherwise read a wrong or missing value). Other strategies: the
        order of ``params``. Free-text parameters (no choices) leave their slot 0: a
        subclass that needs them reads them itself. The array has ``PARAM_WIDTH``
        entries (the widest kernel's slot count, so the runner can stack the arrays of a
        run), or one per parameter when a strategy without a kernel has more.
        """
        names = tuple(p.name for p in self.params)
        slots = names
        choices = {p.name: p.choices for p in self.params if p.choices}
        if self.compiled_id is not None:
            _check_compiled_id(type(self).__qualname__, self.compiled_id)
            slots = PARAM_SLOTS[self.compiled_id]
            if sorted(slots) != sorted(names):
                raise TypeError(
                    f"strategy {self.name}: parameters {', '.join(names) or 'none'} do not "
                    f"match its kernel's slots {', '.join(slots) or 'none'}"
                )
            for name, mine in choices.items():
                theirs = PARAM_CHOICES.get((self.compiled_id, name), ())
                if sorted(theirs) != sorted(mine):
                    raise TypeError(
                        f"strategy {self.name}: choices of {name} ({', '.join(mine)}) do not "
                        f"match its kernel's ({', '.join(theirs) or 'none'})"
                    )
                choices[name] = theirs
        out = np.zeros(max(PARAM_WIDTH, len(slots)), dtype=np.float64)
        for p in self.params:
            v = self.values[p.name]
            ch = choices.get(p.name)
            if ch:
                out[slots.index(p.name)] = ch.index(v)
            elif not isinstance(v, str):  # free text (a file name) has no number: slot 0
                out[slots.index(p.name)] = float(v)
        return out

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        """Choose one of the ``legal`` actions of the seat to act."""
        raise NotImplementedError(f"strategy {self.name} does not implement act()")

    def __repr__(self) -> str:
        return f"<strategy {self.spec}>"


def parse_spec(text: str) -> tuple[str, dict[str, str]]:
    """Split ``name:k=v,k=v`` into the name and raw parameter texts (StrategyError when it
    cannot be read; :class:`haggis_sim.StrategySpec` is the record this reads)."""
    try:
        spec = hs.StrategySpec.parse(text)
    except hs.SpecError as exc:
        raise StrategyError(str(exc)) from None
    return spec.name, spec.values()
