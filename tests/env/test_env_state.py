"""The AEC environment checks its state and arguments: a call it cannot serve now, or a
wrong argument, raises the project's errors (InputError, EnvStateError) and changes
nothing, where once it raised KeyError, AttributeError or OverflowError."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from haggis_sim import IllegalAction, InputError  # noqa: E402
from haggis_sim.env import EnvStateError, HaggisEnv, env, raw_env  # noqa: E402


def played_out(env: HaggisEnv) -> None:
    """Play the dealt game to its end with each agent's first legal action, then take
    every agent's dead step, as PettingZoo's loop does."""
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(int(env.legal_actions()[0]))


def test_step_and_observe_before_reset_say_so() -> None:
    env = HaggisEnv()
    with pytest.raises(EnvStateError, match="before reset"):
        env.step(0)
    with pytest.raises(EnvStateError, match="before reset"):
        env.observe("player_0")
    with pytest.raises(EnvStateError, match="before reset"):
        env.observation_of("player_0")


def test_a_step_after_the_game_says_so_and_reset_deals_again() -> None:
    env = HaggisEnv()
    env.reset(seed=3)
    played_out(env)
    with pytest.raises(EnvStateError, match="game is over"):
        env.step(0)
    env.reset()
    assert env.agents == env.possible_agents


def test_reset_options_must_be_a_dict() -> None:
    env = HaggisEnv()
    env.reset(seed=1)
    before = env.state_array
    with pytest.raises(InputError, match="options must be a dict"):
        env.reset(options="junk")  # type: ignore[arg-type]
    assert (env.state_array == before).all()


def test_no_game_after_the_last_game_id() -> None:
    env = HaggisEnv()
    env.reset(options={"game_id": 2**63 - 1})
    before = env.state_array
    with pytest.raises(InputError, match="last game id"):
        env.reset()
    assert (env.state_array == before).all()
    env.reset(seed=5)  # a new seed starts again at game 0
    assert env.game_id == 0


def test_an_unknown_agent_is_named() -> None:
    env = HaggisEnv()
    env.reset(seed=1)
    with pytest.raises(InputError, match="unknown agent 'player_9'"):
        env.observe("player_9")


@pytest.mark.parametrize("make", [env, raw_env])
def test_the_wrapped_and_raw_env_say_what_cannot_be_done_now(make: object) -> None:
    """Through PettingZoo's wrapper a step or an observation before reset raised
    AssertionError, and a step after every last step only warned; last() before reset
    raised AttributeError, after the game KeyError; an action in a dead step ValueError."""
    e = make()  # type: ignore[operator]
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.last()):
        with pytest.raises(EnvStateError, match="before reset"):
            call()
    e.reset(seed=3)
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        e.step(int(e.unwrapped.legal_actions()[0]))
    before = e.unwrapped.state_array
    with pytest.raises(IllegalAction, match="takes the action None"):
        e.step(0)
    assert (e.unwrapped.state_array == before).all()
    while e.agents:
        e.step(None)
    for call in (lambda: e.step(None), lambda: e.last()):
        with pytest.raises(EnvStateError, match="game is over"):
            call()
