"""The balance table (issue 25, item 5): a population's ``strategies`` key and its
refusals, and a ``balance = true`` experiment whose table repeats the metric estimates
(seat and lead edges, comebacks, margin, length, drama, skill expression, luck share)
per rule variant and population, with each variant's paired difference from the first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from haggis_sim.analytics.compare import difference, estimate, game_metrics, same_deals
from haggis_sim.experiment import Experiment, ExperimentError, load_experiment, run_experiment
from haggis_sim.experiment.balance import QUANTITIES, balance_markdown, pairs_stronger
from strategies import make

HEURISTIC, RANDOM = make("heuristic").spec, make("random").spec

RULE_ARMS = """
name = "bal"
question = "Which card scoring is better balanced?"
games = 12
seed = 3
strategies = ["heuristic"]
metric = "ahead_r1_win"
chunk_size = 6
log_moves = false

[[arms]]
name = "classic-points"

[[arms]]
name = "per-card"
[arms.rule]
card_points = "per_card"
"""
SKILL_POPS = """
[[populations]]
name = "self"

[[populations]]
name = "skill"
strategies = ["heuristic", "random"]
"""


def load(tmp_path: Path, text: str) -> Experiment:
    """The experiment file ``text``, written into ``tmp_path`` and loaded."""
    (tmp_path / "x.toml").write_text(text)
    return load_experiment(tmp_path / "x.toml")


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ExperimentError) as info:
        load(tmp_path, text)
    return str(info.value)


# ------------------------------------------------------------------ the population key


def test_population_strategies_replace_every_arms_strategies(tmp_path: Path) -> None:
    exp = load(tmp_path, RULE_ARMS + SKILL_POPS)
    self_play, skill = exp.populations
    assert self_play.strategies is None
    assert skill.strategies == (HEURISTIC, RANDOM)  # canonical specs
    for arm in exp.arms:
        assert self_play.apply(arm).strategies == (HEURISTIC,)
        played = skill.apply(arm)
        assert played.strategies == skill.strategies and played.rules == arm.rules
        assert pairs_stronger(played) and not pairs_stronger(self_play.apply(arm))


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ('strategies = ["random"]\nswap = { heuristic = "greedy" }', ["not both", "ambiguous"]),
        ('strategies = ["heuristic", "random", "greedy"]', ["3 strategies", "2 seats"]),
        ("strategies = []", ["non-empty list"]),
        ('strategies = ["nosuch"]', ["'nosuch'"]),
        ('strategies = ["heuristic"]', ["same strategies in every arm", "'self'"]),
    ],
)
def test_population_strategies_refusals(tmp_path: Path, extra: str, words: list[str]) -> None:
    text = RULE_ARMS + '\n[[populations]]\nname = "self"\n\n[[populations]]\nname = "p"\n' + extra
    message = refused(tmp_path, text)
    assert "population 'p'" in message
    for word in words:
        assert word in message, message


def test_population_strategies_refused_where_the_arms_have_their_own(tmp_path: Path) -> None:
    own = RULE_ARMS.replace('name = "per-card"', 'name = "per-card"\nstrategies = ["greedy"]')
    message = refused(tmp_path, own + SKILL_POPS)
    assert "arm 'per-card'" in message and "use 'swap'" in message


def test_population_strategies_pairing_refused_under_fixed_seats(tmp_path: Path) -> None:
    message = refused(tmp_path, 'seats = "fixed"\n' + RULE_ARMS + SKILL_POPS)
    assert 'seats = "fixed"' in message and "seat's edge" in message
    alone = SKILL_POPS.replace('["heuristic", "random"]', '["greedy"]')
    assert load(tmp_path, 'seats = "fixed"\n' + RULE_ARMS + alone)


def test_population_strategies_need_the_entry_an_entry_metric_follows(tmp_path: Path) -> None:
    text = RULE_ARMS.replace('metric = "ahead_r1_win"', 'metric = "score"\nentry = 1')
    pops = SKILL_POPS.replace('["heuristic", "random"]', '["random"]')
    message = refused(tmp_path, text.replace('["heuristic"]', '["heuristic", "greedy"]') + pops)
    assert "'entry' = 1" in message and "'strategies' has 1 entries" in message


def test_balance_key_is_a_bool(tmp_path: Path) -> None:
    assert load(tmp_path, "balance = true\n" + RULE_ARMS).balance
    assert not load(tmp_path, RULE_ARMS).balance
    assert "'balance' must be bool" in refused(tmp_path, 'balance = "yes"\n' + RULE_ARMS)


# ------------------------------------------------------------------ the table


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("balance")
    path = root / "bal.toml"
    path.write_text("balance = true\n" + RULE_ARMS + SKILL_POPS)
    out = root / "out"
    return out, run_experiment(load_experiment(path), out, jobs=1, report=False)


def _cells(summary: dict[str, Any], population: str, quantity: str) -> list[dict[str, Any]]:
    group = next(g for g in summary["balance"]["groups"] if g["population"] == population)
    return next(r["cells"] for r in group["rows"] if r["quantity"] == quantity)


@pytest.mark.slow
def test_balance_table_repeats_the_metric_estimates(played: tuple[Path, dict[str, Any]]) -> None:
    out, summary = played
    for population in ("self", "skill"):
        first = game_metrics(out / population / "classic-points")
        second = game_metrics(out / population / "per-card")
        assert same_deals(first, second)
        for q in QUANTITIES:
            if q.pairing and population == "self":
                group = summary["balance"]["groups"][0]
                assert q.key not in [r["quantity"] for r in group["rows"]]
                continue
            col = f"{q.metric}_0" if q.metric == "win_rate" else q.metric
            cells = _cells(summary, population, q.key)
            for cell, frame in zip(cells, (first, second), strict=True):
                est = estimate(frame, col)
                want = (est.mean, est.low, est.high)
                if q.mirrored:
                    want = (1 - est.mean, 1 - est.high, 1 - est.low)
                assert (cell["mean"], cell["low"], cell["high"]) == pytest.approx(want), q.key
            d = difference(first, second, col, col, True)
            want_d = (-d.diff, -d.high, -d.low) if q.mirrored else (d.diff, d.low, d.high)
            got = cells[1]["vs_first"]
            assert (got["diff"], got["low"], got["high"]) == pytest.approx(want_d), q.key
            assert got["paired"] and cells[0]["vs_first"] is None
    skill = _cells(summary, "skill", "skill_expression")[0]
    assert skill["fair"] == 0.5 and _cells(summary, "skill", "seat0_win")[0]["fair"] == 0.5


@pytest.mark.slow
def test_balance_table_is_written_and_shown(played: tuple[Path, dict[str, Any]]) -> None:
    out, summary = played
    assert json.loads((out / "summary.json").read_text())["balance"] == summary["balance"]
    md = (out / "summary.md").read_text()
    assert "## Balance per rule variant" in md and "### Balance in population skill" in md
    assert "\n".join(balance_markdown(summary["balance"])) in md
    luck = _cells(summary, "skill", "luck_share")[1]
    assert f"{luck['mean']:.1%}" in md
    page = (out / "index.html").read_text()
    assert "Balance per rule variant" in page and "luck share" in page
    assert f"every arm: {HEURISTIC}, {RANDOM}" in md


def test_balance_markdown_is_empty_without_a_table() -> None:
    assert balance_markdown(None) == []
