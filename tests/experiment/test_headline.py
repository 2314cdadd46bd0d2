"""The first screen's headline and table say no more than the intervals do, in plain words.

Checked on every shipped summary and on planted ones: an A/A-like summary (every
interval holds 0) must say that nothing changed measurably; a planted change must be
named with its direction in a player's words; the headline stays within 30 words and
without statistical vocabulary."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from haggis_sim.experiment import load_experiment
from haggis_sim.experiment.headline import (
    JARGON,
    MAX_WORDS,
    PLAIN,
    effect_table,
    headline,
    top_summary,
)
from haggis_sim.experiment.separation import sign
from haggis_sim.experiment.summary import with_spec

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))


def shipped(name: str) -> dict[str, Any]:
    summary = json.loads((ROOT / "reports" / name / "summary.json").read_text())
    return with_spec(summary, load_experiment(ROOT / "experiments" / f"{name}.toml"))


def plain_words(text: str) -> list[str]:
    return [w for w in JARGON if re.search(rf"\b{w}s?\b", text.lower())]


@pytest.mark.parametrize("name", NAMES)
def test_shipped_headlines_are_short_and_plain(name: str) -> None:
    text = headline(shipped(name))
    assert len(text.split()) <= MAX_WORDS, text
    assert not plain_words(text), text


@pytest.mark.parametrize("name", NAMES)
def test_shipped_table_cells_follow_the_intervals(name: str) -> None:
    summary = shipped(name)
    top, _ = top_summary(summary)
    header, rows = effect_table(summary)
    assert len(header) >= 2 and rows
    labels = [label for label, _ in rows]
    metric = top["metric"]
    by_label = {r["arm"]: r for r in top["results"][metric]["rows"]}
    from haggis_sim.experiment.verdicts import arm_labels

    name_of = {v: k for k, v in arm_labels(top).items()}
    for label, cells in rows:
        d = by_label[name_of[label]]["vs_first"]
        said = cells[0].text
        if sign(d) == 0:
            assert said == "no measurable difference", (label, said, d)
        else:
            assert said.startswith("+" if sign(d) > 0 else "-"), (label, said, d)
            plain = PLAIN[metric]
            assert (plain.up if sign(d) > 0 else plain.down) in said, (label, said)
    assert len(set(labels)) == len(labels)


def _straddle(summary: dict[str, Any]) -> dict[str, Any]:
    """``summary`` with every difference's interval widened to hold 0 (an A/A world)."""
    out = copy.deepcopy(summary)
    top, _ = top_summary(out)
    for res in top["results"].values():
        res.pop("top", None)
        for row in res["rows"][1:]:
            d = row.get("vs_first") or {}
            if d.get("diff") is not None:
                d["low"], d["high"] = -abs(d["diff"]) - 0.01, abs(d["diff"]) + 0.01
    return out


def test_nothing_separable_says_nothing_changed() -> None:
    summary = _straddle(shipped("scoring-rules"))
    text = headline(summary)
    assert "no variant measurably changes comebacks" in text, text
    _, rows = effect_table(summary)
    assert all(c.text == "no measurable difference" for _, cells in rows for c in cells)


def test_a_planted_change_is_named_with_its_direction() -> None:
    summary = _straddle(shipped("scoring-rules"))
    top, _ = top_summary(summary)
    row = top["results"]["ahead_r1_win"]["rows"][1]
    row["vs_first"].update(diff=-0.031, low=-0.045, high=-0.017)
    text = headline(summary)
    assert "-3.1 points (more comebacks)" in text, text
    _, rows = effect_table(summary)
    assert rows[0][1][0].text == "-3.1 points (more comebacks)"
    assert rows[0][1][0].tone == "better"  # goal min: fewer wins for the leader is better
