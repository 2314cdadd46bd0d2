"""An experiment as a frozen record, and the one loader that validates a file into it.

:func:`load_experiment` reads the TOML and :func:`parse_experiment` validates it into an
:class:`Experiment` (see :mod:`.schema`): each key's type and value, then what needs
several keys together, resolved by the record: the rules of every arm (a preset and its
flags, :mod:`.arms`), canonical strategy specs, the grid's arms, names that must differ,
arms that would play identical games, populations (:mod:`.populations`) and studies
(:mod:`.studies_spec`). Every refusal is an :class:`ExperimentError` naming the file and
the key.
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import field, replace
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import ValidationInfo, model_validator
from pydantic.dataclasses import dataclass

from ..analytics.compare import ENTRY_METRICS, METRICS
from ..runner.run import RunConfig
from ..runner.seating import SEAT_MODES
from .arms import (
    Arm,
    Grid,
    check_arms,
    check_pages,
    grid_arms,
    refuse_identical_arms,
    strategy_list,
)
from .labels import short_spec as short_spec  # the pages import it from here
from .ladder import tolerances
from .populations import Population, parse_populations, sizing_keys
from .schema import (
    GOALS,
    RECORD,
    Budget,
    ChunkSize,
    ExperimentError,
    FolderName,
    Games,
    Listed,
    Players,
    Precision,
    Preset,
    Question,
    Says,
    Seed,
    Strategies,
    Table,
    Tables,
    Tolerance,
    Written,
    build_rules,
    choice,
    validate,
)
from .studies_spec import StudySpec, parse_studies

MAX_FILE_BYTES = 2**20  # an experiment file is a page of TOML: 1 MB is far more


@dataclass(frozen=True, config=RECORD, kw_only=True)
class Experiment(Table):
    """A validated experiment file: the question, the shared settings and every arm.

    Fields in the order their values are checked. ``players``, ``rules`` (a preset
    name), ``rule`` (its flags) and ``strategies`` (canonical specs) are the base setup
    the arms change; ``grid`` the sweep some arms come from; ``tolerance`` the
    convergence tolerance per metric with a ladder (:mod:`.ladder`); ``precision`` the
    95% half-width to reach (None: ``games`` is fixed) and ``budget`` the games per arm
    at most under it; ``source`` and ``text`` the file it was read from."""

    SHOWN = (
        "name", "question", "games", "seed", "players", "rules", "rule", "strategies", "seats",
        "metric", "goal", "entry", "also", "log_moves", "chunk_size", "precision", "budget",
        "arms", "grid", "populations", "studies", "balance", "ladder", "tolerance", "axis",
    )  # fmt: skip
    REQUIRED = ("name", "question", "games", "strategies", "metric")
    LOADED = ("source", "text")

    name: FolderName
    question: Question
    games: Games
    seed: Seed = 0
    players: Players = 2
    seats: Annotated[
        str, choice(SEAT_MODES), Says("'seats' must be rotate or fixed, got {value!r}")
    ] = "rotate"
    metric: Annotated[
        str, choice(tuple(METRICS)),
        Says(f"unknown metric {{value!r}}; known: {', '.join(METRICS)}"),
    ]  # fmt: skip
    also: Annotated[
        tuple[Annotated[str, choice(tuple(METRICS))], ...], Listed,
        Says("'also' must be a list of metrics, got {value!r}",
             item=f"unknown metric {{value!r}} in 'also'; known: {', '.join(METRICS)}"),
    ] = ()  # fmt: skip
    goal: Annotated[str, choice(GOALS), Says("'goal' must be max or min, got {value!r}")] = "max"
    entry: int = 0
    log_moves: bool = True
    balance: bool = False
    chunk_size: ChunkSize = 0
    precision: Precision = None
    budget: Budget = None
    rules: Preset = "revised"
    rule: Annotated[
        dict[str, Any], Says("'rule' must be a table of FLAG = VALUE, got {value!r}")
    ] = field(default_factory=dict)
    strategies: Strategies
    arms: Annotated[
        tuple[Arm, ...],
        Written(Annotated[Tables, Says("'arms' must be an array of tables ([[arms]])")]),
    ] = ()
    grid: Annotated[
        Grid | None,
        Written(Annotated[dict[str, Any] | None, Says("[grid]: must be a table")]),
    ] = None
    populations: Annotated[
        tuple[Population, ...],
        Written(
            Annotated[
                Tables | None, Says("'populations' must be an array of tables ([[populations]])")
            ]
        ),
    ] = ()
    studies: Annotated[
        tuple[StudySpec, ...],
        Written(
            Annotated[Tables | None, Says("'studies' must be an array of tables ([[studies]])")]
        ),
    ] = ()
    ladder: bool = False  # the populations are rungs of a strength ladder, weakest first
    axis: (
        Annotated[str, Says("'axis' must be a text (what the arms' 'at' measure), got {value!r}")]
        | None
    ) = None
    tolerance: Annotated[dict[str, float], Written(Tolerance)] = field(default_factory=dict)
    source: Path | None = None
    text: str = field(default="", repr=False)

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> Self:
        """A file's experiment: its arms, grid, populations, studies, sizing and ladder
        tolerance read from its table (:func:`_resolved`); a record built in code keeps
        its values."""
        if info.context is not None:
            for key, value in _resolved(self, info.context["table"]).items():
                object.__setattr__(self, key, value)
        return self

    @property
    def metrics(self) -> list[str]:
        """The question's metric first, then the ``also`` metrics (no repeats)."""
        return list(dict.fromkeys([self.metric, *self.also]))

    def run_config(self, arm: Arm, jobs: int = 0, games: int | None = None) -> RunConfig:
        """The run that plays ``arm`` (the experiment's games, or ``games``; its seed and
        seating)."""
        return RunConfig(
            strategies=list(arm.strategies),
            games=self.games if games is None else games,
            rules=arm.rules.as_dict(),
            seed=self.seed,
            seats=self.seats,
            chunk_size=self.chunk_size,
            log_moves=self.log_moves,
            jobs=jobs,
            command=f"haggis-sim experiment {self.source or self.name} (arm {arm.name})",
        )


def population_experiment(exp: Experiment, pop: Population) -> Experiment:
    """The experiment as population ``pop`` plays it: its swaps applied to every arm, its
    games per arm, no populations (so it is summarized like any experiment)."""
    arms = tuple(pop.apply(a) for a in exp.arms)
    return replace(exp, games=pop.games, arms=arms, populations=(), precision=pop.precision,
                   budget=pop.budget)  # fmt: skip


def load_experiment(path: Path) -> Experiment:
    """Read and validate an experiment file (TOML)."""
    data, text = read_toml_file(path, "experiment")
    return parse_experiment(data, source=path, text=text)


def read_toml_file(path: Path, kind: str) -> tuple[dict[str, Any], str]:
    """The table and text of the ``kind`` file (``experiment``, ``design``) at ``path``;
    ExperimentError, in one sentence naming the file, for anything that is not a short
    regular UTF-8 TOML file (opened only once it is known to be a regular file: a FIFO
    would block)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ExperimentError(f"{kind} file {path} does not exist") from None
    except OSError as exc:
        raise ExperimentError(f"cannot read {kind} file {path}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ExperimentError(f"{path} is a folder, not {_a(kind)} file")
    if not stat.S_ISREG(st.st_mode):
        raise ExperimentError(f"{kind} file {path} is not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise ExperimentError(
            f"{kind} file {path} is larger than {MAX_FILE_BYTES // 2**20} MB; "
            f"{_a(kind)} file is a short TOML text"
        )
    try:
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")  # an editor's BOM
    except UnicodeDecodeError as exc:
        raise ExperimentError(
            f"{path}: not UTF-8 text (byte {exc.start}); {_a(kind)} file is TOML in UTF-8"
        ) from None
    except OSError as exc:
        raise ExperimentError(f"cannot read {kind} file {path}: {exc.strerror}") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise ExperimentError(
            f"{path}: arrays or tables nested too deeply to read; {_a(kind)} file nests "
            "a few levels at most"
        ) from None


def _a(kind: str) -> str:
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def parse_experiment(
    data: dict[str, Any], source: Path | None = None, text: str = ""
) -> Experiment:
    """Validate a parsed experiment table; ExperimentError naming the bad key otherwise."""
    w = f"{source}: " if source else ""
    return validate(Experiment, data, w, source=source, text=text)


def _resolved(exp: Experiment, table: dict[str, Any]) -> dict[str, Any]:
    """What the file's ``table`` resolves into, beyond its validated keys: canonical
    strategies, the arms (``[[arms]]``, ``[grid]`` or one "base" arm), populations,
    studies, sizing and ladder tolerance, in the order they are checked. ``exp`` holds
    the validated keys as the file gives them."""
    base_rules = build_rules(exp.rules, exp.players, exp.rule)
    object.__setattr__(exp, "strategies", strategy_list(exp.strategies))  # the arms' base
    arms = [
        validate(Arm, t, f"arm {t.get('name', i + 1)!r}: ", base=exp)
        for i, t in enumerate(table.get("arms", []))
    ]
    grid = None
    if table.get("grid") is not None:
        grid = validate(Grid, table["grid"], "[grid]: ")  # exactly one of param and rule
        arms += grid_arms(exp, grid, base_rules)
    if not arms:
        arms = [Arm("base", exp.strategies, base_rules, rule=exp.rule)]
    check_arms(exp, arms)
    check_pages(exp, arms)
    refuse_identical_arms(arms)
    entry = exp.entry if any(m in ENTRY_METRICS for m in exp.metrics) else None
    # a budget at the top may serve only populations that give their own precision
    pop_tables = table.get("populations")
    pops_sized = any(isinstance(t, dict) and "precision" in t for t in pop_tables or ())
    precision, budget = sizing_keys(
        exp.precision, None if pops_sized and exp.precision is None else exp.budget,
        exp.games, exp.metric,
    )  # fmt: skip
    populations = parse_populations(pop_tables, arms, exp, entry)
    studies = parse_studies(
        table.get("studies"), [a.name for a in arms], [p.name for p in populations],
        exp.log_moves, exp.seed,
    )  # fmt: skip
    tolerance = _ladder_tolerance(exp, table, arms[0].players)
    return {"arms": tuple(arms), "grid": grid, "populations": populations, "studies": studies,
            "tolerance": tolerance, "precision": precision, "budget": budget}  # fmt: skip


def _ladder_tolerance(exp: Experiment, table: dict[str, Any], players: int) -> dict[str, float]:
    """Every metric's convergence tolerance with ``ladder = true`` (see :mod:`.ladder`),
    else none. Refused: a ladder without populations, a tolerance without a ladder, a
    tolerance for a metric the experiment does not report."""
    tolerance = table.get("tolerance")
    if not exp.ladder:
        if tolerance is not None:
            raise ExperimentError("'tolerance' goes with 'ladder = true'")
        return {}
    if table.get("populations") is None:
        raise ExperimentError(
            "'ladder = true' needs [[populations]]: at least two, the rungs of the "
            "ladder, weakest first"
        )
    metrics = exp.metrics
    if isinstance(tolerance, dict):
        for metric in tolerance:
            if metric not in metrics:
                raise ExperimentError(
                    f"'tolerance' for {metric!r}: the experiment does not report it "
                    f"(its metrics: {', '.join(metrics)})"
                )
    return tolerances(metrics, tolerance, players)
