"""Every page kind escapes what reaches it from outside (haggis_sim.pages' autoescape).

A strategy plug-in's name, a run folder's name or an experiment's question can hold any
text; on a page it must read as text, never as markup. Each page kind is rendered with
such a value in every place one can reach, and must hold it only escaped (as
:func:`html.escape` writes it) and never raw. In the game viewer's JSON data block the
value is escaped as JSON for a script block (``\\u003c``) instead.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import polars as pl
import pytest

from haggis_sim.analytics.compare import (
    CompareRow,
    Comparison,
    Difference,
    Estimate,
    compare_section_html,
)
from haggis_sim.counterfactual.game_page import render_page
from haggis_sim.experiment import page as experiment_page
from haggis_sim.logs.manifest import Manifest, RunSettings, StrategyEntry
from haggis_sim.pages import render, script_json
from haggis_sim.report import page_html
from haggis_sim.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
EVIL = "<script>alert(1)</script>"
QUOTED = "x' onload='alert(2)"  # would leave a quoted attribute if quotes were not escaped


def assert_escaped(page: str, *values: str) -> None:
    """Each value appears on the page only escaped (and at least once)."""
    for value in values:
        assert value not in page, f"{value!r} reached the page raw"
        assert html.escape(value) in page, f"{value!r} is not on the page"


def test_report_page_escapes_specs_notices_and_run_folders() -> None:
    spec = f"plugin{EVIL}"
    tables = {
        name: pl.DataFrame({"strategy": [spec], "win_rate": [0.5]})
        for name in ("strategies", "points", "pairs", "bet_outcomes", "bomb_timing")
    }
    rules = Rules.preset("revised", players=2)
    manifest = Manifest(
        format=3, seating="rotate", command=QUOTED, version="0", created="",
        config=RunSettings(strategies=[spec], games=10, rules=rules.as_dict(), command=QUOTED),
        config_digest=None, rules=rules, strategies=(StrategyEntry(spec, "plugin", {}),),
        players=2, seed=0, games=10, ledger=None, schema={}, status="complete",
    )  # fmt: skip
    page = page_html([Path(f"runs/{EVIL}")], [manifest], [f"notice {EVIL}"], tables, {}, 10)
    assert_escaped(page, spec, QUOTED, f"notice {EVIL}", f"runs/{EVIL}")


def _comparison() -> Comparison:
    est = Estimate(0.5, 0.4, 0.6, 10, 0.1)
    row = CompareRow("win_rate", f"win rate of {EVIL}", "win_rate_0", est, est,
                     Difference(0.1, 0.05, 0.15, 10, True))  # fmt: skip
    return Comparison(f"runs/{EVIL}", "runs/b", QUOTED, "classic", [EVIL], ["greedy"],
                      True, f"paired {EVIL}", [row])  # fmt: skip


def test_compare_fragment_escapes_run_names_specs_and_labels() -> None:
    fragment = compare_section_html(_comparison())
    assert_escaped(fragment, f"runs/{EVIL}", QUOTED, f"win rate of {EVIL}", f"paired {EVIL}")
    assert 'class="significant"' in fragment  # the page's own markup is not escaped


def test_experiment_compare_page_keeps_its_fragments_escaped_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rendered fragment is put on the page as it is: not escaped again, not unescaped."""
    fragment = compare_section_html(_comparison())
    monkeypatch.setattr(experiment_page, "_compare_sections", lambda exp, out: [fragment])

    class Arm:
        name = "first"

    class Exp:
        name = "exp"
        arms = [Arm()]

    page = experiment_page.compare_page(Exp(), Path("."))  # type: ignore[arg-type]
    assert fragment in page
    assert_escaped(page, f"runs/{EVIL}")


def _summary(name: str) -> dict:
    summary = json.loads((ROOT / "reports" / name / "summary.json").read_text())
    summary["question"] = f"When {EVIL}?"
    for study in summary.get("studies", []):
        study["guidance"] = [f"bomb {EVIL}"]
    return summary


def test_experiment_page_escapes_the_question() -> None:
    summary = _summary("betting-thresholds")["populations"][0]["summary"]
    summary["question"] = f"When {EVIL}?"
    summary["studies"] = _summary("betting-thresholds")["studies"]
    page = experiment_page.experiment_page(summary, "fig-forest.png", None)
    assert_escaped(page, f"When {EVIL}?", f"bomb {EVIL}")


def test_population_page_escapes_the_question_and_studies() -> None:
    page = experiment_page.population_page(_summary("betting-thresholds"), {}, "report/index.html")
    assert_escaped(page, f"When {EVIL}?", f"bomb {EVIL}")


def _view() -> dict:
    frame = {"kind": "deal", "round": 0, "head": EVIL, "notes": [EVIL]}
    return {
        "game_id": 3, "run": f"run{EVIL}", "deal_id": 1, "seed": 7, "rules": QUOTED,
        "players": 2, "strategies": [f"plugin{EVIL}", "greedy"], "winner": 0,
        "final": [250, 100], "rounds": [{}], "rule_flags": {"flag": EVIL},
        "notes": [f"note {EVIL}"], "frames": [frame],
        "alternatives": {"seats": [0], "label": f"label {EVIL}"},
    }  # fmt: skip


def test_game_viewer_escapes_page_text_and_its_json_data() -> None:
    page = render_page(_view())
    markup, data = page.split('<script type="application/json" id="game-data">')
    assert_escaped(markup, f"plugin{EVIL}", f"run{EVIL}", QUOTED, f"note {EVIL}", f"label {EVIL}")
    data = data.split("</script>")[0]
    assert "<" not in data and ">" not in data and "&" not in data
    assert json.loads(data)["strategies"][0] == f"plugin{EVIL}"


def test_script_json_cannot_end_its_block() -> None:
    text = str(script_json({"a": "</script><!-- & -->"}))
    assert (
        "</" not in text and "<!--" not in text and json.loads(text) == {"a": "</script><!-- & -->"}
    )


def test_render_refuses_a_missing_value() -> None:
    """StrictUndefined: a value missing from a page's context is an error, not a blank."""
    with pytest.raises(Exception, match="undefined"):
        render("compare.html.j2", rows=[])
