"""Training's work spread over processes: one function over many argument tuples, in
``jobs`` loky worker processes, the results in the order of the calls (so nothing
computed from them depends on ``jobs``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: executor manager threads of executors this module killed: their dying words are not
#: the user's concern (see :func:`_silence`)
_killed_managers: set[threading.Thread] = set()


def _silence(thread: threading.Thread | None) -> None:
    """Keep ``thread`` (the manager thread of an executor whose workers this module kills
    on Ctrl-C or an error) from printing a traceback: loky's manager can still be handing
    a call to the queue when the kill clears its bookkeeping, and then raises (KeyError)
    after the command has said its one line. Other threads' exceptions print as ever."""
    if thread is None:
        return
    _killed_managers.add(thread)
    if getattr(threading.excepthook, "silences_killed_managers", False):
        return
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.thread in _killed_managers:
            return
        previous(args)

    hook.silences_killed_managers = True  # type: ignore[attr-defined]
    threading.excepthook = hook


def in_order(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], jobs: int) -> Iterator[T]:
    """``fn(*args)`` for each ``args`` of ``calls``, in order. With ``jobs`` 1 each call
    runs here when its result is taken; otherwise the calls run in loky's reusable
    executor (as the runner uses it: a joblib ``Parallel`` after a run in the
    same process would pick up the runner's executor and fail) and each result is taken
    as soon as it and those before it are done, so a caller can report progress while
    later calls still run.

    When taking a result fails or is interrupted (Ctrl-C), the workers are stopped at
    once and the calls not yet done dropped, so the command exits without waiting for
    work nobody will read."""
    if jobs <= 1:
        return (fn(*args) for args in calls)
    return _in_workers(fn, calls, jobs)


def _in_workers(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], jobs: int) -> Iterator[T]:
    """The calls in loky's workers, at most ``jobs + 1`` submitted and not finished at a
    time: a worker never waits for work, and nothing waits in the executor's own queue,
    which its shutdown with ``kill_workers`` cannot empty safely (it raises in its
    manager thread when a queued call's item is gone)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from joblib.externals.loky import get_reusable_executor

    ex = get_reusable_executor(max_workers=jobs, timeout=60)
    running: dict[Any, int] = {}  # future -> its call's index
    finished: dict[int, T] = {}
    submitted = taken = 0
    try:
        while taken < len(calls):
            while submitted < len(calls) and len(running) < jobs + 1:
                running[ex.submit(fn, *calls[submitted])] = submitted
                submitted += 1
            if taken in finished:
                yield finished.pop(taken)
                taken += 1
                continue
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for f in done:
                finished[running.pop(f)] = f.result()
    except BaseException:
        _silence(getattr(ex, "_executor_manager_thread", None))
        ex.shutdown(wait=False, kill_workers=True)
        raise
