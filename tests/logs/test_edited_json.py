"""A run's JSON files edited into something no writer makes: nested thousands deep, a
number beyond a float. One line and status 2 (or the line dropped as a torn write),
never a RecursionError or OverflowError traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim.logs.ledger import Entry

RUN = ["-s", "greedy,random", "-n", "8", "--jobs", "1", "--chunk-size", "4", "-q"]
DEEP = "[" * 100_000


@pytest.fixture
def run(tmp_path: Path) -> Path:
    out = tmp_path / "r"
    assert invoke("run", *RUN, "--out", str(out)).exit_code == 0
    return out


def test_a_manifest_nested_too_deep_is_one_line(run: Path) -> None:
    (run / "manifest.json").write_text(DEEP)
    one_line_error(invoke("query", str(run), "SELECT 1"), "manifest.json", "nested too deeply")
    one_line_error(invoke("run", "--resume", str(run)), "manifest.json", "nested too deeply")


def test_a_ledger_line_nested_too_deep_or_out_of_range_is_a_torn_line(run: Path) -> None:
    lines = (run / "parts.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    for bad in (DEEP, lines[-1].replace(f'"stop":{last["stop"]}', '"stop":1e400'),
                lines[-1].replace(f'"stop":{last["stop"]}', '"stop":4294967297')):  # fmt: skip
        with pytest.raises(ValueError, match="bad ledger line"):
            Entry.from_line(bad)
        (run / "parts.jsonl").write_text("\n".join([*lines[:-1], bad]) + "\n")
        res = invoke("query", str(run), "SELECT count(*) AS n FROM games")
        one_line_error(res, "damaged run", "4 of the 8 games")
    assert invoke("run", "--resume", str(run), "-q").exit_code == 0  # the torn chunk re-played
    assert len((run / "parts.jsonl").read_text().splitlines()) == 2


@pytest.mark.slow  # writes a whole report first
def test_a_report_marker_nested_too_deep_is_one_line(run: Path, tmp_path: Path) -> None:
    report = tmp_path / "rep"
    assert invoke("report", str(run), "--out", str(report)).exit_code == 0
    marker = report / ".haggis-sim-report.json"
    marker.write_text(DEEP)
    one_line_error(invoke("report", str(run), "--out", str(report), "--force"), str(report))
    assert marker.read_text() == DEEP


@pytest.mark.parametrize("drop", ["first", "last", "torn"])
def test_a_finished_run_missing_a_ledger_line_is_damaged_not_smaller(
    run: Path, tmp_path: Path, drop: str
) -> None:
    """A finished run whose ledger lost a line (removed, or cut short) was read as a run
    of fewer games: query and report answered from half the games without a word."""
    lines = (run / "parts.jsonl").read_text().splitlines()
    kept = {"first": lines[1:], "last": lines[:-1], "torn": [lines[0], lines[1][:30]]}[drop]
    (run / "parts.jsonl").write_text("\n".join(kept) + "\n")
    words = ("damaged run", "4 of the 8 games" if drop != "first" else "0 of the 8 games")
    one_line_error(invoke("query", str(run), "SELECT count(*) FROM games"), *words)
    one_line_error(invoke("report", str(run), "--out", str(tmp_path / "rep")), *words)
    assert not (tmp_path / "rep").exists()
    assert invoke("run", "--resume", str(run), "-q").exit_code == 0
    res = invoke("query", str(run), "SELECT count(*) AS n FROM games")
    assert res.exit_code == 0 and re.search(r"│\s*8\s*│", res.stdout), res.stdout
