"""Where numba caches the compiled engine, keyed by a hash of every compiled source file.

numba's own cache checks only the file that defines a function, not the files of the
functions it calls, so editing or upgrading a callee (say a strategy kernel) could leave
a stale caller loaded from the cache. Keying the cache directory by a hash of all
compiled sources makes any change recompile everything once, and never mix versions.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parent.parent
#: every module that defines numba-compiled functions (tests check this list is complete)
COMPILED_SOURCES = (
    "haggis_sim/engine/bits.py",
    "haggis_sim/engine/layout.py",
    "haggis_sim/engine/moves.py",
    "haggis_sim/engine/record.py",
    "haggis_sim/engine/rng.py",
    "haggis_sim/engine/state.py",
    "haggis_sim/kernel.py",
    "haggis_sim/runner/chunk.py",
    "strategies/ismcts.py",
    "strategies/kernels.py",
    "strategies/simple_kernels.py",
)


def source_hash() -> str:
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


_DIR = str(cache_dir())


@contextmanager
def compiled_cache() -> Iterator[None]:
    """Within this block, ``@njit(cache=True)`` functions cache under :func:`cache_dir`."""
    config = numba.config
    previous = getattr(config, "CACHE_DIR", "")
    setattr(config, "CACHE_DIR", _DIR)  # noqa: B010 - numba.config is a module of settings
    try:
        yield
    finally:
        setattr(config, "CACHE_DIR", previous)  # noqa: B010
