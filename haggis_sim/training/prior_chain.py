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
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from strategies import CompiledStrategy, StrategyError
from strategies.learned_model import load_model

from .chain import (
    ChainResult,
    Generation,
    Progress,
    check_chain,
    generation_seed,
    run_chain,
    stage_progress,
)
from .gate import MatchResult, gate_generation, promotes, trial_path
from .model_io import check_output, save_model
from .positions import DEFAULT_TEACHER, HOLDOUT_EVERY, check_teacher
from .train import CHECK_GAMES, HIDDEN, check_hidden, check_target, run_training


def prior_candidate_spec(teacher: str | CompiledStrategy, model: Path) -> str:
    """The search a new prior plays in: the teacher's settings with ``model`` as its
    prior (the teacher must be an ``mcts`` spec that searches with a learned prior)."""
    strat = check_teacher(teacher) if isinstance(teacher, str) else teacher
    if strat.name != "mcts" or strat.values.get("prior") != "learned":
        raise StrategyError(
            f"--generations needs an mcts teacher with a learned prior, got {strat.spec!r}"
        )
    values = {k: v for k, v in strat.values.items() if k not in ("model", "sha")}
    return "mcts:" + ",".join(f"{k}={v}" for k, v in values.items()) + f",model={model}"


def _provenance(path: Path) -> dict[str, Any]:
    return load_model(path, "train").provenance


def train_prior_chain(
    out: Path,
    *,
    generations: int,
    games: int,
    seed: int,
    gate_games: int,
    teacher: str = DEFAULT_TEACHER,
    target: str = "visits",
    hidden: int = HIDDEN,
    check_games: int = CHECK_GAMES,
    jobs: int = 1,
    force: bool = False,
    command: str = "",
    on_progress: Progress | None = None,
    on_generation: Callable[[Generation], None] | None = None,
) -> ChainResult:
    """Run ``generations`` generations (module doc) and write ``OUT`` from the last
    promoted one. Refuses up front (StrategyError) what ``haggis-sim train`` refuses, a
    teacher that is not a search with a learned prior, a chain without a gate, and
    generation files of other settings (without ``force``)."""
    check_output(out, "--out", force)
    if games < HOLDOUT_EVERY:
        raise StrategyError(f"--games must be at least {HOLDOUT_EVERY} (one held-out game)")
    check_hidden(hidden, 0)
    check_target(target)
    teach = check_teacher(teacher)
    prior_candidate_spec(teach, out)  # a search with a prior, before hours of play
    paths = check_chain(out, generations, gate_games)
    chain: dict[str, Any] = {"seed": seed, "games": games, "target": target, "hidden": hidden,
                             "check_games": check_games, "gate_games": gate_games,
                             "root_teacher": teach.spec}  # fmt: skip

    def make(
        k: int,
        path: Path,
        champion: CompiledStrategy,
        record: dict[str, Any],
        teachers: dict[int, str],
    ) -> list[MatchResult]:
        gen_seed = generation_seed(seed, k)
        stage = f"generation {k}: "
        trial = trial_path(path)
        try:
            res = run_training(trial, games=games, seed=gen_seed, teacher=champion.spec,
                               target=target, jobs=jobs, force=True, command=command,
                               on_progress=stage_progress(on_progress, f"{stage}teacher games"),
                               check_games=check_games, hidden=hidden)  # fmt: skip
            t0 = time.monotonic()
            gates = gate_generation(partial(prior_candidate_spec, champion), trial, path,
                                    champion.spec, gate_games, gen_seed, jobs, on_progress,
                                    stage)  # fmt: skip
        finally:
            trial.unlink(missing_ok=True)
        seconds = round(time.monotonic() - t0, 1)
        prov = {**res.provenance, "chain": record, "gate": [g.as_dict() for g in gates],
                "promoted": promotes(gates), "gate_seconds": seconds}  # fmt: skip
        save_model(path, res.weights, prov, force=True, hidden=res.hidden)
        return gates

    return run_chain(out, paths, root=teach, chain=chain, read_provenance=_provenance,
                     make=make, promoted_spec=prior_candidate_spec, force=force,
                     on_generation=on_generation)  # fmt: skip
