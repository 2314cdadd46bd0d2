"""The Gymnasium wrapper: Gymnasium's checker, opponents asked as the runner asks them,
rewards, and errors."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import env_checker as C
from gymnasium.utils import passive_env_checker as P
from strat_helpers import PyRandom

import haggis_sim as hs
import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.env import HaggisGymEnv
from haggis_sim.runner.chunk import seat_streams
from haggis_sim.runner.tournament import tournament
from strategies import registry


@pytest.mark.parametrize("opponents", [["heuristic", "greedy"], ["random"]])
def test_gymnasium_env_checks_pass(opponents: list[str]) -> None:
    """Every check of Gymnasium's ``check_env`` but the two that step an action sampled
    without the mask (an illegal action raises here, by design), and those two done with a
    legal action: one step from the same seed gives the same data, and the data of
    successive calls is not one reused buffer."""
    env = HaggisGymEnv(opponents=opponents)
    C.check_action_space(env.action_space)
    C.check_space_limit(env.action_space, "action")
    C.check_observation_space(env.observation_space)
    C.check_space_limit(env.observation_space, "observation")
    C.check_seed_deprecation(env)
    C.check_reset_return_info_deprecation(env)
    C.check_reset_return_type(env)
    C.check_reset_seed_determinism(env)
    C.check_reset_options(env)
    _, info = env.reset(seed=123)
    action = int(info["legal_actions"][-1])
    first = env.step(action)
    env.reset(seed=123)
    P.env_step_passive_checker(env, action)
    env.reset(seed=123)
    again = env.step(action)
    assert C.data_equivalence(first, again)
    assert not P.data_shares_objects(first[0], again[0])


@pytest.mark.parametrize(
    ("learner", "opponents", "seat"),
    [
        ("greedy", ["heuristic"], 0),
        ("heuristic", ["mcts:iters=16"], 1),
        ("random:bet=0.3", ["heuristic", PyRandom.name], 2),
    ],
)
def test_an_episode_is_the_runners_game_when_the_agent_plays_like_a_strategy(
    learner: str, opponents: list[str], seat: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's seat chooses what ``learner`` would (from its own runner stream); the
    games then equal ``tournament`` with ``--seats fixed`` and the same seed, score for
    score: the deal, the opponents' decisions and their random streams are the runner's."""
    players = len(opponents) + 1
    lineup = [learner] * players
    for k, spec in enumerate(opponents):
        lineup[(seat + 1 + k) % players] = spec
    monkeypatch.setitem(registry._extra, PyRandom.name, PyRandom)
    result = tournament(lineup, games=3, players=players, seed=17, seats="fixed", jobs=1)
    env = HaggisGymEnv(opponents=opponents, players=players, seat=seat)
    me = strategies.make(learner)
    assert isinstance(me, strategies.CompiledStrategy)
    for g in range(3):
        _, info = env.reset(seed=17, options={"game_id": g})
        stream = seat_streams(17, g, players)[0][seat]
        done = False
        total = 0.0
        while not done:
            code = me.act_array(S.observe(env.aec.state_array, seat), stream)
            _, reward, done, truncated, info = env.step(env.aec.action_index(code))
            total += reward
            assert not truncated
        row = result.games.row(g, named=True)
        assert info["scores"] == tuple(row[f"score_{s}"] for s in range(players))
        assert info["winner"] == row["winner"]
        assert total == (1.0 if row["winner"] == seat else -1.0 / (players - 1))


def test_opponents_are_placed_after_the_agent_in_turn_order() -> None:
    env = HaggisGymEnv(opponents=["heuristic", "greedy"], seat=1)
    assert {s: o.name for s, o in env.opponents.items()} == {2: "heuristic", 0: "greedy"}
    one = HaggisGymEnv(opponents="mcts", players=3)
    assert [o.name for o in one.opponents.values()] == ["mcts", "mcts"]


@pytest.mark.parametrize("opponents", [["heuristic"], ["heuristic", "greedy"]])
def test_round_rewards_sum_to_the_agents_final_score(opponents: list[str]) -> None:
    """Each round's points reach the agent at its next step, also when the round ended on
    an opponent's move and the next round began with others' moves."""
    env = HaggisGymEnv(opponents=opponents, reward="round")
    rng = np.random.default_rng(3)
    for g in range(4):
        obs, info = env.reset(seed=2, options={"game_id": g})
        total, done = 0.0, False
        while not done:
            assert env.observation_space.contains(obs)
            legal = info["legal_actions"]
            assert np.array_equal(np.flatnonzero(obs["action_mask"]), np.sort(legal))
            obs, reward, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
            total += reward
        assert total == info["scores"][0]


def test_bad_use_is_refused_and_changes_nothing() -> None:
    for kwargs in (
        {"opponents": ["heuristic", "greedy"], "players": 2},
        {"opponents": []},
        {"opponents": ["heuristic"], "seat": 2},
        {"opponents": ["heuristic"], "seat": True},
        {"opponents": ["nobody"]},
        {"opponents": ["mcts:iters=0"]},
        {"opponents": ["heuristic"], "players": 4},
    ):
        with pytest.raises(hs.InputError) as err:
            HaggisGymEnv(**kwargs)  # type: ignore[arg-type]
        assert "\n" not in str(err.value)
    env = HaggisGymEnv(opponents=["heuristic"])
    with pytest.raises(hs.InputError, match="reset"):
        env.step(0)  # before any reset
    _, info = env.reset(seed=1)
    before = env.aec.state_array
    legal = set(info["legal_actions"].tolist())
    with pytest.raises(hs.IllegalAction):
        env.step(next(i for i in range(100) if i not in legal))
    assert np.array_equal(env.aec.state_array, before)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(info["legal_actions"][0]))
    assert env.aec.state_array[L.S_PHASE] == L.PH_GAME_OVER
    with pytest.raises(hs.InputError, match="reset"):
        env.step(0)
