"""Engine benchmark: random-play rounds per second and leading move generation.

Run: ``python benchmarks/bench_engine.py``: prints a Markdown table and writes it to
``benchmarks/results/bench_engine.md`` (``--out``), which the docs' Performance page
includes. Each measurement is the best of several repeats, after a
warm-up that also triggers (or loads cached) compilation.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np
from _results import add_out_option, recorded

import haggis_sim as hs
from haggis_sim.engine import layout as L
from haggis_sim.engine import moves as M
from haggis_sim.engine import state as S


def best_of(repeats: int, fn) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def cold_start_seconds() -> float:
    """Wall time of a fresh process that imports the package and plays one random round."""
    code = (
        "import haggis_sim as hs;from haggis_sim.engine import state as S;"
        "S.random_rounds(hs.Rules.preset('revised',players=2).to_array(),1,0)"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    add_out_option(parser, "bench_engine")
    args = parser.parse_args()
    with recorded(args.out):
        measure(args)


def measure(args: argparse.Namespace) -> None:

    rows: list[tuple[str, str, str]] = []
    for players in (2, 3):
        rules = hs.Rules.preset("revised", players=players).to_array()
        S.random_rounds(rules, 10, 0)
        secs = best_of(args.repeats, lambda r=rules: S.random_rounds(r, args.rounds, 1))
        actions = S.random_rounds(rules, args.rounds, 1)
        rows.append(
            (
                f"uniformly random play, {players} players, 1 core",
                f"{args.rounds / secs:,.0f} rounds/s",
                f"{args.rounds:,} rounds in {secs:.2f} s; "
                f"{actions / args.rounds:.1f} actions/round",
            )
        )

    hand = hs.parse_cards("2a 3a 4b 5c 6a 7a 7b 8c 9d Ta Tb Tc Td Te J Q K")
    out = np.empty(L.MAX_MOVES, dtype=np.int64)
    mask = hand.relative_mask()
    suits, faces = np.int64(mask & L.SUIT_ALL), np.int64(mask >> L.FACE_SHIFT)
    count = M.generate(suits, faces, 5, np.int64(0), out, True)
    reps = 20_000
    secs = best_of(
        args.repeats,
        lambda: [M.generate(suits, faces, 5, np.int64(0), out, True) for _ in range(reps)],
    )
    rows.append(
        (
            "legal leads, 17-card hand with J Q K (3p)",
            f"{secs / reps * 1e6:.1f} µs",
            f"{count} moves; hand {hand}; timed from Python (call overhead included)",
        )
    )
    rng = np.random.default_rng(5)
    counts = []
    hands = []
    for _ in range(200):
        deck = rng.permutation(36)
        m = 0
        for c in deck[:14]:
            m |= 1 << int((c // 4) * 5 + c % 4)
        hands.append(m)
    t_total = 0.0
    for m in hands:
        t0 = time.perf_counter()
        counts.append(M.generate(np.int64(m), np.int64(7), 4, np.int64(0), out, True))
        t_total += time.perf_counter() - t0
    rows.append(
        (
            "legal leads, 200 random 2p deals (14 + J Q K)",
            f"{t_total / len(hands) * 1e6:.1f} µs",
            f"moves per hand: mean {np.mean(counts):.0f}, max {max(counts)}",
        )
    )
    rows.append(
        (
            "cold start: new process, import + 1 round",
            f"{cold_start_seconds():.2f} s",
            "compiled code loaded from numba's cache",
        )
    )

    print("| benchmark | result | notes |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
