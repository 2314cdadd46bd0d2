"""Compile the engine once, in the parent, before any worker starts, and say so.

Without this step every worker process of a run compiles the same engine at the first
chunk it plays, all at once and in silence (minutes on a fresh machine), and the run's
games/s counts the compilation. When numba's cache (:mod:`haggis_sim._cache`) lacks
the engine a run needs, :func:`warm_up` says so, with an estimate (the last compile
measured on this machine, else :data:`DEFAULT_SECONDS`), compiles it in the calling
process by playing one throw-away game like the run's (nothing is written), which saves
it to the cache, and says how long it took; each worker then only loads it.

Imports stay light until the warm-up runs: importing this module compiles nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._cache import cache_dir

if TYPE_CHECKING:
    from strategies import Strategy

    from ..rules import Rules


class RunLike(Protocol):
    """What the warm-up reads of a run's configuration (a ``runner.run.RunConfig``)."""

    @property
    def seed(self) -> int: ...
    @property
    def seats(self) -> str: ...
    @property
    def log_moves(self) -> bool: ...
    def validate(self) -> tuple[Rules, list[Strategy]]: ...


#: a fresh compile of the engine on the 2-core development machine (`haggis-sim run -s
#: greedy,heuristic`: 57 s quiet, 69-85 s with other jobs running); the
#: estimate until this machine has measured its own
DEFAULT_SECONDS = 70.0
#: the last measured compile time, kept in the cache's base folder (it survives the
#: source changes that start a new ``numba-<hash>`` folder)
TIMING_FILE = "compile-seconds.json"


def key_functions(strategies: Sequence[Strategy]) -> list[Any]:
    """The compiled functions a run's chunks call first, whose cache entries show that the
    engine is compiled: the whole-chunk game loop when every strategy is compiled, else
    the step-by-step driver's pieces (and the kernels, if some strategy is compiled).
    numba writes a function's cache index only once it is compiled with all it calls, so
    a compile cut short leaves these missing."""
    from strategies import is_compiled
    from strategies.kernels import act

    from . import chunk

    if all(is_compiled(s) for s in strategies):
        return [chunk._play_compiled]
    found = [chunk._seat_to_act, chunk._commit]
    return found + [act] if any(is_compiled(s) for s in strategies) else found


def is_cached(strategies: Sequence[Strategy]) -> bool:
    """Whether numba's cache already holds the functions a run of ``strategies`` needs
    (a look at the cache folder, compiling and loading nothing)."""
    for dispatcher in key_functions(strategies):
        folder = Path(dispatcher.stats.cache_path)
        pattern = f"*.{dispatcher.py_func.__qualname__}-*.nbi"
        if not folder.is_dir() or not any(folder.glob(pattern)):
            return False
    return True


def _timing_path() -> Path:
    return cache_dir().parent / TIMING_FILE


def estimate() -> float:
    """Seconds a fresh compile takes here: the last one measured, else the default."""
    try:
        seconds = json.loads(_timing_path().read_text())["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_SECONDS
    return float(seconds) if isinstance(seconds, int | float) and seconds > 0 else DEFAULT_SECONDS


def _record(seconds: float) -> None:
    """Keep a measured compile time for the next estimate (best effort: a read-only cache
    folder only loses the estimate)."""
    path = _timing_path()
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"seconds": round(seconds, 1)}) + "\n")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def compiling_line(seconds: float) -> str:
    """What a run prints before compiling (``seconds``: the estimate)."""
    return f"compiling the engine (first run on this machine, about {seconds:.0f} s)…"


def _stand_ins(strategies: Sequence[Strategy]) -> list[Strategy]:
    """Quick stand-ins for the run's strategies: ``random`` for each compiled one, a
    plain-Python first-legal player for each Python one. The throw-away game then calls
    the same compiled functions, with the same types, as the run (a compiled strategy is
    a kernel id and a parameter array, all kernels compiled as one), but takes
    milliseconds whatever the run's search budget, and runs none of a plug-in's own code
    (its errors and its time belong to the run, reported there as always)."""
    from strategies import Strategy, is_compiled, make

    class FirstLegal(Strategy):
        name = "first-legal"

        def act(self, observation: Any, legal: list[Any], rng: Any) -> Any:
            return legal[0]

    return [make("random") if is_compiled(s) else FirstLegal() for s in strategies]


def compile_engine(config: RunLike) -> None:
    """Compile (or load from the cache) every compiled function a chunk of the run calls,
    by playing one throw-away game of it with :func:`_stand_ins` in this process; numba
    saves what it compiles to the cache, where the workers find it. Nothing is written."""
    from .chunk import play_chunk

    rules, built = config.validate()
    game = np.zeros(1, dtype=np.int64)
    play_chunk(
        rules.to_array(), _stand_ins(built), game, config.seed, config.seats, config.log_moves
    )


@contextlib.contextmanager
def interrupts_kept() -> Iterator[None]:
    """Make Ctrl-C during a compile leave it as a KeyboardInterrupt, whenever it lands.

    LLVM calls back into Python while it compiles; a KeyboardInterrupt raised inside such
    a callback is swallowed by ctypes (reported as "Exception ignored on calling ctypes
    callback function"), and numba then fails later with an unrelated ``RuntimeError``
    ("no compiled object yet"), a traceback instead of the run's "interrupted" line. So
    while the block runs in the main thread under Python's own SIGINT handler, a SIGINT
    is recorded as well as raised, ctypes' report of the swallowed one is dropped, and
    whatever leaves the block after a recorded SIGINT (an error, or nothing when the
    compile finished anyway) leaves as KeyboardInterrupt. Elsewhere (another thread, or
    SIGINT ignored or handled by the caller) the block runs as it is.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    seen: list[int] = []
    hook = sys.unraisablehook

    def on_sigint(signum: int, frame: object) -> None:
        seen.append(signum)
        raise KeyboardInterrupt

    def unraisable(report: Any) -> None:
        if not (seen and isinstance(report.exc_value, KeyboardInterrupt)):
            hook(report)

    signal.signal(signal.SIGINT, on_sigint)
    sys.unraisablehook = unraisable
    try:
        yield
    except Exception:
        if seen:
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = hook
    if seen:
        raise KeyboardInterrupt


def warm_up(config: RunLike, say: Callable[[str], None]) -> float | None:
    """Before the workers start: if the cache lacks the engine the run needs, compile it
    here (:func:`compile_engine`), once, saying :func:`compiling_line` before and
    ``compiled in N s`` after; return those seconds (recorded for the next estimate).

    When the cache holds it already, nothing is said or loaded (None): each worker loads
    it from the cache as it would anyway, and the main process does not wait for a load
    of its own first.
    """
    _, strategies = config.validate()
    if is_cached(strategies):
        return None
    say(compiling_line(estimate()))
    t0 = time.perf_counter()
    with interrupts_kept():  # Ctrl-C here: KeyboardInterrupt, not numba's RuntimeError
        compile_engine(config)
    seconds = time.perf_counter() - t0
    _record(seconds)
    say(f"compiled in {seconds:.0f} s")
    return seconds
