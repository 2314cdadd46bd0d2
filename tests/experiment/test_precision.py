"""Games sized to a precision within a budget (``precision`` and ``budget`` keys).

The file's checks run without playing; the sizing runs play greedy against random at 2
players (cheap) and recompute every step independently: the half-width at each batch
from the arms' first games only (an extended arm's first games are the batch, game for
game), and the next batch from ``ceil(n0 · (h / precision)²)`` in whole deals.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from haggis_sim.analytics.compare import difference, game_metrics
from haggis_sim.experiment import ExperimentError, load_experiment, run_experiment
from haggis_sim.experiment.markdown import sizing_line
from haggis_sim.experiment.summary import widest_half_width
from haggis_sim.runner.run import extend

BASE = """
name = "sized"
question = "Does a bolder random bettor score differently against greedy?"
games = 60
seed = 3
players = 2
strategies = ["greedy", "random"]
metric = "score"
chunk_size = 30
"""
ARMS = """
[[arms]]
name = "base"

[[arms]]
name = "bet"
strategies = ["greedy", "random:bet=0.6"]
"""
EXTEND = re.compile(r"arm (\S+): extending to ([\d,]+) games \(±([\d.e+-]+) at ([\d,]+) games")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(text)
    return path


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ExperimentError) as info:
        load_experiment(write(tmp_path, text))
    return str(info.value)


# ------------------------------------------------------------------ the file's keys


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ("precision = 0.0\n", ["'precision' must be a half-width of at least 1e-06", "got 0.0"]),
        ("precision = 1e-300\n", ["'precision' must be a half-width of at least", "got 1e-300"]),
        ("precision = -0.5\n", ["'precision' must be a half-width of at least"]),
        ("precision = 'tight'\n", ["'precision' must be a number"]),
        ("precision = 5.0\nbudget = 59\n", ["'budget' (59) must be at least 'games' (60)"]),
        ("precision = 5.0\nbudget = 0\n", ["'budget' must be a number of games from 1"]),
        ("budget = 600\n", ["'budget' goes with 'precision'"]),
    ],
)
def test_bad_precision_and_budget_are_refused(tmp_path: Path, keys: str, words: list[str]) -> None:
    message = refused(tmp_path, BASE + keys + ARMS)
    for word in words:
        assert word in message


def test_precision_of_a_rate_must_be_below_one(tmp_path: Path) -> None:
    rate = BASE.replace('metric = "score"', 'metric = "win_rate"')
    for value in ("1.0", "1", "2.5"):
        message = refused(tmp_path, rate + f"precision = {value}\n" + ARMS)
        assert "'precision' must be below 1 for the rate 'win_rate'" in message
    assert load_experiment(write(tmp_path, rate + "precision = 0.99\n" + ARMS)).precision == 0.99
    # points are not rates: a precision of 5 points is fine
    assert load_experiment(write(tmp_path, BASE + "precision = 5\n" + ARMS)).precision == 5.0


def test_budget_defaults_to_sixteen_first_batches_and_populations_override(
    tmp_path: Path,
) -> None:
    exp = load_experiment(write(tmp_path, BASE + "precision = 5.0\n" + ARMS))
    assert (exp.precision, exp.budget) == (5.0, 16 * 60)
    assert load_experiment(write(tmp_path, BASE + ARMS)).precision is None
    pops = """
[[populations]]
name = "first"

[[populations]]
name = "second"
games = 40
precision = 2.0
swap = { greedy = "heuristic" }

[[populations]]
name = "third"
budget = 100
swap = { greedy = "random:bet=0.9" }
"""
    exp = load_experiment(write(tmp_path, BASE + "precision = 5.0\nbudget = 500\n" + ARMS + pops))
    sizing = [(p.name, p.precision, p.budget) for p in exp.populations]
    assert sizing == [("first", 5.0, 500), ("second", 2.0, 500), ("third", 5.0, 100)]
    # a population's own precision without one at the top: only it is sized
    only = pops.replace('name = "third"\nbudget = 100\n', 'name = "third"\n')
    exp = load_experiment(write(tmp_path, BASE + ARMS + only))
    assert [(p.precision, p.budget) for p in exp.populations] == [
        (None, None), (2.0, 640), (None, None),
    ]  # fmt: skip
    message = refused(tmp_path, BASE + "precision = 5.0\n" + ARMS + pops.replace("100", "30"))
    assert "population 'third': 'budget' (30) must be at least 'games' (60)" in message


# ------------------------------------------------------------------ the half-width and line


def test_half_width_is_the_widest_difference_or_the_one_arms_level() -> None:
    def row(low: float | None, high: float | None) -> dict[str, Any]:
        return {"low": 0.4, "high": 0.6, "vs_first": {"low": low, "high": high}}

    rows = [row(0.0, 0.0), row(-0.02, 0.04), row(-0.05, 0.03), row(None, None)]
    assert widest_half_width({"rows": rows}) == pytest.approx(0.04)
    # one arm: its level's half-width
    assert widest_half_width({"rows": [row(0.0, 0.0)]}) == pytest.approx(0.1)
    assert widest_half_width({"rows": [row(0, 0), row(None, None)]}) is None


def test_sizing_line_says_what_stopped_it() -> None:
    sizing = {"precision": 0.01, "budget": 6400, "first_batch": 400, "games": 1600,
              "half_width": 0.0093, "stopped_by": "precision"}  # fmt: skip
    assert sizing_line(sizing, "win_rate") == (
        "Sized to ±1.0 points on win_rate: reached ±0.9 points at 1,600 games per arm "
        "(first batch 400)."
    )
    budget = {**sizing, "games": 6400, "half_width": 0.014, "stopped_by": "budget"}
    assert "the budget stopped it first, at 6,400 games per arm" in sizing_line(budget, "win_rate")
    rounds = {**sizing, "half_width": 0.012, "stopped_by": "rounds"}
    assert "run the experiment again to go on" in sizing_line(rounds, "win_rate")
    assert sizing_line({**sizing, "half_width": 2.5}, "score").startswith("Sized to ±0.01 on")


# ------------------------------------------------------------------ sizing runs

pytest_slow = pytest.mark.slow


def half_width_at(out: Path, arms: list[str], games: int) -> float:
    """The widest half-width of the score differences from the first arm over the arms'
    games ``0 .. games - 1``, recomputed from the logs."""
    frames = {a: game_metrics(out / a).filter(pl.col("game_id") < games) for a in arms}
    widths = []
    for arm in arms[1:]:
        d = difference(frames[arms[0]], frames[arm], "score_0", "score_0", True)
        widths.append((d.high - d.low) / 2)
    return max(widths)


def steps(said: list[str]) -> list[tuple[str, int, float, int]]:
    found = [EXTEND.match(s) for s in said]
    return [(m[1], int(m[2].replace(",", "")), float(m[3]), int(m[4].replace(",", "")))
            for m in found if m]  # fmt: skip


@pytest.fixture(scope="module")
def sized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], dict[str, Any]]:
    """Precision 4.2 points on score, first batch 60 (±8.5 there): sizing extends to 246
    games (±4.27 there, just short) and re-aims once more."""
    tmp = tmp_path_factory.mktemp("sized")
    said: list[str] = []
    exp = load_experiment(write(tmp, BASE + "precision = 4.2\n" + ARMS))
    summary = run_experiment(exp, tmp / "out", jobs=1, log=said.append, report=False)
    return tmp / "out", said, summary


@pytest_slow
def test_sizing_reaches_the_precision(sized: tuple[Path, list[str], dict[str, Any]]) -> None:
    out, said, summary = sized
    done = steps(said)
    assert len(done) == 4, said  # two rounds of extension, each of both arms
    games = 60
    for i in range(0, len(done), 2):  # both arms are extended to the same count each round
        (a, n_a, h, at), (b, n_b, _, _) = done[i], done[i + 1]
        assert (a, b) == ("base", "bet") and n_a == n_b and at == games
        h_here = half_width_at(out, ["base", "bet"], games)
        assert h == pytest.approx(h_here, rel=1e-3) and h_here > 4.2
        want = math.ceil(games * (h_here / 4.2) ** 2)
        assert n_a == min(960, math.ceil(want / 2) * 2)  # whole deals of 2 seatings
        games = n_a
    final = half_width_at(out, ["base", "bet"], games)
    assert final <= 4.2
    sizing = summary["sizing"]
    assert sizing == {"precision": 4.2, "budget": 960, "first_batch": 60, "games": games,
                      "half_width": pytest.approx(final), "stopped_by": "precision"}  # fmt: skip
    for arm in ("base", "bet"):
        manifest = json.loads((out / arm / "manifest.json").read_text())
        assert manifest["games"] == games and manifest["status"] == "complete"
    assert "Sized to ±4.2 on score: reached ±4.16 at 256 games" in (out / "summary.md").read_text()
    assert "Sized to ±4.2 on score: reached" in (out / "index.html").read_text()


@pytest_slow
def test_rerun_keeps_sized_arms_and_plays_nothing(
    sized: tuple[Path, list[str], dict[str, Any]],
) -> None:
    out, _, summary = sized
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("part-*.parquet")}
    said: list[str] = []
    exp = load_experiment(out / "experiment.toml")
    again = run_experiment(exp, out, jobs=1, log=said.append, report=False)
    assert [s for s in said if s.startswith("arm ")] == [
        "arm base: finished earlier, kept (%s)" % (out / "base"),
        "arm bet: finished earlier, kept (%s)" % (out / "bet"),
    ]
    assert {p: p.stat().st_mtime_ns for p in out.rglob("part-*.parquet")} == stamps
    assert again["sizing"] == summary["sizing"]
    # a budget below the games the arms reached: the folder is not this file's arm
    games = summary["sizing"]["games"]
    text = (out / "experiment.toml").read_text()
    tight = load_experiment(write(out.parent, text.replace(
        "precision = 4.2\n", f"precision = 4.2\nbudget = {games - 2}\n")))  # fmt: skip
    with pytest.raises(ExperimentError, match=f"a run of {games} games, outside"):
        run_experiment(tight, out, jobs=1, report=False)


@pytest_slow
def test_budget_stop_is_recorded_per_population(tmp_path: Path) -> None:
    pops = """
[[populations]]
name = "tight"
precision = 1.0
budget = 121

[[populations]]
name = "fixed"
swap = { greedy = "heuristic" }
"""
    said: list[str] = []
    exp = load_experiment(write(tmp_path, BASE + ARMS + pops))
    summary = run_experiment(exp, tmp_path / "out", jobs=1, log=said.append, report=False)
    tight, fixed = summary["populations"]
    assert "sizing" not in fixed and not any("fixed/" in s and "extending" in s for s in said)
    sizing = tight["sizing"]
    # the budget in whole deals: 120 games (60 deals of 2 seatings), never 121
    assert sizing["games"] == 120 and sizing["stopped_by"] == "budget"
    assert sizing["half_width"] == pytest.approx(half_width_at(tmp_path / "out" / "tight",
                                                               ["base", "bet"], 120))  # fmt: skip
    assert sizing["half_width"] > 1.0
    assert [n for _, n, _, _ in steps(said)] == [120, 120]  # one round: straight to the cap
    line = "- tight: Sized to ±1 on score: the budget stopped it first, at 120 games per arm"
    assert line in (tmp_path / "out" / "summary.md").read_text()
    assert "the budget stopped it first" in (tmp_path / "out" / "index.html").read_text()


@pytest_slow
def test_arms_left_at_different_counts_are_paired_again(tmp_path: Path) -> None:
    """An extension interrupted between arms leaves them at different counts: the next
    run brings every arm to the largest before it sizes."""
    out = tmp_path / "out"
    run_experiment(load_experiment(write(tmp_path, BASE + ARMS)), out, jobs=1, report=False)
    exp = load_experiment(write(tmp_path, BASE + "precision = 4.2\n" + ARMS))
    extend(exp.run_config(exp.arms[0], jobs=1, games=100), out / "base")  # "bet" stays at 60
    said: list[str] = []
    summary = run_experiment(exp, out, jobs=1, log=said.append, report=False)
    assert "arm bet: extending to 100 games (to pair the arms again)" in said
    assert not any(s.startswith("arm base: extending to 100") for s in said)
    games = summary["sizing"]["games"]
    assert [a["games"] for a in summary["arms"]] == [games, games] and games > 100
    assert summary["sizing"]["stopped_by"] == "precision"
    assert half_width_at(out, ["base", "bet"], games) <= 4.2


@pytest_slow
def test_an_interrupted_extension_says_the_count_it_resumes_to(tmp_path: Path) -> None:
    """Ctrl-C inside an extension leaves the arm's manifest at the new count, unfinished:
    the next run resumes it to that count and says so (not the first batch's 60)."""
    out = tmp_path / "out"
    run_experiment(load_experiment(write(tmp_path, BASE + ARMS)), out, jobs=1, report=False)
    exp = load_experiment(write(tmp_path, BASE + "precision = 4.2\n" + ARMS))
    manifest = json.loads((out / "base" / "manifest.json").read_text())
    extend(exp.run_config(exp.arms[0], jobs=1, games=120), out / "base")
    (out / "base" / "manifest.json").write_text(
        (out / "base" / "manifest.json").read_text().replace('"complete"', '"running"')
    )
    assert manifest["games"] == 60
    said: list[str] = []
    run_experiment(exp, out, jobs=1, log=said.append, report=False)
    assert any(s.startswith("arm base: resuming 120 games (") for s in said), said
