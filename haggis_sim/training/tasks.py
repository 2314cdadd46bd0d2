"""Training's work spread over processes: one function over many argument tuples, in
``jobs`` loky worker processes, the results in the order of the calls (so nothing
computed from them depends on ``jobs``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def in_order(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], jobs: int) -> Iterator[T]:
    """``fn(*args)`` for each ``args`` of ``calls``, in order. With ``jobs`` 1 each call
    runs here when its result is taken; otherwise all are submitted at once to loky's
    reusable executor (as the runner uses it: a joblib ``Parallel`` after a run in the
    same process would pick up the runner's executor and fail) and each result is taken
    as it is needed, so a caller can report progress while later calls still run."""
    if jobs <= 1:
        return (fn(*args) for args in calls)
    from joblib.externals.loky import get_reusable_executor

    ex = get_reusable_executor(max_workers=jobs, timeout=60)
    futures = [ex.submit(fn, *args) for args in calls]
    return (f.result() for f in futures)
