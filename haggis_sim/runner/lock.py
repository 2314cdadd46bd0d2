"""One writer per run folder: an exclusive OS file lock held while a run writes.

``run`` and ``run --resume`` hold :data:`LOCK` (``fcntl.flock``, exclusive) in the run
folder from before their last check of the folder until the run ends, so two writers can
never both play the same games: the second gets one line naming the first's PID (which
the lock file holds as text) and changes nothing. The kernel drops the lock when its
process dies, so a run killed with ``kill -9`` leaves no stale lock: a lock file nobody
holds is simply locked again. The holder removes the file when it is done, still
holding it; a writer that opened the file just before it was removed locks a file no
longer at that path, notices (the inodes differ), and tries again.

Readers (``query``, ``report``, ``compare``, ...) never take the lock.

The lock file is opened without following a symbolic link and must be a regular file:
a run folder received from someone else may hold a link named like the lock, and writing
the PID through it would overwrite whatever file it points at.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from pathlib import Path

from ..errors import InputError

LOCK = ".haggis-sim.lock"
_PID_WAIT = 0.5  # seconds to wait for a new holder to write its PID into the file


class RunLockedError(InputError):
    """Another process is writing the run folder (it holds the folder's lock)."""


class LockFileError(InputError):
    """The run folder's lock file is a symbolic link or not a regular file."""


def _not_a_lock(path: Path) -> LockFileError:
    return LockFileError(
        f"run folder {path.parent} holds {path.name} that is a symbolic link or not a regular "
        "file; haggis-sim never writes through it: remove it if the run is yours, then try "
        "again"
    )


def _open_lock(path: Path, flags: int) -> int:
    """``os.open`` of the lock file, never through a symbolic link and never blocking on a
    FIFO; LockFileError where it is a link or not a regular file."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise _not_a_lock(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _not_a_lock(path)
    return fd


def _holder(path: Path) -> str:
    """The PID the lock file names (waiting briefly for a holder that just locked it)."""
    deadline = time.monotonic() + _PID_WAIT
    while True:
        try:
            text = path.read_text().strip()
        except (OSError, UnicodeDecodeError):
            text = ""
        if text or time.monotonic() > deadline:
            return text if text.isdigit() else "unknown"
        time.sleep(0.01)


def _locked(path: Path) -> RunLockedError:
    return RunLockedError(
        f"run folder {path.parent} is being written by another haggis-sim process "
        f"(PID {_holder(path)}); wait for it to finish, or stop it, then try again"
    )


def check_free(run_dir: Path) -> None:
    """RunLockedError (naming the holder's PID) if a process holds the folder's lock.

    Creates nothing: a folder another writer is still setting up is refused as being
    written, not as a folder that holds files.
    """
    path = run_dir / LOCK
    try:
        fd = _open_lock(path, os.O_RDONLY)
    except OSError:
        return  # no lock file (or none that can be read): nobody holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _locked(path) from None
    finally:
        os.close(fd)


def _lock_once(path: Path) -> int | None:
    """Lock the file at ``path`` (created if missing); its descriptor, or None if the
    locked file was removed meanwhile (try again). RunLockedError if another holds it."""
    fd = _open_lock(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise _locked(path) from None
    except BaseException:
        os.close(fd)
        raise
    try:
        same = os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
    except FileNotFoundError:
        same = False
    if not same:
        os.close(fd)
        return None
    return fd


class RunLock:
    """The held lock of one run folder; :meth:`release` gives it up (once)."""

    def __init__(self, run_dir: Path) -> None:
        """Lock ``run_dir`` (which must exist) and write this process's PID into the
        lock file. RunLockedError (one line naming the holder's PID) if another process
        holds it; OSError if the lock file cannot be created or written."""
        self.path = run_dir / LOCK
        fd = None
        while fd is None:
            fd = _lock_once(self.path)
        self.fd: int | None = fd
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """Remove the lock file and unlock it (removed while still held: see the module
        docstring); nothing if already released."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = None
