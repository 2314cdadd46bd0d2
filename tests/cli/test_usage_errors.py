"""A wrong option or value on the ``haggis-sim`` command line is one ``error:`` line and
exit status 2, like every other bad input (not typer's framed box); the console script
is :func:`haggis_sim.cli.main`, which makes it so."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m haggis_sim.cli ARGS``: the console script's entry point."""
    return subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip


def test_the_console_script_is_main() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["haggis-sim"] == "haggis_sim.cli:main"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run", "-s", "greedy", "--precision", "abc"], "Invalid value for '--precision'"),
        (["run", "-s", "greedy", "--jobs", "x"], "Invalid value for '--jobs'"),
        (["run", "--bogus"], "No such option: --bogus"),
        (["nosuchcommand"], "No such command 'nosuchcommand'"),
        (["query"], "Missing argument"),
    ],
)
def test_a_usage_error_is_one_line(args: list[str], said: str, tmp_path: Path) -> None:
    done = cli(*args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and said in lines[0], lines
    assert "--help" in lines[0]
    assert done.stdout == ""


def test_help_and_commands_still_run() -> None:
    done = cli("--help")
    assert done.returncode == 0 and "Usage" in done.stdout
    done = cli("version")
    assert done.returncode == 0 and done.stdout.startswith("haggis-sim ")
