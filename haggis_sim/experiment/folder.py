"""The experiment's output folder: which folder it may use, and which files in it are its own.

The folder carries a marker (:data:`MARKER`) naming the experiment and the files it
wrote; only such a folder (or a new or empty one) is written to, and only the files the
experiment wrote there are rewritten (see :func:`check_experiment_out`). Every arm plays
into ``<out>/<arm>/`` (with populations ``<out>/<population>/<arm>/``, see
:func:`arm_runs`); an arm folder that holds another run is refused (:func:`arm_state`).
"""

from __future__ import annotations

import json
import os
import time
import tomllib
from pathlib import Path
from typing import Any

from .. import __version__, outputs
from ..inputs import read_text_regular
from ..logs.manifest import MANIFEST, read_manifest
from ..runner.run import stale_seating
from .arms import Arm
from .schema import MARKER, OWN_FILES, ExperimentError
from .spec import Experiment, population_experiment

# run settings that must match for a finished arm folder to count as this arm
MATCH_KEYS = ("strategies", "games", "rules", "seed", "seats", "log_moves")  # decide the games


def own_files(exp: Experiment) -> tuple[str, ...]:
    """The files the experiment writes into its folder (besides arm runs and report/)."""
    return (*OWN_FILES, *(forest_name(p.name) for p in exp.populations))


def forest_name(population: str | None) -> str:
    """The forest plot's file: one for the experiment, or one per population."""
    return "fig-forest.png" if population is None else f"fig-forest-{population}.png"


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


def arm_state(exp: Experiment, arm: Arm, arm_dir: Path) -> str:
    """``new``, ``done``, ``resume`` or ``extend``; ExperimentError if the folder holds
    another run.

    Under ``precision`` an arm's games are sized (:func:`.play.size_arms`), so a run of any count
    from the first batch (``games``) to the ``budget`` is this arm: the sizing loop grows
    it from there. Without, a run of fewer games than ``games`` (the file asks for more
    than was played) is ``extend``: its games are kept and the rest played, which gives
    the run a fresh one of ``games`` would have written; more games than asked for are
    another run."""
    if not (arm_dir / "manifest.json").exists():
        return "new"
    manifest = read_manifest(arm_dir)
    why = stale_seating(manifest)
    if why:
        raise ExperimentError(
            f"arm {arm.name!r}: {arm_dir} holds a run that does not fit this version ({why}); "
            "remove the folder to play the arm again"
        )
    want = exp.run_config(arm).as_dict()
    have = manifest.get("config", {})
    if exp.precision is not None and exp.budget is not None:
        if not (isinstance(have.get("games"), int) and exp.games <= have["games"] <= exp.budget):
            raise ExperimentError(
                f"arm {arm.name!r}: {arm_dir} holds a run of {have.get('games')!r} games, "
                f"outside the file's {exp.games:,} (first batch) to {exp.budget:,} "
                "(budget); remove the folder or choose another --out"
            )
        check_same_run(have, want, f"arm {arm.name!r}: {arm_dir}", games=False)
    else:  # fewer games than asked is decided below, once every other setting matches
        fewer = isinstance(have.get("games"), int) and have["games"] < want["games"]
        check_same_run(have, want, f"arm {arm.name!r}: {arm_dir}", games=not fewer)
    if exp.precision is None and have.get("games", want["games"]) < want["games"]:
        return "extend"
    return "done" if manifest.get("status") == "complete" else "resume"


def check_same_run(have: dict[str, Any], want: dict[str, Any], where: str, games: bool) -> None:
    """ExperimentError (led by ``where``) when a recorded run's settings ``have`` differ from
    ``want`` in one that decides the games (:data:`MATCH_KEYS`; the game count only with
    ``games``)."""
    for key in MATCH_KEYS:
        if key == "games" and not games:
            continue
        if have.get(key) != json.loads(json.dumps(want[key])):
            raise ExperimentError(
                f"{where} holds a run with a different {key} ({have.get(key)!r}, the file "
                f"asks for {want[key]!r}); remove the folder or choose another --out"
            )


EXPERIMENT = outputs.OwnedFolder("experiment", MARKER, ExperimentError, "--out", outputs.OWNED)
"""The experiment's folder as an owned folder (:mod:`haggis_sim.outputs`)."""
RUNS_REPORTS = tuple((marker, kind) for marker, kind in outputs.OWNED if kind != "experiment")
"""Checked first (a folder's own kind is named before its being inside an experiment)."""


def _legacy_name(out: Path) -> str | None:
    """The experiment name in ``out/experiment.toml`` (a folder written before markers)."""
    try:
        name = tomllib.loads(read_text_regular(out / "experiment.toml")).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return name if isinstance(name, str) else None


def check_experiment_out(exp: Experiment, out: Path, report: bool = True) -> dict[str, Any]:
    """The marker to keep in ``out``; ExperimentError for a folder the experiment may not use.

    ``out`` may be new, an empty folder, or this experiment's own folder (its marker names
    the experiment; a folder from before markers is recognised by its ``experiment.toml``).
    Refused, with nothing changed: a file or symbolic link, a path under a file or inside a
    run, report or another experiment's folder, a run or report folder, any other
    non-empty folder, an arm folder that holds something other than a run, a summary file
    the experiment did not write, and a ``report/`` folder that is not the experiment's
    report.
    """
    from ..report import ReportError, check_out

    if out.is_symlink():
        raise ExperimentError(f"--out {out} is a symbolic link; give the experiment a real folder")
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"--out {out} is a file, not a folder")
    outputs.check_parents(Path(os.path.abspath(out)), "--out", ExperimentError, RUNS_REPORTS)
    fresh = {"tool": "haggis-sim", "kind": "experiment", "name": exp.name,
             "version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
             "files": []}  # fmt: skip
    if not out.exists() or not any(out.iterdir()):
        outputs.check_outside(out, "--out", ExperimentError)  # nor inside another experiment
        return fresh
    marker = _existing_marker(exp, out, fresh)
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
    outputs.check_outside(out, "--out", ExperimentError)
    return marker


def _existing_marker(exp: Experiment, out: Path, fresh: dict[str, Any]) -> dict[str, Any]:
    """The marker of a non-empty ``out`` that is this experiment's folder; ExperimentError
    for a run or report folder, another experiment's folder, or any other folder."""
    from ..report import MARKER as REPORT_MARKER

    for name, what in ((MANIFEST, "a haggis-sim run folder"), (REPORT_MARKER, "a report folder")):
        if (out / name).exists():
            raise ExperimentError(f"--out {out} is {what}, not an experiment folder")
    if (out / MARKER).exists():
        marker = outputs.read_marker(out, EXPERIMENT, consequence="")
        if marker.get("name") != exp.name:
            raise ExperimentError(
                f"--out {out} holds the experiment {marker.get('name')!r}, not {exp.name!r}: "
                "choose another --out"
            )
        return marker
    if _legacy_name(out) == exp.name:  # written before markers: every summary file is ours
        return {**fresh, "files": [f for f in OWN_FILES if (out / f).exists()]}
    names = ", ".join(sorted(os.listdir(out))[:3])
    raise ExperimentError(
        f"--out {out} already exists and is not this experiment's folder (it holds "
        f"{names}); choose a new or empty folder"
    )


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


def claim(out: Path, marker: dict[str, Any], name: str) -> None:
    """List ``out/name`` in the marker before it is written (so a later run knows it is ours)."""
    if name not in marker["files"]:
        marker["files"].append(name)
        save_marker(out, marker)


def write_own(out: Path, marker: dict[str, Any], name: str, text: str) -> None:
    """Write ``out/name``, listed in the marker first (so a later run knows it is ours)."""
    claim(out, marker, name)
    outputs.replace_file(out / name, text)  # whole or untouched (OSError: the caller's)


def save_marker(out: Path, marker: dict[str, Any]) -> None:
    """Replace the marker in one step (a crash leaves the old or the new one, never half)."""
    outputs.replace_file(out / MARKER, json.dumps(marker, indent=2) + "\n")
