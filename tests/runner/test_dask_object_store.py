"""``--backend dask --out s3://…``: the workers put their parts in the store themselves.

A moto S3 server, a ``dask scheduler`` and two ``dask worker`` processes, each worker in
its own mount namespace with a private tmpfs over the runs' parent folder (it shares
nothing with the client but the network). The client and the workers reach the server
through two recording proxies, so the test knows who wrote each object. Nothing in the
tool is mocked: the proxies forward every request to the real server, but for the
buckets a test makes refuse the workers' writes (credentials without write permission)
or lose them (a store that acknowledges a PUT and keeps nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from cluster_helpers import (
    check_private_mount,
    env,
    linked_cache,
    moto_server,
    recording_proxy,
    start_cluster,
    stop,
)

pytest.importorskip("s3fs")  # the test extra installs it; CI always has it
pytestmark = pytest.mark.slow  # a server, a scheduler, two workers and four runs

KEYS = {"AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
RUN = ["--strategies", "greedy,random", "--players", "2", "--games", "240", "--chunk-size",
       "30", "--seed", "27", "-q"]  # fmt: skip
CHUNKS = 8


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The server, the client's and the workers' proxies, the cluster, a bucket maker."""
    from distributed import Client

    base = tmp_path_factory.mktemp("store-cluster")
    if why := check_private_mount(base):
        pytest.fail(why)
    with moto_server() as endpoint, recording_proxy(endpoint) as to_client, \
            recording_proxy(endpoint) as to_workers:  # fmt: skip
        worker_env = env(AWS_ACCESS_KEY_ID="worker", AWS_ENDPOINT_URL=to_workers.url, **KEYS)
        address, procs = start_cluster(base, 2, worker_env)
        client = None
        try:
            client = Client(address, timeout="60s")
            client.wait_for_workers(2, timeout=120)
            import s3fs

            s3fs.S3FileSystem.clear_instance_cache()
            fs = s3fs.S3FileSystem(endpoint_url=endpoint, key="test", secret="testing")

            def bucket() -> str:
                name = f"b{uuid.uuid4().hex[:12]}"
                fs.mkdir(name)
                return name

            yield {
                "address": address, "base": base, "client": client, "fs": fs,
                "bucket": bucket, "to_client": to_client, "to_workers": to_workers,
                "client_env": {"AWS_ACCESS_KEY_ID": "client",
                               "AWS_ENDPOINT_URL": to_client.url, **KEYS},
            }  # fmt: skip
        finally:
            if client is not None:
                client.close(timeout=10)
            stop(procs)


def cli(setup: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    cache = linked_cache(setup["base"].parent / "client-cache")
    extra = {**setup["client_env"], "HAGGIS_SIM_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        capture_output=True, text=True, env=env(**extra), timeout=300,
    )  # fmt: skip


def dask_run(setup: dict[str, Any], url: str) -> subprocess.CompletedProcess[str]:
    return cli(setup, "run", *RUN, "--backend", "dask", "--scheduler", setup["address"],
               "--out", url)  # fmt: skip


def objects(fs: Any, prefix: str) -> dict[str, bytes]:
    """Every object under ``prefix``: its name below it, and its bytes."""
    return {p[len(prefix) + 1 :]: fs.cat_file(p) for p in fs.find(prefix)}


def parts(names: list[str], table: str) -> list[str]:
    return sorted(n for n in names if n.startswith(f"run/{table}/part-"))


@pytest.fixture(scope="module")
def loky_objects(setup: dict[str, Any]) -> dict[str, bytes]:
    """The same run played by loky on the client and uploaded by it: the reference."""
    name = setup["bucket"]()
    res = cli(setup, "run", *RUN, "--jobs", "2", "--out", f"s3://{name}/run")
    assert res.returncode == 0, res.stderr
    return objects(setup["fs"], f"{name}/run")


def same_run(found: dict[str, bytes], reference: dict[str, bytes]) -> None:
    """Every part object byte for byte, the same ledger lines, a complete manifest."""
    assert sorted(found) == sorted(reference)
    for name, data in reference.items():
        if "/part-" in name:
            assert found[name] == data, name
    lines = [sorted(found["parts.jsonl"].decode().splitlines()),
             sorted(reference["parts.jsonl"].decode().splitlines())]  # fmt: skip
    assert len(lines[0]) == CHUNKS and lines[0] == lines[1]
    assert json.loads(found["manifest.json"])["status"] == "complete"


def test_workers_put_their_parts_and_the_client_writes_the_ledger(
    setup: dict[str, Any], loky_objects: dict[str, bytes]
) -> None:
    name = setup["bucket"]()
    res = dask_run(setup, f"s3://{name}/run")
    assert res.returncode == 0, res.stderr
    assert "its parts go through the client" not in res.stderr
    same_run(objects(setup["fs"], f"{name}/run"), loky_objects)
    by_workers = setup["to_workers"].puts(name)
    by_client = setup["to_client"].puts(name)
    # moves and rounds: once each, by a worker; games, ledger, manifest: by the client
    for table in ("moves", "rounds"):
        assert len(parts(by_workers, table)) == CHUNKS, table
        assert parts(by_client, table) == [], table
    assert len(parts(by_client, "games")) == CHUNKS and parts(by_workers, "games") == []
    assert not [k for k in by_workers if not k.startswith(("run/moves/", "run/rounds/"))]
    assert {"run/parts.jsonl", "run/manifest.json"} <= set(by_client)
    # the manifest was in the store before any worker put a part (a resume finds the run)
    first_part = min(r.when for r in setup["to_workers"].requests if r.method == "PUT"
                     and r.path.startswith(f"/{name}/"))  # fmt: skip
    manifest_put = min(r.when for r in setup["to_client"].requests if r.method == "PUT"
                       and r.path == f"/{name}/run/manifest.json")  # fmt: skip
    assert manifest_put < first_part
    # and the workers wrote nothing on their own disks
    seen = setup["client"].run(os.listdir, str(setup["base"]))
    assert len(seen) == 2 and all(v == [] for v in seen.values()), seen


def test_workers_that_may_not_write_send_their_parts_to_the_client(
    setup: dict[str, Any], loky_objects: dict[str, bytes]
) -> None:
    name = setup["bucket"]()
    setup["to_workers"].deny.add(name)  # the workers' credentials may not write there
    res = dask_run(setup, f"s3://{name}/run")
    assert res.returncode == 0, res.stderr
    notes = [line for line in res.stderr.splitlines() if "its parts go through the client" in line]
    assert len(notes) == 2, res.stderr  # once for each worker, then no further attempt
    assert all(line.startswith("note: worker tcp://127.0.0.1:") for line in notes), notes
    assert all(f"s3://{name}/run" in line and "Access Denied" in line for line in notes)
    same_run(objects(setup["fs"], f"{name}/run"), loky_objects)
    by_client = setup["to_client"].puts(name)
    for table in ("moves", "rounds", "games"):
        assert len(parts(by_client, table)) == CHUNKS, table
    tried = [r for r in setup["to_workers"].requests if r.method == "PUT"
             and r.path.startswith(f"/{name}/")]  # fmt: skip
    assert len(tried) == 2  # one refused PUT per worker


def test_a_part_the_store_lost_is_not_recorded(setup: dict[str, Any]) -> None:
    name = setup["bucket"]()
    setup["to_workers"].drop.add(name)  # acknowledged, never stored
    url = f"s3://{name}/run"
    res = dask_run(setup, url)
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {url}/moves/part-"), res.stderr
    assert "from worker tcp://127.0.0.1:" in lines[0] and "is missing" in lines[0], lines[0]
    assert "it is not recorded" in lines[0]
    found = objects(setup["fs"], f"{name}/run")
    assert found["parts.jsonl"] == b""  # nothing recorded
    assert json.loads(found["manifest.json"])["status"] == "running"
    setup["to_workers"].drop.discard(name)  # the store keeps what it is given again
    res = cli(setup, "run", "--resume", url, "--backend", "dask", "--scheduler",
              setup["address"], "-q")  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = objects(setup["fs"], f"{name}/run")["parts.jsonl"].decode().splitlines()
    assert len(lines) == CHUNKS
