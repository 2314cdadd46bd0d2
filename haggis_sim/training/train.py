"""Training the ``learned`` strategy: self-play positions of a teacher, then a fit
(``haggis-sim train``; the orchestration of this package's modules).

Data (:mod:`~haggis_sim.training.positions`). Game ``g`` of a training run
(``g = 0 .. games - 1``) is fixed by the seed and ``g`` alone, so the data does not
depend on how many processes made it: its rules are the ``g``-th of every (preset,
players) pair, its line-up cycles through teacher vs
teacher, teacher vs heuristic and teacher vs greedy (the teacher's seat rotating), and
its deal and every seat's stream come from ``SeedSequence([seed, g])``. At every
decision of a teacher seat with two or more legal actions it records the features
(:func:`~strategies.learned_features.decision_features`, computed from that seat's
observation only) of the legal actions, which one the teacher chose, and the target the
fit imitates: when the teacher is ``mcts`` and searched its play, the share of the
root's visits each legal action received (:func:`~strategies.ismcts.mcts_decide`, the
same decision and random draws as the strategy's own kernel); otherwise (bets, forced
actions, other teachers) the chosen action alone. ``--target chosen`` fits the chosen
action everywhere instead.

Split. Games with ``g % 5 == 4`` are held out (20%): their decisions keep every legal
action, so held-out accuracy is top-1 over the full choice. Training decisions keep
the chosen action, every action the search visited, and others drawn at random up to
:data:`TRAIN_ALTERNATIVES` in all (a lead from a full hand has thousands); for a
conditional logit, fitting on uniformly sampled choice sets estimates the same weights
(McFadden's sampling of alternatives; with visit shares as targets, the unvisited
actions are the sampled ones, an approximation of the same kind).

Fit (:mod:`~haggis_sim.training.fit`). A conditional logit (softmax over each
decision's actions) with L2 penalty, minimising the cross-entropy to the targets (visit
shares or the chosen action) by scipy's L-BFGS with the analytic gradient: deterministic
for the data. By default the score has a hidden layer of :data:`HIDDEN` tanh units
(``fit_hidden``, its starting weights drawn from the seed): a linear score imitates the
search on about 75-80% of held-out decisions and, tuned by stage 2, wins about 78%
against the heuristic; 16 units imitate 83.5% and win about 85% untuned (docs/models.md,
*Learned strategy*). Such a model is then checked against the default heuristic on
fresh deals (:func:`~haggis_sim.training.checks.heldout_checks`).

Stage 2 (linear models, ``hidden=0``; :mod:`haggis_sim.training.improve`) then improves
the fitted weights by playing whole games against a pool of opponents, and checks the
result on fresh deals: first on every rule set of both player counts, then, from that
result, half as many iterations
again on the 2-player rule sets alone and on the 3-player ones alone, so the model holds
one row of weights per player count (2- and 3-player Haggis reward different play; one
vector tuned on both served 2 players well and 3 players worse, and one tuned on 2
players alone from the imitation start did worse than the joint one: docs/models.md, *Learned
strategy*). Each refinement is elitist: it keeps the joint weights unless it beats them
on its own final games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from strategies import StrategyError
from strategies.learned_model import Hidden, param_row, per_player_count

from .checks import CHECK_RULES, heldout_checks, refine_seed
from .fit import PLAYER_COUNTS, fit, fit_hidden, flagged_share, hidden_scores
from .metrics import top1
from .model_io import check_output, save_model
from .positions import DEFAULT_TEACHER as DEFAULT_TEACHER
from .positions import (
    Positions,
    check_teacher,
    combos,
    generate,
    write_positions,
)
from .provenance import provenance
from .settings import DEFAULT_RUN, NO_IMPROVEMENT, ImitationFit, Improvement, TrainingRun
from .settings import HIDDEN as HIDDEN
from .split import HOLDOUT_EVERY

TARGETS = ("visits", "chosen")  # what the fit imitates (haggis-sim train --target)
MAX_HIDDEN = 256
DEFAULT_GAMES = 2000  # haggis-sim train's default teacher games
IMPROVE_ITERS = 60  # stage 2 iterations of the linear recipe (gen1, gen2: --hidden 0)

Improving = Callable[[int, int, str], None]


def check_improve(iters: int, games: int, check_games: int) -> None:
    """StrategyError for stage 2 settings that cannot run."""
    if iters < 0:
        raise StrategyError(f"--improve-iters must be 0 or more, got {iters}")
    if iters > 0 and games < 1:
        raise StrategyError(f"--improve-games must be 1 or more, got {games}")
    if iters > 0 and check_games < 2:
        raise StrategyError(f"--check-games must be 2 or more, got {check_games}")


def check_hidden(hidden: int, improve_iters: int) -> None:
    """StrategyError for a hidden width that cannot be trained."""
    if not 0 <= hidden <= MAX_HIDDEN:
        raise StrategyError(f"--hidden must be 0 to {MAX_HIDDEN}, got {hidden}")
    if hidden > 0 and improve_iters > 0:
        raise StrategyError(
            f"stage 2 (--improve-iters {improve_iters}) tunes linear models only: use "
            "--hidden 0 with it, or --improve-iters 0 with --hidden"
        )


def check_target(target: str) -> None:
    """StrategyError unless ``target`` is one of :data:`TARGETS`."""
    if target not in TARGETS:
        raise StrategyError(f"--target must be one of {', '.join(TARGETS)}, got {target!r}")


@dataclass
class TrainResult:
    weights: np.ndarray  # (2, features): 2 players, 3 players
    provenance: dict[str, Any]
    hidden: Hidden | None = None


def _stage1(
    pos: Positions, target: str, hidden: int, seed: int
) -> tuple[np.ndarray, Hidden | None, dict[str, Any]]:
    """Fit on the training games and measure on the held-out ones: the weights (2,
    features), the hidden layer (None: linear) and stage 1's provenance fields."""
    t0 = time.monotonic()
    hold = pos.holdout
    train_rows = ~hold
    if not train_rows.any() or not hold.any():
        raise StrategyError(
            f"training needs games in both the train and held-out split: use --games >= "
            f"{HOLDOUT_EVERY}"
        )
    y = pos.target if target == "visits" else pos.chosen.astype(np.float32)
    x_test = pos.features[hold].astype(np.float64)
    layer: Hidden | None = None
    if hidden > 0:
        linear, layer, info = fit_hidden(
            pos.features[train_rows], pos.decision[train_rows], y[train_rows],
            pos.players[train_rows], hidden, seed,
        )  # fmt: skip
        test_scores = hidden_scores(x_test, pos.players[hold], linear, layer)
        weights = linear
    else:
        w, info = fit(pos.features[train_rows], pos.decision[train_rows], y[train_rows])
        test_scores = x_test @ w
        weights = per_player_count(w)
    acc = top1(test_scores, pos.decision[hold], pos.chosen[hold])
    base = flagged_share(pos.decision[hold], pos.chosen[hold], pos.heuristic[hold])
    record = {
        "train_decisions": len(np.unique(pos.decision[train_rows])),
        "holdout_decisions": len(np.unique(pos.decision[hold])),
        "fit": info,
        "holdout_top1_vs_teacher": round(acc, 4),
        "heuristic_top1_vs_teacher": round(base, 4),
        "stage1_fit_seconds": round(time.monotonic() - t0, 1),
    }
    return weights, layer, record


def _stage2(
    pos: Positions,
    w: np.ndarray,
    *,
    seed: int,
    improvement: Improvement,
    check_games: int,
    jobs: int,
    on_improve: Improving | None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Improve the linear weights ``w`` by play: both player counts from two starts, then
    each count from that result (module doc); one row of weights per count, and the
    record of each phase."""
    from .improve import follow_heuristic, improve

    hold = pos.holdout
    pairs = combos()
    x_hold = pos.features[hold].astype(np.float64)
    starts = {
        "imitation": w,
        "imitation + heuristic_choice": follow_heuristic(
            w, x_hold, pos.decision[hold], pos.heuristic[hold]
        ),
    }
    refine_iters = max(1, improvement.iters // 2)
    phases = [("both", None, improvement.iters, seed)] + [
        (str(n), n, refine_iters, refine_seed(seed, n)) for n in PLAYER_COUNTS
    ]
    steps = [it + 3 for _, _, it, _ in phases]
    stage2: dict[str, Any] = {}
    rows = []
    joint = w
    for k, (name, players, iters, phase_seed) in enumerate(phases):

        def progress(done: int, total: int, msg: str, k: int = k, name: str = name) -> None:
            if on_improve:
                on_improve(sum(steps[:k]) + done, sum(steps), f"{name}: {msg}")

        # first both player counts from the two starts, then each count from that result
        result = improve(
            starts if players is None else {"both": joint}, replace(improvement, iters=iters),
            seed=phase_seed, check_games=check_games, jobs=jobs, on_progress=progress,
            combos=pairs if players is None else [c for c in pairs if c[1] == players],
            check_preset=(CHECK_RULES, players or 2),
        )  # fmt: skip
        mine = pos.players[hold] == players if players else np.ones(len(x_hold), bool)
        result.info["holdout_top1_vs_teacher"] = round(top1(
            x_hold[mine] @ result.weights, pos.decision[hold][mine],
            pos.chosen[hold][mine]), 4) if mine.any() else None  # fmt: skip
        stage2[name] = result.info
        if players is None:
            joint = result.weights
        else:
            rows.append(result.weights)
    return np.vstack(rows), stage2


def train(
    pos: Positions,
    fit: ImitationFit,
    *,
    command: str,
    improvement: Improvement = NO_IMPROVEMENT,
    jobs: int = 1,
    on_improve: Improving | None = None,
) -> TrainResult:
    """Fit on the training games ``pos`` (``fit``'s games of its teacher), measure on the
    held-out ones (stage 1); then, unless ``improvement.iters`` is 0, improve the weights
    by play (stage 2). Weights and provenance.

    ``fit.target`` (:data:`TARGETS`): ``visits`` fits the search's visit shares where it
    searched, ``chosen`` the chosen action everywhere. ``fit.hidden`` > 0 fits a model
    with that many hidden units (``fit_hidden``); stage 2 tunes linear models only."""
    check_target(fit.target)
    check_hidden(fit.hidden, improvement.iters)
    weights, layer, stage1 = _stage1(pos, fit.target, fit.hidden, fit.seed)
    checks: dict[str, Any] | None = None
    if layer is not None:
        checks = heldout_checks(param_row(weights, layer), fit.seed, fit.check_games)
    stage2: dict[str, Any] | None = None
    if improvement.iters > 0:  # a linear fit (check_hidden): its one row serves both counts
        weights, stage2 = _stage2(pos, weights[0], seed=fit.seed, improvement=improvement,
                                  check_games=fit.check_games, jobs=jobs,
                                  on_improve=on_improve)  # fmt: skip
    settings = {"command": command, "seed": fit.seed, "games": fit.games,
                "teacher": fit.teacher, "target": fit.target, "hidden": fit.hidden}  # fmt: skip
    return TrainResult(weights, provenance(settings, stage1, stage2, checks), layer)


def run_training(
    out: Path,
    fit: ImitationFit,
    *,
    improvement: Improvement = NO_IMPROVEMENT,
    run: TrainingRun = DEFAULT_RUN,
    data: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_improve: Improving | None = None,
) -> TrainResult:
    """Generate ``fit``'s games, fit, improve (stage 2, ``improvement.iters`` > 0) and
    write the model to ``out`` (and the positions to ``data``).

    Refuses up front (StrategyError) an existing ``out`` or ``data`` without
    ``run.force``, so hours of self-play are never thrown away at the end.
    """
    check_output(out, "--out", run.force)
    if data is not None:
        check_output(data, "--data", run.force)
    if fit.games < HOLDOUT_EVERY:
        raise StrategyError(f"--games must be at least {HOLDOUT_EVERY} (one held-out game)")
    check_improve(improvement.iters, improvement.games, fit.check_games)
    check_hidden(fit.hidden, improvement.iters)
    check_teacher(fit.teacher)
    check_target(fit.target)
    t0 = time.monotonic()
    pos = generate(fit.games, fit.seed, fit.teacher, run.jobs, on_progress)
    seconds = round(time.monotonic() - t0, 1)
    if data is not None:
        write_positions(pos, data)
    result = train(pos, fit, command=run.command, improvement=improvement, jobs=run.jobs,
                   on_improve=on_improve)  # fmt: skip
    result.provenance["stage1_play_seconds"] = seconds
    save_model(out, result.weights, result.provenance, force=run.force, hidden=result.hidden)
    return result
