"""Make docs/play.png: a real `haggis-sim play --vs mcts` session, as a terminal shows it.

The session runs in a pseudo-terminal (pexpect), its output (ANSI colours included) is
rendered by rich into an SVG and photographed by headless Chromium. Run from the
repository root: ``python docs/play_screenshot.py`` (needs pexpect and /usr/bin/chromium).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pexpect
from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "your move> "


def session(out_dir: Path) -> str:
    """The terminal output of a session: the first decision, a hint, a play, a bet."""
    env = dict(os.environ, COLUMNS="100", LINES="60", TERM="xterm-256color")
    exe = str(Path(sys.executable).with_name("haggis-sim"))
    args = ["play", "--vs", "mcts", "--seed", "3", "--out", str(out_dir / "game")]
    child = pexpect.spawn(exe, args, env=env, encoding="utf-8", timeout=300, dimensions=(60, 100))
    child.expect(PROMPT)
    text = child.before + PROMPT
    for line in ("hint", "7b"):
        child.sendline(line)
        child.expect(PROMPT)
        text += child.before + PROMPT  # the terminal echoes the typed line
    child.sendline("quit")
    child.expect(pexpect.EOF)
    return text.replace("\r\n", "\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        console = Console(record=True, width=100, file=open(os.devnull, "w"))  # noqa: SIM115
        console.print(Text.from_ansi(session(Path(tmp))))
        svg = Path(tmp) / "play.svg"
        svg.write_text(console.export_svg(title="haggis-sim play --vs mcts"))
        page = Path(tmp) / "play.html"
        page.write_text("<body style='margin:0'><img src='play.svg' width=1000></body>")
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--hide-scrollbars",
             f"--screenshot={ROOT / 'docs' / 'play.png'}", "--window-size=1000,1090",
             page.as_uri()],
            check=True, capture_output=True,
        )  # fmt: skip
    print(ROOT / "docs" / "play.png")


if __name__ == "__main__":
    main()
