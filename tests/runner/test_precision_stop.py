"""Runs sized by precision (``RunConfig.precision``, :mod:`haggis_sim.runner.precision`).

The run must stop at the first checkpoint whose headline interval is narrow enough,
whatever ``--jobs``, chunk sizes or interruptions, and be the fixed run of that many
games table for table. The pairing is random against a bolder random at 2 players (about
even, so the interval narrows slowly: cheap games, a stop after several checkpoints);
precision 0.05 checks every 20 games and needs at most about 384.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from haggis_sim.logs import ledger
from haggis_sim.logs.manifest import config_digest, load_manifest, parse_manifest
from haggis_sim.rules import Rules
from haggis_sim.runner.precision import checkpoint_step, half_width
from haggis_sim.runner.run import RunConfig, RunError, execute, extend, verified_config
from haggis_sim.stats import games_for_half_width

KEYS = {"games": ["game_id"], "rounds": ["game_id", "round"], "moves": ["game_id", "round", "turn"]}
PRECISION = 0.05
CAP = 1000
STEP = 20  # checkpoint_step(0.05, 2)


def config(**changes: Any) -> RunConfig:
    settings: dict[str, Any] = {
        "strategies": ["random", "random:bet=0.3"],
        "games": CAP,
        "rules": Rules.preset("revised", players=2).as_dict(),
        "seed": 11,
        "chunk_size": 0,
        "jobs": 1,
        "command": "test",
        "precision": PRECISION,
    }
    return RunConfig(**{**settings, **changes})


def tables(run_dir: Path) -> dict[str, pl.DataFrame]:
    return {t: pl.read_parquet(ledger.table_files(run_dir, t)).sort(k) for t, k in KEYS.items()}


def assert_same_tables(got: Path, want: Path) -> None:
    a, b = tables(got), tables(want)
    for t in KEYS:
        assert a[t].equals(b[t]), t


def first_narrow_checkpoint(run_dir: Path, step: int, games: int) -> int:
    """Recomputed from a fixed run's games: the first multiple of ``step`` (or ``games``)
    whose prefix has entry 0's win-rate interval at most PRECISION wide on each side."""
    won = (
        pl.read_parquet(ledger.table_files(run_dir, "games"))
        .sort("game_id")["winner_entry"]
        .to_numpy()
        == 0
    )
    for n in [*range(step, games, step), games]:
        if half_width(int(won[:n].sum()), n) <= PRECISION:
            return n
    return games


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A fixed run of CAP games (no precision) and the N the rule must stop at."""
    out = tmp_path_factory.mktemp("fixed") / "run"
    execute(config(precision=None, chunk_size=100), out)
    return out, first_narrow_checkpoint(out, STEP, CAP)


@pytest.fixture(scope="module")
def fixed_n(tmp_path_factory: pytest.TempPathFactory, reference: tuple[Path, int]) -> Path:
    """The fixed run of exactly N games."""
    out = tmp_path_factory.mktemp("fixed_n") / "run"
    execute(config(precision=None, games=reference[1], chunk_size=64), out)
    return out


def test_the_rule_has_known_answers() -> None:
    assert games_for_half_width(1000, 0.02, 0.01) == 4000  # half as wide: 4 times the games
    assert games_for_half_width(1000, 0.015, 0.01, step=6) == 2250  # 2250 is whole deals
    assert games_for_half_width(1000, 0.0151, 0.01, step=6) == 2286  # ceil(2280.01) -> deals
    assert checkpoint_step(0.01, 2) == 482  # (1.96·0.5/0.01)² / 20 = 480.2, whole deals
    assert checkpoint_step(0.01, 3) == 483
    assert checkpoint_step(PRECISION, 2) == STEP


@pytest.mark.parametrize(
    ("jobs", "chunk_size"),
    [
        pytest.param(1, 0, id="j1"),
        pytest.param(1, 7, id="j1c7"),
        pytest.param(2, 0, id="j2", marks=pytest.mark.slow),  # j2c13 keeps two workers fast
        pytest.param(2, 13, id="j2c13"),
    ],
)
def test_same_n_and_games_whatever_jobs_and_chunks(
    jobs: int, chunk_size: int, reference: tuple[Path, int], fixed_n: Path, tmp_path: Path
) -> None:
    _, n = reference
    assert STEP < n < CAP  # stopped by the rule, after several checkpoints
    out = tmp_path / "run"
    manifest = execute(config(jobs=jobs, chunk_size=chunk_size), out)
    assert manifest.games == n and manifest.config.games == n
    assert manifest.status == "complete"
    assert ledger.games_logged(out) == n
    assert_same_tables(out, fixed_n)
    # nothing past N left on disk: every part is in the ledger and below N
    entries, _ = ledger.read_entries(out)
    assert max(e.stop for e in entries) == n
    for t in KEYS:
        assert len(ledger.part_files(out / t)) == len(entries)
    # the manifest is consistent: verified on resume, the same digest as the fixed run
    verified_config(out, load_manifest(out))
    assert manifest.config_digest == load_manifest(fixed_n).config_digest


def test_resuming_a_finished_precision_run_plays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = execute(config(chunk_size=30), out)
    parts = sorted((p.name, p.stat().st_mtime_ns) for p in (out / "games").iterdir())
    again = execute(config(chunk_size=30), out, resume=True)
    assert again.games == first.games
    assert sorted((p.name, p.stat().st_mtime_ns) for p in (out / "games").iterdir()) == parts


def test_interrupted_run_resumes_to_the_same_n(
    reference: tuple[Path, int], fixed_n: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"

    def ctrl_c(done: int, total: int) -> None:
        if done >= 3 * STEP:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute(config(chunk_size=9), out, on_progress=ctrl_c)
    stored = json.loads((out / "manifest.json").read_text())
    assert stored["status"] == "running" and stored["config"]["precision"] == PRECISION
    manifest = execute(config(jobs=2, chunk_size=0), out, resume=True)
    assert manifest.games == reference[1]
    assert_same_tables(out, fixed_n)


def test_logged_chunks_past_n_are_dropped(
    reference: tuple[Path, int], fixed_n: Path, tmp_path: Path
) -> None:
    """Chunks logged past N before N was known (another worker was ahead) are removed:
    here a whole fixed run in chunks of one checkpoint, then given the precision."""
    out = tmp_path / "run"
    execute(config(precision=None, chunk_size=STEP), out)
    path = out / "manifest.json"
    data = json.loads(path.read_text())
    data["config"]["precision"] = PRECISION  # not a game key: the digest still matches
    path.write_text(json.dumps(data))
    manifest = execute(config(), out, resume=True)
    assert manifest.games == reference[1]
    assert_same_tables(out, fixed_n)
    for t in KEYS:
        assert len(ledger.part_files(out / t)) == reference[1] // STEP


def test_stopped_by_games_below_one_checkpoint_and_never_narrow(tmp_path: Path) -> None:
    small = execute(config(games=STEP - 1), tmp_path / "small")  # less than one checkpoint
    assert small.games == STEP - 1 and ledger.games_logged(tmp_path / "small") == STEP - 1
    capped = execute(config(games=200, precision=0.001, chunk_size=50), tmp_path / "capped")
    assert capped.games == 200 and ledger.games_logged(tmp_path / "capped") == 200


def test_extending_a_precision_run_plays_to_the_count(
    reference: tuple[Path, int], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    execute(config(), out)
    grown = extend(config(precision=None, games=reference[1] + 40), out)
    assert grown.games == reference[1] + 40 and grown.config.precision is None
    assert ledger.games_logged(out) == reference[1] + 40
    verified_config(out, load_manifest(out))
    with pytest.raises(RunError, match="cannot be cut"):
        extend(config(precision=None, games=reference[1]), tmp_path / "run")
    assert load_manifest(out).games == reference[1] + 40


@pytest.mark.parametrize("bad", [0.0, 0.5, -0.01, 1.0, float("nan")])
def test_precision_out_of_range_is_refused(bad: float, tmp_path: Path) -> None:
    with pytest.raises(RunError, match="--precision must be a half-width from 0.0001 to below"):
        execute(config(precision=bad), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_precision_without_a_pairing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="--precision needs a pairing"):
        execute(config(strategies=["greedy"]), tmp_path / "run")


def test_a_manifest_without_precision_reads_and_digests_as_before(fixed_n: Path) -> None:
    """Every manifest before ``precision`` existed lacks the key: it must load, keep its
    digest (precision is not a game key) and be written back byte for byte."""
    data = json.loads((fixed_n / "manifest.json").read_text())
    assert "precision" not in data["config"]
    manifest = parse_manifest(data, "old")
    assert manifest.config.precision is None
    assert manifest.to_dict() == data
    with_rule = {**data["config"], "precision": 0.01}
    assert config_digest(with_rule) == data["config_digest"] == config_digest(data["config"])
    assert parse_manifest({**data, "config": with_rule}, "new").config.precision == 0.01
