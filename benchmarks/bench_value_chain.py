"""Generations of the leaf value: what a chain of ``haggis-sim train-value
--generations`` costs and what each generation's gate says.

Run from the repository root: ``python benchmarks/bench_value_chain.py`` (``--games``,
``--gate-games`` and ``--generations`` for a quicker look). Runs the command once in a
temporary folder, watching its process tree's memory, then prints per generation the
champion it learned from, its self-play, fit and gate times (from the generation file's
provenance) and its gates with their 95% Wilson intervals, and writes the tables to
``benchmarks/results/bench_value_chain.md`` (``--out``), which the docs include.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from _chain import gate_cells, print_transcript, run_chain
from _results import Watched, add_out_option, recorded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--generations", type=int, default=3)
    parser.add_argument("--games", type=int, default=6000, help="self-play games a generation")
    parser.add_argument("--gate-games", type=int, default=1000)
    parser.add_argument("--window", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    add_out_option(parser, "bench_value_chain")
    opts = parser.parse_args()
    with recorded(opts.out):
        measure(opts)


def _short(spec: str) -> str:
    """A champion's spec without the settings every generation shares."""
    if "value=net" not in spec:
        return "the teacher (`mcts`, greedy rollouts)"
    name = spec.split("vmodel=")[1].split(",")[0]
    return f"`value=net` with {Path(name).name}"


def measure(opts: argparse.Namespace) -> None:
    from strategies.learned_model import load_value_model

    args = ["train-value", "--generations", str(opts.generations), "--games", str(opts.games),
            "--gate-games", str(opts.gate_games), "--window", str(opts.window),
            "--seed", str(opts.seed), "--jobs", str(opts.jobs)]  # fmt: skip
    run_chain(args, opts.generations, lambda p: load_value_model(p).provenance, _tables)


def _tables(seen: Watched, provs: list[dict[str, Any]], out: Path) -> None:
    print(
        "| generation | learned from | self-play s | fit s | gate s | held-out MSE 2p / 3p "
        "(the mean's) | gate 2p: wins of games, rate [95%] | gate 3p (chance 33.3%) | "
        "promoted |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for k, p in enumerate(provs, 1):
        fit = p["fit"]
        mse = " / ".join(f"{fit[f'holdout_mse_{n}p']:.4f} ({fit[f'holdout_mse_mean_{n}p']:.4f})"
                         for n in (2, 3))  # fmt: skip
        gates = gate_cells(p)
        print(f"| {k} | {_short(p['chain']['teacher'])} | {p['play_seconds']:,.0f} | "
              f"{p['fit_seconds']:,.0f} | {p['gate_seconds']:,.0f} | {mse} | {gates[0]} | "
              f"{gates[1]} | {'yes' if p['promoted'] else 'no'} |")  # fmt: skip
    print_transcript(seen)


if __name__ == "__main__":
    main()
