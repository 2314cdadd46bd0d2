"""Reading a file the user handed over (a run's ledger and manifest, a model file): a
regular file only, of bounded size, opened so that nothing can block the read.

A run folder may come from someone else, or be edited: a FIFO in place of a file would
block a plain ``open`` forever, and a device or an absurd size would exhaust memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class UnreadableFile(OSError):
    """The file is not a regular file, or (``limit`` set) is larger than its limit."""

    def __init__(self, message: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    FileNotFoundError as ``open`` raises it; UnreadableFile (an OSError, its message one
    line) for a FIFO, a device, a folder or a file over ``limit``. Checked with
    ``os.stat`` first, so a FIFO is never opened, and opened non-blocking, so one swapped
    in meanwhile cannot hang the read either.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "x"
    ...     _ = p.write_bytes(b"abc")
    ...     read_regular(p, 10)
    b'abc'
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableFile(f"{path} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise UnreadableFile(f"{path} is not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnreadableFile(f"{path} is larger than {limit:,} bytes", limit)
    return data


#: the largest text file the tool reads back from a folder it wrote (a marker, a page,
#: an experiment file): far above any it writes, far below what would exhaust memory
TEXT_LIMIT = 64 * 2**20


def read_text_regular(path: Path, limit: int = TEXT_LIMIT) -> str:
    """:func:`read_regular` decoded as UTF-8 (UnicodeDecodeError, a ValueError, if not)."""
    return read_regular(path, limit).decode("utf-8")
