"""Where numba caches the compiled engine, keyed by a hash of every compiled source file,
and the notes the Python API prints while it compiles.

numba's own cache checks only the file that defines a function, not the files of the
functions it calls, so editing or upgrading a callee (say a strategy kernel) could leave
a stale caller loaded from the cache. Keying the cache directory by a hash of all
compiled sources makes any change recompile everything once, and never mix versions.

The settings (the folder's environment variables, the notes' switch) are described in
one place, docs/cache.md.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar, overload

_P = ParamSpec("_P")  # the parameters of a compiled function
_R = TypeVar("_R")  # and its result
_R_co = TypeVar("_R_co", covariant=True)

ROOT = Path(__file__).resolve().parent.parent
#: every module that defines numba-compiled functions (tests check this list is complete)
COMPILED_SOURCES = (
    "haggis_sim/engine/bits.py",
    "haggis_sim/engine/layout.py",
    "haggis_sim/engine/moves.py",
    "haggis_sim/engine/observe.py",
    "haggis_sim/engine/record.py",
    "haggis_sim/engine/rng.py",
    "haggis_sim/engine/rounds.py",
    "haggis_sim/engine/scoring.py",
    "haggis_sim/engine/state.py",
    "haggis_sim/env/actions.py",
    "haggis_sim/env/encode.py",
    "haggis_sim/env/vector_kernel.py",
    "haggis_sim/kernel.py",
    "haggis_sim/runner/chunk.py",
    "haggis_sim/runner/seating.py",
    "haggis_sim/training/games.py",
    "strategies/ismcts.py",
    "strategies/ismcts_tree.py",
    "strategies/ismcts_values.py",
    "strategies/kernels.py",
    "strategies/learned_features.py",
    "strategies/network.py",
    "strategies/simple_kernels.py",
    "strategies/value_features.py",
)


def source_hash() -> str:
    import numba

    digest = hashlib.sha256(numba.__version__.encode())
    for rel in COMPILED_SOURCES:
        path = ROOT / rel
        digest.update(rel.encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:16]


def cache_base() -> Path:
    """The folder haggis-sim caches in: ``$HAGGIS_SIM_CACHE_DIR``, else numba's own
    ``$NUMBA_CACHE_DIR``, else ``$XDG_CACHE_HOME/haggis-sim``, else
    ``~/.cache/haggis-sim`` (a variable set to the empty string counts as not set)."""
    for variable in ("HAGGIS_SIM_CACHE_DIR", "NUMBA_CACHE_DIR"):
        if folder := os.environ.get(variable):
            return Path(folder)
    home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(home) / "haggis-sim"


def cache_dir() -> Path:
    """Where the compiled code is cached: :func:`cache_base` plus ``numba-<source hash>``."""
    return cache_base() / f"numba-{source_hash()}"


@functools.cache
def _dir() -> str:
    return str(cache_dir())


@contextmanager
def compiled_cache() -> Iterator[None]:
    """Within this block, ``@njit(cache=True)`` functions cache under :func:`cache_dir`,
    the project's in a subfolder named by their place in the project (any copy of one code
    version shares them: :mod:`haggis_sim._locator`)."""
    import numba

    config = numba.config
    previous = getattr(config, "CACHE_DIR", ""), getattr(config, "CACHE_LOCATOR_CLASSES", "")
    setattr(config, "CACHE_DIR", _dir())  # noqa: B010 - numba.config is a module of settings
    setattr(config, "CACHE_LOCATOR_CLASSES", LOCATORS)  # noqa: B010
    try:
        yield
    finally:
        setattr(config, "CACHE_DIR", previous[0])  # noqa: B010
        setattr(config, "CACHE_LOCATOR_CLASSES", previous[1])  # noqa: B010


#: the cache locators numba tries, in order: the project's; numba's own for a function
#: defined elsewhere (a plug-in's) under the same folder; and, when that folder cannot be
#: written, numba's usual fallbacks (beside the source, or its user-wide folder)
LOCATORS = (
    "haggis_sim._locator.ProjectCacheLocator,UserProvidedCacheLocator,InTreeCacheLocator,"
    "UserWideCacheLocator"
)


class Compiled(Protocol[_P, _R_co]):
    """What :func:`njit` makes of a function: numba's dispatcher, called like the function
    itself (numba compiles a specialisation for each new set of argument types). To mypy
    a kernel written without annotations takes and returns Any: numba alone types it."""

    @property
    def py_func(self) -> Callable[_P, _R_co]:
        """The Python function compiled."""
        ...

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...


@overload
def njit(fn: Callable[_P, _R], /, *, cache: bool = ...) -> Compiled[_P, _R]: ...
@overload
def njit(**options: object) -> Callable[[Callable[_P, _R]], Compiled[_P, _R]]: ...
def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` with ``cache=True``, caching under :func:`cache_dir`.

    Every compiled module decorates with this instead of numba's own ``njit``, so its
    functions cache in the right place however the module is first imported (numba
    reads the cache folder when a function is decorated), and numba itself is imported
    only by modules that compile code, not by ``import haggis_sim``.
    """
    import numba

    options.setdefault("cache", True)
    _listen()

    def decorate(fn: Callable[..., Any]) -> Any:
        with compiled_cache():
            dispatcher = numba.njit(**options)(fn)
        _OURS.add(dispatcher)
        return dispatcher

    if len(args) == 1 and callable(args[0]) and not options.keys() - {"cache"}:
        return decorate(args[0])
    if args:
        raise TypeError("njit takes the function, or keyword options only")
    return decorate


# -- the Python API's compile notes -------------------------------------------------------

#: the environment variable whose value ``0`` (or ``false``, ``no``, ``off``) turns the
#: compile notes off for a process, unless :func:`compile_notes` sets them
NOTES_VARIABLE = "HAGGIS_SIM_COMPILE_NOTES"
#: seconds without a compile that end a burst of them (then ``compiled in N s`` is said)
PAUSE = 0.5
#: the note said at the first compile of a process outside a run's warm-up
FIRST_USE = (
    "compiling the engine's functions at their first use (not yet cached for this "
    "version; each compiles once)…"
)

_OURS: weakref.WeakSet[Any] = weakref.WeakSet()  # every dispatcher made by :func:`njit`


def compile_notes(on: bool | None = None) -> bool:
    """Whether this process says on standard error when it compiles the engine; with
    ``on``, turn the notes on or off first.

    The first compile of the engine in a process is announced once, with a ``note:``
    line before it and ``note: compiled in N s`` once compiling pauses; a tournament
    that compiles says the run's own note instead (``haggis_sim.runner.warmup``). On by
    default, unless ``$HAGGIS_SIM_COMPILE_NOTES`` is ``0``; the command line says what
    it compiles in its own notes and turns these off.
    """
    if on is not None:
        _NOTES.on = bool(on)
    if _NOTES.on is not None:
        return _NOTES.on
    return os.environ.get(NOTES_VARIABLE, "").strip().lower() not in ("0", "false", "no", "off")


def say_compile_note(line: str) -> None:
    """Print ``note: line`` on standard error if :func:`compile_notes` are on, and count
    it as this process's compile note: compiles after it are not announced again."""
    with _NOTES.lock:
        _NOTES.said = True
        if compile_notes():
            _NOTES.write(line)


@contextmanager
def unannounced() -> Iterator[None]:
    """Within this block no compile is announced (a run's warm-up says its own notes; a
    run's workers leave the notes to the run)."""
    with _NOTES.lock:
        _NOTES.silent += 1
    try:
        yield
    finally:
        with _NOTES.lock:
            _NOTES.silent -= 1


class _Notes:
    """The state of the compile notes: numba reports each compile (and each nested
    compile of a callee) to :meth:`start` and :meth:`end`, one at a time under its
    compiler lock; a timer thread says ``compiled in`` after a :data:`PAUSE` without a
    compile (or the process's exit does, if it comes first)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.on: bool | None = None  # None: as $HAGGIS_SIM_COMPILE_NOTES says
        self.said = False  # the process's compile note is said: none again
        self.silent = 0  # open unannounced() blocks
        self.depth = 0  # compiles under way, nested ones included
        self.started: float | None = None  # the announced burst of compiles began then
        self.ended = 0.0
        self.timer: threading.Timer | None = None

    @staticmethod
    def write(line: str) -> None:
        with suppress(OSError, ValueError):  # no stderr, or closed: the note is lost
            print(f"note: {line}", file=sys.stderr, flush=True)

    def start(self, dispatcher: Any) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            if self.timer is not None:  # compiling again within the pause: one burst
                self.timer.cancel()
                self.timer = None
            if self.said or self.silent or dispatcher not in _OURS or not compile_notes():
                return
            self.said = True
            self.started = time.perf_counter()
            self.write(FIRST_USE)
        atexit.register(self.finish)

    def end(self, failed: bool = False) -> None:
        with self.lock:
            self.depth = max(self.depth - 1, 0)  # 0: a compile begun before numba reported
            if self.depth or self.started is None:
                return
            if failed:  # an error (or Ctrl-C) ends the burst: its own report says why
                self.started = None
                return
            self.ended = time.perf_counter()
            self.timer = threading.Timer(PAUSE, self.finish)
            self.timer.daemon = True
            self.timer.start()

    def finish(self) -> None:
        with self.lock:
            if self.started is None or self.depth:
                return
            self.write(f"compiled in {self.ended - self.started:.0f} s")
            self.started = None


_NOTES = _Notes()


@functools.cache
def _listen() -> None:
    """Have numba report its compiles to the notes (once per process)."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            _NOTES.start(ev.data["dispatcher"])

        def on_end(self, ev: Any) -> None:
            # numba's Event.is_failed reads the exception details the wrong way round
            _NOTES.end(failed=getattr(ev, "_exc_details", None) is not None)

    event.register("numba:compile", Listener())  # type: ignore[no-untyped-call]
