"""``haggis-sim train``: self-play a teacher, fit the ``learned`` strategy's model."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import fail, parse_games, quiet_terminal


def train(
    out: Annotated[Path, typer.Option("--out", help="Model file to write (.npz).")],
    games: Annotated[
        str, typer.Option("--games", "-n", help="Self-play games of the teacher (1e3, 600).")
    ] = "600",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the games and the sampling.")] = 1,
    teacher: Annotated[
        str, typer.Option("--teacher", help="Compiled strategy to imitate, e.g. mcts:iters=200.")
    ] = "mcts",
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes playing games.")] = 1,
    data: Annotated[
        Path | None, typer.Option("--data", help="Also keep the positions as Parquet here.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out / --data.")] = False,
) -> None:
    """Train a learned model by imitating a teacher's choices in self-play.

    Games cycle through every preset and player count and through teacher vs teacher,
    vs heuristic and vs greedy; one game in five is held out. Prints the held-out top-1
    accuracy against the teacher's choice, next to the heuristic's on the same decisions.
    """
    try:
        n_games = parse_games(games)
        if jobs < 1:
            raise InputError(f"--jobs must be 1 or more, got {jobs}")
    except InputError as exc:
        raise fail(str(exc)) from None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from strategies.learned_train import run_training

    command = "haggis-sim train " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else [])
    console = Console(stderr=True)
    try:
        if quiet_terminal():
            result = run_training(out, games=n_games, seed=seed, teacher=teacher, jobs=jobs,
                                  force=force, data=data, command=command)  # fmt: skip
        else:
            columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            with Progress(*columns, console=console) as progress:
                task = progress.add_task("games", total=n_games)

                def on_progress(done: int, total: int) -> None:
                    progress.update(task, completed=done)

                result = run_training(out, games=n_games, seed=seed, teacher=teacher,
                                      jobs=jobs, force=force, data=data, command=command,
                                      on_progress=on_progress)  # fmt: skip
    except InputError as exc:
        raise fail(str(exc)) from None
    p = result.provenance
    typer.echo(
        f"wrote {out}: {p['train_decisions']:,} training and {p['holdout_decisions']:,} "
        f"held-out decisions; held-out top-1 vs {p['teacher']}: "
        f"{p['holdout_top1_vs_teacher']:.1%} (heuristic: {p['heuristic_top1_vs_teacher']:.1%})"
    )
