"""``haggis-sim run``: play a tournament, with progress, notes and a summary."""

from __future__ import annotations

import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import InputError
from .common import (
    RuleOpt,
    RulesOpt,
    build_rules,
    fail,
    parse_games,
    quiet_terminal,
    split_strategies,
)

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rich.console import Console
    from rich.progress import TaskID
    from rich.text import Text

    from ..logs.manifest import Manifest
    from ..runner.run import RunConfig
    from ..runner.warmup import CompileWatch

RESUMABLE_OPTIONS = {"jobs", "backend", "scheduler", "chunk_size", "quiet", "resume"}


def options_given(ctx: typer.Context, names: list[str]) -> list[str]:
    """The options among ``names`` that the user typed (not left at their defaults)."""
    given = []
    for name in names:
        source = ctx.get_parameter_source(name)
        # compared by name: typer may carry its own copy of click's ParameterSource
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            given.append(name)
    return given


StrategiesOpt = Annotated[
    str,
    typer.Option(
        "--strategies",
        "-s",
        help="Comma-separated strategies, one per seat, each NAME or NAME:k=v,k=v "
        "(e.g. greedy,random:bet=0.2). Fewer than seats: the list repeats.",
    ),
]
GamesOpt = Annotated[str, typer.Option("--games", "-n", help="Games to play: 1000, 1e6, 250_000.")]
PlayersOpt = Annotated[int, typer.Option("--players", "-p", help="2 or 3 players.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Run seed: deals and strategy RNGs.")]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs", "-j", help="Worker processes (0: all cores; capped at cores and memory)."
    ),
]
OutOpt = Annotated[
    Path | None, typer.Option("--out", help="Run folder (default runs/<time>-<strategies>).")
]
SeatsOpt = Annotated[
    str, typer.Option("--seats", help="rotate: each deal once per distinct seating; fixed.")
]
BackendOpt = Annotated[
    str, typer.Option("--backend", help="loky (this machine) or dask (a cluster).")
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option("--scheduler", help="Dask scheduler address (default: a local cluster)."),
]
ChunkSizeOpt = Annotated[
    int,
    typer.Option(
        "--chunk-size",
        help="Games per task (0: sized from measured speed to a few seconds of work).",
    ),
]
LogMovesOpt = Annotated[
    bool, typer.Option("--log-moves/--no-log-moves", help="Write the moves table.")
]
ResumeOpt = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        help="Continue an interrupted run folder with its recorded settings (verified); "
        "only --jobs, --backend, --scheduler, --chunk-size and --quiet may be given.",
    ),
]
PrecisionOpt = Annotated[
    float | None,
    typer.Option(
        "--precision",
        help="Stop once the first strategy's win rate (the summary's first row) has a 95% "
        "interval of ±PRECISION (0.01: ±1 point), judged at fixed checkpoints of game ids "
        "so the games are the same as a fixed --games run's first N; --games is then the "
        "most to play. Needs two strategies or more. Says which stopped the run.",
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def run(
    ctx: typer.Context,
    strategies: StrategiesOpt = "greedy,random",
    games: GamesOpt = "1000",
    players: PlayersOpt = 2,
    rules: RulesOpt = "revised",
    rule: RuleOpt = None,
    seed: SeedOpt = 0,
    jobs: JobsOpt = 0,
    out: OutOpt = None,
    seats: SeatsOpt = "rotate",
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    chunk_size: ChunkSizeOpt = 0,
    log_moves: LogMovesOpt = True,
    resume: ResumeOpt = None,
    precision: PrecisionOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Play many complete games between strategies; log every move to Parquet."""
    from ..logs.store import location
    from ..outputs import check_outside
    from ..runner.run import RunConfig, scheduler_problem

    try:
        if resume is not None:
            refused = [
                n for n in options_given(ctx, list(ctx.params)) if n not in RESUMABLE_OPTIONS
            ]
            if refused:
                names = ", ".join("--" + n.replace("_", "-") for n in refused)
                raise InputError(
                    f"{names} cannot be changed on --resume (a run's games are fixed by its "
                    "manifest); with --resume give only --jobs, --backend, --scheduler, "
                    "--chunk-size, --quiet"
                )
            if why := scheduler_problem(backend, scheduler):
                raise InputError(why)
            config = RunConfig(
                strategies=[], games=1, rules={}, jobs=jobs, backend=backend,
                scheduler=scheduler, chunk_size=chunk_size,
            )  # fmt: skip
            run_dir: Path | str = location(resume)
        else:
            the_rules = build_rules(rules, players, rule or [])
            specs = split_strategies(strategies)
            n_games = parse_games(games)
            config = RunConfig(
                strategies=specs, games=n_games, rules=the_rules.as_dict(), seed=seed,
                seats=seats, chunk_size=chunk_size, log_moves=log_moves, jobs=jobs,
                backend=backend, scheduler=scheduler, precision=precision,
            )  # fmt: skip
            config.validate()
            if out is None:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                names = "-".join(s.name for s in specs)
                out = Path("runs") / f"{stamp}-{names}"
            run_dir = location(out)
            if isinstance(run_dir, Path):  # never inside a run, report, experiment
                check_outside(run_dir, "--out", InputError)
    except InputError as exc:
        raise fail(str(exc)) from None
    _play_and_summarize(config, run_dir, resume is not None, show=not (quiet or quiet_terminal()))


def _ignore_unraisable(_unraisable: object) -> None:
    """An unraisable-exception hook that reports nothing (see the interrupt below)."""


def _execute(
    config: RunConfig,
    run_dir: Path | str,
    resume: bool,
    on_progress: Callable[[int, int], None],
    on_note: Callable[[str], None],
    on_compile: CompileWatch | None = None,
) -> tuple[Manifest, Path]:
    """Play the run in a folder or at a URL; the final manifest and the local folder that
    holds its games table (the URL's working folder, :mod:`haggis_sim.runner.remote`).
    ``on_compile`` shows the engine's compile, if the run compiles it."""
    from ..runner.run import execute

    if isinstance(run_dir, str):
        from ..runner.remote import execute_remote

        return execute_remote(config, run_dir, resume, on_progress, on_note, on_compile)
    return execute(config, run_dir, resume, on_progress, on_note, on_compile=on_compile), run_dir


def _play_and_summarize(config: RunConfig, run_dir: Path | str, resume: bool, show: bool) -> None:
    """Play the checked run (a progress bar when ``show``), then print its summary table."""
    from rich.console import Console

    from ..logs.manifest import MANIFEST
    from ..runner.chunk import StrategyActionError
    from ..runner.summary import summarize, summary_table

    console = Console(stderr=True)

    def note(text: str) -> None:
        console.print(f"note: {text}", markup=False, highlight=False, soft_wrap=True)

    started: list[int] = []  # games already logged when this invocation began
    clock: list[float] = []  # when play began: after the engine is compiled (warmup.py)

    def track(done: int, total: int) -> None:
        if not started:
            started.append(done)
            clock.append(time.perf_counter())

    try:
        if show:
            with RunProgress(console) as progress:

                def on_progress(done: int, total: int) -> None:
                    track(done, total)
                    progress.update(done, total)

                manifest, local = _execute(
                    config, run_dir, resume, on_progress, note, progress.compiling
                )
        else:
            manifest, local = _execute(config, run_dir, resume, track, note)
    except InputError as exc:
        raise fail(str(exc)) from None
    except StrategyActionError as exc:
        typer.echo(f"error: {exc}; finished chunks are kept (--resume {run_dir})", err=True)
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        # a second Ctrl-C while the workers are stopped must not break the exit
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if isinstance(run_dir, Path) and not (run_dir / MANIFEST).exists():
            # stopped before the run began (e.g. in the first compile): nothing to resume.
            # A compile cut short can leave half-built compiler objects whose finalizers
            # fail as the process ends; their "Exception ignored" reports would follow
            # the one line below, so this process (which is ending) reports none.
            sys.unraisablehook = _ignore_unraisable
            typer.echo(
                f"\ninterrupted before the first game: nothing was written to {run_dir}; "
                "run the same command again",
                err=True,
            )
        else:
            typer.echo(
                f"\ninterrupted: finished chunks are kept; continue with "
                f"haggis-sim run --resume {run_dir}",
                err=True,
            )
        raise typer.Exit(code=130) from None
    seconds = time.perf_counter() - clock[0]  # games/s without the compile
    rows = summarize(local, manifest.specs, manifest.players)
    table = summary_table(rows, manifest.games - started[0], seconds)
    Console(width=None if sys.stdout.isatty() else 120).print(table)
    if manifest.config.precision is not None:
        from ..runner.precision import stop_line
        from ..runner.seating import games_per_deal

        per_deal = games_per_deal(manifest.config.seats, manifest.players, len(manifest.specs))
        typer.echo(stop_line(rows, manifest.config.precision, per_deal))
    if local != run_dir:  # a URL's working folder: every part is in the store now
        shutil.rmtree(local, ignore_errors=True)
    typer.echo(f"logs: {run_dir}/  (games/, rounds/, moves/, manifest.json)")
    typer.echo(f'query: haggis-sim query {run_dir} "SELECT * FROM games LIMIT 5"')


class RunProgress:
    """The run's progress bar: games done, smoothed games/s and ETA (rich), shown from
    the first update (once the engine is compiled); before it, :meth:`compiling` shows
    the compile under way."""

    def __init__(self, console: Console) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        from ..runner.plan import RateMeter

        self.meter = RateMeter()
        self.progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA {task.fields[eta]}"),
            console=console,
        )
        self.console = console
        self.task: TaskID | None = None  # the games, from the first update

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.task is not None:
            self.progress.__exit__(None, None, None)

    def compiling(self, what: str, estimate: float) -> AbstractContextManager[object]:
        """While its block runs: one line, ``compiling WHAT: 23 s of about 70 s``,
        refreshed each second by rich's own thread and removed at the end (however it
        ends)."""
        from rich.live import Live

        line = CompileLine(what, estimate)
        return Live(line, console=self.console, refresh_per_second=1, transient=True)

    def update(self, done: int, total: int) -> None:
        from ..runner.plan import format_duration

        if self.task is None:  # the bar starts now: its elapsed time leaves the compile out
            self.progress.start()
            self.task = self.progress.add_task("games", total=None, rate="", eta="-")
        self.meter.update(time.perf_counter(), done)
        eta = self.meter.eta(total - done)
        rate = self.meter.rate
        self.progress.update(
            self.task,
            total=total,
            completed=done,
            rate="" if rate is None else f"{rate:,.1f} games/s",
            eta="-" if eta is None else format_duration(eta),
        )


class CompileLine:
    """The text of :meth:`RunProgress.compiling`, read at each refresh: what compiles,
    and the seconds since the line was made against the estimate."""

    def __init__(self, what: str, estimate: float) -> None:
        self.what = what
        self.estimate = estimate
        self.t0 = time.perf_counter()

    def __str__(self) -> str:
        elapsed = time.perf_counter() - self.t0
        return f"compiling {self.what}: {elapsed:.0f} s of about {self.estimate:.0f} s"

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text(str(self), no_wrap=True, overflow="ellipsis")
