"""The PettingZoo environment: PettingZoo's own checks, the runner's deals, hs.Game's
states, the rewards, information sets and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from redeal import redeal

import haggis_sim as hs
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.env import encode as E
from haggis_sim.env import env, raw_env
from haggis_sim.training.positions import combos

# the warnings PettingZoo's api_test gives for any dict observation with an action mask
# (its own classic games with masks are exempted from them by name)
EXPECTED_WARNINGS = (
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
)


@pytest.mark.parametrize(("preset", "players"), [("revised", 2), ("classic", 3)])
def test_pettingzoo_api_test_passes(preset: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(preset=preset, players=players), num_cycles=300)
    assert {str(w.message) for w in caught} <= set(EXPECTED_WARNINGS)


@pytest.mark.slow  # PettingZoo's seed test plays many full games
@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(preset="revised", players=players), num_cycles=200)


def test_reset_deals_the_runners_game_for_a_seed_and_game_id() -> None:
    rules = hs.Rules.preset("revised", players=3)
    e = raw_env(rules=rules)
    e.reset(seed=11, options={"game_id": 4})
    assert np.array_equal(e.state_array, hs.Game(rules, seed=11, game_id=4).state_array)
    e.reset()  # the next game of the same run
    assert np.array_equal(e.state_array, hs.Game(rules, seed=11, game_id=5).state_array)
    e.reset(seed=12)  # a new seed starts at game 0
    assert np.array_equal(e.state_array, hs.Game(rules, seed=12, game_id=0).state_array)
    assert not np.array_equal(e.state_array, hs.Game(rules, seed=11, game_id=0).state_array)


@pytest.mark.parametrize(("preset", "players"), [("revised", 2), ("aid", 3), ("deluxe", 2)])
def test_an_episode_and_the_same_actions_through_hs_game_agree_at_every_step(
    preset: str, players: int
) -> None:
    rules = hs.Rules.preset(preset, players=players)
    rng = np.random.default_rng(5)
    for game_id in range(3):
        e = raw_env(rules=rules, reward="round")
        e.reset(seed=21, options={"game_id": game_id})
        game = hs.Game(rules, seed=21, game_id=game_id)
        returns = dict.fromkeys(e.possible_agents, 0.0)
        steps = 0
        for agent in e.agent_iter():
            _, reward, term, _, info = e.last(observe=False)
            returns[agent] += reward
            if term:
                e.step(None)
                continue
            assert agent == f"player_{game.to_act}"
            if steps % 7 == 0:  # the mask: the selected agent's legal actions, no one else's
                for other in e.agents:
                    mask = e.observe(other)["action_mask"]
                    want = np.sort(info["legal_actions"]) if other == agent else []
                    assert np.array_equal(np.flatnonzero(mask), want)
            legal = info["legal_actions"]
            a = int(legal[rng.integers(len(legal))])
            code = e.action_code(a)
            e.step(a)
            game.apply_action(code)
            if not game.over:
                assert np.array_equal(e.state_array, game.state_array), steps
            steps += 1
        assert game.over and len(game.rounds) >= 1
        assert e.state_array[L.S_WINNER] == game.winner
        # round rewards: each round's points, so a seat's return is its final score
        assert [returns[f"player_{s}"] for s in range(players)] == list(game.scores)
        assert sum(len(r.history) for r in game.rounds) == steps


def test_game_rewards_are_zero_sum_and_go_to_the_winner() -> None:
    rng = np.random.default_rng(2)
    for players in (2, 3):
        e = raw_env(players=players)
        for g in range(4):
            e.reset(seed=3, options={"game_id": g})
            returns = dict.fromkeys(e.possible_agents, 0.0)
            for agent in e.agent_iter():
                _, reward, term, _, info = e.last(observe=False)
                returns[agent] += reward
                if term:
                    e.step(None)
                    continue
                legal = info["legal_actions"]
                e.step(int(legal[rng.integers(len(legal))]))
            assert e.agents == []
            assert returns[f"player_{int(e.state_array[L.S_WINNER])}"] == 1.0
            assert sorted(returns.values()) == [-1.0 / (players - 1)] * (players - 1) + [1.0]


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env(players=3)
    e.reset(seed=1)
    before = (e.state_array, e.agent_selection, e.legal_actions(), dict(e._cumulative_rewards))
    legal = set(e.legal_actions().tolist())
    illegal = next(i for i in range(e.n_actions) if i not in legal)
    for bad in (illegal, -1, e.n_actions, 2.0, "3", True, None):
        with pytest.raises(hs.IllegalAction):
            e.step(bad)  # type: ignore[arg-type]
        assert np.array_equal(e.state_array, before[0])
        assert e.agent_selection == before[1]
        assert np.array_equal(e.legal_actions(), before[2])
        assert e._cumulative_rewards == before[3]
    e.step(int(before[2][0]))  # a legal one still goes through


def test_bad_arguments_are_refused_in_one_line() -> None:
    for kwargs in (
        {"reward": "points"},
        {"render_mode": "rgb_array"},
        {"players": 4},
        {"preset": "nope"},
        {"rules": "revised"},
        {"rules": hs.Rules.preset("revised", players=2), "bet_values": (5,)},
        {"no_such_flag": 1},
    ):
        with pytest.raises(hs.InputError) as err:
            raw_env(**kwargs)
        assert "\n" not in str(err.value)
    e = raw_env()
    e.reset(seed=5, options={"game_id": 2})
    before = e.state_array
    for seed, options in (
        (None, {"game_id": -1}),
        (None, {"game_id": "2"}),
        (None, {"game_id": 1.5}),
        (None, {"game_id": 2**63}),
        (6, {"game_id": -1}),  # a good seed with a bad game id: neither is taken
        ("7", None),
        (2**63, None),
        (True, None),
    ):
        with pytest.raises(hs.InputError):
            e.reset(seed=seed, options=options)  # type: ignore[arg-type]
        assert np.array_equal(e.state_array, before) and (e.seed_value, e.game_id) == (5, 2)
    e.reset(seed=-(2**63))  # the runner's seed range, both ends
    e.reset(seed=2**63 - 1, options={"game_id": 2**63 - 1})


def test_rule_flags_reach_the_engine() -> None:
    e = raw_env(preset="revised", players=3, card_points="per_card")
    assert e.rules == hs.Rules.preset("revised", players=3, card_points="per_card")
    e.reset(seed=0)
    assert e.state_array[L.R_BASE + L.R_CARD_POINTS] == L.CP_PER_CARD


def test_observations_hold_no_hidden_card() -> None:
    """At sampled positions of random games, another deal of the cards a seat has not
    seen (replayed through the engine, tests/redeal.py) gives that seat the same
    observation vector and, at its turn, the same legal actions."""
    rng = np.random.default_rng(8)
    compared = 0
    for k, (preset, players) in enumerate([("revised", 2), ("classic", 3), ("aid", 3)]):
        rules = hs.Rules.preset(preset, players=players).to_array()
        states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
        actions = np.empty(8000, dtype=np.int64)
        n = S.random_game_trace(rules, np.int64(40 + k), 0.3, states, actions)
        live = np.flatnonzero(np.isin(states[:n, L.S_PHASE], (L.PH_PLAY, L.PH_GIVE_TRICK)))
        for row in map(int, rng.choice(live, size=40, replace=False)):
            for seat in range(players):
                alt = redeal(states[:n], actions[:n], row, seat, rng)[-1]
                assert not np.array_equal(alt, states[row])
                a = np.zeros(E.SIZE, dtype=np.float32)
                b = np.zeros(E.SIZE, dtype=np.float32)
                E.encode_state(states[row], seat, a)
                E.encode_state(alt, seat, b)
                assert np.array_equal(a, b), (preset, row, seat)
                compared += 1
    assert compared == 40 * (2 + 3 + 3)


def test_the_observation_vector_matches_its_documented_layout() -> None:
    e = raw_env(players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    st = e.state_array
    # into a later round (three different game scores), with captured piles and a trick
    while (
        st[L.S_ROUND_NO] < 1
        or len(set(st[L.S_SCORE : L.S_SCORE + 3])) < 3
        or (st[L.S_TRICK_NO] < 2 or st[L.S_TRICK_CARDS] == 0)
    ):
        legal = e.legal_actions()
        e.step(int(legal[rng.integers(len(legal))]))
        st = e.state_array
    agent = e.agent_selection
    vec = e.observe(agent)["observation"]
    o = e.observation_of(agent)
    off = E.offsets()
    seat = o.seat
    assert vec.shape == (E.SIZE,) and sum(f[1] for f in E.FIELDS) == E.SIZE
    hand = vec[off["hand"] : off["hand"] + 48]
    assert hand[:45].sum() == len([c for c in o.hand if c[0] not in "JQK"])
    assert list(hand[45:]) == [float(f in o.faces_held[seat]) for f in "JQK"]
    assert vec[off["phase"] + ("play", "give_trick", "give_haggis").index(o.phase)] == 1
    for r in range(3):
        block = off[f"seat_{r}"]
        s = (seat + r) % 3
        assert vec[block + E.P_SIZE] == o.hand_sizes[s]
        assert vec[block + E.P_SCORE] == o.scores[s]
        assert vec[block + E.P_CAPT : block + E.P_CAPT + 48].sum() == len(o.captured[s])
    assert vec[off["played"] : off["played"] + 48].sum() == len(o.played_cards)
    assert vec[off["trick_cards"] : off["trick_cards"] + 48].sum() == len(o.trick_cards)
    space = e.observation_space(agent)
    assert space.contains(e.observe(agent))


SHARDS = 4  # the 10,000 games in shards the test workers share out


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_ten_thousand_random_episodes_complete(shard: int) -> None:
    """10,000 whole games of uniformly random legal actions over every ruleset (a quarter
    of them, every ruleset, per shard), through the environment's own checks; every 50th game also
    observes at every step and checks the observation lies in the observation space."""
    sets = combos()
    envs = {rs: raw_env(preset=rs[0], players=rs[1]) for rs in sets}
    rng = np.random.default_rng([10_000, shard])
    steps = 0
    size = 10_000 // SHARDS
    for g in range(shard * size, (shard + 1) * size):
        e = envs[sets[g % len(sets)]]
        e.reset(seed=g // len(sets), options={"game_id": g})
        full = g % 50 == 0
        for agent in e.agent_iter():
            obs, _, term, _, info = e.last(full)
            if full:
                assert e.observation_space(agent).contains(obs)
            if term:
                e.step(None)
                continue
            legal = info["legal_actions"]
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        assert e.agents == []
    assert steps > 1_000_000 // SHARDS
