"""The run lock never writes through a symbolic link, and never blocks on a FIFO: a run
folder received from someone else may hold a link named like the lock file, and writing
the PID through it would overwrite any file the user can write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim.runner.lock import LOCK, LockFileError, RunLock, check_free

RUN = ["-s", "greedy,random", "-n", "8", "--jobs", "1", "-q"]


def _thesis(tmp_path: Path) -> Path:
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("my thesis\n")
    return thesis


def test_resume_refuses_a_lock_that_links_to_a_users_file(tmp_path: Path) -> None:
    run = tmp_path / "r"
    assert invoke("run", *RUN, "--out", str(run)).exit_code == 0
    thesis = _thesis(tmp_path)
    (run / LOCK).symlink_to(thesis)
    res = invoke("run", "--resume", str(run))
    one_line_error(res, str(run), LOCK, "symbolic link")
    assert thesis.read_text() == "my thesis\n"
    assert (run / LOCK).is_symlink()  # the user's link is left as it was


def test_a_new_run_refuses_a_folder_holding_only_a_linked_lock(tmp_path: Path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    thesis = _thesis(tmp_path)
    (out / LOCK).symlink_to(thesis)
    res = invoke("run", *RUN, "--out", str(out))
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    assert thesis.read_text() == "my thesis\n"
    assert sorted(p.name for p in out.iterdir()) == [LOCK]


def test_the_lock_refuses_a_link_and_a_fifo_without_blocking(tmp_path: Path) -> None:
    thesis = _thesis(tmp_path)
    (tmp_path / LOCK).symlink_to(thesis)
    with pytest.raises(LockFileError, match="symbolic link or not a regular file"):
        RunLock(tmp_path)
    assert thesis.read_text() == "my thesis\n"
    fifo_dir = tmp_path / "f"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / LOCK)
    with pytest.raises(LockFileError):
        RunLock(fifo_dir)
    with pytest.raises(LockFileError):  # the check before a run does not block on it either
        check_free(fifo_dir)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    lock = RunLock(fresh)  # a regular lock file is still created, locked and removed
    assert (fresh / LOCK).read_text() == f"{os.getpid()}\n"
    lock.release()
    assert not (fresh / LOCK).exists()
