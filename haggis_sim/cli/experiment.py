"""The ``haggis-sim experiment`` and ``haggis-sim compare`` commands (registered on the app)."""

from __future__ import annotations

import contextlib
import stat
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import InputError
from .common import fail, run_folder, shown

if TYPE_CHECKING:
    from rich.console import Console


def _console_width() -> int | None:
    return None if sys.stdout.isatty() else 120


def experiment(
    file: Annotated[
        Path, typer.Argument(help="An experiment file (TOML), e.g. experiments/x.toml.")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Experiment folder (default runs/experiments/<name>)."),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (0: all cores).")] = 0,
) -> None:
    """Run a declarative experiment: every arm on the same deals, then a summary with intervals.

    Prints a table per metric (per population), then the verdicts of summary.md: the best
    arm only where it is separable from every other arm, else the tied arms and about how
    many more games would resolve them; across populations holds, disagrees or not
    separable; a ladder's convergence per metric; what sizing to a precision reached.
    Arms already finished in the output folder are kept; unfinished ones resume; sized
    arms, and arms the file now asks more games of, are extended, never replayed;
    studies finished earlier with the same
    settings over the same arm run are kept, not searched and played again.
    """
    from rich.console import Console

    from ..experiment import ExperimentError, load_experiment, run_experiment
    from ..report import is_interrupt
    from ..runner.chunk import StrategyActionError

    if jobs < 0:
        raise fail(f"--jobs must be 0 (all cores) or more, got {jobs}")
    try:
        exp = load_experiment(file)
    except ExperimentError as exc:
        raise fail(str(exc)) from None
    out_dir = out if out is not None else Path("runs") / "experiments" / exp.name
    err = Console(stderr=True, width=_console_width())
    t0 = time.perf_counter()
    try:
        summary = run_experiment(exp, out_dir, jobs=jobs, log=lambda m: err.print(m, markup=False))
    except InputError as exc:  # RunError, bad logs, bad strategies
        raise fail(str(exc)) from None
    except StrategyActionError as exc:
        typer.echo(f"error: {exc}; finished arms and chunks are kept", err=True)
        raise typer.Exit(code=1) from None
    except OSError as exc:  # a write the operating system refused, e.g. in an arm's run
        raise fail(f"cannot write {exc.filename or out_dir}: {exc.strerror or exc}") from None
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not is_interrupt(exc):
            raise
        typer.echo(f"\ninterrupted: run the same command again to resume ({out_dir})", err=True)
        raise typer.Exit(code=130) from None
    console = Console(width=_console_width())
    console.print(f"[bold]{exp.name}[/bold]: {exp.question}", highlight=False)
    if "populations" in summary:  # per population the usual tables, then the verdicts
        for pop in summary["populations"]:
            _tables(console, pop["summary"], f" — population {pop['name']}", exp.entry)
    else:
        _tables(console, summary, "", exp.entry)
    for line in closing_lines(summary, out_dir):
        console.print(line, highlight=False, markup=False)
    typer.echo(f"{time.perf_counter() - t0:,.1f} s; summary: {out_dir}/summary.md, summary.json")
    typer.echo(f"page: {out_dir}/index.html (the question, the verdict, the forest plot)")
    if "report" in summary:
        typer.echo(f"report: {summary['report']}/index.html")


def _tables(console: Console, part: dict[str, Any], where: str, entry: int) -> None:
    """One population's (or the experiment's) table per metric, then its best-arm line
    as ``summary.md`` words it (:func:`~haggis_sim.experiment.best_line`)."""
    from rich.table import Table

    from ..analytics.compare import ENTRY_METRICS, METRICS
    from ..experiment import ROW_HEADER, best_line, result_rows

    for metric in part["results"]:
        title = f"{metric}: {METRICS[metric]}{where}"
        if metric in ENTRY_METRICS:
            title += f" (entry #{entry})"
        table = Table(title=title, title_justify="left")
        for col in ROW_HEADER:
            table.add_column(col, justify="left" if col == "arm" else "right")
        for row in result_rows(part, metric):
            table.add_row(*row)
        console.print(table)
    console.print(best_line(part) + where, highlight=False, markup=False)


def closing_lines(summary: dict[str, Any], out_dir: Path) -> list[str]:
    """What the terminal says after the tables, in the summary's own sentences: what
    sizing to a precision reached (per population), then per metric, the question's
    first, a ladder's convergence verdict and the verdict across populations; and for a
    balance experiment where its table is (it is too wide for a terminal)."""
    from ..experiment.markdown import sizing_line

    metric = summary["metric"]
    lines = []
    if "sizing" in summary:
        lines.append(sizing_line(summary["sizing"], metric))
    for pop in summary.get("populations", []):
        if "sizing" in pop:
            lines.append(f"population {pop['name']}: {sizing_line(pop['sizing'], metric)}")
    ladder = summary.get("ladder")
    if ladder:
        lines.append(f"ladder, weakest rung first: {' → '.join(ladder['rungs'])}")
    cross = summary.get("cross", {})
    for m in sorted(cross, key=lambda m: m != metric):  # the question's metric first
        if ladder:
            lines.append(f"{m}: {ladder['metrics'][m]['sentence']}")
        lines.append(f"{m}: {cross[m]['sentence']}")
    if summary.get("balance"):
        lines.append(balance_pointer(summary["balance"], out_dir))
    return lines


def balance_pointer(table: dict[str, Any], out_dir: Path) -> str:
    """Where a balance experiment's table is, and what it holds: it has a column per arm
    and a row per quantity, too wide for a terminal, so the terminal points to it."""
    rows = {r["quantity"] for group in table["groups"] for r in group["rows"]}
    what = (
        "seat and first-lead edge, comebacks, margin, game length, drama (lead changes; how "
        "late the winner takes the lead for good)"
        + (", skill expression and luck share" if "skill_expression" in rows else "")
    )
    return (
        f"balance per rule variant: {what}, each with its interval and its difference from "
        f"the first arm — see {out_dir}/summary.md or {out_dir}/index.html, section "
        "'Balance per rule variant'"
    )


COMPARE_MARK = "<!-- written by haggis-sim compare -->"


def _ours(path: Path) -> bool:
    """An HTML fragment ``compare --html`` wrote (its first tag and closing mark)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the open
            return False
        with path.open("rb") as f:
            head = f.read(64)
            f.seek(max(path.stat().st_size - 64, 0))
            tail = f.read()
    except OSError:
        return False
    mark = COMPARE_MARK.encode()
    return head.startswith(b'<section class="compare">') and tail.rstrip().endswith(mark)


def check_html_out(path: Path) -> None:
    """Refuse (one line, exit 2) an ``--html`` path that is not new or a fragment we wrote."""
    from ..outputs import check_outside

    if path.is_symlink() or path.is_dir():
        raise fail(f"--html {path} is a folder or a link, not a file")
    check_outside(path, "--html", fail)
    if path.exists() and not _ours(path):
        raise fail(
            f"--html {path} already exists and is not a comparison written by haggis-sim; "
            "choose another file"
        )


def write_html(path: Path, text: str) -> None:
    """Write ``path`` via a temporary file next to it (missing folders made, and removed
    again on failure); one line, exit 2, if the OS refuses."""
    from ..outputs import make_parents, write_file_atomically

    created: list[Path] = []
    try:
        created = make_parents(path.parent)
        write_file_atomically(path, text, fail, "--html")
    except (OSError, typer.Exit) as exc:
        for p in reversed(created):
            with contextlib.suppress(OSError):
                p.rmdir()
        if isinstance(exc, OSError):
            raise fail(f"cannot write --html {path}: {exc.strerror or exc}") from None
        raise


def compare(
    run_a: Annotated[Path, typer.Argument(help="Run folder A (the baseline).")],
    run_b: Annotated[Path, typer.Argument(help="Run folder B.")],
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write the table as an HTML fragment (a new file, or one an earlier "
            "compare wrote).",
        ),
    ] = None,
) -> None:
    """Metric differences B − A between two runs, with 95% intervals (paired on same deals)."""
    from rich.console import Console
    from rich.table import Table

    from ..analytics.compare import compare_runs, compare_section_html, fmt_interval, fmt_value
    from ..report import is_interrupt

    run_a, run_b = run_folder(run_a), run_folder(run_b)
    for run_dir in (run_a, run_b):
        if not (run_dir / "manifest.json").is_file():
            raise fail(f"{run_dir} is not a haggis-sim run folder (no manifest.json)")
    if html is not None:
        try:
            check_html_out(html)
        except OSError as exc:  # e.g. a folder on the way that may not be read
            raise fail(f"cannot look at {exc.filename or html}: {exc.strerror}") from None
    try:
        result = compare_runs(run_a, run_b)
    except InputError as exc:
        raise fail(str(exc)) from None
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not is_interrupt(exc):
            raise
        typer.echo("interrupted: nothing written", err=True)
        raise typer.Exit(code=130) from None
    result = replace(result, run_a=shown(result.run_a), run_b=shown(result.run_b))
    console = Console(width=_console_width())
    console.print(f"A: {shown(run_a)}  ({result.rules_a}; {', '.join(result.strategies_a)})",
                  highlight=False, markup=False)  # fmt: skip
    console.print(f"B: {shown(run_b)}  ({result.rules_b}; {', '.join(result.strategies_b)})",
                  highlight=False, markup=False)  # fmt: skip
    table = Table(title=result.note, title_justify="left")
    for col in ("metric", "A", "B", "B − A", "95% interval of B − A"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for r in result.rows:
        excl = not (r.diff.low <= 0 <= r.diff.high)
        table.add_row(
            r.label,
            fmt_value(r.metric, r.a.mean),
            fmt_value(r.metric, r.b.mean),
            fmt_value(r.metric, r.diff.diff, signed=True),
            fmt_interval(r.metric, r.diff.low, r.diff.high, signed=True) + (" *" if excl else ""),
        )
    console.print(table)
    typer.echo("* the interval excludes 0")
    if html is not None:
        write_html(html, compare_section_html(result) + COMPARE_MARK + "\n")
        typer.echo(f"wrote {html}")
