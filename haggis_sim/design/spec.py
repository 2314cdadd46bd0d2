"""A design file as a frozen record: the knobs to search, the objectives and constraints
in the balance quantities, the players and the budget.

:func:`load_design` reads the TOML (with the experiment loader's file checks) and
validates it with the experiment schema's machinery (:mod:`haggis_sim.experiment.schema`):
every refusal is one :class:`~haggis_sim.experiment.ExperimentError` sentence naming the
file and the key, raised before anything is played. Besides each key's type it refuses an
unknown rule flag as a knob, an empty range, a knob value the rules refuse, an objective
or constraint in a quantity the players cannot measure (skill expression needs a stronger
entry 0), a constraint no value can meet, and a zero budget.
"""

from __future__ import annotations

import json
import math
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import Field, ValidationInfo, model_validator
from pydantic.dataclasses import dataclass

from ..experiment.arms import strategy_list
from ..experiment.balance import QUANTITIES, Quantity
from ..experiment.populations import sizing_keys
from ..experiment.schema import (
    RECORD,
    ExperimentError,
    FolderName,
    Listed,
    Players,
    Preset,
    Question,
    Says,
    Seed,
    Strategies,
    Table,
    Tables,
    Written,
    build_rules,
    choice,
    validate,
)
from ..experiment.spec import read_toml_file
from ..rules import LISTED_FLAGS, Rules
from ..runner.run import MAX_GAMES
from ..runner.seating import games_per_deal

QUANTITY = {q.key: q for q in QUANTITIES}
GOALS = ("min", "max", "fair", "near")
RATE_METRICS = ("win_rate", "seat0_win", "first_lead_win", "ahead_r1_win", "winner_lead_round")
RATES = frozenset(q.key for q in QUANTITIES if q.metric in RATE_METRICS)
FAIR = ("seat0_win", "first_lead_win", "skill_expression", "luck_share")  # with a fair value
MAX_TRIALS = 10_000
MAX_CANDIDATES = 20


@dataclass(frozen=True, config=RECORD)
class Knob(Table):
    """One rule flag to search: a list of ``values`` (any flag), or a whole-number range
    ``low`` .. ``high`` in steps of ``step`` (a numeric flag)."""

    SHOWN = ("flag", "values", "low", "high", "step")
    REQUIRED = ("flag",)

    flag: str
    values: Annotated[
        tuple[Any, ...] | None, Listed, Says("'values' must be a list of the flag's values")
    ] = None
    low: int | None = None
    high: int | None = None
    step: int = 1

    @model_validator(mode="after")
    def _check(self) -> Self:
        """A known flag; exactly one of ``values`` and a range; nothing empty."""
        if self.flag not in Rules.flag_names():
            raise ValueError(
                f"unknown rule flag {self.flag!r}; known flags: {', '.join(Rules.flag_names())}"
            )
        ranged = self.low is not None or self.high is not None
        if (self.values is None) == (not ranged):
            raise ValueError(
                "give either 'values' (a list) or 'low' and 'high' (a range of whole numbers)"
            )
        if self.values is not None:
            if not self.values:
                raise ValueError("'values' is empty")
            shown = [json.dumps(v) for v in self.values]
            if len(set(shown)) < len(shown):
                raise ValueError("'values' repeats a value")
            return self
        if self.low is None or self.high is None:
            raise ValueError("a range needs both 'low' and 'high'")
        if self.step < 1:
            raise ValueError(f"'step' must be at least 1, got {self.step}")
        if self.low > self.high:
            raise ValueError(f"the range {self.low}..{self.high} is empty ('low' is above 'high')")
        return self

    @property
    def choices(self) -> tuple[Any, ...]:
        """Every value the knob may take, in order (a listed flag's values as tuples)."""
        if self.values is not None:
            return tuple(tuple(v) if isinstance(v, list) else v for v in self.values)
        assert self.low is not None and self.high is not None
        return tuple(range(self.low, self.high + 1, self.step))


@dataclass(frozen=True, config=RECORD)
class Objective(Table):
    """What to optimise: a balance ``quantity`` made as small (``min``) or large
    (``max``) as it goes, or brought as close as it goes to its fair value (``fair``) or
    to ``target`` (``near``). Rates are written as fractions (0.5 for 50%)."""

    SHOWN = ("quantity", "goal", "target")
    REQUIRED = ("quantity", "goal")

    quantity: Annotated[
        str, choice(tuple(QUANTITY)),
        Says(f"unknown quantity {{value!r}}; known: {', '.join(QUANTITY)}"),
    ]  # fmt: skip
    goal: Annotated[
        str, choice(GOALS), Says(f"'goal' must be one of {', '.join(GOALS)}, got {{value!r}}")
    ]
    target: float | int | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        """A target exactly with ``near``; ``fair`` only where a fair value exists."""
        if (self.goal == "near") != (self.target is not None):
            raise ValueError("'target' goes with goal = \"near\" (and near needs it)")
        if self.goal == "fair" and self.quantity not in FAIR:
            raise ValueError('it has no fair value; use goal = "near" with a target')
        if self.target is not None:
            _in_range(self.quantity, float(self.target), "'target'")
        return self


@dataclass(frozen=True, config=RECORD)
class Constraint(Table):
    """A bound a candidate must keep: ``at_least`` and/or ``at_most`` on a quantity."""

    SHOWN = ("quantity", "at_least", "at_most")
    REQUIRED = ("quantity",)

    quantity: Annotated[
        str, choice(tuple(QUANTITY)),
        Says(f"unknown quantity {{value!r}}; known: {', '.join(QUANTITY)}"),
    ]  # fmt: skip
    at_least: float | int | None = None
    at_most: float | int | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        """At least one bound; bounds a value of the quantity can meet."""
        q = self.quantity
        if self.at_least is None and self.at_most is None:
            raise ValueError("give 'at_least', 'at_most' or both")
        for key, bound in (("'at_least'", self.at_least), ("'at_most'", self.at_most)):
            if bound is not None:
                _in_range(q, float(bound), key)
        if self.at_least is not None and self.at_most is not None and self.at_least > self.at_most:
            raise ValueError(f"no value is at least {self.at_least} and at most {self.at_most}")
        if q in RATES and (self.at_least == 0 and self.at_most is None
                           or self.at_most == 1 and self.at_least is None):  # fmt: skip
            raise ValueError("every rate meets it; it constrains nothing")
        return self

    def violation(self, value: float) -> float:
        """How far ``value`` is outside the bounds (0 inside): Optuna's constraint value."""
        low = -math.inf if self.at_least is None else float(self.at_least)
        high = math.inf if self.at_most is None else float(self.at_most)
        return max(low - value, value - high, 0.0)


def _in_range(quantity: str, value: float, key: str) -> None:
    """ValueError for a bound or target no value of ``quantity`` can have."""
    if not math.isfinite(value):
        raise ValueError(f"{key} must be a finite number, got {value}")
    if quantity in RATES and not 0 <= value <= 1:
        raise ValueError(
            f"a rate is written as a fraction from 0 to 1; {key} {value} is outside it "
            "(0.5 for 50%)"
        )
    if quantity in ("rounds",) and value < 1:
        raise ValueError(f"a game lasts at least 1 round; {key} {value} is below it")
    if quantity in ("margin", "lead_changes") and value < 0:
        raise ValueError(f"it is never negative; {key} {value} is below 0")


@dataclass(frozen=True, config=RECORD)
class Budget(Table):
    """How much the search may play: ``trials`` distinct settings (all of a smaller
    space), each on the same deals and at most ``games`` games; a setting is first played
    ``first_games`` games and grown threefold at a time while it may still reach the
    front (successive halving)."""

    SHOWN = ("trials", "games", "first_games")
    REQUIRED = ("trials", "games")

    trials: int
    games: int
    first_games: int | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        """Whole, positive counts; the first rung no larger than the last."""
        if not 1 <= self.trials <= MAX_TRIALS:
            raise ValueError(
                f"[budget] 'trials' must be from 1 to {MAX_TRIALS:,}, got {self.trials}"
            )
        if not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"[budget] 'games' must be from 1 to {MAX_GAMES:,}, got {self.games}")
        if self.first_games is not None and not 1 <= self.first_games <= self.games:
            raise ValueError(
                f"[budget] 'first_games' must be from 1 to 'games' ({self.games:,}), got "
                f"{self.first_games}"
            )
        return self


@dataclass(frozen=True, config=RECORD)
class Confirm(Table):
    """The re-play of the best ``candidates`` on fresh deals, ``games`` games each, with
    the base rules beside them on the same deals; with ``precision`` (the 95% half-width
    to reach on the first objective's quantity, a rate as a fraction), ``games`` is the
    first batch and the arms grow, up to ``budget`` games each, until it is reached (the
    experiment's sizing); with ``check``, the same arms once more with those strategies in
    the seats (``check_games`` games each, default ``games``), to see whether the answer
    holds for other players."""

    SHOWN = ("games", "candidates", "precision", "budget", "check", "check_games")
    REQUIRED = ("games",)

    games: int
    candidates: int = 3
    precision: float | None = None
    budget: int | None = None
    check: Annotated[
        tuple[str, ...], Listed,
        Says("'check' must be a list of strategy specs (the seats), got {value!r}"),
    ] = ()  # fmt: skip
    check_games: int | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        for key, value in (("games", self.games), ("check_games", self.check_games)):
            if value is not None and not 1 <= value <= MAX_GAMES:
                raise ValueError(f"[confirm] {key!r} must be from 1 to {MAX_GAMES:,}, got {value}")
        if not 1 <= self.candidates <= MAX_CANDIDATES:
            raise ValueError(
                f"[confirm] 'candidates' must be from 1 to {MAX_CANDIDATES}, got {self.candidates}"
            )
        if self.check_games is not None and not self.check:
            raise ValueError("[confirm] 'check_games' goes with 'check' (the strategies)")
        if self.check:
            object.__setattr__(self, "check", strategy_list(self.check, "[confirm] 'check': "))
        return self


_TABLES = "'{0}' must be a non-empty array of tables ([[{0}]])"


@dataclass(frozen=True, config=RECORD, kw_only=True)
class Design(Table):
    """A validated design file. ``rules`` (a preset) and ``rule`` (its flags) are the base
    rules every candidate changes only in its knobs, and the baseline candidates are
    confirmed against; ``strategies`` fill the seats as in an experiment."""

    SHOWN = ("name", "question", "players", "rules", "rule", "strategies", "seed", "knobs",
             "objectives", "constraints", "budget", "confirm")  # fmt: skip
    REQUIRED = ("name", "question", "strategies", "knobs", "objectives", "budget", "confirm")
    LOADED = ("source", "text")

    name: FolderName
    question: Question
    seed: Seed = 0
    players: Players = 2
    rules: Preset = "revised"
    rule: Annotated[
        dict[str, Any], Says("'rule' must be a table of FLAG = VALUE, got {value!r}")
    ] = field(default_factory=dict)
    strategies: Strategies
    knobs: Annotated[
        tuple[Knob, ...],
        Written(Annotated[Tables, Field(min_length=1), Says(_TABLES.format("knobs"))]),
    ]
    objectives: Annotated[
        tuple[Objective, ...],
        Written(Annotated[Tables, Field(min_length=1), Says(_TABLES.format("objectives"))]),
    ]
    constraints: Annotated[
        tuple[Constraint, ...],
        Written(Annotated[Tables, Says(_TABLES.format("constraints"))]),
    ] = ()
    budget: Annotated[Budget, Written(Annotated[dict[str, Any], Says("[budget] must be a table")])]
    confirm: Annotated[
        Confirm, Written(Annotated[dict[str, Any], Says("[confirm] must be a table")])
    ]
    source: Path | None = None
    text: str = field(default="", repr=False)

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> Self:
        """A file's design: its tables read into records and checked together."""
        if info.context is None:
            return self
        table = info.context["table"]
        base = build_rules(self.rules, self.players, self.rule)
        knobs = tuple(validate(Knob, t, _where("knob", t, i)) for i, t in enumerate(table["knobs"]))
        flags = [k.flag for k in knobs]
        if len(set(flags)) < len(flags):
            raise ExperimentError(f"knob {_first_repeat(flags)!r} is given twice")
        for knob in knobs:
            for value in knob.choices:  # each value alone must make valid rules
                build_rules(self.rules, self.players, {**self.rule, knob.flag: value},
                            f"knob {knob.flag!r}: value {_shown(value)}: ")  # fmt: skip
        strategies = strategy_list(self.strategies)
        objectives = tuple(
            validate(Objective, t, _where("objective", t, i))
            for i, t in enumerate(table["objectives"])
        )
        constraints = tuple(
            validate(Constraint, t, _where("constraint", t, i))
            for i, t in enumerate(table.get("constraints", []))
        )
        confirm = validate(Confirm, table["confirm"], "")
        metric = QUANTITY[objectives[0].quantity].metric  # the confirmation's question
        sizing_keys(confirm.precision, confirm.budget, confirm.games, metric, "[confirm] ")
        for players, key in ((strategies, "strategies"), (confirm.check, "[confirm] 'check'")):
            stronger = len(players) > 1 and players[0] not in players[1:]
            for q in [o.quantity for o in objectives] + [c.quantity for c in constraints]:
                if players and QUANTITY[q].pairing and not stronger:
                    raise ExperimentError(
                        f"{q!r} needs a stronger entry 0 against weaker ones in {key} (entry 0 "
                        'no other entry\'s), e.g. ["learned", "heuristic"]'
                    )
        names = [o.quantity for o in objectives]
        if len(set(names)) < len(names):
            raise ExperimentError(f"objective {_first_repeat(names)!r} is given twice")
        budget = validate(Budget, table["budget"], "")
        for key, value in (("rules", base), ("strategies", strategies), ("knobs", knobs),
                           ("objectives", objectives), ("constraints", constraints),
                           ("budget", budget), ("confirm", confirm)):  # fmt: skip
            if key != "rules":
                object.__setattr__(self, key, value)
        return self

    @property
    def base_rules(self) -> Rules:
        """The rules every candidate changes only in its knobs."""
        return Rules.preset(self.rules, players=self.players, **_typed(self.rule))

    @property
    def base_flags(self) -> dict[str, Any]:
        """The knobs' values under the base rules (today's setting)."""
        rules = self.base_rules
        return {k.flag: getattr(rules, k.flag) for k in self.knobs}

    def candidate_rules(self, flags: dict[str, Any]) -> Rules:
        """The base rules with ``flags`` (knob values) over them; ExperimentError when the
        rules refuse the combination."""
        return build_rules(self.rules, self.players, {**self.rule, **flags})

    @property
    def deal_games(self) -> int:
        """Games per whole deal (every seating of the strategies once)."""
        return games_per_deal("rotate", self.players, len(self.strategies))


def whole_deals(games: float, deal: int) -> int:
    """``games`` rounded up to whole deals of ``deal`` games each (one deal at least)."""
    return max(deal, math.ceil(games / deal) * deal)


def json_flags(flags: dict[str, Any]) -> dict[str, Any]:
    """Knob values as a JSON or TOML record holds them (a listed flag's tuple as a list)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in flags.items()}


def _where(kind: str, table: dict[str, Any], index: int) -> str:
    """The prefix of a sub-table's errors: its flag or quantity, else its place."""
    name = table.get("flag" if kind == "knob" else "quantity")
    return f"{kind} {name!r}: " if isinstance(name, str) else f"{kind} #{index + 1}: "


def _typed(flags: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if k in LISTED_FLAGS and isinstance(v, list) else v
            for k, v in flags.items()}  # fmt: skip


def _first_repeat(items: list[str]) -> str:
    seen: set[str] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    raise ValueError("no repeat")


def _shown(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple) else json.dumps(value)


def load_design(path: Path) -> Design:
    """Read and validate a design file (TOML); ExperimentError naming the file and key."""
    data, text = read_toml_file(path, "design")
    return parse_design(data, source=path, text=text)


def parse_design(data: dict[str, Any], source: Path | None = None, text: str = "") -> Design:
    """Validate a parsed design table; ExperimentError naming the bad key otherwise."""
    where = f"{source}: " if source else ""
    return validate(Design, data, where, source=source, text=text)


def quantity(key: str) -> Quantity:
    """The balance quantity named ``key``."""
    return QUANTITY[key]
