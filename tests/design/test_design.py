"""haggis-sim design: bad files refused before anything is played, a planted knob found
at a fraction of a sweep's games, the confirmation on fresh deals, resume."""

from __future__ import annotations

import html
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim.analytics.compare import game_metrics
from haggis_sim.design import parse_design
from haggis_sim.design.run import run_design
from haggis_sim.design.search import Candidate, prune_reason
from haggis_sim.experiment import ExperimentError, load_experiment
from haggis_sim.experiment.balance import QUANTITIES, quantity_estimate

BASE: dict[str, Any] = {
    "name": "out-points",
    "question": "Which out points bring a game nearest to 8 rounds?",
    "players": 2,
    "strategies": ["greedy"],
    "seed": 5,
    "knobs": [{"flag": "out_points", "low": 0, "high": 10}],
    "objectives": [{"quantity": "rounds", "goal": "near", "target": 8}],
    "budget": {"trials": 6, "games": 600, "first_games": 60},
    "confirm": {"games": 400, "candidates": 2},
}


def _toml(table: dict[str, Any]) -> str:
    lines = []
    for key, value in table.items():
        if not isinstance(value, (dict, list)) or key == "strategies":
            lines.append(f"{key} = {json.dumps(value)}")
    for key, value in table.items():
        if isinstance(value, dict):
            lines += [f"[{key}]", *(f"{k} = {json.dumps(v)}" for k, v in value.items())]
        elif isinstance(value, list) and key != "strategies":
            for item in value:
                lines += [f"[[{key}]]", *(f"{k} = {json.dumps(v)}" for k, v in item.items())]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"knobs": [{"flag": "out_pointz", "low": 0, "high": 3}]},
            ("unknown rule flag 'out_pointz'",),
        ),
        ({"knobs": [{"flag": "out_points", "low": 6, "high": 2}]}, ("range 6..2 is empty",)),
        ({"knobs": [{"flag": "out_points", "values": []}]}, ("'values' is empty",)),
        ({"knobs": [{"flag": "out_points", "values": [3, 300]}]}, ("value 300", "0..100")),
        (
            {"constraints": [{"quantity": "rounds", "at_least": 9, "at_most": 4}]},
            ("no value is at least 9",),
        ),
        ({"constraints": [{"quantity": "seat0_win", "at_most": 45}]}, ("fraction from 0 to 1",)),
        ({"budget": {"trials": 0, "games": 100}}, ("'trials' must be from 1",)),
        ({"budget": {"trials": 3, "games": 0}}, ("'games' must be from 1",)),
        ({"objectives": [{"quantity": "skill_expression", "goal": "max"}]}, ("stronger entry 0",)),
        ({"objectives": [{"quantity": "rounds", "goal": "fair"}]}, ("no fair value",)),
    ],
)
def test_a_bad_design_file_gets_one_line_before_anything_is_played(
    tmp_path: Path, change: dict[str, Any], words: tuple[str, ...]
) -> None:
    path = tmp_path / "d.toml"
    path.write_text(_toml({**BASE, **change}))
    out = tmp_path / "out"
    one_line_error(invoke("design", str(path), "--out", str(out)), str(path), *words)
    assert not out.exists()


def test_a_folder_that_is_not_the_designs_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    path.write_text(_toml(BASE))
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    one_line_error(invoke("design", str(path), "--out", str(out)), "not a design folder")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def _rounds(run_dir: Path) -> float:
    q = next(q for q in QUANTITIES if q.key == "rounds")
    return quantity_estimate(q, game_metrics(run_dir)).mean


@pytest.mark.slow
def test_the_search_finds_a_sweeps_optimum_with_fewer_games_and_confirms_it(
    tmp_path: Path,
) -> None:
    """Planted: out points shorten games (more points per card left, faster to 250). A
    sweep of all 11 values at the search's full games on the same deals knows the value
    nearest 8 rounds; the search, in 6 trials, must pick one within 0.3 rounds of it."""
    design = parse_design(BASE)
    out = tmp_path / "d"
    result = run_design(design, out, jobs=1)
    sweep = {}
    for value in range(11):
        name = f"out_points={value}"
        run_dir = out / "search" / name
        if not run_dir.exists():  # the sweep plays what the search did not
            from haggis_sim.design.search import play_to, run_config

            config = run_config(design, design.candidate_rules({"out_points": value}), 600, name, 1)
            play_to(config, tmp_path / "sweep" / name, lambda _m: None)
            run_dir = tmp_path / "sweep" / name
        sweep[value] = _rounds(run_dir)
    best = min(sweep, key=lambda v: abs(sweep[v] - 8))
    search_games = result["search"]["games"]
    assert search_games < 11 * 600 / 2  # under half the sweep's games
    picked = result["confirm"]["candidates"][0]
    value = picked["flags"]["out_points"]
    assert abs(abs(sweep[value] - 8) - abs(sweep[best] - 8)) <= 0.3, (value, best, sweep)
    # the confirmation played fresh deals: its seed is not the search's, and its figures
    # are those of its own runs
    conf = tomllib.loads((out / "confirm" / "experiment.toml").read_text())
    assert conf["seed"] == design.seed + 1
    arm = out / "confirm" / picked["arm"]
    assert picked["figures"]["rounds"]["mean"] == pytest.approx(_rounds(arm))
    assert picked["figures"]["rounds"]["mean"] != pytest.approx(picked["search"]["rounds"])
    assert picked["verdict"] == "holds up"
    assert result["headline"].startswith(f"With out_points {value}, the game length")
    text = (out / "design.md").read_text()
    assert result["headline"] in text and "Confirmed on fresh deals" in text
    page = (out / "index.html").read_text()
    assert html.escape(result["headline"], quote=True) in page
    assert "fig-front.png" in page and (out / "fig-front.png").stat().st_size > 10_000
    assert "some objective is better than under today&#x27;s rules beyond doubt" in page
    replay = load_experiment(out / "candidates" / "candidate-1.toml")  # replayable as is
    assert replay.seed == design.seed + 1 and replay.arms[1].rules.out_points == value
    # run again: nothing is replayed, the same result comes back
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("manifest.json")}
    again = run_design(design, out, jobs=1)
    assert again["headline"] == result["headline"]
    assert again["search"]["candidates"] == result["search"]["candidates"]
    assert {p: p.stat().st_mtime_ns for p in out.rglob("manifest.json")} == stamps


def test_a_candidate_is_stopped_only_when_beyond_doubt() -> None:
    from haggis_sim.analytics.compare import Estimate

    design = parse_design({**BASE, "constraints": [{"quantity": "rounds", "at_most": 10}]})

    def cand(name: str, mean: float, half: float, pruned: str = "") -> Candidate:
        est = Estimate(mean, mean - half, mean + half, 100, 1.0)
        return Candidate(name, {}, 100, {"rounds": est}, pruned)

    done = [cand("a", 8.1, 0.1)]  # near the aim of 8, played in full
    assert prune_reason(design, cand("b", 8.5, 0.5), done) == ""  # may still be as near
    assert "worse than a" in prune_reason(design, cand("c", 9.0, 0.2), done)
    assert "constraint on rounds" in prune_reason(design, cand("d", 11.0, 0.5), [])
    assert prune_reason(design, cand("e", 10.2, 0.5), []) == ""  # may still keep it
    with pytest.raises(ExperimentError, match="'at_least', 'at_most' or both"):
        parse_design({**BASE, "constraints": [{"quantity": "rounds"}]})


@pytest.mark.slow
def test_the_confirmation_checks_other_players_on_the_same_fresh_deals(tmp_path: Path) -> None:
    confirm = {"games": 200, "candidates": 1, "check": ["heuristic"], "check_games": 100}
    knobs = [{"flag": "out_points", "values": [5, 7]}]  # today's and one nearer 8 rounds
    budget = {"trials": 2, "games": 120, "first_games": 120}
    table = {**BASE, "knobs": knobs, "budget": budget, "confirm": confirm}
    result = run_design(parse_design(table), tmp_path / "d", jobs=1)
    check = result["confirm"]["check"]
    assert check["games"] == 100 and check["strategies"][0].startswith("heuristic:")
    exp = load_experiment(tmp_path / "d" / "confirm" / "experiment.toml")
    assert [p.name for p in exp.populations] == ["players", "check"]
    assert " With heuristic players: " in result["headline"]
    # the check's figures are the check population's own games, not the design players'
    rounds = check["candidates"][0]["rounds"]["mean"]
    arm = tmp_path / "d" / "confirm" / "check" / "candidate-1"
    assert rounds == pytest.approx(_rounds(arm))


def test_a_damaged_or_linked_design_folder_gets_one_line(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    path.write_text(_toml(BASE))
    out = tmp_path / "out"
    out.mkdir()
    (out / ".haggis-sim-design.json").write_text("{not json")
    one_line_error(invoke("design", str(path), "--out", str(out)), "is damaged")
    assert (out / ".haggis-sim-design.json").read_text() == "{not json"
    link = tmp_path / "link"
    link.symlink_to(out)
    one_line_error(invoke("design", str(path), "--out", str(link)), "symbolic link")
    other = tmp_path / "other"
    other.mkdir()
    (other / ".haggis-sim-design.json").write_text(json.dumps({"name": "x", "files": []}))
    one_line_error(invoke("design", str(path), "--out", str(other)), "holds the design 'x'")


@pytest.mark.slow
def test_the_sampler_is_told_what_a_setting_stopped_early_measured(tmp_path: Path) -> None:
    """A setting stopped early still tells the sampler its estimate (where not to look):
    without, a multi-objective TPE learns nothing from it and proposes its neighbours."""
    import optuna

    from haggis_sim.design.search import search

    played, study = search(parse_design(BASE), tmp_path, 1, lambda _m: None)
    stopped = {c.name for c in played if c.pruned}
    assert stopped  # the planted design stops some settings early
    for trial in study.trials:
        name = f"out_points={trial.params['out_points']}"
        if name in stopped:
            assert trial.state == optuna.trial.TrialState.COMPLETE and trial.values


@pytest.mark.slow
def test_the_same_design_file_gives_the_same_answer_in_another_folder(tmp_path: Path) -> None:
    """A design's games depend only on its file (seeds, players, knobs, budget), not on
    the folder or the worker count: what a clean clone needs to reproduce a shipped one."""
    table = {**BASE, "budget": {"trials": 3, "games": 180, "first_games": 60},
             "confirm": {"games": 120, "candidates": 1}}  # fmt: skip
    first = run_design(parse_design(table), tmp_path / "a", jobs=1)
    second = run_design(parse_design(table), tmp_path / "b", jobs=2)
    for result in (first, second):
        del result["search"]["seconds"], result["confirm"]["seconds"]
    assert first == second


def _cell(mean: float, low: float, high: float, diff: tuple[float, float] | None) -> dict[str, Any]:
    d = None if diff is None else {"diff": sum(diff) / 2, "low": diff[0], "high": diff[1]}
    return {"mean": mean, "low": low, "high": high, "n": 100, "sd": 0.1, "vs_first": d}


def test_a_candidate_is_judged_against_todays_rules_on_the_fresh_deals() -> None:
    """Better or worse beyond doubt by the paired difference at both ends of its interval;
    for a fair aim by the distance from it, so overshooting the aim is not better."""
    from haggis_sim.design.confirm import change, judge

    table = {**BASE, "objectives": [{"quantity": "first_lead_win", "goal": "fair"}],
             "constraints": [{"quantity": "rounds", "at_least": 4, "at_most": 8}]}  # fmt: skip
    design = parse_design(table)
    fair = design.objectives[0]
    base = _cell(0.36, 0.35, 0.37, None)  # the aim is 1/2 with 2 players
    assert change(design, fair, base, _cell(0.40, 0, 1, (0.03, 0.05))) == "better"
    assert change(design, fair, base, _cell(0.34, 0, 1, (-0.03, -0.01))) == "worse"
    assert change(design, fair, base, _cell(0.36, 0, 1, (-0.01, 0.01))) == "same"
    over = _cell(0.50, 0.36, 0.37, None)  # already at the aim: any move is away from it
    assert change(design, fair, over, _cell(0.52, 0, 1, (0.01, 0.03))) == "worse"
    assert change(design, fair, _cell(0.45, 0, 1, None), _cell(0.52, 0, 1, (0.04, 0.10))) == "same"
    cand = Candidate("c", {"out_points": 3}, 100, {}, "")
    cells = {
        ("first_lead_win", "base"): base,
        ("rounds", "base"): _cell(6.0, 5.9, 6.1, None),
        ("first_lead_win", "c"): _cell(0.40, 0.39, 0.41, (0.03, 0.05)),
        ("rounds", "c"): _cell(7.0, 6.9, 7.1, (0.9, 1.1)),
    }
    assert judge(design, cand, "c", cells)["verdict"] == "holds up"
    cells[("rounds", "c")] = _cell(8.0, 7.9, 8.1, (1.9, 2.1))  # straddles at_most 8
    assert judge(design, cand, "c", cells)["verdict"] == "not settled"
    cells[("rounds", "c")] = _cell(8.3, 8.2, 8.4, (2.2, 2.4))
    assert judge(design, cand, "c", cells)["verdict"] == "does not hold up"
    cells[("rounds", "c")] = _cell(7.0, 6.9, 7.1, (0.9, 1.1))
    cells[("first_lead_win", "c")] = _cell(0.36, 0.35, 0.37, (-0.01, 0.01))
    verdict = judge(design, cand, "c", cells)
    assert verdict["verdict"] == "does not hold up" and "no objective better" in verdict["notes"][0]


def test_the_confirmation_is_sized_to_the_precision_asked_for() -> None:
    """[confirm] precision and budget become the confirmation experiment's sizing of the
    first objective's quantity (for the design's players only, with a check); a budget
    without a precision is refused before anything is played."""
    from haggis_sim.design.confirm import confirm_toml
    from haggis_sim.experiment import parse_experiment

    cand = Candidate("out_points=7", {"out_points": 7}, 600, {}, "")
    confirm = {"games": 400, "precision": 0.05, "budget": 4000}
    design = parse_design({**BASE, "confirm": confirm})
    exp = parse_experiment(tomllib.loads(confirm_toml(design, [cand], None)))
    assert (exp.games, exp.precision, exp.budget) == (400, 0.05, 4000)
    checked = parse_design({**BASE, "confirm": {**confirm, "check": ["heuristic"]}})
    exp = parse_experiment(tomllib.loads(confirm_toml(checked, [cand], None)))
    assert exp.precision is None
    assert [(p.name, p.precision, p.budget) for p in exp.populations] == [
        ("players", 0.05, 4000), ("check", None, None)
    ]  # fmt: skip
    with pytest.raises(ExperimentError, match=r"\[confirm\] 'budget' goes with 'precision'"):
        parse_design({**BASE, "confirm": {"games": 400, "budget": 4000}})


def test_a_strategy_that_plays_an_illegal_action_ends_the_design_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plug-in strategy's illegal action stops the search as it stops a run: one
    ``error:`` line naming it, exit 1, what was played kept for the rerun."""
    import haggis_sim.design.run as design_run
    from haggis_sim.runner.chunk import StrategyActionError

    def cheat(*_args: Any, **_kw: Any) -> None:
        raise StrategyActionError("strategy 'cheat' returned an illegal action 7 in game 3")

    monkeypatch.setattr(design_run, "run_design", cheat)
    path = tmp_path / "d.toml"
    path.write_text(_toml(BASE))
    res = invoke("design", str(path), "--out", str(tmp_path / "out"))
    assert res.exit_code == 1 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: strategy 'cheat'"), res.stderr
