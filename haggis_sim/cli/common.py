"""What every command shares: the one-line error, and parsing of common options.

Nothing heavy is imported here: ``haggis-sim --help`` must start fast, so the rules
engine, numba and the data libraries are imported inside the commands that use them.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import InputError
from ..presets import PRESETS
from ..strategy_spec import StrategySpec

if TYPE_CHECKING:
    from ..rules import Rules


#: the URL each object-store run argument of this command was read from, by the text of
#: its local copy's folder: what the user typed is what every line names
_URLS: dict[str, str] = {}


def shown(text: str | Path) -> str:
    """``text`` with every local copy of an object-store run named by its URL."""
    out = str(text)
    for folder, url in _URLS.items():
        out = out.replace(folder, url)
    return out


def fail(message: str) -> typer.Exit:
    """Print one clear error line and return the exit (status 2) to raise."""
    typer.echo(f"error: {shown(message)}", err=True)
    return typer.Exit(code=2)


def run_folder(value: Path) -> Path:
    """A run argument as a local folder: itself, or for a URL (``s3://bucket/run``) the
    run's verified local copy (:func:`haggis_sim.logs.store.local_copy`), which this
    command's lines then name by the URL (:func:`shown`); one error line (status 2) if
    the URL holds no readable run."""
    from ..logs.store import local_copy, location

    try:
        where = location(value)
        if isinstance(where, Path):
            return where
        copy = local_copy(where)
    except InputError as exc:
        raise fail(str(exc)) from None
    _URLS[str(copy)] = where
    return copy


def parse_rule_overrides(items: list[str]) -> dict[str, object]:
    """Turn ``FLAG=VALUE`` strings into typed keyword overrides for :meth:`Rules.preset`."""
    from ..rules import ALLOWED_BETS, LISTED_FLAGS, PUBLISHED_KNOBS, Rules

    known = Rules.flag_names()
    out: dict[str, object] = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--rule takes FLAG=VALUE, got {item!r}")
        key, value = (x.strip() for x in item.split("=", 1))
        if key not in known:
            raise InputError(f"unknown rule flag {key!r}; known: {', '.join(known)}")
        if key in LISTED_FLAGS:
            # a knob's published value; bet_values: every bet, 5,15,30
            example = ",".join(map(str, PUBLISHED_KNOBS.get(key, ALLOWED_BETS)))
            try:
                out[key] = tuple(int(v) for v in value.replace("/", ",").split(",") if v)
            except ValueError:
                raise InputError(f"{key} takes numbers like {example}; got {value!r}") from None
        elif key in ("first_out_bonus", "target_score", "rounds", "out_points"):
            try:
                out[key] = int(value)
            except ValueError:
                raise InputError(f"rule flag {key} takes an integer; got {value!r}") from None
        else:
            out[key] = value
    return out


def build_rules(preset: str, players: int, overrides: list[str]) -> Rules:
    """Rules from CLI options; ValueError with a readable message on bad input."""
    from ..rules import Rules

    return Rules.preset(preset, players=players, **parse_rule_overrides(overrides))


def parse_games(text: str) -> int:
    """``1e6``, ``250000`` or ``250_000`` as a positive integer; ValueError otherwise."""
    t = text.strip().replace("_", "")
    try:
        value = int(t) if re.fullmatch(r"[+-]?\d+", t) else float(t)
    except ValueError:
        raise InputError(
            f"--games must be a number like 1000, 1e6 or 250_000, got {text!r}"
        ) from None
    if isinstance(value, float) and not value.is_integer():
        raise InputError(f"--games must be a whole number, got {text!r}")
    if value <= 0:
        raise InputError(f"--games must be positive, got {text!r}")
    return int(value)


def split_strategies(text: str) -> list[StrategySpec]:
    """The specs of ``a,b:k=v,k2=v2,c`` (a ``k=v`` item belongs to the spec before it);
    InputError (one line) for an empty or unreadable one."""
    specs: list[str] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            raise InputError(f"empty strategy in --strategies {text!r}")
        if "=" in item and ":" not in item and specs:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return [StrategySpec.parse(spec) for spec in specs]


def quiet_terminal() -> bool:
    return bool(os.environ.get("CI")) or not sys.stderr.isatty()


class StepProgress:
    """A rich progress bar on stderr for work counted in steps (``report``, ``study``,
    ``show --alternatives``); shows nothing when ``show`` is false (stderr is not a
    terminal, or CI is set). ``label`` names the work."""

    def __init__(self, show: bool, label: str) -> None:
        self.progress: Any = None
        if show:
            from rich.console import Console
            from rich.markup import escape
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.progress = Progress(
                TextColumn(f"[bold]{escape(label)}"),
                BarColumn(),
                TextColumn("{task.description}"),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.task = self.progress.add_task("", total=None)

    def __enter__(self) -> StepProgress:
        if self.progress is not None:
            self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)

    def step(self, done: int, total: int, what: str | None = None) -> None:
        """``done`` of ``total`` steps finished; ``what`` (if given) is under way."""
        if self.progress is None:
            return
        if what is None:
            self.progress.update(self.task, completed=done, total=total)
        else:
            self.progress.update(self.task, description=what, completed=done, total=total)


RulesOpt = Annotated[str, typer.Option("--rules", help=f"Rules preset: {', '.join(PRESETS)}.")]
RuleOpt = Annotated[
    list[str] | None, typer.Option("--rule", help="Override a rule flag: FLAG=VALUE (repeatable).")
]
