"""The ``haggis-sim report`` command (registered on :data:`haggis_sim.cli.app`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from .cli import app, fail


@app.command()
def report(
    runs: Annotated[list[Path], typer.Argument(help="One or more run folders.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder to write.")],
    fmt: Annotated[
        str, typer.Option("--format", help="html (page, figures, CSV tables) or png (figures).")
    ] = "html",
) -> None:
    """Build a report folder (index.html and PNG figures) from one or more runs."""
    from .analytics.report import ReportError, build_report, read_manifests, run_notices

    if fmt not in ("html", "png"):
        raise fail(f"--format must be html or png, got {fmt!r}")
    t0 = time.perf_counter()
    try:
        notices = run_notices(runs, read_manifests(runs))
        for note in notices:
            typer.echo(f"notice: {note}", err=True)
        path = build_report(runs, out, "html" if fmt == "html" else "png")
    except ReportError as exc:
        raise fail(str(exc)) from None
    seconds = time.perf_counter() - t0
    target = path / "index.html" if fmt == "html" else path
    typer.echo(f"wrote {target} in {seconds:.1f} s")
