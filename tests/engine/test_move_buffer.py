"""Move-buffer capacity: the worst hands fit, and overflow raises instead of corrupting."""

from __future__ import annotations

from pathlib import Path

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


def test_compiled_functions_cache_under_the_source_hash() -> None:
    """Every cached compiled function of every compiled module (as imported by the
    package) writes its machine code under the hashed directory, none beside its source."""
    import importlib

    from numba.core.dispatcher import Dispatcher

    import haggis_sim.runner  # noqa: F401 - compiles the runner through _cache.njit
    import strategies  # noqa: F401
    from haggis_sim import _cache

    cached = 0
    for rel in _cache.COMPILED_SOURCES:
        module = importlib.import_module(rel.removesuffix(".py").replace("/", "."))
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.__module__ == module.__name__:
                path = getattr(obj._cache, "_cache_path", None)
                assert path is not None, f"{rel}: {name} is not cached"
                assert Path(path).parent == Path(_cache._dir()), (rel, name, path)
                cached += 1
    assert cached >= 60


def test_source_hash_changes_with_every_compiled_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editing any one compiled module (a callee numba would not notice) moves the cache."""
    import shutil

    from haggis_sim import _cache

    for rel in _cache.COMPILED_SOURCES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(_cache.ROOT / rel, tmp_path / rel)
    monkeypatch.setattr(_cache, "ROOT", tmp_path)
    original = _cache.source_hash()
    assert Path(_cache._dir()).name == f"numba-{original}"  # the copy hashes as the tree
    seen = {original}
    for rel in _cache.COMPILED_SOURCES:
        path = tmp_path / rel
        text = path.read_text()
        path.write_text(text + "\n# edited\n")
        seen.add(_cache.source_hash())
        assert _cache.cache_dir().name == f"numba-{_cache.source_hash()}"
        path.write_text(text)
        assert _cache.source_hash() == original
    assert len(seen) == len(_cache.COMPILED_SOURCES) + 1
