"""Environment benchmark: PettingZoo and Gymnasium steps per second with random actions.

Run: ``python benchmarks/bench_env.py [--games 300] [--repeats 3]``: prints a Markdown
table and writes it to ``benchmarks/results/bench_env.md`` (``--out``). The process is
pinned to one core. Every case plays whole games of the revised preset with uniformly
random legal actions; a *step* is one ``env.step`` call of a live agent. The goals, on
one core: 20,000 steps/s for random actions from ``info``, 10,000 steps/s for
PettingZoo's ``action_space(agent).sample(mask)`` with 3 players. Each case runs with
both action representations: ``legal`` (the default: a slot among the legal actions)
and ``flat`` (one index per action of the fixed table).

Cases, from the fastest path to the most convenient one:

- ``raw_env``, ``last(observe=False)``: the agent picks from ``info["legal_actions"]``
  and never builds an observation;
- ``raw_env``, ``last()``: the full observation (vector and action mask) every step, the
  action from ``info["legal_actions"]``;
- ``env()`` (PettingZoo's order-enforcing wrapper), ``last()``, the action drawn by
  ``action_space(agent).sample(mask)``: PettingZoo's usual loop, which scans the whole
  mask (the flat table's with ``flat``, :data:`MAX_LEGAL` entries with ``legal``);
- ``HaggisGymEnv``, a random agent against heuristic opponents: every seat's steps (the
  opponents' included, with the heuristic's decisions: not a random-action figure, so
  not held to the goal).

A second table times :class:`HaggisVectorEnv`: ``--lanes`` games stepped together in
one compiled call, a random slot per lane each step (drawn with numpy from the legal
counts), against random and against greedy opponents; a step there is one agent
action (goal: 100,000 agent steps/s with random actions, one core).

Each figure is the best of ``--repeats`` timed runs (after a warm-up game), so other
load on the machine lowers it rather than raising it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _results import add_out_option, one_core, recorded

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from haggis_sim.env import (  # noqa: E402
    MAX_LEGAL,
    HaggisGymEnv,
    HaggisVectorEnv,
    env,
    n_actions,
    raw_env,
)

GOAL = 20_000  # random actions read from info
GOAL_SAMPLED = 10_000  # action_space(agent).sample(mask)
GOAL_VECTOR = 100_000  # agent steps of the vector env, random actions


def aec_loop(make: Callable[[], object], observe: bool, masked: bool) -> Callable[[int, int], int]:
    e = make()

    def play(games: int, seed: int) -> int:
        rng = np.random.default_rng(seed)
        steps = 0
        for g in range(games):
            e.reset(seed=seed, options={"game_id": g})  # type: ignore[attr-defined]
            for agent in e.agent_iter():  # type: ignore[attr-defined]
                obs, _, term, trunc, info = e.last(observe)  # type: ignore[attr-defined]
                if term or trunc:
                    e.step(None)  # type: ignore[attr-defined]
                    continue
                if masked:
                    a = e.action_space(agent).sample(obs["action_mask"])  # type: ignore[attr-defined]
                else:
                    legal = info["legal_actions"]
                    a = int(legal[rng.integers(len(legal))])
                e.step(a)  # type: ignore[attr-defined]
                steps += 1
        return steps

    return play


def gym_loop(players: int, actions: str) -> Callable[[int, int], int]:
    e = HaggisGymEnv(opponents=["heuristic"] * (players - 1), actions=actions)  # type: ignore[arg-type]
    aec_step = e.aec.step
    count = [0]

    def counted(action: int | None) -> None:  # every seat's step, the opponents' too
        count[0] += 1
        aec_step(action)

    e.aec.step = counted  # type: ignore[method-assign]

    def play(games: int, seed: int) -> int:
        rng = np.random.default_rng(seed)
        count[0] = 0
        for g in range(games):
            _, info = e.reset(seed=seed, options={"game_id": g})
            done = False
            while not done:
                legal = info["legal_actions"]
                _, _, done, _, info = e.step(int(legal[rng.integers(len(legal))]))
        return count[0]

    return play


def vector_loop(players: int, opponent: str, lanes: int) -> Callable[[int, int], int]:
    e = HaggisVectorEnv(lanes, opponents=[opponent], players=players, copy=False)

    def play(steps: int, seed: int) -> int:
        rng = np.random.default_rng(seed)
        _, info = e.reset(seed=seed)
        counts = info["legal_count"]
        for _ in range(steps):
            slots = (rng.random(lanes) * counts).astype(np.int64)
            _, _, _, _, info = e.step(slots)
            counts = info["legal_count"]
        return steps * lanes

    return play


def best_rate(play: Callable[[int, int], int], games: int, repeats: int) -> tuple[int, float]:
    play(1, 999)  # warm-up: compiled code loaded, action table built
    best = 0.0
    steps = 0
    for r in range(repeats):
        t0 = time.perf_counter()
        steps = play(games, r)
        best = max(best, steps / (time.perf_counter() - t0))
    return steps, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lanes", type=int, default=64, help="games of the vector env")
    parser.add_argument("--vector-steps", type=int, default=2000, help="vector steps per run")
    add_out_option(parser, "bench_env")
    args = parser.parse_args()
    one_core()
    with recorded(args.out):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    print(
        f"Revised rules, {args.games} whole games per run, uniformly random legal actions, "
        f"one core; best of {args.repeats} runs. Goals: {GOAL:,} steps/s with the action "
        f"from `info`, {GOAL_SAMPLED:,} with `action_space(agent).sample(mask)` (3 players; "
        "a tenth of the games with the flat table).\n"
    )
    print("| interface | actions | players | action space | steps per run | steps/s | goal | met |")
    print("|---|---|---:|---:|---:|---:|---:|:---:|")
    for players in (2, 3):
        for actions in ("legal", "flat"):
            space = MAX_LEGAL if actions == "legal" else n_actions(players)
            sampled_games = args.games if actions == "legal" else max(1, args.games // 10)
            cases = [
                (
                    "`raw_env`, `last(observe=False)`, action from `info`",
                    aec_loop(
                        lambda p=players, a=actions: raw_env(players=p, actions=a), False, False
                    ),
                    args.games,
                    GOAL,
                ),
                (
                    "`raw_env`, `last()` (vector and mask), action from `info`",
                    aec_loop(
                        lambda p=players, a=actions: raw_env(players=p, actions=a), True, False
                    ),
                    args.games,
                    GOAL,
                ),
                (
                    "`env()`, `last()`, `action_space(agent).sample(mask)`",
                    aec_loop(lambda p=players, a=actions: env(players=p, actions=a), True, True),
                    sampled_games,
                    GOAL_SAMPLED if players == 3 else 0,
                ),
                (
                    "`HaggisGymEnv`, random agent vs heuristic: every seat's steps (the "
                    "heuristic's decisions included)",
                    gym_loop(players, actions),
                    args.games,
                    0,
                ),
            ]
            for label, play, games, goal in cases:
                steps, rate = best_rate(play, games, args.repeats)
                shown, met = (
                    ("—", "—") if not goal else (f"{goal:,}", "yes" if rate >= goal else "no")
                )
                print(
                    f"| {label} | {actions} | {players} | {space:,} | {steps:,} | {rate:,.0f} "
                    f"| {shown} | {met} |"
                )
                sys.stdout.flush()
    print(
        f"\n`HaggisVectorEnv`: {args.lanes} games stepped together, {args.vector_steps:,} "
        f"steps per run (a random slot per game each step, `copy=False`), one core; best of "
        f"{args.repeats} runs. Goal: {GOAL_VECTOR:,} agent steps/s with random actions.\n"
    )
    print("| opponents | players | agent steps per run | agent steps/s | goal | met |")
    print("|---|---:|---:|---:|---:|:---:|")
    for players in (2, 3):
        for opponent in ("random", "greedy"):
            play = vector_loop(players, opponent, args.lanes)
            steps, rate = best_rate(play, args.vector_steps, args.repeats)
            shown, met = ("—", "—")
            if opponent == "random":
                shown, met = f"{GOAL_VECTOR:,}", "yes" if rate >= GOAL_VECTOR else "no"
            print(f"| {opponent} | {players} | {steps:,} | {rate:,.0f} | {shown} | {met} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
