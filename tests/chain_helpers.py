"""A planted gate for the tests of the generation chains (tests/training/test_value_chain.py,
tests/training/test_prior_chain.py): the verdicts are fixed, so the tests check what the
chain does with them."""

from __future__ import annotations

import pytest

from haggis_sim.training import gate
from haggis_sim.training.chain import generation_seed
from haggis_sim.training.gate import MatchResult

#: the chains' tiny teacher: a rollout search (value=game, gen2 prior: the default
#: teacher's kind, spelled out since the defaults moved in 2026-12)
TEACHER = "mcts:iters=4,value=game,model=gen2"


def planted(monkeypatch: pytest.MonkeyPatch, seed: int, wins_2p: dict[int, int]) -> list[tuple]:
    """Replace the gate's match by a planted one: generation k of the chain of ``seed``
    (told by the gate's seed) wins ``wins_2p[k]`` of 1,000 2-player games (500 if not
    given) and a third of the 3-player ones; returns the (candidate, opponent, players)
    of every call."""
    calls: list[tuple] = []
    number = {generation_seed(seed, k): k for k in range(1, 10)}

    def match(cand: str, opp: str, games: int, players: int, seed: int, jobs: int = 1):
        calls.append((cand, opp, players))
        wins = wins_2p.get(number.get(seed, 0), 500) if players == 2 else 333
        return MatchResult(cand, opp, players, 1000, wins)

    monkeypatch.setattr(gate, "match", match)
    return calls
