"""Player populations in experiments: validation, folder layout, swaps, the summary per
population, the cross-population verdict on the summary and page, resume, and the unchanged
path without them."""

from __future__ import annotations

import html
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from haggis_sim.cli import app
from haggis_sim.experiment import (
    MARKER,
    ExperimentError,
    load_experiment,
    run_experiment,
)
from haggis_sim.logs import ledger
from strategies import make
from strategies.builtin import ROLLOUT_MCTS

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

runner = CliRunner()

BASE = """
name = "pop"
question = "Does betting earlier pay?"
games = 8
seed = 5
strategies = ["heuristic", "greedy"]
metric = "win_rate"
also = ["bet_points"]
chunk_size = 4

[[arms]]
name = "default"

[[arms]]
name = "eager"
strategies = ["heuristic:bet=0.3", "greedy"]
"""
POPS = """
[[populations]]
name = "as-written"

[[populations]]
name = "vs-random"
games = 4
swap = { greedy = "random" }
"""
SUMMARY_KEYS = {"name", "question", "games_per_arm", "seed", "seats", "metric", "goal",
                "entry", "metrics_described", "arms", "results", "best"}  # fmt: skip


def write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ExperimentError) as info:
        load_experiment(write(tmp_path, text))
    return str(info.value)


# ------------------------------------------------------------------ parsing


def test_populations_parse_with_canonical_swaps(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, BASE + POPS))
    assert [p.name for p in exp.populations] == ["as-written", "vs-random"]
    assert [p.games for p in exp.populations] == [8, 4]
    first, second = exp.populations
    assert first.swap == {}
    assert second.swap == {"greedy": "random:bet=0.1"}
    assert second.apply(exp.arms[1]).strategies == (exp.arms[1].strategies[0], "random:bet=0.1")
    # a key is matched as a canonical spec: "heuristic" is the default arm's strategy
    exp = load_experiment(write(tmp_path, BASE + POPS.replace("greedy =", "heuristic =")))
    assert exp.populations[1].apply(exp.arms[0]).strategies == ("random:bet=0.1", "greedy")
    assert exp.populations[1].apply(exp.arms[1]).strategies == exp.arms[1].strategies


def test_a_population_relabels_the_arms_its_swap_changes(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, BASE + POPS.replace('"random"', '"mcts:iters=40"')))
    written, swapped = exp.populations
    arm = replace(exp.arms[1], label="eager vs greedy")
    assert swapped.apply(arm).label == "eager vs mcts:iters=40"
    assert written.apply(arm).label == "eager vs greedy"
    # an unlabelled arm is labelled by its name, swapped like a label
    named = replace(exp.arms[1], name="eager-vs-greedy", label="")
    assert swapped.apply(named).label == "eager-vs-mcts:iters=40"
    # an arm the swap does not change keeps its label, whatever it names
    alone = replace(exp.arms[1], strategies=("heuristic", "random"), label="greedy-free")
    assert swapped.apply(alone).label == "greedy-free"


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ('[[populations]]\nname = "a"\nsawp = {}\n[[populations]]\nname = "b"\n',
         ["population 'a'", "unknown key 'sawp'"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "a"\n'
         'swap = { greedy = "random" }\n', ["two populations are named 'a'"]),
        ('[[populations]]\nname = "a"\n', ["at least two [[populations]]"]),
        ('[[populations]]\nname = "a b"\n[[populations]]\nname = "c"\n', ["'name' must be"]),
        ('[[populations]]\nname = "report"\n[[populations]]\nname = "c"\n', ["'name' must be"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nswap = { greedy = "random" }\n',
         ["missing required key 'name'"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\n'
         'swap = { greedy = "mcst" }\n', ["population 'b'", "swap value for 'greedy'", "mcst"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\n'
         'swap = { greedy = "mcts:iter=5" }\n', ["population 'b'", "iter"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\n'
         'swap = { random = "mcts" }\n', ["swap key 'random' is not a strategy any arm plays"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\n'
         'swap = { grredy = "mcts" }\n', ["swap key 'grredy'"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\nswap = "mcts"\n',
         ["'swap' must be a table"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\ngames = 0\n'
         'swap = { greedy = "random" }\n', ["'games' must be positive"]),
        ('[[populations]]\nname = "a"\n[[populations]]\nname = "b"\ngames = 3\n',
         ["population 'b'", "same strategies in every arm as population 'a'"]),
        ("populations = 3\n", ["'populations' must be an array of tables"]),
    ],
)  # fmt: skip
def test_population_errors_are_refused(tmp_path: Path, extra: str, words: list[str]) -> None:
    msg = refused(tmp_path, BASE.replace("[[arms]]", extra + "\n[[arms]]", 1))
    assert "x.toml" in msg
    for w in words:
        assert w in msg, msg


def test_cli_population_error_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = write(tmp_path, BASE + POPS.replace('"random"', '"randm"'))
    result = runner.invoke(app, ["experiment", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "randm" in lines[0]
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ running


@pytest.fixture(scope="module")
def pop_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("pop")
    exp = load_experiment(write(root, BASE + POPS, "pop.toml"))
    out = root / "out"
    return out, run_experiment(exp, out, jobs=1, report=False)


def test_population_folder_layout_and_swap(pop_run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = pop_run
    for pop, games in (("as-written", 8), ("vs-random", 4)):
        for arm in ("default", "eager"):
            manifest = json.loads((out / pop / arm / "manifest.json").read_text())
            assert manifest["status"] == "complete" and manifest["config"]["games"] == games
            want = "greedy" if pop == "as-written" else "random:bet=0.1"
            assert manifest["config"]["strategies"][1] == want
    assert not (out / "default").exists() and not (out / "eager").exists()
    marker = json.loads((out / MARKER).read_text())
    own = {"experiment.toml", "summary.json", "summary.md", "compare.html", "index.html",
           "fig-forest-as-written.png", "fig-forest-vs-random.png"}  # fmt: skip
    assert own <= set(marker["files"])
    assert [p["name"] for p in summary["populations"]] == ["as-written", "vs-random"]
    for pop in summary["populations"]:
        assert set(pop["summary"]) == SUMMARY_KEYS  # each population: today's summary
    assert set(summary["cross"]) == {"win_rate", "bet_points"}
    assert json.loads((out / "summary.json").read_text())["cross"] == json.loads(
        json.dumps(summary["cross"])
    )


def test_population_summary_and_page_lead_with_verdict(
    pop_run: tuple[Path, dict[str, Any]],
) -> None:
    out, summary = pop_run
    md = (out / "summary.md").read_text()
    sentence = summary["cross"]["win_rate"]["sentence"]
    assert md.index(sentence) < md.index("### win_rate in population as-written")
    assert md.index("### win_rate in population as-written") < md.index(
        "### win_rate in population vs-random"
    )
    assert "| vs-random | 4 | greedy → random:bet=0.1 |" in md
    page = (out / "index.html").read_text()
    verdict = page.index("id='verdict'")
    lead = page.index("<b>win_rate (the question)</b> — <span class='cross'")
    assert verdict < lead < page.index(html.escape(sentence)) < page.index("Every metric per")
    assert "fig-forest-vs-random.png" in page and page.count("population vs-random") >= 3
    assert page.count('<section class="compare">') == 0
    compare = (out / "compare.html").read_text()
    assert compare.count('<section class="compare">') == 2 and "population vs-random" in compare


def test_rerun_keeps_finished_arms_per_population(
    pop_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    import shutil

    out, summary = pop_run
    kept = out / "as-written" / "eager"
    stamp = ledger.table_files(kept, "games")[0].stat().st_mtime_ns
    shutil.rmtree(out / "vs-random" / "eager")
    said: list[str] = []
    again = run_experiment(load_experiment(out / "experiment.toml"), out, log=said.append,
                           report=False)  # fmt: skip
    assert again["cross"] == summary["cross"]
    assert sum("finished earlier" in s for s in said) == 3
    assert any(s.startswith("arm vs-random/eager: playing 4 games") for s in said)
    assert ledger.table_files(kept, "games")[0].stat().st_mtime_ns == stamp
    changed = (BASE + POPS).replace("games = 4", "games = 2")
    with pytest.raises(ExperimentError, match="different games"):
        run_experiment(load_experiment(write(tmp_path, changed)), out, report=False)


def test_population_folder_holding_a_run_is_refused(tmp_path: Path) -> None:
    # an experiment run before it had populations, its arm named like a population now
    before = BASE.replace('name = "eager"', 'name = "vs-random"')
    out = tmp_path / "out"
    run_experiment(load_experiment(write(tmp_path, before.replace("games = 8", "games = 2"))),
                   out, jobs=1, report=False)  # fmt: skip
    listing = sorted(p.name for p in out.iterdir())
    after = before.replace("games = 8", "games = 2") + POPS
    with pytest.raises(ExperimentError, match="holds a run, not a population's arms"):
        run_experiment(load_experiment(write(tmp_path, after, "after.toml")), out, report=False)
    assert sorted(p.name for p in out.iterdir()) == listing
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "thesis.txt").write_text("mine")
    with pytest.raises(ExperimentError, match="not this experiment's folder"):
        run_experiment(load_experiment(write(tmp_path, after, "after.toml")), foreign)
    assert [p.name for p in foreign.iterdir()] == ["thesis.txt"]


def test_experiment_without_populations_is_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "out"
    exp = load_experiment(write(tmp_path, BASE.replace("games = 8", "games = 2")))
    assert exp.populations == ()
    summary = run_experiment(exp, out, jobs=1, report=False)
    assert set(summary) == SUMMARY_KEYS
    assert (out / "default" / "manifest.json").is_file() and (out / "fig-forest.png").is_file()
    assert "Across" not in (out / "summary.md").read_text()


# ------------------------------------------------------------------ shipped files

# the cross verdict's rules: tests/experiment/test_verdict_truths.py


def test_shipped_experiments_have_an_mcts_population() -> None:
    for f in sorted((Path(__file__).resolve().parents[2] / "experiments").glob("*.toml")):
        exp = load_experiment(f)
        assert len(exp.populations) >= 2, f
        assert exp.populations[0].swap == {}, f  # the baseline: the arms as written
        assert any(
            any(s.startswith("mcts") for a in exp.arms for s in p.apply(a).strategies)
            for p in exp.populations[1:]
        ), f


def test_a_swap_that_makes_two_arms_one_is_refused(tmp_path: Path) -> None:
    """With the heuristic in greedy's place, early-vs-greedy plays early-vs-late's games:
    refused before anything is played (the report would count those games twice)."""
    text = """
name = "t"
question = "q"
games = 10
strategies = ["heuristic:bomb=late", "greedy"]
metric = "win_rate"
[[arms]]
name = "early-vs-greedy"
strategies = ["heuristic:bomb=early", "greedy"]
[[arms]]
name = "early-vs-late"
strategies = ["heuristic:bomb=early", "heuristic:bomb=late"]
[[populations]]
name = "vs-greedy"
[[populations]]
name = "vs-heuristic"
swap = { greedy = "heuristic" }
"""
    message = refused(tmp_path, text)
    assert "population 'vs-heuristic'" in message
    assert "'early-vs-greedy' and 'early-vs-late' would play identical games" in message
    load_experiment(write(tmp_path, text.replace('"heuristic" }', '"learned" }')))


def test_shipped_experiments_climb_to_learned_and_default_mcts() -> None:
    """Every shipped ladder climbs from a learned player's rung straight to an mcts
    search's rung (the default search when the ladder was played, not a weaker one), that
    rung is one of its two top rungs, and a rung above it is a search with a learned prior
    at its iterations or more (a stronger one, never a weaker)."""
    for f in sorted((Path(__file__).resolve().parents[2] / "experiments").glob("*.toml")):
        exp = load_experiment(f)
        rungs = [{s for a in exp.arms for s in p.apply(a).strategies} for p in exp.populations]
        learned = [i for i, r in enumerate(rungs) if any(s.startswith("learned:") for s in r)]
        search = [i for i, r in enumerate(rungs) if any(s.startswith("mcts:") for s in r)]
        assert learned and search and search[0] == learned[0] + 1, f
        assert search[0] >= len(rungs) - 2, f
        (base,) = [s for s in rungs[search[0]] if s.startswith("mcts:")]
        assert base in (make(ROLLOUT_MCTS).spec, make("mcts").spec), (f, base)
        for rung in rungs[search[0] + 1 :]:
            above = {s for s in rung if s.startswith("mcts") and s != base}
            assert above, f
            for s in above:
                values = make(s).values
                assert values["prior"] == "learned", (f, s)
                assert int(values["iters"]) >= int(make(base).values["iters"]), (f, s)


@pytest.mark.slow
def test_an_arm_no_swap_changes_is_reported_once(tmp_path: Path) -> None:
    """heuristic-vs-random has no greedy: with as many games in both populations it plays
    the same games twice; the report over the arms counts that run once instead of
    refusing it after every arm was played."""
    text = """
name = "t"
question = "q"
games = 6
strategies = ["heuristic", "greedy"]
metric = "win_rate"
log_moves = false
[[arms]]
name = "vs-greedy"
[[arms]]
name = "vs-random"
strategies = ["heuristic", "random"]
[[populations]]
name = "a"
[[populations]]
name = "b"
swap = { greedy = "random:bet=0.5" }
"""
    said: list[str] = []
    out = tmp_path / "out"
    run_experiment(load_experiment(write(tmp_path, text)), out, jobs=1, log=said.append)
    assert (out / "report" / "index.html").is_file()
    copies = [m for m in said if m.startswith("report: ") and "counted once" in m]
    assert copies == [f"report: {out / 'b' / 'vs-random'} plays the same games as "
                      f"{out / 'a' / 'vs-random'}; counted once"]  # fmt: skip
    assert any(m.startswith("report over the 3 arms") for m in said)
