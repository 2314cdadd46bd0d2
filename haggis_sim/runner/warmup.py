"""Compile the engine once, in the parent, before any worker starts, and say so.

Without this step every worker process of a run compiles the same engine at the first
chunk it plays, all at once and in silence (minutes on a fresh machine), and the run's
games/s counts the compilation. :func:`warm_up` plays one throw-away game of the run
(its strategies, rules, seats and move logging; nothing is written) in the calling
process: numba compiles, or loads from its cache, exactly the functions the workers then
call, and saves them to the cache (:mod:`haggis_sim._cache`), so each worker only loads
them. When the cache does not hold the engine yet, a line says so before the compile
starts, with an estimate (the last compile measured on this machine, else
:data:`DEFAULT_SECONDS`), and another says how long it took.

Imports stay light until the warm-up runs: importing this module compiles nothing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
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


#: a fresh compile of the engine on the 2-core development machine (69 s measured on
#: 2026-11-27, load 3.5: `haggis-sim run -s greedy,heuristic`); the estimate until this
#: machine has measured its own
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
    """The run's strategies with each Python (not compiled) one replaced by a stand-in
    that plays the first legal action: the throw-away game calls the same compiled
    functions, with the same types, as the run, but runs none of a plug-in's own code
    (its errors and its time belong to the run, reported there as always)."""
    from strategies import Strategy, is_compiled

    class FirstLegal(Strategy):
        name = "first-legal"

        def act(self, observation: Any, legal: list[Any], rng: Any) -> Any:
            return legal[0]

    return [s if is_compiled(s) else FirstLegal() for s in strategies]


def warm_up(config: RunLike, say: Callable[[str], None]) -> float | None:
    """Compile (or load from the cache) everything the run's workers will call, by playing
    one throw-away game of the run in this process (Python strategies stood in for by
    :func:`_stand_ins`); nothing is written.

    If the cache lacks the engine, ``say`` gets :func:`compiling_line` before the compile
    starts and ``compiled in N s`` after it; returns those seconds (recorded for the next
    estimate), or None when the engine was already cached (nothing said).
    """
    from .chunk import play_chunk

    rules, built = config.validate()
    strategies = _stand_ins(built)
    cached = is_cached(strategies)
    if not cached:
        say(compiling_line(estimate()))
    t0 = time.perf_counter()
    game = np.zeros(1, dtype=np.int64)
    play_chunk(rules.to_array(), strategies, game, config.seed, config.seats, config.log_moves)
    if cached:
        return None
    seconds = time.perf_counter() - t0
    _record(seconds)
    say(f"compiled in {seconds:.0f} s")
    return seconds
