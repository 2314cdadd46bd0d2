"""A study's advice followed in play: which records are played, how a line is classified
and shown, determinism over workers, followed_games = 0, and the [[studies]] keys."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

import haggis_sim as hs
from haggis_sim.experiment import ExperimentError, parse_experiment
from haggis_sim.experiment import page as experiment_page
from haggis_sim.experiment.followed import (
    ADVICE,
    FAILED,
    NOT_TESTED,
    UNCONFIRMED,
    follow_records,
    verdict,
)
from haggis_sim.experiment.studies import guidance_groups, studies_for_page, studies_markdown

RULES = hs.Rules.preset("revised", players=2)
ROOT = Path(__file__).resolve().parents[2]
# bombing whenever possible while the opponent holds 4+ cards: costly by construction
# against a base that never bombs (about -30 to -45 points at 40 games, every seed tried)
BAD = {"kind": "bombs", "bin": {"min_opponent_cards": [4, 17]}, "advice": "bomb"}
NONE = {"kind": "bombs", "bin": {}, "advice": None}
BASES = ["heuristic:bomb=early", "heuristic:bomb=never"]


@pytest.mark.slow  # plays followed-advice studies on worker processes
def test_records_with_advice_are_followed_and_a_losing_one_fails() -> None:
    heard: list[str] = []
    out = follow_records([NONE, BAD], BASES, 40, RULES, 0, jobs=1, say=heard.append, label="s")
    assert out[0] is None  # no advice: nothing played
    follow = out[1]
    assert follow is not None and follow["status"] == FAILED and follow["games"] == 40
    assert [b["base"] for b in follow["bases"]] == BASES
    never = follow["bases"][1]
    assert never["sign"] == -1 and never["high"] < 0 and never["points"] < -10
    assert never["spec"].startswith("heuristic:") and never["advised"].startswith("advised:")
    assert (
        never["text"].startswith("followed: -")
        and "(heuristic:bomb=never, 40 games)" in (never["text"])
    )
    assert heard == [
        "study s: following line 1 of 1 in play (heuristic:bomb=early, 40 games)",
        "study s: following line 1 of 1 in play (heuristic:bomb=never, 40 games)",
    ]


@pytest.mark.parametrize(
    ("signs", "status"),
    [
        ([1, 0], ADVICE),
        ([1, 1], ADVICE),
        ([1, -1], FAILED),
        ([0, -1], FAILED),
        ([0, 0], UNCONFIRMED),
    ],
)
def test_a_line_is_advice_only_if_it_wins_somewhere_and_loses_nowhere(
    signs: list[int], status: str
) -> None:
    assert verdict(signs) == status


def _base(name: str, sign: int) -> dict[str, Any]:
    x = {1: 3.0, 0: 0.5, -1: -4.0}[sign]
    text = (
        f"followed: {x:+.1f} points [{x - 2:+.1f}, {x + 2:+.1f}] of games won ({name}, 200 games)"
    )
    return {"base": name, "games": 200, "sign": sign, "points": x, "text": text}


def _result(games: int = 200) -> dict[str, Any]:
    """A study result as run_studies makes it, with one line of each kind."""
    lines = ["bomb when A", "do not bomb when B", "bomb when C", "bomb or not: no clear answer"]
    signs = [[1, 0], [0, -1], [0, 0], None]
    records = []
    for line, s in zip(lines, signs, strict=True):
        follow = None
        if s is not None:
            bases = [_base("heuristic", s[0]), _base("learned", s[1])]
            follow = {"status": verdict(s), "games": 200, "bases": bases}
        records.append({"text": line, "advice": None if s is None else "bomb", "followed": follow})
    return {
        "label": "bombs over arm", "guidance": lines, "advice": records, "file": "s.csv",
        "population": "P", "followed_games": games, "followed_bases": ["heuristic", "learned"],
        "columns": ["a"], "rows": [[1.0]],
    }  # fmt: skip


def test_failed_advice_is_shown_as_a_finding_not_as_advice() -> None:
    groups = {g["title"].split(" (")[0]: g["lines"] for g in guidance_groups(_result())}
    assert list(groups) == [
        "Advice", "Not confirmed in play", "Findings whose advice failed in play", "No advice"
    ]  # fmt: skip
    assert groups["Advice"] == [
        "bomb when A — followed: +3.0 points [+1.0, +5.0] of games won (heuristic, 200 games); "
        "followed: +0.5 points [-1.5, +2.5] of games won (learned, 200 games)"
    ]
    (failed,) = groups["Findings whose advice failed in play"]
    assert failed.startswith("“do not bomb when B” — lost in play when followed: followed: +0.5")
    assert groups["No advice"] == ["bomb or not: no clear answer"]
    md = "\n".join(studies_markdown([_result()]))
    assert "Not confirmed in play (not separable at 200 games per base):\n\n- “bomb when C” —" in md
    head = md.index("### Study: bombs over arm")
    assert head < md.index("Advice (following it wins") < md.index("Population: P")


def test_followed_games_zero_says_not_tested_loudly_on_both_pages() -> None:
    out = follow_records([NONE, BAD], BASES, 0, RULES, 0)
    assert out == [None, {"status": NOT_TESTED, "games": 0, "bases": []}]
    result = _result(games=0)
    md = "\n".join(studies_markdown([result]))
    assert "**Not tested in play (followed_games = 0)" in md
    assert "Guidance (not tested in play):\n\n- bomb when A\n" in md and "failed in play" not in md
    shown = studies_for_page([result])[0]
    assert shown["untested"] and shown["groups"][0]["lines"] == result["guidance"]
    summary = json.loads((ROOT / "reports/bomb-timing/summary.json").read_text())
    pop = summary["populations"][0]["summary"]
    for r, want in ((result, "<strong>Not tested in play"), (_result(), "Findings whose advice")):
        page = experiment_page.experiment_page({**pop, "studies": [r]}, None, None)
        assert want in page


@pytest.mark.slow  # plays followed-advice studies on worker processes
def test_results_do_not_depend_on_the_workers() -> None:
    records = [BAD, NONE, {**BAD, "bin": {"min_opponent_cards": [1, 3]}}]
    one = follow_records(records, BASES, 8, RULES, 5, jobs=1)
    two = follow_records(copy.deepcopy(records), BASES, 8, RULES, 5, jobs=2)
    assert one == two and one[1] is None
    # each record has its own deals (seeded by its index), the same in every base
    other = follow_records([NONE, *records[:1]], BASES, 8, RULES, 5, jobs=1)
    assert other[1] != one[0]


BASE = """
name = "tiny"
question = "?"
games = 12
seed = 3
players = 2
strategies = ["heuristic", "greedy"]
metric = "win_rate"
[[arms]]
name = "a"
[[studies]]
kind = "bombs"
"""


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('followed_bases = ["learned"]\n', "'followed_bases' must name at least two base players"),
        ("followed_bases = []\n", "got []; or set followed_games = 0"),
        ('followed_bases = ["heuristic", "greedy"]\n', "'followed_bases' 'greedy': advised: base"),
        (
            'followed_bases = ["heuristic", "heuristic:bomb=late"]\n',
            "names one player twice: 'heuristic' and 'heuristic:bomb=late'",
        ),
        ('followed_bases = "learned"\n', "'followed_bases' must be a list of strategy specs"),
        ("followed_games = -1\n", "'followed_games' must be a whole number >= 0"),
        ("followed_games = 1.5\n", "'followed_games' must be a whole number >= 0"),
        ("followed_games = 5_000_000_000\n", "'followed_games' must be at most"),
    ],
)
def test_bad_followed_keys_are_refused(extra: str, message: str) -> None:
    with pytest.raises(ExperimentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_experiment(tomllib.loads(BASE + extra))


def test_followed_defaults_and_not_testing() -> None:
    (spec,) = parse_experiment(tomllib.loads(BASE)).studies
    assert (spec.followed_games, spec.followed_bases) == (2000, ("heuristic", "learned"))
    text = BASE + 'followed_games = 0\nfollowed_bases = ["learned"]\n'
    (spec,) = parse_experiment(tomllib.loads(text)).studies
    assert (spec.followed_games, spec.followed_bases) == (0, ("learned",))
