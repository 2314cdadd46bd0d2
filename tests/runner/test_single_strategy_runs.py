"""One strategy in every seat is no pairing: no win rate is printed (issue 8, item 14).

``--strategies heuristic`` puts the one entry in every seat, so entry #0 wins every game
and a "win rate 100.0%" would be meaningless. The run summary, ``compare`` and the
experiment summary say there is no pairing instead, and still show games and mean
scores. ``heuristic,heuristic`` is two entries (self-play) and keeps its win rates.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from haggis_sim.analytics.compare import compare_runs, compare_section_html
from haggis_sim.cli import app
from haggis_sim.experiment import (
    best_line,
    parse_experiment,
    result_rows,
    run_experiment,
    summarize,
    summary_markdown,
)

runner = CliRunner()
TINY = ["--games", "12", "--chunk-size", "6", "--jobs", "1", "--quiet", "--seed", "4"]


def run_cli(out: Path, strategies: str, players: int, *extra: str) -> str:
    args = ["run", "--strategies", strategies, "--players", str(players), "--out", str(out)]
    result = runner.invoke(app, [*args, *TINY, *extra])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    root = tmp_path_factory.mktemp("pairing")
    plan = {
        "solo2": ("heuristic", 2, ()),
        "solo3": ("heuristic", 3, ()),
        "solo2_per_card": ("heuristic", 2, ("--rule", "card_points=per_card")),
        "pair2": ("heuristic,greedy", 2, ()),
        "self2": ("heuristic,heuristic", 2, ()),
    }
    return {
        name: (root / name, run_cli(root / name, strats, players, *extra))
        for name, (strats, players, extra) in plan.items()
    }


@pytest.mark.parametrize("name", ["solo2", "solo3"])
def test_run_summary_of_one_strategy_says_no_pairing(
    runs: dict[str, tuple[Path, str]], name: str
) -> None:
    _, output = runs[name]
    assert "one strategy fills every seat: no pairing to compare" in output
    assert "100.0%" not in output and "win rate" not in output and "interval" not in output
    assert "mean score" in output and "12 games in" in output
    assert "│    12 │" in output  # the games column of entry #0


def test_run_summary_of_two_strategies_shows_win_rates(
    runs: dict[str, tuple[Path, str]],
) -> None:
    for name in ("pair2", "self2"):
        _, output = runs[name]
        assert "no pairing" not in output
        assert "win rate" in output and "95% interval" in output and "mean score" in output
        assert output.count("% – ") == 2  # one Wilson interval per entry
    # self-play between entries #0 and #1 of the same spec is a pairing, never a foregone 100%
    assert "100.0%" not in runs["self2"][1]


def test_compare_of_single_strategy_runs_says_no_pairing(
    runs: dict[str, tuple[Path, str]],
) -> None:
    a, b = runs["solo2"][0], runs["solo2_per_card"][0]
    result = compare_runs(a, b)
    assert result.paired and result.no_pairing == ["A", "B"]
    assert "no pairing to compare" in result.note
    assert not [r for r in result.rows if r.metric == "win_rate"]
    assert [r.label for r in result.rows if r.metric == "score"] == [
        "mean final score of #0 heuristic"
    ]
    assert "no pairing to compare" in compare_section_html(result)
    out = runner.invoke(app, ["compare", str(a), str(b)])
    assert out.exit_code == 0, out.output
    assert "no pairing to compare" in " ".join(out.output.split())  # the title may wrap
    assert "win rate of" not in out.output and "100.0%" not in out.output
    # one side alone is enough: a pairing against one entry in every seat has no win rate
    mixed = compare_runs(runs["pair2"][0], a)
    assert mixed.no_pairing == ["B"] and "in B:" in mixed.note
    assert not [r for r in mixed.rows if r.metric == "win_rate"]
    # two pairings still compare their win rates
    both = compare_runs(runs["pair2"][0], runs["self2"][0])
    assert both.no_pairing == [] and "no pairing" not in both.note
    assert {r.column for r in both.rows if r.metric == "win_rate"} == {"win_rate_0", "win_rate_1"}


EXPERIMENT: dict[str, Any] = {
    "name": "solo",
    "question": "Does a lone strategy have a win rate?",
    "games": 12,
    "seed": 4,
    "players": 2,
    "strategies": ["heuristic"],
    "metric": "win_rate",
    "also": ["score", "margin"],
    "chunk_size": 6,
    "log_moves": False,
    "arms": [
        {"name": "solo"},
        {"name": "solo-per_card", "rule": {"card_points": "per_card"}},
        {"name": "pair", "strategies": ["heuristic", "greedy"]},
    ],
}


def test_experiment_summary_leaves_out_win_rates_without_pairing(tmp_path: Path) -> None:
    exp = parse_experiment(EXPERIMENT)
    summary = run_experiment(exp, tmp_path, jobs=1, report=False)
    rows = {r["arm"]: r for r in summary["results"]["win_rate"]["rows"]}
    for arm in ("solo", "solo-per_card"):
        assert rows[arm]["no_pairing"] and rows[arm]["mean"] is None
    assert not rows["pair"]["no_pairing"] and rows["pair"]["mean"] is not None
    assert rows["pair"]["vs_first"]["diff"] is None  # against a lone baseline: no difference
    shown = result_rows(summary, "win_rate")
    assert [r[2] for r in shown[:2]] == ["no pairing", "no pairing"]
    assert all("100.0%" not in cell for row in shown for cell in row)
    assert summary["best"]["arm"] == "pair"
    score = {r["arm"]: r for r in summary["results"]["score"]["rows"]}
    assert not score["solo"]["no_pairing"] and score["solo"]["mean"] > 0  # still meaningful
    md = summary_markdown(summary)
    assert "in arms solo, solo-per_card: no pairing to compare" in md and "100.0%" not in md
    compare_page = (tmp_path / "compare.html").read_text()
    assert compare_page.count("no pairing to compare") == 2
    lone_only = dataclasses.replace(exp, arms=exp.arms[:2])
    alone = summarize(lone_only, tmp_path)
    assert alone["best"] is None
    assert "no pairing to compare" in best_line(alone)
