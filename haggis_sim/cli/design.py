"""The ``haggis-sim design`` command (registered on the app)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import fail


def design(
    file: Annotated[
        Path, typer.Argument(help="A design file (TOML), e.g. experiments/x.design.toml.")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Design folder (default runs/designs/<name>)."),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (0: all cores).")] = 0,
) -> None:
    """Search rule knobs for the variant that meets a designer's targets, then confirm it.

    Optuna proposes knob settings; each is played on the same deals and stopped early when
    it cannot reach the front. The best candidates are re-played on fresh deals beside
    the base rules (an ordinary experiment in <out>/confirm), and only those games are
    reported: the answer in words, then each candidate's figures with 95% intervals and
    whether it holds up. Run the same command again to resume.
    """
    try:
        from ..design import load_design
        from ..design.run import run_design
    except ModuleNotFoundError as exc:
        if exc.name != "optuna":
            raise
        raise fail("haggis-sim design needs Optuna: pip install 'haggis-sim[design]'") from None
    from rich.console import Console

    from ..experiment import ExperimentError
    from ..report import is_interrupt
    from ..runner.chunk import StrategyActionError

    if jobs < 0:
        raise fail(f"--jobs must be 0 (all cores) or more, got {jobs}")
    try:
        spec = load_design(file)
    except ExperimentError as exc:
        raise fail(str(exc)) from None
    out_dir = out if out is not None else Path("runs") / "designs" / spec.name
    err = Console(stderr=True)
    t0 = time.perf_counter()
    try:
        result = run_design(
            spec, out_dir, jobs=jobs, log=lambda m: err.print(m, markup=False, soft_wrap=True)
        )
    except InputError as exc:
        raise fail(str(exc)) from None
    except StrategyActionError as exc:
        typer.echo(f"error: {exc}; finished runs and chunks are kept", err=True)
        raise typer.Exit(code=1) from None
    except OSError as exc:
        raise fail(f"cannot write {exc.filename or out_dir}: {exc.strerror or exc}") from None
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not is_interrupt(exc):
            raise
        typer.echo(f"\ninterrupted: run the same command again to resume ({out_dir})", err=True)
        raise typer.Exit(code=130) from None
    typer.echo(result["headline"])
    typer.echo(f"{time.perf_counter() - t0:,.1f} s; results: {out_dir}/design.md, design.json")
