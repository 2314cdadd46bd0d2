"""An experiment's decision studies as declared: the :class:`StudySpec` record a
``[[studies]]`` table is read into, its arm, population and seed resolved against the
experiment's (:func:`parse_studies`). Running a study: :mod:`.studies`.

Every refusal is an :class:`.schema.ExperimentError` without the file's name: the
experiment's :func:`.schema.validate` puts it in front.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import Field
from pydantic.dataclasses import dataclass

from strategies import make

from ..counterfactual.decisions import MAX_POSITIONS, MAX_SAMPLES, StudySettings
from ..runner.run import MAX_GAMES
from .followed import DEFAULT_BASES, DEFAULT_GAMES
from .schema import (
    RECORD,
    STUDY_KINDS,
    STUDY_PRIORS,
    STUDY_VALUES,
    ExperimentError,
    Listed,
    Says,
    StudySeed,
    Table,
    Written,
    at_most,
    choice,
    validate,
)

_STUDY_NUMBER = "'{key}' must be a whole number >= 1, got {{value!r}}"


@dataclass(frozen=True, config=RECORD)
class StudySpec(Table):
    """One declared study: which kind, over which arm's games (of which population: None
    without populations), how hard to look; ``followed_games`` per base each line with
    advice is played (0: not), around the ``followed_bases`` players. A table without
    ``arm``, ``population`` or ``seed`` takes the first arm, the first population and the
    experiment's seed."""

    SHOWN = (
        "kind", "arm", "population", "positions", "min_per_bin", "samples", "value", "prior",
        "seed", "followed_games", "followed_bases",
    )  # fmt: skip
    UNKNOWN = "unknown key {key!r}; known: {keys}"
    SORTED = True

    kind: Annotated[
        str, choice(STUDY_KINDS), Field(validate_default=True),
        Says(f"'kind' must be one of {', '.join(STUDY_KINDS)}, got {{value!r}}"),
    ] = None  # type: ignore[assignment]  # validated: a missing kind is refused  # fmt: skip
    arm: Annotated[str, Written(Any)] = ""
    population: Annotated[str | None, Written(Any)] = None
    positions: Annotated[
        int, Field(ge=1), at_most("positions", MAX_POSITIONS),
        Says(_STUDY_NUMBER.format(key="positions")),
    ] = StudySettings.positions  # fmt: skip
    min_per_bin: Annotated[
        int, Field(ge=0), at_most("min_per_bin", MAX_POSITIONS),
        Says("'min_per_bin' must be a whole number >= 0, got {value!r}"),
    ] = StudySettings.min_per_bin  # fmt: skip
    value: Annotated[
        str, choice(STUDY_VALUES),
        Says(f"'value' must be one of {', '.join(STUDY_VALUES)}, got {{value!r}}"),
    ] = StudySettings.value  # fmt: skip
    prior: Annotated[
        str, choice(STUDY_PRIORS),
        Says(f"'prior' must be one of {', '.join(STUDY_PRIORS)}, got {{value!r}}"),
    ] = StudySettings.prior  # fmt: skip
    samples: Annotated[
        int, Field(ge=1), at_most("samples", MAX_SAMPLES),
        Says(_STUDY_NUMBER.format(key="samples")),
    ] = StudySettings.samples  # fmt: skip
    seed: StudySeed = 0
    followed_games: Annotated[
        int, Field(ge=0), at_most("followed_games", MAX_GAMES),
        Says("'followed_games' must be a whole number >= 0 (games per base each line with "
             "advice is followed in play; 0: not tested), got {value!r}"),
    ] = DEFAULT_GAMES  # fmt: skip
    followed_bases: Annotated[
        tuple[str, ...],
        Listed,
        Says("'followed_bases' must be a list of strategy specs, got {value!r}"),
    ] = DEFAULT_BASES

    @property
    def label(self) -> str:
        """``kind`` over ``population/arm`` (or ``arm``): names its CSV file and headings."""
        where = f"{self.population}/{self.arm}" if self.population else self.arm
        return f"{self.kind} over {where}"

    @property
    def file_name(self) -> str:
        """The study's CSV table in the experiment folder."""
        where = f"{self.population}-{self.arm}" if self.population else self.arm
        return f"study-{self.kind}-{where}.csv"


def parse_studies(
    tables: list[dict[str, Any]] | None,
    arm_names: list[str],
    population_names: list[str],
    log_moves: bool,
    seed: int,
) -> tuple[StudySpec, ...]:
    """Validate ``[[studies]]`` (see :mod:`.studies`); ExperimentError for the first bad key."""
    if tables is None:
        return ()
    if tables and not log_moves:
        raise ExperimentError("a study needs the arms' move logs: remove 'log_moves = false'")
    specs = []
    for i, table in enumerate(tables):
        sw = f"study {i + 1}: "
        study = validate(StudySpec, table, sw)
        arm = study.arm if "arm" in table else arm_names[0]
        if arm not in arm_names:
            raise ExperimentError(f"{sw}no arm named {arm!r}; arms: {', '.join(arm_names)}")
        population = None
        if population_names:
            population = study.population if "population" in table else population_names[0]
            if population not in population_names:
                raise ExperimentError(
                    f"{sw}no population named {population!r}; "
                    f"populations: {', '.join(population_names)}"
                )
        elif "population" in table:
            raise ExperimentError(f"{sw}'population' needs [[populations]] in the experiment")
        study_seed = study.seed if "seed" in table else seed
        if study_seed < 0:  # a study's seed is unsigned; the experiment's may be negative
            raise ExperimentError(
                f"{sw}the experiment's seed {seed} is negative; give the study a 'seed' "
                "from 0 to 2**64 - 1"
            )
        bases = _followed_bases(study.followed_bases, study.followed_games, sw)
        specs.append(
            replace(study, arm=arm, population=population, seed=study_seed, followed_bases=bases)
        )
    return tuple(specs)


def _followed_bases(bases: tuple[str, ...], games: int, sw: str) -> tuple[str, ...]:
    """The base players a study's advice is followed around (each one the ``advised``
    strategy takes, none twice); at least two unless ``followed_games = 0``: advice is
    only advice if it holds in more than one population."""
    if games and len(bases) < 2:
        raise ExperimentError(
            f"{sw}'followed_bases' must name at least two base players (advice is tested "
            f"in several populations), got {list(bases)!r}; or set followed_games = 0 to not "
            "test the advice in play"
        )
    seen: dict[str, str] = {}
    for base in bases:
        try:
            spec = make(f"advised:base={base.replace(',', ';')}").values["base"]
        except ValueError as exc:
            raise ExperimentError(f"{sw}'followed_bases' {base!r}: {exc}") from None
        if spec in seen:
            raise ExperimentError(
                f"{sw}'followed_bases' names one player twice: {seen[spec]!r} and {base!r}"
            )
        seen[spec] = base
    return tuple(bases)
