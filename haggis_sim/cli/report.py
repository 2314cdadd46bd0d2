"""``haggis-sim report``: build a report folder from runs, never over a user's files."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import StepProgress, fail, quiet_terminal, run_folder, shown


def report(
    runs: Annotated[list[Path], typer.Argument(help="One or more run folders.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Report folder to write: a new or empty folder (see --force)."
        ),
    ],
    fmt: Annotated[
        str, typer.Option("--format", help="html (page, figures, CSV tables) or png (figures).")
    ] = "html",
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace an earlier report at --out (only if it holds nothing but that "
            "report's own files).",
        ),
    ] = False,
) -> None:
    """Build a report folder (index.html and PNG figures) from one or more runs.

    Refuses an --out that exists and is not an earlier report (a run folder, a folder
    with other files, a file); nothing is written unless the whole report is.
    """
    from ..outputs import check_outside
    from ..report import (
        build_report,
        check_out,
        is_interrupt,
        read_manifests,
        run_notices,
    )

    if fmt not in ("html", "png"):
        raise fail(f"--format must be html or png, got {fmt!r}")

    t0 = time.perf_counter()
    try:
        runs = [run_folder(r) for r in runs]
        manifests = read_manifests(runs)
        check_out(out, force)  # refuse before saying anything else
        check_outside(out, "--out", InputError)  # nor inside an experiment (its own report)
        for note in run_notices(runs, manifests):
            typer.echo(f"notice: {shown(note)}", err=True)
        with StepProgress(not quiet_terminal(), "report") as progress:
            path = build_report(
                runs, out, "html" if fmt == "html" else "png", force=force,
                on_step=lambda what, done, total: progress.step(done, total, what),
            )  # fmt: skip
    except InputError as exc:  # ReportError, DamagedLogError
        raise fail(str(exc)) from None
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not is_interrupt(exc):
            raise
        typer.echo("interrupted: no report written", err=True)
        raise typer.Exit(code=130) from None
    seconds = time.perf_counter() - t0
    target = path / "index.html" if fmt == "html" else path
    typer.echo(f"wrote {target} in {seconds:.1f} s")
