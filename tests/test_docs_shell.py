"""The shell blocks of Getting started and the Tutorial run as printed, in a shell where
the project's environment is active, as the pages tell a reader to set one up.

Getting started's install block runs in a fresh copy of the repository's tracked files
(a new virtual environment, ``pip install -e .`` from PyPI); every later block runs in
a bash session of its own that has run the page's ``source .venv/bin/activate`` first
(reaching the environment the tests run in), in a scratch folder that holds the files
the commands name. The one block the page says is scaled down (the shipped
scoring-rules ladder) runs on a copy of its file with 100 games a variant on each rung."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ("getting-started.md", "tutorial.md")
INSTALL = "python3 -m venv .venv && .venv/bin/pip install -e ."
SCALED_GAMES = 100  # what getting-started.md says the tests play of scoring-rules


def shell_blocks(page: str) -> list[str]:
    """The fenced blocks of a page that have no language or a shell one."""
    text = (DOCS / page).read_text()
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    return [body.strip() for lang, body in blocks if lang in ("", "sh", "bash", "console")]


def test_the_pages_have_the_blocks_these_tests_run() -> None:
    started = shell_blocks("getting-started.md")
    assert started[0] == INSTALL
    assert started[1] == "source .venv/bin/activate"
    assert f"{SCALED_GAMES} games a variant" in (DOCS / "getting-started.md").read_text()
    commands = [
        line for page in PAGES for block in shell_blocks(page) for line in block.splitlines()
    ]
    # after the install, every command is written for the activated shell
    assert all(not line.startswith(".venv/") for line in commands[2:]), commands


def test_the_readme_commands_are_the_ones_getting_started_runs() -> None:
    """The README's quick start and experiment commands are Getting started's blocks,
    which the test below runs: the README's own runs are tested there."""
    readme = (ROOT / "README.md").read_text()
    started = shell_blocks("getting-started.md")
    quick = f"{INSTALL} && .venv/bin/{started[2]}"
    assert re.search(rf"^{re.escape(quick)}$", readme, flags=re.M), quick
    experiments = re.findall(r"^\.venv/bin/(haggis-sim experiment \S+)$", readme, flags=re.M)
    assert experiments == [started[3]], experiments


def _tracked_copy(dest: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            target = dest / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.mark.slow
def test_getting_started_install_block_installs_from_a_clone(tmp_path: Path) -> None:
    clone = tmp_path / "haggis-sim"
    _tracked_copy(clone)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    done = subprocess.run(
        ["bash", "-ec", INSTALL], cwd=clone, env=env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stderr[-3000:]
    version = subprocess.run(
        [str(clone / ".venv" / "bin" / "haggis-sim"), "version"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert version.returncode == 0, version.stderr[-3000:]
    assert re.search(r"\d+\.\d+", version.stdout), version.stdout


def _scaled(toml: str) -> str:
    return re.sub(r"^games = \d+", f"games = {SCALED_GAMES}", toml, flags=re.MULTILINE)


#: every block after the install and ``source``, each with what it leaves in its folder
LATER = shell_blocks("getting-started.md")[2:] + shell_blocks("tutorial.md")
WRITES = {
    "haggis-sim run --strategies heuristic,greedy --games 1e5": "runs/*-heuristic-greedy",
    "haggis-sim experiment experiments/scoring-rules.toml": (
        "runs/experiments/scoring-rules/index.html"
    ),
    "haggis-sim experiment docs/examples/haggis-to.toml": "runs/experiments/haggis-to/index.html",
}


def test_the_later_blocks_are_the_ones_whose_output_is_checked() -> None:
    assert set(WRITES) <= set(LATER), LATER


@pytest.mark.slow
@pytest.mark.parametrize("block", LATER, ids=range(len(LATER)))
def test_every_later_shell_block_runs_as_printed(tmp_path: Path, block: str) -> None:
    """Each block in a bash session that has run ``source .venv/bin/activate`` first."""
    assert sys.prefix != sys.base_prefix, "run the tests from the project's virtual environment"
    (tmp_path / ".venv").symlink_to(sys.prefix)
    (tmp_path / "experiments").mkdir()
    scoring = (ROOT / "experiments" / "scoring-rules.toml").read_text()
    (tmp_path / "experiments" / "scoring-rules.toml").write_text(_scaled(scoring))
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    activate = shell_blocks("getting-started.md")[1]
    script = f"set -euo pipefail\n{activate}\n{block}\n"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV",)}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # the environment comes from `source` alone
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    if block in WRITES:
        assert len(list(tmp_path.glob(WRITES[block]))) == 1, block
