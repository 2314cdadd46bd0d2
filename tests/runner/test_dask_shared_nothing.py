"""``--backend dask`` on a real cluster whose workers do not share the client's disk.

A ``dask scheduler`` and two ``dask worker`` processes run on this machine, each worker in
its own mount namespace (``unshare --mount``) with a private tmpfs over the folder that
holds the runs, so the client's run folder (and a model file in it) does not exist for
the workers. The run must still be complete and equal, part for part, to the same-seed
run on loky: the workers send their parts, the client writes them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from cluster_helpers import check_private_mount, env, start_cluster, stop

pytestmark = pytest.mark.slow  # a scheduler, two workers and three runs: about a minute

BIN = Path(sys.executable).parent
MODEL = Path(__file__).resolve().parents[2] / "strategies" / "models" / "learned-gen1.npz"
KEYS = {"games": ["game_id"], "rounds": ["game_id", "round"], "moves": ["game_id", "round", "turn"]}
PLUGIN = """
from strategies import Strategy

class Passer(Strategy):
    name = "client-only"
    description = "passes when it may (installed on the client only)"

    def act(self, observation, legal, rng):
        return next((a for a in legal if a.type == "pass"), legal[0])
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A scheduler and two workers that cannot see ``base`` (the runs' parent folder)."""
    from distributed import Client

    base = tmp_path_factory.mktemp("shared-nothing")
    if why := check_private_mount(base):
        pytest.fail(why)
    address, procs = start_cluster(base, 2, env())
    client = None
    try:
        client = Client(address, timeout="60s")
        client.wait_for_workers(2, timeout=120)
        marker = base / "client-only.txt"
        marker.write_text("the client's folder")
        seen = client.run(os.path.exists, str(marker))
        assert len(seen) == 2 and not any(seen.values()), seen  # invisible to the workers
        assert all(p.poll() is None for p in procs)
        yield {"address": address, "base": base, "client": client, "workers": sorted(seen)}
    finally:
        if client is not None:
            client.close(timeout=10)
        stop(procs)


def cli(*args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        capture_output=True, text=True, env=env(**(extra_env or {})), timeout=300,
    )  # fmt: skip


def ledger_lines(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "parts.jsonl").read_text().splitlines()
    return sorted((json.loads(line) for line in lines), key=lambda e: e["start"])


def test_shared_nothing_run_equals_the_loky_run_part_for_part(cluster: dict[str, Any]) -> None:
    base: Path = cluster["base"]
    model = base / "model.npz"  # a model file only the client has: its weights must travel
    shutil.copyfile(MODEL, model)
    run = ["--strategies", f"learned:model={model},greedy", "--players", "2", "--games", "300",
           "--chunk-size", "30", "--seed", "27", "-q"]  # fmt: skip
    t0 = time.monotonic()
    dask = cli("run", *run, "--backend", "dask", "--scheduler", cluster["address"],
               "--out", str(base / "dask"))  # fmt: skip
    assert dask.returncode == 0, dask.stderr
    print(f"dask run: {time.monotonic() - t0:.1f} s")
    loky = cli("run", *run, "--jobs", "2", "--out", str(base / "loky"))
    assert loky.returncode == 0, loky.stderr

    for run_dir in (base / "dask", base / "loky"):
        assert json.loads((run_dir / "manifest.json").read_text())["status"] == "complete"
    lines = ledger_lines(base / "dask")
    assert len(lines) == 10 and lines == ledger_lines(base / "loky")  # every part's digest
    for table, keys in KEYS.items():
        frames = [pl.read_parquet(d / table / "part-*.parquet").sort(keys) for d in
                  (base / "dask", base / "loky")]  # fmt: skip
        assert frames[0].equals(frames[1]), table
    games = pl.read_parquet(base / "dask" / "games" / "part-*.parquet")
    assert games.height == 300 and sorted(games["game_id"]) == list(range(300))
    # both workers played, and neither wrote anything into its view of the folder
    played = cluster["client"].run(lambda dask_worker: dask_worker.state.executed_count)
    assert len(played) == 2 and min(played.values()) >= 1, played
    assert cluster["client"].run(os.listdir, str(base)) == {w: [] for w in cluster["workers"]}


def test_a_plugin_missing_on_the_workers_is_one_line_naming_the_worker(
    cluster: dict[str, Any], tmp_path: Path
) -> None:
    site = tmp_path / "site"
    info = site / "clientonly-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "clientonly_strategy.py").write_text(PLUGIN)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: clientonly\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[haggis_sim.strategies]\nclient-only = clientonly_strategy:Passer\n"
    )
    out = cluster["base"] / "plugin"
    res = cli("run", "--strategies", "client-only,greedy", "--games", "40", "--chunk-size",
              "10", "--backend", "dask", "--scheduler", cluster["address"], "--out", str(out),
              "-q", extra_env={"PYTHONPATH": str(site)})  # fmt: skip
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: worker tcp://127.0.0.1:"), res.stderr
    assert any(f"worker {w} " in lines[0] for w in cluster["workers"]), lines[0]
    assert "'client-only'" in lines[0] and f"--resume {out}" in lines[0], lines[0]
    assert (out / "manifest.json").exists() and (out / "parts.jsonl").read_text() == ""
