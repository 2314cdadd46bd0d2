"""Where numba caches the compiled engine, keyed by a hash of every compiled source file.

numba's own cache checks only the file that defines a function, not the files of the
functions it calls, so editing or upgrading a callee (say a strategy kernel) could leave
a stale caller loaded from the cache. Keying the cache directory by a hash of all
compiled sources makes any change recompile everything once, and never mix versions.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


def cache_dir() -> Path:
    """``$HAGGIS_SIM_CACHE_DIR`` or ``~/.cache/haggis-sim``, plus the source hash."""
    base = os.environ.get("HAGGIS_SIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "haggis-sim"
    )
    return Path(base) / f"numba-{source_hash()}"


@functools.cache
def _dir() -> str:
    return str(cache_dir())


@contextmanager
def compiled_cache() -> Iterator[None]:
    """Within this block, ``@njit(cache=True)`` functions cache under :func:`cache_dir`."""
    import numba

    config = numba.config
    previous = getattr(config, "CACHE_DIR", "")
    setattr(config, "CACHE_DIR", _dir())  # noqa: B010 - numba.config is a module of settings
    try:
        yield
    finally:
        setattr(config, "CACHE_DIR", previous)  # noqa: B010


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

    def decorate(fn: Callable[..., Any]) -> Any:
        with compiled_cache():
            return numba.njit(**options)(fn)

    if len(args) == 1 and callable(args[0]) and not options.keys() - {"cache"}:
        return decorate(args[0])
    if args:
        raise TypeError("njit takes the function, or keyword options only")
    return decorate
