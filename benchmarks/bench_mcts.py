"""MCTS speed, old code against new, measured interleaved on the same machine and run.

Run from the repository root: ``python benchmarks/bench_mcts.py`` (``--quick`` for a
short look); the table is also written to ``benchmarks/results/bench_mcts.md``
(``--out``). The baseline is a pristine export of ``--baseline`` (default d124337, the
code before the MCTS speed work) made with ``git archive`` into a temporary folder; each
measurement runs in a fresh subprocess with ``PYTHONPATH`` set to one tree, old and new
alternating (old, new, new, old, ...) so load from other processes on a shared machine
hits both alike. Reported: per tree the median over repeats, and the new/old ratio. Do not
edit compiled sources of the working tree during a run (children would recompile).

Measurements
- decisions: ``--spec`` (default ``mcts``) decides at fixed positions (every decision of
  seat 0 in heuristic self-play games, 2 and 3 players: the positions do not depend on
  the code measured), one core; mean / p95 / max ms per decision and a digest of the
  actions chosen (equal digests: no decision changed at these positions).
- games: ``greedy,<spec>`` through the runner (revised rules, 2 players, rotated seats,
  full games), ``--jobs`` 1 and 2, with and without move logs; games/s.
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

ROOT = Path(__file__).resolve().parents[1]


def _selfplay() -> Any:
    """This checkout's :mod:`haggis_sim.selfplay`, loaded from its file: the tree measured
    (``PYTHONPATH``; the baseline predates the module) supplies the engine it calls."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "haggis_sim.selfplay", ROOT / "haggis_sim" / "selfplay.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def positions(players: int, games: int) -> list[Any]:
    """Seat 0's observations in heuristic self-play games (independent of the MCTS code)."""
    import numpy as np

    import haggis_sim as hs
    from haggis_sim.engine.rng import new_stream
    from strategies import make

    rules = hs.Rules.preset("revised", players=players).to_array()
    player = make("heuristic")
    selfplay = _selfplay()
    out = []
    for g in range(games):
        streams = [new_stream(np.int64(g * 10 + s)) for s in range(players)]

        def choose(seat: int, obs: Any, streams: list[Any] = streams) -> int:
            return int(player.act_array(obs, streams[seat]))

        out += selfplay.seat_positions(rules, 5000 + g, choose)
    return out


def child_decisions(spec: str, games: int) -> dict[str, Any]:
    """Time ``spec`` at every seat-0 position of ``games`` self-play games per player count."""
    import numpy as np

    from haggis_sim.engine.rng import new_stream
    from strategies import make

    strat = make(spec)
    result: dict[str, Any] = {}
    for players in (2, 3):
        obs_list = positions(players, games)
        strat.act_array(obs_list[0], new_stream(np.int64(0)))  # compile / load
        times = []
        actions = []
        for i, obs in enumerate(obs_list):
            rng = new_stream(np.int64(i))
            t0 = time.perf_counter()
            actions.append(strat.act_array(obs, rng))
            times.append(time.perf_counter() - t0)
        ms = np.array(times) * 1000
        result[f"{players}p"] = {
            "n": len(ms),
            "mean": float(ms.mean()),
            "p95": float(np.percentile(ms, 95)),
            "max": float(ms.max()),
            "per_s": float(len(ms) / ms.sum() * 1000),
            "digest": hashlib.sha256(json.dumps(actions).encode()).hexdigest()[:12],
        }
    return result


def child_games(spec: str, games: int, jobs: int, log_moves: bool) -> dict[str, Any]:
    """games/s of ``greedy,spec`` through the runner."""
    import haggis_sim as hs
    from haggis_sim.runner.run import RunConfig, execute

    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            strategies=["greedy", spec], games=games,
            rules=hs.Rules.preset("revised", players=2).as_dict(), seed=7, seats="rotate",
            chunk_size=max(2, games // (2 * jobs)) // 2 * 2, log_moves=log_moves, jobs=jobs,
            command="bench_mcts",
        )  # fmt: skip
        t0 = time.perf_counter()
        execute(config, Path(tmp) / "run")
        secs = time.perf_counter() - t0
    return {"games_per_s": games / secs, "secs": secs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", default="d124337", help="git revision of the old code")
    parser.add_argument("--spec", default="mcts", help="the MCTS setting measured")
    parser.add_argument("--games", type=int, default=80, help="games per games/s measurement")
    parser.add_argument("--position-games", type=int, default=3, help="self-play games")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer games and repeats")
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    add_out_option(parser, "bench_mcts")
    opts = parser.parse_args()
    if opts.child is not None:
        kind, spec, n, *rest = opts.child
        if kind == "decisions":
            res = child_decisions(spec, int(n))
        else:
            res = child_games(spec, int(n), int(rest[0]), rest[1] == "1")
        print(json.dumps(res))
        return
    if opts.quick:
        opts.games, opts.repeats, opts.position_games = 24, 1, 1
    with old_and_new(opts.baseline) as trees, recorded(opts.out):
        measure(opts, trees)


def measure(opts: argparse.Namespace, trees: dict[str, Path]) -> None:
    """Run every measurement on both trees, interleaved, and print the table."""
    jobs_cases = [(1, True), (1, False), (2, True), (2, False)]
    tasks: list[tuple[str, list[str]]] = [
        ("decisions", ["decisions", opts.spec, str(opts.position_games)])
    ]
    for jobs, log in jobs_cases:
        label = f"games j{jobs} {'logs' if log else 'nologs'}"
        tasks.append((label, ["games", opts.spec, str(opts.games), str(jobs), str(int(log))]))
    for tree in trees.values():  # compile each tree once, outside the timings
        run_child(__file__, tree, ["games", opts.spec, "2", "1", "1"])
    results: dict[str, dict[str, list[Any]]] = {t: {"old": [], "new": []} for t, _ in tasks}
    for r in range(opts.repeats):
        for name, args in tasks:
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for which in order:
                results[name][which].append(run_child(__file__, trees[which], args))
    print(f"baseline {opts.baseline} vs working tree {ROOT}; spec {opts.spec}; "
          f"{opts.repeats} repeats interleaved; {time.strftime('%Y-%m-%d %H:%M')}")  # fmt: skip
    print("\n| measurement | old | new | new/old |\n|---|---|---|---|")
    for name, _ in tasks:
        if name == "decisions":
            for p in ("2p", "3p"):
                for key in ("per_s", "mean", "p95", "max"):
                    old = median(x[p][key] for x in results[name]["old"])
                    new = median(x[p][key] for x in results[name]["new"])
                    label = "decisions/s" if key == "per_s" else f"ms/decision {key}"
                    print(f"| {p} {label} | {old:.2f} | {new:.2f} | {new / old:.2f} |")
                digests = {w: results[name][w][0][p]["digest"] for w in ("old", "new")}
                same = "same" if digests["old"] == digests["new"] else "DIFFERENT"
                n = results[name]["old"][0][p]["n"]
                print(
                    f"| {p} actions at {n} positions | {digests['old']} "
                    f"| {digests['new']} | {same} |"
                )
        else:
            old = median(x["games_per_s"] for x in results[name]["old"])
            new = median(x["games_per_s"] for x in results[name]["new"])
            print(
                f"| greedy,{opts.spec} games/s, {name} | {old:.1f} | {new:.1f} | {new / old:.2f} |"
            )


if __name__ == "__main__":
    main()
