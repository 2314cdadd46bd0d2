"""A part edited by hand, with the ledger re-recorded to match it, is refused in one line
naming the file and what is wrong, by every reader (query, report, replay, show), where
once it gave tracebacks (a renamed or retyped column) or a silent wrong answer (a winner
that is no seat, a game logged twice)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from cli_helpers import invoke

from haggis_sim.logs.ledger import digest

RUN = ["-s", "greedy,random", "-n", "40", "--jobs", "1", "-q"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("edited") / "r"
    assert invoke("run", *RUN, "--out", str(run)).exit_code == 0
    return run


def edit(run: Path, table: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> Path:
    """Rewrite the last part of ``table`` through ``change`` and re-record the ledger
    (its sizes and digests), as a careful hand edit would."""
    part = sorted((run / table).glob("part-*.parquet"))[-1]
    change(pl.read_parquet(part)).write_parquet(part)
    data = part.read_bytes()
    lines = []
    for line in (run / "parts.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if part.name == f"part-{rec['start']:010d}-{rec['stop']:010d}.parquet":
            rec[table][1:] = [len(data), digest(data)]
        lines.append(json.dumps(rec, separators=(",", ":")))
    (run / "parts.jsonl").write_text("\n".join(lines) + "\n")
    return part


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


EDITS: dict[str, tuple[str, Callable[[pl.DataFrame], pl.DataFrame], str]] = {
    "winner 7": ("games", lambda f: f.with_columns(pl.lit(7, pl.UInt8).alias("winner")),
                 "winner is seat 7"),
    "a game twice": ("games", lambda f: pl.concat([f, f.head(1)]), "rows for"),
    "a renamed column": ("games", lambda f: f.rename({"winner": "champion"}),
                         "no column 'winner'"),
    "a retyped column": ("rounds", lambda f: f.with_columns(pl.col("total_0").cast(pl.Utf8)),
                         "column 'total_0' holds text, not int"),
    "moves of other games": ("moves", lambda f: f.with_columns(pl.col("game_id") + 1000),
                             "outside its games"),
}  # fmt: skip


#: every edit through query; through the other readers one edit in the fast subset and the
#: rest as slow (report and show import the page and figure libraries: seconds each)
COMMANDS = {
    "query": ["query", "{run}", "SELECT count(*) FROM games"],
    "replay": ["replay", "{run}", "39"],
    "report": ["report", "{run}", "--out", "{run}-report"],
    "show": ["show", "{run}", "39", "--out", "{run}-game.html"],
}


def _cases() -> list[Any]:
    fast = {"query": set(EDITS), "replay": {"a retyped column"}}
    return [
        pytest.param(case, args, id=f"{command}-{case}",
                     marks=() if case in fast.get(command, ()) else pytest.mark.slow)
        for command, args in COMMANDS.items() for case in EDITS
    ]  # fmt: skip


@pytest.mark.parametrize(("case", "command"), _cases())
def test_an_edited_part_is_refused_in_one_line(
    finished: Path, tmp_path: Path, case: str, command: list[str]
) -> None:
    run = tmp_path / "r"
    shutil.copytree(finished, run)
    table, change, said = EDITS[case]
    part = edit(run, table, change)
    done = cli(*(a.format(run=run) for a in command))
    assert done.returncode == 2, (case, done.stdout[-500:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: damaged log file") and part.name in lines[0], lines
    assert said in lines[0], lines
    assert not (tmp_path / "r-report").exists()
