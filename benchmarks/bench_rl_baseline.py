"""The RL baseline: train it, then play its policy through ``haggis-sim run``'s runner.

Run: ``python benchmarks/bench_rl_baseline.py [--games 12000] [--seed 0]``. It trains
:func:`haggis_sim.training.rl_baseline.train_baseline` (a softmax policy over the legal
actions' decision features, policy gradient in the Gymnasium env against random, greedy
and heuristic opponents, 2 players, revised rules) on one core, writes the weights as a
``learned`` model (``--model``, default ``benchmarks/results/rl_baseline.npz``), plays
that model as ``learned:model=FILE`` in 1,000 games (``--eval-games``) against
``random`` and against ``greedy`` (and ``heuristic``, no goal) through the runner (seats
rotated, eval seed 1 so no deal is one it trained on), beside the untrained policy (all
weights zero, which plays the first legal action), and prints the win rates with 95%
Wilson intervals, the training's CPU time and its curve (``--curve``, a PNG: the
sampled policy's win rate against each opponent, per 20 batches). The table goes to
``benchmarks/results/bench_rl_baseline.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from _results import RESULTS, add_out_option, one_core, recorded

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from haggis_sim.runner.tournament import tournament  # noqa: E402
from haggis_sim.stats import wilson  # noqa: E402
from haggis_sim.training.model_io import save_model  # noqa: E402
from haggis_sim.training.rl_baseline import (  # noqa: E402
    Baseline,
    BaselineSettings,
    TrainingPoint,
    train_baseline,
)

GOALS: dict[str, float | None] = {"random": 0.95, "greedy": 0.60, "heuristic": None}
CPU_LIMIT = 30 * 60  # seconds of CPU the issue allows the training


def curve_png(baseline: Baseline, path: Path, window: int = 20) -> None:
    """The sampled policy's win rate against each opponent over the training."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    names = list(baseline.curve[0].wins)
    for name in names:
        xs, ys = [], []
        for k in range(0, len(baseline.curve), window):
            part = baseline.curve[k : k + window]
            won = sum(p.wins[name][0] for p in part)
            played = sum(p.wins[name][1] for p in part)
            if played:
                xs.append(part[-1].games)
                ys.append(100.0 * won / played)
        ax.plot(xs, ys, marker="o", markersize=3, label=f"against {name}")
    ax.set_xlabel("training games")
    ax.set_ylabel("games won while learning (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("RL baseline: the sampled policy's win rate while it learns")
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=12_000, help="training games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--model", type=Path, default=RESULTS / "rl_baseline.npz")
    parser.add_argument("--curve", type=Path, default=RESULTS / "bench_rl_baseline.png")
    add_out_option(parser, "bench_rl_baseline")
    args = parser.parse_args()
    one_core()
    with recorded(args.out):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    settings = BaselineSettings(games=args.games, seed=args.seed)
    last = [0.0]

    def progress(point: TrainingPoint) -> None:
        if point.seconds - last[0] >= 30 or point.games == settings.games:
            last[0] = point.seconds
            print(f"  trained {point.games:,} games in {point.seconds:.0f} s", file=sys.stderr)

    cpu0 = time.process_time()
    baseline = train_baseline(settings, progress)
    cpu = time.process_time() - cpu0
    provenance = {
        "command": "python benchmarks/bench_rl_baseline.py",
        "trainer": "haggis_sim.training.rl_baseline",
        "games": settings.games,
        "seed": settings.seed,
        "opponents": list(settings.opponents),
        "players": [2],
        "presets": [settings.preset],
    }
    save_model(args.model, baseline.weights, provenance, force=True)
    curve_png(baseline, args.curve)
    print(
        f"Trained {settings.games:,} 2-player games ({settings.preset} rules, seed "
        f"{settings.seed}, opponents {', '.join(settings.opponents)} drawn per game, "
        f"batches of {settings.batch}, Adam at {settings.learning_rate}) in **{cpu / 60:.1f} "
        f"minutes of CPU** on one core (limit {CPU_LIMIT // 60}). Evaluation: "
        f"`learned:model={args.model.name}` (the policy's most likely action) against each "
        f"opponent over {args.eval_games:,} games through the runner, seats rotated, seed 1 "
        "(no training deal).\n"
    )
    untrained = args.model.with_name(args.model.stem + "_untrained.npz")
    save_model(untrained, 0.0 * baseline.weights, {**provenance, "games": 0}, force=True)
    print("| policy | opponent | games | won | win rate [95% Wilson] | goal | met |")
    print("|---|---|---:|---:|---:|---:|:---:|")
    for label, model in (("trained", args.model), ("untrained (weights 0)", untrained)):
        spec = f"learned:model={model}"
        for name, goal in GOALS.items():
            with tournament(
                [spec, name], games=args.eval_games, seed=1, moves=False, jobs=1
            ) as run:
                won = int((run.games["winner_entry"] == 0).sum())
            low, high = wilson(won, args.eval_games)
            shown, met = ("—", "—")
            if goal is not None and label == "trained":
                shown, met = f"{goal:.0%}", "yes" if won / args.eval_games >= goal else "no"
            print(
                f"| {label} | {name} | {args.eval_games:,} | {won:,} | "
                f"{100 * won / args.eval_games:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%] "
                f"| {shown} | {met} |"
            )
    untrained.unlink()


if __name__ == "__main__":
    main()
