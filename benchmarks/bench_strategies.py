"""Strategy strength and speed: win rates over duplicate deals, time per MCTS decision.

Run: ``python benchmarks/bench_strategies.py`` (``--scale 0.25`` for a quick look).
Every pairing is a real ``haggis-sim run`` (rotated seats: each deal is replayed with
every seat order, so deal and seat luck cancel), full games to 250 points, on all cores.
With 3 players a pairing ``A vs B`` seats one A against two Bs (chance level 1/3): the
run's strategies are ``B,A`` (entries 0, 1, 0), so each deal is played once per distinct
seating (3), never twice with the two Bs swapped. Prints Markdown tables and writes them
to ``benchmarks/results/bench_strategies.md`` (``--out``), which the docs include.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from _results import add_out_option, recorded

import haggis_sim as hs
from haggis_sim.engine.rng import new_stream
from haggis_sim.runner.run import RunConfig, execute
from haggis_sim.runner.summary import summarize
from haggis_sim.selfplay import seat_positions
from strategies import make
from strategies.builtin import GEN3_LEARNED, ROLLOUT_MCTS

# the default search until 2026-11-27: 200 iterations, no learned prior at the root
OLD_MCTS = "mcts:iters=200,prior=none,value=game"
PAIRINGS = [
    ("greedy", "random", 6000),
    ("heuristic", "greedy", 12000),
    ("mcts", "heuristic", 2400),
    (OLD_MCTS, "heuristic", 600),
    ("mcts", OLD_MCTS, 600),
    ("mcts", ROLLOUT_MCTS, 600),
    (ROLLOUT_MCTS, "heuristic", 600),
    ("mcts", "mcts:prior=none", 600),
    ("mcts:iters=16", "heuristic", 600),
    ("mcts:iters=256", "heuristic", 600),
    ("mcts", "mcts:value=round", 600),
    ("mcts", "mcts:bets=never", 600),
    ("learned", "heuristic", 2400),
    ("learned", "greedy", 2400),
    ("learned", "mcts", 600),
    ("learned", "mcts:iters=256", 600),
    ("learned", OLD_MCTS, 600),
    # the second-generation (linear) model, the default until the hidden layer came
    ("learned:model=gen2", "heuristic", 2400),
    ("learned", "learned:model=gen2", 1200),
    ("learned", GEN3_LEARNED, 1200),
]


def match(
    a: str,
    b: str,
    games: int,
    players: int,
    jobs: int,
    log_moves: bool = False,
    seed: int = 2026,
) -> tuple[str, float, str, float]:
    specs = [a, b] if players == 2 else [b, a]  # 3 players: entries b, a, b
    rules = hs.Rules.preset("revised", players=players)
    chunk = max(6, min(2000, games // (4 * jobs)) // 6 * 6)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        config = RunConfig(
            strategies=specs, games=games, rules=rules.as_dict(), seed=seed, seats="rotate",
            chunk_size=chunk, log_moves=log_moves, jobs=jobs, command="bench_strategies",
        )  # fmt: skip
        t0 = time.perf_counter()
        manifest = execute(config, run_dir)
        secs = time.perf_counter() - t0
        rows = summarize(run_dir, manifest.specs, players)
    first, other = (rows[0], rows[1]) if players == 2 else (rows[1], rows[0])
    interval = f"{first.win_rate:.1%} [{first.low:.1%}, {first.high:.1%}]"
    return (
        interval,
        first.win_rate,
        f"{first.mean_score:.0f} vs {other.mean_score:.0f}",
        games / secs,
    )


def decision_times(spec: str, players: int, games: int) -> tuple[float, float, float, int]:
    """Mean, 95th percentile and max ms per decision of ``spec`` over real positions."""
    strat = make(spec)
    rules = hs.Rules.preset("revised", players=players).to_array()
    times: list[float] = []
    opponent = make("heuristic")
    for g in range(games):
        streams = [new_stream(np.int64(g * 10 + s)) for s in range(players)]
        cold = [True]  # until the first decision: it warms the strategy up, untimed

        def choose(seat: int, obs: np.ndarray, streams: list[np.ndarray] = streams,
                   cold: list[bool] = cold) -> int:  # fmt: skip
            if cold:
                cold.clear()
                strat.act_array(obs, streams[0])
            if seat != 0:
                return int(opponent.act_array(obs, streams[seat]))
            t0 = time.perf_counter()
            a = strat.act_array(obs, streams[seat])
            times.append(time.perf_counter() - t0)
            return int(a)

        seat_positions(rules, 1000 + g, choose)
    ms = np.array(times) * 1000
    return float(ms.mean()), float(np.percentile(ms, 95)), float(ms.max()), len(ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply game counts")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timing-games", type=int, default=4)
    parser.add_argument(
        "--only", default="", help="comma-separated words: play only pairings naming one"
    )
    parser.add_argument("--no-timing", action="store_true", help="skip the decision timing")
    parser.add_argument(
        "--log-moves", action="store_true", help="log every move, as `run` does by default"
    )
    add_out_option(parser, "bench_strategies")
    opts = parser.parse_args()
    with recorded(opts.out):
        measure(opts)


def measure(opts: argparse.Namespace) -> None:
    logs = "with move logs" if opts.log_moves else "without move logs"
    print(f"jobs {opts.jobs}, {logs}\n")
    # untimed: start the worker processes and load every kernel's compiled code into
    # them, so the first timed pairing does not pay for it
    for spec in ("random", "heuristic", "mcts:iters=20", "learned"):
        match(spec, "greedy", 12 * opts.jobs, 2, opts.jobs, opts.log_moves)
    for players in (2, 3):
        print(f"### {players} players (revised rules, full games to 250)\n")
        print("| pairing | games | win rate of the first [95% interval] | mean scores | games/s |")
        print("|---|---|---|---|---|")
        for a, b, n in PAIRINGS:
            games = max(12, int(n * opts.scale) // 6 * 6)
            if opts.only and not any(k in f"{a} {b}" for k in opts.only.split(",")):
                continue
            interval, _, scores, rate = match(a, b, games, players, opts.jobs, opts.log_moves)
            vs = f"{a} vs {b}" if players == 2 else f"{a} vs 2× {b}"
            print(f"| {vs} | {games:,} | {interval} | {scores} | {rate:,.1f} |", flush=True)
        print()
        if opts.no_timing:
            continue
        print("| strategy | decisions timed | mean ms/decision | p95 | max |")
        print("|---|---|---|---|---|")
        for spec in ("mcts:iters=16", "mcts", "mcts:iters=256", ROLLOUT_MCTS, OLD_MCTS):
            mean, p95, mx, n = decision_times(spec, players, opts.timing_games)
            print(f"| {spec} | {n:,} | {mean:.2f} | {p95:.2f} | {mx:.2f} |", flush=True)
        print()


if __name__ == "__main__":
    main()
