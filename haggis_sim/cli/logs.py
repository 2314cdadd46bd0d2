"""``haggis-sim query`` and ``replay``: read a run's logs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import fail, run_folder


def query(
    run_dir: Annotated[Path, typer.Argument(help="A run folder.")],
    sql: Annotated[
        str, typer.Argument(help="One read-only SQL statement over the views games, rounds, moves.")
    ],
    to: Annotated[
        Path | None, typer.Option("--to", help="Write the result to a .csv or .parquet file.")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the --to file if it already exists.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            help="Stop the statement after this many seconds (more than 0, at most 86,400); "
            "exit status 2.",
        ),
    ] = 600.0,
) -> None:
    """Run one read-only DuckDB SQL statement over a run's Parquet logs.

    The statement can read the run's games, rounds and moves and nothing else: no other
    file, no network, no extension, and it cannot change anything (docs/log-schema.md).
    It is stopped past --timeout (status 2), on Ctrl-C (130) or SIGTERM (143), leaving
    neither a partial --to nor DuckDB's spill folder.
    """
    import duckdb

    from ..logs.manifest import load_manifest
    from ..logs.query import Terminated, run_query, sigterm_stops

    run_dir = run_folder(run_dir)
    if not (run_dir / "manifest.json").exists():
        raise fail(f"{run_dir} is not a haggis-sim run folder (no manifest.json)")
    if not sql.strip():
        raise fail("the SQL query is empty")
    try:
        load_manifest(run_dir)  # a damaged manifest is not a run to query
        with sigterm_stops():
            shown = run_query(run_dir, sql, to, force=force, timeout=timeout)
    except (duckdb.Error, InputError, OSError) as exc:  # SQL errors, QueryError, bad logs
        raise fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM: cleaned up by run_query
        word, status = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
        where = f"; nothing was written to {to}" if to is not None else ""
        typer.echo(f"{word}: the query was stopped{where}", err=True)
        raise typer.Exit(code=status) from None
    if to is not None:
        typer.echo(f"wrote {to}")
    else:
        typer.echo(shown, nl=False)


def replay(
    run_dir: Annotated[Path, typer.Argument(help="A run folder.")],
    game_id: Annotated[int, typer.Argument(help="The game to replay.")],
) -> None:
    """Re-play a logged game through the engine and print it trick by trick.

    Fails (exit status 1) at the first point where the log and the engine disagree.
    """
    from ..analytics.replay import ReplayMismatch
    from ..analytics.replay import replay as do_replay

    try:
        for line in do_replay(run_folder(run_dir), game_id):
            typer.echo(line)
    except InputError as exc:
        raise fail(str(exc)) from None
    except ReplayMismatch as exc:
        typer.echo(f"REPLAY MISMATCH: {exc}", err=True)
        raise typer.Exit(code=1) from None
