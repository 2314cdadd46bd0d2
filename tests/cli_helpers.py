"""What the CLI tests share: the CLI run in this process, and the check that a command
failed the way errors must fail."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from haggis_sim.cli import app

_runner = CliRunner()


def invoke(*args: str) -> Any:
    """The CLI in this process; returns the click Result (stdout and stderr apart)."""
    return _runner.invoke(app, list(args))


def one_line_error(res: Any, *words: str) -> str:
    """Assert exit 2, a clean exit (no exception escaped), no traceback, and exactly one
    ``error:`` line on stderr containing every one of ``words``; return that line."""
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr, res.exception)
    assert isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.stderr + res.stdout
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return str(lines[0])
