"""Small real runs for the tests that read what a run writes (report, query, seatings),
the golden digest of a run's table, and the play-phase states of a random game."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig, execute

GOLDEN = Path(__file__).resolve().parent / "golden"


def played_run(
    path: Path,
    strategies: list[str],
    games: int,
    players: int,
    *,
    seed: int,
    chunk_size: int,
    preset: str = "revised",
) -> Path:
    """``path``: a finished run of ``games`` full games of ``strategies`` under ``preset``
    for ``players``, played by one worker in chunks of ``chunk_size``."""
    rules = Rules.preset(preset, players=players).as_dict()
    config = RunConfig(strategies=strategies, games=games, rules=rules, seed=seed,
                       chunk_size=chunk_size, jobs=1, command="test")  # fmt: skip
    execute(config, path)
    return path


@functools.cache
def golden() -> ModuleType:
    """``tests/golden/regenerate.py``, loaded once: how golden runs are built and digested."""
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def table_digest(run: Path, table: str) -> str:
    """The golden SHA-256 of a run's logged ``table`` (rows sorted by key, fixed text)."""
    return str(golden().table_digest(run, table)["sha256"])


def play_phase_states(preset: str, players: int, seed: int) -> np.ndarray:
    """Every play-phase state of one random game (``random_game_trace``, bet rate 0.3)."""
    rules = Rules.preset(preset, players=players).to_array()
    states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
    actions = np.empty(8000, dtype=np.int64)
    n = S.random_game_trace(rules, np.int64(seed), 0.3, states, actions)
    live = states[:n]
    return live[live[:, L.S_PHASE] == L.PH_PLAY]
