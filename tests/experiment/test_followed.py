"""followed(): an advice record played against the same player without it, per population."""

from __future__ import annotations

import pytest

from haggis_sim.errors import InputError
from haggis_sim.experiment.followed import advised_spec, followed
from strategies.advice import parse_advice


@pytest.mark.slow  # a planted effect is found only with enough games
def test_planted_good_advice_wins_and_bad_advice_loses() -> None:
    # bombing whenever nothing else beats is costly far from the end of a round: advice
    # against it helps a bomb=early player; advice to do it hurts the default heuristic
    (good,) = parse_advice("bombs[min_opponent_cards=4..17]:no-bomb")
    (bad,) = parse_advice("bombs[min_opponent_cards=4..17]:bomb")
    (won,) = followed(good, bases=["heuristic:bomb=early"], games=120, seed=3)
    (lost,) = followed(bad, bases=["heuristic"], games=120, seed=3)
    assert won.sign == 1 and lost.sign == -1, (won.text(), lost.text())
    assert won.games == 120 and won.deals == 60
    assert won.text().startswith("followed: +") and "points [" in won.text()


def test_two_populations_including_learned_on_the_same_deals() -> None:
    record = {"kind": "bets", "bin": {"actor_lead": [-9999, 9999]}, "advice": "no bet"}
    res = followed(record, games=8, seed=1)
    assert [r.base.split(":")[0] for r in res] == ["heuristic", "learned"]
    assert all(r.games == 8 and 0 <= r.low <= r.win_rate <= r.high <= 1 for r in res)
    assert res[1].advised.startswith("advised:base=learned:model=mix6;sha=")  # the default
    assert advised_spec("heuristic:bomb=early", record).endswith(
        "advice=bets[actor_lead=-9999..9999]:no-bet"
    )


def test_bad_input_is_refused() -> None:
    with pytest.raises(InputError, match="games must be a positive whole number"):
        followed({"kind": "bombs", "bin": {}, "advice": "bomb"}, games=0)
