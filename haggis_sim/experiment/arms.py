"""An experiment's arms: the :class:`Arm` record an ``[[arms]]`` table is read into, the
:class:`Grid` record of ``[grid]`` and the arms it sweeps, and the checks of the arms
against each other.

An ``[[arms]]`` table changes some of the experiment's base setup: its ``rules`` preset,
``players`` and ``strategies`` replace the base's, its ``rule`` flags go over the base's,
and the record holds the result (the rules built, canonical strategy specs). Every
refusal is an :class:`.schema.ExperimentError` without the file's name: the experiment's
:func:`.schema.validate` puts it in front.
"""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, Any, Self

from pydantic import Field, ValidationInfo, model_validator
from pydantic.dataclasses import dataclass
from pydantic_core import ArgsKwargs

from strategies import make

from ..analytics.compare import ENTRY_METRICS
from ..rules import Rules
from ..strategy_spec import StrategySpec
from .schema import (
    ARM_NAME,
    RECORD,
    RESERVED,
    BaseSetup,
    ExperimentError,
    Label,
    Listed,
    Players,
    Preset,
    Says,
    Strategies,
    Table,
    Written,
    build_rules,
)


@dataclass(frozen=True, config=RECORD)
class Arm(Table):
    """One arm: a complete run configuration (strategies and rules) of the experiment,
    and how pages show it: a short ``label`` ("" for none: pages make one), whether it is
    a ``head_to_head`` arm (its opponent differs from the baseline's, so it is reported
    apart from the ranking against the baseline) and its place ``at`` on the
    experiment's axis (None: not on it).

    ``players`` are the seats of ``rules`` and ``rule`` the flags over the preset they
    were built with; a table gives a preset name as ``rules`` and its own ``players`` and
    ``rule`` flags over the experiment's (the ``base`` :func:`.schema.validate` is given)."""

    SHOWN = ("name", "strategies", "rules", "players", "rule", "label", "head_to_head", "at")
    CHECKED = ("label", "head_to_head", "at", "players", "rule", "rules", "strategies", "name")
    REQUIRED = ("name",)

    name: str
    strategies: Strategies = ()
    rules: Annotated[Rules, Written(Preset)] = Rules()
    label: Annotated[str, Written(Label)] = ""
    head_to_head: Annotated[bool, Says("'head_to_head' must be true or false, got {value!r}")] = (
        False
    )
    at: (
        Annotated[float, Says("'at' must be a number (the arm's place on the axis), got {value!r}")]
        | None
    ) = None
    players: Players = 2
    rule: Annotated[dict[str, Any], Says("'rule' must be a table of FLAG = VALUE")] = field(
        default_factory=dict, hash=False
    )

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> Self:
        """A table's arm over its experiment (``base``); a record built in code keeps its
        values, its ``players`` those of its rules."""
        if info.context is None:
            object.__setattr__(self, "players", self.rules.players)
            return self
        table, base = info.context["table"], info.context["base"]
        flags = {**base.rule, **table.get("rule", {})}
        rules = build_rules(
            table.get("rules", base.rules), table.get("players", base.players), flags
        )
        given = table.get("strategies")
        strats = base.strategies if given is None else strategy_list(given)
        resolved = {"rules": rules, "players": rules.players, "rule": flags, "strategies": strats}
        for key, value in resolved.items():
            object.__setattr__(self, key, value)
        return self


@dataclass(frozen=True, config=RECORD)
class Grid(Table):
    """``[grid]``: one strategy parameter (``param``) or one rule flag swept over ``values``
    (``entry``: the strategies index ``param`` is swept in; None: the experiment's)."""

    SHOWN = ("param", "rule", "values", "entry")

    values: Annotated[
        tuple[Any, ...], Listed, Field(min_length=1, validate_default=True),
        Says("'values' must be a non-empty list"),
    ] = None  # type: ignore[assignment]  # validated: a missing list is refused  # fmt: skip
    param: str | None = None
    entry: int | None = None
    rule: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_sweep(cls, data: Any) -> Any:
        """Exactly one of ``param`` and ``rule`` (asked before the values)."""
        keys = (data.kwargs or {}) if isinstance(data, ArgsKwargs) else data
        if isinstance(keys, dict) and ("param" in keys) == ("rule" in keys):
            raise ValueError("give exactly one of 'param' (strategy) or 'rule' (flag)")
        return data


def strategy_list(specs: tuple[str, ...], where: str = "") -> tuple[str, ...]:
    """The canonical form of every strategy spec (``make(spec).spec``)."""
    out = []
    for spec in specs:
        try:
            out.append(make(spec).spec)
        except ValueError as exc:
            raise ExperimentError(f"{where}strategy {spec!r}: {exc}") from None
    return tuple(out)


def grid_arms(exp: BaseSetup, grid: Grid, rules: Rules) -> list[Arm]:
    """The arms of ``[grid]``: one per value of a strategy parameter or of a rule flag
    (``rules``: the experiment's)."""
    gw = "[grid]: "
    base = exp.strategies
    if grid.param is not None:
        entry = exp.entry if grid.entry is None else grid.entry
        if not 0 <= entry < len(base):
            raise ExperimentError(f"{gw}'entry' {entry} is not a strategies index")
        arms = []
        for v in grid.values:
            strats = list(base)
            strats[entry] = _with_param(strats[entry], grid.param, v, gw)
            arms.append(
                Arm(f"{grid.param}={v}", tuple(strats), rules, f"{grid.param} {v}",
                    at=_axis_place(exp, v), rule=exp.rule)
            )  # fmt: skip
        return arms
    if grid.entry is not None:
        raise ExperimentError(f"{gw}'entry' goes with 'param', not with 'rule'")
    flag = grid.rule
    assert flag is not None  # exactly one of param and rule: Grid checks it
    arms = []
    for v in grid.values:
        text = ",".join(map(str, v)) if isinstance(v, list) else str(v)
        flags = {**exp.rule, flag: v}
        rules_v = build_rules(exp.rules, exp.players, flags, gw)
        arms.append(
            Arm(f"{flag}={text}", base, rules_v, f"{flag} {text}", at=_axis_place(exp, v),
                rule=flags)
        )  # fmt: skip
    return arms


def _with_param(spec: str, param: str, value: Any, where: str) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    try:
        return make(StrategySpec.parse(spec).with_params({param: text})).spec
    except ValueError as exc:
        raise ExperimentError(f"{where}grid value {value!r} for {param!r}: {exc}") from None


def _axis_place(exp: BaseSetup, value: Any) -> float | None:
    """A grid value's place on the experiment's axis: the value itself where there is an
    axis and the value is an int or float (not a bool), else None."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if exp.axis and number else None


def check_arms(exp: BaseSetup, arms: list[Arm]) -> None:
    """Arm names that can name folders and differ; seats enough for every arm's
    strategies; the ``entry`` of an entry metric present in every arm."""
    seen: set[str] = set()
    for arm in arms:
        if not ARM_NAME.fullmatch(arm.name):
            raise ExperimentError(
                f"arm name {arm.name!r} must be letters, digits and . _ = + , - , 100 at "
                "most (it names the arm's folder)"
            )
        if arm.name in RESERVED:
            raise ExperimentError(
                f"arm name {arm.name!r} is taken by the experiment's own files; not one "
                f"of {', '.join(RESERVED)} (it names the arm's folder)"
            )
        if arm.name in seen:
            raise ExperimentError(f"two arms are named {arm.name!r}")
        seen.add(arm.name)
        if len(arm.strategies) > arm.players:
            raise ExperimentError(
                f"arm {arm.name!r}: {len(arm.strategies)} strategies for {arm.players} seats"
            )
        entry_metric = any(m in ENTRY_METRICS for m in [exp.metric, *exp.also])
        if entry_metric and exp.entry >= len(arm.strategies):
            raise ExperimentError(
                f"'entry' = {exp.entry} but arm {arm.name!r} has {len(arm.strategies)} strategies"
            )


def check_pages(exp: BaseSetup, arms: list[Arm]) -> None:
    """The keys that only shape pages: ``at`` needs an ``axis``; the first arm (the
    baseline) is not a head-to-head arm; labels are distinct."""
    if arms[0].head_to_head:
        raise ExperimentError(
            f"arm {arms[0].name!r}: the first arm is the baseline; it cannot be "
            "'head_to_head' (a head-to-head arm is reported apart from the baseline)"
        )
    for arm in arms:
        if arm.at is not None and not exp.axis:
            raise ExperimentError(
                f"arm {arm.name!r}: 'at' places the arm on the experiment's 'axis'; "
                "give 'axis' (e.g. axis = \"bet threshold\") at the top level"
            )
    labels = [a.label or a.name for a in arms]
    twice = next((x for x in labels if labels.count(x) > 1), None)
    if twice is not None:
        raise ExperimentError(f"two arms are labelled {twice!r}; labels must differ")


def _play_key(arm: Arm) -> tuple[Any, ...]:
    """What decides an arm's games besides the experiment-wide seed, games and seats.

    The engine's rules array (so a preset name alone does not count) and each seat's
    policy key (``Strategy.policy_key``: a parameter that cannot act under these rules
    does not count). Equal keys: the arms play identical games.
    """
    rules = tuple(int(x) for x in arm.rules.to_array())
    return (rules, tuple(make(spec).policy_key(arm.rules) for spec in arm.strategies))


def refuse_identical_arms(arms: list[Arm], where: str = "") -> None:
    """ExperimentError naming two arms that would play identical games, and why.

    Such arms (e.g. a grid value that only changes a parameter the rules or the other
    parameters leave inert) would report the same numbers as if they were two findings.
    """
    seen: dict[tuple[Any, ...], Arm] = {}
    for arm in arms:
        key = _play_key(arm)
        first = seen.setdefault(key, arm)
        if first is arm:
            continue
        reasons: list[str] = []
        for a, b in zip(first.strategies, arm.strategies, strict=True):
            if a != b:
                sa, sb = make(a), make(b)
                for strat, other in ((sa, sb), (sb, sa)):
                    for name, why in strat.inert_params(arm.rules).items():
                        if strat.values[name] != other.values[name] and why not in reasons:
                            reasons.append(why)
        detail = "; ".join(reasons) if reasons else "same strategies and same rules array"
        raise ExperimentError(
            f"{where}arms {first.name!r} and {arm.name!r} would play identical games "
            f"({detail}): change or drop one"
        )
