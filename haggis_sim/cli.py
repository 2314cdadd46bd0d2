"""The ``haggis-sim`` command line."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .rules import PRESETS, Rules
from .transcript import play_random_game

app = typer.Typer(
    help="haggis-sim: play Haggis exactly by the rules, fast, and measure strategies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> typer.Exit:
    """Print one clear error line and return the exit (status 2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def parse_rule_overrides(items: list[str]) -> dict[str, object]:
    """Turn ``FLAG=VALUE`` strings into typed keyword overrides for :meth:`Rules.preset`."""
    known = Rules.flag_names()
    out: dict[str, object] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--rule takes FLAG=VALUE, got {item!r}")
        key, value = (x.strip() for x in item.split("=", 1))
        if key not in known:
            raise ValueError(f"unknown rule flag {key!r}; known: {', '.join(known)}")
        if key == "bet_values":
            try:
                out[key] = tuple(int(v) for v in value.replace("/", ",").split(",") if v)
            except ValueError:
                raise ValueError(f"bet_values takes numbers like 5,15,30; got {value!r}") from None
        elif key in ("first_out_bonus", "target_score", "rounds"):
            try:
                out[key] = int(value)
            except ValueError:
                raise ValueError(f"rule flag {key} takes an integer; got {value!r}") from None
        else:
            out[key] = value
    return out


def build_rules(preset: str, players: int, overrides: list[str]) -> Rules:
    """Rules from CLI options; ValueError with a readable message on bad input."""
    return Rules.preset(preset, players=players, **parse_rule_overrides(overrides))


def parse_games(text: str) -> int:
    """``1e6``, ``250000`` or ``250_000`` as a positive integer; ValueError otherwise."""
    t = text.strip().replace("_", "")
    try:
        value = int(t) if re.fullmatch(r"[+-]?\d+", t) else float(t)
    except ValueError:
        raise ValueError(
            f"--games must be a number like 1000, 1e6 or 250_000, got {text!r}"
        ) from None
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"--games must be a whole number, got {text!r}")
    if value <= 0:
        raise ValueError(f"--games must be positive, got {text!r}")
    return int(value)


def split_strategies(text: str) -> list[str]:
    """Split ``a,b:k=v,k2=v2,c`` into specs: a ``k=v`` item belongs to the spec before it."""
    specs: list[str] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            raise ValueError(f"empty strategy in --strategies {text!r}")
        if "=" in item and ":" not in item and specs:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def quiet_terminal() -> bool:
    return bool(os.environ.get("CI")) or not sys.stderr.isatty()


RulesOpt = Annotated[str, typer.Option("--rules", help=f"Rules preset: {', '.join(PRESETS)}.")]
RuleOpt = Annotated[
    list[str] | None, typer.Option("--rule", help="Override a rule flag: FLAG=VALUE (repeatable).")
]


@app.command()
def play(
    players: Annotated[int, typer.Option("--players", "-p", help="2 or 3 players.")] = 2,
    rules: RulesOpt = "revised",
    rule: RuleOpt = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the deal and the players.")] = 0,
    bet_rate: Annotated[
        float, typer.Option("--bet-rate", help="Chance a random player bets when it may.")
    ] = 0.1,
) -> None:
    """Play one complete game between random players and print it trick by trick."""
    try:
        the_rules = build_rules(rules, players, rule or [])
    except ValueError as exc:
        raise fail(str(exc)) from None
    if not 0.0 <= bet_rate <= 1.0:
        raise fail(f"--bet-rate must be between 0 and 1, got {bet_rate}")
    for line in play_random_game(the_rules, seed=seed, bet_rate=bet_rate):
        typer.echo(line)


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


@app.command()
def run(
    ctx: typer.Context,
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            "-s",
            help="Comma-separated strategies, one per seat, each NAME or NAME:k=v,k=v "
            "(e.g. greedy,random:bet=0.2). Fewer than seats: the list repeats.",
        ),
    ] = "greedy,random",
    games: Annotated[
        str, typer.Option("--games", "-n", help="Games to play: 1000, 1e6, 250_000.")
    ] = "1000",
    players: Annotated[int, typer.Option("--players", "-p", help="2 or 3 players.")] = 2,
    rules: RulesOpt = "revised",
    rule: RuleOpt = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed: deals and strategy RNGs.")] = 0,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", help="Worker processes (0: all cores; capped at cores and memory)."
        ),
    ] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default runs/<time>-<strategies>).")
    ] = None,
    seats: Annotated[
        str, typer.Option("--seats", help="rotate: replay each deal with every seat order; fixed.")
    ] = "rotate",
    backend: Annotated[
        str, typer.Option("--backend", help="loky (this machine) or dask (a cluster).")
    ] = "loky",
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="Dask scheduler address (default: a local cluster)."),
    ] = None,
    chunk_size: Annotated[
        int,
        typer.Option(
            "--chunk-size",
            help="Games per task (0: sized from measured speed to a few seconds of work).",
        ),
    ] = 0,
    log_moves: Annotated[
        bool, typer.Option("--log-moves/--no-log-moves", help="Write the moves table.")
    ] = True,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            help="Continue an interrupted run folder with its recorded settings (verified); "
            "only --jobs, --backend, --scheduler, --chunk-size and --quiet may be given.",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Play many complete games between strategies; log every move to Parquet."""
    from rich.console import Console

    from .runner.chunk import StrategyActionError
    from .runner.run import RunConfig, RunError, execute
    from .runner.summary import summarize

    console = Console(stderr=True)
    try:
        if resume is not None:
            refused = [
                n for n in options_given(ctx, list(ctx.params)) if n not in RESUMABLE_OPTIONS
            ]
            if refused:
                names = ", ".join("--" + n.replace("_", "-") for n in refused)
                raise ValueError(
                    f"{names} cannot be changed on --resume (a run's games are fixed by its "
                    "manifest); with --resume give only --jobs, --backend, --scheduler, "
                    "--chunk-size, --quiet"
                )
            config = RunConfig(
                strategies=[], games=1, rules={}, jobs=jobs, backend=backend,
                scheduler=scheduler, chunk_size=chunk_size,
            )  # fmt: skip
            run_dir = resume
        else:
            the_rules = build_rules(rules, players, rule or [])
            specs = split_strategies(strategies)
            n_games = parse_games(games)
            config = RunConfig(
                strategies=specs, games=n_games, rules=the_rules.as_dict(), seed=seed,
                seats=seats, chunk_size=chunk_size, log_moves=log_moves, jobs=jobs,
                backend=backend, scheduler=scheduler,
            )  # fmt: skip
            config.validate()
            if out is None:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                names = "-".join(s.split(":")[0] for s in specs)
                out = Path("runs") / f"{stamp}-{names}"
            run_dir = out
    except (RunError, ValueError) as exc:
        raise fail(str(exc)) from None

    show = not (quiet or quiet_terminal())

    def note(text: str) -> None:
        console.print(f"note: {text}", markup=False, highlight=False, soft_wrap=True)

    started: list[int] = []  # games already logged when this invocation began

    def track(done: int, total: int) -> None:
        if not started:
            started.append(done)

    t0 = time.perf_counter()
    try:
        if show:
            with RunProgress(console) as progress:

                def on_progress(done: int, total: int) -> None:
                    track(done, total)
                    progress.update(done, total)

                manifest = execute(config, run_dir, resume=resume is not None,
                                   on_progress=on_progress, on_note=note)  # fmt: skip
        else:
            manifest = execute(
                config, run_dir, resume=resume is not None, on_progress=track, on_note=note
            )
    except (RunError, ValueError) as exc:
        raise fail(str(exc)) from None
    except StrategyActionError as exc:
        typer.echo(f"error: {exc}; finished chunks are kept (--resume {run_dir})", err=True)
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        # a second Ctrl-C while the workers are stopped must not break the exit
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        typer.echo(
            f"\ninterrupted: finished chunks are kept; continue with "
            f"haggis-sim run --resume {run_dir}",
            err=True,
        )
        raise typer.Exit(code=130) from None
    seconds = time.perf_counter() - t0
    n_games = int(manifest["games"])
    specs_final = [s["spec"] for s in manifest["strategies"]]
    rows = summarize(run_dir, specs_final, int(manifest["players"]))
    from .runner.summary import summary_table

    table = summary_table(rows, n_games - started[0], seconds)
    Console(width=None if sys.stdout.isatty() else 120).print(table)
    typer.echo(f"logs: {run_dir}/  (games/, rounds/, moves/, manifest.json)")
    typer.echo(f'query: haggis-sim query {run_dir} "SELECT * FROM games LIMIT 5"')


class RunProgress:
    """The run's progress bar: games done, smoothed games/s and ETA (rich)."""

    def __init__(self, console: object) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        from .runner.plan import RateMeter

        self.meter = RateMeter()
        self.progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA {task.fields[eta]}"),
            console=console,  # type: ignore[arg-type]
        )
        self.task = self.progress.add_task("games", total=None, rate="", eta="-")

    def __enter__(self) -> RunProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def update(self, done: int, total: int) -> None:
        from .runner.plan import format_duration

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


@app.command()
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
) -> None:
    """Run one read-only DuckDB SQL statement over a run's Parquet logs.

    The statement can read the run's games, rounds and moves and nothing else: no other
    file, no network, no extension, and it cannot change anything (see the README).
    """
    import duckdb

    from .runner.query import run_query

    if not (run_dir / "manifest.json").exists():
        raise fail(f"{run_dir} is not a haggis-sim run folder (no manifest.json)")
    if not sql.strip():
        raise fail("the SQL query is empty")
    try:
        shown = run_query(run_dir, sql, to, force=force)
    except (duckdb.Error, ValueError, OSError) as exc:  # QueryError, DamagedLogError, no parts
        raise fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    if to is not None:
        typer.echo(f"wrote {to}")
    else:
        typer.echo(shown, nl=False)


@app.command()
def replay(
    run_dir: Annotated[Path, typer.Argument(help="A run folder.")],
    game_id: Annotated[int, typer.Argument(help="The game to replay.")],
) -> None:
    """Re-play a logged game through the engine and print it trick by trick.

    Fails (exit status 1) at the first point where the log and the engine disagree.
    """
    from .runner.replay import ReplayMismatch
    from .runner.replay import replay as do_replay
    from .runner.run import RunError

    try:
        for line in do_replay(run_dir, game_id):
            typer.echo(line)
    except (RunError, ValueError) as exc:
        raise fail(str(exc)) from None
    except ReplayMismatch as exc:
        typer.echo(f"REPLAY MISMATCH: {exc}", err=True)
        raise typer.Exit(code=1) from None


@app.command(name="strategies")
def list_strategies() -> None:
    """List every known strategy and its parameters."""
    from strategies import known

    for name, cls in sorted(known().items()):
        typer.echo(f"{name}: {cls.description}")
        for p in cls.params:
            typer.echo(f"    {p.describe()}")
        if not cls.params:
            typer.echo("    (no parameters)")


@app.command()
def version() -> None:
    """Print the package version."""
    typer.echo(f"haggis-sim {__version__}")


# analytics commands live in their own modules and register themselves on ``app``
from . import cli_experiments, cli_report  # noqa: E402, F401

if __name__ == "__main__":  # pragma: no cover - python -m haggis_sim.cli
    app()
