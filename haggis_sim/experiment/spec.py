"""An experiment as frozen records, and the one loader that validates a file into them.

:func:`load_experiment` reads the TOML, :mod:`.schema` checks each table's keys and
types, and :func:`parse_experiment` resolves what needs several keys together: the rules
of every arm (a preset and its flags), canonical strategy specs, the grid's arms, names
that must differ, arms that would play identical games, populations and studies. Every
refusal is an :class:`ExperimentError` naming the file and the key.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from strategies import StrategyError, make, parse_spec

from ..analytics.compare import ENTRY_METRICS, RATE_METRICS
from ..report.labels import PINS
from ..rules import Rules
from ..runner.run import MAX_GAMES, RunConfig
from ..strategy_spec import UNVERSIONED, StrategySpec
from .followed import DEFAULT_BASES, DEFAULT_GAMES
from .ladder import tolerances
from .schema import (
    ARM_NAME,
    RESERVED,
    ArmTable,
    ExperimentError,
    ExperimentTable,
    GridTable,
    PopulationTable,
    StudyTable,
    check_flags,
    validate,
)

MAX_FILE_BYTES = 2**20  # an experiment file is a page of TOML: 1 MB is far more
DEFAULT_BUDGET = 16  # games per arm sizing may reach, in first batches, unless 'budget' says


@dataclass(frozen=True)
class Arm:
    """One arm: a complete run configuration (strategies and rules) of the experiment,
    and how pages show it: a short ``label`` ("" for none: pages make one), whether it is
    a ``head_to_head`` arm (its opponent differs from the baseline's, so it is reported
    apart from the ranking against the baseline) and its place ``at`` on the
    experiment's axis (None: not on it)."""

    name: str
    strategies: tuple[str, ...]
    rules: Rules
    label: str = ""
    head_to_head: bool = False
    at: float | None = None

    @property
    def players(self) -> int:
        return self.rules.players


@functools.lru_cache(maxsize=256)
def short_spec(spec: str) -> str:
    """A recorded spec (read as :data:`~haggis_sim.UNVERSIONED` when it names no version)
    as a person would write it today: its name and only the parameters
    without which it would be another strategy, leaving out the model files' SHA-256
    pins (``sha``, ``vsha``), which the spec fills in from the named file.

    A parameter goes when the spec without it is the same strategy: at its default, or
    inert and at the neutral value an inert parameter takes (mcts's ``mix=1.0`` with
    ``value=game``), so one strategy has one short spec whatever defaults it was
    recorded under.

    >>> short_spec(make("mcts").spec), short_spec(make("mcts:iters=400").spec)
    ('mcts', 'mcts:iters=400')
    >>> short_spec(make("mcts:model=mix2,value=net,mix=0.5").spec)
    'mcts:model=mix2'
    >>> short_spec(make("mcts:iters=64,value=game,model=gen2").spec)
    'mcts:iters=64,value=game,model=gen2'
    >>> short_spec("mcts:iters=64,value=net,prior=learned,model=mix2,mix=0.5,sha=2fbd21250aa9e580")
    'mcts:iters=64,model=mix2,qinit=0.0'
    """
    name, params = parse_spec(spec)
    try:
        whole = _unpinned(make(StrategySpec.parse(spec, UNVERSIONED)).spec)
    except StrategyError:  # a model file gone or changed since: what differs from defaults
        defaults = _unpinned(make(name).spec)
        return _join(
            name, {k: v for k, v in params.items() if k not in PINS and defaults.get(k) != v}
        )
    own = dict(whole)  # every parameter explicit, as the spec plays (a recorded one too)
    for key in list(own):
        rest = {k: v for k, v in own.items() if k != key}
        if _unpinned(make(_join(name, rest)).spec) == whole:
            own = rest
    return _join(name, own)


def _unpinned(spec: str) -> dict[str, str]:
    """A spec's parameters without the SHA-256 pins."""
    return {k: v for k, v in parse_spec(spec)[1].items() if k not in PINS}


def _join(name: str, params: dict[str, str]) -> str:
    return StrategySpec(name, tuple(params.items())).text


def swap_label(label: str, swap: dict[str, str]) -> str:
    """``label`` with every swapped strategy (a canonical spec) it names as a whole word
    replaced by its swap, written short (:func:`short_spec`).

    >>> swap_label("heuristic–greedy 3p", {"greedy": make("mcts").spec})
    'heuristic–mcts 3p'
    >>> swap_label("early-vs-greedy", {"greedy": make("mcts:iters=400").spec})
    'early-vs-mcts:iters=400'
    >>> swap_label("greedyish vs heuristic", {"greedy": "learned"})
    'greedyish vs heuristic'
    >>> swap_label("heuristic vs greedy", {"greedy": "heuristic", "heuristic": "greedy"})
    'greedy vs heuristic'
    """
    if not swap:
        return label
    words = {short_spec(old): short_spec(new) for old, new in swap.items()}
    names = "|".join(re.escape(old) for old in sorted(words, key=len, reverse=True))
    return re.sub(rf"(?<!\w)({names})(?!\w)", lambda m: words[m.group(1)], label)


@dataclass(frozen=True)
class Population:
    """One player population: every arm is played again with ``swap`` applied to its
    strategies (canonical spec -> canonical spec), or with ``strategies`` in place of its
    own (every arm the same players: a rule-variant experiment's stronger entry 0 against
    weaker ones), ``games`` games per arm (with ``precision``: the first batch, grown up to
    ``budget``, see :func:`.play.size_arms`)."""

    name: str
    games: int
    swap: dict[str, str]
    strategies: tuple[str, ...] | None = None
    precision: float | None = None
    budget: int | None = None

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


@dataclass(frozen=True)
class StudySpec:
    """One declared study: which kind, over which arm's games, how hard to look."""

    kind: str
    arm: str
    population: str | None
    positions: int
    samples: int
    seed: int
    min_per_bin: int = 30
    value: str = "game"
    prior: str = "learned"
    followed_games: int = DEFAULT_GAMES  # per base each line with advice is played; 0: not
    followed_bases: tuple[str, ...] = DEFAULT_BASES  # the players it is followed around

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


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file: the question, the shared settings and every arm."""

    name: str
    question: str
    games: int
    seed: int
    seats: str
    metric: str
    goal: str
    entry: int
    also: tuple[str, ...]
    log_moves: bool
    chunk_size: int
    arms: tuple[Arm, ...]
    source: Path | None = None
    text: str = field(default="", repr=False)
    populations: tuple[Population, ...] = ()
    studies: tuple[StudySpec, ...] = ()
    balance: bool = False
    ladder: bool = False  # the populations are rungs of a strength ladder, weakest first
    tolerance: dict[str, float] = field(default_factory=dict)  # per metric, with a ladder
    precision: float | None = None  # the 95% half-width to reach; None: ``games`` is fixed
    budget: int | None = None  # games per arm at most under ``precision``
    axis: str | None = None  # what the arms' ``at`` measure (a figure along it); None: none

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
    try:
        st = os.stat(path)  # never opened unless a regular file: a FIFO would block
    except FileNotFoundError:
        raise ExperimentError(f"experiment file {path} does not exist") from None
    except OSError as exc:
        raise ExperimentError(f"cannot read experiment file {path}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ExperimentError(f"{path} is a folder, not an experiment file")
    if not stat.S_ISREG(st.st_mode):
        raise ExperimentError(f"experiment file {path} is not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise ExperimentError(
            f"experiment file {path} is larger than {MAX_FILE_BYTES // 2**20} MB; "
            "an experiment file is a short TOML text"
        )
    try:
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")  # an editor's BOM
    except UnicodeDecodeError as exc:
        raise ExperimentError(
            f"{path}: not UTF-8 text (byte {exc.start}); an experiment file is TOML in UTF-8"
        ) from None
    except OSError as exc:
        raise ExperimentError(f"cannot read experiment file {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise ExperimentError(
            f"{path}: arrays or tables nested too deeply to read; an experiment file nests "
            "a few levels at most"
        ) from None
    return parse_experiment(data, source=path, text=text)


def parse_experiment(
    data: dict[str, Any], source: Path | None = None, text: str = ""
) -> Experiment:
    """Validate a parsed experiment table; ExperimentError naming the bad key otherwise."""
    w = f"{source}: " if source else ""
    top = validate(ExperimentTable, data, w)
    base_rules = _rules(top.rules, top.players, top.rule, w)
    base_strats = _strategy_list(top.strategies, w)
    arms = [_arm(top, table, i, base_strats, w) for i, table in enumerate(top.arms)]
    if top.grid is not None:
        arms += _grid_arms(top, top.grid, base_strats, base_rules, w)
    if not arms:
        arms = [Arm("base", base_strats, base_rules)]
    _check_arms(top, arms, w)
    _check_pages(top, arms, w)
    _refuse_identical_arms(arms, w)
    entry = top.entry if any(m in ENTRY_METRICS for m in [top.metric, *top.also]) else None
    # a budget at the top may serve only populations that give their own precision
    pops_sized = any(isinstance(t, dict) and "precision" in t for t in top.populations or ())
    precision, budget = sizing_keys(
        top.precision, None if pops_sized and top.precision is None else top.budget,
        top.games, top.metric, w,
    )  # fmt: skip
    populations = parse_populations(top.populations, arms, top, w, entry)
    studies = parse_studies(
        top.studies, [a.name for a in arms], [p.name for p in populations], top.log_moves,
        top.seed, w,
    )  # fmt: skip
    tolerance = _ladder_tolerance(top, arms[0].players, w)
    return Experiment(
        name=top.name, question=top.question, games=top.games, seed=top.seed, seats=top.seats,
        metric=top.metric, goal=top.goal, entry=top.entry, also=tuple(top.also),
        log_moves=top.log_moves, chunk_size=top.chunk_size, arms=tuple(arms), source=source,
        text=text, populations=populations, studies=studies, balance=top.balance,
        ladder=top.ladder, tolerance=tolerance, precision=precision, budget=budget,
        axis=top.axis,
    )  # fmt: skip


def _ladder_tolerance(top: ExperimentTable, players: int, w: str) -> dict[str, float]:
    """Every metric's convergence tolerance with ``ladder = true`` (see :mod:`.ladder`),
    else none. Refused: a ladder without populations, a tolerance without a ladder, a
    tolerance for a metric the experiment does not report."""
    if not top.ladder:
        if top.tolerance is not None:
            raise ExperimentError(f"{w}'tolerance' goes with 'ladder = true'")
        return {}
    if top.populations is None:
        raise ExperimentError(
            f"{w}'ladder = true' needs [[populations]]: at least two, the rungs of the "
            "ladder, weakest first"
        )
    metrics = list(dict.fromkeys([top.metric, *top.also]))
    if isinstance(top.tolerance, dict):
        for metric in top.tolerance:
            if metric not in metrics:
                raise ExperimentError(
                    f"{w}'tolerance' for {metric!r}: the experiment does not report it "
                    f"(its metrics: {', '.join(metrics)})"
                )
    return tolerances(metrics, top.tolerance, players)


def _rules(preset: str, players: int, flags: dict[str, Any], where: str) -> Rules:
    """The rules of a validated preset name and its flags (checked against Rules)."""
    check_flags(flags, where)
    typed = {k: tuple(v) if isinstance(v, list) else v for k, v in flags.items()}
    try:
        return Rules.preset(preset, players=players, **typed)
    except (TypeError, ValueError) as exc:
        raise ExperimentError(f"{where}{exc}") from None


def _strategy_list(specs: list[str], where: str) -> tuple[str, ...]:
    """The canonical form of every strategy spec (``make(spec).spec``)."""
    out = []
    for spec in specs:
        try:
            out.append(make(spec).spec)
        except ValueError as exc:
            raise ExperimentError(f"{where}strategy {spec!r}: {exc}") from None
    return tuple(out)


def _arm(top: ExperimentTable, table: dict[str, Any], i: int, base: tuple[str, ...], w: str) -> Arm:
    """One ``[[arms]]`` entry on top of the base setup (its rule flags over the base's)."""
    aw = f"{w}arm {table.get('name', i + 1)!r}: "
    arm = validate(ArmTable, table, aw)
    players = top.players if arm.players is None else arm.players
    rules = _rules(arm.rules or top.rules, players, {**top.rule, **arm.rule}, aw)
    strats = base if arm.strategies is None else _strategy_list(arm.strategies, aw)
    return Arm(arm.name, strats, rules, arm.label or "", arm.head_to_head, arm.at)


def _grid_arms(
    top: ExperimentTable, table: dict[str, Any], base: tuple[str, ...], rules: Rules, w: str
) -> list[Arm]:
    """The arms of ``[grid]``: one per value of a strategy parameter or of a rule flag."""
    gw = f"{w}[grid]: "
    grid = validate(GridTable, table, gw)  # exactly one of param and rule
    if grid.param is not None:
        entry = top.entry if grid.entry is None else grid.entry
        if not 0 <= entry < len(base):
            raise ExperimentError(f"{gw}'entry' {entry} is not a strategies index")
        arms = []
        for v in grid.values:
            strats = list(base)
            strats[entry] = _with_param(strats[entry], grid.param, v, gw)
            at = _axis_place(top, v)
            arms.append(Arm(f"{grid.param}={v}", tuple(strats), rules, f"{grid.param} {v}", at=at))
        return arms
    if grid.entry is not None:
        raise ExperimentError(f"{gw}'entry' goes with 'param', not with 'rule'")
    flag = grid.rule
    assert flag is not None  # exactly one of param and rule: GridTable checks it
    arms = []
    for v in grid.values:
        text = ",".join(map(str, v)) if isinstance(v, list) else str(v)
        rules_v = _rules(top.rules, top.players, {**top.rule, flag: v}, gw)
        arms.append(Arm(f"{flag}={text}", base, rules_v, f"{flag} {text}", at=_axis_place(top, v)))
    return arms


def _with_param(spec: str, param: str, value: Any, where: str) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    try:
        return make(StrategySpec.parse(spec).with_params({param: text})).spec
    except ValueError as exc:
        raise ExperimentError(f"{where}grid value {value!r} for {param!r}: {exc}") from None


def _check_arms(top: ExperimentTable, arms: list[Arm], w: str) -> None:
    """Arm names that can name folders and differ; seats enough for every arm's
    strategies; the ``entry`` of an entry metric present in every arm."""
    seen: set[str] = set()
    for arm in arms:
        if not ARM_NAME.fullmatch(arm.name):
            raise ExperimentError(
                f"{w}arm name {arm.name!r} must be letters, digits and . _ = + , - , 100 at "
                "most (it names the arm's folder)"
            )
        if arm.name in RESERVED:
            raise ExperimentError(
                f"{w}arm name {arm.name!r} is taken by the experiment's own files; not one "
                f"of {', '.join(RESERVED)} (it names the arm's folder)"
            )
        if arm.name in seen:
            raise ExperimentError(f"{w}two arms are named {arm.name!r}")
        seen.add(arm.name)
        if len(arm.strategies) > arm.players:
            raise ExperimentError(
                f"{w}arm {arm.name!r}: {len(arm.strategies)} strategies for {arm.players} seats"
            )
        entry_metric = any(m in ENTRY_METRICS for m in [top.metric, *top.also])
        if entry_metric and top.entry >= len(arm.strategies):
            raise ExperimentError(
                f"{w}'entry' = {top.entry} but arm {arm.name!r} has {len(arm.strategies)} "
                "strategies"
            )


def _axis_place(top: ExperimentTable, value: Any) -> float | None:
    """A grid value's place on the experiment's axis: the value itself where there is an
    axis and the value is an int or float (not a bool), else None."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if top.axis and number else None


def _check_pages(top: ExperimentTable, arms: list[Arm], w: str) -> None:
    """The keys that only shape pages: ``at`` needs an ``axis``; the first arm (the
    baseline) is not a head-to-head arm; labels are distinct."""
    if arms[0].head_to_head:
        raise ExperimentError(
            f"{w}arm {arms[0].name!r}: the first arm is the baseline; it cannot be "
            "'head_to_head' (a head-to-head arm is reported apart from the baseline)"
        )
    for arm in arms:
        if arm.at is not None and not top.axis:
            raise ExperimentError(
                f"{w}arm {arm.name!r}: 'at' places the arm on the experiment's 'axis'; "
                "give 'axis' (e.g. axis = \"bet threshold\") at the top level"
            )
    labels = [a.label or a.name for a in arms]
    twice = next((x for x in labels if labels.count(x) > 1), None)
    if twice is not None:
        raise ExperimentError(f"{w}two arms are labelled {twice!r}; labels must differ")


def _play_key(arm: Arm) -> tuple[Any, ...]:
    """What decides an arm's games besides the experiment-wide seed, games and seats.

    The engine's rules array (so a preset name alone does not count) and each seat's
    policy key (``Strategy.policy_key``: a parameter that cannot act under these rules
    does not count). Equal keys: the arms play identical games.
    """
    rules = tuple(int(x) for x in arm.rules.to_array())
    return (rules, tuple(make(spec).policy_key(arm.rules) for spec in arm.strategies))


def _refuse_identical_arms(arms: list[Arm], where: str) -> None:
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


# ---------------------------------------------------------------- player populations


def _canonical(spec: Any, what: str, where: str) -> str:
    if not isinstance(spec, str):
        raise ExperimentError(f"{where}{what} must be a strategy spec (a string), got {spec!r}")
    try:
        return make(spec).spec
    except ValueError as exc:
        raise ExperimentError(f"{where}{what} {spec!r}: {exc}") from None


def sizing_keys(
    precision: float | None, budget: int | None, games: int, metric: str, where: str
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
    tables: list[dict[str, Any]] | None,
    arms: list[Arm],
    top: ExperimentTable,
    w: str,
    entry: int | None = None,
) -> tuple[Population, ...]:
    """Validate ``[[populations]]`` (``None``: the key is absent, no populations).

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
            f"{w}give at least two [[populations]] (the first is the baseline) or none"
        )
    used = {s for arm in arms for s in arm.strategies}
    out: list[Population] = []
    plays: dict[tuple[tuple[str, ...], ...], str] = {}
    for i, table in enumerate(tables):
        pw = f"{w}population {table.get('name', i + 1)!r}: "
        pop_table = validate(PopulationTable, table, pw)
        name = pop_table.name
        if any(p.name == name for p in out):
            raise ExperimentError(f"{w}two populations are named {name!r}")
        swap: dict[str, str] = {}
        for key, new in pop_table.swap.items():
            old = _canonical(key, "swap key", pw)
            if old not in used:
                raise ExperimentError(
                    f"{pw}swap key {key!r} is not a strategy any arm plays; the arms play "
                    f"{', '.join(sorted(used))}"
                )
            swap[old] = _canonical(new, f"swap value for {key!r}", pw)
        strats = _population_strategies(table, pop_table.strategies, arms, top.seats, entry, pw)
        games = top.games if pop_table.games is None else pop_table.games
        precision = top.precision if pop_table.precision is None else pop_table.precision
        budget = top.budget if precision is not None else None  # inherited with a precision
        precision, budget = sizing_keys(
            precision, budget if pop_table.budget is None else pop_table.budget, games,
            top.metric, pw,
        )  # fmt: skip
        pop = Population(name, games, swap, strats, precision, budget)
        strategies = tuple(pop.apply(arm).strategies for arm in arms)
        if strategies in plays:  # the same deals again (the seed is shared): nothing new
            raise ExperimentError(
                f"{pw}plays the same strategies in every arm as population "
                f"{plays[strategies]!r}: give it a swap that changes an arm"
            )
        plays[strategies] = name
        # a swap can make two arms one (early-vs-greedy becomes early-vs-late when the
        # heuristic replaces greedy): their games would count twice in the report
        _refuse_identical_arms([pop.apply(arm) for arm in arms], pw)
        out.append(pop)
    return tuple(out)


def _population_strategies(
    table: dict[str, Any],
    specs: list[str] | None,
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


# ---------------------------------------------------------------- decision studies


def parse_studies(
    tables: list[dict[str, Any]] | None,
    arm_names: list[str],
    population_names: list[str],
    log_moves: bool,
    seed: int,
    w: str,
) -> tuple[StudySpec, ...]:
    """Validate ``[[studies]]`` (see :mod:`.studies`); ExperimentError for the first bad key."""
    if tables is None:
        return ()
    if tables and not log_moves:
        raise ExperimentError(f"{w}a study needs the arms' move logs: remove 'log_moves = false'")
    specs = []
    for i, table in enumerate(tables):
        sw = f"{w}study {i + 1}: "
        study = validate(StudyTable, table, sw)
        arm = arm_names[0] if study.arm is None else study.arm
        if arm not in arm_names:
            raise ExperimentError(f"{sw}no arm named {arm!r}; arms: {', '.join(arm_names)}")
        population = None
        if population_names:
            population = population_names[0] if study.population is None else study.population
            if population not in population_names:
                raise ExperimentError(
                    f"{sw}no population named {population!r}; "
                    f"populations: {', '.join(population_names)}"
                )
        elif "population" in table:
            raise ExperimentError(f"{sw}'population' needs [[populations]] in the experiment")
        study_seed = seed if study.seed is None else study.seed
        if study_seed < 0:  # a study's seed is unsigned; the experiment's may be negative
            raise ExperimentError(
                f"{sw}the experiment's seed {seed} is negative; give the study a 'seed' "
                "from 0 to 2**64 - 1"
            )
        specs.append(
            StudySpec(
                study.kind,
                arm,
                population,
                study.positions,
                study.samples,
                study_seed,
                study.min_per_bin,
                study.value,
                study.prior,
                study.followed_games,
                _followed_bases(study.followed_bases, study.followed_games, sw),
            )
        )
    return tuple(specs)


def _followed_bases(bases: list[str], games: int, sw: str) -> tuple[str, ...]:
    """The base players a study's advice is followed around (each one the ``advised``
    strategy takes, none twice); at least two unless ``followed_games = 0``: advice is
    only advice if it holds in more than one population."""
    if games and len(bases) < 2:
        raise ExperimentError(
            f"{sw}'followed_bases' must name at least two base players (advice is tested "
            f"in several populations), got {bases!r}; or set followed_games = 0 to not test "
            "the advice in play"
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
