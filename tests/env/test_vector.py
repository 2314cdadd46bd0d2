"""The vector env: every lane plays exactly the single env's games of its game ids, with
same-step autoreset, illegal slots ending the episode, and clear errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import haggis_sim as hs  # noqa: E402
from haggis_sim.env import (  # noqa: E402
    MAX_LEGAL,
    HaggisGymEnv,
    HaggisVectorEnv,
    encode,
)
from haggis_sim.env.gym import ILLEGAL_REWARD  # noqa: E402
from strategies import Strategy  # noqa: E402


def _random_slots(rng: np.random.Generator, counts: np.ndarray) -> np.ndarray:
    return (rng.random(len(counts)) * counts).astype(np.int64)


@pytest.mark.parametrize(
    ("players", "opponents", "reward"),
    [(2, ["greedy"], "game"), (3, ["heuristic", "random"], "round"), (3, ["learned"], "game")],
)
def test_each_lane_plays_the_single_envs_games(
    players: int, opponents: list[str], reward: Any
) -> None:
    """Random slots in 3 lanes for 400 steps; each lane's steps replayed through
    HaggisGymEnv (same seed, the lane's game ids, the same slots) give the same
    observations, masks, rewards, ends, winners and scores."""
    lanes, seed, first = 3, 11, 5
    vec = HaggisVectorEnv(lanes, opponents=opponents, players=players, reward=reward)
    obs, info = vec.reset(seed=seed, options={"game_id": first})
    rng = np.random.default_rng(0)
    trace: list[list[tuple[Any, ...]]] = [[] for _ in range(lanes)]
    firsts = [obs["observation"][i].copy() for i in range(lanes)]
    ended_games = 0
    for _ in range(400):
        actions = _random_slots(rng, info["legal_count"])
        obs, rewards, term, trunc, info = vec.step(actions)
        assert not trunc.any()
        for i in range(lanes):
            seen = info["final_obs"][i]["observation"] if term[i] else obs["observation"][i]
            result = (info["winner"][i], tuple(info["scores"][i])) if term[i] else None
            trace[i].append(
                (int(actions[i]), seen.copy(), float(rewards[i]), bool(term[i]), result)
            )
            ended_games += bool(term[i])
    assert ended_games >= 3
    single = HaggisGymEnv(opponents=opponents, players=players, reward=reward)
    for i in range(lanes):
        game = first + i
        o, _ = single.reset(seed=seed, options={"game_id": game})
        assert np.array_equal(o["observation"], firsts[i])
        for action, seen, rew, done, result in trace[i]:
            o, r, t, _, inf = single.step(action)
            assert np.array_equal(o["observation"], seen) and r == pytest.approx(rew) and t == done
            if done:
                assert (inf["winner"], inf["scores"]) == (result[0], result[1])
                game += lanes
                o, _ = single.reset(seed=seed, options={"game_id": game})


def test_an_illegal_slot_ends_the_lanes_episode_and_deals_its_next_game() -> None:
    vec = HaggisVectorEnv(2, opponents=["greedy"])
    _, info = vec.reset(seed=3)
    before = vec.game_ids()
    actions = np.array([info["legal_count"][0], 0])  # lane 0: one past its legal slots
    obs, rewards, term, _, info = vec.step(actions)
    assert term.tolist() == [True, False] and rewards[0] == ILLEGAL_REWARD
    assert info["illegal_action"][0] == actions[0] and info["_illegal_action"].tolist() == [
        True,
        False,
    ]
    assert info["winner"][0] == -1 and not info["_winner"][0]
    assert vec.game_ids()[0] == before[0] + 2 and vec.game_ids()[1] == before[1]
    masks = vec.action_masks()
    assert masks.shape == (2, MAX_LEGAL)
    assert [int(m.sum()) for m in masks] == info["legal_count"].tolist()
    assert np.array_equal(obs["action_mask"].astype(bool), masks)


def test_same_seed_same_games() -> None:
    runs = []
    for _ in range(2):
        vec = HaggisVectorEnv(3, opponents=["random"], players=3)
        _, info = vec.reset(seed=8)
        rng = np.random.default_rng(4)
        total = np.zeros(3)
        for _ in range(150):
            _, r, _, _, info = vec.step(_random_slots(rng, info["legal_count"]))
            total += r
        runs.append((total, vec.state_arrays()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


class _PythonPasser(Strategy):
    name = "python-passer"
    description = "a strategy written in Python"

    def act(self, observation: Any, legal: Any, rng: Any) -> Any:
        return legal[0]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"num_envs": 0}, "num_envs must be an integer 1..4096"),
        ({"num_envs": 2.5}, "num_envs must be an integer"),
        ({"num_envs": 2, "opponents": ["greedy", "greedy", "greedy"]}, "players must be 2 or 3"),
        ({"num_envs": 2, "seat": 2}, "seat must be 0..1"),
        ({"num_envs": 2, "reward": "points"}, "reward must be one of"),
        ({"num_envs": 2, "opponents": [_PythonPasser()]}, "compiled opponents only"),
    ],
)
def test_bad_arguments_are_one_clear_error(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(hs.InputError, match=words):
        HaggisVectorEnv(**kwargs)


def test_bad_steps_are_refused_and_change_nothing() -> None:
    vec = HaggisVectorEnv(2, opponents=["greedy"])
    with pytest.raises(hs.InputError, match="call reset"):
        vec.step(np.zeros(2, dtype=np.int64))
    vec.reset(seed=1)
    before = vec.state_arrays()
    for bad in (np.zeros(3, dtype=np.int64), np.zeros(2), [[0, 0]], "00"):
        with pytest.raises(hs.InputError, match="actions must be 2 integers"):
            vec.step(bad)
        assert np.array_equal(vec.state_arrays(), before)
    with pytest.raises(hs.InputError, match="game_id"):
        vec.reset(options={"game_id": -1})


def test_gymnasiums_vector_wrappers_run_on_it() -> None:
    import gymnasium

    vec = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        HaggisVectorEnv(4, opponents=["greedy"])
    )
    _, info = vec.reset(seed=2)
    rng = np.random.default_rng(1)
    episodes = 0
    for _ in range(300):
        _, _, term, _, info = vec.step(_random_slots(rng, info["legal_count"]))
        if "episode" in info:
            episodes += int(info["_episode"].sum())
    assert episodes >= 2
    assert vec.observation_space.contains(vec.unwrapped._observations())


def test_the_rl_pages_vector_example_runs_as_printed() -> None:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page, flags=re.S) if "Vector" in b]
    assert len(blocks) == 1
    namespace: dict[str, Any] = {}
    exec(compile(blocks[0], "docs/rl.md", "exec"), namespace)
    assert namespace["obs"]["observation"].shape == (64, encode.SIZE)
    assert np.array_equal(
        namespace["info"]["legal_count"], namespace["envs"].action_masks().sum(axis=1)
    )
