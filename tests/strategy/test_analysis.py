"""strategies.analysis.analyze: every alternative scored from the actor's information set."""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
from haggis_sim import kernel as K
from strategies.analysis import analyze

RULES2 = hs.Rules.preset("revised", players=2)


def _must_beat_or_lose(opponent: str = "5b 7c") -> hs.Round:
    """Seat 0 (Ta Tb) follows seat 1's 5b; seat 1 has one card left: passing lets it lead
    that card and go out first, whatever it is; a ten wins the trick, then seat 0 goes out."""
    rnd = hs.Round(RULES2, hands=["Ta Tb", opponent], leader=1)
    rnd.play(1, opponent.split()[0])
    return rnd


@pytest.mark.slow
def test_one_legal_action_is_the_answer() -> None:
    rnd = hs.Round(RULES2, hands=["5a 7a", "9a 9b"], leader=0)
    rnd.play(0, "7a")
    rnd.play(1, "9a")
    assert [str(a) for a in rnd.legal_actions()] == ["seat 0 passes"]
    (only,) = analyze(rnd, samples=20)
    assert only.action == rnd.legal_actions()[0]
    assert only.samples == 20


def test_an_alternative_that_loses_by_force_scores_worst() -> None:
    result = analyze(_must_beat_or_lose(), samples=60)
    by_name = {str(a.action): a for a in result}
    assert set(by_name) >= {"seat 0 passes", "seat 0 plays single 10: Ta", "seat 0 bets 15"}
    worst = min(result, key=lambda a: a.value)
    assert str(worst.action) == "seat 0 passes"
    assert worst.margin < 0  # seat 1 out first in every deal
    for a in result:
        if a is not worst:
            assert a.value > worst.value + 3 * (a.stderr + worst.stderr)
            assert a.margin > 0


def test_result_depends_only_on_the_information_set() -> None:
    one, other = _must_beat_or_lose("5b 7c"), _must_beat_or_lose("5b 2d")
    obs = one.observation(0)
    assert np.array_equal(obs.array, other.observation(0).array)
    assert one.state_array.tolist() != other.state_array.tolist()
    assert analyze(one, samples=30, seed=5) == analyze(other, samples=30, seed=5)
    assert analyze(obs, samples=30, seed=5) == analyze(one, samples=30, seed=5)


def test_every_alternative_is_visited_bombs_too() -> None:
    rnd = hs.Round(RULES2, hands=["3a 5b 7c 9d 2a 2b", "4a 6b 8c"], leader=0)
    legal = rnd.legal_actions()
    result = analyze(rnd, samples=8)
    assert [a.action for a in result] == legal
    assert any(a.combo is not None and a.combo.kind == "bomb" for a in legal)
    assert all(a.samples == 8 and 0.0 <= a.value <= 1.0 for a in result)


def test_a_subset_scores_as_in_the_full_analysis() -> None:
    """Each alternative sees the same deals and streams whatever else is analyzed."""
    rnd = hs.Round(RULES2, hands=["3a 5b 7c 9d 2a 2b Ta", "4a 6b 8c 9a"], leader=0)
    full = {a.action: a for a in analyze(rnd, samples=25, seed=3, rollout="random")}
    subset = [a for a in rnd.legal_actions() if a.type != "bet"][::-3]
    part = analyze(rnd, subset, samples=25, seed=3, rollout="random")
    assert [a.action for a in part] == subset
    assert part == [full[a] for a in subset]


def test_deterministic_for_a_seed() -> None:
    rnd = hs.Round(RULES2, hands=["3a 5b 7c 9d 2a 2b Ta", "4a 6b 8c 9a"], leader=0)
    first = analyze(rnd, samples=15, seed=1)
    assert analyze(rnd, samples=15, seed=1) == first
    assert analyze(rnd, samples=15, seed=2) != first


def test_bad_requests_are_refused() -> None:
    rnd = _must_beat_or_lose()
    with pytest.raises(ValueError, match="samples"):
        analyze(rnd, samples=0)
    with pytest.raises(ValueError, match="rollout"):
        analyze(rnd, rollout="smart")
    with pytest.raises(ValueError, match="not a legal action"):
        analyze(rnd, [K.pack(K.T_SET, 1, 1, 2, 1)])
    with pytest.raises(ValueError, match="seat 1's but seat 0 is to act"):
        analyze(rnd.observation(1))
    with pytest.raises(TypeError):
        analyze("Ta Tb")  # type: ignore[arg-type]
