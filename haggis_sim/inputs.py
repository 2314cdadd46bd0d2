"""Reading a file the user handed over (a run's ledger and manifest, a model file): a
regular file only, of bounded size, opened so that nothing can block the read.

A run folder may come from someone else, or be edited: a FIFO in place of a file would
block a plain ``open`` forever, and a device or an absurd size would exhaust memory.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any


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


def json_value(text: str | bytes) -> Any:
    """The JSON value ``text`` holds; ValueError (one line) if it is not JSON, holds a
    number too large for a float (``1e400``) or ``NaN``/``Infinity``, or nests too deeply
    to read (an edited file nesting arrays thousands deep).

    >>> json_value('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> json_value("[" * 100_000)
    Traceback (most recent call last):
    ...
    ValueError: nested too deeply to read
    """

    def finite(value: str) -> float:
        number = float(value)
        if math.isinf(number):
            raise ValueError(f"the number {value[:20]} is out of range")
        return number

    def refuse(name: str) -> float:
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        return json.loads(text, parse_float=finite, parse_constant=refuse)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
