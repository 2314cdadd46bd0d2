"""Declarative experiments: a TOML file of arms, run on common deals, summarized with intervals.

An experiment file (see ``experiments/README.md``) names a question, a base setup
(players, rules preset and flags, strategies, games, seed) and a list of *arms* that
each change some of it: explicit ``[[arms]]`` tables and/or a ``[grid]`` sweeping one
strategy parameter or one rule flag. Every arm is an ordinary run (``RunConfig`` /
``execute``) into ``<out>/<arm name>/`` with the experiment's seed, so all arms with the
same player count and seating play the same deals and their differences are paired game
by game. Finished arms are skipped when the experiment is run again; unfinished ones
resume.

The experiment folder carries a marker (:data:`MARKER`) naming the experiment and the
files it wrote; only such a folder (or a new or empty one) is written to, and only the
files the experiment wrote there are rewritten (see :func:`check_experiment_out`).
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from strategies import make, parse_spec

from . import __version__
from .analytics.compare import (
    ENTRY_METRICS,
    METRICS,
    PAIRING_METRICS,
    Difference,
    Estimate,
    compare_runs,
    compare_section_html,
    difference,
    estimate,
    fair_claim,
    fair_value,
    fmt_interval,
    fmt_value,
    game_metrics,
    has_pairing,
    metric_column,
    no_pairing_note,
    same_deals,
)
from .errors import InputError
from .experiment_studies import (
    StudySpec,
    parse_studies,
    run_studies,
    studies_html,
    studies_markdown,
)
from .logs.manifest import MANIFEST, read_manifest
from .presets import PRESETS
from .rules import Rules
from .runner.run import RunConfig, execute, stale_seating
from .runner.seating import SEAT_MODES, base_entries


class ExperimentError(InputError):
    """An experiment file that cannot be run: the message names the file and the key."""


TOP_KEYS = (
    "name", "question", "games", "seed", "players", "rules", "rule", "strategies", "seats",
    "metric", "goal", "entry", "also", "log_moves", "chunk_size", "arms", "grid", "populations",
    "studies",
)  # fmt: skip
ARM_KEYS = ("name", "strategies", "rules", "players", "rule")
GRID_KEYS = ("param", "rule", "values", "entry")
POPULATION_KEYS = ("name", "games", "swap")
GOALS = ("max", "min")
ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=+,-]*")
# run settings that must match for a finished arm folder to count as this arm
MATCH_KEYS = ("strategies", "games", "rules", "seed", "seats", "log_moves")  # decide the games
MARKER = ".haggis-sim-experiment.json"
# files the experiment writes into its folder (besides the arm runs and report/)
OWN_FILES = (
    "experiment.toml", "summary.json", "summary.md", "compare.html", "index.html", "fig-forest.png",
)  # fmt: skip


@dataclass(frozen=True)
class Arm:
    """One arm: a complete run configuration (strategies and rules) of the experiment."""

    name: str
    strategies: list[str]
    rules: Rules

    @property
    def players(self) -> int:
        return self.rules.players


@dataclass(frozen=True)
class Population:
    """One player population: every arm is played again with ``swap`` applied to its
    strategies (canonical spec -> canonical spec), ``games`` games per arm."""

    name: str
    games: int
    swap: dict[str, str]

    def apply(self, arm: Arm) -> Arm:
        """The arm as this population plays it (strategies not in ``swap`` stay)."""
        return Arm(arm.name, [self.swap.get(s, s) for s in arm.strategies], arm.rules)


@dataclass(frozen=True)
class Experiment:
    name: str
    question: str
    games: int
    seed: int
    seats: str
    metric: str
    goal: str
    entry: int
    also: list[str]
    log_moves: bool
    chunk_size: int
    arms: list[Arm]
    source: Path | None = None
    text: str = field(default="", repr=False)
    populations: list[Population] = field(default_factory=list)
    studies: list[StudySpec] = field(default_factory=list)

    @property
    def metrics(self) -> list[str]:
        """The question's metric first, then the ``also`` metrics (no repeats)."""
        return list(dict.fromkeys([self.metric, *self.also]))

    def run_config(self, arm: Arm, jobs: int = 0) -> RunConfig:
        return RunConfig(
            strategies=list(arm.strategies),
            games=self.games,
            rules=arm.rules.as_dict(),
            seed=self.seed,
            seats=self.seats,
            chunk_size=self.chunk_size,
            log_moves=self.log_moves,
            jobs=jobs,
            command=f"haggis-sim experiment {self.source or self.name} (arm {arm.name})",
        )


def _where(path: Path | None) -> str:
    return f"{path}: " if path else ""


def _check_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ExperimentError(f"{where}unknown key {key!r}; allowed keys: {', '.join(allowed)}")


def _typed(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = table[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise ExperimentError(f"{where}key {key!r} must be {names}, got {value!r}")
    return value


def _strategy_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        raise ExperimentError(
            f"{where}key 'strategies' must be a non-empty list of strategy specs, got {value!r}"
        )
    out = []
    for spec in value:
        try:
            out.append(make(spec).spec)
        except ValueError as exc:
            raise ExperimentError(f"{where}strategy {spec!r}: {exc}") from None
    return out


def _rules(preset: Any, players: Any, flags: Any, where: str) -> Rules:
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ExperimentError(
            f"{where}unknown rules preset {preset!r} (key 'rules'); known: {', '.join(PRESETS)}"
        )
    if not isinstance(flags, dict):
        raise ExperimentError(f"{where}'rule' must be a table of FLAG = VALUE, got {flags!r}")
    known = Rules.flag_names()
    for key in flags:
        if key not in known:
            raise ExperimentError(
                f"{where}unknown rule flag {key!r} in [rule]; known flags: {', '.join(known)}"
            )
    typed = {k: tuple(v) if isinstance(v, list) else v for k, v in flags.items()}
    try:
        return Rules.preset(preset, players=players, **typed)
    except (TypeError, ValueError) as exc:
        raise ExperimentError(f"{where}{exc}") from None


def _with_param(spec: str, param: str, value: Any, where: str) -> str:
    name, values = parse_spec(spec)
    values[param] = str(value).lower() if isinstance(value, bool) else str(value)
    text = name + ":" + ",".join(f"{k}={v}" for k, v in values.items())
    try:
        return make(text).spec
    except ValueError as exc:
        raise ExperimentError(f"{where}grid value {value!r} for {param!r}: {exc}") from None


def parse_experiment(
    data: dict[str, Any], source: Path | None = None, text: str = ""
) -> Experiment:
    """Validate a parsed experiment table; ExperimentError naming the bad key otherwise."""
    w = _where(source)
    _check_keys(data, TOP_KEYS, w)
    for key in ("name", "question", "games", "strategies", "metric"):
        if key not in data:
            raise ExperimentError(f"{w}missing required key {key!r}")
    name = _typed(data, "name", str, w)
    if not ARM_NAME.fullmatch(name):
        raise ExperimentError(f"{w}'name' must be letters, digits and . _ = + , - ; got {name!r}")
    question = _typed(data, "question", str, w)
    games = _typed(data, "games", int, w)
    if games <= 0:
        raise ExperimentError(f"{w}'games' must be positive, got {games}")
    seed = _typed(data, "seed", int, w) if "seed" in data else 0
    players = data.get("players", 2)
    if players not in (2, 3) or isinstance(players, bool):
        raise ExperimentError(f"{w}'players' must be 2 or 3, got {players!r}")
    seats = data.get("seats", "rotate")
    if seats not in SEAT_MODES:
        raise ExperimentError(f"{w}'seats' must be rotate or fixed, got {seats!r}")
    metric = data["metric"]
    if metric not in METRICS:
        raise ExperimentError(f"{w}unknown metric {metric!r}; known: {', '.join(METRICS)}")
    also = data.get("also", [])
    if not isinstance(also, list):
        raise ExperimentError(f"{w}'also' must be a list of metrics, got {also!r}")
    for m in also:
        if m not in METRICS:
            raise ExperimentError(f"{w}unknown metric {m!r} in 'also'; known: {', '.join(METRICS)}")
    goal = data.get("goal", "max")
    if goal not in GOALS:
        raise ExperimentError(f"{w}'goal' must be max or min, got {goal!r}")
    entry = _typed(data, "entry", int, w) if "entry" in data else 0
    log_moves = _typed(data, "log_moves", bool, w) if "log_moves" in data else True
    chunk_size = _typed(data, "chunk_size", int, w) if "chunk_size" in data else 0
    if chunk_size < 0:
        raise ExperimentError(
            f"{w}'chunk_size' must be 0 (automatic) or a positive number, got {chunk_size}"
        )
    base_preset = data.get("rules", "revised")
    base_flags = data.get("rule", {})
    base_rules = _rules(base_preset, players, base_flags, w)
    base_strats = _strategy_list(data["strategies"], w)

    arms: list[Arm] = []
    arm_tables = data.get("arms", [])
    if not isinstance(arm_tables, list) or not all(isinstance(a, dict) for a in arm_tables):
        raise ExperimentError(f"{w}'arms' must be an array of tables ([[arms]])")
    for i, table in enumerate(arm_tables):
        aw = f"{w}arm {table.get('name', i + 1)!r}: "
        _check_keys(table, ARM_KEYS, aw)
        if "name" not in table:
            raise ExperimentError(f"{aw}missing required key 'name'")
        arm_players = table.get("players", players)
        if arm_players not in (2, 3) or isinstance(arm_players, bool):
            raise ExperimentError(f"{aw}'players' must be 2 or 3, got {arm_players!r}")
        rule_flags = table.get("rule", {})
        if not isinstance(rule_flags, dict):
            raise ExperimentError(f"{aw}'rule' must be a table of FLAG = VALUE")
        rules = _rules(
            table.get("rules", base_preset), arm_players, {**base_flags, **rule_flags}, aw
        )
        strats = _strategy_list(table["strategies"], aw) if "strategies" in table else base_strats
        arms.append(Arm(_typed(table, "name", str, aw), strats, rules))

    if "grid" in data:
        grid = data["grid"]
        gw = f"{w}[grid]: "
        if not isinstance(grid, dict):
            raise ExperimentError(f"{gw}must be a table")
        _check_keys(grid, GRID_KEYS, gw)
        if ("param" in grid) == ("rule" in grid):
            raise ExperimentError(f"{gw}give exactly one of 'param' (strategy) or 'rule' (flag)")
        values = grid.get("values")
        if not isinstance(values, list) or not values:
            raise ExperimentError(f"{gw}'values' must be a non-empty list")
        if "param" in grid:
            param = _typed(grid, "param", str, gw)
            g_entry = _typed(grid, "entry", int, gw) if "entry" in grid else entry
            if not 0 <= g_entry < len(base_strats):
                raise ExperimentError(f"{gw}'entry' {g_entry} is not a strategies index")
            for v in values:
                strats = list(base_strats)
                strats[g_entry] = _with_param(strats[g_entry], param, v, gw)
                arms.append(Arm(f"{param}={v}", strats, base_rules))
        else:
            if "entry" in grid:
                raise ExperimentError(f"{gw}'entry' goes with 'param', not with 'rule'")
            flag = _typed(grid, "rule", str, gw)
            for v in values:
                rules = _rules(base_preset, players, {**base_flags, flag: v}, gw)
                shown = ",".join(map(str, v)) if isinstance(v, list) else v
                arms.append(Arm(f"{flag}={shown}", base_strats, rules))

    if not arms:
        arms = [Arm("base", base_strats, base_rules)]
    seen: set[str] = set()
    for arm in arms:
        if not ARM_NAME.fullmatch(arm.name):
            raise ExperimentError(
                f"{w}arm name {arm.name!r} must be letters, digits and . _ = + , - "
                "(it names the arm's folder)"
            )
        if arm.name in seen:
            raise ExperimentError(f"{w}two arms are named {arm.name!r}")
        seen.add(arm.name)
        if len(arm.strategies) > arm.players:
            raise ExperimentError(
                f"{w}arm {arm.name!r}: {len(arm.strategies)} strategies for {arm.players} seats"
            )
        if any(m in ENTRY_METRICS for m in [metric, *also]) and entry >= len(arm.strategies):
            raise ExperimentError(
                f"{w}'entry' = {entry} but arm {arm.name!r} has {len(arm.strategies)} strategies"
            )
    _refuse_identical_arms(arms, w)
    populations = parse_populations(data.get("populations"), arms, games, w)
    studies = parse_studies(
        data.get("studies"), [a.name for a in arms], [p.name for p in populations], log_moves,
        seed, w, ExperimentError,
    )  # fmt: skip
    return Experiment(
        name=name, question=question, games=games, seed=seed, seats=seats, metric=metric,
        goal=goal, entry=entry, also=list(also), log_moves=log_moves, chunk_size=chunk_size,
        arms=arms, source=source, text=text, populations=populations, studies=studies,
    )  # fmt: skip


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


def load_experiment(path: Path) -> Experiment:
    """Read and validate an experiment file (TOML)."""
    if not path.is_file():
        raise ExperimentError(f"experiment file {path} does not exist")
    text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: not valid TOML: {exc}") from None
    return parse_experiment(data, source=path, text=text)


# ---------------------------------------------------------------- running


def _arm_state(exp: Experiment, arm: Arm, arm_dir: Path) -> str:
    """``new``, ``done`` or ``resume``; ExperimentError if the folder holds another run."""
    if not (arm_dir / "manifest.json").exists():
        return "new"
    manifest = read_manifest(arm_dir)
    why = stale_seating(manifest)
    if why:
        raise ExperimentError(
            f"arm {arm.name!r}: {arm_dir} holds a run that does not fit this version ({why}); "
            "remove the folder to play the arm again"
        )
    want = asdict(exp.run_config(arm))
    have = manifest.get("config", {})
    for key in MATCH_KEYS:
        if have.get(key) != json.loads(json.dumps(want[key])):
            raise ExperimentError(
                f"arm {arm.name!r}: {arm_dir} holds a run with a different {key} "
                f"({have.get(key)!r}, the file asks for {want[key]!r}); remove the folder "
                "or choose another --out"
            )
    return "done" if manifest.get("status") == "complete" else "resume"


def _read_marker(out: Path) -> dict[str, Any]:
    from .report import marker_data

    try:
        data = marker_data(out / MARKER)
    except (OSError, ValueError) as exc:
        raise ExperimentError(
            f"{out / MARKER} is damaged ({exc}); cannot tell what the experiment wrote: "
            "choose another --out"
        ) from None
    return data


def _legacy_name(out: Path) -> str | None:
    """The experiment name in ``out/experiment.toml`` (a folder written before markers)."""
    try:
        name = tomllib.loads((out / "experiment.toml").read_text()).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return name if isinstance(name, str) else None


def check_experiment_out(exp: Experiment, out: Path, report: bool = True) -> dict[str, Any]:
    """The marker to keep in ``out``; ExperimentError for a folder the experiment may not use.

    ``out`` may be new, an empty folder, or this experiment's own folder (its marker names
    the experiment; a folder from before markers is recognised by its ``experiment.toml``).
    Refused, with nothing changed: a file or symbolic link, a path under a file or inside a
    run or report folder, a run or report folder, any other non-empty folder, an arm
    folder that holds something other than a run, a summary file the experiment did not
    write, and a ``report/`` folder that is not the experiment's report.
    """
    from .report import MARKER as REPORT_MARKER
    from .report import ReportError, check_out, check_parents

    if out.is_symlink():
        raise ExperimentError(f"--out {out} is a symbolic link; give the experiment a real folder")
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"--out {out} is a file, not a folder")
    check_parents(Path(os.path.abspath(out)), "--out", ExperimentError)
    fresh = {"tool": "haggis-sim", "kind": "experiment", "name": exp.name,
             "version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
             "files": []}  # fmt: skip
    if not out.exists() or not any(out.iterdir()):
        return fresh
    for name, what in ((MANIFEST, "a haggis-sim run folder"), (REPORT_MARKER, "a report folder")):
        if (out / name).exists():
            raise ExperimentError(f"--out {out} is {what}, not an experiment folder")
    if (out / MARKER).exists():
        marker = _read_marker(out)
        if marker.get("name") != exp.name:
            raise ExperimentError(
                f"--out {out} holds the experiment {marker.get('name')!r}, not {exp.name!r}: "
                "choose another --out"
            )
    elif _legacy_name(out) == exp.name:  # written before markers: every summary file is ours
        marker = {**fresh, "files": [f for f in OWN_FILES if (out / f).exists()]}
    else:
        names = ", ".join(sorted(os.listdir(out))[:3])
        raise ExperimentError(
            f"--out {out} already exists and is not this experiment's folder (it holds "
            f"{names}); choose a new or empty folder"
        )
    for name in own_files(exp):
        if (out / name).exists() and name not in marker["files"]:
            raise ExperimentError(
                f"{out / name} was not written by the experiment; move it away or choose "
                "another --out"
            )
    check_population_dirs(exp, out)
    for _, _, arm, arm_dir in arm_runs(exp, out):
        if arm_dir.is_symlink() or arm_dir.exists() and not arm_dir.is_dir():
            raise ExperimentError(f"{arm_dir} (arm {arm.name!r}) is not a folder")
        if arm_dir.is_dir() and any(arm_dir.iterdir()) and not (arm_dir / MANIFEST).exists():
            raise ExperimentError(
                f"{arm_dir} (arm {arm.name!r}) holds files but is not a run folder; move it "
                "away or choose another --out"
            )
    if report:
        try:
            check_out(out / "report", force=True)
        except ReportError as exc:
            raise ExperimentError(f"the experiment's report: {exc}") from None
    return marker


def _write_own(out: Path, marker: dict[str, Any], name: str, text: str) -> None:
    """Write ``out/name``, listed in the marker first (so a later run knows it is ours)."""
    if name not in marker["files"]:
        marker["files"].append(name)
        _save_marker(out, marker)
    (out / name).write_text(text)


def _save_marker(out: Path, marker: dict[str, Any]) -> None:
    tmp = out / f"{MARKER}.tmp"
    tmp.write_text(json.dumps(marker, indent=2) + "\n")
    os.replace(tmp, out / MARKER)


def run_experiment(
    exp: Experiment,
    out: Path,
    jobs: int = 0,
    log: Callable[[str], None] | None = None,
    report: bool = True,
) -> dict[str, Any]:
    """Run every unfinished arm into ``out/<arm>/``, then summarize (see :func:`summarize`).

    Writes ``summary.json``, ``summary.md`` and ``compare.html`` (every arm against the
    first, see :func:`compare_section_html`) into ``out`` and, with ``report``, the HTML
    report over all arms into ``out/report/``. ``out`` must be new, empty, or this
    experiment's own folder (:func:`check_experiment_out`); ExperimentError otherwise,
    and for a write the operating system refuses.
    """
    say = log or (lambda _m: None)
    try:
        marker = check_experiment_out(exp, out, report)
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise ExperimentError(f"cannot look at {exc.filename or out}: {exc.strerror}") from None
    runs = arm_runs(exp, out)
    states = {label: _arm_state(sub, arm, arm_dir) for label, sub, arm, arm_dir in runs}
    try:
        out.mkdir(parents=True, exist_ok=True)
        _save_marker(out, marker)
        if exp.text:
            _write_own(out, marker, "experiment.toml", exp.text)
    except OSError as exc:
        raise ExperimentError(f"cannot write into {out}: {exc.strerror or exc}") from None
    for label, sub, arm, arm_dir in runs:
        state = states[label]
        if state == "done":
            say(f"arm {label}: finished earlier, kept ({arm_dir})")
            continue
        say(f"arm {label}: {'resuming' if state == 'resume' else 'playing'} "
            f"{sub.games:,} games ({', '.join(arm.strategies)}; {arm.rules.label}, "
            f"{arm.players} players)")  # fmt: skip
        execute(sub.run_config(arm, jobs), arm_dir, resume=state == "resume")
    summary = summarize_populations(exp, out) if exp.populations else summarize(exp, out)
    if exp.studies:
        try:
            summary["studies"] = run_studies(
                exp.studies,
                lambda spec: (
                    out / spec.population / spec.arm if spec.population else out / spec.arm
                ),
                lambda name, text: _write_own(out, marker, name, text),
                say,
            )
        except OSError as exc:
            raise ExperimentError(f"cannot write into {out}: {exc.strerror or exc}") from None
    try:
        _write_own(
            out, marker, "summary.json", json.dumps(summary, indent=2, default=_json_default)
        )
        _write_own(out, marker, "summary.md", summary_markdown(summary))
        if exp.populations:
            _write_own(out, marker, "compare.html", populations_compare_page(exp, out))
        elif len(exp.arms) > 1:
            _write_own(out, marker, "compare.html", compare_page(exp, out))
    except OSError as exc:
        raise ExperimentError(f"cannot write into {out}: {exc.strerror or exc}") from None
    if report:
        from .report import build_report

        def step(what: str, done: int, total: int) -> None:
            if done < total:
                say(f"report over the {len(runs)} arms: {what} ({done + 1}/{total})")

        build_report([arm_dir for *_, arm_dir in runs], out / "report", "html", force=True,
                     on_step=step)  # fmt: skip
        summary["report"] = str(out / "report")
    try:
        if report:
            _write_own(out, marker, "summary.json",
                       json.dumps(summary, indent=2, default=_json_default))  # fmt: skip
        write_experiment_page(summary, out, marker, "report/index.html" if report else None)
    except OSError as exc:
        raise ExperimentError(f"cannot write into {out}: {exc.strerror or exc}") from None
    return summary


def write_experiment_page(
    summary: dict[str, Any], out: Path, marker: dict[str, Any], report: str | None
) -> None:
    """Write the experiment's ``index.html`` and its forest plot ``fig-forest.png`` into
    ``out`` (both listed in the marker first, like every file the experiment writes)."""
    from .report import forest_figure

    if "populations" in summary:
        write_population_page(summary, out, marker, report)
        return
    panels = forest_panels(summary, arm_labels(summary))
    forest = None
    if panels:
        if "fig-forest.png" not in marker["files"]:
            marker["files"].append("fig-forest.png")
            _save_marker(out, marker)
        forest_figure(panels, out / "fig-forest.png")
        forest = "fig-forest.png"
    _write_own(out, marker, "index.html", experiment_page(summary, forest, report))


def compare_page(exp: Experiment, out: Path) -> str:
    """An HTML page with one comparison section per arm against the first arm."""
    first = out / exp.arms[0].name
    sections = [compare_section_html(compare_runs(first, out / arm.name)) for arm in exp.arms[1:]]
    title = html.escape(f"{exp.name}: every arm against {exp.arms[0].name}")
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:sans-serif} table{border-collapse:collapse}"
        "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "td:first-child{text-align:left} tr.significant{font-weight:bold}</style>"
        f"</head><body>\n<h1>{title}</h1>\n" + "\n".join(sections) + "</body></html>\n"
    )


def _json_default(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"not JSON serializable: {value!r}")


def _nan_to_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def _est(e: Estimate) -> dict[str, Any]:
    return _nan_to_none(asdict(e))


def _diff(d: Difference) -> dict[str, Any]:
    return _nan_to_none(asdict(d))


def _summary_head(exp: Experiment) -> dict[str, Any]:
    """The summary's fields that describe the experiment itself (with or without
    populations): name, question, games, seed, seats, metric, goal, entry, metric texts."""
    return {
        "name": exp.name,
        "question": exp.question,
        "games_per_arm": exp.games,
        "seed": exp.seed,
        "seats": exp.seats,
        "metric": exp.metric,
        "goal": exp.goal,
        "entry": exp.entry,
        "metrics_described": {m: METRICS[m] for m in exp.metrics},
    }


def summarize(exp: Experiment, out: Path) -> dict[str, Any]:
    """Per arm and metric: the mean with its 95% interval and the difference from the
    first arm (paired by game id when both arms played the same deals); the best arm by
    the question's metric, with its difference from the runner-up.

    An arm whose single strategy fills every seat has no pairing: its win rates (and net
    bet points) are left empty (``no_pairing``) instead of a meaningless 100%, and it
    takes no part in the best-arm ranking of such a metric."""
    frames: dict[str, pl.DataFrame] = {arm.name: game_metrics(out / arm.name) for arm in exp.arms}
    players = {arm.name: arm.players for arm in exp.arms}
    first = exp.arms[0].name

    def pairable(a: str, b: str) -> bool:
        return players[a] == players[b] and same_deals(frames[a], frames[b])

    lone = {arm.name for arm in exp.arms if not has_pairing(arm.strategies)}

    def meaningless(metric: str, *arms: str) -> bool:
        """A win or net-bet figure of an arm where one entry fills every seat."""
        return metric in PAIRING_METRICS and any(a in lone for a in arms)

    metrics: dict[str, Any] = {}
    for metric in exp.metrics:
        col = metric_column(metric, exp.entry)
        rows = []
        for arm in exp.arms:
            f = frames[arm.name]
            est = estimate(f, col)
            if meaningless(metric, arm.name):
                est = Estimate(math.nan, math.nan, math.nan, f.height, math.nan)
            d = difference(frames[first], f, col, col, pairable(first, arm.name))
            if meaningless(metric, first, arm.name):
                d = Difference(math.nan, math.nan, math.nan, 0, d.paired)
            seats = base_entries(len(arm.strategies), arm.players).count(exp.entry)
            rows.append(
                {
                    "arm": arm.name,
                    **_est(est),
                    "no_pairing": meaningless(metric, arm.name),
                    "fair": fair_value(metric, arm.players, seats),
                    "vs_first": _diff(d),
                }
            )
        metrics[metric] = {"column": col, "rows": rows}
    primary = metrics[exp.metric]["rows"]
    ranked = sorted(
        (r for r in primary if r["mean"] is not None),
        key=lambda r: r["mean"],
        reverse=exp.goal == "max",
    )
    best: dict[str, Any] | None = None
    if ranked:
        top = ranked[0]
        best = {"arm": top["arm"], "mean": top["mean"], "low": top["low"], "high": top["high"]}
        if len(ranked) > 1:
            second = ranked[1]["arm"]
            col = metrics[exp.metric]["column"]
            d = difference(
                frames[second], frames[top["arm"]], col, col, pairable(second, top["arm"])
            )
            best["runner_up"] = second
            best["vs_runner_up"] = _diff(d)
            best["clear"] = d.low > 0 or d.high < 0 if not math.isnan(d.low) else False
    return {
        **_summary_head(exp),
        "arms": [
            {
                "name": arm.name,
                "dir": str(out / arm.name),
                "players": arm.players,
                "rules": arm.rules.label,
                "strategies": arm.strategies,
                "games": frames[arm.name].height,
                "paired_with_first": pairable(first, arm.name),
                "no_pairing": arm.name in lone,
            }
            for arm in exp.arms
        ],
        "results": metrics,
        "best": best,
    }


def _num(v: float | None) -> float:
    return math.nan if v is None else float(v)


def result_rows(summary: dict[str, Any], metric: str) -> list[list[str]]:
    """Display rows of one metric: arm, games, value, interval, Δ vs first, its interval."""
    rows = []
    for i, r in enumerate(summary["results"][metric]["rows"]):
        d = r["vs_first"]
        if r.get("no_pairing"):
            base = "(baseline)" if i == 0 else ""
            rows.append([r["arm"], f"{r['n']:,}", "no pairing", "", base, ""])
            continue
        rows.append(
            [
                r["arm"],
                f"{r['n']:,}",
                fmt_value(metric, _num(r["mean"])),
                fmt_interval(metric, _num(r["low"]), _num(r["high"])),
                "(baseline)" if i == 0 else fmt_value(metric, _num(d["diff"]), signed=True),
                ""
                if i == 0
                else fmt_interval(metric, _num(d["low"]), _num(d["high"]), signed=True)
                + ("" if d["paired"] else " (unpaired)"),
            ]
        )
    return rows


ROW_HEADER = ["arm", "games", "value", "95% interval", "Δ vs first arm", "95% interval of Δ"]


def best_line(summary: dict[str, Any]) -> str:
    best = summary["best"]
    metric = summary["metric"]
    if best is None:
        if metric in PAIRING_METRICS and all(a.get("no_pairing") for a in summary["arms"]):
            return f"best arm by {metric}: none; {no_pairing_note('in every arm')}"
        return "best arm: none (no values)"
    text = (
        f"best arm by {metric} ({summary['goal']}): {best['arm']} = "
        f"{fmt_value(metric, _num(best['mean']))} "
        f"(95% {fmt_interval(metric, _num(best['low']), _num(best['high']))})"
    )
    if "runner_up" in best:
        d = best["vs_runner_up"]
        verdict = "clearly ahead" if best["clear"] else "not separable at 95%"
        text += (
            f"; vs runner-up {best['runner_up']}: "
            f"{fmt_value(metric, _num(d['diff']), signed=True)} "
            f"(95% {fmt_interval(metric, _num(d['low']), _num(d['high']), signed=True)}"
            f"{'' if d['paired'] else ', unpaired'}) — {verdict}"
        )
    return text


def _no_pairing_md(summary: dict[str, Any], metric: str) -> str:
    lone = [r["arm"] for r in summary["results"][metric]["rows"] if r.get("no_pairing")]
    if not lone:
        return ""
    where = f"in arm{'s' if len(lone) > 1 else ''} {', '.join(lone)}"
    note = no_pairing_note(where)
    return f" {note[0].upper()}{note[1:]}."


def summary_markdown(summary: dict[str, Any]) -> str:
    """The summary as Markdown: the question, the arms, one table per metric, the best arm
    (with populations: :func:`populations_markdown`)."""
    if "populations" in summary:
        return "\n".join(
            [populations_markdown(summary), *studies_markdown(summary.get("studies", []))]
        )
    lines = [
        f"# Experiment {summary['name']}",
        "",
        summary["question"],
        "",
        f"{summary['games_per_arm']:,} games per arm, seed {summary['seed']}, seats "
        f"{summary['seats']}. Intervals: 95%, clustered by deal; Δ is paired game by game "
        "where the arms played the same deals.",
        "",
        "| arm | players | rules | strategies |",
        "|---|---|---|---|",
    ]
    for arm in summary["arms"]:
        lines.append(
            f"| {arm['name']} | {arm['players']} | {arm['rules']} | "
            f"{', '.join(f'`{s}`' for s in arm['strategies'])} |"
        )
    for metric in summary["results"]:
        lines += [
            "",
            f"## {metric}" + (" (the question's metric)" if metric == summary["metric"] else ""),
            "",
            summary["metrics_described"][metric]
            + (f" (entry #{summary['entry']})" if metric in ENTRY_METRICS else "")
            + "."
            + _no_pairing_md(summary, metric),
            "",
            "| " + " | ".join(ROW_HEADER) + " |",
            "|" + "---|" * len(ROW_HEADER),
        ]
        lines += ["| " + " | ".join(row) + " |" for row in result_rows(summary, metric)]
        fair = fair_sentence(summary, metric, {a["name"]: a["name"] for a in summary["arms"]})
        if fair:
            lines += ["", fair.strip()]
    lines += ["", f"**{best_line(summary)}**", ""]
    lines += studies_markdown(summary.get("studies", []))
    return "\n".join(lines)


# ---------------------------------------------------------------- the experiment's page


def arm_labels(summary: dict[str, Any]) -> dict[str, str]:
    """A short, distinct label per arm built from exactly what differs between the arms.

    Per ``--strategies`` entry: its strategy name where names differ between arms, and the
    parameters whose values differ between the arms playing that strategy at that entry
    (``bomb=early`` rather than ``heuristic:bet=0.55,...,bomb=early,...``) — for an arm
    other than the baseline (the first) only those that differ from the baseline's; entries
    are joined by " vs " when more than one differs. Then the rules label and the player count
    where they differ. An arm falls back to its name when labels would not be distinct.
    """
    arms = summary["arms"]
    n_entries = max(len(a["strategies"]) for a in arms)
    parsed = [[parse_spec(s) for s in a["strategies"]] for a in arms]

    def entry(i: int, e: int) -> tuple[str, dict[str, str]] | None:
        return parsed[i][e] if e < len(parsed[i]) else None

    texts: list[list[str]] = [[] for _ in arms]
    for e in range(n_entries):
        names = {(entry(i, e) or ("", {}))[0] for i in range(len(arms))}
        parts = []
        for i in range(len(arms)):
            got = entry(i, e)
            if got is None:
                parts.append("")
                continue
            name, params = got
            same = [p[e][1] for p in parsed if e < len(p) and p[e][0] == name]
            keys = [k for k in params if len({p.get(k) for p in same}) > 1]
            base = entry(0, e)
            if i > 0 and base is not None and base[0] == name:  # only what the baseline lacks
                keys = [k for k in keys if params[k] != base[1].get(k)]
            shown = ",".join(f"{k}={params[k]}" for k in keys)
            if len(names) > 1:
                shown = name + (f":{shown}" if shown else "")
            parts.append(shown)
        if any(parts):
            for i, part in enumerate(parts):
                got = entry(i, e)
                if got is not None:  # an entry like the baseline's shows its name
                    texts[i].append(part or got[0])
    labels = []
    for i, arm in enumerate(arms):
        bits = [" vs ".join(texts[i])] if texts[i] else []
        if len({a["rules"] for a in arms}) > 1:
            bits.append(arm["rules"])
        if len({a["players"] for a in arms}) > 1:
            bits.append(f"{arm['players']} players")
        labels.append("; ".join(bits) or arm["name"])
    if len(set(labels)) < len(labels):
        labels = [a["name"] for a in arms]
    return {a["name"]: label for a, label in zip(arms, labels, strict=True)}


def _metric_words(summary: dict[str, Any], metric: str) -> str:
    desc = summary["metrics_described"][metric]
    return desc + (f" (entry #{summary['entry']})" if metric in ENTRY_METRICS else "")


def verdict_sentence(summary: dict[str, Any], metric: str, labels: dict[str, str]) -> str:
    """One sentence: the baseline's value, then each arm's paired difference from it with
    its 95% interval, grouped into higher, lower and not separable at 95%."""
    rows = summary["results"][metric]["rows"]
    base = rows[0]
    head = f"{metric} — {_metric_words(summary, metric)}: "
    if base.get("no_pairing"):
        head += f"no value for the baseline {labels[base['arm']]} (one strategy fills every seat)"
    else:
        head += (
            f"{labels[base['arm']]} (baseline) {fmt_value(metric, _num(base['mean']))} "
            f"(95% {fmt_interval(metric, _num(base['low']), _num(base['high']))})"
        )
    groups: dict[str, list[tuple[float, str]]] = {
        "higher": [], "lower": [], "same": [], "open": [], "none": []
    }  # fmt: skip
    for r in rows[1:]:
        d = r["vs_first"]
        diff, low, high = _num(d["diff"]), _num(d["low"]), _num(d["high"])
        if math.isnan(diff):
            groups["none"].append((0.0, labels[r["arm"]]))
            continue
        text = (
            f"{labels[r['arm']]} {fmt_value(metric, diff, signed=True)} "
            f"(95% {fmt_interval(metric, low, high, signed=True)}"
            f"{'' if d['paired'] else ', unpaired: different deals'})"
        )
        if math.isnan(low) or math.isnan(high):  # a claim of no difference needs an interval
            kind = "open"
        else:
            kind = "higher" if low > 0 else "lower" if high < 0 else "same"
        groups[kind].append((abs(diff), text))
    words = {
        "higher": "higher in",
        "lower": "lower in",
        "same": "no difference separable at 95% in",
        "open": "no interval (too few deals) in",
        "none": "no value in",
    }
    parts = [
        f"{words[k]} " + ", ".join(t for _, t in sorted(v, key=lambda x: -x[0]))
        for k, v in groups.items()
        if v
    ]
    fair = fair_sentence(summary, metric, labels)
    if len(rows) == 1:
        return head + "." + fair
    return head + "; " + "; ".join(parts) + "." + fair


def fair_sentence(summary: dict[str, Any], metric: str, labels: dict[str, str]) -> str:
    """`` Against a fair share: ARM no edge …; ARM an edge of …`` for a metric with a fair
    value (:func:`fair_value`), each arm by :func:`fair_claim`; "" for other metrics."""
    parts = [
        f"{labels[r['arm']]} "
        + fair_claim(metric, _num(r["mean"]), _num(r["low"]), _num(r["high"]), r["fair"])
        for r in summary["results"][metric]["rows"]
        if r.get("fair") is not None and not r.get("no_pairing")
    ]
    return f" Against a fair share: {'; '.join(parts)}." if parts else ""


def forest_panels(summary: dict[str, Any], labels: dict[str, str]) -> list[dict[str, Any]]:
    """One forest-plot panel per metric with a value: every arm's difference from the first."""
    from .analytics.compare import RATE_METRICS

    panels = []
    for metric, res in summary["results"].items():
        rows = res["rows"][1:]
        diffs = [_num(r["vs_first"]["diff"]) for r in rows]
        if not rows or all(math.isnan(d) for d in diffs):
            continue
        mark = " (the question)" if metric == summary["metric"] else ""
        panels.append(
            {
                "title": f"{metric}{mark}",
                "labels": [labels[r["arm"]] for r in rows],
                "diff": diffs,
                "low": [_num(r["vs_first"]["low"]) for r in rows],
                "high": [_num(r["vs_first"]["high"]) for r in rows],
                "percent": metric in RATE_METRICS,
            }
        )
    return panels


def _table(header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f"<div class='wrap'>{table}</div>"


def experiment_page(summary: dict[str, Any], forest: str | None, report: str | None) -> str:
    """The experiment's ``index.html``: the question, one verdict sentence per metric, the
    forest plot of paired differences (``forest``: its file name), then the tables per
    metric, links to the full report (``report``: its index page) and the comparison, and
    the run metadata folded away at the bottom."""
    from .report import CSS, IMAGE_CHECK

    e = html.escape
    labels = arm_labels(summary)
    base = summary["arms"][0]
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(summary['name'])}: haggis-sim experiment</title>"
        f"<style>{CSS}#verdict li{{margin:0.35em 0}}"
        ".question{font-size:1.1em;border-left:4px solid #E69F00;padding-left:0.8em}</style>"
        "</head><body>",
        f"<h1>Experiment {e(summary['name'])}</h1>",
        f"<p class='question'>{e(summary['question'])}</p>",
        "<section id='verdict'><h2>Verdict</h2>",
        f"<p>{summary['games_per_arm']:,} games per arm; every difference is an arm minus the "
        f"baseline <b>{e(labels[base['name']])}</b> (arm {e(base['name'])}), paired game by "
        "game where the arms played the same deals, with its 95% interval (clustered by "
        "deal).</p><ul>",
    ]

    def item(metric: str) -> str:
        name, _, rest = verdict_sentence(summary, metric, labels).partition(" — ")
        mark = " (the question)" if metric == summary["metric"] else ""
        return f"<li><b>{e(name)}{mark}</b> — {e(rest)}</li>"

    out.append(item(summary["metric"]) + f"</ul><p><b>{e(best_line(summary))}</b></p>")
    if forest:
        out.append(
            f"<img src='{forest}' alt='paired differences of every arm from the baseline'>"
            "<p>Each arm's difference from the baseline with its 95% interval, one panel per "
            "metric. Blue: the interval lies above zero; vermillion: below; grey: it holds "
            "zero (no difference separable at 95%).</p>"
        )
    others = [m for m in summary["results"] if m != summary["metric"]]
    if others:
        out.append("<ul>" + "".join(item(m) for m in others) + "</ul>")
    out.append("</section>")
    links = [("summary.md", "summary (Markdown)"), ("summary.json", "summary (JSON)")]
    if len(summary["arms"]) > 1:
        links.insert(0, ("compare.html", "every arm against the baseline, metric by metric"))
    if report:
        links.insert(0, (report, "the full report over every arm (seats, points, bets, bombs, "
                                 "game shape)"))  # fmt: skip
    out.append("<h2>More</h2><ul>")
    out += [f"<li><a href='{e(href)}'>{e(text)}</a></li>" for href, text in links]
    out.append("</ul><h2>Every metric per arm</h2>")
    for metric in summary["results"]:
        out.append(f"<h4>{e(metric)}: {e(_metric_words(summary, metric))}</h4>")
        rows = result_rows(summary, metric)
        out.append(_table(ROW_HEADER, [[labels[r[0]], *r[1:]] for r in rows]))
    arm_rows = [
        [a["name"], labels[a["name"]], str(a["players"]), a["rules"], ", ".join(a["strategies"]),
         f"{a['games']:,}", "yes" if a["paired_with_first"] else "no"]
        for a in summary["arms"]
    ]  # fmt: skip
    out.append(studies_html(summary.get("studies", [])))
    out.append(
        "<details id='metadata'><summary>Run metadata: arms, strategies, seed, seats</summary>"
        f"<p>Seed {summary['seed']}, seats {e(summary['seats'])}, "
        f"{summary['games_per_arm']:,} games per arm; built by haggis-sim {e(__version__)} on "
        f"{e(time.strftime('%Y-%m-%d %H:%M:%S'))} from <a href='experiment.toml'>"
        "experiment.toml</a>.</p>"
        + _table(
            ["arm", "label", "players", "rules", "strategies", "games", "paired with the baseline"],
            arm_rows,
        )  # fmt: skip
        + "</details>"
    )
    out.append(IMAGE_CHECK + "</body></html>")
    return "\n".join(out)


# ---------------------------------------------------------------- player populations
#
# An experiment with ``[[populations]]`` plays every arm once per population, with the
# population's strategy swaps applied, into ``<out>/<population>/<arm>/``. Each population
# is summarized exactly as an experiment without populations (:func:`summarize` on the
# population's own :class:`Experiment`, see :func:`population_experiment`); then, per
# metric, :func:`cross_population` says whether the answer holds in every population.

RESERVED = ("report", *OWN_FILES)  # names a population folder may not take


def _canonical(spec: Any, what: str, where: str) -> str:
    if not isinstance(spec, str):
        raise ExperimentError(f"{where}{what} must be a strategy spec (a string), got {spec!r}")
    try:
        return make(spec).spec
    except ValueError as exc:
        raise ExperimentError(f"{where}{what} {spec!r}: {exc}") from None


def parse_populations(value: Any, arms: list[Arm], games: int, w: str) -> list[Population]:
    """Validate ``[[populations]]`` (``None``: the key is absent, no populations).

    Each population has a ``name`` (a folder name, like an arm's), optional ``games`` (per
    arm; default the experiment's) and ``swap``, a table from a strategy spec the arms use
    to the spec that replaces it. Keys and values are compared as canonical specs, so
    ``"heuristic"`` matches an arm written ``"heuristic:bet=0.55"`` (the same policy).
    Refused with ExperimentError: fewer than two populations, an unknown key, a bad or
    duplicate or reserved name, a swap key or value that is not a strategy spec, a swap
    key no arm uses, and a population that plays exactly what another one plays."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(p, dict) for p in value):
        raise ExperimentError(f"{w}'populations' must be an array of tables ([[populations]])")
    if len(value) < 2:
        raise ExperimentError(
            f"{w}give at least two [[populations]] (the first is the baseline) or none"
        )
    used = {s for arm in arms for s in arm.strategies}
    out: list[Population] = []
    plays: dict[tuple[tuple[str, ...], ...], str] = {}
    for i, table in enumerate(value):
        pw = f"{w}population {table.get('name', i + 1)!r}: "
        _check_keys(table, POPULATION_KEYS, pw)
        if "name" not in table:
            raise ExperimentError(f"{pw}missing required key 'name'")
        name = _typed(table, "name", str, pw)
        if not ARM_NAME.fullmatch(name) or name in RESERVED:
            raise ExperimentError(
                f"{pw}'name' must be letters, digits and . _ = + , - and not one of "
                f"{', '.join(RESERVED)} (it names the population's folder)"
            )
        if any(p.name == name for p in out):
            raise ExperimentError(f"{w}two populations are named {name!r}")
        pop_games = _typed(table, "games", int, pw) if "games" in table else games
        if pop_games <= 0:
            raise ExperimentError(f"{pw}'games' must be positive, got {pop_games}")
        raw = table.get("swap", {})
        if not isinstance(raw, dict):
            raise ExperimentError(f"{pw}'swap' must be a table of SPEC = SPEC, got {raw!r}")
        swap: dict[str, str] = {}
        for key, new in raw.items():
            old = _canonical(key, "swap key", pw)
            if old not in used:
                raise ExperimentError(
                    f"{pw}swap key {key!r} is not a strategy any arm plays; the arms play "
                    f"{', '.join(sorted(used))}"
                )
            swap[old] = _canonical(new, f"swap value for {key!r}", pw)
        pop = Population(name, pop_games, swap)
        strategies = tuple(tuple(pop.apply(arm).strategies) for arm in arms)
        if strategies in plays:  # the same deals again (the seed is shared): nothing new
            raise ExperimentError(
                f"{pw}plays the same strategies in every arm as population "
                f"{plays[strategies]!r}: give it a swap that changes an arm"
            )
        plays[strategies] = name
        out.append(pop)
    return out


def own_files(exp: Experiment) -> tuple[str, ...]:
    """The files the experiment writes into its folder (besides arm runs and report/)."""
    return (*OWN_FILES, *(_forest_name(p.name) for p in exp.populations))


def _forest_name(population: str) -> str:
    return f"fig-forest-{population}.png"


def population_experiment(exp: Experiment, pop: Population) -> Experiment:
    """The experiment as population ``pop`` plays it: its swaps applied to every arm, its
    games per arm, no populations (so :func:`summarize` treats it as today)."""
    return replace(exp, games=pop.games, arms=[pop.apply(a) for a in exp.arms], populations=[])


def arm_runs(exp: Experiment, out: Path) -> list[tuple[str, Experiment, Arm, Path]]:
    """Every run the experiment plays: (label, the experiment it belongs to, arm, folder).

    Without populations: one per arm, ``out/<arm>``. With populations: one per population
    and arm, ``out/<population>/<arm>``, labelled ``population/arm``."""
    if not exp.populations:
        return [(arm.name, exp, arm, out / arm.name) for arm in exp.arms]
    runs = []
    for pop in exp.populations:
        sub = population_experiment(exp, pop)
        runs += [(f"{pop.name}/{a.name}", sub, a, out / pop.name / a.name) for a in sub.arms]
    return runs


def check_population_dirs(exp: Experiment, out: Path) -> None:
    """ExperimentError for a population folder that is a file, a link or a run folder
    (e.g. an arm of the same name from before the experiment had populations)."""
    for pop in exp.populations:
        where = out / pop.name
        if where.is_symlink() or where.exists() and not where.is_dir():
            raise ExperimentError(f"{where} (population {pop.name!r}) is not a folder")
        if (where / MANIFEST).exists():
            raise ExperimentError(
                f"{where} (population {pop.name!r}) holds a run, not a population's arms "
                "(an arm from before the experiment had populations?); move it away or "
                "choose another --out"
            )


def summarize_populations(exp: Experiment, out: Path) -> dict[str, Any]:
    """Per population today's summary (:func:`summarize` of :func:`population_experiment`
    over ``out/<population>``), then per metric the cross-population verdict
    (:func:`cross_population`)."""
    pops: list[dict[str, Any]] = []
    for pop in exp.populations:
        sub = summarize(population_experiment(exp, pop), out / pop.name)
        pops.append({"name": pop.name, "games_per_arm": pop.games, "swap": pop.swap,
                     "summary": sub})  # fmt: skip
    named = [(p["name"], p["summary"]) for p in pops]
    return {
        **_summary_head(exp),
        "populations": pops,
        "cross": {m: cross_population(named, m) for m in exp.metrics},
    }


def _sign(d: dict[str, Any]) -> int:
    """+1 / -1 when the interval of a difference lies above / below zero, else 0."""
    low, high = _num(d.get("low")), _num(d.get("high"))
    return 1 if low > 0 else -1 if high < 0 else 0


def _population_view(summary: dict[str, Any], metric: str) -> dict[str, Any]:
    """One population's side of a metric: ranking, top arm, clear signs vs the first arm."""
    rows = summary["results"][metric]["rows"]
    question = metric == summary["metric"]
    lowest_first = question and summary["goal"] == "min"
    valued = [r for r in rows if r["mean"] is not None]
    ranking = [r["arm"] for r in sorted(valued, key=lambda r: r["mean"], reverse=not lowest_first)]
    signs = {r["arm"]: _sign(r["vs_first"]) for r in rows[1:] if _sign(r["vs_first"])}
    best = summary.get("best") if question else None
    top_clear = bool(best and best.get("clear")) if question else None
    return {
        "ranking": ranking,
        "means": {r["arm"]: r["mean"] for r in valued},
        "top": ranking[0] if ranking else None,
        "top_clear": top_clear,
        "signs": signs,
        "separable": bool(signs) or bool(top_clear),
    }


def cross_population(named: list[tuple[str, dict[str, Any]]], metric: str) -> dict[str, Any]:
    """Whether the answer by ``metric`` holds in every population.

    ``named``: (population, its summary) with the baseline population first. Per
    population: the ranking of the arms (by the experiment's goal for the question's
    metric, highest first for the others), the top arm, and the sign of each arm's
    difference from the first arm where its 95% interval excludes 0. A population where
    no difference excludes 0 (and, for the question's metric, the best arm is not clearly
    ahead) is *not separable*: it can neither confirm nor contradict. The verdict is
    ``holds`` (every population separable, the same top arm, no clear sign reversed
    between populations), ``disagrees`` (a separable population has another top arm, or an
    arm is clearly above the first arm in one population and clearly below in another) or
    ``unclear`` (no disagreement, but some population is not separable), with a sentence.
    """
    views = {name: _population_view(s, metric) for name, s in named}
    question = metric == named[0][1]["metric"]
    first_arm = named[0][1]["results"][metric]["rows"][0]["arm"]
    top_word = "best arm" if question else "highest arm"
    separable = [n for n, v in views.items() if v["separable"]]
    blurred = [n for n, v in views.items() if not v["separable"]]
    problems: list[str] = []
    tops: dict[str, list[str]] = {}
    for n in separable:
        if views[n]["top"] is not None:
            tops.setdefault(views[n]["top"], []).append(n)
    if len(tops) > 1:
        clear = [n for n in separable if views[n]["top_clear"]]
        problems.append(
            f"the {top_word} differs: "
            + "; ".join(f"{arm} in {_pops(ns)}" for arm, ns in tops.items())
            + (
                ""
                if not question
                else f" (clearly ahead of its runner-up in {_pops(clear)})"
                if clear
                else " (in none clearly ahead of its runner-up)"
            )
        )
    reversed_arms = []
    arms = dict.fromkeys(a for v in views.values() for a in v["signs"])
    for arm in arms:
        up = [n for n, v in views.items() if v["signs"].get(arm) == 1]
        down = [n for n, v in views.items() if v["signs"].get(arm) == -1]
        if up and down:
            reversed_arms.append(arm)
            problems.append(
                f"{arm} is clearly above {first_arm} in {_pops(up)} but clearly below in "
                f"{_pops(down)}"
            )
    not_sep = (
        f"not separable in {_pops(blurred)} (no arm's difference from {first_arm} excludes 0)"
        if blurred
        else ""
    )
    if problems:
        verdict = "disagrees"
        sentence = "Disagrees across populations: " + "; ".join(problems)
        sentence += f"; {not_sep}." if not_sep else "."
    elif not separable:
        verdict = "unclear"
        sentence = (
            f"Not separable in any population ({', '.join(blurred)}): no arm's difference "
            f"from {first_arm} excludes 0."
        )
    else:
        top = next(iter(tops), None)
        same = (
            f"{top_word} {top}{' in each' if len(separable) > 1 else ''}, no clear "
            f"difference from {first_arm} changes sign"
            if top
            else f"no clear difference from {first_arm} changes sign"
        )
        if blurred:
            verdict = "unclear"
            sentence = f"Holds in {_pops(separable)} ({same}); {not_sep}."
        else:
            verdict = "holds"
            sentence = f"Holds in every population ({same})."
    return {
        "verdict": verdict,
        "sentence": sentence,
        "not_separable": blurred,
        "reversed": reversed_arms,
        "tops": tops,
        "populations": views,
    }


def _pops(names: list[str]) -> str:
    return ("population " if len(names) == 1 else "populations ") + ", ".join(names)


def _swap_text(pop: dict[str, Any]) -> str:
    if not pop["swap"]:
        return "the strategies as written"
    return "; ".join(f"{old} → {new}" for old, new in pop["swap"].items())


def populations_markdown(summary: dict[str, Any]) -> str:
    """Markdown of an experiment with populations: the question, the populations, then per
    metric the cross-population verdict, the ranking in each population and each
    population's table (as without populations), and each population's arms at the end."""
    lines = [f"# Experiment {summary['name']}", "", summary["question"], "",
             f"Seed {summary['seed']}, seats {summary['seats']}. Intervals: 95%, clustered by "
             "deal; Δ is paired game by game where the arms played the same deals. Every arm "
             "is played in every population; the first population is the baseline.", "",
             "| population | games per arm | strategies swapped |", "|---|---|---|"]  # fmt: skip
    for pop in summary["populations"]:
        lines.append(f"| {pop['name']} | {pop['games_per_arm']:,} | {_swap_text(pop)} |")
    for metric, cross in summary["cross"].items():
        mark = " (the question's metric)" if metric == summary["metric"] else ""
        words = summary["metrics_described"][metric] + (
            f" (entry #{summary['entry']})" if metric in ENTRY_METRICS else ""
        )
        lines += ["", f"## {metric}{mark}", "", f"{words}.", "", f"**{cross['sentence']}**", ""]
        for pop in summary["populations"]:
            view = cross["populations"][pop["name"]]
            ranking = " > ".join(view["ranking"]) if view["ranking"] else "no values"
            lines.append(f"- ranking in {pop['name']}: {ranking}")
        for pop in summary["populations"]:
            sub = pop["summary"]
            header = ["| " + " | ".join(ROW_HEADER) + " |", "|" + "---|" * len(ROW_HEADER)]
            lines += ["", f"### {metric} in population {pop['name']}", "", *header]
            lines += ["| " + " | ".join(row) + " |" for row in result_rows(sub, metric)]
            fair = fair_sentence(sub, metric, {a["name"]: a["name"] for a in sub["arms"]})
            if fair:
                lines += ["", fair.strip()]
            if metric == summary["metric"]:
                lines += ["", f"**{best_line(sub)}**"]
    lines += ["", "## Arms per population"]
    for pop in summary["populations"]:
        lines += ["", f"### {pop['name']}", "", "| arm | players | rules | strategies |",
                  "|---|---|---|---|"]  # fmt: skip
        for arm in pop["summary"]["arms"]:
            lines.append(
                f"| {arm['name']} | {arm['players']} | {arm['rules']} | "
                f"{', '.join(f'`{s}`' for s in arm['strategies'])} |"
            )
    return "\n".join([*lines, ""])


def populations_compare_page(exp: Experiment, out: Path) -> str:
    """``compare.html`` with populations: per population, every arm against its first arm."""
    body = []
    for pop in exp.populations:
        sub = population_experiment(exp, pop)
        first = out / pop.name / sub.arms[0].name
        body.append(f"<h2>population {html.escape(pop.name)}</h2>")
        body += [
            compare_section_html(compare_runs(first, out / pop.name / arm.name))
            for arm in sub.arms[1:]
        ]
    title = html.escape(f"{exp.name}: every arm against {exp.arms[0].name}, per population")
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:sans-serif} table{border-collapse:collapse}"
        "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "td:first-child{text-align:left} tr.significant{font-weight:bold}</style>"
        f"</head><body>\n<h1>{title}</h1>\n" + "\n".join(body) + "</body></html>\n"
    )


def write_population_page(
    summary: dict[str, Any], out: Path, marker: dict[str, Any], report: str | None
) -> None:
    """Write ``index.html`` of an experiment with populations and one forest plot per
    population (``fig-forest-<population>.png``), each listed in the marker first."""
    from .report import forest_figure

    forests: dict[str, str] = {}
    for pop in summary["populations"]:
        sub = pop["summary"]
        panels = forest_panels(sub, arm_labels(sub))
        if not panels:
            continue
        name = _forest_name(pop["name"])
        if name not in marker["files"]:
            marker["files"].append(name)
            _save_marker(out, marker)
        forest_figure(panels, out / name)
        forests[pop["name"]] = name
    _write_own(out, marker, "index.html", population_page(summary, forests, report))


def population_page(summary: dict[str, Any], forests: dict[str, str], report: str | None) -> str:
    """The ``index.html`` of an experiment with populations: the question and the
    populations; per metric the cross-population verdict first, then each population's
    verdict sentence (the question's metric) or table; the forest plot per population;
    links; each population's arms folded away at the bottom."""
    from .report import CSS, IMAGE_CHECK

    e = html.escape
    pops = summary["populations"]
    labels = {p["name"]: arm_labels(p["summary"]) for p in pops}
    css = {"holds": "#0072B2", "disagrees": "#D55E00", "unclear": "#777"}
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(summary['name'])}: haggis-sim experiment</title>"
        f"<style>{CSS}#verdict li{{margin:0.35em 0}}"
        ".question{font-size:1.1em;border-left:4px solid #E69F00;padding-left:0.8em}"
        ".cross{font-weight:bold}</style></head><body>",
        f"<h1>Experiment {e(summary['name'])}</h1>",
        f"<p class='question'>{e(summary['question'])}</p>",
        "<p>Every arm is played in each player population; the first is the baseline: "
        + "; ".join(
            f"<b>{e(p['name'])}</b> ({e(_swap_text(p))}, {p['games_per_arm']:,} games per arm)"
            for p in pops
        )
        + ". Within a population every difference is an arm minus its first arm, paired game "
        "by game where the arms played the same deals, with its 95% interval (clustered by "
        "deal).</p>",
        "<section id='verdict'><h2>Verdict</h2><ul>",
    ]

    def cross_item(metric: str, detail: bool) -> str:
        cross = summary["cross"][metric]
        mark = " (the question)" if metric == summary["metric"] else ""
        text = (
            f"<li><b>{e(metric)}{mark}</b> — <span class='cross' style='color:"
            f"{css[cross['verdict']]}'>{e(cross['sentence'])}</span>"
        )
        if detail:
            text += "<ul>"
            for p in pops:
                sentence = verdict_sentence(p["summary"], metric, labels[p["name"]])
                rest = sentence.partition(" — ")[2].partition(": ")[2]
                text += f"<li>in <b>{e(p['name'])}</b>: {e(rest)}</li>"
            text += "</ul>"
        return text + "</li>"

    out.append(cross_item(summary["metric"], True) + "</ul>")
    out.append(
        "<ul>"
        + "".join(
            f"<li>best arm in <b>{e(p['name'])}</b>: {e(best_line(p['summary']))}</li>"
            for p in pops
        )  # fmt: skip
        + "</ul>"
    )
    for p in pops:
        if p["name"] in forests:
            out.append(
                f"<h3>population {e(p['name'])}</h3><img src='{e(forests[p['name']])}' "
                f"alt='paired differences of every arm from the first, population "
                f"{e(p['name'])}'>"
            )
    if forests:
        out.append(
            "<p>Each arm's difference from the population's first arm with its 95% interval, "
            "one panel per metric. Blue: the interval lies above zero; vermillion: below; "
            "grey: it holds zero (no difference separable at 95%).</p>"
        )
    others = [m for m in summary["cross"] if m != summary["metric"]]
    if others:
        out.append("<ul>" + "".join(cross_item(m, False) for m in others) + "</ul>")
    out.append("</section>")
    links = [("summary.md", "summary (Markdown)"), ("summary.json", "summary (JSON)"),
             ("compare.html", "every arm against the first arm, per population")]  # fmt: skip
    if report:
        links.insert(0, (report, "the full report over every arm of every population"))
    out.append("<h2>More</h2><ul>")
    out += [f"<li><a href='{e(href)}'>{e(text)}</a></li>" for href, text in links]
    out.append("</ul><h2>Every metric per population</h2>")
    for metric, cross in summary["cross"].items():
        out.append(f"<h3>{e(metric)}: {e(_metric_words(pops[0]['summary'], metric))}</h3>")
        out.append(f"<p class='cross'>{e(cross['sentence'])}</p>")
        for p in pops:
            rows = result_rows(p["summary"], metric)
            out.append(f"<h4>population {e(p['name'])}</h4>")
            out.append(_table(ROW_HEADER, [[labels[p["name"]][r[0]], *r[1:]] for r in rows]))
    out.append(studies_html(summary.get("studies", [])))
    out.append(
        "<details id='metadata'><summary>Run metadata: arms and strategies per population, "
        "seed, seats</summary>"
        f"<p>Seed {summary['seed']}, seats {e(summary['seats'])}; built by haggis-sim "
        f"{e(__version__)} on {e(time.strftime('%Y-%m-%d %H:%M:%S'))} from "
        "<a href='experiment.toml'>experiment.toml</a>.</p>"
    )
    for p in pops:
        arm_rows = [
            [a["name"], labels[p["name"]][a["name"]], str(a["players"]), a["rules"],
             ", ".join(a["strategies"]), f"{a['games']:,}",
             "yes" if a["paired_with_first"] else "no"]
            for a in p["summary"]["arms"]
        ]  # fmt: skip
        out.append(f"<h4>population {e(p['name'])}</h4>")
        out.append(
            _table(
                [
                    "arm",
                    "label",
                    "players",
                    "rules",
                    "strategies",
                    "games",
                    "paired with the first arm",
                ],
                arm_rows,
            )  # fmt: skip
        )
    out.append("</details>" + IMAGE_CHECK + "</body></html>")
    return "\n".join(out)
