"""Start-up benchmark: ``haggis-sim --help`` against importing typer and rich alone.

Run: ``python benchmarks/bench_startup.py [--repeats 15]``: prints a Markdown table and
writes it to ``benchmarks/results/bench_startup.md`` (``--out``). The
goal is ``--help`` within 3x of ``import typer, rich``: the command line imports the
engine, numba and the data libraries only inside the commands that use them. Each figure
is the median wall time of fresh processes, so other load on the machine shows up as
spread (min and max are printed too).

The last two rows time a whole short run, ``haggis-sim run -s learned,heuristic -n 100``
with one worker and with two (the engine already in numba's cache, a fresh ``--out``
each time): what a run costs before and after its games, the fixed part of every
games/s figure of the runner benchmarks.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import add_out_option, recorded


def wall(cmd: list[str], repeats: int, fresh: Path | None = None) -> list[float]:
    """Wall seconds of ``repeats`` fresh runs of ``cmd`` (after one warm-up run),
    ``fresh`` (a path the command creates) removed before each."""
    times = []
    for i in range(repeats + 1):
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        if i:
            times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    add_out_option(parser, "bench_startup")
    args = parser.parse_args()
    with recorded(args.out):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    script = shutil.which("haggis-sim", path=os.path.dirname(sys.executable))
    cases = [
        ("python -c 'import typer, rich'", [sys.executable, "-c", "import typer, rich"]),
        ("python -m haggis_sim.cli --help", [sys.executable, "-m", "haggis_sim.cli", "--help"]),
    ]
    if script:
        cases.append(("haggis-sim --help", [script, "--help"]))
    cases.append(
        ("python -c 'import haggis_sim; haggis_sim.Game'",
         [sys.executable, "-c", "import haggis_sim; haggis_sim.Game"])
    )  # fmt: skip
    results = [(name, wall(cmd, args.repeats)) for name, cmd in cases]
    with tempfile.TemporaryDirectory(prefix="haggis-startup-") as work:
        out = Path(work) / "run"
        for jobs in (1, 2):
            run = ["-s", "learned,heuristic", "-n", "100", "--jobs", str(jobs), "-q"]
            cmd = [sys.executable, "-m", "haggis_sim.cli", "run", *run, "--out", str(out)]
            name = f"haggis-sim run {' '.join(run)}"
            results.append((name, wall(cmd, args.repeats, fresh=out)))
    base = statistics.median(results[0][1])
    print(f"{args.repeats} runs each, median (min-max)\n")
    print("| command | wall time | x typer+rich |")
    print("|---|---|---|")
    for name, times in results:
        med = statistics.median(times)
        print(f"| `{name}` | {med:.3f} s ({min(times):.3f}-{max(times):.3f}) | {med / base:.1f}x |")


if __name__ == "__main__":
    main()
