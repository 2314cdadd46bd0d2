"""Where chunks run: in this process, in loky worker processes, or on a Dask cluster.

A pool keeps a bounded number of chunks in flight and hands back each as it finishes,
so the runner can size the next chunk from measured speed and stop within one chunk's
time when interrupted. Which worker runs a chunk never changes its games.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as wait_futures
from typing import Any, NoReturn, Protocol

from ..errors import InputError

WORKER_MEMORY = 768 * 2**20  # resident memory budget of one worker process (measured ~0.5 GiB)


class BackendError(InputError):
    """The execution backend cannot be used (not installed, scheduler unreachable)."""


class Pool(Protocol):
    """A place to run chunk tasks, at most ``workers`` at a time."""

    workers: int
    shared_disk: bool  # whether the workers write in the client's folders (else shared-nothing)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def wait_any(self, tasks: list[Any], timeout: float) -> tuple[list[Any], list[Any]]: ...

    def result(self, task: Any) -> Any: ...

    def close(self, cancel: bool) -> None: ...
    def watch(self) -> list[str]: ...


def available_memory() -> int | None:
    """Bytes of memory available to new processes (Linux ``MemAvailable``), if known."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def cores() -> int:
    """The processors this process may run on (its CPU affinity, where the system has
    one, else the machine's count)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def local_workers(requested: int, tasks_possible: int) -> tuple[int, str | None]:
    """Worker processes for this machine, and a note when fewer than asked for.

    At most: the cores (the work is CPU-bound: more processes only add start-up cost and
    memory), what memory holds at :data:`WORKER_MEMORY` each, and the chunks there are.
    """
    here = cores()
    want = requested or here
    limits = [(here, f"{here} cores")]
    memory = available_memory()
    if memory is not None:
        limits.append((max(1, memory // WORKER_MEMORY), f"{memory / 2**30:.1f} GiB free memory"))
    limits.append((max(1, tasks_possible), f"{tasks_possible:,} games to play"))
    n, reason = min(limits, key=lambda x: x[0])
    n = min(n, want)
    note = None
    if requested and n < requested:
        note = f"--jobs {requested}: using {n} worker process(es) (limited by {reason})"
    return n, note


class InlinePool:
    """Runs each task in this process when it is submitted (``--jobs 1``)."""

    def __init__(self) -> None:
        self.workers = 1
        self.shared_disk = True

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        try:
            fut.set_result(fn(*args))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed back through the future
            fut.set_exception(exc)
        return fut

    def wait_any(self, tasks: list[Any], timeout: float) -> tuple[list[Any], list[Any]]:
        return list(tasks), []

    def result(self, task: Any) -> Any:
        return task.result()

    def close(self, cancel: bool) -> None:
        return None

    def watch(self) -> list[str]:
        """Nothing to watch: this process is the worker."""
        return []


class LokyPool:
    """joblib's loky process pool (reused across runs in one Python process)."""

    def __init__(self, workers: int) -> None:
        from joblib.externals.loky import get_reusable_executor

        self.workers = workers
        self.shared_disk = True
        self._executor = get_reusable_executor(max_workers=workers, timeout=60)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = self._executor.submit(fn, *args)  # loky is unannotated
        return future

    def wait_any(self, tasks: list[Any], timeout: float) -> tuple[list[Any], list[Any]]:
        done, rest = wait_futures(tasks, timeout=timeout, return_when=FIRST_COMPLETED)
        return list(done), list(rest)

    def result(self, task: Any) -> Any:
        return task.result()

    def close(self, cancel: bool) -> None:
        if cancel:
            # the workers may be mid-chunk: stop them now; their temporaries are removed
            # when the run resumes
            self._executor.shutdown(wait=False, kill_workers=True)

    def watch(self) -> list[str]:
        """Nothing to say: loky replaces a worker that dies and fails its chunk."""
        return []


class DaskPool:
    """A Dask distributed cluster: the given scheduler, or a local cluster.

    Shared-nothing: a worker's disk need not be the client's, so the tasks return their
    parts and the client writes them (:mod:`.parts`).
    """

    # distributed ships py.typed but leaves Client, its methods and wait unannotated: the
    # calls below ignore just that (no-untyped-call)

    shared_disk = False

    def __init__(self, workers: int, scheduler: str | None) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise BackendError(
                "--backend dask needs dask.distributed: pip install 'haggis-sim[cluster]'"
            ) from None
        try:
            if scheduler:
                self._client = Client(scheduler, timeout="20s")  # type: ignore[no-untyped-call]
            else:
                self._client = Client(  # type: ignore[no-untyped-call]
                    n_workers=workers, threads_per_worker=1, dashboard_address=None
                )
        except (OSError, TimeoutError, ValueError) as exc:
            raise BackendError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        self._scheduler = scheduler
        per_worker: dict[str, int] = self._client.nthreads()  # type: ignore[no-untyped-call]
        self._known = set(per_worker)
        self._checked = time.monotonic()
        self._alone_since: float | None = None  # when the last worker left (None: one is there)
        self._notes: list[str] = []  # changes of workers not said yet
        threads = sum(per_worker.values())
        self.workers = max(1, threads)
        #: a note when the scheduler has no workers yet (the chunks wait for the first)
        self.note = (
            f"the Dask scheduler {scheduler} has no workers yet: the games start when one "
            "joins (Ctrl-C stops; --resume continues)"
            if scheduler and threads == 0
            else None
        )

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return self._client.submit(fn, *args, pure=False)
        except (Exception, asyncio.CancelledError) as exc:
            self._reraise(exc)

    def wait_any(self, tasks: list[Any], timeout: float) -> tuple[list[Any], list[Any]]:
        from distributed import wait
        from distributed.client import FIRST_COMPLETED as DASK_FIRST

        try:
            done, rest = wait(  # type: ignore[no-untyped-call]
                tasks, timeout=timeout, return_when=DASK_FIRST
            )
        except TimeoutError:
            return [], list(tasks)
        except (Exception, asyncio.CancelledError) as exc:
            self._reraise(exc)
        return list(done), list(rest)

    def _reraise(self, exc: BaseException) -> NoReturn:
        """Raise :class:`SchedulerLost` when ``exc`` comes of the scheduler's going (the
        client cancels every task when its connection to the scheduler closes for good, or
        is reconnecting; a connection closed under a fetch is the scheduler's when it no
        longer answers :func:`check_scheduler`); else ``exc`` itself, a task's own error."""
        from distributed.client import FuturesCancelledError

        if isinstance(exc, FuturesCancelledError | asyncio.CancelledError) or (
            self._client.status != "running" or self._unreachable(exc)
        ):
            raise SchedulerLost(
                f"the Dask scheduler {self._scheduler or '(local)'} stopped answering "
                "(the connection to it closed)"
            ) from None
        raise exc

    def _unreachable(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a closed connection and the scheduler no longer answers."""
        from distributed.comm.core import CommClosedError

        if not (self._scheduler and isinstance(exc, CommClosedError | OSError)):
            return False
        try:
            check_scheduler(self._scheduler, timeout=LOST_CHECK_SECONDS)
        except BackendError:
            return True
        return False

    def result(self, task: Any) -> Any:
        """The task's result, fetched from its worker; the worker's copy is released (the
        client holds the one chunk it is writing, the workers none they have handed over).

        A worker lost while its result is fetched sends the task back to the scheduler:
        the fetch then waits for it to be played again, watching the workers meanwhile
        (:class:`WorkersLost` when none is left for :data:`WORKERLESS_SECONDS`)."""
        while True:
            try:
                value = task.result(timeout=WATCH_SECONDS)
                break
            except TimeoutError:
                self._poll()
            except (Exception, asyncio.CancelledError) as exc:
                self._reraise(exc)
        task.release()
        return value

    def close(self, cancel: bool) -> None:
        self._client.close()  # type: ignore[no-untyped-call]

    def watch(self) -> list[str]:
        """A note for each worker that left (the scheduler plays its chunks again on the
        others) or joined since the last call, the scheduler asked at most every
        :data:`WATCH_SECONDS`; :class:`WorkersLost` once the cluster has had no worker for
        :data:`WORKERLESS_SECONDS` after losing its last (a cluster that has had none yet
        waits for the first: see ``note``)."""
        self._poll()
        notes, self._notes = self._notes, []
        return notes

    def _poll(self) -> None:
        """Ask the scheduler for its workers (at most every :data:`WATCH_SECONDS`), keep a
        note of each change for :meth:`watch`, and raise :class:`WorkersLost` when due."""
        now = time.monotonic()
        if now - self._checked < WATCH_SECONDS:
            return
        self._checked = now
        try:
            threads: dict[str, int] = self._client.nthreads()  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError):  # the scheduler itself: the tasks' errors say so
            return
        self._notes += [
            f"worker {w} left the cluster; the chunks it held are played again on the others"
            for w in sorted(self._known - set(threads))
        ]
        self._notes += [
            f"worker {w} joined the cluster" for w in sorted(set(threads) - self._known)
        ]
        lost_all = not threads and (self._known or self._alone_since is not None)
        self._known = set(threads)
        if threads:
            self._alone_since = None
            self.workers = sum(threads.values())
        elif lost_all:
            self._alone_since = self._alone_since or now
            if now - self._alone_since >= WORKERLESS_SECONDS:
                notes, self._notes = self._notes, []
                raise WorkersLost(
                    f"every worker of the Dask scheduler {self._scheduler or '(local)'} left "
                    f"and none joined within {WORKERLESS_SECONDS:g} s",
                    notes,
                )


SCHEDULER_HANDSHAKE = 15.0  # seconds a scheduler has to connect and say what it is
WATCH_SECONDS = 2.0  # how often a Dask run asks the scheduler which workers it has
LOST_CHECK_SECONDS = 5.0  # how long a scheduler has to answer after a connection closed
WORKERLESS_SECONDS = 60.0  # how long a Dask run waits for a worker after losing its last


class WorkersLost(RuntimeError):
    """Every worker of the cluster left, and none joined within the time allowed.

    ``notes`` are the changes of workers seen but not said yet (a fetch that waited for a
    lost worker's chunk saw them): the run says them before its error."""

    def __init__(self, message: str, notes: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.notes = tuple(notes)


class SchedulerLost(WorkersLost):
    """The cluster's scheduler stopped answering during the run (its process ended, its
    machine or the network went): the client's tasks are cancelled, the run cannot go on."""


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """BackendError now, before anything is written, if ``backend`` cannot run here, or
    if ``scheduler`` does not answer as a Dask scheduler within :data:`SCHEDULER_HANDSHAKE`
    seconds (a closed port, an address nobody answers, a server of another kind)."""
    if backend == "dask":
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise BackendError(
                "--backend dask needs dask.distributed: pip install 'haggis-sim[cluster]'"
            )
        if scheduler:
            check_scheduler(scheduler)


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """BackendError unless a Dask scheduler at ``address`` answers its identity request
    within ``timeout`` seconds (default :data:`SCHEDULER_HANDSHAKE`).

    The Dask client itself would wait without end on a server that accepts the
    connection but does not speak Dask's protocol; this short exchange, run in a thread
    of its own so that a caller's event loop is never touched, decides first.
    """
    import asyncio
    import threading

    timeout = SCHEDULER_HANDSHAKE if timeout is None else timeout

    async def identity() -> object:
        from distributed.comm.core import connect
        from distributed.security import Security

        # distributed leaves connect, Security and get_connection_args unannotated
        comm = await connect(  # type: ignore[no-untyped-call]
            address,
            timeout=timeout * 2 / 3,
            **Security().get_connection_args("client"),  # type: ignore[no-untyped-call]
        )
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    outcome: list[object] = []  # the reply, or the exception the exchange ended with

    def exchange() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(identity(), timeout)))
        except BaseException as exc:  # handed to the caller's thread below
            outcome.append(exc)

    # a daemon thread: Ctrl-C in the caller ends the wait at once and the process does
    # not wait for the exchange at exit
    worker = threading.Thread(target=exchange, name="scheduler-handshake", daemon=True)
    worker.start()
    worker.join(timeout + 5)
    reply = outcome[0] if outcome else TimeoutError()
    if isinstance(reply, (OSError, TimeoutError, ValueError, TypeError)):
        why = str(reply) or f"no answer within {timeout:g} s"
        raise BackendError(f"cannot reach the Dask scheduler {address}: {why}")
    if isinstance(reply, Exception):  # the comm layer's own errors for a garbled answer
        raise BackendError(f"{address} did not answer as a Dask scheduler ({type(reply).__name__})")
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        raise BackendError(
            f"{address} answered, but not as a Dask scheduler: give the scheduler's "
            "address (tcp://HOST:8786 by default)"
        )
