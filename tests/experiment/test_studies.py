"""Counterfactual studies declared in an experiment file ([[studies]])."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from haggis_sim.cli import app
from haggis_sim.experiment import ExperimentError, parse_experiment, run_experiment

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

BASE = """
name = "tiny-study"
question = "Do bets pay?"
games = 12
seed = 3
players = 2
strategies = ["heuristic", "greedy"]
metric = "bet_points"
chunk_size = 6

[[arms]]
name = "default"

[[arms]]
name = "eager"
strategies = ["heuristic:bet=0.3", "greedy"]
"""


def parse(text: str):  # type: ignore[no-untyped-def]
    return parse_experiment(tomllib.loads(text))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('[[studies]]\nkind = "bluffs"\n', "'kind' must be one of bombs, bets"),
        ('[[studies]]\nkind = "bets"\narm = "nope"\n', "no arm named 'nope'"),
        ('[[studies]]\nkind = "bets"\nsamples = 0\n', "'samples' must be a whole number"),
        (
            '[[studies]]\nkind = "bets"\nmin_per_bin = -1\n',
            "'min_per_bin' must be a whole number >= 0",
        ),
        ('[[studies]]\nkind = "bets"\nvalue = "points"\n', "'value' must be one of game, round"),
        ('[[studies]]\nkind = "bets"\nprior = "mcts"\n', "'prior' must be one of learned, none"),
        ('[[studies]]\nkind = "bets"\nwhen = 1\n', "unknown key 'when'"),
        ('[[studies]]\nkind = "bets"\npopulation = "x"\n', "'population' needs [[populations]]"),
        ('log_moves = false\n||[[studies]]\nkind = "bets"\n', "needs the arms' move logs"),
        ('studies = "bets"\n||', "'studies' must be an array of tables"),
    ],
)
def test_bad_study_declarations_are_refused(extra: str, message: str) -> None:
    before, _, after = extra.rpartition("||")  # "||" splits what goes before BASE
    text = before + BASE + after
    with pytest.raises(ExperimentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse(text)


def test_study_defaults_and_population_choice() -> None:
    (spec,) = parse(BASE + '[[studies]]\nkind = "bets"\n').studies
    assert (spec.kind, spec.arm, spec.population, spec.positions, spec.samples, spec.seed) == (
        "bets", "default", None, 600, 100, 3,
    )  # fmt: skip
    assert (spec.min_per_bin, spec.value, spec.prior) == (30, "game", "learned")  # default mcts
    text = BASE + '[[studies]]\nkind = "bets"\nmin_per_bin = 0\nvalue = "round"\nprior = "none"\n'
    (spec,) = parse(text).studies
    assert (spec.min_per_bin, spec.value, spec.prior) == (0, "round", "none")
    pops = (
        '[[populations]]\nname = "a"\n[[populations]]\nname = "b"\nswap = { greedy = "random" }\n'
    )
    (spec,) = parse(BASE + pops + '[[studies]]\nkind = "bombs"\npopulation = "b"\n').studies
    assert (spec.population, spec.arm) == ("b", "default")
    with pytest.raises(ExperimentError, match="no population named 'c'"):
        parse(BASE + pops + '[[studies]]\nkind = "bombs"\npopulation = "c"\n')


def test_a_study_runs_after_the_arms_and_lands_in_every_output(tmp_path: Path) -> None:
    text = (
        BASE + '[[studies]]\nkind = "bets"\narm = "eager"\npositions = 4\nsamples = 6\n'
        "followed_games = 4\n"
    )
    out = tmp_path / "exp"
    summary = run_experiment(parse(text), out, jobs=1, report=False)
    (study,) = summary["studies"]
    assert study["kind"] == "bets" and study["arm"] == "eager"
    assert study["guidance"] and all(isinstance(g, str) for g in study["guidance"])
    assert "bet opportunities" in study["population"] and "/eager" in study["population"]
    assert (study["value"], study["prior"], study["min_per_bin"]) == ("game", "learned", 30)
    assert "the rollout mcts search (value=game, prior=learned)" in study["search"]
    assert study["search"] in study["population"]  # the page and summary.md show it
    assert [a["text"] for a in study["advice"]] == study["guidance"]
    assert all(a["kind"] == "bets" and isinstance(a["bin"], dict) for a in study["advice"])
    assert (study["followed_games"], study["followed_bases"]) == (4, ["heuristic", "learned"])
    for a in study["advice"]:  # followed in play exactly where the line gives advice
        assert (a["followed"] is None) == (a["advice"] is None), a
    saved = json.loads((out / "summary.json").read_text())["studies"][0]["advice"]
    assert saved == study["advice"] and saved[0]["bin"] == {}  # all positions: no condition
    table = pl.read_csv(out / study["file"])
    assert table.height == len(study["rows"]) > 0
    assert json.loads((out / "summary.json").read_text())["studies"][0]["file"] == study["file"]
    md = (out / "summary.md").read_text()
    assert "## Counterfactual decision studies" in md and study["guidance"][0] in md
    assert "Each line with advice was followed in play" in md
    page = (out / "index.html").read_text()
    assert "Study: bets over eager" in page
    marker = json.loads((out / ".haggis-sim-experiment.json").read_text())
    assert study["file"] in marker["files"]


def test_cli_refuses_a_bad_study_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text(BASE + '[[studies]]\nkind = "bets"\narm = "nope"\n')
    res = CliRunner().invoke(app, ["experiment", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert res.stderr.count("error:") == 1 and "no arm named 'nope'" in res.stderr
    assert not (tmp_path / "o").exists()
