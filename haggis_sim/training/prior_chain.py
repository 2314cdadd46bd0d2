"""Generations of the search's prior (``haggis-sim train --generations K``): each
generation imitates the current champion search (stage 1 of ``haggis-sim train``: its
visit shares on its own self-play), and the champion's settings with the new model as
prior are gated against the champion (:mod:`~haggis_sim.training.chain`).

Generation ``k`` runs ``haggis-sim train`` with the champion as teacher and generation
``k``'s seed (generation 1: ``--seed`` itself, so it is what ``train`` without
``--generations`` writes), writes the model to ``OUT.genK.npz`` with the gate in its
provenance, and is promoted when the gate shows ``mcts:...,model=OUT.genK.npz`` stronger
than the champion. Each generation learns from its own champion's games only (no replay
window: the fit of 2,000 games already takes about 9 GB). The promoted model is both the
new search's prior and a ``learned`` player of its own (``learned:model=OUT``).

Joint generations (``value_units`` > 0; ``train --generations K --value-units U``) fit
on the same games a leaf value too (every seat's decisions, each with its seat's reward
at the end of the round: :mod:`~haggis_sim.training.value_rows`), written beside the
prior (:func:`value_companion`); the gate plays the champion's settings with both new
models (``value=net``), and a promoted generation's search uses both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from strategies import CompiledStrategy, StrategyError
from strategies.learned_model import load_model
from strategies.value_features import VALUE_FEATURES

from .chain import (
    NO_HOOKS,
    ChainHooks,
    ChainResult,
    GenerationKind,
    check_chain,
    generation_seed,
    prefixed,
    run_chain,
    stage_progress,
)
from .gate import MatchResult, gate_generation, promotes, removed_on_exit, trial_path
from .model_io import check_output, save_model
from .positions import check_teacher, generate
from .settings import DEFAULT_RUN, ImitationFit, TrainingRun
from .split import HOLDOUT_EVERY
from .train import check_hidden, check_target, train
from .value_train import MAX_VALUE_UNITS, fit_value_model

#: what a joint generation's value model learns from (its provenance's "data")
JOINT_VALUE_DATA = (
    "every seat's decisions in the prior's teacher games (line-ups teacher vs teacher, "
    "heuristic and greedy), each with its seat's reward at the end of the round"
)


def prior_candidate_spec(
    teacher: str | CompiledStrategy, model: Path, vmodel: Path | None = None
) -> str:
    """The search a new prior plays in: the teacher's settings with ``model`` as its
    prior (the teacher must be an ``mcts`` spec that searches with a learned prior) and,
    with ``vmodel``, ``value=net`` with that value model at its leaves."""
    strat = check_teacher(teacher) if isinstance(teacher, str) else teacher
    if strat.name != "mcts" or strat.values.get("prior") != "learned":
        raise StrategyError(
            f"--generations needs an mcts teacher with a learned prior, got {strat.spec!r}"
        )
    dropped = ("model", "sha") if vmodel is None else ("model", "sha", "vmodel", "vsha")
    values = {k: v for k, v in strat.values.items() if k not in dropped}
    if vmodel is not None:
        values["value"] = "net"
    spec = "mcts:" + ",".join(f"{k}={v}" for k, v in values.items()) + f",model={model}"
    return spec if vmodel is None else f"{spec},vmodel={vmodel}"


def value_companion(path: Path) -> Path:
    """The value model beside a joint generation's prior ``path``:
    ``m.gen2.npz`` -> ``m.gen2.value.npz``."""
    return path.with_name(f"{path.stem}.value{path.suffix or '.npz'}")


def joint_candidate_spec(teacher: str | CompiledStrategy, model: Path) -> str:
    """The search of a joint generation: the teacher's settings with the prior ``model``
    and, at its leaves, the value model beside it (:func:`value_companion`)."""
    return prior_candidate_spec(teacher, model, value_companion(model))


def _provenance(path: Path) -> dict[str, Any]:
    return load_model(path, "train").provenance


def train_prior_chain(
    out: Path,
    fit: ImitationFit,
    *,
    generations: int,
    gate_games: int,
    value_units: int = 0,
    run: TrainingRun = DEFAULT_RUN,
    hooks: ChainHooks = NO_HOOKS,
) -> ChainResult:
    """Run ``generations`` generations (module doc), each a stage 1 fit as ``fit`` says
    (its seed and teacher the generation's) gated with ``gate_games``, and write ``OUT``
    from the last promoted one (``value_units`` > 0: joint generations, each also fitting
    a value model of that many hidden units on the same games, written beside its prior
    and beside ``OUT``: :func:`value_companion`). Refuses up front (StrategyError) what
    ``haggis-sim train`` refuses, a teacher that is not a search with a learned prior, a
    chain without a gate, and generation files of other settings (without
    ``run.force``)."""
    check_output(out, "--out", run.force)
    games, seed = fit.games, fit.seed
    if games < HOLDOUT_EVERY:
        raise StrategyError(f"--games must be at least {HOLDOUT_EVERY} (one held-out game)")
    check_hidden(fit.hidden, 0)
    check_target(fit.target)
    if not 0 <= value_units <= MAX_VALUE_UNITS:
        raise StrategyError(f"--value-units must be 0 to {MAX_VALUE_UNITS}, got {value_units}")
    teach = check_teacher(fit.teacher)
    prior_candidate_spec(teach, out)  # a search with a prior, before hours of play
    paths = check_chain(out, generations, gate_games)
    chain: dict[str, Any] = {"seed": seed, "games": games, "target": fit.target,
                             "hidden": fit.hidden, "check_games": fit.check_games,
                             "gate_games": gate_games, "root_teacher": teach.spec}  # fmt: skip
    candidate_of: Callable[[str | CompiledStrategy, Path], str] = prior_candidate_spec
    companion: Callable[[Path], Path] | None = None
    if value_units:
        chain["value_units"] = value_units
        candidate_of, companion = joint_candidate_spec, value_companion
        check_output(value_companion(out), "--out", run.force)
        for path in paths:
            check_output(value_companion(path), "--out", True)

    def make(
        k: int,
        path: Path,
        champion: CompiledStrategy,
        record: dict[str, Any],
        teachers: dict[int, str],
    ) -> list[MatchResult]:
        gen_seed = generation_seed(seed, k)
        report = prefixed(hooks.on_progress, f"generation {k}: ")
        trial = trial_path(path)
        with ExitStack() as trials:  # the gate's copies, removed however the gate ends
            t0 = time.monotonic()
            pos = generate(games, gen_seed, champion.spec, run.jobs,
                           stage_progress(report, "teacher games"),
                           values=bool(value_units))  # fmt: skip
            play_seconds = round(time.monotonic() - t0, 1)
            res = train(pos, replace(fit, seed=gen_seed, teacher=champion.spec),
                        command=run.command, jobs=run.jobs)  # fmt: skip
            res.provenance["stage1_play_seconds"] = play_seconds
            save_model(removed_on_exit(trials, trial), res.weights, res.provenance, force=True,
                       hidden=res.hidden)  # fmt: skip
            value = None
            if pos.values is not None:
                value = fit_value_model(pos.values, champion, seed=gen_seed, games=games,
                                        units=value_units, command=run.command,
                                        play_seconds=play_seconds,
                                        extra={"data": JOINT_VALUE_DATA})  # fmt: skip
                vw, vh, vprov = value
                save_model(removed_on_exit(trials, value_companion(trial)), vw, vprov,
                           force=True, hidden=vh, features=VALUE_FEATURES)  # fmt: skip
            del pos
            t1 = time.monotonic()
            gates = gate_generation(partial(candidate_of, champion), trial, path,
                                    champion.spec, gate_games, gen_seed, run.jobs,
                                    report)  # fmt: skip
        verdict = {"chain": record, "gate": [g.as_dict() for g in gates],
                   "promoted": promotes(gates),
                   "gate_seconds": round(time.monotonic() - t1, 1)}  # fmt: skip
        if value is not None:  # first, so a generation's prior file means it is whole
            vw, vh, vprov = value
            save_model(value_companion(path), vw, {**vprov, **verdict}, force=True, hidden=vh,
                       features=VALUE_FEATURES)  # fmt: skip
        save_model(path, res.weights, {**res.provenance, **verdict}, force=True, hidden=res.hidden)
        return gates

    kind = GenerationKind(make=make, read_provenance=_provenance, promoted_spec=candidate_of,
                          companion=companion)  # fmt: skip
    return run_chain(out, paths, root=teach, chain=chain, kind=kind, force=run.force,
                     on_generation=hooks.on_generation)  # fmt: skip
