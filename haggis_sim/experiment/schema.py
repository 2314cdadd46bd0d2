"""The tables of an experiment file, as pydantic models, and their one-line errors.

Each TOML table (the top level, an ``[[arms]]`` entry, ``[grid]``, a ``[[populations]]``
entry, a ``[[studies]]`` entry) has a strict model here that forbids unknown keys and
checks every key's type and every value that can be judged on its own. What needs the
other keys (rules built from a preset and flags, strategy specs, arm and population names
compared with each other) is checked by :mod:`.spec` on the validated tables.

A :class:`pydantic.ValidationError` never reaches the user: :func:`validate` turns its
first error into the :class:`ExperimentError` sentence the file's author reads, naming
the file, the table and the key (:class:`Says` holds a key's sentence where the plain
``key 'k' must be int, got 'x'`` would not say enough).
"""

from __future__ import annotations

import math
import re
import types
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from strategies.analysis import PRIORS, VALUES

from ..analytics.compare import METRICS
from ..counterfactual.decisions import MAX_POSITIONS, MAX_SAMPLES, SEED_LIMIT, StudySettings
from ..errors import InputError
from ..presets import PRESETS
from ..rules import Rules
from ..runner.run import MAX_GAMES
from ..runner.seating import SEAT_MODES
from .followed import DEFAULT_BASES, DEFAULT_GAMES


class ExperimentError(InputError):
    """An experiment file that cannot be run: the message names the file and the key."""


GOALS = ("max", "min")
ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=+,-]{0,99}")  # a folder name, 100 at most
MAX_LABEL = 200
STUDY_KINDS = ("bombs", "bets")
STUDY_VALUES = tuple(VALUES)  # a study's search: its reward, how it chooses (decisions.py)
STUDY_PRIORS = tuple(PRIORS)
MARKER = ".haggis-sim-experiment.json"
# files the experiment writes into its folder (besides the arm runs and report/)
OWN_FILES = (
    "experiment.toml", "summary.json", "summary.md", "compare.html", "index.html", "fig-forest.png",
    "fig-axis.png", "fig-strength.png",
)  # fmt: skip
RESERVED = ("report", *OWN_FILES)  # names a population folder may not take


@dataclass(frozen=True)
class Says:
    """A key's own error sentence (``{value!r}``: the value the file gives the key).

    ``text`` is used for a wrong type or a value outside the choices; ``item``, when
    given, for one wrong element of a list (``{value!r}``: that element)."""

    text: str
    item: str | None = None


def _choice(choices: tuple[Any, ...]) -> AfterValidator:
    """A value that must be one of ``choices`` (its key's :class:`Says` tells the user)."""

    def check(value: Any) -> Any:
        if value not in choices:
            raise PydanticCustomError("choice", "not one of the choices")
        return value

    return AfterValidator(check)


def _positive(value: int) -> int:
    if value <= 0:
        raise ValueError(f"'games' must be positive, got {value}")
    if value > MAX_GAMES:
        raise ValueError(
            f"'games' must be at most {MAX_GAMES:,} (game ids are 32-bit), got {value:,}"
        )
    return value


MIN_PRECISION = 1e-6  # a finer half-width asks for more games than any budget holds


def _precision(value: float | None) -> float | None:
    if value is not None and not value >= MIN_PRECISION:  # NaN fails too
        raise ValueError(
            f"'precision' must be a half-width of at least {MIN_PRECISION:g} (0.01: a "
            f"±1-point interval of a rate), got {value}"
        )
    return value


def _budget(value: int | None) -> int | None:
    if value is not None and not 0 < value <= MAX_GAMES:
        raise ValueError(
            f"'budget' must be a number of games from 1 to {MAX_GAMES:,} (the most games "
            f"sizing may play per arm), got {value:,}"
        )
    return value


def _seed(value: int) -> int:
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"'seed' must be a 64-bit integer, got {value}")
    return value


def _at_most(key: str, most: int) -> AfterValidator:
    """A study number no larger than ``most`` (the memory a study may take)."""

    def check(value: int) -> int:
        if value > most:
            raise ValueError(f"'{key}' must be at most {most:,}, got {value:,}")
        return value

    return AfterValidator(check)


def _study_seed(value: int | None) -> int | None:
    if value is not None and not 0 <= value < SEED_LIMIT:
        raise ValueError(f"'seed' must be from 0 to 2**64 - 1, got {value}")
    return value


def _question(value: str) -> str:
    """The question shown atop the pages: printable text (lines and tabs allowed) of at
    most :data:`MAX_QUESTION` characters."""
    if (c := _unprintable(value, allowed="\n\t")) is not None:
        raise ValueError(
            f"'question' may not hold control characters (U+{ord(c):04X}), got {value[:60]!r}"
        )
    if len(value) > MAX_QUESTION:
        raise ValueError(
            f"'question' must be at most {MAX_QUESTION:,} characters, got {len(value):,}"
        )
    return value


def _folder_name(value: str) -> str:
    if not ARM_NAME.fullmatch(value):
        raise ValueError(
            f"'name' must be letters, digits and . _ = + , - (100 at most); got {value!r}"
        )
    return value


#: bidirectional embeddings, overrides and isolates: they reorder the text shown after them
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
MAX_QUESTION = 2_000  # characters of an experiment's question


def _unprintable(value: str, allowed: str = "") -> str | None:
    """The first character of ``value`` that would corrupt a page or a terminal when
    shown (a control character, a line or paragraph separator, a bidirectional control),
    or None."""
    for c in value:
        if c in allowed:
            continue
        if unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in _BIDI:
            return c
    return None


def _label(value: str) -> str:
    """A label shown on the pages: printable text of at most :data:`MAX_LABEL` characters."""
    if (c := _unprintable(value)) is not None:
        raise ValueError(f"'label' may not hold control characters (U+{ord(c):04X}), got {value!r}")
    if len(value) > MAX_LABEL:
        raise ValueError(f"'label' must be at most {MAX_LABEL} characters, got {len(value)}")
    return value


def _population_name(value: str) -> str:
    if not ARM_NAME.fullmatch(value) or value in RESERVED:
        raise ValueError(
            f"'name' must be letters, digits and . _ = + , - (100 at most) and not one of "
            f"{', '.join(RESERVED)} (it names the population's folder)"
        )
    return value


def _tolerance(value: float | dict[str, float] | None) -> float | dict[str, float] | None:
    """A positive, finite tolerance, or a table of them keyed by known metrics."""
    if value is None:
        return None
    items = value.items() if isinstance(value, dict) else [(None, value)]
    for metric, number in items:
        key = "'tolerance'" if metric is None else f"'tolerance' for {metric!r}"
        if metric is not None and metric not in METRICS:
            raise ValueError(
                f"unknown metric {metric!r} in 'tolerance'; known: {', '.join(METRICS)}"
            )
        if not (math.isfinite(number) and number > 0):
            raise ValueError(f"{key} must be a positive number, got {number!r}")
    return value


def _chunk_size(value: int) -> int:
    if value < 0:
        raise ValueError(f"'chunk_size' must be 0 (automatic) or a positive number, got {value}")
    return value


class Table(BaseModel):
    """A TOML table: strict types (no ``"3"`` for 3, no ``true`` for 1), no unknown keys.

    ``SHOWN`` lists the keys in the order the unknown-key sentence (``UNKNOWN``) names
    them; of several unknown keys it names the first in the file, or with ``SORTED`` the
    first in sorted order. A missing key of ``REQUIRED`` is named in that order."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    SHOWN: ClassVar[tuple[str, ...]]
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    UNKNOWN: ClassVar[str] = "unknown key {key!r}; allowed keys: {keys}"
    SORTED: ClassVar[bool] = False


Players = Annotated[Literal[2, 3], Says("'players' must be 2 or 3, got {value!r}")]
Preset = Annotated[
    str, _choice(tuple(PRESETS)),
    Says(f"unknown rules preset {{value!r}} (key 'rules'); known: {', '.join(PRESETS)}"),
]  # fmt: skip
Strategies = Annotated[
    list[str], Field(min_length=1),
    Says("key 'strategies' must be a non-empty list of strategy specs, got {value!r}"),
]  # fmt: skip


Precision = Annotated[
    float | None, AfterValidator(_precision),
    Says("'precision' must be a number (the 95% half-width to reach), got {value!r}"),
]  # fmt: skip
Budget = Annotated[
    int | None, AfterValidator(_budget),
    Says("'budget' must be a whole number of games per arm, got {value!r}"),
]  # fmt: skip


class ExperimentTable(Table):
    """The top level of an experiment file (fields in the order they are checked)."""

    SHOWN = (
        "name", "question", "games", "seed", "players", "rules", "rule", "strategies", "seats",
        "metric", "goal", "entry", "also", "log_moves", "chunk_size", "precision", "budget",
        "arms", "grid", "populations", "studies", "balance", "ladder", "tolerance", "axis",
    )  # fmt: skip
    REQUIRED = ("name", "question", "games", "strategies", "metric")

    name: Annotated[str, AfterValidator(_folder_name)]
    question: Annotated[str, AfterValidator(_question)]
    games: Annotated[int, AfterValidator(_positive)]
    seed: Annotated[int, AfterValidator(_seed)] = 0
    players: Players = 2
    seats: Annotated[
        str, _choice(SEAT_MODES), Says("'seats' must be rotate or fixed, got {value!r}")
    ] = "rotate"
    metric: Annotated[
        str, _choice(tuple(METRICS)),
        Says(f"unknown metric {{value!r}}; known: {', '.join(METRICS)}"),
    ]  # fmt: skip
    also: Annotated[
        list[Annotated[str, _choice(tuple(METRICS))]],
        Says("'also' must be a list of metrics, got {value!r}",
             item=f"unknown metric {{value!r}} in 'also'; known: {', '.join(METRICS)}"),
    ] = []  # fmt: skip
    goal: Annotated[str, _choice(GOALS), Says("'goal' must be max or min, got {value!r}")] = "max"
    entry: int = 0
    log_moves: bool = True
    balance: bool = False
    chunk_size: Annotated[int, AfterValidator(_chunk_size)] = 0
    precision: Precision = None
    budget: Budget = None
    rules: Preset = "revised"
    rule: Annotated[
        dict[str, Any], Says("'rule' must be a table of FLAG = VALUE, got {value!r}")
    ] = {}
    strategies: Strategies
    arms: Annotated[list[dict[str, Any]], Says("'arms' must be an array of tables ([[arms]])")] = []
    grid: Annotated[dict[str, Any] | None, Says("[grid]: must be a table")] = None
    populations: Annotated[
        list[dict[str, Any]] | None,
        Says("'populations' must be an array of tables ([[populations]])"),
    ] = None
    studies: Annotated[
        list[dict[str, Any]] | None, Says("'studies' must be an array of tables ([[studies]])")
    ] = None
    ladder: bool = False
    axis: (
        Annotated[str, Says("'axis' must be a text (what the arms' 'at' measure), got {value!r}")]
        | None
    ) = None
    tolerance: Annotated[
        float | dict[str, float] | None, AfterValidator(_tolerance),
        Says("'tolerance' must be a number or a table of METRIC = number, got {value!r}"),
    ] = None  # fmt: skip


class ArmTable(Table):
    """One ``[[arms]]`` entry: what the arm changes of the base setup (``None``: keeps it)."""

    SHOWN = ("name", "strategies", "rules", "players", "rule", "label", "head_to_head", "at")
    REQUIRED = ("name",)

    label: (
        Annotated[
            str,
            AfterValidator(_label),
            Says("'label' must be a text (a short name), got {value!r}"),
        ]
        | None
    ) = None
    head_to_head: Annotated[bool, Says("'head_to_head' must be true or false, got {value!r}")] = (
        False
    )
    at: (
        Annotated[float, Says("'at' must be a number (the arm's place on the axis), got {value!r}")]
        | None
    ) = None

    players: Players | None = None
    rule: Annotated[dict[str, Any], Says("'rule' must be a table of FLAG = VALUE")] = {}
    rules: Preset | None = None
    strategies: Strategies | None = None
    name: str


class GridTable(Table):
    """``[grid]``: one strategy parameter (``param``) or one rule flag swept over ``values``."""

    SHOWN = ("param", "rule", "values", "entry")

    values: Annotated[
        list[Any], Field(min_length=1, validate_default=True),
        Says("'values' must be a non-empty list"),
    ] = None  # type: ignore[assignment]  # validated: a missing list is refused  # fmt: skip
    param: str | None = None
    entry: int | None = None
    rule: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_sweep(cls, data: Any) -> Any:
        """Exactly one of ``param`` and ``rule`` (asked before the values; an unknown key
        is named first)."""
        known = isinstance(data, dict) and set(data) <= set(cls.SHOWN)
        if known and ("param" in data) == ("rule" in data):
            raise ValueError("give exactly one of 'param' (strategy) or 'rule' (flag)")
        return data


class PopulationTable(Table):
    """One ``[[populations]]`` entry: a name, games per arm, strategy swaps or the
    strategies every arm plays instead of its own, and the population's own precision and
    budget (over the experiment's)."""

    SHOWN = ("name", "games", "swap", "strategies", "precision", "budget")
    REQUIRED = ("name",)

    name: Annotated[str, AfterValidator(_population_name)]
    games: Annotated[int, AfterValidator(_positive)] | None = None
    swap: Annotated[
        dict[str, Any], Says("'swap' must be a table of SPEC = SPEC, got {value!r}")
    ] = {}
    strategies: Strategies | None = None
    precision: Precision = None
    budget: Budget = None


_STUDY_NUMBER = "'{key}' must be a whole number >= 1, got {{value!r}}"


class StudyTable(Table):
    """One ``[[studies]]`` entry (the arm and population are checked against the others)."""

    SHOWN = (
        "kind", "arm", "population", "positions", "min_per_bin", "samples", "value", "prior",
        "seed", "followed_games", "followed_bases",
    )  # fmt: skip
    UNKNOWN = "unknown key {key!r}; known: {keys}"
    SORTED = True

    kind: Annotated[
        str, _choice(STUDY_KINDS), Field(validate_default=True),
        Says(f"'kind' must be one of {', '.join(STUDY_KINDS)}, got {{value!r}}"),
    ] = None  # type: ignore[assignment]  # validated: a missing kind is refused  # fmt: skip
    arm: Any = None
    population: Any = None
    positions: Annotated[
        int, Field(ge=1), _at_most("positions", MAX_POSITIONS),
        Says(_STUDY_NUMBER.format(key="positions")),
    ] = StudySettings.positions  # fmt: skip
    min_per_bin: Annotated[
        int, Field(ge=0), _at_most("min_per_bin", MAX_POSITIONS),
        Says("'min_per_bin' must be a whole number >= 0, got {value!r}"),
    ] = StudySettings.min_per_bin  # fmt: skip
    value: Annotated[
        str, _choice(STUDY_VALUES),
        Says(f"'value' must be one of {', '.join(STUDY_VALUES)}, got {{value!r}}"),
    ] = StudySettings.value  # fmt: skip
    prior: Annotated[
        str, _choice(STUDY_PRIORS),
        Says(f"'prior' must be one of {', '.join(STUDY_PRIORS)}, got {{value!r}}"),
    ] = StudySettings.prior  # fmt: skip
    samples: Annotated[
        int, Field(ge=1), _at_most("samples", MAX_SAMPLES),
        Says(_STUDY_NUMBER.format(key="samples")),
    ] = StudySettings.samples  # fmt: skip
    seed: Annotated[
        int | None, AfterValidator(_study_seed), Says(_STUDY_NUMBER.format(key="seed"))
    ] = None
    followed_games: Annotated[
        int, Field(ge=0), _at_most("followed_games", MAX_GAMES),
        Says("'followed_games' must be a whole number >= 0 (games per base each line with "
             "advice is followed in play; 0: not tested), got {value!r}"),
    ] = DEFAULT_GAMES  # fmt: skip
    followed_bases: Annotated[
        list[str], Says("'followed_bases' must be a list of strategy specs, got {value!r}")
    ] = list(DEFAULT_BASES)


T = TypeVar("T", bound=Table)


def validate(model: type[T], table: dict[str, Any], where: str) -> T:
    """``table`` as ``model``; ExperimentError with the first problem's sentence otherwise.

    First an unknown key, then a missing required key, then the first key in the model's
    field order whose value is wrong (see :class:`Table`)."""
    try:
        return model.model_validate(table)
    except ValidationError as exc:
        raise ExperimentError(where + _sentence(model, table, exc.errors())) from None


def _sentence(model: type[Table], table: dict[str, Any], errors: list[ErrorDetails]) -> str:
    """The sentence for the first of pydantic's ``errors`` (without the where prefix)."""
    unknown = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        key = min(unknown) if model.SORTED else unknown[0]
        return model.UNKNOWN.format(key=key, keys=", ".join(model.SHOWN))
    missing = {str(e["loc"][0]) for e in errors if e["type"] == "missing"}
    for key in model.REQUIRED:
        if key in missing:
            return f"missing required key {key!r}"
    error = errors[0]
    if error["type"] == "value_error":  # our own check's sentence
        return str(error["ctx"]["error"])
    key = str(error["loc"][0])
    field = model.model_fields[key]
    says = next((m for m in field.metadata if isinstance(m, Says)), None)
    if says is None:
        says = _says_in(field.annotation)
    value = table.get(key)  # the whole value, also for an error in one of its elements
    if says is None:
        return f"key {key!r} must be {_kind(field.annotation)}, got {value!r}"
    if says.item is not None and len(error["loc"]) > 1:
        return says.item.format(value=error["input"])
    return says.text.format(value=value)


def _says_in(annotation: Any) -> Says | None:
    """The :class:`Says` of an optional key (``Annotated[...] | None`` keeps it inside)."""
    for arg in get_args(annotation):
        if get_origin(arg) is Annotated:
            found = [m for m in arg.__metadata__ if isinstance(m, Says)]
            if found:
                return found[0]
    return None


def _kind(annotation: Any) -> str:
    """``int``, ``str``, ``bool``: the type an optional or plain key must have."""
    if get_origin(annotation) in (Union, types.UnionType):
        return " or ".join(_kind(a) for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is Annotated:
        return _kind(get_args(annotation)[0])
    return str(getattr(annotation, "__name__", annotation))


def check_flags(flags: dict[str, Any], where: str) -> None:
    """ExperimentError for a rule flag name :class:`Rules` does not know."""
    known = Rules.flag_names()
    for key in flags:
        if key not in known:
            raise ExperimentError(
                f"{where}unknown rule flag {key!r} in [rule]; known flags: {', '.join(known)}"
            )
