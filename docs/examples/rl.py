"""Haggis in PettingZoo and Gymnasium: random agents, and a built-in bot as the agent.

Run it as ``python docs/examples/rl.py [GAMES]`` (default 100; needs the [rl] extra). It
plays GAMES games of the PettingZoo environment with random agents in every seat, then
GAMES games through the Gymnasium wrapper against the search (``mcts``), once with a
random agent and once with the heuristic bot choosing the agent's moves, and prints what
happened.
"""

from __future__ import annotations

import sys

import numpy as np

import haggis_sim as hs
import strategies

try:
    from haggis_sim.env import HaggisGymEnv, raw_env
except ImportError as exc:  # the [rl] extra is missing: its one line, not a traceback
    raise SystemExit(f"error: {exc}") from None

games = int(sys.argv[1]) if len(sys.argv) > 1 else 100
rng = np.random.default_rng(0)  # the agents' own randomness: explicit, seeded

# 1. PettingZoo (AEC): every seat is an agent; here each plays a random legal action.
# An action is a slot among the legal actions of the moment (0 .. n-1, the mask's prefix).
env = raw_env(preset="revised", players=3)
wins = dict.fromkeys(env.possible_agents, 0)
steps = 0
for game in range(games):
    env.reset(seed=1, options={"game_id": game})  # the deal of `haggis-sim run --seed 1`
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            wins[agent] += reward == 1.0  # game reward: +1 to the winner
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])  # == info["legal_actions"]
        action = int(rng.choice(legal))
        if steps == 0:
            ids = env.legal_action_ids()[action]  # kind, width, length, rank, bomb
            print(f"first action: {agent} chose '{env.describe(action)}', id {ids.tolist()}")
        env.step(action)
        steps += 1
print(f"PettingZoo, 3 random agents: {steps:,} steps in {games} games; wins {wins}")

# 2. Gymnasium: one agent (seat 0), the other seat played by a built-in strategy.
gym_env = HaggisGymEnv(opponents=["mcts"], preset="revised")
random_wins = 0
for game in range(games):
    obs, info = gym_env.reset(seed=2, options={"game_id": game})
    done = False
    while not done:
        action = int(rng.choice(info["legal_actions"]))
        obs, reward, done, truncated, info = gym_env.step(action)
    random_wins += info["winner"] == 0
print(f"Gymnasium, random agent vs mcts: won {random_wins} of {games}")

# 3. A built-in bot as the agent: it decides from the agent's information set (the
# engine's observation array) with its own seeded random stream.
bot = strategies.make("heuristic")
assert isinstance(bot, strategies.CompiledStrategy)
stream = hs.kernel.new_stream(np.int64(12345))  # splitmix64, as the runner's
bot_wins = 0
for game in range(games):
    obs, info = gym_env.reset(seed=2, options={"game_id": game})
    done = False
    while not done:
        seen = gym_env.aec.observation_of(gym_env.agent)  # an hs.Observation
        code = bot.act_array(seen.array, stream)  # the engine's packed action
        obs, reward, done, truncated, info = gym_env.step(gym_env.aec.action_index(code))
    bot_wins += info["winner"] == 0
print(f"Gymnasium, heuristic agent vs mcts: won {bot_wins} of {games}")
