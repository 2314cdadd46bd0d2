"""``haggis-sim study KIND RUN``: counterfactual bomb or bet studies over a logged run."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import InputError
from .common import StepProgress, fail, quiet_terminal

if TYPE_CHECKING:
    import polars as pl

    from ..counterfactual.decisions import Study

KINDS = ("bombs", "bets")  # as haggis_sim.counterfactual.decisions.KINDS, without importing it
# the search and sampling options (defaults: StudySettings's, the rollout mcts search)
MinPerBin = Annotated[
    int,
    typer.Option(
        "--min-per-bin",
        help="Positions each cell of the deciding factors' crossing should hold: "
        "sampling goes on through the run until they do or --positions are scored; a "
        "smaller bin gives no advice (0: uniform sampling).",
    ),
]
Value = Annotated[
    str,
    typer.Option(
        "--value",
        help="The search's reward: game (a rollout to the end of the round valued by the "
        "chance of winning the game) or round (the round's squashed score margin).",
    ),
]
Prior = Annotated[
    str,
    typer.Option(
        "--prior",
        help="How a bomb study chooses the best bomb and the best other play: learned (the "
        "rollout mcts's root search with the learned prior) or none (equal samples each); "
        "bet studies score every bet and have nothing to choose.",
    ),
]


def study(
    kind: Annotated[str, typer.Argument(help="What to study: bombs or bets.")],
    run_dir: Annotated[Path, typer.Argument(help="A run folder made with move logs.")],
    positions: Annotated[
        int,
        typer.Option(
            "--positions", help="The most positions to score (the cap; at most 1,000,000)."
        ),
    ] = 600,
    min_per_bin: MinPerBin = 30,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            help="Search iterations per alternative (choose, then measure; at most 100,000).",
        ),
    ] = 100,
    seed: Annotated[
        int, typer.Option("--seed", help="Picks positions and analysis deals (0 to 2**64 - 1).")
    ] = 0,
    value: Value = "game",
    prior: Prior = "learned",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the per-position table to a .parquet or .csv file."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out file.")] = False,
) -> None:
    """What a bomb, or a bet, would have been worth at positions the run's players faced.

    Samples bomb opportunities (following a trick, holding a bomb that beats it) or bet
    opportunities (a seat's first turn of a round) from the logged games, stratified so
    each cell of the deciding factors holds --min-per-bin positions where the run has
    them, rebuilds each, and scores the alternatives from the acting seat's information
    set with the rollout mcts search (value=game, the gen2 learned prior, 64 iterations;
    ISMCTS, forced root children). Prints the table by situation with 95%
    intervals and guidance lines where an interval excludes 0 and the bin holds enough
    positions.
    """
    if kind not in KINDS:
        raise fail(f"unknown study {kind!r}; choose one of {', '.join(KINDS)}")
    from ..counterfactual.decisions import StudySettings, load_run, run_study
    from ..outputs import write_file_atomically

    settings = StudySettings(positions, samples, seed, value=value, prior=prior,
                             min_per_bin=min_per_bin)  # fmt: skip
    try:
        settings.check()
        load_run(run_dir)
    except InputError as exc:
        raise fail(str(exc)) from None
    tmp = _reserve(out, force, run_dir) if out is not None else None
    t0 = time.perf_counter()
    try:
        with StepProgress(not quiet_terminal(), "scoring positions") as progress:
            result = run_study(kind, run_dir, settings, progress=progress.step)
        if out is not None and tmp is not None:
            write_file_atomically(out, _writer(result.positions, out), fail, reserved=tmp)
    except InputError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo("interrupted: nothing written", err=True)
        raise typer.Exit(code=130) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
    _show(result, time.perf_counter() - t0)
    if out is not None:
        typer.echo(f"wrote {out} ({result.positions.height} rows)")


def _reserve(out: Path, force: bool, run_dir: Path) -> Path:
    """Check ``--out`` before any work and reserve its temporary file; exit 2 if refused."""
    from ..outputs import check_outside, reserve_file

    if out.suffix not in (".parquet", ".csv"):
        raise fail(f"--out must end in .parquet or .csv, got {out.name!r}")
    if out.is_dir():
        raise fail(f"--out {out} is a folder")
    if out.exists() and not force:
        raise fail(f"--out {out} already exists (add --force to replace it)")
    if not out.parent.is_dir():
        raise fail(f"--out {out}: folder {out.parent} does not exist")
    if Path(os.path.abspath(run_dir)) in Path(os.path.abspath(out)).parents:
        raise fail(f"--out {out} is inside the run folder; write it elsewhere")
    check_outside(out, "--out", fail)  # nor inside another run, a report or an experiment
    return reserve_file(out, fail)


def _writer(frame: pl.DataFrame, out: Path) -> Callable[[Path], None]:
    """Writes ``frame`` in ``out``'s format (by its suffix) at the path it is given."""

    def write(path: Path) -> None:
        if out.suffix == ".parquet":
            frame.write_parquet(path, compression="zstd")
        else:
            frame.write_csv(path)

    return write


def _show(result: Study, seconds: float) -> None:
    """Print the table by situation, the guidance lines and whose positions they are."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 140)
    what = "bomb − best non-bomb play (pass included)" if result.kind == "bombs" else "bet − no bet"
    table = Table(title=f"{what}: mean over positions, 95% interval", title_justify="left")
    bets = result.kind == "bets"
    heads = ["situation", "bin", *(["settlement", "bet"] if bets else []), "positions",
             "value diff", "margin diff (points)", "alternative better"]  # fmt: skip
    for h in heads:
        table.add_column(h, justify="left" if h in ("situation", "bin", "settlement") else "right")
    for r in result.table.iter_rows(named=True):
        table.add_row(
            r["factor"],
            r["bin"],
            *([r["settlement"], str(r["bet"])] if bets else []),
            str(r["positions"]),
            _ci(r["value_diff"], r["value_low"], r["value_high"], "{:+.3f}"),
            _ci(r["margin_diff"], r["margin_low"], r["margin_high"], "{:+.1f}"),
            _ci(r["better_share"] * 100, r["better_low"] * 100, r["better_high"] * 100, "{:.0f}%"),
        )
    console.print(table)
    console.print(
        "Guidance (a claim only where the interval excludes 0 and the bin holds "
        f"{max(2, result.settings.min_per_bin)} positions):",
        markup=False,
    )
    for line in result.guidance:
        console.print(f"  {line}", markup=False, highlight=False)
    console.print(f"Population: {result.population}", markup=False, highlight=False)
    console.print(f"{seconds:,.1f} s", markup=False, highlight=False)


def _ci(mean: float, low: float, high: float, fmt: str) -> str:
    if low != low:  # NaN: one position, no interval
        return fmt.format(mean)
    return f"{fmt.format(mean)} [{fmt.format(low)}, {fmt.format(high)}]"
