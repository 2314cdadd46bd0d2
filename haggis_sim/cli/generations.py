"""What ``haggis-sim train --generations`` and ``haggis-sim train-value --generations``
show on a terminal: their progress bars, a gate's line, each generation's lines, and
how a chain ends (written, nothing promoted, refused, interrupted)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .common import fail, quiet_terminal

if TYPE_CHECKING:
    from rich.progress import Progress

    from ..training.chain import ChainResult, Generation
    from ..training.gate import MatchResult

    Report = Callable[[str, int, int], None]


def gate_line(g: MatchResult, what: str) -> str:
    """One gate's result for people (``what`` names the candidate): wins, rate,
    interval, chance and the verdict."""
    lo, hi = g.interval
    verdict = "stronger" if g.promoted else "not shown stronger"
    return (
        f"gate, {g.players} players: {what} won {g.wins:,} of {g.games:,} "
        f"({g.win_rate:.1%} [{lo:.1%}, {hi:.1%}], chance {g.chance:.1%}): {verdict}"
    )


def stage_bars() -> tuple[Progress, Report]:
    """Progress bars on stderr, one per named stage (none off a terminal or with CI set),
    and the ``(stage, done, total)`` callback that drives them."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    progress = Progress(*columns, console=Console(stderr=True), disable=quiet_terminal())
    tasks: dict[str, TaskID] = {}

    def on_progress(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = progress.add_task(stage, total=total)
        progress.update(tasks[stage], completed=done, total=total)

    return progress, on_progress


def run_chain_command(
    out: Path, what: str, run: Callable[[Report, Callable[[Generation], None]], ChainResult]
) -> None:
    """Run a chain (``run(on_progress, on_generation)``) with progress bars and a few
    lines per generation; ``what`` names a generation's candidate in its gate lines.
    Exit status 2 for a refused setting (one line), 130 on Ctrl-C, 1 when no generation
    was promoted (OUT not written)."""
    from strategies import StrategyError

    progress, on_progress = stage_bars()

    def on_generation(gen: Generation) -> None:
        made = "resumed from its file" if gen.resumed else "new"
        progress.console.print(f"generation {gen.number} ({made}): {gen.path}", soft_wrap=True)
        for g in gen.gates:
            progress.console.print("  " + gate_line(g, what), soft_wrap=True)
        progress.console.print("  promoted: the new champion" if gen.promoted else "  not promoted")

    try:
        with progress:
            chain = run(on_progress, on_generation)
    except StrategyError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo(
            f"interrupted: {out} is as it was; the finished generations' files are kept "
            "and the same command resumes from them",
            err=True,
        )
        raise typer.Exit(code=130) from None
    if chain.written is None:
        typer.echo(
            f"no generation was shown stronger than {chain.champion}: {out} not written",
            err=True,
        )
        raise typer.Exit(code=1)
    typer.echo(f"wrote {out}: generation {chain.champion_number}, the champion {chain.champion}")
