"""Without the [rl] extra the environments say what to install, in one line; the action
table and the observation layout still work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
sys.modules["{blocked}"] = None  # as if the package were not installed
import haggis_sim.env as env
assert env.describe_action(0) == "pass" and env.n_actions(2) > 6
from haggis_sim.env import encode
assert encode.SIZE > 0
try:
    env.{name}
except ImportError as exc:
    import haggis_sim as hs
    assert type(exc).__name__ == "MissingExtraError" and isinstance(exc, hs.InputError)
    assert "\\n" not in str(exc)
    print(exc)
else:
    raise SystemExit("no error")
"""


@pytest.mark.slow  # a fresh interpreter without the extra
def test_a_missing_extra_is_named_with_the_install_command() -> None:
    for blocked, name in (("pettingzoo", "raw_env"), ("gymnasium", "HaggisGymEnv")):
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT.format(blocked=blocked, name=name)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == (
            f"haggis_sim.env needs the [rl] extra ({blocked} is not installed): "
            "from a clone of the repository, pip install -e '.[rl]'"
        )


def test_the_rl_example_without_the_extra_says_so_in_one_line() -> None:
    block = (
        "import sys, runpy; sys.modules['pettingzoo'] = None; sys.argv = ['rl.py', '1']; "
        "runpy.run_path('docs/examples/rl.py', run_name='__main__')"
    )
    out = subprocess.run(
        [sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip() == (
        "error: haggis_sim.env needs the [rl] extra (pettingzoo is not installed): "
        "from a clone of the repository, pip install -e '.[rl]'"
    )
