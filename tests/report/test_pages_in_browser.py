"""Every shipped report, and one built fresh, as a reader sees it in headless Chromium.

For each page: every ``<img>`` loaded (``naturalWidth > 0``), no horizontal overflow of the
page at a 1280 px wide window (``scrollWidth <= innerWidth``: wide tables scroll inside
their own box), and on an experiment's page the answer's headline starts within the
first screen (its top above 800 px in a 1280x900 window; its whole first screen is
checked by ``tests/experiment/test_bottom_line_browser.py``).

The check runs in a copy of the page's folder: the page is copied with a small script
appended that writes the measurements into the DOM, which ``chromium --dump-dom`` prints.
The shipped pages themselves carry no test code.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import WIDTH, browser_check

from haggis_sim.experiment import load_experiment, run_experiment

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"
FIRST_SCREEN = 800  # px: the answer's headline must start above this

pytestmark = pytest.mark.browser

CHECK = """<script>window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var headline = document.getElementById('headline');
  var out = {
    images: imgs.length,
    broken: imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                .map(function (i) { return i.getAttribute('src'); }),
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    headlineTop: headline ? headline.getBoundingClientRect().top : null
  };
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});</script>"""


def measure(page: Path, tmp: Path) -> dict[str, Any]:
    """Load a copy of ``page`` (its folder copied, the check script appended) and return
    what the script measured."""
    copy = tmp / "site"
    shutil.copytree(page.parent, copy, ignore=shutil.ignore_patterns("*.parquet"))
    target = copy / page.name
    text = page.read_text(encoding="utf-8")
    target.write_text(text.replace("</body>", CHECK + "</body>"), encoding="utf-8")
    return browser_check(target, tmp)


def check(page: Path, tmp: Path, experiment: bool) -> None:
    got = measure(page, tmp)
    assert got["images"] > 0, f"{page}: no figures"
    assert not got["broken"], f"{page}: images not loaded: {got['broken']}"
    assert got["innerWidth"] == WIDTH, got
    assert got["scrollWidth"] <= got["innerWidth"], f"{page}: the page overflows sideways: {got}"
    if experiment:
        assert got["headlineTop"] is not None, f"{page}: no headline"
        assert got["headlineTop"] < FIRST_SCREEN, f"{page}: the answer starts too low: {got}"


SHIPPED = sorted(REPORTS.glob("*/experiment.toml"))


@pytest.mark.parametrize("name", [p.parent.name for p in SHIPPED])
def test_shipped_experiment_page(name: str, tmp_path: Path) -> None:
    check(REPORTS / name / "index.html", tmp_path, experiment=True)


@pytest.mark.parametrize("name", [p.parent.name for p in SHIPPED])
def test_shipped_full_report(name: str, tmp_path: Path) -> None:
    check(REPORTS / name / "report" / "index.html", tmp_path, experiment=False)


TINY = """
name = "tiny"
question = "Does bombing early beat bombing late against greedy? A tiny run for the browser test."
games = 20
seed = 3
players = 2
strategies = ["heuristic:bomb=late", "greedy"]
metric = "win_rate"
also = ["score", "margin"]
chunk_size = 10

[[arms]]
name = "late"

[[arms]]
name = "early"
strategies = ["heuristic:bomb=early", "greedy"]
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fresh")
    (base / "tiny.toml").write_text(TINY)
    run_experiment(load_experiment(base / "tiny.toml"), base / "exp", jobs=1)
    return base / "exp"


def test_fresh_experiment_page(fresh: Path, tmp_path: Path) -> None:
    check(fresh / "index.html", tmp_path, experiment=True)


def test_fresh_full_report(fresh: Path, tmp_path: Path) -> None:
    check(fresh / "report" / "index.html", tmp_path, experiment=False)
