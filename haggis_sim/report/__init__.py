"""``haggis-sim report``: a self-contained folder (index.html, PNG figures, CSV tables).

Every number comes from a DuckDB aggregation in :mod:`haggis_sim.analytics.sections`;
this package only draws the figures (matplotlib, Agg), formats the tables and writes the
folder, atomically: it is built in a temporary folder next to ``out`` and renamed into
place.

The report never deletes or overwrites what it did not write. Every report folder holds
a marker (:data:`MARKER`: tool version, creation time, and every file and folder the
report wrote); :func:`check_out` refuses any other existing ``out`` (a run folder, a
user's folder, a file, a path inside a run or report folder), and ``force`` replaces an
earlier report only when the folder holds nothing but what that report wrote.

The parts: :mod:`.build` (the runs and the section tables), :mod:`.figures` (the figure
registry), :mod:`.style` and :mod:`.labels` (palette, short labels), :mod:`.page` (the
HTML page) and :mod:`.output` (the report's rules for ``--out``, on
:mod:`haggis_sim.outputs`). This module puts them together in :func:`build_report`.
"""

from __future__ import annotations

from pathlib import Path

from .. import outputs
from ..logs.manifest import Manifest
from ..outputs import OutState, foreign, marker_data, tree
from .build import (
    STEPS,
    Step,
    build_tables,
    count_games,
    is_interrupt,
    read_manifests,
    run_notices,
)
from .figures import FIGURES
from .figures import draw_figures as _figures
from .labels import short_specs
from .output import (
    MARKER,
    REPORT,
    Format,
    ReportError,
    check_out,
    check_parents,
    read_marker,
    write_marker,
)
from .page import empty_notes, moves_logged, page_html
from .style import PALETTE, series_style

__all__ = [
    "FIGURES",
    "MARKER",
    "PALETTE",
    "STEPS",
    "Format",
    "OutState",
    "ReportError",
    "Step",
    "build_report",
    "build_tables",
    "check_out",
    "check_parents",
    "empty_notes",
    "foreign",
    "is_interrupt",
    "marker_data",
    "moves_logged",
    "read_manifests",
    "read_marker",
    "run_notices",
    "series_style",
    "short_specs",
    "tree",
]


def _write_files(
    tmp: Path,
    run_dirs: list[Path],
    manifests: list[Manifest],
    fmt: Format,
    on_step: Step | None = None,
) -> None:
    """Write every file of the report into the (new, empty) folder ``tmp``, marker last.

    The figures are drawn by this module's ``_figures`` (looked up when called, so a test
    can make the drawing fail and watch nothing be left behind)."""
    step = on_step or (lambda _w, _i, _n: None)
    notices = run_notices(run_dirs, manifests)
    tables, _ = build_tables(run_dirs, manifests, step)
    step("figures", STEPS - 2, STEPS)
    figures = _figures(tables, tmp) if tables else {}
    step("page and tables", STEPS - 1, STEPS)
    if fmt == "html":
        (tmp / "tables").mkdir()
        for name, frame in tables.items():
            # 10 decimals: DuckDB's parallel sums differ in the last bits from one build
            # to the next, and a rebuilt report should write the same tables
            frame.write_csv(tmp / "tables" / f"{name}.csv", float_precision=10)
        games = count_games(tables)
        (tmp / "index.html").write_text(
            page_html(run_dirs, manifests, notices, tables, figures, games), encoding="utf-8"
        )
    write_marker(tmp, run_dirs, fmt)
    step("done", STEPS, STEPS)


def build_report(
    run_dirs: list[Path],
    out: Path,
    fmt: Format = "html",
    force: bool = False,
    on_step: Step | None = None,
) -> Path:
    """Write the report folder for ``run_dirs`` at ``out`` and return ``out``.

    ``fmt="html"``: index.html, its PNG figures and every table as ``tables/NAME.csv``;
    ``fmt="png"``: the figures only; either way plus the marker :data:`MARKER`. A run that
    is unfinished or has no games gives a notice in the page (and :func:`run_notices` for
    the terminal) rather than an error.

    ``out`` must be new, an empty folder, or (with ``force``) an earlier report holding
    only its own files (see :func:`check_out`). The report is built in a temporary folder
    next to ``out`` and renamed into place; on any failure or interruption the temporary
    folder and any parent folder this call created are removed and ``out`` is unchanged.

    ``on_step`` hears of each step of the build (see :data:`Step`), for a progress display.

    Raises ReportError for a missing run folder, a folder that is not a run, an ``out``
    that may not be written, and a write the operating system refuses (saying what and
    where); KeyboardInterrupt for Ctrl-C, also when DuckDB reports it as an error.
    """
    if fmt not in ("html", "png"):
        raise ReportError(f"--format must be html or png, got {fmt!r}")
    manifests = read_manifests(run_dirs)
    return outputs.write_folder(
        out, REPORT, force, lambda tmp: _write_files(tmp, run_dirs, manifests, fmt, on_step)
    )
