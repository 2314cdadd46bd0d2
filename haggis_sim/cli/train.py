"""``haggis-sim train``: self-play a teacher, fit the ``learned`` strategy's model."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from .common import fail, parse_games, quiet_terminal


def _count(text: str, option: str) -> int:
    """A positive game count for ``option`` (parse_games names --games in its errors)."""
    try:
        return parse_games(text)
    except InputError as exc:
        raise InputError(str(exc).replace("--games", option, 1)) from None


def train(
    out: Annotated[Path, typer.Option("--out", help="Model file to write (.npz).")],
    games: Annotated[
        str, typer.Option("--games", "-n", help="Self-play games of the teacher (1e3, 600).")
    ] = "2000",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the games and the sampling.")] = 1,
    teacher: Annotated[
        str,
        typer.Option(
            "--teacher",
            help="Compiled strategy to imitate (default: the default search, whose prior "
            "is the shipped gen2 model; it taught the shipped default model).",
        ),
    ] = "mcts",  # = strategies.learned_train.DEFAULT_TEACHER (a test checks)
    target: Annotated[
        str,
        typer.Option(
            "--target",
            help="What stage 1 imitates: visits (the search's share of root visits per "
            "action, where it searched) or chosen (the chosen action only).",
        ),
    ] = "visits",
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes playing games.")] = 1,
    data: Annotated[
        Path | None, typer.Option("--data", help="Also keep the positions as Parquet here.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out / --data.")] = False,
    improve_iters: Annotated[
        int,
        typer.Option(
            "--improve-iters",
            help="Stage 2 iterations of play (0: imitation only; linear models, --hidden 0).",
        ),
    ] = 0,
    improve_games: Annotated[
        str, typer.Option("--improve-games", help="Stage 2 games per candidate per iteration.")
    ] = "600",
    check_games: Annotated[
        str, typer.Option("--check-games", help="Held-out games vs heuristic at the end.")
    ] = "2000",
    hidden: Annotated[
        int,
        typer.Option(
            "--hidden",
            help="Hidden tanh units of the model (0: linear; stage 2 needs 0). Memory grows "
            "with --games: about 5 GB per 1,000 games with 16 units.",
        ),
    ] = 16,  # = strategies.learned_train.HIDDEN (a test checks)
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
    """
    try:
        n_games = parse_games(games)
        if jobs < 1:
            raise InputError(f"--jobs must be 1 or more, got {jobs}")
        if improve_iters < 0:
            raise InputError(f"--improve-iters must be 0 or more, got {improve_iters}")
        n_improve = _count(improve_games, "--improve-games")
        n_check = _count(check_games, "--check-games")
        if n_check < 2:
            raise InputError(f"--check-games must be 2 or more, got {check_games}")
    except InputError as exc:
        raise fail(str(exc)) from None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from strategies.learned_train import run_training

    command = "haggis-sim train " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else [])
    console = Console(stderr=True)
    data_before = _identity(data)
    try:
        settings = dict(games=n_games, seed=seed, teacher=teacher, target=target, jobs=jobs,
                        force=force,
                        data=data, command=command, improve_iters=improve_iters,
                        improve_games=n_improve, check_games=n_check,
                        hidden=hidden)  # fmt: skip
        if quiet_terminal():
            result = run_training(out, **settings)  # type: ignore[arg-type]
        else:
            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn())  # fmt: skip
            with Progress(*columns, console=console) as progress:
                task = progress.add_task("stage 1: teacher games", total=n_games)
                task2 = progress.add_task("stage 2: play", total=improve_iters + 3, visible=False)

                def on_progress(done: int, total: int) -> None:
                    progress.update(task, completed=done)

                def on_improve(done: int, total: int, msg: str) -> None:
                    progress.update(task2, completed=done, total=total, visible=True,
                                    description=f"stage 2: {msg}")  # fmt: skip

                result = run_training(out, **settings, on_progress=on_progress,  # type: ignore[arg-type]
                                      on_improve=on_improve)  # fmt: skip
    except InputError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:  # the model is written whole at the end, or not
        if data is not None and _identity(data) != data_before:  # after stage 1's games
            typer.echo(
                f"interrupted: {out} not written (it is as it was); the positions are "
                f"complete in {data}",
                err=True,
            )
        else:
            typer.echo(f"interrupted: nothing written ({out} is as it was)", err=True)
        raise typer.Exit(code=130) from None
    p = result.provenance
    typer.echo(
        f"wrote {out}: {p['train_decisions']:,} training and {p['holdout_decisions']:,} "
        f"held-out decisions; held-out top-1 vs {p['teacher']}: "
        f"{p['holdout_top1_vs_teacher']:.1%} (heuristic: {p['heuristic_top1_vs_teacher']:.1%})"
    )
    for players, h in (p.get("heldout_vs_heuristic") or {}).items():  # a hidden layer's
        typer.echo(_check_line(players, h))
    for players, s2 in (p.get("stage2") or {}).items():  # both counts, then each
        h = s2["heldout_vs_heuristic"]
        label = "both player counts" if players == "both" else f"{players} players"
        typer.echo(
            f"stage 2, {label}: {s2['iters']} iterations of "
            f"{s2['games_per_candidate']} games per candidate ({s2['accepted_steps']} steps "
            f"accepted, start: {s2['start_chosen']}, kept: {s2['returned']}) in "
            f"{s2['seconds']:.0f} s; {_check_line(players, h)} (before stage 2: "
            f"{h['start_win_rate']:.1%})"
        )


def _identity(path: Path | None) -> tuple[int, int, int] | None:
    """A file's (inode, size, mtime in ns), None when absent: tells whether a run wrote it
    (it is replaced atomically, so a new file means a new inode)."""
    try:
        st = path.stat() if path is not None else None
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns) if st else None


def _check_line(players: str, check: dict[str, Any]) -> str:
    """A held-out check against the heuristic (two of them with 3 players), in words."""
    lo, hi = check["wilson95"]
    against = "two heuristics" if players == "3" else "heuristic"
    return (
        f"held-out vs {against} ({check['games']} games, {check['rules']}): "
        f"{check['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]"
    )
