"""strategies.analysis.root_visits: the default mcts's root search, as a study chooses with it."""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
from haggis_sim import kernel as K
from strategies import ismcts
from strategies.analysis import _prior_params, root_visits

RULES3 = hs.Rules.preset("revised", players=3)


def _positions(n: int) -> list[hs.Game]:
    """The first decisions of ``n`` dealt games (many legal plays each)."""
    return [hs.Game(RULES3, seed=7, game_id=i) for i in range(n)]


@pytest.mark.slow  # full searches on many positions
def test_every_legal_play_is_scored_and_every_iteration_visits_one() -> None:
    rnd = _positions(1)[0]
    obs = rnd.observation(rnd.to_act)
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    legal = {int(x) for x in buf[: K.legal_actions(obs.array, buf, False)]}
    visits = root_visits(rnd, 40, seed=3)
    assert set(visits) == legal
    assert sum(v for v, _ in visits.values()) == 40
    assert abs(sum(p for _, p in visits.values()) - 1.0) < 1e-9  # the softmax
    assert root_visits(rnd, 40, seed=3) == visits  # the seed decides


def test_the_learned_prior_steers_the_first_visit() -> None:
    """PUCT visits the highest-prior play first: with one iteration the only visited play
    is the prior's favourite (without the prior, progressive widening picks otherwise)."""
    params = _prior_params()
    assert params[ismcts.M_PRIOR] == ismcts.PRIOR_LEARNED
    for rnd in _positions(6):
        visits = root_visits(rnd, 1, seed=5)
        assert len(visits) > 5
        (visited,) = [c for c, (v, _) in visits.items() if v > 0]
        assert visited == max(visits, key=lambda c: visits[c][1])
