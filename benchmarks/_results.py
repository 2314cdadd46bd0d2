"""Where the benchmark scripts put their tables: ``benchmarks/results/<script>.md``.

Every figure the docs quote comes from one of these files (``docs/performance.md``
includes them), never from a table pasted by hand. :func:`recorded` copies what a script
prints to the terminal and, when the script finishes, writes it under a line that says
how, where and when it was measured (the exact command, machine, load, Python, numba,
haggis-sim version and commit, date and duration). The file is written whole or not at
all: through a temporary file renamed into place, and not at all when the script fails.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = RESULTS.parent.parent


def add_out_option(parser: argparse.ArgumentParser, script: str) -> None:
    """``--out FILE``: where the table goes (default ``benchmarks/results/<script>.md``)."""
    parser.add_argument(
        "--out",
        type=Path,
        default=RESULTS / f"{script}.md",
        help="Markdown file the results are written to (default: %(default)s)",
    )


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal: io.TextIOBase) -> None:
        self.terminal = terminal
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.terminal.write(text)

    def flush(self) -> None:
        self.terminal.flush()


def _commit() -> str:
    """The checkout's commit, ``+changes`` when the working tree differs from it (other
    than in the results files themselves, which the benchmarks rewrite one after another)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--",
             ".", ":!benchmarks/results"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"{head}+changes" if dirty else head


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def provenance(started: float, seconds: float, commit: str, load: float) -> str:
    """One line: the exact command, when, how long, on what (``load``: the load average
    when it started), with which versions (``commit``: the checkout when it started)."""
    import numba

    import haggis_sim

    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    command = shlex.join(["python", script, *sys.argv[1:]])
    return (
        f"*Measured {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))} "
        f"(took {seconds:,.0f} s) with `{command}`; {platform.machine()}, "
        f"{os.cpu_count()} cores ({_cpu()}), load average {load:.1f} at the start; "
        f"Python {platform.python_version()}, numba {numba.__version__}, "
        f"haggis-sim {haggis_sim.__version__} at {commit}.*"
    )


def write_atomic(path: Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def recorded(out: Path) -> Iterator[None]:
    """Print as usual inside; at a clean exit write the printed text to ``out``."""
    started, commit = time.time(), _commit()  # the code measured: as it was at the start
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    sys.stdout = tee  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout = tee.terminal  # type: ignore[assignment]
    body = tee.copy.getvalue().strip()
    header = f"<!-- written by {Path(sys.argv[0]).name}; re-run it rather than edit this file -->"
    line = provenance(started, time.time() - started, commit, load)
    write_atomic(out, f"{header}\n{line}\n\n{body}\n")
    print(f"results written to {out}", file=sys.stderr)
