"""``haggis-sim play``, ``strategies`` and ``version``: a game to watch, what can play."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import __version__
from ..errors import InputError
from ..strategy_spec import StrategySpec
from .common import RuleOpt, RulesOpt, build_rules, fail

if TYPE_CHECKING:
    from .play_game import Table

VsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--vs",
        help="Play against this bot (a strategy spec, e.g. mcts or heuristic:bet=0.6); twice "
        "for 3 players, or once with --players 3 for two copies of it.",
    ),
]


def play(
    players: Annotated[
        int | None,
        typer.Option(
            "--players", "-p", help="2 or 3 players (default: 2, or one more than the --vs bots)."
        ),
    ] = None,
    rules: RulesOpt = "revised",
    rule: RuleOpt = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the deal and the players.")] = 0,
    vs: VsOpt = None,
    seat: Annotated[
        int | None, typer.Option("--seat", help="With --vs: your seat, 0..players-1 (default 0).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="With --vs: the run folder the game is logged to (new or empty; default "
            "haggis-games/seed-N, or seed-N-2, ... if taken).",
        ),
    ] = None,
    bet_rate: Annotated[
        float | None,
        typer.Option("--bet-rate", help="Without --vs: chance a random player bets (0.1)."),
    ] = None,
) -> None:
    """Play a game against bots in the terminal (--vs SPEC), or watch random players.

    With --vs you play one seat; type help at the prompt for what you can type. The game
    is logged as a run folder of one game (report, replay and query read it). Without
    --vs one game between random players is printed trick by trick.
    """
    if vs:
        _play_against(vs, players, rules, rule or [], seed, seat, out, bet_rate)
        return
    if seat is not None or out is not None:
        raise fail("--seat and --out are for a game you play: give --vs SPEC")
    try:
        the_rules = build_rules(rules, players or 2, rule or [])
    except InputError as exc:
        raise fail(str(exc)) from None
    rate = 0.1 if bet_rate is None else bet_rate
    if not 0.0 <= rate <= 1.0:
        raise fail(f"--bet-rate must be between 0 and 1, got {rate}")
    from ..transcript import play_random_game

    for line in play_random_game(the_rules, seed=seed, bet_rate=rate):
        typer.echo(line)


def _play_against(
    vs: list[str],
    players: int | None,
    rules: str,
    rule: list[str],
    seed: int,
    seat: int | None,
    out: Path | None,
    bet_rate: float | None,
) -> None:
    """``play --vs``: check everything, play at the terminal, then log the game."""
    if bet_rate is not None:
        raise fail("--bet-rate is for watching random players; a bot's own: --vs random:bet=0.3")
    if players is None:
        players = len(vs) + 1
    elif len(vs) == 1 and players == 3:
        vs = vs * 2
    if len(vs) + 1 != players:
        raise fail(
            f"--players {players} needs {players - 1} --vs bot(s) (or one --vs, seated "
            f"twice at 3 players); got {len(vs)}"
        )
    try:
        the_rules = build_rules(rules, players, rule)
    except InputError as exc:
        raise fail(str(exc)) from None
    my_seat = 0 if seat is None else seat
    if not 0 <= my_seat < players:
        raise fail(f"--seat must be 0..{players - 1} with {players} players, got {my_seat}")
    if not -(2**63) <= seed < 2**63:
        raise fail(f"--seed must be a 64-bit integer, got {seed}")

    from strategies import make

    from .play_game import Table, check_out, default_out

    bots = []
    for text in vs:
        try:
            spec = StrategySpec.parse(text)
            if spec.name == "human":
                raise fail("--vs names the bots you play against; you are the human seat")
            bots.append(make(spec))
        except InputError as exc:
            raise fail(str(exc)) from None
    run_dir = out if out is not None else default_out(seed)
    try:
        check_out(run_dir)
    except InputError as exc:
        raise fail(str(exc)) from None
    _play_and_log(Table(the_rules, my_seat, bots, seed), run_dir)


def _play_and_log(table: Table, run_dir: Path) -> None:
    """Play the checked game at the terminal, then log it to ``run_dir`` as a run."""
    from rich.console import Console

    from .play_game import play_game, write_game
    from .play_session import LineReader, QuitGame

    my_seat, the_rules, seed = table.seat, table.rules, table.seed
    console = Console(highlight=False)
    console.print(
        f"haggis-sim play: you are seat {my_seat} against "
        + ", ".join(f"seat {s} {spec}" for s, spec in enumerate(table.specs) if s != my_seat)
        + f"; rules {the_rules.label}, seed {seed}. Type help for what you can type.",
        markup=False,
    )
    try:
        result, player = play_game(table, console, read=LineReader())
    except QuitGame:
        typer.echo("quit: the game was stopped; it is not logged (no files were written)")
        raise typer.Exit(code=0) from None
    except (KeyboardInterrupt, EOFError):
        typer.echo("")
        typer.echo(
            "interrupted: the game was stopped; it is not logged (no files were written)",
            err=True,
        )
        raise typer.Exit(code=130) from None
    try:
        write_game(table, result, run_dir)
    except InputError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo("interrupted while logging the game: nothing was kept", err=True)
        raise typer.Exit(code=130) from None
    player.finish(result.games[0])
    typer.echo(
        f"logged to {run_dir} (game 0): haggis-sim replay {run_dir} 0, haggis-sim report "
        f'{run_dir} --out REPORT, haggis-sim query {run_dir} "SELECT * FROM rounds"'
    )


def list_strategies() -> None:
    """List every known strategy and its parameters."""
    from strategies import known

    for name, cls in sorted(known().items()):
        typer.echo(f"{name}: {cls.description}")
        for p in cls.params:
            typer.echo(f"    {p.describe()}")
        if not cls.params:
            typer.echo("    (no parameters)")
        if name == "learned":  # the shipped model and how it was trained
            from strategies.learned_model import DEFAULT_MODEL, load_model

            from ..training.provenance import describe

            try:
                prov = describe(load_model(DEFAULT_MODEL).provenance)
            except InputError as exc:
                prov = f"unusable: {exc}"
            typer.echo(f"    shipped model {DEFAULT_MODEL.name}: {prov}")


def version() -> None:
    """Print the package version."""
    typer.echo(f"haggis-sim {__version__}")


# analytics commands live in their own modules and register themselves on ``app``
