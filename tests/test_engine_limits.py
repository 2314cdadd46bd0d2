"""Move-buffer capacity: the worst hands fit, and overflow raises instead of corrupting."""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
from haggis_sim.engine import layout as L
from haggis_sim.engine import moves as M

# hands found by hill-climbing the lead count (see benchmarks/bench_engine.py for typical hands)
WORST = [
    ("2a 2b 2c 2d 2e 3a 3b 3c 3d 3e 4a 4b 4c 4d J Q K", 5, 6556),
    ("2a 2b 2c 2d 3a 3b 3c 3d 4a 4b 4c 4d 5a 5b J Q K", 4, 4723),
]


@pytest.mark.parametrize(("hand", "nsuits", "count"), WORST)
def test_worst_known_hands_fit_the_buffer(hand: str, nsuits: int, count: int) -> None:
    rules = hs.Rules.preset("revised", players=2 if nsuits == 4 else 3)
    plays = hs.legal_plays(hand, None, rules)
    assert len(plays) == count
    assert count * 2 < L.MAX_MOVES
    assert len({p.code for p in plays}) == count


def test_overflow_raises() -> None:
    cards = hs.parse_cards(WORST[0][0]).relative_mask()
    small = np.empty(100, dtype=np.int64)
    with pytest.raises(ValueError, match="move buffer too small"):
        M.generate(np.int64(cards & L.SUIT_ALL), np.int64(cards >> 45), 5, np.int64(0), small, True)


def test_every_compiled_module_is_in_the_cache_key() -> None:
    """A module with numba functions missing from COMPILED_SOURCES could load stale code."""
    import re
    from pathlib import Path

    from haggis_sim import _cache

    root = _cache.ROOT
    found = {
        str(p.relative_to(root))
        for pkg in ("haggis_sim", "strategies")
        for p in (root / pkg).rglob("*.py")
        if re.search(r"^@(njit|intrinsic)\b", p.read_text(), flags=re.M)
    }
    assert found <= set(_cache.COMPILED_SOURCES), found - set(_cache.COMPILED_SOURCES)
    assert all((root / rel).exists() for rel in _cache.COMPILED_SOURCES)
    assert Path(_cache._DIR).name.startswith("numba-")
