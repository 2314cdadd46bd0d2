"""``haggis-sim show RUN GAME_ID``: one logged game as a self-contained HTML page."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import InputError
from .common import StepProgress, fail, quiet_terminal, run_folder

if TYPE_CHECKING:
    from ..counterfactual.game_view import AltRequest


def show(
    run_dir: Annotated[Path, typer.Argument(help="A run folder made with move logs.")],
    game_id: Annotated[int, typer.Argument(help="The game to show (its game_id).")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="The .html file to write (default: RUN-game-GAME_ID.html in the current folder).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out file.")] = False,
    alternatives: Annotated[
        bool,
        typer.Option(
            "--alternatives",
            help="Score each decision's alternatives with the decision analysis (the acting "
            "seat's information only) and show them in a panel.",
        ),
    ] = False,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples", help="With --alternatives: samples per alternative, at most 100,000 [100]."
        ),
    ] = None,
    seats: Annotated[
        str | None,
        typer.Option(
            "--seats", help="With --alternatives: mcts (default), all, or seat numbers like 0,2."
        ),
    ] = None,
) -> None:
    """Write a step-through viewer of one logged game: a single HTML file, no network.

    Every position is rebuilt through the engine from the run's rules and the game's
    deal, and every logged action is checked against it (as replay does), so all hands
    are shown. Step with the arrow keys (→ ← a step, ↑ ↓ or PgUp PgDn a trick, Home End).
    With --alternatives every decision of the chosen seats is scored by the decision
    analysis when the page is built (seeded: the same page every time).
    """
    from ..analytics.replay import ReplayMismatch
    from ..counterfactual.game_page import render_page
    from ..counterfactual.game_view import build_view
    from ..outputs import write_file_atomically

    if out is None:
        out = Path(f"{Path(os.path.abspath(run_dir)).name}-game-{game_id}.html")
    t0 = time.perf_counter()
    try:
        request = alt_request(alternatives, samples, seats)
        check_out(out, force)
        show_bar = request is not None and not quiet_terminal()
        with StepProgress(show_bar, "scoring decisions") as progress:
            view = build_view(run_folder(run_dir), game_id, request, on_progress=progress.step)
        page = render_page(view)
    except InputError as exc:  # not a run, no move log, unknown game, damaged part, bad --out
        raise fail(str(exc)) from None
    except ReplayMismatch as exc:
        raise fail(f"the log disagrees with the engine, nothing written: {exc}") from None
    except KeyboardInterrupt:
        typer.echo("interrupted: nothing written", err=True)
        raise typer.Exit(code=130) from None
    write_file_atomically(out, page, fail)  # whole or untouched; exit 2 if the folder refuses
    scored = ""
    if request is not None:
        n = view["alternatives"]["decisions"]
        scored = (
            f"; alternatives of {n} decisions scored, built in {time.perf_counter() - t0:.1f} s"
        )
    typer.echo(f"wrote {out} (game {game_id}{scored}: open it in a browser; → ← step, ↑ ↓ trick)")


def alt_request(alternatives: bool, samples: int | None, seats: str | None) -> AltRequest | None:
    """The --alternatives request, or None; InputError for a bad --seats, --samples over
    :data:`~haggis_sim.counterfactual.decisions.MAX_SAMPLES`, or --samples or --seats without
    --alternatives (build_view refuses --samples < 1)."""
    from ..counterfactual.decisions import MAX_SAMPLES
    from ..counterfactual.game_view import AltRequest, parse_seats

    if not alternatives:
        if samples is not None or seats is not None:
            raise InputError("--samples and --seats go with --alternatives")
        return None
    if samples is not None and samples > MAX_SAMPLES:  # memory grows with samples
        raise InputError(f"--samples must be at most {MAX_SAMPLES:,}, got {samples:,}")
    return AltRequest(100 if samples is None else samples, parse_seats(seats or "mcts"))


def check_out(out: Path, force: bool) -> None:
    """InputError unless ``out`` may be written: a new (or, with ``force``) existing .html
    file in an existing folder that is not, nor lies inside, a run or report folder."""
    from ..outputs import check_outside

    if out.suffix != ".html":
        raise InputError(f"--out must end in .html, got {out.name!r}")
    if out.is_dir():
        raise InputError(f"--out {out} is a folder")
    if (out.exists() or out.is_symlink()) and not force:
        raise InputError(f"--out {out} already exists (add --force to replace it)")
    check_outside(out, "--out", InputError)
    if not out.parent.is_dir():
        raise InputError(f"--out {out}: folder {out.parent} does not exist")
