"""A planted check of the design search: does it find what a direct sweep finds, and
with how many games?

Out points (points per card of the largest opponent hand to the player going out) make
games shorter the higher they are, so the value that brings a game nearest to a target
length is known by a sweep. For each seed: the search (``haggis-sim design``'s machinery,
a few settings of 11, early stopping on) aims at the target; the sweep plays every value
at the search's full game count on the same deals (reusing the search's runs where it
played a value in full); the table gives the sweep's best value, the search's pick, how
far the pick's game length is from the best's as a distance to the target (within the
tolerance?), and the games each used. The search's confirmation on fresh deals is not
part of this comparison (the sweep would need one too).

    python benchmarks/bench_design.py
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _results import add_out_option, recorded

from haggis_sim.design import parse_design
from haggis_sim.design.confirm import front
from haggis_sim.design.search import play_to, run_config, search
from haggis_sim.experiment.balance import QUANTITIES, quantity_estimate

ROUNDS = next(q for q in QUANTITIES if q.key == "rounds")


def design_table(seed: int, trials: int, games: int, target: float) -> dict[str, object]:
    return {
        "name": f"planted-{seed}",
        "question": f"Which out points bring a game nearest to {target:g} rounds?",
        "players": 2,
        "strategies": ["greedy"],
        "seed": seed,
        "knobs": [{"flag": "out_points", "low": 0, "high": 10}],
        "objectives": [{"quantity": "rounds", "goal": "near", "target": target}],
        "budget": {"trials": trials, "games": games, "first_games": games // 9},
        "confirm": {"games": games, "candidates": 1},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3,4,5,6,7,8")
    parser.add_argument("--trials", type=int, default=8, help="settings the search plays")
    parser.add_argument("--games", type=int, default=1800, help="games per setting at most")
    parser.add_argument("--target", type=float, default=8.0, help="the game length aimed at")
    parser.add_argument("--tolerance", type=float, default=0.3, help="rounds")
    parser.add_argument("--jobs", type=int, default=2)
    add_out_option(parser, "bench_design")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    with recorded(args.out):
        print(
            f"Greedy self-play, 2 players, revised rules; out points 0..10 (11 values); aim: "
            f"{args.target:g} rounds a game; the search plays {args.trials} settings of at "
            f"most {args.games:,} games (first rung {args.games // 9:,}, x3), the sweep all "
            f"11 at {args.games:,} on the same deals. Within: the pick's distance from the "
            f"aim is at most {args.tolerance:g} rounds more than the sweep's best.\n"
        )
        print("| seed | sweep's best | its rounds | search's pick | its rounds | within "
              "| search games | sweep games | share |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---|---:|---:|---:|")
        shares, hits = [], 0
        for seed in seeds:
            design = parse_design(design_table(seed, args.trials, args.games, args.target))
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp)
                played, _ = search(design, out, args.jobs, lambda _m: None)
                pick = front(design, played)[0].flags["out_points"]
                sweep = {}
                for value in range(11):
                    name = f"out_points={value}"
                    rules = design.candidate_rules({"out_points": value})
                    config = run_config(design, rules, design.budget.games, name, args.jobs)
                    frame = play_to(config, out / "search" / name, lambda _m: None)
                    sweep[value] = quantity_estimate(ROUNDS, frame).mean
            best = min(sweep, key=lambda v: abs(sweep[v] - args.target))
            gap = abs(sweep[pick] - args.target) - abs(sweep[best] - args.target)
            within = gap <= args.tolerance
            hits += within
            used = sum(c.games for c in played)
            swept = 11 * design.budget.games
            shares.append(used / swept)
            cells = [
                seed,
                best,
                f"{sweep[best]:.2f}",
                pick,
                f"{sweep[pick]:.2f}",
                "yes" if within else "no",
                f"{used:,}",
                f"{swept:,}",
                f"{used / swept:.0%}",
            ]
            print("| " + " | ".join(map(str, cells)) + " |")
        print(
            f"\nWithin tolerance for {hits} of {len(seeds)} seeds; the search used "
            f"{min(shares):.0%}–{max(shares):.0%} of the sweep's games."
        )


if __name__ == "__main__":
    main()
