"""Runner benchmark: wall time and peak memory of ``haggis-sim run`` at scale.

Run: ``python benchmarks/bench_runner.py`` (default 1,000,000 games per row; use
``--games 100000`` for a quicker look, ``--games 0`` to leave those rows out; the learned
player's row plays ``--learned-games``, default 100,000, and the loky/Dask pair
``--dask-games``, default 200,000: ``--games 0 --skip-dask`` times the learned row
alone). Each row runs the real CLI in a fresh process and samples the resident memory of
its whole process tree (workers included) every 0.2 s, after an untimed run of 1,000
games of the same strategies (numba compiles on a cold cache: the first run on a machine
takes a minute more, which is start-up, not a row's speed). ``--repeats N`` runs every row N
times and reports the median wall time (games/s from it) with the fastest and slowest
run: on a shared machine one run of a command can be 15% off another. Prints a Markdown
table and writes it to ``benchmarks/results/bench_runner.md`` (``--out``), which the docs'
Performance page includes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _results import add_out_option, recorded, run_watched


def measure(args: list[str]) -> tuple[float, int]:
    """(wall seconds, peak tree RSS bytes) of one CLI run."""
    run = run_watched(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        env={**os.environ, "CI": "1"},
        stdout=subprocess.DEVNULL,
    )
    if run.returncode != 0:
        raise SystemExit(f"run failed: {' '.join(args)}\n{run.stderr.decode()}")
    return run.seconds, run.peak_tree


def disk(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*.parquet"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--games", default="1e6", help="games of the greedy and random rows (0: none)"
    )
    parser.add_argument("--dask-games", default="2e5")
    parser.add_argument(
        "--learned-games", default="1e5", help="games of the learned player's row (0: none)"
    )
    parser.add_argument("--jobs", default="2")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs of each row (median, min and max)"
    )
    parser.add_argument("--skip-dask", action="store_true")
    add_out_option(parser, "bench_runner")
    opts = parser.parse_args()
    if opts.repeats < 1:
        parser.error("--repeats must be at least 1")
    with recorded(opts.out):
        measure_all(opts)


def measure_all(opts: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="haggis-bench-"))
    rows = []
    cases = []
    if float(opts.games) > 0:
        cases += [
            ("greedy,greedy, move logs", ["-s", "greedy,greedy", "-n", opts.games]),
            (
                "greedy,greedy, no move logs",
                ["-s", "greedy,greedy", "-n", opts.games, "--no-log-moves"],
            ),
            ("random,random, move logs", ["-s", "random,random", "-n", opts.games]),
            (
                "random,random, no move logs",
                ["-s", "random,random", "-n", opts.games, "--no-log-moves"],
            ),
        ]
    if float(opts.learned_games) > 0:  # issue #13's target: >= 1,000 games/s with move logs
        cases.append(
            ("learned,heuristic, move logs", ["-s", "learned,heuristic", "-n", opts.learned_games])
        )
    if not opts.skip_dask:
        cases += [
            ("greedy,greedy, loky (for Dask)", ["-s", "greedy,greedy", "-n", opts.dask_games]),
            (
                "greedy,greedy, Dask LocalCluster 2 workers",
                ["-s", "greedy,greedy", "-n", opts.dask_games, "--backend", "dask"],
            ),
        ]
    for label, args in cases:
        n_at = args.index("-n")
        games = int(float(args[n_at + 1]))
        warm = [*args[:n_at], "-n", "1000", *args[n_at + 2 :]]
        measure(["run", *warm, "--jobs", opts.jobs, "--out", str(work / "warm-up"), "-q"])
        shutil.rmtree(work / "warm-up")
        times, peaks, size = [], [], 0
        for _ in range(opts.repeats):
            out = work / f"run{len(rows)}"
            secs, peak = measure(["run", *args, "--jobs", opts.jobs, "--out", str(out), "-q"])
            times.append(secs)
            peaks.append(peak)
            size = disk(out)
            shutil.rmtree(out)
            print(f"done: {label} {secs:.1f}s", file=sys.stderr)
        secs = statistics.median(times)
        wall = f"{secs:,.1f} s"
        rate = f"{games / secs:,.0f}"
        if opts.repeats > 1:
            wall += f" ({min(times):,.1f}-{max(times):,.1f})"
            rate += f" ({games / max(times):,.0f}-{games / min(times):,.0f})"
        rows.append((label, f"{games:,}", wall, rate, f"{max(peaks) / 2**30:.2f} GiB",
                     f"{size / 2**20:,.0f} MiB"))  # fmt: skip
    runs = f", each row the median (min-max) of {opts.repeats} runs" if opts.repeats > 1 else ""
    print(f"jobs {opts.jobs}{runs}\n")
    print("| run | games | wall time | games/s | peak memory (all processes) | Parquet on disk |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
