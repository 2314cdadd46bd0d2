"""The human player: a strategy whose decisions come from a person (``haggis-sim play``).

The runner plays a :class:`HumanStrategy` like any strategy written in Python: it calls
:meth:`HumanStrategy.act` with the seat's own observation and its legal actions. The
decision comes from a *controller* (the terminal UI of ``haggis-sim play``), attached for
the length of one game with :func:`seated`. Outside :func:`seated` a human cannot be made:
a tournament (``haggis-sim run``, an experiment, ``run --resume`` of a played game) must
never wait for a person, so ``strategies.make("human")`` is refused there with one line.
Its manifest still names the seat honestly: strategy ``human``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

import haggis_sim as hs

from .base import Strategy, StrategyError
from .registry import register

REFUSAL = (
    "strategy human is a person at the terminal: it plays only in "
    "`haggis-sim play --vs SPEC`, never in run, experiment or run --resume"
)


class Controller(Protocol):
    """What answers for a human seat: one legal action for an observation."""

    def decide(self, observation: hs.Observation, legal: list[hs.Action]) -> hs.Action:
        """The action the person chose (one of ``legal``)."""
        ...


_seated: list[Controller] = []


@contextmanager
def seated(controller: Controller) -> Iterator[None]:
    """Let :class:`HumanStrategy` be made, answering through ``controller``, in this block."""
    _seated.append(controller)
    try:
        yield
    finally:
        _seated.remove(controller)


class HumanStrategy(Strategy):
    name = "human"
    description = (
        "You, at the terminal: only in `haggis-sim play --vs SPEC` (run, experiments and "
        "--resume refuse it)."
    )
    params = ()

    def __init__(self, **values: Any) -> None:
        if not _seated:
            raise StrategyError(REFUSAL)
        super().__init__(**values)
        self.controller = _seated[-1]

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        """Ask the person (through the controller) which legal action to take."""
        return self.controller.decide(observation, legal)


register(HumanStrategy)
