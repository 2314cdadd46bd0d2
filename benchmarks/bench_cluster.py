"""Cluster benchmark: shared-nothing Dask against loky, and what one client can absorb.

Run: ``python benchmarks/bench_cluster.py`` (about 2-3 minutes on 2 cores). Two tables:

1. The same runs with loky (``--jobs 2``) and with ``--backend dask --scheduler`` on a
   ``dask scheduler`` and two ``dask worker`` processes started here (separate processes
   as on a cluster, not the in-process LocalCluster). Both are timed warm, in this one
   process through the API (``execute``): loky's reusable workers and the Dask workers
   have each played a small run first, so neither figure holds worker start-up or
   compilation. Each row alternates loky and Dask runs (``--repeats-per-backend``, 2)
   and shows each backend's best, so a drift of the machine's load hits both. Every Dask
   chunk's parts travel back to the client, which verifies, writes and records them;
   loky workers write their own.
2. The client's side alone: chunks played and serialized once, then verified, written and
   recorded in a loop (``parts.receive`` and ``parts.record_chunk``, as for chunks
   arriving from workers), with and without move logs: the games/s one client can take
   in, and so how many workers at table 1's per-worker rate it can keep up with. The
   network transfer is not included.

Prints Markdown tables and writes them to ``benchmarks/results/bench_cluster.md``
(``--out``), which the docs' cluster page includes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

from _results import add_out_option, recorded

BIN = Path(sys.executable).parent


def timed_run(pairing: str, games: int, out: Path, **how: object) -> float:
    """Wall seconds of one run played through the API in this process (warm workers)."""
    from haggis_sim.rules import Rules
    from haggis_sim.runner.run import RunConfig, execute

    config = RunConfig(strategies=pairing.split(","), games=games, seed=7, command="bench",
                       rules=Rules.preset("revised", players=2).as_dict(), **how)  # fmt: skip
    t0 = time.perf_counter()
    execute(config, out)
    return time.perf_counter() - t0


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """A ``dask scheduler`` on a free local port and ``workers`` one-thread workers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    scheduler = ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    worker = ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"]
    procs = []
    for command in [scheduler] + [worker] * workers:
        quiet = subprocess.DEVNULL
        procs.append(
            subprocess.Popen(
                [str(BIN / "dask"), *command], start_new_session=True, stdout=quiet, stderr=quiet
            )
        )
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(workers, timeout=120)
    return address, procs


def stop_cluster(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


def backends(opts: argparse.Namespace, work: Path) -> dict[str, float]:
    """Table 1; returns the Dask per-worker games/s of each pairing."""
    cases = [("greedy,greedy", opts.games), ("heuristic,greedy", opts.heuristic_games)]
    address, procs = start_cluster(2)
    per_worker = {}
    try:
        loky_how = {"jobs": 2}
        dask_how = {"backend": "dask", "scheduler": address}
        for name, how in (("loky", loky_how), ("dask", dask_how)):  # start and warm the workers
            timed_run("heuristic,greedy", 400, work / f"warm-{name}", chunk_size=50, **how)
        print("| run | games | loky --jobs 2 | Dask, 2 workers | Dask overhead |")
        print("|---|---|---|---|---|")
        for pairing, games in cases:
            n = int(float(games))
            rates: dict[str, list[float]] = {"loky": [], "dask": []}
            for k in range(opts.repeats_per_backend):  # alternated: load drifts hit both
                for name, how in (("loky", loky_how), ("dask", dask_how)):
                    seconds = timed_run(pairing, n, work / f"{name}-{pairing}-{k}", **how)
                    rates[name].append(n / seconds)
            loky, dask = max(rates["loky"]), max(rates["dask"])
            per_worker[pairing] = dask / 2
            print(f"| {pairing}, move logs | {n:,} | {loky:,.0f} games/s | {dask:,.0f} games/s "
                  f"| {100 * (loky / dask - 1):+.0f}% |")  # fmt: skip
            print(f"done: {pairing}", file=sys.stderr)
    finally:
        stop_cluster(procs)
    return per_worker


def client_side(opts: argparse.Namespace, work: Path, per_worker: dict[str, float]) -> None:
    """Table 2: verify + write + ledger of pre-serialized chunks, in a loop."""
    from haggis_sim.rules import Rules
    from haggis_sim.runner.parts import receive, record_chunk, ship
    from haggis_sim.runner.pool import InlinePool
    from haggis_sim.runner.run import RunConfig, create_run, run_chunk

    size, repeats = opts.chunk, opts.repeats
    print(f"\nclient side: {repeats} chunks of {size:,} games each, verified, written and "
          "recorded one after another\n")  # fmt: skip
    print("| chunks of | games/s the client absorbs | MiB/s written | workers it can feed |")
    print("|---|---|---|---|")
    pool = InlinePool()
    for pairing in per_worker:
        for log_moves in (True, False):
            config = RunConfig(strategies=pairing.split(","), games=size * repeats, chunk_size=size,
                               rules=Rules.preset("revised", players=2).as_dict(), seed=1,
                               log_moves=log_moves, command="bench")  # fmt: skip
            run_dir = work / f"client-{pairing}-{log_moves}"
            create_run(config, run_dir)
            sent = run_chunk(asdict(config), None, 0, size, ship(config.validate()[1]))
            assert sent.parts is not None
            results = []
            for k in range(repeats):  # the same bytes under each chunk's own name
                name = f"part-{k * size:010d}-{(k + 1) * size:010d}.parquet"
                results.append(replace(sent, start=k * size, stop=(k + 1) * size,
                                       parts=replace(sent.parts, name=name)))  # fmt: skip
            t0 = time.perf_counter()
            for result in results:
                record_chunk(run_dir, receive(pool, pool.submit(lambda r=result: r), run_dir))
            secs = time.perf_counter() - t0
            rate = size * repeats / secs
            mib = sum(f.size for f in sent.files.values()) * repeats / secs / 2**20
            logs = "move logs" if log_moves else "no move logs"
            feeds = rate / per_worker[pairing]
            print(f"| {pairing}, {logs} | {rate:,.0f} | {mib:,.0f} | {feeds:,.0f} "
                  f"(at {per_worker[pairing]:,.0f} games/s each) |")  # fmt: skip
            shutil.rmtree(run_dir)
            del results, sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default="6e4", help="games of the greedy,greedy rows")
    parser.add_argument("--heuristic-games", default="2e4", help="games of heuristic,greedy")
    parser.add_argument(
        "--repeats-per-backend", type=int, default=2,
        help="timed runs of each backend per row, alternated; the best counts",
    )  # fmt: skip
    parser.add_argument("--chunk", type=int, default=4000, help="games per client-side chunk")
    parser.add_argument("--repeats", type=int, default=25, help="client-side chunks per row")
    add_out_option(parser, "bench_cluster")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="haggis-bench-cluster-"))
    try:
        with recorded(opts.out):
            per_worker = backends(opts, work)
            client_side(opts, work, per_worker)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
