"""Old code against new: a pristine copy of a revision, and a script's child run on a tree.

Benchmarks that compare two versions of the code (``bench_mcts.py``,
``bench_speedup.py``) measure each in a fresh subprocess whose ``PYTHONPATH`` is one
tree: the working tree, or :func:`export`'s copy of a revision. The child is the same
script with ``--child`` and its arguments; it prints one JSON line last, which
:func:`run_child` returns; :func:`old_and_new` holds the two trees for a measurement.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def export(rev: str) -> Path:
    """A pristine copy of the repository at ``rev`` in a temporary folder."""
    dest = Path(tempfile.mkdtemp(prefix=f"haggis-{rev[:8]}-"))
    data = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.seek(0)
        with tarfile.open(fileobj=f) as tar:
            tar.extractall(dest, filter="data")
    return dest


@contextmanager
def old_and_new(rev: str) -> Iterator[dict[str, Path]]:
    """The trees to compare: ``old``, :func:`export`'s copy of ``rev`` (removed on the way
    out, however the measurement ends), and ``new``, the working tree."""
    old = export(rev)
    try:
        yield {"old": old, "new": ROOT}
    finally:
        shutil.rmtree(old, ignore_errors=True)


def run_child(script: str, tree: Path, args: list[str]) -> dict[str, Any]:
    """Run ``script`` (a path) ``--child ARGS`` on ``tree``; its last line, parsed."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, str(Path(script).resolve()), "--child", *args],
        cwd=tree, env=env, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])
