"""Generations of the search's prior: what a chain of ``haggis-sim train --generations``
costs and what each generation's gate says.

Run from the repository root: ``python benchmarks/bench_prior_chain.py`` (``--games``,
``--gate-games`` and ``--generations`` for a quicker look). Runs the command once in a
temporary folder, watching its process tree's memory, then prints per generation the
champion it imitated, its self-play, fit and gate times (from the generation
file's provenance), its held-out agreement with that champion and its win rates as a
``learned`` player against the heuristic, and its gates with their 95% Wilson intervals,
then, when a generation was promoted, the last one against the defaults before 2026-12 (its search
against the default ``mcts``, the model as ``learned`` against the default ``learned``),
and writes the tables to ``benchmarks/results/bench_prior_chain.md`` (``--out``), which
the docs include.

``--value-units U`` measures joint generations instead (``train --value-units U``: prior
and leaf value fitted on the same games, gated together), with each value's held-out
error, into ``benchmarks/results/bench_joint_chain.md``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from _chain import gate_cells, print_transcript, run_chain
from _results import RESULTS, Watched, add_out_option, recorded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--generations", type=int, default=3)
    parser.add_argument("--games", type=int, default=2000, help="teacher games a generation")
    parser.add_argument("--gate-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--versus-games", type=int, default=2000,
                        help="games of the last promoted generation against the defaults "
                        "before 2026-12 (2 players; half as many with 3)")  # fmt: skip
    parser.add_argument("--value-units", type=int, default=0,
                        help="joint generations: also a leaf value of this many hidden units "
                        "(default 0: the prior alone)")  # fmt: skip
    add_out_option(parser, "bench_prior_chain")
    opts = parser.parse_args()
    if opts.value_units and opts.out == RESULTS / "bench_prior_chain.md":
        opts.out = RESULTS / "bench_joint_chain.md"
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
    if opts.value_units:
        args += ["--value-units", str(opts.value_units)]

    def report(seen: Watched, provs: list[dict[str, Any]], out: Path) -> None:
        _tables(seen, provs)
        if opts.value_units:
            _value_table(out, len(provs))
        if out.exists():
            _versus_today(out, opts)

    run_chain(args, opts.generations, lambda p: load_model(p).provenance, report)


def _tables(seen: Watched, provs: list[dict[str, Any]]) -> None:
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


def _value_table(out: Path, generations: int) -> None:
    """Each joint generation's value: its rows and held-out error, next to the error of
    the training mean (what a value that knows nothing scores)."""
    from haggis_sim.training.chain import generation_path
    from haggis_sim.training.prior_chain import value_companion
    from strategies.learned_model import load_value_model

    print()
    print("Each generation's leaf value, fitted on every seat's decisions of the same games "
          "(held-out: the games the prior's fit holds out; mean squared error of the "
          "estimated reward, and of the training mean's):\n")  # fmt: skip
    print("| generation | fit s | train rows 2p / 3p | held-out MSE 2p (mean's) | "
          "held-out MSE 3p (mean's) |")  # fmt: skip
    print("|---|---|---|---|---|")
    for k in range(1, generations + 1):
        p = load_value_model(value_companion(generation_path(out, k))).provenance
        f = p["fit"]
        print(f"| {k} | {p['fit_seconds']:,.0f} | {f['train_rows_2p']:,} / "
              f"{f['train_rows_3p']:,} | {f['holdout_mse_2p']:.4f} "
              f"({f['holdout_mse_mean_2p']:.4f}) | {f['holdout_mse_3p']:.4f} "
              f"({f['holdout_mse_mean_3p']:.4f}) |")  # fmt: skip


def _versus_today(out: Path, opts: argparse.Namespace) -> None:
    """The last promoted model against the defaults before 2026-12, on the issue's terms: its search
    (the default search with it as prior) against the default ``mcts``, and the model as
    a ``learned`` player against the default ``learned``."""
    from haggis_sim.training.gate import match
    from strategies.builtin import GEN3_LEARNED, ROLLOUT_MCTS

    print()
    print("The last promoted generation (OUT) against the defaults before 2026-12 (rotated "
          "seats, every preset in turn, 95% Wilson intervals; with 3 players one against "
          "two):\n")  # fmt: skip
    print("| player | against | players | wins of games | rate [95%] |")
    print("|---|---|---|---|---|")
    search = f"mcts:model={out},iters=64,value=game"  # the rollout search with OUT as prior
    if opts.value_units:
        from haggis_sim.training.prior_chain import value_companion

        search = f"mcts:model={out},iters=64,value=net,vmodel={value_companion(out)},mix=1,qinit=0"
    for cand, opp, games, players in (
        (search, ROLLOUT_MCTS, opts.versus_games, 2),
        (search, ROLLOUT_MCTS, opts.versus_games // 2, 3),
        (f"learned:model={out}", GEN3_LEARNED, opts.versus_games, 2),
    ):
        r = match(cand, opp, games, players, opts.seed, opts.jobs)
        lo, hi = r.interval
        name = cand.replace(str(out.with_suffix("")), "OUT")
        print(f"| `{name}` | default `{opp}` | {players} | {r.wins:,} of {r.games:,} | "
              f"{r.win_rate:.1%} [{lo:.1%}, {hi:.1%}] |")  # fmt: skip


if __name__ == "__main__":
    main()
