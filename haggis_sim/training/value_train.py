"""Training a value model for ``mcts:value=net`` (``haggis-sim train-value``): the
teacher's self-play (:mod:`~haggis_sim.training.value_data`), the fit, the model file,
and the gate: the search with the new value against the teacher, head to head.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from strategies import CompiledStrategy, StrategyError
from strategies.learned_model import Hidden
from strategies.value_features import VALUE_FEATURES

from .chain import Progress, stage_progress
from .gate import MatchResult, gate_generation, promotes, removed_on_exit, trial_path
from .model_io import check_output, save_model
from .positions import check_teacher, combos
from .provenance import stamp
from .settings import DEFAULT_RUN, TrainingRun, ValueFit
from .settings import DEFAULT_VALUE_TEACHER as DEFAULT_VALUE_TEACHER
from .split import HOLDOUT_EVERY, SPLIT_RULE
from .value_data import fit_value, generate_values
from .value_rows import ValueRows

MAX_VALUE_GAMES = 50_000  # rows take about 0.1 MB a game; the fit about 3x that
MAX_VALUE_UNITS = 64


@dataclass
class ValueTrainResult:
    provenance: dict[str, Any]
    gates: list[MatchResult]


def candidate_spec(teacher: str | CompiledStrategy, model: Path) -> str:
    """The search the new value model plays in: the teacher's settings with
    ``value=net`` and the model (the teacher must be an ``mcts`` spec)."""
    strat = check_teacher(teacher) if isinstance(teacher, str) else teacher
    if strat.name != "mcts":
        raise StrategyError(f"--teacher must be an mcts spec, got {strat.spec!r}")
    values = {k: v for k, v in strat.values.items() if k not in ("vmodel", "vsha")}
    values["value"] = "net"
    return "mcts:" + ",".join(f"{k}={v}" for k, v in values.items()) + f",vmodel={model}"


def train_value(
    out: Path,
    fit: ValueFit,
    *,
    run: TrainingRun = DEFAULT_RUN,
    on_progress: Progress | None = None,
) -> ValueTrainResult:
    """Play ``fit.games`` self-play games of ``fit.teacher``, fit the value model, write
    it to ``out`` and, with ``fit.gate_games``, play the search with it against the
    teacher (2 players; 3 players, one against two) and record the result in the
    provenance.

    Refuses up front (StrategyError) an existing ``out`` without ``run.force``, a folder
    that does not exist, and settings that cannot run. ``out`` is written once, at the
    end (the gate plays a copy beside it, removed afterwards): interrupted, it is as it
    was."""
    check_output(out, "--out", run.force)
    teach = check_settings(fit.teacher, out, fit.games, fit.units, fit.gate_games)
    t0 = time.monotonic()
    rows = generate_values(fit.games, fit.seed, fit.teacher, run.jobs,
                           stage_progress(on_progress, "self-play"))  # fmt: skip
    return fit_and_gate(out, rows, teach, fit, run=run,
                        play_seconds=round(time.monotonic() - t0, 1),
                        on_progress=on_progress)  # fmt: skip


def check_settings(
    teacher: str, out: Path, games: int, units: int, gate_games: int
) -> CompiledStrategy:
    """The teacher, once the settings are known to run (StrategyError naming the option
    otherwise): a checked count of games, of hidden units and of gate games, and an
    ``mcts`` teacher."""
    if not HOLDOUT_EVERY <= games <= MAX_VALUE_GAMES:
        raise StrategyError(
            f"--games must be {HOLDOUT_EVERY} to {MAX_VALUE_GAMES:,}, got {games:,}"
        )
    if not 1 <= units <= MAX_VALUE_UNITS:
        raise StrategyError(f"--hidden must be 1 to {MAX_VALUE_UNITS}, got {units}")
    if gate_games < 0:
        raise StrategyError(f"--gate-games must be 0 or more, got {gate_games}")
    teach = check_teacher(teacher)
    candidate_spec(teach, out)  # an mcts teacher, before hours of play
    return teach


def fit_value_model(
    rows: ValueRows,
    teach: CompiledStrategy,
    *,
    seed: int,
    games: int,
    units: int,
    command: str,
    play_seconds: float,
    extra: dict[str, Any] | None = None,
) -> tuple[np.ndarray, Hidden, dict[str, Any]]:
    """Fit the value model to ``rows`` (the self-play of ``teach``, ``games`` games of
    ``seed``): its linear weights, hidden layer and provenance (plus ``extra``)."""
    t1 = time.monotonic()
    weights, hidden, fit = fit_value(rows, units, seed)
    pairs = combos()
    prov: dict[str, Any] = {
        "kind": "value",
        "command": command,
        "seed": seed,
        "games": games,
        "teacher": teach.spec,
        "presets": sorted({p for p, _ in pairs}),
        "players": sorted({n for _, n in pairs}),
        "split": SPLIT_RULE,
        "target": "the acting seat's game value at the end of the round (round_values, game)",
        "hidden_units": units,
        "fit": fit,
        "play_seconds": play_seconds,
        "fit_seconds": round(time.monotonic() - t1, 1),
        **stamp(),
        **(extra or {}),
    }
    return weights, hidden, prov


def fit_and_gate(
    out: Path,
    rows: ValueRows,
    teach: CompiledStrategy,
    fit: ValueFit,
    *,
    run: TrainingRun,
    play_seconds: float,
    on_progress: Progress | None = None,
    extra: dict[str, Any] | None = None,
) -> ValueTrainResult:
    """Fit the value model to ``rows`` (the self-play of ``teach``, ``fit.teacher``
    compiled: :func:`fit_value_model`), gate it against ``teach`` with
    ``fit.gate_games`` (2 and 3 players; 0: no gate, games of ``fit.seed``) and write
    it to ``out`` with its provenance (``run.command`` and ``extra`` in it)."""
    weights, hidden, prov = fit_value_model(rows, teach, seed=fit.seed, games=fit.games,
                                            units=fit.units, command=run.command,
                                            play_seconds=play_seconds, extra=extra)  # fmt: skip
    gates: list[MatchResult] = []
    if fit.gate_games:
        t2 = time.monotonic()
        with ExitStack() as trials:  # the gate's copy, removed however the gate ends
            trial = removed_on_exit(trials, trial_path(out))
            save_model(trial, weights, prov, force=True, hidden=hidden, features=VALUE_FEATURES)
            gates = gate_generation(partial(candidate_spec, teach), trial, out, teach.spec,
                                    fit.gate_games, fit.seed, run.jobs, on_progress)  # fmt: skip
        prov["gate"] = [g.as_dict() for g in gates]
        prov["promoted"] = promotes(gates)
        prov["gate_seconds"] = round(time.monotonic() - t2, 1)
    save_model(out, weights, prov, force=run.force, hidden=hidden, features=VALUE_FEATURES)
    return ValueTrainResult(prov, gates)
