"""The ``haggis-sim`` command line."""

from __future__ import annotations

from typing import Annotated

import numpy as np
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


@app.command()
def play(
    players: Annotated[int, typer.Option("--players", "-p", help="2 or 3 players.")] = 2,
    rules: Annotated[
        str, typer.Option("--rules", help=f"Rules preset: {', '.join(PRESETS)}.")
    ] = "revised",
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", help="Override a rule flag: FLAG=VALUE (repeatable)."),
    ] = None,
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


@app.command()
def version() -> None:
    """Print the package version."""
    typer.echo(f"haggis-sim {__version__} (numpy {np.__version__})")


if __name__ == "__main__":  # pragma: no cover - python -m haggis_sim.cli
    app()
