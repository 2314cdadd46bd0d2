"""Readers that do not crash on damage, runs that do not count twice, no temporaries left.

- one flipped byte inside a part (its footer intact) is one ``error:`` line naming the
  part, status 2, in ``report`` and ``compare`` as in ``query`` (it was a
  ``TProtocolException`` traceback);
- the same run given twice (the same folder, a symlink to it, a copy of it) is refused by
  ``report`` (it counted its games twice) and ``compare`` with one line naming both;
- a part write that fails (a full disk, a file-size limit) leaves no temporary behind.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim.logs import ledger


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 200-game run (never changed: cases damage or copy it)."""
    out = tmp_path_factory.mktemp("damaged") / "base200"
    res = invoke("run", "-s", "heuristic,greedy", "-n", "200", "--seed", "7", "--jobs", "1",
                 "--out", str(out), "-q")  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr)
    return out


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another finished run, of another seed (other games)."""
    out = tmp_path_factory.mktemp("damaged") / "seed8"
    res = invoke("run", "-s", "heuristic,greedy", "-n", "200", "--seed", "8", "--jobs", "1",
                 "--out", str(out), "-q")  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr)
    return out


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(data)


READERS = {
    "report": lambda bad, good, tmp: ["report", str(bad), "--out", str(tmp / "rep")],
    "compare": lambda bad, good, tmp: ["compare", str(good), str(bad)],
    "compare (damaged first)": lambda bad, good, tmp: ["compare", str(bad), str(good)],
    "query": lambda bad, good, tmp: ["query", str(bad), "SELECT * FROM games"],
}


@pytest.mark.parametrize("reader", list(READERS))
def test_a_flipped_byte_in_a_part_is_named_in_one_line(
    base: Path, other: Path, tmp_path: Path, reader: str
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(base, bad)
    part = ledger.table_files(bad, "games")[0]
    flip_byte(part, 4)  # the first page's header: the footer stays intact
    res = invoke(*READERS[reader](bad, other, tmp_path))
    one_line_error(res, f"damaged log file {part}", "--resume")
    assert not (tmp_path / "rep").exists()


def _twice(base: Path, tmp: Path, how: str) -> Path:
    """The run ``base`` once more: itself, a symlink to it, or a copy of its folder."""
    if how == "same path":
        return base
    other = tmp / "other"
    if how == "symlink":
        other.symlink_to(base, target_is_directory=True)
    else:
        shutil.copytree(base, other)
    return other


@pytest.mark.parametrize("how", ["same path", "symlink", "copy"])
def test_report_refuses_a_run_given_twice(base: Path, tmp_path: Path, how: str) -> None:
    again = _twice(base, tmp_path, how)
    res = invoke("report", str(base), str(again), "--out", str(tmp_path / "rep"))
    one_line_error(res, str(base), str(again), "same run", "counted twice")
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("how", ["same path", "symlink", "copy"])
def test_compare_refuses_a_run_with_itself(base: Path, tmp_path: Path, how: str) -> None:
    again = _twice(base, tmp_path, how)
    one_line_error(invoke("compare", str(base), str(again)), str(base), str(again), "same run")


@pytest.mark.slow  # several seconds on this machine
def test_report_still_takes_two_different_runs(base: Path, other: Path, tmp_path: Path) -> None:
    res = invoke("report", str(base), str(other), "--out", str(tmp_path / "rep"))
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "rep" / "index.html").exists()


def _limit_file_size() -> None:  # in the child: any file over 20 kB fails to grow (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


def test_a_failed_part_write_leaves_no_temporary(tmp_path: Path) -> None:
    """A part that cannot be written (here: a file-size limit; a full disk alike) fails
    the run with one line naming the run folder, and leaves no ``.part-…tmp-PID``."""
    run = tmp_path / "small"
    proc = subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", "run", "-s", "heuristic,greedy", "-n", "400",
         "--chunk-size", "100", "--jobs", "1", "--out", str(run), "-q"],
        capture_output=True, text=True, timeout=600, preexec_fn=_limit_file_size,
    )  # fmt: skip
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(run) in lines[0], lines
    assert "File too large" in lines[0], lines
    assert (run / "manifest.json").exists()  # the run started, then its write failed
    assert not [p for p in run.rglob(".*") if ".tmp-" in p.name]
