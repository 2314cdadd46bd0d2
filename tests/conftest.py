"""Shared fixtures: numba compiles (or loads from cache) once per session."""

from __future__ import annotations

import os
import signal
import sys

import pytest
from hypothesis import settings

# pytest keeps each test module's assertion rewrite as bytecode in the (git-ignored)
# __pycache__ folders beside it and reuses it while the module is unchanged; where
# PYTHONDONTWRITEBYTECODE is set it would rewrite every module in every worker of every
# run instead (6 s of a worker's 10 s collection on the 2-core machine)
sys.dont_write_bytecode = False

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A session on an empty cache compiles the engine as its tests go: the Python API's note
# that it compiles (haggis_sim.compile_notes) would land in the output of whichever test
# (or process it starts) compiles first. Off here; the tests of the notes turn them on.
os.environ["HAGGIS_SIM_COMPILE_NOTES"] = "0"

# The folders below tests/ mirror the packages. The strategies' tests live in
# tests/strategy/, not tests/strategies/: tests/ is on sys.path (the shared helpers), and
# a folder named like the top-level ``strategies`` package would shadow it as a namespace
# package wherever the repository root is not on sys.path (bare ``pytest``, helper scripts).


@pytest.fixture(autouse=True)
def _sigint_as_from_a_terminal() -> None:
    """Every test starts as from a terminal, however the session was started and whatever
    an earlier test left: SIGINT raises KeyboardInterrupt here, and every child starts
    with SIGINT at its default (so a child Python installs its own handler). A session
    started as a background job inherits SIGINT ignored, which children would inherit in
    turn, and a test that presses Ctrl-C on a command would wait for one that never stops."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
