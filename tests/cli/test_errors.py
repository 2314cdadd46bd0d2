"""The command line blames the user only for input errors: a bug keeps its traceback.

Every user-facing error derives from :class:`haggis_sim.errors.InputError` and becomes
one ``error:`` line with status 2; any other exception, even a ``ValueError`` from deep
inside, is a fault of the program and must not be dressed up as bad input.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import haggis_sim.runner.run as run_module
from haggis_sim.cli import app
from haggis_sim.errors import IllegalAction, InputError
from haggis_sim.experiment import ExperimentError
from haggis_sim.logs.manifest import ManifestError
from haggis_sim.logs.query import QueryError
from haggis_sim.logs.schema import DamagedLogError
from haggis_sim.report import ReportError
from haggis_sim.runner.pool import BackendError
from haggis_sim.runner.run import RunError
from strategies import StrategyError

runner = CliRunner()


@pytest.mark.parametrize(
    "cls",
    [
        IllegalAction,
        ExperimentError,
        ManifestError,
        QueryError,
        DamagedLogError,
        ReportError,
        BackendError,
        RunError,
        StrategyError,
    ],
)
def test_every_user_facing_error_is_an_input_error(cls: type[Exception]) -> None:
    assert issubclass(cls, InputError) and issubclass(cls, ValueError)


def test_an_internal_value_error_is_not_reported_as_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("the moves buffer is full")  # a bug, not the user's input

    monkeypatch.setattr(run_module, "play_chunk", broken)
    args = ["run", "--strategies", "greedy,random", "--games", "4", "--jobs", "1"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "run"), "-q"])
    assert res.exit_code == 1, res.stderr
    assert isinstance(res.exception, ValueError)
    assert "error: " not in res.stderr


def test_bad_input_is_still_one_line(tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "--games", "abc", "--out", str(tmp_path / "x"), "-q"])
    assert res.exit_code == 2
    assert res.stderr.strip().startswith("error: --games") and len(res.stderr.splitlines()) == 1
    res = runner.invoke(app, ["play", "--rules", "nosuch"])
    assert res.exit_code == 2 and "nosuch" in res.stderr
