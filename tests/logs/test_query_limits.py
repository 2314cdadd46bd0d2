"""``haggis-sim query`` stops when asked and cleans up after itself (reliability issue).

A statement past ``--timeout`` is interrupted (one line, status 2); Ctrl-C and SIGTERM stop
DuckDB at once (one line, status 130 and 143) and leave neither a ``--to`` temporary nor
the DuckDB spill folder; spill folders of dead processes are swept at the next start and
nothing else is; a ``--to`` the disk refuses is named in one line. Each case checks that
the effect it guards against did not happen.
"""

from __future__ import annotations

import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error
from test_query_hostile_input import make_run

from haggis_sim.logs.query import QueryTimeout, run_query

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from haggis_sim.cli import app; sys.argv[0] = 'haggis-sim'; app()"
# four-way, with an aggregate over every row: ~4e10 rows even on the fixture's 3-game run
# (a three-way count(*) finished within a second on a quiet machine)
CROSS_JOIN = (
    "SELECT sum(a.turn::BIGINT * b.turn + c.turn + d.turn) FROM moves a, moves b, moves c, moves d"
)
# a sort far larger than the memory limit below: it spills within seconds, runs for minutes
SPILLING_SORT = (
    "SELECT a FROM (SELECT i::VARCHAR || repeat('x', 40) AS a FROM range(300000000) t(i)) "
    "ORDER BY a"
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("limits") / "run", 3)


def spill_name(pid: int) -> str:
    return f"haggis-duckdb-{pid}-{secrets.token_hex(8)}"


def dead_pid() -> int:
    """The id of a process that has just ended (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


# --- --timeout -----------------------------------------------------------------------------------


def test_a_query_past_its_timeout_is_stopped(run: Path, tmp_path: Path) -> None:
    t0 = time.monotonic()
    line = one_line_error(invoke("query", str(run), CROSS_JOIN, "--timeout", "0.5"), "--timeout")
    assert line == "error: the query ran past --timeout 0.5 s and was stopped"
    assert time.monotonic() - t0 < 10
    target = tmp_path / "out.csv"
    one_line_error(
        invoke("query", str(run), CROSS_JOIN, "--timeout", "0.5", "--to", str(target)),
        "--timeout 0.5 s",
    )
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(QueryTimeout, match="--timeout 1 s"):
        run_query(run, CROSS_JOIN, timeout=1)


def test_a_quick_query_within_its_timeout_works(run: Path) -> None:
    res = invoke("query", str(run), "SELECT count(*) AS n FROM games", "--timeout", "60")
    assert res.exit_code == 0, res.stderr
    assert "20" in res.stdout


@pytest.mark.parametrize("value", ["0", "-1", "86401", "nan", "inf"])
def test_a_timeout_out_of_range_is_refused(run: Path, value: str) -> None:
    line = one_line_error(invoke("query", str(run), "SELECT 1", "--timeout", value), "--timeout")
    assert "86,400" in line, line


# --- Ctrl-C and SIGTERM --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sig", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_a_signal_stops_a_running_query_and_removes_its_spill(
    run: Path, tmp_path: Path, sig: int, status: int, word: str
) -> None:
    """The signal is sent once DuckDB is spilling (the query is surely running)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "HAGGIS_SIM_DUCKDB_MEMORY": "256MB"}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "query", str(run), SPILLING_SORT, "--to", str(out / "x.csv")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not any(tmp.glob("haggis-duckdb-*/*")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        assert any(tmp.glob("haggis-duckdb-*/*")), "the query never spilled"
        proc.send_signal(sig)
        sent = time.monotonic()
        stdout, stderr = proc.communicate(timeout=3)
        assert time.monotonic() - sent < 3
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        leftover = list(tmp.iterdir())
        shutil.rmtree(tmp)  # gigabytes, if the spill stayed
    assert proc.returncode == status, stderr
    assert stdout == ""
    assert stderr.strip().splitlines() == [
        f"{word}: the query was stopped; nothing was written to {out / 'x.csv'}"
    ], stderr
    assert leftover == []
    assert list(out.iterdir()) == []


# --- stale spill folders -------------------------------------------------------------------------


def test_spill_folders_of_dead_processes_are_swept(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = dead_pid()
    stale = tmp_path / spill_name(dead)
    (stale / "sub").mkdir(parents=True)
    (stale / "sub" / "block.tmp").write_bytes(b"x" * 1000)
    live = tmp_path / spill_name(os.getpid())
    live.mkdir()
    (live / "block.tmp").write_bytes(b"mine")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    kept = [
        tmp_path / "haggis-duckdb",  # the old shared folder
        tmp_path / f"haggis-duckdb-{dead}-notours",
        tmp_path / f"{spill_name(dead)}.bak",
        tmp_path / f"x{spill_name(dead)}",
        tmp_path / f"haggis-duckdb-{dead}-{secrets.token_hex(8).upper()}",
        tmp_path / f"haggis-duckdb-{dead}-{secrets.token_hex(9)}",
    ]
    for folder in kept:
        folder.mkdir()
        (folder / "keep.txt").write_text("keep\n")
    a_file = tmp_path / spill_name(dead)  # the name of a spill folder, but a file
    a_file.write_text("keep\n")
    link = tmp_path / spill_name(dead)  # ... or a link to a folder elsewhere
    link.symlink_to(outside)
    res = invoke("query", str(run), "SELECT 1 AS one")
    assert res.exit_code == 0, res.stderr
    assert not stale.exists()
    assert (live / "block.tmp").read_bytes() == b"mine"
    for folder in kept:
        assert (folder / "keep.txt").read_text() == "keep\n", folder
    assert a_file.read_text() == "keep\n"
    assert link.is_symlink() and (outside / "keep.txt").read_text() == "keep\n"


# --- a --to the disk refuses ---------------------------------------------------------------------


def small_files() -> None:
    """In the child: files may grow to 1 MB (writes past that fail with EFBIG)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


@pytest.mark.parametrize("name", ["big.csv", "big.parquet"])
def test_a_full_disk_names_the_to_path_and_leaves_no_temporary(
    run: Path, tmp_path: Path, name: str
) -> None:
    target = tmp_path / name
    sql = "SELECT i, md5(i::VARCHAR) AS h FROM range(300000) t(i)"  # ~10 MB, incompressible
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "query", str(run), sql, "--to", str(target)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, preexec_fn=small_files,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot write --to {target}: "), lines
    assert "File too large" in lines[0]
    assert list(tmp_path.iterdir()) == []
