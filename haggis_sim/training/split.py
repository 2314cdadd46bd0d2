"""Which training games are held out of a fit: game ``g`` of a run is when
``g % HOLDOUT_EVERY == HOLDOUT_EVERY - 1`` (20%), for the prior and the value alike."""

from __future__ import annotations

HOLDOUT_EVERY = 5


def is_holdout(g: int) -> bool:
    """Whether training game ``g`` is held out of the fit (it measures it)."""
    return g % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
