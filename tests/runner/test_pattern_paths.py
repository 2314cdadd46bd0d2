"""A folder whose name holds glob characters (``*``, ``?``, ``[1]``) is a name, not a
pattern: run, its summary, query, replay, report and precision stopping read exactly the
run's own files.

Once: ``haggis-sim run --out 'runs/a[1]'`` played every game and then failed with a
polars traceback at the summary ("expanded paths were empty"), because polars expands a
path as a glob unless told not to."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import invoke

ODD = "h*[1]?x"


@pytest.mark.slow  # several seconds on this machine
def test_a_run_in_a_folder_named_like_a_pattern(tmp_path: Path) -> None:
    out = tmp_path / ODD
    res = invoke("run", "-s", "greedy,heuristic", "-n", "60", "--jobs", "1", "--out", str(out))
    assert res.exit_code == 0, res.stderr
    assert "60 games" in res.stdout
    res = invoke("query", str(out), "SELECT count(*) AS n FROM games")
    assert res.exit_code == 0 and "60" in res.stdout, res.stderr
    res = invoke("replay", str(out), "3")
    assert res.exit_code == 0 and "Game over" in res.stdout, res.stderr
    report = tmp_path / f"{ODD}-report"
    res = invoke("report", str(out), "--out", str(report))
    assert res.exit_code == 0 and (report / "index.html").is_file(), res.stderr


def test_precision_stopping_in_a_folder_named_like_a_pattern(tmp_path: Path) -> None:
    out = tmp_path / ODD
    args = ["-s", "greedy,heuristic", "-n", "100", "--precision", "0.2", "--jobs", "1"]
    res = invoke("run", *args, "--out", str(out))
    assert res.exit_code == 0, res.stderr


@pytest.mark.slow  # several seconds on this machine
def test_a_folder_named_like_a_pattern_never_reads_its_siblings(tmp_path: Path) -> None:
    """``gz*`` beside ``gz-x``: once, query counted both runs' games (80 for a 40-game
    run) and report crashed on the sibling's parts."""
    small = ["-s", "greedy,random", "-n", "40", "--jobs", "1", "-q"]
    for name in ("gz-x", "gz*"):
        res = invoke("run", *small, "--out", str(tmp_path / name))
        assert res.exit_code == 0, res.stderr
    pattern = str(tmp_path / "gz*")
    res = invoke("query", pattern, "SELECT count(*) AS n, count(DISTINCT game_id) AS d FROM games")
    assert res.exit_code == 0, res.stderr
    assert " 40 " in res.stdout and " 80 " not in res.stdout, res.stdout
    res = invoke("query", pattern, f"SELECT count(*) FROM read_parquet('{tmp_path}/gz-x/*/*')")
    assert res.exit_code == 2, res.stdout  # the sandbox still reads the run's files only
    res = invoke("report", pattern, "--out", str(tmp_path / "rep"))
    assert res.exit_code == 0, res.stderr
