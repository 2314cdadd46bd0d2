"""Generations of the leaf value (``haggis-sim train-value --generations K``): each
generation's value is learned from the self-play of the current champion and gated
against it; the champion changes only when the gate shows the new search stronger.

Generation ``k`` plays ``games`` self-play games of the champion (at first the
``--teacher``; later the teacher's settings with ``value=net`` and the last promoted
generation's model), fits a value to the self-play of the last ``window`` generations,
writes it to ``OUT.genK.npz`` and gates the search with it against the champion with 2
and with 3 players (:func:`~haggis_sim.training.gate.promotes`). When no generation
before it was promoted, the data keep coming from the same champion, so a window of two
fits on twice the games. At the end ``OUT`` is a copy of the last promoted generation
(same bytes, so the champion's pinned SHA-256 holds for it), or is not written when no
generation was promoted.

Every game is fixed by the seed: generation 1 plays ``seed`` itself (it is what
``haggis-sim train-value`` without ``--generations`` writes), generation ``k > 1`` a seed
drawn from (seed, k). A generation file whose recorded chain settings match is taken as
done (``--force`` overwrites ``OUT`` and generation files of other settings, never
these), so an interrupted chain resumes where it stopped and a finished one can be
extended (the window's earlier self-play is played again, game for game, when a later
generation needs it).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from strategies import CompiledStrategy, StrategyError
from strategies.learned_model import load_value_model

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
from .gate import MatchResult
from .model_io import check_output
from .settings import DEFAULT_RUN, TrainingRun, ValueFit
from .value_data import generate_values
from .value_rows import ValueRows
from .value_train import MAX_VALUE_GAMES, candidate_spec, check_settings, fit_and_gate

DEFAULT_WINDOW = 2


def _provenance(path: Path) -> dict[str, Any]:
    return load_value_model(path, "train-value").provenance


def train_value_chain(
    out: Path,
    fit: ValueFit,
    *,
    generations: int,
    window: int = DEFAULT_WINDOW,
    run: TrainingRun = DEFAULT_RUN,
    hooks: ChainHooks = NO_HOOKS,
) -> ChainResult:
    """Run ``generations`` generations (module doc), each fitting and gating a value as
    ``fit`` says (its seed and teacher the generation's), and write ``OUT`` from the last
    promoted one. Refuses up front (StrategyError) what
    :func:`~haggis_sim.training.value_train.train_value` refuses, a chain without a gate
    (``fit.gate_games`` 0), a window longer than the chain or with more games than one
    fit holds, and generation files of other settings (without ``run.force``)."""
    check_output(out, "--out", run.force)
    teach = check_settings(fit.teacher, out, fit.games, fit.units, fit.gate_games)
    games, seed = fit.games, fit.seed
    if not 1 <= window <= generations:
        raise StrategyError(f"--window must be 1 to --generations ({generations}), got {window}")
    if window * games > MAX_VALUE_GAMES:
        raise StrategyError(
            f"--window x --games must be at most {MAX_VALUE_GAMES:,} (one fit's games), "
            f"got {window * games:,}"
        )
    paths = check_chain(out, generations, fit.gate_games)
    chain: dict[str, Any] = {"seed": seed, "games": games, "window": window,
                             "units": fit.units, "gate_games": fit.gate_games,
                             "root_teacher": teach.spec}  # fmt: skip
    rows: dict[int, ValueRows] = {}  # generation -> its self-play, while a window holds it

    def make(
        k: int,
        path: Path,
        champion: CompiledStrategy,
        record: dict[str, Any],
        teachers: dict[int, str],
    ) -> list[MatchResult]:
        for j in [j for j in rows if j <= k - window]:
            del rows[j]  # outside this and every later generation's window
        t0 = time.monotonic()
        for j in range(max(1, k - window + 1), k + 1):
            if j not in rows:  # this generation's, or an earlier one's made by another run
                progress = stage_progress(hooks.on_progress, f"generation {j}: self-play")
                rows[j] = generate_values(
                    games, generation_seed(seed, j), teachers[j], run.jobs, progress
                )
        res = fit_and_gate(path, ValueRows.joined([rows[j] for j in sorted(rows)]), champion,
                           replace(fit, seed=generation_seed(seed, k), teacher=champion.spec),
                           run=replace(run, force=True),
                           play_seconds=round(time.monotonic() - t0, 1),
                           on_progress=prefixed(hooks.on_progress, f"generation {k}: "),
                           extra={"chain": record})  # fmt: skip
        return res.gates

    kind = GenerationKind(make=make, read_provenance=_provenance, promoted_spec=candidate_spec)
    return run_chain(out, paths, root=teach, chain=chain, kind=kind, force=run.force,
                     on_generation=hooks.on_generation)  # fmt: skip
