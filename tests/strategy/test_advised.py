"""The ``advised`` strategy: the base's games where the advice is silent, the advice
followed where it speaks (bombs and bets), specs that survive the runner, and decisions
from the seat's information set only."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from redeal import redeal

import haggis_sim as hs
import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.runner.chunk import play_chunk
from strategies import StrategyError
from strategies.advice import bomb_features, parse_advice, situation_features
from strategies.advised import AdvisedStrategy

RULES = hs.Rules.preset("revised", players=2)
ARR = RULES.to_array()


def games(specs: list[Any], n: int, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    made = [strategies.make(s) if isinstance(s, str) else s for s in specs]
    logs = play_chunk(ARR, made, np.arange(n), seed, "rotate")
    return logs.moves, logs.games


@pytest.mark.parametrize(("base", "n"), [("heuristic", 12), ("learned", 12), ("mcts:iters=6", 4)])
def test_empty_advice_plays_the_base_games_move_for_move(base: str, n: int) -> None:
    advised = f"advised:base={base.replace(',', ';')}"
    m1, g1 = games([advised, base], n)
    m2, g2 = games([base, base], n)
    assert len(m1) > 50 * n  # whole games were played
    assert np.array_equal(m1, m2) and np.array_equal(g1, g2)


class Recording(AdvisedStrategy):
    """Records every decision: (observation, legal codes, chosen code, the base's code)."""

    name = "test-advised-recording"

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.log: list[tuple[hs.Observation, list[int], int]] = []

    def act(self, observation: hs.Observation, legal: list[hs.Action], rng: Any) -> hs.Action:
        chosen = super().act(observation, legal, rng)
        self.log.append((observation, [a.code for a in legal], chosen.code))
        return chosen


def is_bomb(code: int) -> bool:
    return int(code) >> L.TYPE_SHIFT == L.T_BOMB


def bomb_decisions(rec: Recording, bin_: dict[str, tuple[int, int]]) -> dict[str, int]:
    """Counts of bomb opportunities by (inside the bin?, bombed?)."""
    out = {"in_bomb": 0, "in_other": 0, "out_bomb": 0, "out_other": 0}
    for obs, legal, code in rec.log:
        bombs = [c for c in legal if is_bomb(c)]
        if not bombs or obs.top is None:
            continue
        inside = obs.hand_sizes[1 - obs.seat] in range(bin_["opp"][0], bin_["opp"][1] + 1)
        key = ("in_" if inside else "out_") + ("bomb" if is_bomb(code) else "other")
        out[key] += 1
        if is_bomb(code):
            feats = {**situation_features(obs), **bomb_features(obs.array, code)}
            assert code in legal and feats["min_opponent_cards"] == obs.hand_sizes[1 - obs.seat]
    return out


def test_no_bomb_advice_never_bombs_in_its_bin_but_does_outside() -> None:
    rec = Recording(base="heuristic:bomb=early", advice="bombs[min_opponent_cards=5..17]:no-bomb")
    games([rec, "heuristic:bomb=early"], 40)
    got = bomb_decisions(rec, {"opp": (5, 17)})
    assert got["in_bomb"] == 0 and got["in_other"] >= 10, got
    assert got["out_bomb"] >= 5, got  # outside its bin the base (bomb=early) still bombs


@pytest.mark.slow  # plays games; its no-bomb sibling stays fast
def test_bomb_advice_bombs_in_its_bin_only() -> None:
    rec = Recording(base="heuristic:bomb=never", advice="bombs[min_opponent_cards=1..6]:bomb")
    games([rec, "heuristic"], 40)
    got = bomb_decisions(rec, {"opp": (1, 6)})
    assert got["in_other"] == 0 and got["in_bomb"] >= 5, got
    assert got["out_bomb"] == 0 and got["out_other"] >= 5, got


def test_bomb_advice_with_learned_plays_a_bomb_inside_the_bin() -> None:
    advice = "bombs[bomb_wilds=0..0]:bomb"
    rec = Recording(base="learned", advice=advice)
    games([rec, "learned"], 20)
    (record,) = parse_advice(advice)
    seen = 0
    for obs, legal, code in rec.log:
        arr = obs.array
        inside = [c for c in legal if is_bomb(c) and bomb_features(arr, c)["bomb_wilds"] == 0]
        if inside and obs.top is not None:
            seen += 1
            assert code in inside and record.matches(bomb_features(arr, code))
    assert seen >= 5


def bet_decisions(rec: Recording) -> list[int]:
    """The chosen bet value (0: none) at every bet opportunity."""
    out = []
    for obs, legal, code in rec.log:
        bets = [c for c in legal if int(c) >> L.TYPE_SHIFT == L.T_BET]
        if bets:
            is_bet = int(code) >> L.TYPE_SHIFT == L.T_BET
            out.append(hs.position.action_from_code(obs.seat, code).value if is_bet else 0)
    return out


def test_bet_advice_is_followed() -> None:
    # a heuristic that always makes a Little bet (15); advice: 30 when ahead or level,
    # no bet when behind
    rec = Recording(
        base="heuristic:bet=0;big=1.01",
        advice="bets[actor_lead=0..9999]:30;bets[actor_lead=-9999..-1]:no-bet",
    )
    games([rec, "heuristic"], 12)
    chosen = []
    for obs, legal, code in rec.log:
        if any(int(c) >> L.TYPE_SHIFT == L.T_BET for c in legal):
            lead = situation_features(obs)["actor_lead"]
            is_bet = int(code) >> L.TYPE_SHIFT == L.T_BET
            v = hs.position.action_from_code(obs.seat, code).value if is_bet else 0
            chosen.append((lead >= 0, v))
            assert v == (30 if lead >= 0 else 0), (lead, v)
    assert {ahead for ahead, _ in chosen} == {True, False}


def test_first_out_advice_estimates_from_the_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[hs.Observation] = []
    real = strategies.advised.analyze

    def spy(obs: hs.Observation, *args: Any, **kw: Any) -> Any:
        assert isinstance(obs, hs.Observation)
        calls.append(obs)
        return real(obs, *args, **kw)

    monkeypatch.setattr(strategies.advised, "analyze", spy)
    rec = Recording(base="heuristic:bet=0;big=0.3", advice="bets[first_out=0..1]:no-bet", samples=8)
    games([rec, "heuristic"], 4)
    values = bet_decisions(rec)
    assert values and all(v == 0 for v in values)  # the base always bets: overridden
    assert len(calls) == len(values)


@pytest.mark.parametrize(
    "advice",
    [
        "bombs[min_opponent_cards=1..6]:bomb;bets[first_out=0.3..1]:15",
        "bombs[bomb_wilds=2..3]:no-bomb;bets[actor_cards=10..14]:no-bet",
    ],
)
def test_redealing_hidden_cards_does_not_change_the_advised_decision(advice: str) -> None:
    """A seat decides the same in every deal it cannot tell apart (see test_strategies)."""
    strat = AdvisedStrategy(base="heuristic:bomb=early;bet=0.2;big=0.5", advice=advice, samples=8)
    rng = np.random.default_rng(7)
    states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
    actions = np.empty(8000, dtype=np.int64)
    n = S.random_game_trace(ARR, np.int64(11), 0.0, states, actions)
    live = np.flatnonzero(states[:n, L.S_PHASE] == L.PH_PLAY)
    decided = moved = 0
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    for row in map(int, rng.choice(live, size=25, replace=False)):
        seat = int(states[row, L.S_TO_ACT])
        alt = redeal(states[:n], actions[:n], row, seat, rng)[-1]
        moved += not np.array_equal(alt[L.S_HAND + 1 - seat], states[row, L.S_HAND + 1 - seat])
        picks = []
        for st in (states[row], alt):
            k = S.legal_actions(st, buf, True)
            legal = [hs.position.action_from_code(seat, int(c)) for c in buf[:k]]
            obs = hs.Observation.from_array(S.observe(st, seat), seat)
            picks.append(strat.act(obs, legal, np.random.default_rng(row)).code)
        assert picks[0] == picks[1], row
        decided += 1
    assert decided == 25 and moved >= 15


def test_spec_round_trips_through_make() -> None:
    s = strategies.make(
        "advised:base=heuristic:bomb=early;wild=0.7,advice=bombs[bomb_wilds=0..0&"
        "min_opponent_cards=1..3]:do not bomb; bets[first_out=0.6..1]:bet 30,samples=16"
    )
    advice = "bombs[bomb_wilds=0..0&min_opponent_cards=1..3]:no-bomb;bets[first_out=0.6..1]:30"
    assert f"advice={advice}," in s.spec
    again = strategies.make(s.spec)
    assert again.spec == s.spec and again.policy_key(RULES) == s.policy_key(RULES)
    assert strategies.make("advised").base.name == "learned"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("advised:base=random", "base must be one of heuristic, learned, mcts"),
        ("advised:base=mcts:prior=none", "needs prior=learned"),
        ("advised:advice=bombs[first_out=0..1]:bomb", "cannot be conditioned on 'first_out'"),
        ("advised:advice=bombs[bomb_wilds=3..0]:bomb", "is not a range"),
        ("advised:advice=bombs[bomb_wilds=0]:bomb", "is not feature=LOW..HIGH"),
        ("advised:advice=bets[]:bomb", "bets advice must be a bet value or no-bet"),
        ("advised:advice=bombs[]:maybe", "bombs advice must be bomb or no-bomb"),
        ("advised:advice=raises[]:bomb", "advice kind must be one of bombs, bets"),
        ("advised:advice=bombs:bomb", "is not KIND[feature=LOW..HIGH&...]:ADVICE"),
    ],
)
def test_bad_advised_spec_is_a_clear_error(spec: str, words: str) -> None:
    with pytest.raises(StrategyError, match=words.replace("[", r"\[").replace(".", r"\.")):
        strategies.make(spec)
