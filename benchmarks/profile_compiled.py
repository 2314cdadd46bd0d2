"""Where a run's time goes inside the compiled code: Linux ``perf`` samples named.

``perf`` cannot name numba's functions: they are machine code loaded at run time from
numba's cache. This script plays a chunk of games in a child process that first writes
``/tmp/perf-<pid>.map`` (perf's convention for code made at run time: start, size and
name of each compiled function, read from the object code numba loads, with ``nm``);
``perf record`` samples the child on one core and ``perf report`` sums the samples by
function. The table (share of samples, function) goes to
``benchmarks/results/profile_compiled.md``; the map file is removed after the report.
Functions the compiler inlined count in their caller. Needs ``perf`` and ``nm``.

    python benchmarks/profile_compiled.py --strategies greedy,mcts --games 1500
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _results import add_out_option, recorded

CHILD = r"""
import os, subprocess, sys, tempfile
import numpy as np
from numba.core import codegen

objects = []
keep = codegen.CPUCodeLibrary._set_compiled_object


def kept(library, value):
    objects.append((library, bytes(value)))
    return keep(library, value)


codegen.CPUCodeLibrary._set_compiled_object = kept  # numba drops the object once loaded

from haggis_sim.rules import Rules
from haggis_sim.runner.chunk import play_chunk
from strategies import make

specs, games = sys.argv[1].split(","), int(sys.argv[2])
rules = Rules.preset(players=len(specs)).to_array()
players = [make(s) for s in specs]
play_chunk(rules, players, np.arange(0, 2, dtype=np.int64), 1, "rotate", False)  # load
symbols = {}
for library, code in objects:
    with tempfile.NamedTemporaryFile(suffix=".o") as f:
        f.write(code)
        f.flush()
        listing = subprocess.run(["nm", "-S", "--defined-only", f.name], text=True,
                                 capture_output=True, check=True).stdout
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            address = library._codegen._engine.get_function_address(parts[3])
            if address:
                symbols[address] = (int(parts[1], 16), parts[3])
with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
    for address, (size, name) in sorted(symbols.items()):
        f.write(f"{address:x} {size:x} {name}\n")
play_chunk(rules, players, np.arange(10, 10 + games, dtype=np.int64), 1, "rotate", False)
print(os.getpid())
"""


def readable(symbol: str) -> str:
    """``strategies.network.layer_sums`` for numba's mangled name (``_ZN``, then the
    module path's and the function's names, each after its length, then the
    specialisation); other names as they are."""
    if not symbol.startswith("_ZN"):
        return symbol
    rest, parts = symbol[3:], []
    while (digits := re.match(r"\d+", rest)) is not None:
        n = int(digits.group())
        parts.append(rest[digits.end() : digits.end() + n])
        rest = rest[digits.end() + n :]
    return ".".join(parts) or symbol


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strategies", default="greedy,mcts")
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--top", type=int, default=25, help="functions in the table")
    add_out_option(parser, "profile_compiled")
    args = parser.parse_args()
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            sys.exit(f"error: {tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp, recorded(args.out):
        data = Path(tmp) / "perf.data"
        child = [sys.executable, "-c", CHILD, args.strategies, str(args.games)]
        record = ["perf", "record", "-q", "-F", "999", "-o", str(data), "--", *child]
        pid = subprocess.run(
            ["taskset", "-c", str(min(os.sched_getaffinity(0))), *record],
            capture_output=True, text=True, check=True,
        ).stdout.split()[-1]  # fmt: skip
        try:
            report = subprocess.run(
                ["perf", "report", "-i", str(data), "--sort", "symbol", "--stdio", "-q"],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
        finally:
            Path(f"/tmp/perf-{pid}.map").unlink(missing_ok=True)
        rows: dict[str, float] = {}
        for line in report.splitlines():
            fields = line.split()
            if len(fields) >= 3 and fields[0].endswith("%"):
                name = fields[2]
                name = "(code without a name)" if name.startswith("0x") else readable(name)
                rows[name] = rows.get(name, 0.0) + float(fields[0].rstrip("%"))
        print(f"`{args.strategies}`, {args.games:,} games in one process on one core, "
              "moves not logged; share of perf's samples by function (specialisations "
              "summed; inlined code counts in its caller; `NRT_*` is numba's reference "
              "counting of arrays)\n")  # fmt: skip
        print("| share of samples | function |")
        print("|---|---|")
        for name, share in sorted(rows.items(), key=lambda r: -r[1])[: args.top]:
            print(f"| {share:.1f}% | `{name}` |")


if __name__ == "__main__":
    main()
