"""Environment benchmark: PettingZoo and Gymnasium steps per second with random actions.

Run: ``python benchmarks/bench_env.py [--games 300] [--repeats 3]``: prints a Markdown
table and writes it to ``benchmarks/results/bench_env.md`` (``--out``). The process is
pinned to one core. Every case plays whole games of the revised preset with uniformly
random legal actions; a *step* is one ``env.step`` call of a live agent. The goal (issue
#29) is 20,000 steps/s on one core for random actions.

Cases, from the fastest path to the most convenient one:

- ``raw_env``, ``last(observe=False)``: the agent picks from ``info["legal_actions"]``
  and never builds an observation;
- ``raw_env``, ``last()``: the full observation (vector and action mask) every step, the
  action from ``info["legal_actions"]``;
- ``env()`` (PettingZoo's order-enforcing wrapper), ``last()``, the action drawn by
  ``action_space(agent).sample(mask)``: PettingZoo's usual loop, which scans the whole mask;
- ``HaggisGymEnv``, a random agent against heuristic opponents: every seat's steps (the
  opponents' included, with the heuristic's decisions: not a random-action figure, so
  not held to the goal).

Each figure is the best of ``--repeats`` timed runs (after a warm-up game), so other
load on the machine lowers it rather than raising it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _results import add_out_option, recorded

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from haggis_sim.env import HaggisGymEnv, env, n_actions, raw_env  # noqa: E402

GOAL = 20_000


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


def gym_loop(players: int) -> Callable[[int, int], int]:
    e = HaggisGymEnv(opponents=["heuristic"] * (players - 1))
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
    add_out_option(parser, "bench_env")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    with recorded(args.out):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    print(
        f"Revised rules, {args.games} whole games per run, uniformly random legal actions, "
        f"one core; best of {args.repeats} runs. Goal: {GOAL:,} steps/s.\n"
    )
    print("| interface | players | action space | steps per run | steps/s | goal met |")
    print("|---|---:|---:|---:|---:|:---:|")
    for players in (2, 3):
        cases = [
            (
                "`raw_env`, `last(observe=False)`, action from `info`",
                aec_loop(lambda p=players: raw_env(players=p), False, False),
                args.games,
            ),
            (
                "`raw_env`, `last()` (vector and mask), action from `info`",
                aec_loop(lambda p=players: raw_env(players=p), True, False),
                args.games,
            ),
            (
                "`env()`, `last()`, `action_space.sample(mask)`",
                aec_loop(lambda p=players: env(players=p), True, True),
                max(1, args.games // 10),
            ),
            (
                "`HaggisGymEnv`, random agent vs heuristic: every seat's steps (the "
                "heuristic's decisions included)",
                gym_loop(players),
                args.games,
            ),
        ]
        for label, play, games in cases:
            steps, rate = best_rate(play, games, args.repeats)
            met = "—" if "heuristic's" in label else ("yes" if rate >= GOAL else "no")
            print(
                f"| {label} | {players} | {n_actions(players):,} | {steps:,} | {rate:,.0f} "
                f"| {met} |"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
