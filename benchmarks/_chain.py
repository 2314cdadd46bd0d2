"""What the two generation benchmarks share (``bench_prior_chain.py``,
``bench_value_chain.py``): running one chain command in a temporary folder while
watching its process tree's memory, reading every generation file's provenance back, and
printing the command's cost, a generation's gate cells and the command's own lines."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _results import Watched, run_watched


def run_chain(
    args: list[str],
    generations: int,
    read: Callable[[Path], dict[str, Any]],
    report: Callable[[Watched, list[dict[str, Any]], Path], None],
) -> None:
    """Run ``haggis-sim ARGS --out TMP/model.npz`` (a chain of ``generations``), print
    its cost, then ``report(seen, provenances, OUT)`` with the provenance of each
    generation file (``read``), while the files (and OUT, when a generation was
    promoted) still exist. Exit status 1 (no generation promoted) is a result too; any
    other failure stops the benchmark."""
    from haggis_sim.training.chain import generation_path

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.npz"
        cmd = [sys.executable, "-m", "haggis_sim.cli", *args, "--out", str(out)]
        t0 = time.time()
        seen = run_watched(cmd, env=dict(os.environ, CI="1"))
        if seen.returncode not in (0, 1):
            raise SystemExit(f"{args[0]} failed: {seen.stderr.decode()[-2000:]}")
        provs = [read(generation_path(out, k)) for k in range(1, generations + 1)]
        started = time.strftime("%H:%M", time.localtime(t0))
        print(f"`haggis-sim {shlex.join(args)}`: {seen.seconds:,.0f} s in all, peak memory "
              f"{seen.peak_tree / 2**20:,.0f} MiB (process tree), started {started}, "
              f"exit status {seen.returncode}\n")  # fmt: skip
        report(seen, provs, out)


def gate_cells(prov: dict[str, Any]) -> list[str]:
    """A generation's gates (2 players, then 3), each as wins of games, rate [95%]."""
    cells = []
    for g in prov["gate"]:
        lo, hi = g["wilson95"]
        cells.append(f"{g['wins']:,} of {g['games']:,}, {g['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]")
    return cells


def print_transcript(seen: Watched) -> None:
    """The command's own lines, as a code block."""
    print()
    print("```")
    print((seen.stdout + seen.stderr).decode().strip())
    print("```")
