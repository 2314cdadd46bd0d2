"""``haggis-sim show RUN GAME_ID``: one logged game as a self-contained HTML page."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import fail


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
) -> None:
    """Write a step-through viewer of one logged game: a single HTML file, no network.

    Every position is rebuilt through the engine from the run's rules and the game's
    deal, and every logged action is checked against it (as replay does), so all hands
    are shown. Step with the arrow keys (→ ← a step, ↑ ↓ or PgUp PgDn a trick, Home End).
    """
    from ..analytics.game_page import render_page
    from ..analytics.game_view import build_view
    from ..analytics.replay import ReplayMismatch

    if out is None:
        out = Path(f"{Path(os.path.abspath(run_dir)).name}-game-{game_id}.html")
    try:
        check_out(out, force)
        page = render_page(build_view(run_dir, game_id))
    except InputError as exc:  # not a run, no move log, unknown game, damaged part, bad --out
        raise fail(str(exc)) from None
    except ReplayMismatch as exc:
        raise fail(f"the log disagrees with the engine, nothing written: {exc}") from None
    write_atomically(out, page)
    typer.echo(f"wrote {out} (game {game_id}: open it in a browser; → ← step, ↑ ↓ trick)")


def check_out(out: Path, force: bool) -> None:
    """InputError unless ``out`` may be written: a new (or, with ``force``) existing .html
    file in an existing folder that is not, nor lies inside, a run or report folder."""
    from ..report import check_parents

    if out.suffix != ".html":
        raise InputError(f"--out must end in .html, got {out.name!r}")
    if out.is_dir():
        raise InputError(f"--out {out} is a folder")
    if (out.exists() or out.is_symlink()) and not force:
        raise InputError(f"--out {out} already exists (add --force to replace it)")
    check_parents(Path(os.path.abspath(out)), "--out", InputError)
    if not out.parent.is_dir():
        raise InputError(f"--out {out}: folder {out.parent} does not exist")


def write_atomically(out: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``out`` and rename it into place, so
    ``out`` is either the whole page or untouched; exit 2 if the folder refuses."""
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("x", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, out)
    except OSError as exc:
        raise fail(f"cannot write --out {out}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
