"""The learned leaf value (``mcts:value=net``) against the default search before 2026-12
(greedy rollouts): strength, speed, decision time, and what training the value costs; the
search that is the default since 2026-12 is the first candidate.

Run from the repository root: ``python benchmarks/bench_value.py`` (``--scale 0.25`` for a
quick look, ``--train`` to also time ``haggis-sim train-value`` with the shipped value
model's recipe). Prints Markdown tables and writes them to
``benchmarks/results/bench_value.md`` (``--out``), which the docs include.

- Strength: each candidate against the default ``mcts`` (``--default``: another player,
  e.g. ``learned`` for a learned candidate) and against ``heuristic``, real
  ``haggis-sim run`` games (revised rules, full games, rotated seats; with 3 players one
  candidate against two opponents, chance 1/3), 95% Wilson intervals
  (``bench_strategies.match``), on the deals of run seed 2026 (``--seed``: other deals,
  to confirm a result on games it was not chosen on).
- Speed: ``greedy,SPEC`` through the runner with move logs, on every core, each spec and
  the default ``mcts`` alternating (default, candidate, candidate, default, ...) in the
  same run, so a busy machine slows both alike; the median games/s and the ratio.
- Decision time: mean, 95th percentile and max ms per decision over real positions
  (``bench_strategies.decision_times``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np
from _results import ROOT, add_out_option, recorded, run_watched
from bench_strategies import decision_times, match

from strategies.builtin import ROLLOUT_MCTS

#: the default search before 2026-12: 64 iterations, greedy
#: rollouts, gen2 prior; every candidate of this file was measured against it
DEFAULT = ROLLOUT_MCTS
#: the search that is the default since 2026-12, and the first value=net search as it was
CANDIDATES = ("mcts", "mcts:value=net,model=gen2,iters=64,mix=1,qinit=0")
#: the shipped value model's recipe (strategies/models/value-gen1.npz)
TRAIN = ["train-value", "--games", "6000", "--seed", "1", "--gate-games", "1000"]
SHIPPED = ROOT / "strategies" / "models" / "value-gen1.npz"


def _same_weights(a: Path, b: Path) -> bool:
    """Whether two value model files hold bit-identical weights (provenance aside)."""
    from strategies.learned_model import load_value_model

    ma, mb = load_value_model(a), load_value_model(b)
    assert ma.hidden is not None and mb.hidden is not None
    pairs = [(ma.weights, mb.weights), (ma.hidden.weights, mb.hidden.weights),
             (ma.hidden.bias, mb.hidden.bias), (ma.hidden.output, mb.hidden.output)]  # fmt: skip
    return all(x.shape == y.shape and np.array_equal(x, y) for x, y in pairs)


def speed(spec: str, games: int, jobs: int) -> float:
    """games/s of ``greedy,SPEC`` through the runner, with move logs."""
    return match("greedy", spec, games, 2, jobs, log_moves=True)[3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply game counts")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--candidates", default=";".join(CANDIDATES),
                        help="specs to measure, separated by ';'")  # fmt: skip
    parser.add_argument("--default", default=DEFAULT,
                        help="opponent and speed baseline (default: the rollout mcts)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=2026, help="run seed of the matches' deals")
    parser.add_argument("--repeats", type=int, default=3, help="speed repeats per spec")
    parser.add_argument("--train", action="store_true", help="also time train-value")
    parser.add_argument("--no-strength", action="store_true", help="skip the matches")
    add_out_option(parser, "bench_value")
    opts = parser.parse_args()
    with recorded(opts.out):
        measure(opts)


def measure(opts: argparse.Namespace) -> None:
    candidates = [c for c in opts.candidates.split(";") if c]
    games = max(12, int(2000 * opts.scale) // 6 * 6)
    small = max(12, int(600 * opts.scale) // 6 * 6)
    speed_games = max(24, int(300 * opts.scale) // 6 * 6)
    default = opts.default
    print(f"jobs {opts.jobs}; default: `{default}`; matches on the deals of run seed {opts.seed}\n")
    match("greedy", "mcts:iters=8,value=net", 12 * opts.jobs, 2, opts.jobs)  # warm up
    if not opts.no_strength:
        print("### Strength (revised rules, full games, rotated seats)\n")
        print("| pairing | games | win rate of the first [95% interval] | chance | mean scores |")
        print("|---|---|---|---|---|")
        for spec in candidates:
            for players in (2, 3):
                for opp, n in ((default, games), ("heuristic", small)):
                    interval, _, scores, _ = match(spec, opp, n, players, opts.jobs, seed=opts.seed)
                    vs = f"{spec} vs {opp}" if players == 2 else f"{spec} vs 2× {opp}"
                    chance = "50%" if players == 2 else "33.3%"
                    print(f"| {vs} | {n:,} | {interval} | {chance} | {scores} |", flush=True)
        print()
    print(f"### Speed: greedy,SPEC with move logs, {speed_games} games, jobs {opts.jobs}\n")
    print("| spec | games/s (median of repeats) | each repeat | vs default |")
    print("|---|---|---|---|")
    rates: dict[str, list[float]] = {default: []}
    for spec in candidates:
        rates[spec] = []
    for r in range(opts.repeats):
        for spec in candidates:  # default, candidate, candidate, default, ...
            order = [default, spec] if r % 2 == 0 else [spec, default]
            for s in order:
                rates[s].append(speed(s, speed_games, opts.jobs))
    base = median(rates[default])
    for spec, got in rates.items():
        each = ", ".join(f"{x:.1f}" for x in got)
        print(f"| {spec} | {median(got):.1f} | {each} | {median(got) / base:.2f}× |", flush=True)
    print()
    print("### Decision time (revised rules, against heuristics)\n")
    print("| spec | players | decisions timed | mean ms/decision | p95 | max |")
    print("|---|---|---|---|---|---|")
    for spec in [default, *candidates]:
        for players in (2, 3):
            mean, p95, mx, n = decision_times(spec, players, 3)
            print(f"| {spec} | {players} | {n:,} | {mean:.2f} | {p95:.2f} | {mx:.2f} |",
                  flush=True)  # fmt: skip
    print()
    if opts.train:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "value.npz"
            cmd = [sys.executable, "-m", "haggis_sim.cli", *TRAIN, "--jobs", str(opts.jobs),
                   "--out", str(out)]  # fmt: skip
            env = dict(os.environ, CI="1")  # no progress bars
            t0 = time.time()
            seen = run_watched(cmd, env=env)
            if seen.returncode != 0:
                raise SystemExit(f"train-value failed: {seen.stderr.decode()[-2000:]}")
            same = _same_weights(out, SHIPPED)
        shown = "haggis-sim " + shlex.join([*TRAIN, "--jobs", str(opts.jobs)])
        print("### Training the value model\n")
        print("| command | seconds | peak memory (process tree) | started |")
        print("|---|---|---|---|")
        print(f"| `{shown}` | {seen.seconds:,.0f} | {seen.peak_tree / 2**20:,.0f} MiB | "
              f"{time.strftime('%H:%M', time.localtime(t0))} |")  # fmt: skip
        print()
        verdict = "identical to" if same else "DIFFERENT from"
        print(f"Weights {verdict} the shipped `strategies/models/{SHIPPED.name}`.\n")
        print("```")
        print(seen.stdout.decode().strip())
        print("```")


if __name__ == "__main__":
    main()
