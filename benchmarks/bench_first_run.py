"""First run on a fresh cache: how soon the user hears something, and sees a game.

Run: ``python benchmarks/bench_first_run.py [--repeats 1]``: prints a Markdown table and
writes it to ``benchmarks/results/bench_first_run.md`` (``--out``). For each command of
:data:`COMMANDS` (the quick players, the network, then the search) and each repeat, it plays the
command with an empty numba cache (``HAGGIS_SIM_CACHE_DIR`` a new temporary folder,
deleted afterwards), then once more with the cache that run left. Standard output goes
to a file, as when a user redirects it (no progress bar); standard error is read line by
line as it arrives. Measured from starting the process: the compile line (``compiling
the engine …``), the ``compiled in`` line, the first chunk logged (the first line of the
run's ledger, polled every 50 ms), and the end; plus the games/s the summary reports.
``--haggis-sim PATH`` measures another installation (say, an older checkout's
``.venv/bin/haggis-sim``); its results go to ``--out`` like any other. A run compiles
only the kernels of the strategies it names: the search's compile is the longest.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _results import add_out_option, recorded

COMMANDS = (
    ["run", "-s", "heuristic,greedy", "-n", "10000"],
    ["run", "-s", "learned,heuristic", "-n", "10000"],
    ["run", "-s", "greedy,mcts", "-n", "1000"],
)


def first_run(exe: str, command: list[str], cache: Path, out: Path) -> dict[str, float | None]:
    """Seconds from the start of one ``haggis-sim run`` to each milestone (None: never)."""
    env = {**os.environ, "HAGGIS_SIM_CACHE_DIR": str(cache)}
    seen: dict[str, float | None] = {"line": None, "compiled": None, "chunk": None}
    with tempfile.TemporaryFile("w+") as stdout:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [exe, *command, "--out", str(out)], stdout=stdout, stderr=subprocess.PIPE,
            text=True, env=env,
        )  # fmt: skip
        errors: list[str] = []

        def read() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                now = time.perf_counter() - t0
                errors.append(line)
                if "compiling the engine" in line and seen["line"] is None:
                    seen["line"] = now
                if "compiled in" in line and seen["compiled"] is None:
                    seen["compiled"] = now

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        ledger = out / "parts.jsonl"
        while proc.poll() is None:
            if seen["chunk"] is None and ledger.exists() and ledger.stat().st_size:
                seen["chunk"] = time.perf_counter() - t0
            time.sleep(0.05)
        seen["end"] = time.perf_counter() - t0
        reader.join()
        if proc.returncode:
            sys.exit(f"{exe} failed ({proc.returncode}):\n{''.join(errors)}")
        stdout.seek(0)
        rate = re.search(r"\(([\d,.]+) games/s\)", stdout.read())
    seen["rate"] = float(rate.group(1).replace(",", "")) if rate else None
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--haggis-sim",
        default=shutil.which("haggis-sim", path=os.path.dirname(sys.executable)),
        help="the haggis-sim executable to measure (default: this environment's)",
    )
    add_out_option(parser, "bench_first_run")
    args = parser.parse_args()
    if not args.haggis_sim:
        sys.exit("no haggis-sim executable next to this Python: give --haggis-sim PATH")
    with recorded(args.out):
        measure(args)


def measure(args: argparse.Namespace) -> None:
    rows = []
    for command in COMMANDS:
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory(prefix="haggis-first-run-") as tmp:
                cache = Path(tmp) / "cache"
                for state, name in (("empty", "fresh"), ("left by the run above", "warm")):
                    seen = first_run(args.haggis_sim, command, cache, Path(tmp) / name)
                    rows.append((" ".join(command[1:]), state, seen))

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:,.1f} s"

    exe = Path(args.haggis_sim).resolve()
    root = Path(__file__).resolve().parent.parent
    shown = exe.relative_to(root) if exe.is_relative_to(root) else exe
    print(f"`haggis-sim run ARGS --out DIR > file`, with `{shown}`, default `--jobs`\n")
    print(
        "| ARGS | numba cache | compile line | compiled in | first chunk logged | end | games/s |"
    )
    print("|---|---|---|---|---|---|---|")
    for what, cache_state, seen in rows:
        rate = "-" if seen["rate"] is None else f"{seen['rate']:,.0f}"
        print(
            f"| `{what}` | {cache_state} | {cell(seen['line'])} | {cell(seen['compiled'])} | "
            f"{cell(seen['chunk'])} | {cell(seen['end'])} | {rate} |"
        )


if __name__ == "__main__":
    main()
