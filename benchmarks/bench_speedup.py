"""Games/s of the default runs, old code against new, measured interleaved in one run.

Run from the repository root: ``python benchmarks/bench_speedup.py --baseline REV``; the
table is also written to ``benchmarks/results/bench_speedup.md`` (``--out``). The old
code is a pristine export of ``--baseline`` (``git archive``); each measurement is a
fresh subprocess with ``PYTHONPATH`` set to one tree, old and new alternating (old, new,
new, old, ...) so load from other processes hits both alike. Each measurement is one
``haggis-sim run`` as a user types it without options: revised rules, 2 players, rotated
seats, move logs written, every core (``--jobs``, default 0). Reported per pairing: the
median games/s of each tree, new/old, and a digest of every game's seating (which entry
of the pairing sat where), winner, rounds and scores (equal digests: the new code played
the very same games); then each
tree's ratio of a pairing's games/s to ``greedy,greedy``'s, taken within each repeat
(the two runs minutes apart, so the machine's slow drifts cancel) and given as the
median of the repeats with a distribution-free range for the median ratio
(:func:`median_rank`: the k-th smallest and k-th largest repeat, k as large as keeps
the chance that the range holds the median at 93% or more whatever the noise's shape;
with 5 repeats the smallest and largest, 94%; with 9 the second of each, 96%).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

from _results import add_out_option, recorded
from _trees import old_and_new, run_child
from scipy.stats import binom

PAIRINGS = "greedy,greedy;learned,heuristic;greedy,mcts"


def child(pairing: str, games: int, jobs: int) -> dict[str, Any]:
    """One default run of ``pairing``: games/s and the games' digest."""
    import polars as pl

    import haggis_sim as hs
    from haggis_sim.runner.run import RunConfig, execute

    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            strategies=pairing.split(","), games=games,
            rules=hs.Rules.preset("revised", players=2).as_dict(), seed=0, seats="rotate",
            log_moves=True, jobs=jobs, command="bench_speedup",
        )  # fmt: skip
        t0 = time.perf_counter()
        execute(config, Path(tmp) / "run")
        secs = time.perf_counter() - t0
        # the seating as entries of the pairing, not spec texts: a parameter added since the
        # baseline is written out in the new tree's specs without changing a game
        columns = ["game_id", "entry_0", "entry_1", "winner", "rounds", "score_0", "score_1"]
        table = pl.read_parquet(Path(tmp) / "run" / "games" / "*.parquet").select(columns)
        rows = table.sort("game_id").cast(pl.Utf8).rows()
    digest = hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:12]
    return {"games_per_s": games / secs, "digest": digest}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", default="HEAD", help="git revision of the old code")
    parser.add_argument("--pairings", default=PAIRINGS, help="';'-separated strategy pairs")
    parser.add_argument(
        "--games",
        default="greedy,greedy=100000;learned,heuristic=40000;greedy,mcts=4000",
        help="games per run, per pairing (PAIRING=N;...)",
    )
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0: every core)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    add_out_option(parser, "bench_speedup")
    opts = parser.parse_args()
    if opts.child is not None:
        pairing, n, jobs = opts.child
        print(json.dumps(child(pairing, int(n), int(jobs))))
        return
    with old_and_new(opts.baseline) as trees, recorded(opts.out):
        measure(opts, trees)


def median_rank(repeats: int, level: float = 0.93) -> tuple[int, float]:
    """The k for which the k-th smallest and k-th largest of ``repeats`` values hold the
    median of the distribution they were drawn from with probability ``level`` or more
    (the largest such k, at least 1), and that probability: the median lies between them
    unless fewer than k of the values fall on one side of it (binomial, p = 1/2).

    >>> median_rank(5)
    (1, 0.9375)
    >>> median_rank(9)[0], round(median_rank(9)[1], 3)
    (2, 0.961)
    """
    k = 1
    while k + 1 <= repeats // 2 and 1 - 2 * binom.cdf(k, repeats, 0.5) >= level:
        k += 1
    return k, float(1 - 2 * binom.cdf(k - 1, repeats, 0.5))


def median_range(values: list[float]) -> tuple[float, float]:
    """The k-th smallest and k-th largest of ``values`` (k: :func:`median_rank`)."""
    x = sorted(values)
    k, _ = median_rank(len(x))
    return x[k - 1], x[len(x) - k]


def measure(opts: argparse.Namespace, trees: dict[str, Path]) -> None:
    """Every pairing on both trees, interleaved; print the tables."""
    pairings = [p.strip() for p in opts.pairings.split(";") if p.strip()]
    sizes = dict(item.rsplit("=", 1) for item in opts.games.split(";"))
    for tree in trees.values():  # compile each tree once, outside the timings
        for pairing in pairings:
            run_child(__file__, tree, [pairing, "4", "1"])
    results: dict[str, dict[str, list[Any]]] = {p: {"old": [], "new": []} for p in pairings}
    for r in range(opts.repeats):
        for pairing in pairings:
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for which in order:
                args = [pairing, sizes.get(pairing, "2000"), str(opts.jobs)]
                results[pairing][which].append(run_child(__file__, trees[which], args))
    print(f"baseline {opts.baseline} vs working tree; `haggis-sim run -s PAIRING -n N` "
          f"defaults (move logs, jobs {opts.jobs or 'all cores'}); {opts.repeats} repeats "
          "interleaved, medians")  # fmt: skip
    print("\n| pairing | games per run | old games/s | new games/s | new/old | same games |")
    print("|---|---:|---:|---:|---:|:---:|")
    speed: dict[str, dict[str, float]] = {"old": {}, "new": {}}
    for pairing in pairings:
        for which in ("old", "new"):
            speed[which][pairing] = median(x["games_per_s"] for x in results[pairing][which])
        digests = {w: {x["digest"] for x in results[pairing][w]} for w in ("old", "new")}
        same = "yes" if len(digests["old"] | digests["new"]) == 1 else "NO"
        old, new = speed["old"][pairing], speed["new"][pairing]
        print(f"| {pairing} | {int(sizes.get(pairing, '2000')):,} | {old:,.1f} | {new:,.1f} "
              f"| {new / old:.2f}× | {same} |")  # fmt: skip
    if "greedy,greedy" in pairings:
        k, cover = median_rank(opts.repeats)
        nth = {1: "", 2: "second ", 3: "third ", 4: "fourth "}.get(k, f"{k}th ")
        print(f"\nEach tree's games/s as a share of its greedy,greedy's in the same repeat: the "
              f"median of {opts.repeats} repeats [{nth}smallest, {nth}largest], a range that "
              f"holds the median ratio with probability {cover:.0%}.")  # fmt: skip
        print("\n| pairing | old: × greedy,greedy | new: × greedy,greedy |\n|---|---:|---:|")
        for pairing in pairings:
            if pairing != "greedy,greedy":
                cells = []
                for w in ("old", "new"):
                    runs = zip(results[pairing][w], results["greedy,greedy"][w], strict=True)
                    ratios = [x["games_per_s"] / g["games_per_s"] for x, g in runs]
                    low, high = median_range(ratios)
                    cells.append(f"{median(ratios):.2f}× [{low:.2f}, {high:.2f}]")
                print(f"| {pairing} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
