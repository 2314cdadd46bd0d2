"""Top-1 agreement of linear scores with a flagged action, per decision (used by both
training stages)."""

from __future__ import annotations

import numpy as np


def groups(decision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start row of each decision and each row's decision number from 0."""
    starts = np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]])
    idx = np.cumsum(np.r_[False, decision[1:] != decision[:-1]])
    return starts, idx


def top1(scores: np.ndarray, decision: np.ndarray, flag: np.ndarray) -> float:
    """Share of decisions whose first highest-scoring row is flagged (ties: first row)."""
    starts, idx = groups(decision)
    m = np.maximum.reduceat(scores, starts)
    rows = np.arange(len(scores))
    first = np.minimum.reduceat(np.where(scores == m[idx], rows, len(scores)), starts)
    return float(np.mean(flag[first]))
