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
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
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


def one_core() -> None:
    """Pin this process to the first core it may use (where the OS allows it), so a
    figure "on one core" is one."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


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


def provenance(started: float, seconds: float, commit: str, load: float) -> str:
    """One line: the exact command, when, how long, on what (``load``: the load average
    when it started), with which versions (``commit``: the checkout when it started).
    "On what" names the CPU model and the target numba compiles for (LLVM's host CPU
    name, e.g. ``znver4``): two machines with one model name can differ in vector width
    (AVX-512 or not), and the compiled players' speed with it."""
    import numba
    from llvmlite import binding as llvm

    import haggis_sim
    from haggis_sim.training.environment import cpu_model

    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    command = shlex.join(["python", script, *sys.argv[1:]])
    return (
        f"*Measured {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))} "
        f"(took {seconds:,.0f} s) with `{command}`; {platform.machine()}, "
        f"{os.cpu_count()} cores ({cpu_model()}, compiled for {llvm.get_host_cpu_name()}), "
        f"load average {load:.1f} at the start; "
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


def process_tree_rss(pid: int) -> list[int]:
    """Resident bytes of a process and of each of its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    sizes = []
    stack = [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(int(line.split()[1]) * 1024)
        except OSError:
            pass
    return sizes


@dataclass
class Watched:
    """One command as :func:`run_watched` saw it."""

    seconds: float
    returncode: int
    stdout: bytes
    stderr: bytes
    peak_tree: int = 0  # bytes: the largest sum of resident memory over the process tree
    peak_process: int = 0  # bytes: the largest resident memory of one of its processes
    loads: list[float] = field(default_factory=list)  # 1-minute load average, every 5 s


def run_watched(
    command: list[str], env: dict[str, str] | None = None, stdout: int = subprocess.PIPE
) -> Watched:
    """Run ``command`` to its end, sampling its process tree's memory every 0.2 s (the
    client and its workers) and the machine's load every 5 s."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE)
    seen = Watched(0.0, 0, b"", b"")
    done = threading.Event()

    def sample() -> None:
        ticks = 0
        while not done.is_set():
            sizes = process_tree_rss(proc.pid)
            if sizes:
                seen.peak_tree = max(seen.peak_tree, sum(sizes))
                seen.peak_process = max(seen.peak_process, max(sizes))
            if ticks % 25 == 0:
                seen.loads.append(os.getloadavg()[0])
            ticks += 1
            done.wait(0.2)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    out, err = proc.communicate()
    done.set()
    thread.join()
    seen.seconds = time.perf_counter() - t0
    seen.returncode, seen.stdout, seen.stderr = proc.returncode, out or b"", err or b""
    return seen
