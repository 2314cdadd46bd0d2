"""Screenshots of each shipped report's first screen, as a reader sees it (1400 x 900).

Run from the repository root after the reports change::

    python docs/take_screenshots.py

Loads ``reports/<name>/index.html`` for every experiment file in ``experiments/`` in
headless Chromium and writes ``docs/screenshots/<name>.png``, which the docs show
(Reports and experiments). The browser tests check the same screen's contents
(``tests/experiment/test_bottom_line_browser.py``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SCREEN = (1400, 900)


def main() -> int:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        print("error: chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    for toml in sorted((ROOT / "experiments").glob("*.toml")):
        page = ROOT / "reports" / toml.stem / "index.html"
        if not page.is_file():
            print(f"error: {page} is missing: run the experiment first", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory() as profile:
            target = OUT / f"{toml.stem}.png"
            subprocess.run(
                [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 f"--user-data-dir={profile}", f"--window-size={SCREEN[0]},{SCREEN[1]}",
                 f"--screenshot={target}", page.as_uri()],
                check=True, capture_output=True, timeout=180,
            )  # fmt: skip
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
