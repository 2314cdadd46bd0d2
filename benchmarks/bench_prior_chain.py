"""Generations of the search's prior: what a chain of ``haggis-sim train --generations``
costs and what each generation's gate says.

Run from the repository root: ``python benchmarks/bench_prior_chain.py`` (``--games``,
``--gate-games`` and ``--generations`` for a quicker look). Runs the command once in a
temporary folder, watching its process tree's memory, then prints per generation the
champion it imitated, its self-play, fit, check and gate times (from the generation
file's provenance), its held-out agreement with that champion and its win rates as a
``learned`` player against the heuristic, and its gates with their 95% Wilson intervals,
and writes the tables to ``benchmarks/results/bench_prior_chain.md`` (``--out``), which
the docs include.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from _chain import gate_cells, print_transcript, run_chain
from _results import add_out_option, recorded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--generations", type=int, default=3)
    parser.add_argument("--games", type=int, default=2000, help="teacher games a generation")
    parser.add_argument("--gate-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    add_out_option(parser, "bench_prior_chain")
    opts = parser.parse_args()
    with recorded(opts.out):
        measure(opts)


def _short(spec: str) -> str:
    """A champion's spec without the settings every generation shares."""
    name = spec.split("model=")[1].split(",")[0]
    return f"`mcts` with {Path(name).name} as prior"


def _checks(p: dict[str, Any]) -> str:
    """The model as a ``learned`` player against the heuristic, 2 players / 3 players."""
    checks = p.get("heldout_vs_heuristic") or {}
    return " / ".join(f"{checks[n]['win_rate']:.1%}" for n in ("2", "3") if n in checks)


def measure(opts: argparse.Namespace) -> None:
    from strategies.learned_model import load_model

    args = ["train", "--generations", str(opts.generations), "--games", str(opts.games),
            "--gate-games", str(opts.gate_games), "--seed", str(opts.seed),
            "--jobs", str(opts.jobs)]  # fmt: skip
    seen, provs = run_chain(args, opts.generations, lambda p: load_model(p).provenance)
    print(
        "| generation | imitated | self-play s | fit s | gate s | held-out top-1 vs it | "
        "`learned` vs heuristic 2p / 3p | gate 2p: wins of games, rate [95%] | "
        "gate 3p (chance 33.3%) | promoted |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, p in enumerate(provs, 1):
        gates = gate_cells(p)
        print(f"| {k} | {_short(p['chain']['teacher'])} | {p['stage1_play_seconds']:,.0f} | "
              f"{p['stage1_fit_seconds']:,.0f} | {p['gate_seconds']:,.0f} | "
              f"{p['holdout_top1_vs_teacher']:.1%} | {_checks(p)} | {gates[0]} | {gates[1]} | "
              f"{'yes' if p['promoted'] else 'no'} |")  # fmt: skip
    print_transcript(seen)


if __name__ == "__main__":
    main()
