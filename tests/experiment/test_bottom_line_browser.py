"""Each shipped experiment's page opens with its answer, as a reader sees it in Chromium.

For every experiment file in ``experiments/`` the page is rendered afresh from the
committed ``reports/<name>/summary.json`` (with the file's labels and head-to-head arms,
:func:`~haggis_sim.experiment.summary.with_spec`) into a temporary folder and loaded in
headless Chromium in a 1400 x 900 window: the headline, the table of changes and the
answer's figure must all end within that first screen, the headline must be plain
(at most 30 words, none of the statistical words), and the bottom line with its
intervals must still be on the page, folded under "How sure are we?".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser_helpers import browser_check

from haggis_sim.experiment import load_experiment
from haggis_sim.experiment.headline import JARGON, MAX_WORDS
from haggis_sim.experiment.page import write_experiment_page
from haggis_sim.experiment.summary import with_spec

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (1400, 900)  # px: the first screen the issue names
NAMES = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))
#: a number, then an interval of two numbers: "8.9% [7.8%, 10.3%]", "-0.2 points [-3.3, +2.9]"
INTERVAL = re.compile(r"\d[^\[\]]*\[[-+]?\d[\d.,]*%?, [-+]?\d[\d.,]*%?\]")

CHECK = """<script>window.addEventListener('load', function () {
  function end(id) {
    var e = document.getElementById(id);
    if (!e) return null;
    var r = e.getBoundingClientRect();
    return r.height > 0 ? r.top + window.scrollY + r.height : null;
  }
  var img = document.getElementById('answer-figure');
  var sure = document.getElementById('how-sure');
  var box = document.getElementById('bottom-line');
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify({
    headline: end('headline'), table: end('changes'), figure: end('answer-figure'),
    figure_loaded: img ? img.complete && img.naturalWidth > 0 : false,
    headline_text: (document.getElementById('headline') || {}).textContent || null,
    folded: sure ? !sure.open && sure.contains(box) : false,
    bottom_text: box ? box.textContent : null, innerWidth: window.innerWidth});
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
def test_the_answer_fills_the_first_screen(name: str, tmp_path: Path) -> None:
    page = render(name, tmp_path / "site")
    page.write_text(page.read_text().replace("</body>", CHECK + "</body>"))
    got = browser_check(page, tmp_path, *SCREEN)
    assert got["innerWidth"] == SCREEN[0], got
    for part in ("headline", "table", "figure"):
        assert got[part] is not None, f"{name}: no {part} on the page: {got}"
        assert got[part] <= SCREEN[1], f"{name}: the {part} ends below the first screen: {got}"
    assert got["figure_loaded"], f"{name}: the answer's figure did not load"
    words = got["headline_text"].split()
    assert len(words) <= MAX_WORDS, got["headline_text"]
    said = got["headline_text"].lower()
    assert not [w for w in JARGON if re.search(rf"\b{w}s?\b", said)], got["headline_text"]
    assert got["folded"], f"{name}: the bottom line is not folded under 'How sure are we?'"
    assert INTERVAL.search(got["bottom_text"]), f"{name}: no interval: {got['bottom_text']}"
