"""Score a decision's alternatives within a budget: pre-rank many cheaply, score the best fully.

A lead may have a hundred legal plays; :func:`~strategies.analysis.analyze` with 100
samples each would take seconds. :func:`score_shortlist` scores every alternative with
``samples`` when that costs at most :data:`FULL_BUDGET` search iterations; otherwise it
pre-ranks all of them with :data:`PRE_SAMPLES` samples and scores the best :data:`TOP`
(plus any the caller must see, e.g. the move actually played) with ``samples``.
``haggis-sim play``'s ``hint`` and ``haggis-sim show --alternatives`` share it, so the
two read a decision the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import haggis_sim as hs

from .analysis import Alternative, analyze

FULL_BUDGET = 30_000  # score every alternative when that costs at most this many iterations
PRE_SAMPLES = 12  # otherwise: pre-rank every alternative with this many samples ...
TOP = 12  # ... and score the best this many with the full samples


@dataclass(frozen=True)
class Shortlist:
    """The scored alternatives of one decision, best first, and how they were chosen."""

    alternatives: list[Alternative]  # each scored with ``samples``, best value first
    legal: int  # how many alternatives the decision had
    samples: int
    pre_ranked: bool  # True: only the pre-ranking's best (and the kept ones) are scored

    @property
    def note(self) -> str:
        """One phrase for people: what was scored, with how many samples."""
        if not self.pre_ranked:
            return f"all {self.legal} alternatives, {self.samples} samples each"
        return (
            f"{self.legal} alternatives: all pre-ranked with {PRE_SAMPLES} samples, "
            f"the best {TOP} scored with {self.samples}"
        )


def score_shortlist(
    observation: hs.Observation,
    actions: Sequence[hs.Action],
    *,
    samples: int,
    seed: int,
    keep: Sequence[hs.Action] = (),
) -> Shortlist:
    """Score ``actions`` (legal at ``observation``, the acting seat's own) within the budget.

    ``keep`` are alternatives scored fully even when the pre-ranking drops them. Both
    calls of :func:`~strategies.analysis.analyze` use ``seed``, so the result depends only
    on the observation, the actions, ``samples`` and ``seed``. ValueError as ``analyze``.
    """
    chosen = list(actions)
    pre_ranked = len(chosen) * samples > FULL_BUDGET
    if pre_ranked:
        pre = analyze(observation, chosen, samples=PRE_SAMPLES, seed=seed)
        best = [a.action for a in sorted(pre, key=lambda a: -a.value)[:TOP]]
        codes = {a.code for a in best}
        chosen = best + [a for a in keep if a.code not in codes]
    scored = analyze(observation, chosen, samples=samples, seed=seed)
    return Shortlist(sorted(scored, key=lambda a: -a.value), len(actions), samples, pre_ranked)
