"""One writer per run folder: ``run`` and ``run --resume`` hold an OS lock on the folder.

Real processes throughout: a run killed with ``kill -9`` leaves its lock file but no
holder (the next writer locks it again), and a second writer while the first holds the
lock gets one line naming the holder's PID, status 2, and changes nothing. Without the
lock two resumes of one run both played its missing games (1,966 rows for 1,000 games).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from haggis_sim.logs import ledger

pytestmark = pytest.mark.slow  # real processes racing for one run folder

GAMES = 1000
LOCK = ".haggis-sim.lock"  # the lock file (haggis_sim.runner.lock.LOCK)
RUN = ["-s", "heuristic,greedy", "-n", str(GAMES), "--seed", "7", "--jobs", "1", "-q"]


def cli(*args: str) -> subprocess.Popen[str]:
    """``haggis-sim ARGS`` in a new process (output captured)."""
    return subprocess.Popen(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> bool:
    """Poll until ``ready()``; False if ``proc`` ended first."""
    while proc.poll() is None:
        if ready():
            return True
        time.sleep(0.005)
    return False


def lines_in(path: Path, n: int) -> Callable[[], bool]:
    """Whether ``path`` exists with at least ``n`` lines."""
    return lambda: path.exists() and len(path.read_text().splitlines()) >= n


def holds_lock(run: Path, proc: subprocess.Popen[str]) -> Callable[[], bool]:
    """Whether ``proc`` holds the run's lock (the lock file names its PID)."""

    def check() -> bool:
        try:
            return (run / LOCK).read_text().strip() == str(proc.pid)
        except OSError:
            return False

    return check


def games_rows(run: Path) -> tuple[int, int]:
    """How many rows the run's games table has, and how many distinct game ids."""
    files = ledger.table_files(run, "games")
    con = duckdb.connect()
    try:
        row = con.execute(
            "SELECT count(*), count(DISTINCT game_id) FROM read_parquet(?)",
            [[str(f) for f in files]],
        ).fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0]), int(row[1])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture
def killed_run(tmp_path: Path) -> Path:
    """A run killed with ``kill -9`` after three ledger lines (small chunks)."""
    run = tmp_path / "dr"
    proc = cli("run", *RUN, "--chunk-size", "10", "--out", str(run))
    try:
        assert wait_for(proc, lines_in(run / ledger.LEDGER, 3)), proc.communicate()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert len((run / ledger.LEDGER).read_text().splitlines()) < GAMES // 10
    return run


def assert_refused_by(second: subprocess.Popen[str], holder: subprocess.Popen[str]) -> None:
    """The second writer exits 2 with one error line naming the holder's PID."""
    out, err = second.communicate(timeout=300)
    assert second.returncode == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert f"PID {holder.pid}" in lines[0] and "being written" in lines[0], lines[0]


def test_a_second_resume_is_refused_while_the_first_plays(killed_run: Path) -> None:
    run = killed_run
    stale = (run / LOCK).exists()  # kill -9 left the lock file, with no holder
    first = cli("run", "--resume", str(run), "--jobs", "1", "-q")
    locked = wait_for(first, holds_lock(run, first))
    try:
        if locked:
            first.send_signal(signal.SIGSTOP)  # hold it mid-run while the second tries
        before = snapshot(run)
        second = cli("run", "--resume", str(run), "--jobs", "1", "-q")
        assert_refused_by(second, first)
        assert snapshot(run) == before  # the refused writer changed nothing
    finally:
        first.send_signal(signal.SIGCONT)
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, (out, err)
    assert games_rows(run) == (GAMES, GAMES)
    assert stale and not (run / LOCK).exists()  # released: a finished run holds none


def test_two_resumes_started_together_play_each_game_once(killed_run: Path) -> None:
    """Whatever the timing, one resume plays the missing games; the other is refused
    (status 2, the holder's PID) or, if it started after, finds the run complete."""
    procs = [cli("run", "--resume", str(killed_run), "--jobs", "1", "-q") for _ in range(2)]
    results = [(p.pid, *p.communicate(timeout=300), p.returncode) for p in procs]
    codes = sorted(code for *_, code in results)
    assert codes in ([0, 0], [0, 2]), results
    for pid, _out, err, code in results:
        if code == 2:
            other = next(p for p, *_ in results if p != pid)
            assert f"PID {other}" in err and len(err.strip().splitlines()) == 1, err
    assert games_rows(killed_run) == (GAMES, GAMES)


def test_a_second_run_with_the_same_out_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "new"
    first = cli("run", *RUN, "--chunk-size", "10", "--out", str(run))
    locked = wait_for(first, holds_lock(run, first))
    try:
        if locked:
            first.send_signal(signal.SIGSTOP)
        before = snapshot(run) if run.exists() else {}
        second = cli("run", *RUN, "--chunk-size", "10", "--out", str(run))
        assert_refused_by(second, first)
        assert (snapshot(run) if run.exists() else {}) == before
    finally:
        first.send_signal(signal.SIGCONT)
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, (out, err)
    assert games_rows(run) == (GAMES, GAMES)


def test_two_runs_with_the_same_out_started_together(tmp_path: Path) -> None:
    """The loser of two ``run --out X`` started together never plays into X: it is
    refused as the lock's holder's folder, or (if the winner finished first) as a run."""
    run = tmp_path / "together"
    procs = [cli("run", *RUN, "--out", str(run)) for _ in range(2)]
    results = [(*p.communicate(timeout=300), p.returncode) for p in procs]
    assert sorted(code for *_, code in results) == [0, 2], results
    refused = next(err for _out, err, code in results if code == 2)
    assert len(refused.strip().splitlines()) == 1, refused
    assert "being written" in refused or "use --resume" in refused, refused
    assert games_rows(run) == (GAMES, GAMES)


def test_a_stale_lock_file_alone_is_a_reusable_skeleton(tmp_path: Path) -> None:
    """A start killed right after taking the lock leaves only the lock file: the folder
    may be used again, as an empty one may."""
    run = tmp_path / "stale"
    run.mkdir()
    (run / LOCK).write_text(f"{os.getpid() + 10**6}\n")  # no process holds it
    proc = cli("run", *RUN, "--out", str(run))
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, (out, err)
    assert games_rows(run) == (GAMES, GAMES) and not (run / LOCK).exists()


def test_a_folder_a_writer_is_setting_up_is_refused_as_being_written(tmp_path: Path) -> None:
    """While the holder sets the folder up (a ledger's temporary, say: "holds files" for
    anyone else), a second ``run --out`` is told it is being written, with the PID."""
    from haggis_sim.runner.lock import RunLock

    run = tmp_path / "setting-up"
    run.mkdir()
    (run / ".parts.jsonl.tmp").write_text("")
    held = RunLock(run)  # this test process is the writer
    try:
        before = snapshot(run)
        proc = cli("run", *RUN, "--out", str(run))
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 2, (out, err)
        assert err.count("\n") == 1 and f"PID {os.getpid()}" in err, err
        assert snapshot(run) == before
    finally:
        held.release()
    assert not (run / LOCK).exists()
