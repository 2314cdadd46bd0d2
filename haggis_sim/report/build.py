"""The report's data: the runs' manifests, notices about them, and the section tables.

Every number comes from a DuckDB aggregation in :mod:`haggis_sim.analytics.sections`;
this module runs the sections over the runs, reporting each step for a progress display,
and gives a Ctrl-C that DuckDB turned into an error back as a KeyboardInterrupt.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from ..analytics import sections as S
from ..logs import ledger
from ..logs.manifest import MANIFEST
from .output import ReportError


def read_manifests(run_dirs: list[Path]) -> list[dict[str, Any]]:
    """Each run's manifest; ReportError naming the first folder that is not a run."""
    out = []
    for d in run_dirs:
        if not d.exists():
            raise ReportError(f"run folder {d} does not exist")
        if not d.is_dir() or not (d / MANIFEST).exists():
            raise ReportError(f"{d} is not a haggis-sim run folder (no {MANIFEST})")
        try:
            out.append(json.loads((d / MANIFEST).read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise ReportError(f"{d / MANIFEST} cannot be read: {exc}") from None
    return out


def run_notices(run_dirs: list[Path], manifests: list[dict[str, Any]]) -> list[str]:
    """Plain-language warnings: unfinished runs and runs without logged games."""
    notes = []
    for d, m in zip(run_dirs, manifests, strict=True):
        if ledger.has_ledger(d):
            logged = ledger.games_logged(d)
        else:  # a run of an older version: count the games in its parts
            logged = sum(
                pl.scan_parquet(p).select(pl.len()).collect().item()
                for p in ledger.table_files(d, "games")
            )
        total = int(m.get("games", 0) or 0)
        if m.get("status") != "complete":
            notes.append(
                f"Run {d} is unfinished (status {m.get('status')!r}): {logged:,} of {total:,} "
                "games are logged; the report covers only those games."
            )
        if logged == 0:
            notes.append(f"Run {d} has no games logged yet: nothing of it is in this report.")
    return notes


Step = Callable[[str, int, int], None]
"""Progress of a report build: ``(what is being done, steps done, steps in all)``."""
STEPS = len(S.SECTIONS) + 2  # the sections' queries, the figures, the page and tables


def build_tables(
    run_dirs: list[Path],
    manifests: list[dict[str, Any]] | None = None,
    on_step: Step | None = None,
) -> tuple[dict[str, pl.DataFrame], list[int]]:
    """Every section's tables over the runs, and the indices of the runs with games.

    ``on_step`` is called before each section's query (see :data:`Step`)."""
    manifests = manifests if manifests is not None else read_manifests(run_dirs)
    tables: dict[str, pl.DataFrame] = {}
    try:
        con, included = S.connect_runs(run_dirs, manifests)
        try:
            if included:
                n_games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
                if n_games > 0:
                    for i, (name, fn) in enumerate(S.SECTIONS.items()):
                        if on_step:
                            on_step(f"section {name.replace('_', ' and ')}", i, STEPS)
                        tables.update(fn(con))
        finally:
            con.close()
    except (RuntimeError, duckdb.Error) as exc:
        if is_interrupt(exc):  # DuckDB turns Ctrl-C into an error: give it back as one
            raise KeyboardInterrupt from None
        raise
    return tables, included


def is_interrupt(exc: BaseException) -> bool:
    """True for Ctrl-C, also in the form DuckDB raises it (``RuntimeError: Query interrupted``)."""
    if isinstance(exc, KeyboardInterrupt | duckdb.InterruptException):
        return True
    return isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()


def count_games(tables: dict[str, pl.DataFrame]) -> int:
    """The games the tables cover (0 when no section was run)."""
    if "shape" not in tables:
        return 0
    return int(tables["shape"]["games"].sum())
