"""The report's data: the runs' manifests, notices about them, and the section tables.

Every number comes from a DuckDB aggregation in :mod:`haggis_sim.analytics.sections`;
this module runs the sections over the runs, reporting each step for a progress display,
and gives a Ctrl-C that DuckDB turned into an error back as a KeyboardInterrupt.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import polars as pl

from ..analytics import sections
from ..analytics.compare import same_run
from ..logs import ledger
from ..logs.manifest import MANIFEST, Manifest, load_manifest
from ..logs.query import damage_from
from ..logs.schema import TABLES, DamagedLogError
from .output import ReportError


def read_manifests(run_dirs: list[Path]) -> list[Manifest]:
    """Each run's typed manifest; ReportError naming the first folder that is not a run,
    ManifestError (one line naming the file and the field) for a damaged manifest, and
    ReportError naming both arguments for a run given twice (its games would count twice).
    """
    out = []
    for d in run_dirs:
        if not d.exists():
            raise ReportError(f"run folder {d} does not exist")
        if not d.is_dir() or not (d / MANIFEST).exists():
            raise ReportError(f"{d} is not a haggis-sim run folder (no {MANIFEST})")
        out.append(load_manifest(d))
    for j, (d, m) in enumerate(zip(run_dirs, out, strict=True)):
        for earlier, em in zip(run_dirs[:j], out[:j], strict=True):
            why = same_run(earlier, em, d, m)
            if why:
                raise ReportError(
                    f"{earlier} and {d} are the same run ({why}): its games would be "
                    "counted twice; give each run once"
                )
    return out


def run_notices(run_dirs: list[Path], manifests: list[Manifest]) -> list[str]:
    """Plain-language warnings: unfinished runs and runs without logged games."""
    notes = []
    for d, m in zip(run_dirs, manifests, strict=True):
        if ledger.has_ledger(d):
            logged = ledger.games_logged(d)
        else:  # a run of an older version: count the games in its parts
            logged = sum(
                pl.scan_parquet(p, glob=False).select(pl.len()).collect().item()
                for p in ledger.table_files(d, "games")
            )
        if m.status != "complete":
            notes.append(
                f"Run {d} is unfinished (status {m.status!r}): {logged:,} of {m.games:,} "
                "games are logged; the report covers only those games."
            )
        if logged == 0:
            notes.append(f"Run {d} has no games logged yet: nothing of it is in this report.")
    return notes


Step = Callable[[str, int, int], None]
"""Progress of a report build: ``(what is being done, steps done, steps in all)``."""
STEPS = len(sections.SECTIONS) + 3
"""The sections' queries, the tables per pairing, the figures, the page and tables."""

PER_PAIRING = {"points": "points", "bet_outcomes": "bets", "bomb_timing": "bombs"}
"""The tables whose rows pool a strategy's games against every opponent it met, and the
section that makes each: the report also makes them per pairing (``NAME_by_pairing``)."""


def build_tables(
    run_dirs: list[Path],
    manifests: list[Manifest] | None = None,
    on_step: Step | None = None,
) -> tuple[dict[str, pl.DataFrame], list[int]]:
    """Every section's tables over the runs, and the indices of the runs with games.

    Besides the sections' tables: ``pairings`` (one row per pairing, see
    :func:`pairing_groups`) and the tables of :data:`PER_PAIRING` per pairing
    (``NAME_by_pairing``, with a ``pairing`` column), so that no figure pools a strategy's
    games against different opponents. ``on_step`` is called before each section's query
    (see :data:`Step`)."""
    manifests = manifests if manifests is not None else read_manifests(run_dirs)
    tables: dict[str, pl.DataFrame] = {}
    try:
        con, included = sections.connect_runs(run_dirs, manifests)
        try:
            if included:
                n_games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
                if n_games > 0:
                    for i, (name, fn) in enumerate(sections.SECTIONS.items()):
                        if on_step:
                            on_step(f"section {name.replace('_', ' and ')}", i, STEPS)
                        tables.update(fn(con))
        finally:
            con.close()
        if tables:
            if on_step:
                on_step("sections per pairing", len(sections.SECTIONS), STEPS)
            tables.update(pairing_tables(run_dirs, manifests, included, tables))
    except (RuntimeError, duckdb.Error) as exc:
        if is_interrupt(exc):  # DuckDB turns Ctrl-C into an error: give it back as one
            raise KeyboardInterrupt from None
        damage = damaged_part(run_dirs, exc)
        if damage is not None:
            raise damage from None
        raise
    return tables, included


def pairing_groups(
    run_dirs: list[Path], manifests: list[Manifest], included: list[int]
) -> list[list[int]]:
    """The runs with games grouped by pairing: same rules and same strategies.

    Every game of a run seats all of its strategies (a run has at most one per seat), so
    the runs of one group hold exactly the games of that pairing (or field of three)."""
    groups: dict[tuple[str, frozenset[str]], list[int]] = {}
    for i in included:
        m = manifests[i]
        groups.setdefault((json.dumps(m.rules.as_dict(), sort_keys=True), frozenset(m.specs)),
                          []).append(i)  # fmt: skip
    return list(groups.values())


def pairing_tables(
    run_dirs: list[Path],
    manifests: list[Manifest],
    included: list[int],
    tables: dict[str, pl.DataFrame],
) -> dict[str, pl.DataFrame]:
    """``pairings`` (``pairing`` number, ``field``: the specs joined by " vs " in the order
    given, ``rules``, ``players``, ``runs``) and each table of :data:`PER_PAIRING` per
    pairing: the section run again over each group of runs; with one pairing the pooled
    table is already that pairing's (no query is repeated)."""
    groups = pairing_groups(run_dirs, manifests, included)
    info = pl.DataFrame(
        {
            "pairing": list(range(len(groups))),
            "field": [" vs ".join(dict.fromkeys(manifests[g[0]].specs)) for g in groups],
            "rules": [manifests[g[0]].rules.label for g in groups],
            "players": [manifests[g[0]].players for g in groups],
            "runs": [len(g) for g in groups],
        }
    )
    parts: dict[str, list[pl.DataFrame]] = {name: [] for name in PER_PAIRING}
    for n, group in enumerate(groups):
        if len(groups) == 1:
            made = {name: tables[name] for name in PER_PAIRING}
        else:
            con, _ = sections.connect_runs([run_dirs[i] for i in group],
                                           [manifests[i] for i in group])  # fmt: skip
            try:
                made = {}
                for section in dict.fromkeys(PER_PAIRING.values()):
                    made.update(sections.SECTIONS[section](con))
            finally:
                con.close()
        for name in PER_PAIRING:
            parts[name].append(made[name].select(pl.lit(n).alias("pairing"), pl.all()))
    out = {"pairings": info}
    for name, frames in parts.items():
        out[f"{name}_by_pairing"] = pl.concat(frames, how="diagonal_relaxed")
    return out


def damaged_part(run_dirs: list[Path], exc: BaseException) -> DamagedLogError | None:
    """The damaged part of one of the runs that ``exc`` (a DuckDB error) comes from, or
    None: damage inside a part whose footer is intact shows only when it is read."""
    if not isinstance(exc, duckdb.Error):
        return None
    for d in run_dirs:
        files = [f for table in TABLES for f in ledger.table_files(d, table)]
        damage = damage_from(d, files, exc)
        if damage is not None:
            return damage
    return None


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
