"""A Dask run that loses its workers: one lost worker's chunks are played again on the
other and the run says so; once every worker is gone and none joins within the time
allowed, the run ends with one error line and the ``--resume`` command, and resumes; so
does a run whose scheduler is killed.

A ``dask scheduler`` and two ``dask worker`` processes (no nanny: a killed worker stays
dead) run on this machine, each worker unable to see the run's folder. The CLI runs in
this process with the wait for a worker cut to 3 s; a thread kills the workers one at a
time once the ledger shows them playing.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke
from cluster_helpers import check_private_mount, env, start_cluster, stop

import haggis_sim.runner.pool as pool

pytestmark = pytest.mark.slow  # a scheduler, two workers, a run and its resume
pytest.importorskip("distributed")

GAMES = 120
#: a slow search, so the run is still playing when the workers are killed
RUN = ["-s", "mcts:iters=400,greedy", "-n", str(GAMES), "--chunk-size", "6", "--seed", "5"]


def _chunks(run_dir: Path) -> int:
    ledger = run_dir / "parts.jsonl"
    return len(ledger.read_text().splitlines()) if ledger.exists() else 0


def _kill_when(run_dir: Path, procs: list[Any], log: list[tuple[str, float]]) -> None:
    """Kill worker 1 after the first logged chunk, worker 2 after two more."""
    for worker, after in ((procs[1], 1), (procs[2], 3)):
        deadline = time.monotonic() + 240
        while _chunks(run_dir) < after and time.monotonic() < deadline:
            time.sleep(0.1)
        os.killpg(worker.pid, signal.SIGKILL)
        log.append((f"killed after {_chunks(run_dir)} chunks", time.monotonic()))
        after += _chunks(run_dir)


Killer = Callable[[Path, list[Any], list[tuple[str, float]]], None]


def _run_while(base: Path, kill: Killer) -> tuple[str, Path, Any, float, list[tuple[str, float]]]:
    """A Dask run on a fresh cluster of two workers, ``kill`` running beside it in a
    thread (it logs what it killed and when); the scheduler's address, the run folder, the
    CLI's result, when it ended and the kill log. The cluster is stopped after."""
    if why := check_private_mount(base):
        pytest.fail(why)
    address, procs = start_cluster(base, 2, env())
    try:
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        run_dir = base / "run"
        killed: list[tuple[str, float]] = []
        killer = threading.Thread(target=kill, args=(run_dir, procs, killed), daemon=True)
        killer.start()
        res = invoke("run", *RUN, "--backend", "dask", "--scheduler", address,
                     "--out", str(run_dir))  # fmt: skip
        ended = time.monotonic()
        killer.join(timeout=5)
    finally:
        stop(procs)
    return address, run_dir, res, ended, killed


def _resume_to_the_end(run_dir: Path) -> None:
    """Resume the run on this machine: it plays every game left."""
    done = invoke("run", "--resume", str(run_dir), "--backend", "loky", "--jobs", "2", "-q")
    assert done.exit_code == 0, done.stderr
    assert _chunks(run_dir) * 6 >= GAMES


def test_a_lost_worker_is_replaced_and_losing_every_worker_ends_the_run(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "WORKERLESS_SECONDS", 3.0)
    _, run_dir, res, ended, killed = _run_while(tmp_path_factory.mktemp("lost-workers"), _kill_when)
    assert len(killed) == 2, (killed, res.stderr)
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr, res.exception)
    assert "Traceback" not in res.stderr + res.stdout
    lines = res.stderr.strip().splitlines()
    left = [line for line in lines if "left the cluster" in line]
    assert left and left[0].startswith("note: worker tcp://"), lines
    assert "played again on the others" in left[0]
    assert lines[-1].startswith("error: every worker of the Dask scheduler"), lines
    assert f"--resume {run_dir}" in lines[-1] and "within 3 s" in lines[-1], lines[-1]
    assert sum(line.startswith("error:") for line in lines) == 1, lines
    # the wait (3 s) plus a poll (2 s) and the chunk in hand, not minutes
    assert ended - killed[1][1] < 30, (ended - killed[1][1], killed)
    # the second worker played on after the first was killed
    assert _chunks(run_dir) > 1
    _resume_to_the_end(run_dir)


def _kill_scheduler_when(run_dir: Path, procs: list[Any], log: list[tuple[str, float]]) -> None:
    """Kill the scheduler after the first logged chunk."""
    deadline = time.monotonic() + 240
    while _chunks(run_dir) < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(procs[0].pid, signal.SIGKILL)
    log.append((f"killed the scheduler after {_chunks(run_dir)} chunks", time.monotonic()))


def test_a_scheduler_that_dies_mid_run_ends_the_run_with_one_line_and_resumes(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The scheduler killed while its two workers play: the run ends within a minute with
    one ``error:`` line naming the scheduler and the ``--resume`` command, no traceback;
    the logged chunks stay and the resume on this machine plays the rest."""
    base = tmp_path_factory.mktemp("dead-scheduler")
    address, run_dir, res, ended, killed = _run_while(base, _kill_scheduler_when)
    assert killed, res.stderr
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr, res.exception)
    assert "Traceback" not in res.stderr + res.stdout
    lines = res.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], lines
    assert errors[0].startswith(f"error: the Dask scheduler {address} stopped answering")
    assert f"--resume {run_dir}" in errors[0], errors[0]
    assert ended - killed[0][1] < 60, (ended - killed[0][1], killed)
    assert _chunks(run_dir) >= 1
    _resume_to_the_end(run_dir)
