"""Compile the engine once, in the parent, before any worker starts, and say so.

Without this step every worker process of a run compiles the same engine at the first
chunk it plays, all at once and in silence (minutes on a fresh machine), and the run's
games/s counts the compilation. When numba's cache (:mod:`haggis_sim._cache`) lacks
the engine a run needs, :func:`warm_up` says what it compiles, with an estimate
(:func:`estimate`: measured by this installation), shows the seconds going by against
it if the caller can (``watch``), compiles it in the calling process by playing one
throw-away game like the run's (nothing is written), which saves it to the cache, and
says how long it took; each worker then only loads it.

Imports stay light until the warm-up runs: importing this module compiles nothing.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np

from .._cache import ROOT, cache_base, say_compile_note, source_hash

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
    @property
    def jobs(self) -> int: ...
    def validate(self) -> tuple[Rules, list[Strategy]]: ...


#: shows a compile under way for as long as its block runs: called with what compiles
#: (:func:`what_compiles`) and the estimated seconds (a live line in a terminal)
CompileWatch = Callable[[str, float], AbstractContextManager[object]]

#: a fresh compile on the 2-core development machine (AMD EPYC), by the kernel dispatcher
#: a run compiles (``strategies.kernels.dispatcher``: random, greedy and heuristic; those
#: and learned; all, with the search), rounded up from the `compiled in` column of
#: ``benchmarks/results/bench_first_run.md``: the estimate until this installation has
#: measured its own (:func:`default_seconds`)
DEFAULT_SECONDS = {"act_simple": 25.0, "act_learned": 35.0, "act": 55.0}
#: the measured compile times, in the cache folder (``_cache.cache_base``: the source
#: changes that start a new ``numba-<hash>`` folder keep it), one entry per installation
#: and code version, oldest first:
#: ``{"measured": [{"installation": ..., "version": ..., "seconds": ...}, ...]}``
TIMING_FILE = "compile-seconds.json"
#: the most entries the timing file keeps (the oldest go first)
MAX_MEASURED = 50


class Measured(NamedTuple):
    """One measured compile: the installation (its package root), the code version (the
    compiled sources' hash, :func:`haggis_sim._cache.source_hash`) and the seconds."""

    installation: str
    version: str
    seconds: float


def key_functions(strategies: Sequence[Strategy]) -> list[Any]:
    """The compiled functions a run's chunks call first, whose cache entries show that the
    engine is compiled: the whole-chunk game loop when every strategy is compiled, else
    the step-by-step driver's pieces; and the kernel dispatcher of the run's compiled
    strategies (the smallest that holds their kernels: ``strategies.kernels.dispatcher``).
    numba writes a function's cache index only once it is compiled with all it calls, so
    a compile cut short leaves these missing."""
    from strategies.kernels import dispatcher

    from . import chunk

    kernels = _kernels(strategies)
    if len(kernels) == len(strategies):
        return [chunk._play_compiled, dispatcher(kernels)]
    # the step-by-step driver calls each compiled strategy through its own dispatcher
    return [chunk._seat_to_act, chunk._commit, *{dispatcher([k]) for k in kernels}]


def _kernels(strategies: Sequence[Strategy]) -> list[int]:
    """The kernel ids of the compiled ones of ``strategies``."""
    from strategies import is_compiled

    return [s.compiled_id for s in strategies if is_compiled(s) and s.compiled_id is not None]


def is_cached(strategies: Sequence[Strategy]) -> bool:
    """Whether numba's cache already holds the functions a run of ``strategies`` needs
    (a look at the cache folder, compiling and loading nothing)."""
    for dispatcher in key_functions(strategies):
        folder = Path(dispatcher.stats.cache_path)
        pattern = f"*.{dispatcher.py_func.__qualname__}-*.nbi"
        if not folder.is_dir() or not any(folder.glob(pattern)):
            return False
    return True


def this_code(unit: str = "") -> tuple[str, str]:
    """The installation (the resolved package root) and code version (the compiled
    sources' hash, and after a ``/`` the compile ``unit``: :func:`compile_unit`) that a
    measured compile time belongs to."""
    return str(ROOT), source_hash() + (f"/{unit}" if unit else "")


def compile_unit(strategies: Sequence[Strategy]) -> str:
    """What a warm-up for ``strategies`` compiles, as a key: its :func:`key_functions`'
    names (a run of the simple kernels compiles a fraction of one with the search)."""
    return "+".join(sorted(f.py_func.__qualname__ for f in key_functions(strategies)))


def _timing_path() -> Path:
    return cache_base() / TIMING_FILE


def measured() -> list[Measured]:
    """The well-formed entries of the timing file, oldest first (none if it is missing or
    unreadable; a damaged entry is skipped)."""
    try:
        entries = json.loads(_timing_path().read_text())["measured"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return []
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        where, version, seconds = (entry.get(k) for k in ("installation", "version", "seconds"))
        if (
            isinstance(where, str)
            and isinstance(version, str)
            and isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and math.isfinite(seconds)
            and seconds > 0
        ):
            found.append(Measured(where, version, float(seconds)))
    return found


def default_seconds(unit: str = "") -> float:
    """The estimate for ``unit`` (:func:`compile_unit`) before this installation has
    measured one: :data:`DEFAULT_SECONDS` of the largest kernel dispatcher it names (the
    simple kernels' figure for the engine alone, which compiles less)."""
    names = set(unit.split("+"))
    for family in ("act", "act_learned", "act_simple"):
        if family in names:
            return DEFAULT_SECONDS[family]
    return DEFAULT_SECONDS["act_simple"]


def estimate(unit: str = "") -> float:
    """Seconds a fresh compile of ``unit`` (:func:`compile_unit`) takes here: this
    installation's measurement of this code version, else its latest of the same unit in
    another version, else :func:`default_seconds` (another unit compiles another amount,
    and another installation's figure, say another checkout sharing the cache folder, is
    never used)."""
    installation, version = this_code(unit)
    same_unit = None
    for entry in measured():
        if entry.installation == installation:
            if entry.version == version:
                return entry.seconds
            if entry.version.partition("/")[2] == version.partition("/")[2]:
                same_unit = entry.seconds
    return default_seconds(unit) if same_unit is None else same_unit


def _record(seconds: float, unit: str = "") -> None:
    """Keep a measured compile time for this installation, code version and ``unit``,
    for the next estimate (best effort: a read-only cache folder only loses it)."""
    installation, version = this_code(unit)
    kept = [e for e in measured() if (e.installation, e.version) != (installation, version)]
    kept.append(Measured(installation, version, round(seconds, 1)))
    text = json.dumps({"measured": [e._asdict() for e in kept[-MAX_MEASURED:]]}, indent=1)
    path = _timing_path()
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text + "\n")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # e.g. no folder to hold it: nothing to remove
            tmp.unlink(missing_ok=True)


def what_compiles(strategies: Sequence[Strategy]) -> str:
    """What a warm-up for ``strategies`` compiles, in words: the engine, and the strategy
    kernels if some strategy is compiled (named; a plain-Python one adds nothing)."""
    from strategies import is_compiled

    names = list(dict.fromkeys(s.name for s in strategies if is_compiled(s)))
    if not names:
        return "the engine"
    return f"the engine and the strategy kernels for {', '.join(names)}"


def compiling_line(what: str, seconds: float) -> str:
    """What a run says before compiling ``what`` (``seconds``: the estimate)."""
    return f"compiling {what} (not yet cached for this version, about {seconds:.0f} s)…"


def _stand_ins(strategies: Sequence[Strategy]) -> list[Strategy]:
    """Quick stand-ins for the run's strategies: ``random`` for each compiled one, a
    plain-Python first-legal player for each Python one. The throw-away game then calls
    the same compiled functions, with the same types, as the run (a compiled strategy is
    a kernel id and a parameter array; :func:`compile_engine` compiles the dispatcher
    that holds the run's own kernels), but takes
    milliseconds whatever the run's search budget, and runs none of a plug-in's own code
    (its errors and its time belong to the run, reported there as always)."""
    from strategies import Strategy, is_compiled, make

    class FirstLegal(Strategy):
        name = "first-legal"

        def act(self, observation: Any, legal: list[Any], rng: Any) -> Any:
            return legal[0]

    return [make("random") if is_compiled(s) else FirstLegal() for s in strategies]


def _first_position(rules_arr: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seat 0's observation at the first decision of game ``seed`` under ``rules_arr``,
    and an empty move buffer: a quick call of a compiled kernel, to compile it."""
    from .. import kernel as K

    state = K.init_state(rules_arr)
    K.start_game(state, np.int64(seed))
    return K.observe(state, np.int64(0)), np.empty(K.MAX_MOVES, dtype=np.int64)


def compile_search() -> None:
    """Compile (or load from the cache) the search's kernel, with the argument types the
    kernel dispatcher calls it with, by one search of a fresh 2-player deal: what the
    second process of :func:`compile_engine` runs. Nothing is written but the cache."""
    from strategies import make
    from strategies.ismcts import mcts_act

    from .. import kernel as K
    from ..rules import Rules

    obs, buf = _first_position(Rules.preset(players=2).to_array(), 0)
    mcts_act(obs, make("mcts:iters=1").param_array(), K.new_stream(np.int64(0)), buf)


def _start_search_compile(kernels: Sequence[int], jobs: int) -> subprocess.Popen[bytes] | None:
    """Start :func:`compile_search` in a second process when the run plays the search and
    may use a second core (the search is most of a first run's compile; the rest
    compiles here meanwhile); None otherwise. Its output is dropped: should it fail, the
    search compiles here as it would without it."""
    from strategies.kernels import MCTS_ID

    from .pool import cores

    if MCTS_ID not in kernels or jobs == 1 or cores() < 2:
        return None
    code = "from haggis_sim.runner.warmup import compile_search; compile_search()"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def compile_engine(config: RunLike) -> None:
    """Compile (or load from the cache) every compiled function a chunk of the run calls,
    by playing one throw-away game of it with :func:`_stand_ins` in this process; numba
    saves what it compiles to the cache, where the workers find it. Nothing is written.

    A run with the search compiles it in a second process (:func:`compile_search`) while
    this one compiles the engine and the other kernels (the throw-away game through
    :func:`~strategies.kernels.act_learned`), then only what joins them: on two cores
    the compile takes about the search's own time, not the sum."""
    from strategies import make
    from strategies.kernels import LEARNED_ID, RANDOM_ID, dispatcher

    from .. import kernel as K
    from .chunk import play_chunk

    rules, built = config.validate()
    kernels = _kernels(built)
    game = np.zeros(1, dtype=np.int64)

    def throw_away(dispatched: list[int]) -> None:
        play_chunk(
            rules.to_array(), _stand_ins(built), game, config.seed, config.seats,
            config.log_moves, kernels=dispatched,
        )  # fmt: skip

    side = _start_search_compile(kernels, config.jobs)
    try:
        if side is not None:
            throw_away([LEARNED_ID])  # everything but the search, meanwhile
            side.wait()
        throw_away(kernels)
    finally:
        if side is not None and side.poll() is None:  # interrupted: the compile is not needed
            side.kill()
            side.wait()
    if len(kernels) < len(built):  # the step-by-step driver: each kernel's own dispatcher
        obs, buf = _first_position(rules.to_array(), config.seed)
        params = make("random").param_array()
        for act in {dispatcher([k]) for k in kernels}:  # the random kernel: a quick call
            act(RANDOM_ID, obs, params, K.new_stream(np.int64(config.seed)), buf)


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


def warm_up(
    config: RunLike, say: Callable[[str], None], watch: CompileWatch | None = None
) -> float | None:
    """Before the workers start: if the cache lacks the engine the run needs, compile it
    here (:func:`compile_engine`), once, saying :func:`compiling_line` before and
    ``compiled in N s`` after, and showing the compile under way with ``watch`` (if
    given); return those seconds (recorded for the next estimate).

    The two lines go to ``say`` and, when the Python API's compile notes are on
    (:func:`haggis_sim._cache.compile_notes`), to standard error as well: they are the
    process's compile note, and no compile is announced after them. When the cache
    holds the engine already, nothing is said or loaded (None): each worker loads it
    from the cache as it would anyway, and the main process does not wait for a load of
    its own first.
    """
    _, strategies = config.validate()
    if is_cached(strategies):
        return None
    what = what_compiles(strategies)
    unit = compile_unit(strategies)
    seconds = estimate(unit)
    for speak in (say, say_compile_note):
        speak(compiling_line(what, seconds))
    t0 = time.perf_counter()
    shown = watch(what, seconds) if watch is not None else contextlib.nullcontext()
    with shown, interrupts_kept():  # Ctrl-C here: KeyboardInterrupt, not numba's RuntimeError
        compile_engine(config)
    seconds = time.perf_counter() - t0
    _record(seconds, unit)
    for speak in (say, say_compile_note):
        speak(f"compiled in {seconds:.0f} s")
    return seconds
