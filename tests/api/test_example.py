"""The worked example of the Python API page (docs/examples/tournament.py) runs as shown.

docs/api.md includes the script verbatim, so this is the test that the page's example
works: a 2,000-game tournament, a polars query and a matplotlib figure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tournament.py"
SUMMARY = re.compile(
    r"^(\w+): won ([\d.]+)% of ([\d,]+) games \(95% interval ([\d.]+)% to ([\d.]+)%\), "
    r"mean final score (\d+)$"
)
BY_SEAT = re.compile(r"^heuristic from seat (\d): won ([\d.]+)% of ([\d,]+) games$")


@pytest.mark.slow
def test_the_worked_example_prints_sane_numbers_and_saves_its_figure(tmp_path: Path) -> None:
    figure = tmp_path / "scores.png"
    temporary = tmp_path / "tmp"  # where the tournament's temporary run folder goes
    temporary.mkdir()
    res = subprocess.run(
        [sys.executable, str(SCRIPT), str(figure)], cwd=tmp_path, capture_output=True,
        text=True, timeout=600, env={**os.environ, "TMPDIR": str(temporary)},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    summary = [m.groups() for m in map(SUMMARY.match, lines) if m]
    assert [s[0] for s in summary] == ["greedy", "heuristic"]
    rates = {name: float(rate) for name, rate, *_ in summary}
    assert abs(sum(rates.values()) - 100) < 0.15  # two players: one of them wins each game
    assert rates["heuristic"] > 60  # the heuristic beats greedy clearly (about 84%)
    for _, rate, games, low, high, score in summary:
        assert games == "2,000" and float(low) < float(rate) < float(high)
        assert 0 < int(score) < 400
    seats = [m.groups() for m in map(BY_SEAT.match, lines) if m]
    assert [(s, g) for s, _, g in seats] == [("0", "1,000"), ("1", "1,000")]  # seats rotate
    mean = sum(float(r) for _, r, _ in seats) / 2
    assert abs(mean - rates["heuristic"]) < 0.1  # the seats split the same games
    assert lines[-1] == f"figure: {figure}"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and figure.stat().st_size > 10_000
    assert list(temporary.iterdir()) == []  # the with block deleted the run folder
