"""Scale benchmark: a 10-million-game run with move logs, then ``report`` and ``query``.

Run: ``python benchmarks/bench_scale.py --work DIR`` (about an hour on 2 cores; DIR needs
about 6 GB free). It plays ``haggis-sim run -s greedy,greedy --games 10000000 --jobs 2``
with every move logged into ``DIR/run``, then builds ``haggis-sim report`` over it and
times a few ``haggis-sim query`` questions of the kinds users ask (a count, a group-by
over every move, a join of games and rounds). Each command is a separate process, run
exactly as a user would type it; for each the table gives the wall time and the peak
memory: the largest sum of resident memory over the command's process tree (sampled
every 0.2 s, so the client and both workers for ``run``), and the largest single process.
The disk use of each table is measured with ``du``. The machine's load average is sampled
during each command, so a reader can tell a quiet measurement from a busy one.

Prints Markdown tables and writes them to ``benchmarks/results/bench_scale.md``
(``--out``), which the docs' performance page includes. ``DIR/run`` is removed at the end
unless ``--keep``; an existing ``DIR/run`` is refused (the run would be a resume, not a
measurement).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _results import add_out_option, recorded, run_watched

BIN = Path(sys.executable).parent

QUERIES = {
    "count every move": "SELECT count(*) AS moves FROM moves",
    "moves by combination type": (
        "SELECT type, count(*) AS n, avg(n_cards) AS cards FROM moves GROUP BY type ORDER BY n DESC"
    ),
    "bombs by the round's leader or not (moves joined to rounds)": (
        "SELECT m.seat = r.leader AS by_leader, count(*) AS bombs FROM moves m "
        "JOIN rounds r USING (game_id, round) WHERE m.type = 'bomb' GROUP BY 1 ORDER BY 1"
    ),
    "mean round total by game winner (rounds joined to games)": (
        "SELECT g.winner, avg(r.total_0) AS total_0, avg(r.total_1) AS total_1, count(*) AS n "
        "FROM rounds r JOIN games g USING (game_id) GROUP BY 1 ORDER BY 1"
    ),
}


@dataclass
class Measured:
    seconds: float
    peak_tree_mib: float
    peak_process_mib: float
    load_mean: float
    load_max: float
    stdout: str
    failed: str | None = None  # the command's last error line, if it failed


def measure(command: list[str], env: dict[str, str], must: bool = True) -> Measured:
    """Run ``command``; its wall time, peak memory (tree sum and largest process), load.
    A failure ends the benchmark if ``must``, else it is reported in the table."""
    run = run_watched(command, env)
    failed = None
    if run.returncode != 0:
        err = run.stderr.decode()
        if must:
            sys.exit(f"{' '.join(command)} failed ({run.returncode}):\n{err[-2000:]}")
        failed = (err.strip().splitlines() or [f"exit status {run.returncode}"])[-1]
    loads = run.loads or [os.getloadavg()[0]]
    return Measured(
        run.seconds,
        run.peak_tree / 2**20,
        run.peak_process / 2**20,
        sum(loads) / len(loads),
        max(loads),
        run.stdout.decode(),
        failed,
    )


def du_bytes(path: Path) -> int:
    """Bytes on disk under ``path`` (``du``, so block use, not file lengths)."""
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def row(name: str, m: Measured) -> str:
    done = f"FAILED: {m.failed}" if m.failed else "done"
    return (
        f"| {name} | {m.seconds:,.1f} | {m.peak_tree_mib:,.0f} | {m.peak_process_mib:,.0f} "
        f"| {m.load_mean:.1f} / {m.load_max:.1f} | {done} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", type=Path, help="folder for the run (default: a temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the run folder")
    add_out_option(parser, "bench_scale")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    run_dir, report_dir = work / "run", work / "report"
    if run_dir.exists():
        sys.exit(f"{run_dir} exists: the run would resume it, not measure a fresh run")
    env = dict(os.environ)
    cli = str(BIN / "haggis-sim")
    # the engine is compiled (or loaded) first, so the run's time is play and logging only
    warm = Path(tempfile.mkdtemp(prefix="bench-scale-warm-"))
    subprocess.run([cli, "run", "-s", "greedy,greedy", "-n", "200", "--jobs", str(args.jobs),
                    "--out", str(warm / "run"), "--quiet"], env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    shutil.rmtree(warm)
    with recorded(args.out):
        command = [cli, "run", "-s", "greedy,greedy", "--games", str(args.games),
                   "--jobs", str(args.jobs), "--seed", "1", "--out", str(run_dir),
                   "--quiet"]  # fmt: skip
        print(f"## {args.games:,} games of greedy against greedy, every move logged\n")
        print(f"`haggis-sim run -s greedy,greedy --games {args.games} --jobs {args.jobs} "
              "--seed 1 --out DIR --quiet` (engine already compiled)\n")  # fmt: skip
        ran = measure(command, env)
        print("| step | wall s | peak MiB (all processes) | peak MiB (largest process) "
              "| load average mean / max | result |")  # fmt: skip
        print("|---|---:|---:|---:|---|---|")
        print(row("run", ran))
        print()
        print(f"{args.games / ran.seconds:,.0f} games/s over the whole command "
              f"({ran.seconds / 60:,.1f} min).\n")  # fmt: skip
        sizes = {t: du_bytes(run_dir / t) for t in ("games", "rounds", "moves")}
        total = du_bytes(run_dir)
        print("| table | on disk | bytes a game |")
        print("|---|---:|---:|")
        for table, size in sizes.items():
            print(f"| {table} | {size / 2**30:,.2f} GiB | {size / args.games:,.0f} |")
        print(f"| whole run folder | {total / 2**30:,.2f} GiB | {total / args.games:,.0f} |\n")

        print("## Reading it back\n")
        print("DuckDB's memory limit is the default (`HAGGIS_SIM_DUCKDB_MEMORY`, 2GB).\n")
        print("| step | wall s | peak MiB (all processes) | peak MiB (largest process) "
              "| load average mean / max | result |")  # fmt: skip
        print("|---|---:|---:|---:|---|---|")
        rep = measure([cli, "report", str(run_dir), "--out", str(report_dir)], env, must=False)
        print(row("`haggis-sim report DIR --out REPORT`", rep))
        peaks = [rep.peak_tree_mib]
        queries = []
        for name, sql in QUERIES.items():
            q = measure([cli, "query", str(run_dir), sql, "--timeout", "3600"], env, must=False)
            print(row(f"query: {name}", q))
            peaks.append(q.peak_tree_mib)
            queries.append(q)
        print()
        fits = "within" if max(peaks) <= 4096 else "OVER"
        print(f"Largest peak while reading: {max(peaks):,.0f} MiB, {fits} 4 GiB.\n")
        if rep.failed or any(q.failed for q in queries):
            print("**Some reading steps failed (see the table): the run does not read back.**\n")
        for name, sql in QUERIES.items():
            print(f"- {name}: `{sql}`")
    if not args.keep:
        shutil.rmtree(run_dir)
        shutil.rmtree(report_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
