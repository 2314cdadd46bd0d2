"""Re-make the docs' screenshots from committed inputs with headless Chromium.

* ``docs/experiment-page.png``: the first screen (1280x900) of the bomb-timing experiment
  page, rendered afresh from the committed ``reports/bomb-timing/summary.json`` and
  ``experiments/bomb-timing.toml`` (labels, head-to-head arms) into a temporary folder;
* with ``--play`` also ``docs/play.png`` (a real ``haggis-sim play`` session, see
  ``docs/play_screenshot.py``; needs pexpect);
* with ``--show`` also ``docs/show.png``: step 40 of game 1 of ``haggis-sim run -s
  mcts,heuristic -n 2 --seed 0`` in ``haggis-sim show --alternatives`` (1280x960), played
  afresh by today's code into a temporary folder.

Run from the repository root: ``python docs/screenshots.py [--play] [--show]`` (needs
chromium).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from haggis_sim.experiment import load_experiment
from haggis_sim.experiment.page import write_experiment_page
from haggis_sim.experiment.summary import with_spec

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = "bomb-timing"
WIDTH, HEIGHT = 1280, 900


def chromium() -> str:
    """Chromium's executable, or exit with one line saying it is missing."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("screenshots.py: chromium is not installed (apt-get install chromium)")
    return exe


def experiment_page(out: Path) -> None:
    """Render the experiment page into a temporary folder and photograph its first screen
    into ``out``."""
    summary = json.loads((ROOT / "reports" / EXPERIMENT / "summary.json").read_text())
    exp = load_experiment(ROOT / "experiments" / f"{EXPERIMENT}.toml")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        write_experiment_page(with_spec(summary, exp), site, {"files": []}, None)
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={Path(tmp) / 'profile'}", f"--screenshot={out}",
               f"--window-size={WIDTH},{HEIGHT}", (site / "index.html").as_uri()]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    print(out)


def show_page(out: Path, step: int = 40) -> None:
    """Play the viewer's game with today's code and photograph step ``step`` of its page
    (the page opens at the step named in its URL's fragment) into ``out``."""
    cli = [sys.executable, "-m", "haggis_sim.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "game.html"  # the run as the caption names it: runs/mcts-demo
        play = ["run", "-s", "mcts,heuristic", "-n", "2", "--seed", "0", "--out", "runs/mcts-demo"]
        subprocess.run([*cli, *play], check=True, capture_output=True, cwd=tmp)
        subprocess.run([*cli, "show", "runs/mcts-demo", "1", "--alternatives", "--out",
                        str(page)], check=True, capture_output=True, cwd=tmp)  # fmt: skip
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={Path(tmp) / 'profile'}", f"--screenshot={out}",
               f"--window-size={WIDTH},960", f"{page.as_uri()}#{step}"]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    print(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", action="store_true", help="also re-make docs/play.png")
    parser.add_argument("--show", action="store_true", help="also re-make docs/show.png")
    args = parser.parse_args()
    experiment_page(ROOT / "docs" / "experiment-page.png")
    if args.show:
        show_page(ROOT / "docs" / "show.png")
    if args.play:
        sys.path.insert(0, str(ROOT / "docs"))
        import play_screenshot

        play_screenshot.main()


if __name__ == "__main__":
    main()
