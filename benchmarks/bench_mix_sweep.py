"""The screen behind the mixed leaf value's benchmark: ``mcts:value=net,mix=λ`` at the
iterations and λ the screen tried (:data:`SCREEN`) against today's default ``mcts``, one
match per setting and player count.

Run from the repository root: ``python benchmarks/bench_mix_sweep.py`` (``--games 200``
for a quick look). Prints a Markdown table and writes it to
``benchmarks/results/bench_mix_sweep.md`` (``--out``), which the docs include.

Each match is a training gate's (``haggis_sim.training.gate.match``: every preset with
that player count in turn, seats rotated, 2 players head to head, 3 players one against
two), all with the same seed, so every row plays the same deals. ``mix=0`` weighs only
the rollout: at 64 iterations it *is* the default, and with one policy in every seat
each deal's rotated seatings replay one game, so that row must show exactly 50% and
33.3% (the known truth: mix=0 is the default and the match is fair; it says nothing of
the noise, which the intervals give), at 128 it is the default
with twice its budget (what the iterations alone are worth); ``mix=1`` is ``value=net``
without rollouts. The benchmark that tests the chosen settings on other games is
``bench_value.py`` (``bench_value_mix.md``): a screen of many settings on one seed picks
the best *of these games*, and its winner's rate is biased upward, so the screen's rows
are not the claim.
"""

from __future__ import annotations

import argparse
import os
import time

from _results import add_out_option, recorded

from haggis_sim.training.gate import match
from strategies.builtin import ROLLOUT_MCTS

DEFAULT = ROLLOUT_MCTS  # the default search of the sweep's day (2026-11-28)
#: (iterations, mix) of every row: each setting the screen of 2026-11-28 tried before the
#: benchmark's settings were chosen, and the controls (mix=0: rollouts only; mix=1: none)
SCREEN = (
    (64, 0.0), (64, 0.25), (64, 0.5), (64, 0.6), (64, 0.75), (64, 0.9), (64, 1.0),
    (32, 0.5), (48, 0.5),
    (96, 0.75), (128, 0.0), (128, 0.5), (128, 0.75), (128, 0.9), (256, 0.75),
)  # fmt: skip
SEED = 2811


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000, help="games per match")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    add_out_option(parser, "bench_mix_sweep")
    opts = parser.parse_args()
    with recorded(opts.out):
        measure(opts.games, opts.jobs)


def measure(games: int, jobs: int) -> None:
    print(f"jobs {jobs}; opponent: `{DEFAULT}` (64 iterations, rollouts); seed {SEED}\n")
    print("| iters | mix | 2 players: won [95% interval] | 3 players, one against two "
          "[95% interval] | seconds |")  # fmt: skip
    print("|---|---|---|---|---|")
    for iters, mix in SCREEN:
        spec = f"mcts:value=net,mix={mix},iters={iters},model=gen2,qinit=0"  # as of 2026-11-28
        t0 = time.monotonic()
        cells = []
        for players in (2, 3):
            r = match(spec, DEFAULT, games, players, SEED, jobs)
            lo, hi = r.interval
            cells.append(f"{r.wins:,} of {r.games:,} = {r.win_rate:.1%} [{lo:.1%}, {hi:.1%}]")
        took = time.monotonic() - t0
        print(f"| {iters} | {mix} | {cells[0]} | {cells[1]} | {took:.0f} |", flush=True)
    print("\nChance: 50% with 2 players, 33.3% as one against two with 3.")


if __name__ == "__main__":
    main()
