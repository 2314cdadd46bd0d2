"""Explicit, stateless-seeded randomness for the compiled core.

Every random stream is a splitmix64 generator whose state is derived by hashing
(run seed, game id[, round, seat]); nothing depends on a global RNG, the clock, the
worker or the chunk. A generator state is a one-element ``uint64`` array.
"""

from __future__ import annotations

import numpy as np

from .._cache import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix64(z):
    """The splitmix64 finaliser: a bijective hash of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def derive(a, b):
    """A seed derived from two integers (order matters); returned as int64."""
    z = mix64(np.uint64(a) + GOLDEN)
    z = mix64(z ^ (np.uint64(b) + GOLDEN * np.uint64(2)))
    return np.int64(z)


@njit(cache=True)
def new_stream(seed):
    """A generator state seeded from an int64."""
    st = np.empty(1, dtype=np.uint64)
    st[0] = mix64(np.uint64(seed))
    return st


@njit(cache=True, inline="always")
def next_u64(st):
    st[0] += GOLDEN
    return mix64(st[0])


@njit(cache=True, inline="always")
def below(st, n):
    """A uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift)."""
    x = next_u64(st) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def uniform(st):
    """A uniform float in [0, 1)."""
    return np.float64(next_u64(st) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
