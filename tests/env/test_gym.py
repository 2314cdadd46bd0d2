"""The Gymnasium wrapper: Gymnasium's checker, opponents asked as the runner asks them,
rewards, and errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
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
    """Every check of Gymnasium's ``check_env``, those that step an action sampled
    without the mask included, on the env as built and as ``gymnasium.make`` builds it
    (with its spec, so the render modes are checked too)."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from haggis_sim.env import ENV_ID

    players = len(opponents) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker's warning is a failure here
        check_env(HaggisGymEnv(opponents=opponents), skip_render_check=True)
        made = gymnasium.make(ENV_ID, opponents=opponents, players=players)
        check_env(made.unwrapped)


def test_an_illegal_action_ends_the_episode_with_the_penalty_and_changes_nothing() -> None:
    """An integer that is no legal action now: terminated, ILLEGAL_REWARD, the action in
    the info, the game's state unchanged; the next step needs a reset. Anything but an
    integer still raises."""
    from haggis_sim.env.gym import ILLEGAL_REWARD

    env = HaggisGymEnv(opponents=["greedy"])
    _, info = env.reset(seed=9)
    legal = set(info["legal_actions"].tolist())
    illegal = next(a for a in range(env.action_space.n) if a not in legal)
    before = env.aec.state_array
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (ILLEGAL_REWARD, True, False)
    assert info["illegal_action"] == illegal
    assert np.array_equal(env.aec.state_array, before)
    assert not env.action_masks().any()
    with pytest.raises(hs.InputError, match="call reset"):
        env.step(int(info["legal_actions"][0]))
    env.reset(seed=9)
    with pytest.raises(hs.IllegalAction):
        env.step("pass")  # type: ignore[arg-type]
    _, reward, terminated, _, _ = env.step(int(env.action_space.n) + 5)  # outside the space
    assert (reward, terminated) == (ILLEGAL_REWARD, True)


def test_action_masks_are_the_legal_actions_as_booleans() -> None:
    """``action_masks()`` (sb3-contrib's hook): bool, True exactly at the legal actions
    the info lists and the observation's int8 mask marks, at every step of a game."""
    env = HaggisGymEnv(opponents=["heuristic", "random"])
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    terminated = False
    while not terminated:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (env.action_space.n,)
        assert np.array_equal(np.flatnonzero(mask), np.sort(info["legal_actions"]))
        assert np.array_equal(mask, obs["action_mask"].astype(bool))
        action = int(rng.choice(info["legal_actions"]))
        obs, _, terminated, _, info = env.step(action)
    assert not env.action_masks().any()


def test_gymnasium_make_knows_the_env_in_a_fresh_process() -> None:
    """``gymnasium.make("haggis_sim.env:HaggisSim/Haggis-v0", ...)`` in a process that
    has imported nothing of haggis_sim: the prefix registers it."""
    code = (
        "import gymnasium\n"
        "e = gymnasium.make('haggis_sim.env:HaggisSim/Haggis-v0', opponents=['greedy'],"
        " players=3)\n"
        "obs, info = e.reset(seed=1)\n"
        "print(type(e.unwrapped).__name__, e.unwrapped.rules.players)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["HaggisGymEnv", "3"]


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
    with pytest.raises(hs.IllegalAction):
        env.step(1.5)  # type: ignore[arg-type]  # not an action index
    assert np.array_equal(env.aec.state_array, before)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(info["legal_actions"][0]))
    assert env.aec.state_array[L.S_PHASE] == L.PH_GAME_OVER
    with pytest.raises(hs.InputError, match="reset"):
        env.step(0)
