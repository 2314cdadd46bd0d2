"""How a table of an experiment file is validated into its record, and the one-line errors.

Each TOML table (the top level, an ``[[arms]]`` entry, ``[grid]``, a ``[[populations]]``
entry, a ``[[studies]]`` entry) is read into one frozen record, a pydantic dataclass
deriving from :class:`Table` (:class:`.spec.Experiment`, :class:`.arms.Arm`,
:class:`.arms.Grid`, :class:`.populations.Population`, :class:`.studies_spec.StudySpec`).
:func:`validate` refuses unknown keys, checks every key's type and every value that can be
judged on its own, and runs the record's resolution of what needs several keys (rules
built from a preset and its flags, canonical strategy specs); a key the file writes in
another form than the record holds (a preset name for :class:`~haggis_sim.rules.Rules`, a
list of tables for the arms) carries :class:`Written`. A record built in code (or by
:func:`dataclasses.replace`) holds its values as given.

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
from typing import Annotated, Any, ClassVar, Literal, Protocol, TypeVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
)
from pydantic.fields import FieldInfo
from pydantic_core import (
    ArgsKwargs,
    CoreSchema,
    ErrorDetails,
    PydanticCustomError,
    SchemaValidator,
    core_schema,
)

from strategies.analysis import PRIORS, VALUES

from ..analytics.compare import METRICS
from ..counterfactual.decisions import SEED_LIMIT
from ..errors import InputError
from ..presets import PRESETS
from ..rules import Rules
from ..runner.run import MAX_GAMES


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


def choice(choices: tuple[Any, ...]) -> AfterValidator:
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


def at_most(key: str, most: int) -> AfterValidator:
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


class Written:
    """A key a file writes in another form than its record holds (a preset name where the
    record holds :class:`~haggis_sim.rules.Rules`, a list of tables where it holds arms).

    In a file's table (:func:`validate`) the value is checked as ``form`` and kept so, for
    the record's resolution to turn into what the record holds; a record built in code is
    given that already, and it is kept as given."""

    def __init__(self, form: Any) -> None:
        self.form = form

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        def check(value: Any, form: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
            return form(value) if info.context is not None else value

        return core_schema.with_info_wrap_validator_function(
            check, handler.generate_schema(self.form)
        )


def _listed(value: Any) -> Any:
    """A TOML list as the tuple a record holds (anything else is left for the type check)."""
    return tuple(value) if isinstance(value, list) else value


Listed = BeforeValidator(_listed)


class _TableKeys:
    """A record's keys in a file's table: its fields but those the loader sets (``LOADED``),
    by name (pydantic's ``model_fields``)."""

    def __get__(self, record: object, cls: type[Table]) -> dict[str, FieldInfo]:
        return {k: f for k, f in cls.__pydantic_fields__.items() if k not in cls.LOADED}


class Table:
    """The record of a TOML table: a frozen pydantic dataclass with strict types (no ``"3"``
    for 3, no ``true`` for 1) and no unknown keys.

    ``SHOWN`` lists the keys in the order the unknown-key sentence (``UNKNOWN``) names
    them; of several unknown keys it names the first in the file, or with ``SORTED`` the
    first in sorted order. A missing key of ``REQUIRED`` is named in that order; of
    several wrong values, the first in ``CHECKED`` order (default: the fields' order)."""

    SHOWN: ClassVar[tuple[str, ...]]
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    CHECKED: ClassVar[tuple[str, ...]] = ()
    LOADED: ClassVar[tuple[str, ...]] = ()  # fields no table gives: the loader sets them
    UNKNOWN: ClassVar[str] = "unknown key {key!r}; allowed keys: {keys}"
    SORTED: ClassVar[bool] = False
    model_fields: ClassVar[_TableKeys] = _TableKeys()
    __pydantic_fields__: ClassVar[dict[str, FieldInfo]]
    __pydantic_validator__: ClassVar[SchemaValidator]


#: the pydantic configuration of every record
RECORD = ConfigDict(strict=True, extra="forbid")

Players = Annotated[Literal[2, 3], Says("'players' must be 2 or 3, got {value!r}")]
Preset = Annotated[
    str, choice(tuple(PRESETS)),
    Says(f"unknown rules preset {{value!r}} (key 'rules'); known: {', '.join(PRESETS)}"),
]  # fmt: skip
Strategies = Annotated[
    tuple[str, ...], Listed, Field(min_length=1),
    Says("key 'strategies' must be a non-empty list of strategy specs, got {value!r}"),
]  # fmt: skip
Games = Annotated[int, AfterValidator(_positive)]
Label = Annotated[
    str, AfterValidator(_label), Says("'label' must be a text (a short name), got {value!r}")
]
Precision = Annotated[
    float | None, AfterValidator(_precision),
    Says("'precision' must be a number (the 95% half-width to reach), got {value!r}"),
]  # fmt: skip
Budget = Annotated[
    int | None, AfterValidator(_budget),
    Says("'budget' must be a whole number of games per arm, got {value!r}"),
]  # fmt: skip
Tables = list[dict[str, Any]]  # an array of tables ([[arms]]) as a file writes it
FolderName = Annotated[str, AfterValidator(_folder_name)]
PopulationName = Annotated[str, AfterValidator(_population_name)]
Question = Annotated[str, AfterValidator(_question)]
Seed = Annotated[int, AfterValidator(_seed)]
ChunkSize = Annotated[int, AfterValidator(_chunk_size)]
StudySeed = Annotated[
    int, AfterValidator(_study_seed), Says("'seed' must be a whole number >= 1, got {value!r}")
]
Tolerance = Annotated[
    float | dict[str, float] | None, AfterValidator(_tolerance),
    Says("'tolerance' must be a number or a table of METRIC = number, got {value!r}"),
]  # fmt: skip


class BaseSetup(Protocol):
    """What the arms, the grid and the populations read of the experiment they belong
    to (an :class:`.spec.Experiment`): its base setup and the keys that bound them."""

    @property
    def strategies(self) -> tuple[str, ...]: ...
    @property
    def rules(self) -> str: ...
    @property
    def rule(self) -> dict[str, Any]: ...
    @property
    def players(self) -> int: ...
    @property
    def entry(self) -> int: ...
    @property
    def metric(self) -> str: ...
    @property
    def also(self) -> tuple[str, ...]: ...
    @property
    def axis(self) -> str | None: ...
    @property
    def games(self) -> int: ...
    @property
    def seats(self) -> str: ...
    @property
    def precision(self) -> float | None: ...
    @property
    def budget(self) -> int | None: ...


T = TypeVar("T", bound=Table)


def validate(model: type[T], table: dict[str, Any], where: str, **given: Any) -> T:
    """``table`` as a ``model`` record; ExperimentError with the first problem's sentence
    otherwise (``where`` leads it: the file, the table).

    First an unknown key, then a missing required key, then the first wrong value (see
    :class:`Table`), then what the record's resolution refuses. ``given``: values the
    resolution reads (``base``: the experiment an arm is read over) or ``LOADED`` fields."""
    keys = model.model_fields  # built at each access: once here
    unknown = [str(k) for k in table if k not in keys]
    if unknown:
        key = min(unknown) if model.SORTED else unknown[0]
        raise ExperimentError(where + model.UNKNOWN.format(key=key, keys=", ".join(model.SHOWN)))
    for key in model.REQUIRED:
        if key not in table:
            raise ExperimentError(f"{where}missing required key {key!r}")
    loaded = {k: v for k, v in given.items() if k in model.LOADED}
    context = {"table": table, **{k: v for k, v in given.items() if k not in loaded}}
    record = object.__new__(model)  # validated in place, as its __init__ does
    try:
        model.__pydantic_validator__.validate_python(
            ArgsKwargs((), {**table, **loaded}), self_instance=record, context=context
        )
    except ValidationError as exc:
        raise ExperimentError(where + _sentence(model, table, exc.errors())) from None
    return record


def _sentence(model: type[Table], table: dict[str, Any], errors: list[ErrorDetails]) -> str:
    """The sentence for the first of pydantic's ``errors`` (without the where prefix)."""
    order = model.CHECKED or tuple(model.model_fields)
    rank = {key: i for i, key in enumerate(order)}
    error = min(errors, key=lambda e: rank.get(str(e["loc"][0]), len(rank)) if e["loc"] else -1)
    if error["type"] == "value_error":  # our own check's sentence, or the resolution's
        return str(error["ctx"]["error"])
    key = str(error["loc"][0])
    field = model.model_fields[key]
    form = next((m.form for m in field.metadata if isinstance(m, Written)), None)
    says = next((m for m in field.metadata if isinstance(m, Says)), None)
    if says is None:
        says = _says_in(field.annotation if form is None else form)
    value = table.get(key)  # the whole value, also for an error in one of its elements
    if says is None:
        return f"key {key!r} must be {_kind(field.annotation)}, got {value!r}"
    if says.item is not None and len(error["loc"]) > 1:
        return says.item.format(value=error["input"])
    return says.text.format(value=value)


def _says_in(annotation: Any) -> Says | None:
    """The :class:`Says` of a written form or an optional key (``Annotated[...] | None``
    keeps it inside)."""
    for arg in (annotation, *get_args(annotation)):
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


def check_flags(flags: dict[str, Any], where: str = "") -> None:
    """ExperimentError for a rule flag name :class:`Rules` does not know."""
    known = Rules.flag_names()
    for key in flags:
        if key not in known:
            raise ExperimentError(
                f"{where}unknown rule flag {key!r} in [rule]; known flags: {', '.join(known)}"
            )


def build_rules(preset: str, players: int, flags: dict[str, Any], where: str = "") -> Rules:
    """The rules of a validated preset name and its flags (checked against Rules)."""
    check_flags(flags, where)
    typed = {k: tuple(v) if isinstance(v, list) else v for k, v in flags.items()}
    try:
        return Rules.preset(preset, players=players, **typed)
    except (TypeError, ValueError) as exc:
        raise ExperimentError(f"{where}{exc}") from None
