"""The experiment page's answer-first pieces: arm labels, head-to-head arms apart from the
ranking, the axis, the bottom line (never claiming more than the verdicts), code in the
question, and the figures along the axis and against strength."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_verdict_truths import LEAD, TIE, experiment, frame, summary_of

from haggis_sim.experiment import ExperimentError, load_experiment, parse_experiment
from haggis_sim.experiment.bottom_line import bottom_line, study_headline
from haggis_sim.experiment.figures import axis_figure, strength_figure
from haggis_sim.experiment.markdown import summary_markdown
from haggis_sim.experiment.page import code_text, level_rows
from haggis_sim.experiment.summary import with_spec
from haggis_sim.experiment.verdicts import verdict_sentence

ROOT = Path(__file__).resolve().parents[2]
BASE = {"name": "x", "question": "q", "games": 10, "strategies": ["heuristic", "greedy"],
        "metric": "bet_points"}  # fmt: skip


def shipped(name: str) -> dict:
    """A committed summary with its experiment file's page keys."""
    summary = json.loads((ROOT / "reports" / name / "summary.json").read_text())
    return with_spec(summary, load_experiment(ROOT / "experiments" / f"{name}.toml"))


def test_arm_page_keys_and_grid_labels_on_the_axis() -> None:
    exp = parse_experiment({
        **BASE, "axis": "bet threshold",
        "arms": [{"name": "default", "label": "default"},
                 {"name": "h2h", "strategies": ["heuristic", "random"], "head_to_head": True}],
        "grid": {"param": "bet", "values": [0.35, 0.45]},
    })  # fmt: skip
    arms = {a.name: a for a in exp.arms}
    assert exp.axis == "bet threshold"
    assert arms["h2h"].head_to_head and not arms["default"].head_to_head
    assert arms["h2h"].label == "" and arms["h2h"].at is None
    assert (arms["bet=0.35"].label, arms["bet=0.35"].at) == ("bet 0.35", 0.35)
    no_axis = parse_experiment({**BASE, "grid": {"param": "bet", "values": [0.35]}})
    assert no_axis.arms[0].at is None and no_axis.arms[0].label == "bet 0.35"


@pytest.mark.parametrize(
    ("arms", "top", "message"),
    [
        ([{"name": "a", "head_to_head": True}], {}, "the first arm is the baseline"),
        ([{"name": "a", "at": 0.5}], {}, "'at' places the arm on the experiment's 'axis'"),
        ([{"name": "a", "label": "s"}, {"name": "b", "label": "s", "rules": "deluxe"}], {},
         "two arms are labelled 's'"),
        ([{"name": "a", "label": 3}], {}, "'label' must be a text (a short name), got 3"),
        ([{"name": "a", "at": "x"}], {"axis": "t"}, "'at' must be a number"),
        ([{"name": "a"}], {"axis": 1}, "'axis' must be a text"),
    ],
)  # fmt: skip
def test_page_keys_are_refused_with_one_line(arms: list, top: dict, message: str) -> None:
    with pytest.raises(ExperimentError, match=None) as err:
        parse_experiment({**BASE, **top, "arms": arms})
    assert message in str(err.value)


def test_a_head_to_head_arm_is_never_ranked_against_the_baseline() -> None:
    x, y = LEAD
    exp = experiment(["y", "x", "h"])
    exp = replace(exp, arms=(*exp.arms[:2], replace(exp.arms[2], head_to_head=True)))
    summary = summary_of(exp, [frame(y), frame(x), frame([1] * len(x))])
    best = summary["best"]
    assert best["arm"] == "x" and best["kind"] == "best"
    assert "h" not in [o["arm"] for o in best["vs_others"]]
    assert [a["head_to_head"] for a in summary["arms"]] == [False, False, True]
    labels = {a["name"]: a["label"] for a in summary["arms"]}
    ranked = verdict_sentence(summary, "win_rate", labels).partition("Against a fair")[0]
    assert "; higher in x +5.0%" in ranked and " h " not in ranked
    line = bottom_line(summary)[0]
    assert "best: x 60.0% [" in line and "h 100" not in line
    header, rows = level_rows(summary, True)
    assert header == ["arm", "win_rate"] and [r[0] for r in rows] == ["h"]


def test_the_bottom_line_claims_a_best_arm_only_when_separable() -> None:
    x, y = TIE
    tied = bottom_line(summary_of(experiment(["y", "x"]), [frame(y), frame(x)]))[0]
    assert "best:" not in tied and "no best arm: the top, x 61.8% [" in tied
    assert "would find a true difference of 1.5 points (the tolerance) four times in five" in tied
    labelled = summary_of(experiment(["y", "x"]), [frame(y), frame(x)])
    labelled["arms"][0]["label"] = "arm Y"  # the bottom line names the tied arm by its label
    assert "the difference from arm Y (0.2 points) is below" in bottom_line(labelled)[0]
    assert "x − baseline +0.2 points [" in tied and "no difference from the baseline" in tied
    x, y = LEAD
    best = bottom_line(summary_of(experiment(["y", "x"]), [frame(y), frame(x)]))[0]
    assert best.startswith("How often the entry wins the game (win_rate): y (baseline) 55.0% [")
    assert "best: x 60.0% [58.5%, 61.5%], separable" in best
    assert "x − baseline +5.0 points [+3.8, +6.2]: above the baseline" in best
    assert best.endswith("(heuristic vs greedy, 10 games per arm).")


def test_shipped_bottom_lines_state_convergence_and_the_study() -> None:
    lines = bottom_line(shipped("betting-thresholds"))
    assert lines[0].startswith("At the top rung (vs-mcts), the entry's net points from bets ")
    assert lines[0].endswith("(heuristic vs mcts, 10,000 games per arm).")
    assert lines[1].startswith("Still moving with strength: bet 0.35 − default")
    assert lines[2].startswith("Study bets over vs-learned/default: ")
    assert "advice that won when followed in play" in lines[2]
    scoring = bottom_line(shipped("scoring-rules"))
    assert scoring[0].startswith("At the top rung (mcts), how often the seat ahead after round 1")
    assert scoring[0].endswith("(3 mcts players, 24,000 games per arm).")
    assert scoring[1].startswith("Still moving with strength: classic − revised (old points)")


@pytest.mark.parametrize(
    "name", sorted(p.parent.name for p in (ROOT / "reports").glob("*/summary.json"))
)
def test_shipped_summary_markdown_is_what_the_code_writes_today(name: str) -> None:
    """A shipped summary.md written by older code (a bottom line that names a stronger
    search as plain "mcts") must be rebuilt, not left beside a summary.json that says
    otherwise. Rebuilt where its arms were kept, no game is played again."""
    folder = ROOT / "reports" / name
    summary = json.loads((folder / "summary.json").read_text())
    assert (folder / "summary.md").read_text() == summary_markdown(summary), (
        f"rebuild it: haggis-sim experiment experiments/{name}.toml --out reports/{name}"
    )


def test_shipped_bottom_lines_name_the_stronger_search_by_its_parameters() -> None:
    line = bottom_line(shipped("bomb-timing"))[0]
    assert "(heuristic vs mcts, 10,000 games per arm)." in line  # today's default: bare
    bombs = bottom_line(shipped("bomb-timing"))
    assert bombs[0].startswith("At the top rung (vs-mcts), how often the entry wins the game")
    assert (
        "best: bomb late (baseline) 8.4% [7.9%, 8.9%], separable from every other arm" in (bombs[0])
    )
    assert bombs[0].endswith("(heuristic vs mcts, 10,000 games per arm).")
    assert bombs[1].startswith("Still moving with strength: bomb early − bomb late")


def older(summary: dict) -> dict:
    """``summary`` as written before head-to-head arms existed: no ``head_to_head`` or
    ``label`` in its arms, every arm in the ladder's interactions, and a head-to-head arm
    as the top rung's top."""
    old = copy.deepcopy(summary)
    for pop in old["populations"]:
        for arm in pop["summary"]["arms"]:
            arm.pop("head_to_head", None)
            arm.pop("label", None)
    judged = old["ladder"]["metrics"]["win_rate"]["interactions"]
    judged["never-vs-late"] = dict(next(iter(judged.values())))
    old["populations"][-1]["summary"]["results"]["win_rate"]["top"].update(
        arm="never-vs-late", kind="best", tied=[]
    )
    return old


def test_an_older_summary_judges_its_ladder_without_the_head_to_head_arms() -> None:
    raw = older(json.loads((ROOT / "reports" / "bomb-timing" / "summary.json").read_text()))
    assert "never-vs-late" in raw["ladder"]["metrics"]["win_rate"]["interactions"]
    got = with_spec(raw, load_experiment(ROOT / "experiments" / "bomb-timing.toml"))
    judged = got["ladder"]["metrics"]["win_rate"]["interactions"]
    assert set(judged) == {"early-vs-greedy", "never-vs-greedy", "late-out1-vs-greedy",
                           "late-out5-vs-greedy", "late-give15-vs-greedy"}  # fmt: skip
    line = bottom_line(got)[0]
    assert "best" not in line and "never vs late" not in line  # its top was head to head


def test_backticks_render_as_code_and_the_rest_stays_escaped() -> None:
    assert str(code_text("bet `a<b` & `big`")) == ("bet <code>a&lt;b</code> &amp; <code>big</code>")
    assert str(code_text("one `odd")) == "one `odd"


def test_summary_md_opens_with_the_bottom_line() -> None:
    x, y = LEAD
    single = summary_markdown(summary_of(experiment(["y", "x"]), [frame(y), frame(x)]))
    assert single.startswith("# Experiment aa\n\n**Bottom line**\n\n- How often the entry")
    md = summary_markdown(shipped("scoring-skill"))
    head = md.index("**Bottom line**")
    assert head < md.index(
        "- In learned-vs-heuristic, how often the entry wins the game (win_rate): "
    )
    assert head < md.index("Does the new (per-card) scoring")


@pytest.mark.slow  # renders two figures
def test_figures_along_the_axis_and_against_strength(tmp_path: Path) -> None:
    bets = shipped("betting-thresholds")
    assert axis_figure(bets, tmp_path / "axis.png") and (tmp_path / "axis.png").stat().st_size
    assert strength_figure(bets, tmp_path / "s.png") and (tmp_path / "s.png").stat().st_size
    unplaced = {k: v for k, v in bets.items() if k != "axis"}  # arms with 'at', no axis
    assert not axis_figure(unplaced, tmp_path / "a1.png")
    skill = shipped("scoring-skill")  # no axis, no ladder: neither is drawn
    assert not axis_figure(skill, tmp_path / "a2.png") and not (tmp_path / "a2.png").exists()
    assert not strength_figure(skill, tmp_path / "s2.png")


def test_a_tied_baseline_on_top_is_named_with_the_arms_it_ties() -> None:
    x, y = TIE
    line = bottom_line(summary_of(experiment(["x", "y"]), [frame(x), frame(y)]))[0]
    assert "no best arm: the baseline is on top, tied with y (" in line
    assert "four times in five" in line and "best:" not in line


def test_a_study_without_advice_says_what_its_followed_lines_showed() -> None:
    def rec(status: str | None, points: float = 0.0) -> dict:
        bases = [{"text": f"followed: {points:+.1f} points of games won (b)", "points": points}]
        return {"followed": {"status": status, "bases": bases} if status else None}

    advice = [rec(None), rec("failed", -8.9), rec("not confirmed"), rec(None)]
    study = {"label": "bombs over x", "followed_games": 2000, "advice": advice,
             "guidance": ["a: 1", "do not bomb: 2", "c: 3", "d: 4"]}  # fmt: skip
    line = study_headline(study)
    assert line.startswith("Study bombs over x: none of its 4 lines is advice; 2 with a clear")
    assert "1 lost, e.g. following “do not bomb” lost (followed: -8.9 points" in line
    assert "1 not confirmed either way" in line


def test_the_axis_figure_marks_the_default_the_others_are_read_against() -> None:
    from haggis_sim.experiment.figures import _mark_first_arm
    from haggis_sim.report.style import pyplot

    bets = shipped("betting-thresholds")
    assert bets["populations"][0]["summary"]["arms"][0].get("at") is None  # not on the axis
    fig, ax = pyplot().subplots()
    label = _mark_first_arm(ax, bets, bets["metric"], 1.0)
    assert label.startswith("default")  # the file's label of its first arm
    dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":" and len(ln.get_ydata())]
    wanted = [
        float(p["summary"]["results"][bets["metric"]]["rows"][0]["mean"])
        for p in bets["populations"]
    ]
    assert sorted(float(ln.get_ydata()[0]) for ln in dotted) == pytest.approx(sorted(wanted))
    assert label in ax.get_legend_handles_labels()[1]
