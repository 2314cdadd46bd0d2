"""``haggis-sim train-value``: self-play a search, fit the value model ``mcts:value=net``
scores its leaves with, and gate it head to head against the search that taught it."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import fail, parse_games
from .train import Jobs, parse_count

Out = Annotated[Path, typer.Option("--out", help="Value model file to write (.npz).")]
Games = Annotated[
    str, typer.Option("--games", "-n", help="Self-play games of the teacher (1e3, 6000).")
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the games and the fit.")]
Teacher = Annotated[
    str,
    typer.Option(
        "--teacher",
        help="The mcts spec whose self-play the value learns from, and which the new value "
        "is gated against (default: the rollout search, greedy rollouts).",
    ),
]
Hidden = Annotated[int, typer.Option("--hidden", help="Hidden tanh units (1 to 64).")]
GateGames = Annotated[
    str,
    typer.Option(
        "--gate-games",
        help="Games of the teacher with the new value against the teacher, with 2 players "
        "and with 3 (one against two); 0: no gate.",
    ),
]
Generations = Annotated[
    int,
    typer.Option(
        "--generations",
        help="Generations of self-play: each learns from the current champion's self-play "
        "and replaces it only when its gate shows it stronger; models go to OUT.genK.npz "
        "and OUT becomes the last promoted one (needs --gate-games). 1: one model, OUT.",
    ),
]
Window = Annotated[
    int | None,
    typer.Option(
        "--window",
        help="With --generations: each fit uses the self-play of this many latest "
        "generations (default 2).",
    ),
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Overwrite --out (and, with --generations, generation files of other "
        "settings; a generation of the same settings is kept and resumed from).",
    ),
]


def _gate_count(text: str) -> int:
    """--gate-games as a count, 0 included (InputError naming the option)."""
    if text.strip() in ("0", "0_0", "0e0"):
        return 0
    return parse_count(text, "--gate-games")


def train_value(
    out: Out,
    games: Games = "6000",
    seed: Seed = 1,
    teacher: Teacher = "mcts:iters=64,value=game,model=gen2",  # = DEFAULT_VALUE_TEACHER
    hidden: Hidden = 16,
    gate_games: GateGames = "0",
    generations: Generations = 1,
    window: Window = None,
    jobs: Jobs = 1,
    force: Force = False,
) -> None:
    """Train a value model for mcts:value=net: the teacher plays itself on every preset
    and player count; at each decision the acting seat's features (its own observation)
    are kept with its reward at the end of the round (the game value of the totals after
    it); a network with one hidden layer per player count is fitted to them (one game in
    five held out: its error is printed next to the error of guessing the mean). With
    --gate-games N, the teacher with value=net and the new model then plays N games
    against the teacher with 2 players and N with 3 (one against two), and the win rates
    with their 95% intervals are printed and kept in the model's provenance.

    With --generations K the value is learned in generations (docs: "Generations of the
    value"); an interrupted chain resumes from the generation files it wrote; when no
    generation is promoted, OUT is not written and the exit status is 1.
    """
    try:
        n_games = parse_games(games)
        n_gate = _gate_count(gate_games)
        if jobs < 1:
            raise InputError(f"--jobs must be 1 or more, got {jobs}")
        if generations < 1:
            raise InputError(f"--generations must be 1 or more, got {generations}")
        if window is not None and generations == 1:
            raise InputError("--window needs --generations 2 or more")
    except InputError as exc:
        raise fail(str(exc)) from None
    from strategies import StrategyError

    from ..training.chain import ChainHooks
    from ..training.settings import TrainingRun, ValueFit
    from ..training.value_chain import DEFAULT_WINDOW, train_value_chain
    from ..training.value_train import train_value as run_value
    from .generations import gate_line, run_chain_command, stage_bars

    command = "haggis-sim train-value " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else [])
    fit = ValueFit(games=n_games, seed=seed, teacher=teacher, units=hidden, gate_games=n_gate)
    run = TrainingRun(jobs=jobs, force=force, command=command)
    if generations > 1:
        run_chain_command(
            out,
            "value=net",
            lambda report, each: train_value_chain(
                out,
                fit,
                generations=generations,
                window=DEFAULT_WINDOW if window is None else window,
                run=run,
                hooks=ChainHooks(on_progress=report, on_generation=each),
            ),
        )
        return
    progress, on_progress = stage_bars()
    try:
        with progress:
            result = run_value(out, fit, run=run, on_progress=on_progress)
    except StrategyError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo(f"interrupted: {out} is as it was (it is written at the end)", err=True)
        raise typer.Exit(code=130) from None
    fit = result.provenance["fit"]
    typer.echo(f"wrote {out}: {n_games:,} self-play games of {result.provenance['teacher']}")
    for n in (2, 3):
        if f"holdout_mse_{n}p" in fit:
            typer.echo(
                f"{n} players: held-out mean squared error {fit[f'holdout_mse_{n}p']:.4f} "
                f"(the mean's: {fit[f'holdout_mse_mean_{n}p']:.4f}; "
                f"{fit[f'holdout_rows_{n}p']:,} decisions)"
            )
    for g in result.gates:
        typer.echo(gate_line(g, "value=net"))
