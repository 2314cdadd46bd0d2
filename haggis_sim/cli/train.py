"""``haggis-sim train``: self-play a teacher, fit the ``learned`` strategy's model."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import InputError
from .common import fail, parse_games, quiet_terminal

if TYPE_CHECKING:
    from ..training.settings import ImitationFit, TrainingRun

#: the most self-play games train fits: the positions' memory grows about 5 GB per 1,000
#: games (the 2,000-game fit peaked at about 9 GB), so 4,000 stay within a 24 GB machine
MAX_TRAIN_GAMES = 4_000
MAX_HIDDEN = 256  # = haggis_sim.training.train.MAX_HIDDEN (a test checks)

Out = Annotated[Path, typer.Option("--out", help="Model file to write (.npz).")]
Games = Annotated[
    str,
    typer.Option("--games", "-n", help="Self-play games of the teacher (1e3, 600; at most 4,000)."),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the games and the sampling.")]
Teacher = Annotated[
    str,
    typer.Option(
        "--teacher",
        help="Compiled strategy to imitate (default: the rollout search, rollouts with the "
        "shipped gen2 model as prior; it taught the shipped gen3 model).",
    ),
]
Target = Annotated[
    str,
    typer.Option(
        "--target",
        help="What stage 1 imitates: visits (the search's share of root visits per "
        "action, where it searched) or chosen (the chosen action only).",
    ),
]
Jobs = Annotated[int, typer.Option("--jobs", "-j", help="Processes playing games.")]
Data = Annotated[
    Path | None, typer.Option("--data", help="Also keep the positions as Parquet here.")
]
Force = Annotated[bool, typer.Option("--force", help="Overwrite --out / --data.")]
ImproveIters = Annotated[
    int,
    typer.Option(
        "--improve-iters",
        help="Stage 2 iterations of play (0: imitation only; linear models, --hidden 0).",
    ),
]
ImproveGames = Annotated[
    str, typer.Option("--improve-games", help="Stage 2 games per candidate per iteration.")
]
CheckGames = Annotated[
    str, typer.Option("--check-games", help="Held-out games vs heuristic at the end.")
]
HiddenUnits = Annotated[
    int,
    typer.Option(
        "--hidden",
        help="Hidden tanh units of the model (0 to 256; 0: linear; stage 2 needs 0). Memory grows "
        "with --games: about 5 GB per 1,000 games with 16 units.",
    ),
]
Generations = Annotated[
    int,
    typer.Option(
        "--generations",
        help="Generations of the search's prior: each imitates the current champion search "
        "and replaces it (as its prior) only when its gate shows it stronger; models go "
        "to OUT.genK.npz and OUT becomes the last promoted one (needs --gate-games). 1: "
        "one model, OUT.",
    ),
]
GateGames = Annotated[
    str,
    typer.Option(
        "--gate-games",
        help="With --generations: games of the champion search with the new model as its "
        "prior against the champion, with 2 players and with 3 (one against two).",
    ),
]

ValueUnits = Annotated[
    int,
    typer.Option(
        "--value-units",
        help="With --generations: joint generations. Each also fits a leaf value with this "
        "many hidden units (1 to 64) on the same games (every seat's decisions) and its "
        "gate plays the champion's settings with both new models (value=net); the value "
        "goes beside each generation's file and beside OUT (OUT.value.npz). 0: the prior only.",
    ),
]
MAX_VALUE_UNITS = 64  # = haggis_sim.training.value_train.MAX_VALUE_UNITS (a test checks)


def parse_count(text: str, option: str) -> int:
    """A positive game count for ``option`` (parse_games names --games in its errors)."""
    try:
        return parse_games(text)
    except InputError as exc:
        raise InputError(str(exc).replace("--games", option, 1)) from None


def _counts(
    games: str, jobs: int, improve_iters: int, improve_games: str, check_games: str, hidden: int
) -> dict[str, Any]:
    """The command's counts checked and parsed (InputError naming the option), before any
    work: --games at most :data:`MAX_TRAIN_GAMES`, --hidden at most :data:`MAX_HIDDEN`."""
    n_games = parse_games(games)
    if n_games > MAX_TRAIN_GAMES:
        raise InputError(
            f"--games must be at most {MAX_TRAIN_GAMES:,} (the fit's memory grows with the "
            f"games: about 5 GB per 1,000), got {n_games:,}"
        )
    if not 0 <= hidden <= MAX_HIDDEN:
        raise InputError(f"--hidden must be 0 to {MAX_HIDDEN}, got {hidden}")
    if jobs < 1:
        raise InputError(f"--jobs must be 1 or more, got {jobs}")
    if improve_iters < 0:
        raise InputError(f"--improve-iters must be 0 or more, got {improve_iters}")
    n_improve = parse_count(improve_games, "--improve-games")
    n_check = parse_count(check_games, "--check-games")
    if n_check < 2:
        raise InputError(f"--check-games must be 2 or more, got {check_games}")
    return {"games": n_games, "jobs": jobs, "improve_iters": improve_iters,
            "improve_games": n_improve, "check_games": n_check}  # fmt: skip


def train(
    out: Out,
    games: Games = "2000",
    seed: Seed = 1,
    teacher: Teacher = "mcts:iters=64,value=game,model=gen2",  # = DEFAULT_TEACHER (tested)
    target: Target = "visits",
    jobs: Jobs = 1,
    data: Data = None,
    force: Force = False,
    improve_iters: ImproveIters = 0,
    improve_games: ImproveGames = "600",
    check_games: CheckGames = "2000",
    hidden: HiddenUnits = 16,  # = haggis_sim.training.train.HIDDEN (a test checks)
    generations: Generations = 1,
    gate_games: GateGames = "0",
    value_units: ValueUnits = 0,
) -> None:
    """Train a learned model: imitate a teacher (by default with a 16-unit hidden layer);
    a linear model (--hidden 0) can then be improved by play.

    Stage 1: games cycle through every preset and player count and through teacher vs
    teacher, vs heuristic and vs greedy; one game in five is held out; the fit imitates the
    search's share of visits per action (--target visits) or its chosen action (chosen);
    prints the held-out top-1 accuracy against the teacher's choice, next to the
    heuristic's. With --hidden H the model adds H tanh units to the linear score and the
    fit is the whole model; then its win rates against the default heuristic on fresh
    deals (2 players; 3 players, one against two). Stage 2 (linear models): an
    evolution strategy over the weights, scored by whole games against a pool of
    heuristic variants, greedy and itself, on every rule set, then refined (half the
    iterations) on 2-player and on 3-player games alone: the model keeps one row of
    weights for each; after each, the win rate against the default heuristic on fresh
    deals (with 3 players: one model against two).

    With --generations K the search's prior is learned in generations (docs:
    "Generations of the prior"); an interrupted chain resumes from the generation files
    it wrote; when no generation is promoted, OUT is not written and the exit status is 1.
    With --value-units U each generation also learns the search's leaf value from the
    same games and is gated with both (docs: "Joint generations").
    """
    try:
        counts = _counts(games, jobs, improve_iters, improve_games, check_games, hidden)
        n_gate = 0 if gate_games.strip() == "0" else parse_count(gate_games, "--gate-games")
        _check_generations(generations, n_gate, data, improve_iters)
        if not 0 <= value_units <= MAX_VALUE_UNITS:
            raise InputError(f"--value-units must be 0 to {MAX_VALUE_UNITS}, got {value_units}")
        if value_units and generations == 1:
            raise InputError("--value-units needs --generations 2 or more")
    except InputError as exc:
        raise fail(str(exc)) from None
    from ..training.settings import ImitationFit, Improvement, TrainingRun

    fit = ImitationFit(games=counts["games"], seed=seed, teacher=teacher, target=target,
                       hidden=hidden, check_games=counts["check_games"])  # fmt: skip
    command = "haggis-sim train " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else [])
    run = TrainingRun(jobs=counts["jobs"], force=force, command=command)
    if generations > 1:
        _run_chain(out, fit, run, generations=generations, gate_games=n_gate,
                   value_units=value_units)  # fmt: skip
        return
    from ..training.console import (
        file_identity,
        interrupted_message,
        run_with_progress,
        summary_lines,
    )

    data_before = file_identity(data)
    improvement = Improvement(iters=counts["improve_iters"], games=counts["improve_games"])
    try:
        result = run_with_progress(out, fit, improvement=improvement, run=run, data=data,
                                   quiet=quiet_terminal())  # fmt: skip
    except InputError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:  # the model is written whole at the end, or not
        typer.echo(interrupted_message(out, data, data_before), err=True)
        raise typer.Exit(code=130) from None
    for line in summary_lines(out, result.provenance):
        typer.echo(line)


def _check_generations(generations: int, gate_games: int, data: Path | None, improve: int) -> None:
    """InputError for --generations settings ``train`` cannot run."""
    if generations < 1:
        raise InputError(f"--generations must be 1 or more, got {generations}")
    if generations == 1 and gate_games:
        raise InputError("--gate-games needs --generations 2 or more")
    if generations > 1 and data is not None:
        raise InputError("--data keeps one run's positions: it cannot be used with --generations")
    if generations > 1 and improve:
        raise InputError("--generations runs stage 1 only: use --improve-iters 0 with it")


def _run_chain(
    out: Path,
    fit: ImitationFit,
    run: TrainingRun,
    *,
    generations: int,
    gate_games: int,
    value_units: int,
) -> None:
    """``train --generations``: :func:`~haggis_sim.training.prior_chain.train_prior_chain`
    on a terminal."""
    from ..training.chain import ChainHooks
    from ..training.prior_chain import train_prior_chain
    from .generations import run_chain_command

    run_chain_command(
        out,
        "the new prior and value" if value_units else "the new prior",
        lambda report, each: train_prior_chain(
            out,
            fit,
            generations=generations,
            gate_games=gate_games,
            value_units=value_units,
            run=run,
            hooks=ChainHooks(on_progress=report, on_generation=each),
        ),
    )
