"""Small real runs for the tests that read what a run writes (report, query, seatings)."""

from __future__ import annotations

from pathlib import Path

from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig, execute


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
