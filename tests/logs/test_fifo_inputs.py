"""A FIFO (or any non-regular file) in place of a run's ledger or manifest gives one line
and status 2, never a read that blocks forever."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import invoke

from haggis_sim.inputs import UnreadableFile, read_regular

RUN = ["-s", "greedy,random", "-n", "8", "--jobs", "1", "-q"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``haggis-sim ARGS`` in a child process that may not hang (killed after 60 s)."""
    return subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def run_with_fifo_ledger(tmp_path: Path) -> Path:
    run = tmp_path / "r"
    assert invoke("run", *RUN, "--out", str(run)).exit_code == 0
    (run / "parts.jsonl").unlink()
    os.mkfifo(run / "parts.jsonl")
    return run


@pytest.mark.parametrize(
    "args", [("query", "{run}", "SELECT count(*) FROM games"), ("run", "--resume", "{run}")]
)
def test_a_fifo_ledger_is_refused_in_one_line(run_with_fifo_ledger: Path, args: tuple) -> None:
    out = _cli(*(a.format(run=run_with_fifo_ledger) for a in args))
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert "parts.jsonl" in lines[0] and "not a regular file" in lines[0]


def test_a_fifo_manifest_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "r"
    assert invoke("run", *RUN, "--out", str(run)).exit_code == 0
    (run / "manifest.json").unlink()
    os.mkfifo(run / "manifest.json")
    out = _cli("query", str(run), "SELECT 1")
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "manifest.json cannot be read: it is not a regular file" in out.stderr, out.stderr


def test_read_regular_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_regular(tmp_path / "fifo", 100)
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_regular(tmp_path, 100)
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(UnreadableFile, match="larger than 100 bytes"):
        read_regular(tmp_path / "big", 100)
    assert read_regular(tmp_path / "big", 101) == b"x" * 101


EXPERIMENT = """name = "e"
question = "q"
games = 10
seed = 1
players = 2
strategies = ["greedy", "random"]
metric = "win_rate"
[[arms]]
name = "a"
[[arms]]
name = "b"
strategies = ["random", "greedy"]
"""


@pytest.mark.slow  # several seconds on this machine
def test_a_fifo_experiment_marker_is_refused_in_one_line(tmp_path: Path) -> None:
    """Once: the marker was read with a plain open, and the command blocked forever."""
    toml = tmp_path / "e.toml"
    toml.write_text(EXPERIMENT)
    out = tmp_path / "e1"
    assert invoke("experiment", str(toml), "--out", str(out), "--jobs", "1").exit_code == 0
    marker = out / ".haggis-sim-experiment.json"
    marker.unlink()
    os.mkfifo(marker)
    done = _cli("experiment", str(toml), "--out", str(out), "--jobs", "1")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "not a regular file" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.slow  # several seconds on this machine
def test_a_fifo_report_marker_is_refused_in_one_line(tmp_path: Path) -> None:
    run, report = tmp_path / "r", tmp_path / "rep"
    assert invoke("run", *RUN, "--out", str(run)).exit_code == 0
    assert invoke("report", str(run), "--out", str(report)).exit_code == 0
    marker = report / ".haggis-sim-report.json"
    marker.unlink()
    os.mkfifo(marker)
    done = _cli("report", str(run), "--out", str(report), "--force")
    assert done.returncode == 2, done.stderr
    assert "not a regular file" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
