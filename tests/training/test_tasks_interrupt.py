"""Workers killed on Ctrl-C: loky's manager thread of the killed executor may raise
while the command exits (a call it was queueing is gone); that must not print a
traceback after the command's one line, and other threads' errors still print."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import threading
from haggis_sim.training.tasks import _silence

def fail(what):
    raise KeyError(what)

killed = threading.Thread(target=fail, args=("killed",), name="ExecutorManagerThread")
other = threading.Thread(target=fail, args=("other",), name="ExecutorManagerThread")
_silence(killed)
_silence(None)  # an executor without a manager thread
for t in (killed, other):
    t.start()
    t.join()
"""


def test_only_the_killed_executors_manager_is_silenced() -> None:
    res = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("Traceback") == 1, res.stderr
    assert "KeyError: 'other'" in res.stderr and "'killed'" not in res.stderr
