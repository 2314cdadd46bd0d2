"""What a Dask run says of its workers, and when it gives up on them: the rules of
``DaskPool.watch`` against a scheduler whose answers the test writes (the real cluster:
tests/runner/test_dask_lost_workers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import haggis_sim.runner.pool as pool


class Scheduler:
    """Answers ``nthreads()`` with the workers the test gives it, one answer a call."""

    def __init__(self, *answers: dict[str, int]) -> None:
        self.answers = list(answers)

    def nthreads(self) -> dict[str, int]:
        return self.answers.pop(0)


def watched(first: dict[str, int], *later: dict[str, int]) -> pool.DaskPool:
    """A DaskPool made at time 1000 with the workers ``first``, then seeing ``later``."""
    dask = object.__new__(pool.DaskPool)
    dask._client = Scheduler(first, first, *later)
    dask._scheduler = "tcp://head:8786"
    dask._known = set(dask._client.nthreads())
    dask._checked = 1000.0
    dask._alone_since = None
    dask._notes = []
    dask.workers = max(1, sum(dask._client.nthreads().values()))
    return dask


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The monotonic time ``watch`` reads, moved by the test."""
    now = [1000.0]
    monkeypatch.setattr(pool.time, "monotonic", lambda: now[0])
    return now


def step(dask: pool.DaskPool, clock: list[float], seconds: float) -> list[str]:
    clock[0] += seconds
    return dask.watch()


def test_a_worker_that_leaves_or_joins_is_said_once(clock: list[float]) -> None:
    dask = watched({"a": 1, "b": 1}, {"a": 1}, {"a": 1}, {"a": 1, "c": 2})
    assert step(dask, clock, 3) == [
        "worker b left the cluster; the chunks it held are played again on the others"
    ]
    assert dask.workers == 1
    assert step(dask, clock, 3) == []
    assert step(dask, clock, 3) == ["worker c joined the cluster"]
    assert dask.workers == 3


def test_the_scheduler_is_asked_at_most_every_two_seconds(clock: list[float]) -> None:
    dask = watched({"a": 1}, {})
    assert step(dask, clock, 1) == [] and step(dask, clock, 0.5) == []
    assert dask._client.answers == [{}]  # not asked yet
    assert step(dask, clock, 1)[0].startswith("worker a left")


def test_losing_every_worker_ends_the_run_after_the_wait(clock: list[float]) -> None:
    dask = watched({"a": 1}, *[{}] * 40)
    step(dask, clock, 3)  # a leaves
    for _ in range(int(pool.WORKERLESS_SECONDS // 3) - 1):
        assert step(dask, clock, 3) == []
    with pytest.raises(pool.WorkersLost, match="tcp://head:8786 left and none joined within 60 s"):
        step(dask, clock, 3)


def test_a_worker_that_joins_in_time_keeps_the_run_going(clock: list[float]) -> None:
    dask = watched({"a": 1}, {}, {}, {"b": 1}, *[{}] * 21)
    step(dask, clock, 3)
    step(dask, clock, pool.WORKERLESS_SECONDS - 5)
    assert step(dask, clock, 3) == ["worker b joined the cluster"]
    step(dask, clock, 3)  # b leaves: the wait starts again
    for _ in range(int(pool.WORKERLESS_SECONDS // 3) - 1):
        step(dask, clock, 3)
    with pytest.raises(pool.WorkersLost):
        step(dask, clock, 3)


def test_a_cluster_without_workers_yet_waits_for_the_first(clock: list[float]) -> None:
    dask = watched({}, *[{}] * 10, {"a": 1})
    for _ in range(10):
        assert step(dask, clock, pool.WORKERLESS_SECONDS) == []
    assert step(dask, clock, 3) == ["worker a joined the cluster"]


class Unfinished:
    """A task whose result never comes (its worker died while it was fetched)."""

    def result(self, timeout: float) -> None:
        raise TimeoutError

    def release(self) -> None:
        raise AssertionError("never fetched, never released")


def test_a_result_lost_with_the_last_worker_ends_the_run(clock: list[float]) -> None:
    """The fetch of a result whose worker died waits for the task to be played again; with
    no worker left it ends like the wait for a chunk does, and the error carries the notes
    of what it saw meanwhile (no watch said them)."""
    dask = watched({"a": 1}, *[{}] * 40)

    def result(timeout: float) -> None:
        clock[0] += timeout
        raise TimeoutError

    task = Unfinished()
    task.result = result  # type: ignore[method-assign]
    with pytest.raises(pool.WorkersLost, match="within 60 s") as lost:
        dask.result(task)
    assert lost.value.notes == (
        "worker a left the cluster; the chunks it held are played again on the others",
    )
    assert dask.watch() == []  # said once, by the error


class Connected:
    """A client still connected to its scheduler, as far as it knows."""

    status = "running"


def test_a_closed_connection_is_the_schedulers_loss_only_when_it_no_longer_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fetch can see the scheduler's death as a connection closed while the client still
    counts itself connected: SchedulerLost when the scheduler fails the handshake; the
    error itself when the scheduler answers, or for an error of another kind."""
    from distributed.comm.core import CommClosedError

    dask = object.__new__(pool.DaskPool)
    dask._client = Connected()
    dask._scheduler = "tcp://head:8786"
    asked: list[tuple[str, float | None]] = []
    answers = {"dead": True}

    def check(address: str, timeout: float | None = None) -> None:
        asked.append((address, timeout))
        if answers["dead"]:
            raise pool.BackendError(f"cannot reach the Dask scheduler {address}")

    monkeypatch.setattr(pool, "check_scheduler", check)
    closed = CommClosedError("in <TCP (closed) ConnectionPool>: Connection reset by peer")
    with pytest.raises(pool.SchedulerLost, match="tcp://head:8786 stopped answering"):
        dask._reraise(closed)
    assert asked == [("tcp://head:8786", pool.LOST_CHECK_SECONDS)]
    answers["dead"] = False
    with pytest.raises(CommClosedError):
        dask._reraise(closed)
    with pytest.raises(ValueError, match="a task's own"):
        dask._reraise(ValueError("a task's own"))
    assert len(asked) == 2  # no handshake for an error that is no closed connection


class LosesEveryWorker(pool.InlinePool):
    """Plays the first chunk, then ends like a Dask fetch that waited in vain for a lost
    worker's chunk: WorkersLost carrying a note nobody has said yet."""

    def watch(self) -> list[str]:
        raise pool.WorkersLost(
            "every worker of the Dask scheduler tcp://head:8786 left and none joined within 60 s",
            ["worker tcp://w1 left the cluster; the chunks it held are played again on the others"],
        )


def test_the_run_says_the_lost_workers_notes_before_its_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cli_helpers import invoke

    import haggis_sim.runner.run as run

    monkeypatch.setattr(run, "make_pool", lambda config, games: (LosesEveryWorker(), None))
    out = f"{tmp_path}/run"
    res = invoke("run", "-s", "random,random", "-n", "8", "--chunk-size", "4", "--out", out)
    assert res.exit_code == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert lines[-2:] == [
        "note: worker tcp://w1 left the cluster; the chunks it held are played again on the others",
        "error: every worker of the Dask scheduler tcp://head:8786 left and none joined "
        f"within 60 s; finished chunks are kept (--resume {out})",
    ], lines
