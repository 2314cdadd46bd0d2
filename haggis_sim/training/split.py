"""Which training games are held out of a fit: game ``g`` of a run is when
``g % HOLDOUT_EVERY == HOLDOUT_EVERY - 1`` (20%), for the prior and the value alike.

>>> [g for g in range(12) if is_holdout(g)], holdout_mask(np.arange(6)).tolist()
([4, 9], [False, False, False, False, True, False])
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

HOLDOUT_EVERY = 5
#: the rule as the model files' provenance records it
SPLIT_RULE = f"game g held out when g % {HOLDOUT_EVERY} == {HOLDOUT_EVERY - 1}"


def is_holdout(g: int) -> bool:
    """Whether training game ``g`` is held out of the fit (it measures it)."""
    return bool(holdout_mask(np.asarray(g)))


def holdout_mask(games: np.ndarray) -> npt.NDArray[np.bool_]:
    """:func:`is_holdout` of each game number in ``games`` (a boolean array)."""
    held: npt.NDArray[np.bool_] = np.asarray(games) % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
    return held
