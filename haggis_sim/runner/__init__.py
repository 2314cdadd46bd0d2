"""The tournament runner: many games between strategies, in parallel, logged to Parquet."""

from .._cache import compiled_cache

with compiled_cache():
    from . import chunk

__all__ = ["chunk"]
