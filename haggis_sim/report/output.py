"""Where the report may write: its marker, its error, and the checks on ``--out``.

A report folder is an owned folder (:mod:`haggis_sim.outputs`): its marker
:data:`MARKER` lists every file and folder the report wrote, so ``--force`` replaces an
earlier report only when the folder holds nothing else. No output goes inside a run
folder (its manifest) or a report folder (its marker).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Literal

from .. import __version__, outputs
from ..errors import InputError
from ..logs.manifest import MANIFEST
from ..outputs import OutState, Refuse

Format = Literal["html", "png"]
MARKER = ".haggis-sim-report.json"


class ReportError(InputError):
    """Bad input to the report: a missing folder, or a folder that is not a run."""


GUARDED = ((MANIFEST, "run"), (MARKER, "report"))
"""The folders that keep only their own files: no tool output goes inside one."""

REPORT = outputs.OwnedFolder("report", MARKER, ReportError, "--out", GUARDED)


def check_parents(out: Path, option: str, refuse: Refuse) -> None:
    """Refuse (``refuse``) an ``out`` under a file, or inside a run or report folder.

    A run folder keeps only the run's own files and a report folder only what the report
    wrote (so ``--force`` can replace it), so no tool output goes inside either.
    """
    outputs.check_parents(out, option, refuse, GUARDED)


def check_out(out: Path, force: bool = False) -> OutState:
    """How the report may write ``out``: ``new``, ``empty`` (an empty folder) or ``replace``.

    Raises ReportError for every other ``out``: a file or symbolic link, a path under a
    file or inside a run or report folder, a run folder, a non-empty folder that is not a
    report, an earlier report without ``force``, and (with ``force``) a report folder
    holding anything its report did not write. Changes nothing.
    """
    return outputs.check_folder(out, REPORT, force)


def read_marker(folder: Path) -> dict[str, Any]:
    """The report marker of ``folder``; ReportError when it cannot be read."""
    return outputs.read_marker(folder, REPORT)


def write_marker(folder: Path, run_dirs: list[Path], fmt: Format) -> None:
    """Write the report's marker into the finished report folder ``folder``."""
    outputs.write_marker(
        folder,
        MARKER,
        {
            "tool": "haggis-sim",
            "kind": "report",
            "version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "format": fmt,
            "runs": [str(Path(os.path.abspath(d))) for d in run_dirs],
        },
    )
