"""The ``haggis-sim`` application: every command, registered here and only here.

Each command lives in a module of its group (:mod:`.play`, :mod:`.run`, :mod:`.logs`,
:mod:`.report`, :mod:`.experiment`, :mod:`.study`) as a plain function; this module adds them to the
Typer app in the order ``--help`` lists them. Command modules import the engine and the
data libraries inside the command, so ``--help`` stays fast.
"""

from __future__ import annotations

import typer

from . import experiment, logs, play, report, run, show, study, train, train_value

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
app.command()(study.study)
app.command(name="strategies")(play.list_strategies)
app.command()(train.train)
app.command(name="train-value")(train_value.train_value)
app.command()(play.version)


def main() -> None:
    """Entry point of the ``haggis-sim`` console script and ``python -m haggis_sim.cli``."""
    app()
