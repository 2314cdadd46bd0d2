"""The worked example of the RL page (docs/examples/rl.py) runs as shown."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "rl.py"


@pytest.mark.slow
def test_the_rl_example_runs_and_reports_its_games() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "4"], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    first = re.fullmatch(
        r"first action: player_\d chose '(play .+|bet \d+)', id \[(\d+), \d+, \d+, \d+, \d+\]",
        lines[0],
    )
    assert first is not None
    # the id's kind (KINDS: 1..3 bets, 6.. plays) is the action described
    assert first.group(1).startswith("bet") == (int(first.group(2)) in (1, 2, 3))
    wins = re.fullmatch(
        r"PettingZoo, 3 random agents: [\d,]+ steps in 4 games; wins (.+)", lines[1]
    )
    assert (
        wins is not None and sum(ast.literal_eval(wins.group(1)).values()) == 4
    )  # a winner a game
    assert re.fullmatch(r"Gymnasium, random agent vs mcts: won [0-4] of 4", lines[2])
    assert re.fullmatch(r"Gymnasium, heuristic agent vs mcts: won [0-4] of 4", lines[3])
