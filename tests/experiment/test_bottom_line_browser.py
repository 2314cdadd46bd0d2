"""Each shipped experiment's page leads with its answer, as a reader sees it in Chromium.

For every experiment file in ``experiments/`` the page is rendered afresh from the
committed ``reports/<name>/summary.json`` (with the file's labels and head-to-head arms,
:func:`~haggis_sim.experiment.summary.with_spec`) into a temporary folder, loaded in
headless Chromium 1280 px wide, and the bottom-line box must end within the first 800 px
(its top plus its height) and state a number with an interval (``[a, b]``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser_helpers import WIDTH, browser_check

from haggis_sim.experiment import load_experiment
from haggis_sim.experiment.page import write_experiment_page
from haggis_sim.experiment.summary import with_spec

ROOT = Path(__file__).resolve().parents[2]
FIRST_SCREEN = 800  # px: the box must end above this (a 1280x800 screen)
NAMES = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))
#: a number, then an interval of two numbers: "8.9% [7.8%, 10.3%]", "-0.2 points [-3.3, +2.9]"
INTERVAL = re.compile(r"\d[^\[\]]*\[[-+]?\d[\d.,]*%?, [-+]?\d[\d.,]*%?\]")

CHECK = """<script>window.addEventListener('load', function () {
  var box = document.getElementById('bottom-line');
  var r = box ? box.getBoundingClientRect() : null;
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify({
    bottom: r ? r.top + window.scrollY + r.height : null,
    text: box ? box.textContent : null, innerWidth: window.innerWidth});
  document.body.appendChild(pre);
});</script>"""


def render(name: str, out: Path) -> Path:
    """The page of experiment ``name`` from its committed summary, in ``out``."""
    summary = json.loads((ROOT / "reports" / name / "summary.json").read_text())
    exp = load_experiment(ROOT / "experiments" / f"{name}.toml")
    out.mkdir()
    write_experiment_page(with_spec(summary, exp), out, {"files": []}, None)
    return out / "index.html"


def test_every_shipped_experiment_has_a_summary() -> None:
    assert NAMES and all((ROOT / "reports" / n / "summary.json").is_file() for n in NAMES)


@pytest.mark.browser
@pytest.mark.parametrize("name", NAMES)
def test_bottom_line_in_the_first_screen(name: str, tmp_path: Path) -> None:
    page = render(name, tmp_path / "site")
    page.write_text(page.read_text().replace("</body>", CHECK + "</body>"))
    got = browser_check(page, tmp_path)
    assert got["innerWidth"] == WIDTH, got
    assert got["bottom"] is not None, f"{name}: no bottom-line box"
    assert got["bottom"] <= FIRST_SCREEN, f"{name}: the bottom line ends too low: {got}"
    assert INTERVAL.search(got["text"]), f"{name}: no number with an interval: {got['text']}"
