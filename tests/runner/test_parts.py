"""A chunk's parts as a shared-nothing worker sends them: the client verifies, writes and
records them exactly as a local worker would have, and refuses a blob that changed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from run_helpers import played_run

import strategies
from haggis_sim.logs import ledger
from haggis_sim.logs.manifest import load_manifest
from haggis_sim.runner.parts import (
    ChunkResult,
    WorkerError,
    engine_id,
    receive,
    record_chunk,
    ship,
    unship,
)
from haggis_sim.runner.pool import InlinePool
from haggis_sim.runner.run import RunConfig, create_run, run_chunk

STRATEGIES = ["learned", "greedy"]


def new_run(tmp_path: Path) -> tuple[RunConfig, Path]:
    """An empty run folder (manifest, tables, empty ledger) to record chunks in."""
    reference = played_run(tmp_path / "local", STRATEGIES, 24, 2, seed=4, chunk_size=12)
    config = RunConfig(**load_manifest(reference).config.field_values())
    run_dir = tmp_path / "client"
    create_run(config, run_dir)
    return config, run_dir


def sent(config: RunConfig, start: int, stop: int) -> ChunkResult:
    """A chunk as a shared-nothing worker returns it (nothing written)."""
    return run_chunk(config.as_dict(), None, start, stop, ship(config.validate()[1]))


def test_the_client_writes_and_records_what_a_local_worker_would(tmp_path: Path) -> None:
    config, run_dir = new_run(tmp_path)
    pool = InlinePool()
    for start in (0, 12):
        result = sent(config, start, start + 12)
        assert result.parts is not None  # bytes, nothing written by the worker
        assert not (run_dir / "games" / result.parts.name).exists()
        record_chunk(run_dir, receive(pool, pool.submit(lambda r=result: r), run_dir))
    local = tmp_path / "local"
    assert ledger.read_entries(run_dir) == ledger.read_entries(local)
    for table in ("moves", "rounds", "games"):
        for part in ledger.part_files(local / table):
            assert (run_dir / table / part.name).read_bytes() == part.read_bytes()


@pytest.mark.parametrize("damage", ["flip", "cut", "drop"])
def test_a_damaged_blob_is_refused_and_not_recorded(tmp_path: Path, damage: str) -> None:
    config, run_dir = new_run(tmp_path)
    result = sent(config, 0, 12)
    assert result.parts is not None
    blobs = dict(result.parts.blobs)
    data = blobs["rounds"]
    if damage == "flip":
        blobs["rounds"] = data[:100] + bytes([data[100] ^ 1]) + data[101:]
    elif damage == "cut":
        blobs["rounds"] = data[:-1]
    else:
        del blobs["rounds"]
    result.parts = replace(result.parts, blobs=blobs)
    pool = InlinePool()
    name = r"part-0000000000-0000000012\.parquet"
    why = rf"rounds part {name} from worker process \d+ arrived damaged .*--resume {run_dir}"
    with pytest.raises(WorkerError, match=why):
        record_chunk(run_dir, receive(pool, pool.submit(lambda: result), run_dir))
    assert ledger.read_entries(run_dir) == ([], 0)
    assert not [p for t in ("moves", "rounds", "games") for p in (run_dir / t).iterdir()]


def test_builtins_travel_built_and_plugins_as_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    class Mine(strategies.Strategy):
        name = "mine-only"
        description = "a plug-in (tests)"

        def act(self, observation, legal, rng):  # type: ignore[no-untyped-def]
            return legal[0]

    monkeypatch.setattr(Mine, "__module__", "someone_elses_package")
    monkeypatch.setattr(strategies.registry, "_extra", {"mine-only": Mine})
    learned, mine = strategies.make("learned"), strategies.make("mine-only")
    shipped = ship([learned, mine])
    assert shipped[0] is learned and shipped[1] == "mine-only"
    monkeypatch.setattr(strategies.registry, "_extra", {})  # a worker without the plug-in
    with pytest.raises(WorkerError, match=r"worker process \d+ cannot make strategy "
                       r"'mine-only': unknown strategy 'mine-only'"):  # fmt: skip
        unship(shipped)


def test_a_worker_with_another_engine_plays_nothing(tmp_path: Path) -> None:
    # a worker whose haggis-sim differs would play other games under the same seed
    config, _ = new_run(tmp_path)
    shipped = ship(config.validate()[1])
    other = "0.0.1+" + "0" * 16
    with pytest.raises(WorkerError, match=r"^worker process \d+ runs another haggis-sim .*0\.0\.1"):
        run_chunk(config.as_dict(), None, 0, 4, shipped, other)
    played = run_chunk(config.as_dict(), None, 0, 4, shipped, engine_id())
    assert played.games == 4
