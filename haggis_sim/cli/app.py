"""The ``haggis-sim`` application: every command, registered here and only here.

Each command lives in a module of its group (:mod:`.play`, :mod:`.run`, :mod:`.logs`,
:mod:`.report`, :mod:`.experiment`, :mod:`.study`) as a plain function; this module adds them to the
Typer app in the order ``--help`` lists them. Command modules import the engine and the
data libraries inside the command, so ``--help`` stays fast.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import MutableMapping
from typing import Any

import typer
import typer.core

from . import design, experiment, logs, play, report, run, show, study, train, train_value

app = typer.Typer(
    help="haggis-sim: play Haggis exactly by the rules, fast, and measure strategies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command()(play.play)
app.command()(run.run)
app.command()(logs.query)
app.command()(logs.replay)
app.command()(show.show)
app.command()(report.report)
app.command()(experiment.experiment)
app.command()(experiment.compare)
app.command()(design.design)
app.command()(study.study)
app.command(name="strategies")(play.list_strategies)
app.command()(train.train)
app.command(name="train-value")(train_value.train_value)
app.command()(play.version)


#: the click that typer parses with: its own copy (recent typer) or the click package
_click: Any = getattr(typer.core, "_click", None) or importlib.import_module("click")

#: the warnings of loky's resource tracker, silenced for the command's processes
QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def quiet_resource_tracker(environ: MutableMapping[str, str]) -> None:
    """Add :data:`QUIET_TRACKER` to ``PYTHONWARNINGS`` in ``environ`` (kept otherwise).

    loky's resource tracker is a process of its own, started with the first worker pool
    and outliving the command; when workers are killed on Ctrl-C it can find a semaphore
    they left registered, unlink it and warn about it twice, after the command's last
    line ("interrupted: ..."). The tracker inherits the environment, so this filter keeps
    its two warnings (and no others) off the terminal; the cleanup itself still runs."""
    current = environ.get("PYTHONWARNINGS", "")
    if QUIET_TRACKER not in current.split(","):
        environ["PYTHONWARNINGS"] = ",".join(w for w in (current, QUIET_TRACKER) if w)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``haggis-sim`` console script and ``python -m haggis_sim.cli``.

    A wrong option or value (``--precision abc``, ``--jobs x``, an unknown flag) is one
    ``error:`` line naming the command's help, exit status 2, as every other bad input
    is; the commands themselves run as under :data:`app`, without the Python API's compile
    notes (``run`` and ``experiment`` say what they compile in notes of their own)."""
    from .._cache import compile_notes

    quiet_resource_tracker(os.environ)
    compile_notes(False)
    try:
        code = app(args=argv, standalone_mode=False)
    except _click.exceptions.NoArgsIsHelpError as e:  # bare ``haggis-sim``: the help
        e.show()
        raise SystemExit(e.exit_code) from None
    except _click.exceptions.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else "haggis-sim"
        print(f"error: {e.format_message()} (see: {where} --help)", file=sys.stderr)
        raise SystemExit(2) from None
    except _click.exceptions.ClickException as e:
        print(f"error: {e.format_message()}", file=sys.stderr)
        raise SystemExit(e.exit_code) from None
    except typer.Abort:
        print("aborted", file=sys.stderr)
        raise SystemExit(1) from None
    raise SystemExit(code if isinstance(code, int) else 0)
