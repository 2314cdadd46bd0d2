"""The command's processes keep loky's resource-tracker warnings off the terminal: after
workers are killed on Ctrl-C they would print after the command's last line."""

from __future__ import annotations

import subprocess
import sys

from haggis_sim.cli.app import QUIET_TRACKER, quiet_resource_tracker

# a semaphore registered and never unregistered, as a worker killed mid-call leaves it:
# the tracker, at its exit, warns twice (a leak, then the failed unlink of the fake name)
LEAK = """
import os
from haggis_sim.cli.app import quiet_resource_tracker
if os.environ.get("QUIET") == "1":
    quiet_resource_tracker(os.environ)
from joblib.externals.loky.backend import resource_tracker
resource_tracker.register("/haggis-sim-test-leak", "semlock")
"""


def _stderr(quiet: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "QUIET": quiet}
    # communicate() waits for the tracker too: it holds the inherited stderr until it exits
    done = subprocess.run([sys.executable, "-c", LEAK], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_the_trackers_warnings_are_silenced_and_only_they() -> None:
    assert "leaked semlock" in _stderr("0")  # what the filter is for
    assert _stderr("1") == ""
    env = {"PYTHONWARNINGS": "error::DeprecationWarning"}
    quiet_resource_tracker(env)
    quiet_resource_tracker(env)  # once only
    assert env["PYTHONWARNINGS"] == f"error::DeprecationWarning,{QUIET_TRACKER}"
