"""``haggis-sim play``, ``strategies`` and ``version``: a game to watch, what can play."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import __version__
from ..errors import InputError
from .common import RuleOpt, RulesOpt, build_rules, fail


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
    except InputError as exc:
        raise fail(str(exc)) from None
    if not 0.0 <= bet_rate <= 1.0:
        raise fail(f"--bet-rate must be between 0 and 1, got {bet_rate}")
    from ..transcript import play_random_game

    for line in play_random_game(the_rules, seed=seed, bet_rate=bet_rate):
        typer.echo(line)


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
            from strategies.learned_train import describe

            try:
                prov = describe(load_model(DEFAULT_MODEL).provenance)
            except InputError as exc:
                prov = f"unusable: {exc}"
            typer.echo(f"    shipped model {DEFAULT_MODEL.name}: {prov}")


def version() -> None:
    """Print the package version."""
    typer.echo(f"haggis-sim {__version__}")


# analytics commands live in their own modules and register themselves on ``app``
