"""An experiment's player populations: the :class:`Population` record a
``[[populations]]`` table is read into, and its sizing keys (:func:`sizing_keys`).

A population plays every arm again with strategies swapped, or with its own strategies in
place of each arm's. Its table is validated on its own first; its swaps, strategies and
sizing are then checked against the arms and the experiment (:func:`parse_populations`).
Every refusal is an :class:`.schema.ExperimentError` without the file's name: the
experiment's :func:`.schema.validate` puts it in front.
"""

from __future__ import annotations

from dataclasses import field, replace
from typing import Annotated, Any

from pydantic.dataclasses import dataclass

from strategies import make

from ..analytics.compare import RATE_METRICS
from ..runner.run import MAX_GAMES
from .arms import Arm, refuse_identical_arms
from .labels import swap_label
from .schema import (
    RECORD,
    BaseSetup,
    Budget,
    ExperimentError,
    Games,
    PopulationName,
    Precision,
    Says,
    Strategies,
    Table,
    Written,
    validate,
)

DEFAULT_BUDGET = 16  # games per arm sizing may reach, in first batches, unless 'budget' says


@dataclass(frozen=True, config=RECORD)
class Population(Table):
    """One player population: every arm is played again with ``swap`` applied to its
    strategies (canonical spec -> canonical spec), or with ``strategies`` in place of its
    own (every arm the same players: a rule-variant experiment's stronger entry 0 against
    weaker ones), ``games`` games per arm (with ``precision``: the first batch, grown up to
    ``budget``, see :func:`.play.size_arms`)."""

    SHOWN = ("name", "games", "swap", "strategies", "precision", "budget")
    REQUIRED = ("name",)

    name: PopulationName
    games: Games
    swap: Annotated[
        dict[str, str],
        Written(
            Annotated[dict[str, Any], Says("'swap' must be a table of SPEC = SPEC, got {value!r}")]
        ),
    ] = field(default_factory=dict)
    strategies: Strategies | None = None
    precision: Precision = None
    budget: Budget = None

    def apply(self, arm: Arm) -> Arm:
        """The arm as this population plays it (``strategies`` if given; otherwise the
        arm's own, those in ``swap`` replaced, and its label too: a label written for the
        arms as written names the swapped player, "heuristic–greedy 2p" is
        "heuristic–mcts 2p" where greedy is swapped for mcts, see :func:`swap_label`)."""
        if self.strategies is not None:
            return replace(arm, strategies=self.strategies)
        played = tuple(self.swap.get(s, s) for s in arm.strategies)
        swaps = {old: new for old, new in self.swap.items() if old in arm.strategies}
        label = swap_label(arm.label or arm.name, swaps)
        return replace(arm, strategies=played, label=label if swaps else arm.label)


def _canonical(spec: Any, what: str, where: str) -> str:
    if not isinstance(spec, str):
        raise ExperimentError(f"{where}{what} must be a strategy spec (a string), got {spec!r}")
    try:
        return make(spec).spec
    except ValueError as exc:
        raise ExperimentError(f"{where}{what} {spec!r}: {exc}") from None


def sizing_keys(
    precision: float | None, budget: int | None, games: int, metric: str, where: str = ""
) -> tuple[float | None, int | None]:
    """The checked ``(precision, budget)`` of one population (or of an experiment without
    populations) whose first batch is ``games``: the budget defaults to 16 × ``games``.

    ExperimentError for a precision of 1 or more on a rate (a rate's interval is never
    wider than ±1: 0.01 is ±1 point), a budget below the first batch, and a budget
    without a precision (it would bound nothing). Signs and types: :mod:`.schema`."""
    if precision is None:
        if budget is not None:
            raise ExperimentError(
                f"{where}'budget' goes with 'precision' (it caps the games sizing plays): "
                "give 'precision' too, or drop 'budget'"
            )
        return None, None
    if metric in RATE_METRICS and precision >= 1:
        raise ExperimentError(
            f"{where}'precision' must be below 1 for the rate {metric!r} (0.01 is a ±1-point "
            f"interval), got {precision}"
        )
    budget = DEFAULT_BUDGET * games if budget is None else budget
    if budget < games:
        raise ExperimentError(
            f"{where}'budget' ({budget:,}) must be at least 'games' ({games:,}), the first "
            "batch per arm"
        )
    return precision, min(budget, MAX_GAMES)


def parse_populations(
    tables: list[dict[str, Any]] | None, arms: list[Arm], exp: BaseSetup, entry: int | None
) -> tuple[Population, ...]:
    """Validate ``[[populations]]`` (``None``: the key is absent, no populations) of
    ``exp``, whose ``games``, ``precision`` and ``budget`` are still as its file gives them.

    Each population has a ``name`` (a folder name, like an arm's), optional ``games`` (per
    arm; default the experiment's), ``swap``, a table from a strategy spec the arms use
    to the spec that replaces it, or ``strategies``, the list every arm plays instead of
    its own (see :func:`_population_strategies`), and optional ``precision`` and ``budget``
    (default the experiment's; the default budget is 16 × the population's games, see
    :func:`sizing_keys`). Keys and values are compared as canonical specs, so
    ``"heuristic"`` matches an arm written ``"heuristic:bet=0.55"`` (the same policy).
    Refused with ExperimentError: fewer than two populations, an unknown key, a bad or
    duplicate or reserved name, a swap key or value that is not a strategy spec, a swap
    key no arm uses, ``strategies`` that cannot stand in for the arms', and a population
    that plays exactly what another one plays. ``entry`` is the strategies index an entry
    metric follows (None: no entry metric)."""
    if tables is None:
        return ()
    if len(tables) < 2:
        raise ExperimentError(
            "give at least two [[populations]] (the first is the baseline) or none"
        )
    used = {s for arm in arms for s in arm.strategies}
    out: list[Population] = []
    plays: dict[tuple[tuple[str, ...], ...], str] = {}
    for i, table in enumerate(tables):
        pw = f"population {table.get('name', i + 1)!r}: "
        pop = validate(Population, {"games": exp.games, **table}, pw)  # games: the experiment's
        if any(p.name == pop.name for p in out):
            raise ExperimentError(f"two populations are named {pop.name!r}")
        swap: dict[str, str] = {}
        for key, new in pop.swap.items():
            old = _canonical(key, "swap key", pw)
            if old not in used:
                raise ExperimentError(
                    f"{pw}swap key {key!r} is not a strategy any arm plays; the arms play "
                    f"{', '.join(sorted(used))}"
                )
            swap[old] = _canonical(new, f"swap value for {key!r}", pw)
        strats = _population_strategies(table, pop.strategies, arms, exp.seats, entry, pw)
        precision = exp.precision if pop.precision is None else pop.precision
        budget = exp.budget if precision is not None else None  # inherited with a precision
        precision, budget = sizing_keys(
            precision, budget if pop.budget is None else pop.budget, pop.games, exp.metric, pw
        )
        pop = replace(pop, swap=swap, strategies=strats, precision=precision, budget=budget)
        strategies = tuple(pop.apply(arm).strategies for arm in arms)
        if strategies in plays:  # the same deals again (the seed is shared): nothing new
            raise ExperimentError(
                f"{pw}plays the same strategies in every arm as population "
                f"{plays[strategies]!r}: give it a swap that changes an arm"
            )
        plays[strategies] = pop.name
        # a swap can make two arms one (early-vs-greedy becomes early-vs-late when the
        # heuristic replaces greedy): their games would count twice in the report
        refuse_identical_arms([pop.apply(arm) for arm in arms], pw)
        out.append(pop)
    return tuple(out)


def _population_strategies(
    table: dict[str, Any],
    specs: tuple[str, ...] | None,
    arms: list[Arm],
    seats: str,
    entry: int | None,
    pw: str,
) -> tuple[str, ...] | None:
    """A population's ``strategies`` (canonical), or None when it has none.

    They replace every arm's strategies, so the arms must differ only in their rules (what
    would tell arms with their own strategies apart is lost), and ``swap`` beside them is
    ambiguous (swap what: the arm's strategies, or these?). A pairing (two or more
    entries: a stronger entry 0 against weaker ones) needs rotated seats, or the seat's
    edge would count as the stronger player's skill. Refused with ExperimentError: both
    keys, arms with strategies of their own, more entries than an arm's seats, no entry
    ``entry``, a pairing under ``seats = "fixed"``."""
    if specs is None:
        return None
    if "swap" in table:
        raise ExperimentError(
            f"{pw}give either 'strategies' (every arm plays these) or 'swap' (replace "
            "strategies in each arm), not both: which applies to which would be ambiguous"
        )
    strats = tuple(_canonical(spec, "strategy", pw) for spec in specs)
    own = next((a for a in arms if a.strategies != arms[0].strategies), None)
    if own is not None:
        raise ExperimentError(
            f"{pw}'strategies' would replace the strategies that set arm {own.name!r} apart "
            f"from arm {arms[0].name!r}; use 'swap' there"
        )
    for arm in arms:
        if len(strats) > arm.players:
            raise ExperimentError(
                f"{pw}{len(strats)} strategies for the {arm.players} seats of arm {arm.name!r}"
            )
    if entry is not None and entry >= len(strats):
        raise ExperimentError(f"{pw}'entry' = {entry} but 'strategies' has {len(strats)} entries")
    if len(strats) > 1 and seats == "fixed":
        raise ExperimentError(
            f"{pw}'strategies' pairs {len(strats)} entries but the experiment has "
            'seats = "fixed": entry 0 would keep seat 0, and its seat\'s edge would count as '
            'skill; use seats = "rotate" (one strategy in every seat still plays one game '
            "a deal)"
        )
    return strats
