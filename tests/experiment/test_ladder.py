"""The strength ladder's convergence rule on hand-built per-population summaries (the
rule alone, no games played), its tolerances, and the refusals of its keys."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from test_populations import refused, write

from haggis_sim.experiment import load_experiment
from haggis_sim.experiment.defaults import stale_defaults
from haggis_sim.experiment.ladder import (
    SETTLE_POWER_Z,
    converge,
    default_tolerance,
    family_z,
    ladder_section,
    rung_rows,
)
from haggis_sim.experiment.markdown import ladder_markdown
from haggis_sim.experiment.separation import Z95

METRIC = "ahead_r1_win"
SE = 0.002  # a tight interval: ±0.4 points


def _d(diff: float | None, se: float) -> dict[str, Any]:
    """A difference (or level) with its 95% interval ``diff ± 1.96·se``."""
    if diff is None:
        return {"diff": None, "low": None, "high": None, "n": 0, "paired": True}
    return {"diff": diff, "low": diff - Z95 * se, "high": diff + Z95 * se, "n": 1000,
            "paired": True}  # fmt: skip


def rung(name: str, answers: dict[str, tuple[float | None, float]], games: int = 1000,
         base: float = 0.6) -> dict[str, Any]:  # fmt: skip
    """One population as :func:`summarize_populations` stores it: the first arm at level
    ``base``, every other arm ``arm: (difference from the first, its SE)``."""
    rows = [{"arm": "old", "mean": base, "low": base - 0.01, "high": base + 0.01, "n": games,
             "vs_first": _d(0.0, 0.0)}]  # fmt: skip
    for arm, (diff, se) in answers.items():
        level = None if diff is None else base + diff
        lvl = _d(level, se)
        rows.append({"arm": arm, "mean": level, "low": lvl["low"], "high": lvl["high"],
                     "n": games, "vs_first": _d(diff, se)})  # fmt: skip
    summary = {"metric": METRIC, "results": {METRIC: {"column": METRIC, "rows": rows}}}
    return {"name": name, "games_per_arm": games, "swap": {}, "summary": summary}


def single_rung(name: str, level: float, se: float, games: int = 1000) -> dict[str, Any]:
    """A one-arm population: its answer is the arm's level."""
    lvl = _d(level, se)
    row = {"arm": "base", "mean": level, "low": lvl["low"], "high": lvl["high"], "n": games,
           "vs_first": _d(0.0, 0.0)}  # fmt: skip
    summary = {"metric": METRIC, "results": {METRIC: {"column": METRIC, "rows": [row]}}}
    return {"name": name, "games_per_arm": games, "swap": {}, "summary": summary}


# ------------------------------------------------------------------ the three verdicts


def test_converged_when_the_top_two_rungs_plant_the_same_effect() -> None:
    pops = [
        rung("greedy", {"new": (-0.04, SE)}),
        rung("learned", {"new": (0.05, SE)}),
        rung("mcts", {"new": (0.05, SE)}),
    ]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "converged"
    assert got["sentence"].startswith("Converged: the two strongest rungs (learned, mcts) agree "
                                      "within ±1.5 points")  # fmt: skip
    inter = got["interactions"]["new"]
    assert inter["diff"] == pytest.approx(0.0)
    assert inter["high"] == pytest.approx(Z95 * math.sqrt(2) * SE)


def test_a_real_change_within_the_tolerance_counts_as_converged() -> None:
    """The tolerance is what matters: +0.8 points (95% +0.3 … +1.3) is inside ±1.5."""
    pops = [rung("learned", {"new": (0.05, SE)}), rung("mcts", {"new": (0.058, SE)})]
    got = converge(pops, METRIC, 0.015)
    assert got["interactions"]["new"]["low"] > 0
    assert got["verdict"] == "converged"


def test_still_moving_when_the_top_two_rungs_plant_opposite_effects() -> None:
    pops = [
        rung("greedy", {"new": (0.01, SE)}),
        rung("learned", {"new": (-0.003, SE)}),
        rung("mcts", {"new": (0.021, SE)}),
    ]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "still moving"
    assert got["sentence"] == (
        "Still moving with strength: new − old rises from -0.3 points at learned to +2.1 "
        "points at mcts: +2.4 points (95% +1.8 points … +3.0 points); over the rungs greedy "
        "+1.0 points, learned -0.3 points, mcts +2.1 points."
    )


def test_still_moving_names_the_falling_arm_and_not_the_steady_one() -> None:
    pops = [
        rung("learned", {"new": (0.04, SE), "steady": (0.01, SE)}),
        rung("mcts", {"new": (-0.04, SE), "steady": (0.01, SE)}),
    ]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "still moving"
    assert "new − old falls from +4.0 points at learned to -4.0 points at mcts" in got["sentence"]
    assert "steady" not in got["sentence"]
    assert "family-wise 95%" in got["sentence"]


def test_not_known_with_wide_intervals_gives_the_games_that_would_resolve_it() -> None:
    wide = 0.05 / Z95  # ±5 points at each rung
    pops = [
        rung("learned", {"new": (0.01, wide)}, games=1000),
        rung("mcts", {"new": (0.012, wide)}, games=400),
    ]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "not known"
    # SE of the interaction: √2 · wide; the change seen, +0.2 points, settles as converged
    # once (1.96 + 1.28)·SE ≤ 1.5 − 0.2 points -> factor (√2·wide·3.24/0.013)² = 80.9
    factor = (math.sqrt(2) * wide * (Z95 + SETTLE_POWER_Z) / 0.013) ** 2
    more_top, more_second = math.ceil(400 * factor) - 400, math.ceil(1000 * factor) - 1000
    assert more_top == 31_971 and more_second == 79_926
    assert (
        f"about {more_top:,} more games per arm at mcts and {more_second:,} at learned would "
        "settle it (four times in five)." in got["sentence"]
    )
    assert "+0.2 points (95% -6.9 points … +7.3 points)" in got["sentence"]


def test_the_games_estimate_settles_a_family_wise_interval() -> None:
    """With three arms judged the interval is family-wise (z = 2.39): the games that
    settle it are more than at 95%."""
    wide = 0.05 / Z95
    pops = [rung(n, {"a": (0.0, wide), "b": (0.0, SE), "c": (0.0, SE)}) for n in ("x", "y")]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "not known"
    z = family_z(3)
    factor = (math.sqrt(2) * wide * (z + SETTLE_POWER_Z) / 0.015) ** 2
    more = math.ceil(1000 * factor) - 1000
    assert f"about {more:,} more games per arm at y and {more:,} at x" in got["sentence"]


def test_no_value_at_the_top_rungs_is_not_known() -> None:
    pops = [rung("learned", {"new": (None, SE)}), rung("mcts", {"new": (None, SE)})]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "not known"
    assert "no value at the top two rungs (learned, mcts)" in got["sentence"]


def test_one_arm_judges_its_level() -> None:
    pops = [single_rung("learned", 0.45, SE), single_rung("mcts", 0.50, SE)]
    got = converge(pops, METRIC, 0.015)
    assert got["single_arm"]
    assert got["verdict"] == "still moving"
    assert "base rises from 45.0% at learned to 50.0% at mcts: +5.0 points" in got["sentence"]
    same = [single_rung("learned", 0.45, SE), single_rung("mcts", 0.45, SE)]
    assert converge(same, METRIC, 0.015)["verdict"] == "converged"


# ------------------------------------------------------------------ family-wise z


def test_family_wise_z_is_bonferroni_over_the_arms_judged() -> None:
    assert family_z(1) == pytest.approx(Z95)
    assert family_z(4) == pytest.approx(2.4977, abs=1e-4)


def test_bonferroni_turns_a_lone_arms_movement_into_not_known_among_four() -> None:
    """A change of 2.2 standard errors excludes 0 at 95% (z 1.96) but not family-wise over
    four arms (z 2.50)."""
    se_each = 0.004
    move = 2.2 * math.sqrt(2) * se_each
    one = [rung("learned", {"new": (0.0, se_each)}), rung("mcts", {"new": (move, se_each)})]
    assert converge(one, METRIC, 0.015)["verdict"] == "still moving"
    arms_low = {"new": (0.0, se_each), "b": (0.0, SE), "c": (0.0, SE), "d": (0.0, SE)}
    arms_top = {**arms_low, "new": (move, se_each)}
    four = [rung("learned", arms_low), rung("mcts", arms_top)]
    got = converge(four, METRIC, 0.015)
    assert got["z"] == pytest.approx(family_z(4))
    assert got["verdict"] == "not known"


# ------------------------------------------------------------------ tolerances


@pytest.mark.parametrize(
    ("metric", "players", "expected"),
    [
        ("win_rate", 2, 0.015),
        ("ahead_r1_win", 3, 0.015),
        ("decisive_bets", 2, 0.015),
        ("share_cards", 2, 0.015),
        ("win_vs_fair", 2, 0.03),
        ("win_vs_fair", 3, 0.045),
        ("rounds", 2, 0.1),
        ("score", 2, 3.0),
        ("margin", 3, 3.0),
        ("bet_points", 2, 3.0),
    ],
)
def test_default_tolerance_per_metric_kind(metric: str, players: int, expected: float) -> None:
    assert default_tolerance(metric, players) == pytest.approx(expected)


BASE = """
name = "lad"
question = "Does the answer hold as the players get stronger?"
games = 8
players = 3
strategies = ["heuristic", "greedy"]
metric = "ahead_r1_win"
also = ["margin", "win_vs_fair"]
grid = { param = "bet", values = [0.55, 0.3] }
"""
POPS = """
[[populations]]
name = "greedy"
[[populations]]
name = "random"
swap = { greedy = "random" }
"""


def test_ladder_tolerances_default_and_given(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, "ladder = true\n" + BASE + POPS))
    assert exp.ladder
    assert exp.tolerance == {"ahead_r1_win": 0.015, "margin": 3.0, "win_vs_fair": 0.045}
    exp = load_experiment(write(tmp_path, "ladder = true\ntolerance = 0.02\n" + BASE + POPS))
    assert exp.tolerance["ahead_r1_win"] == 0.02 and exp.tolerance["margin"] == 3.0
    text = "ladder = true\ntolerance = { margin = 5 }\n" + BASE + POPS
    exp = load_experiment(write(tmp_path, text))
    assert exp.tolerance == {"ahead_r1_win": 0.015, "margin": 5.0, "win_vs_fair": 0.045}


def test_no_ladder_no_tolerance(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, BASE + POPS))
    assert not exp.ladder and exp.tolerance == {}


@pytest.mark.parametrize(
    ("head", "pops", "message"),
    [
        ("ladder = true\n", "", "'ladder = true' needs [[populations]]: at least two, the rungs"),
        ("tolerance = 0.02\n", POPS, "'tolerance' goes with 'ladder = true'"),
        ("ladder = true\ntolerance = 0\n", POPS, "'tolerance' must be a positive number, got 0"),
        ("ladder = true\ntolerance = -1.5\n", POPS, "'tolerance' must be a positive number"),
        ("ladder = true\ntolerance = nan\n", POPS, "'tolerance' must be a positive number"),
        ("ladder = true\ntolerance = { margin = 0.0 }\n", POPS,
         "'tolerance' for 'margin' must be a positive number, got 0.0"),
        ("ladder = true\ntolerance = { margins = 2 }\n", POPS,
         "unknown metric 'margins' in 'tolerance'; known: win_rate,"),
        ("ladder = true\ntolerance = { score = 2 }\n", POPS,
         "'tolerance' for 'score': the experiment does not report it (its metrics: "
         "ahead_r1_win, margin, win_vs_fair)"),
        ("ladder = true\ntolerance = '1.5'\n", POPS,
         "'tolerance' must be a number or a table of METRIC = number, got '1.5'"),
        ("ladder = true\ntolerance = { margin = true }\n", POPS,
         "'tolerance' must be a number or a table of METRIC = number"),
        ("ladder = 1\n", POPS, "key 'ladder' must be bool, got 1"),
        ("ladders = true\n", POPS, "unknown key 'ladders'; allowed keys: name,"),
    ],
)  # fmt: skip
def test_ladder_keys_refused(tmp_path: Path, head: str, pops: str, message: str) -> None:
    text = refused(tmp_path, head + BASE + pops)
    assert message in text
    assert text.startswith(str(tmp_path / "x.toml") + ": ")
    assert "\n" not in text


# ------------------------------------------------------------------ the per-rung view


def test_section_and_rung_table_per_metric() -> None:
    pops = [
        rung("greedy", {"new": (0.01, SE)}),
        rung("learned", {"new": (-0.003, SE)}),
        rung("mcts", {"new": (0.021, SE)}),
    ]
    section = ladder_section(pops, {METRIC: 0.015})
    assert section["rungs"] == ["greedy", "learned", "mcts"]
    lm = section["metrics"][METRIC]
    assert [c["rung"] for c in lm["table"]["new"]] == ["greedy", "learned", "mcts"]
    header, rows = rung_rows(lm, METRIC)
    assert header == ["arm", "greedy", "learned", "mcts", "change learned → mcts (95%)"]
    assert rows[0][0] == "old" and rows[0][1].endswith("; baseline") and rows[0][-1] == ""
    assert rows[1][3] == "62.1% (61.7% … 62.5%); Δ +2.1 points (+1.7 points … +2.5 points)"
    assert rows[1][-1] == "+2.4 points (+1.8 points … +3.0 points)"
    md = ladder_markdown(lm, METRIC)
    assert md[1] == f"**{lm['sentence']}**"  # the sentence first, then the table
    assert md[3].startswith("| arm | greedy | learned | mcts |")


# ------------------------------------------------------------------ end to end (slow)

RUN = """
name = "lad"
question = "Does betting earlier pay, as the opponent changes?"
games = 8
seed = 5
strategies = ["heuristic", "greedy"]
metric = "win_rate"
also = ["margin"]
chunk_size = 4
log_moves = false
ladder = true
tolerance = { margin = 4 }

[[arms]]
name = "default"
[[arms]]
name = "eager"
strategies = ["heuristic:bet=0.3", "greedy"]

[[populations]]
name = "greedy"
[[populations]]
name = "random"
games = 6
swap = { greedy = "random" }
[[populations]]
name = "bettor"
swap = { greedy = "random:bet=0.5" }
"""


@pytest.mark.slow
def test_ladder_run_writes_the_rungs_into_summary_markdown_and_page(tmp_path: Path) -> None:
    """Small real runs summarized by the real code: every metric's section has the
    interaction of the top two rungs' differences as the populations' summaries hold
    them, and the sentence comes first in summary.md and on the page."""
    import html
    import json
    from dataclasses import replace

    from haggis_sim.experiment import run_experiment
    from haggis_sim.experiment.ladder import VERDICT_KINDS
    from haggis_sim.experiment.separation import interaction
    from haggis_sim.experiment.summary import summarize_populations

    exp = load_experiment(write(tmp_path, RUN))
    out = tmp_path / "out"
    summary = run_experiment(exp, out, jobs=1, report=False)
    saved = json.loads((out / "summary.json").read_text())
    ladder = saved["ladder"]
    assert ladder["rungs"] == ["greedy", "random", "bettor"]
    assert list(ladder["metrics"]) == ["win_rate", "margin"]
    assert ladder["metrics"]["margin"]["tolerance"] == 4
    assert ladder["metrics"]["win_rate"]["tolerance"] == 0.015
    pops = {p["name"]: p["summary"] for p in saved["populations"]}
    for metric, lm in ladder["metrics"].items():
        assert lm["verdict"] in VERDICT_KINDS
        assert [c["rung"] for c in lm["table"]["eager"]] == ladder["rungs"]
        rows = {n: s["results"][metric]["rows"][1] for n, s in pops.items()}
        assert [c["mean"] for c in lm["table"]["eager"]] == [rows[n]["mean"] for n in pops]
        want = interaction(rows["bettor"]["vs_first"], rows["random"]["vs_first"])
        got = lm["interactions"]["eager"]
        assert got["diff"] == pytest.approx(want["diff"])
        assert got["high"] == pytest.approx(want["high"])
    md = (out / "summary.md").read_text()
    for metric, lm in ladder["metrics"].items():
        part = md.split(f"\n## {metric}")[1]
        assert part.index(lm["sentence"]) < part.index(saved["cross"][metric]["sentence"])
        assert "| arm | greedy | random | bettor | change random → bettor (95%) |" in part
    page = html.unescape((out / "index.html").read_text())
    assert ladder["metrics"]["win_rate"]["sentence"] in page
    assert "change random → bettor (95%)" in page
    assert "rungs of a strength ladder" in page
    assert summary["ladder"]["rungs"] == ladder["rungs"]
    assert "ladder" not in summarize_populations(replace(exp, ladder=False), out)


# ------------------------------------------------------------------ today's defaults

LADDER = """
name = "lad"
question = "Q?"
games = 8
seed = 5
strategies = ["heuristic", "greedy"]
metric = "win_rate"
ladder = true

[[arms]]
name = "default"

[[arms]]
name = "early"
strategies = ["heuristic:bomb=early", "greedy"]

[[populations]]
name = "vs-greedy"

[[populations]]
name = "vs-learned"
swap = {{ greedy = "{learned}" }}

[[populations]]
name = "vs-mcts"
swap = {{ greedy = "{mcts}" }}
"""


def test_a_ladder_without_todays_defaults_warns(tmp_path: Path) -> None:
    old = LADDER.format(learned="learned:model=gen3", mcts="mcts:iters=64,value=game,model=gen2")
    warnings = stale_defaults(load_experiment(write(tmp_path, old)))
    assert len(warnings) == 2
    assert warnings[0].startswith("warning: no rung of this ladder plays today's default learned")
    assert "at the top (vs-mcts)" in warnings[0] and "default mcts (mcts:" in warnings[1]
    # today's defaults, by their full specs or by bare name, and a rung above them: no warning
    for learned, mcts in (("learned", "mcts"), ("learned", "mcts:iters=24,value=net,mix=0.5,"
                                                           "qinit=3,model=mix5")):  # fmt: skip
        text = LADDER.format(learned=learned, mcts=mcts)
        assert stale_defaults(load_experiment(write(tmp_path, text))) == []
    above = LADDER.format(learned="learned", mcts="mcts") + (
        '\n[[populations]]\nname = "vs-deeper"\nswap = { greedy = "mcts:iters=48" }\n'
    )
    assert stale_defaults(load_experiment(write(tmp_path, above))) == []


def test_not_known_names_the_change_furthest_from_settled_and_never_zero_games() -> None:
    # "a" is within the tolerance already (the widest interval); "b" straddles its edge:
    # the games must be those that settle "b", not "about 0 more games" from "a"
    z = family_z(2)
    answers = {"a": (0.0, 0.0128 / z), "b": (0.012, 0.013 / z)}
    pops = [rung("learned", {k: (0.0, 1e-9) for k in answers}), rung("mcts", answers)]
    got = converge(pops, METRIC, 0.015)
    assert got["verdict"] == "not known"
    assert "furthest from settled, b − old +1.2 points" in got["sentence"]
    assert "about 0 more" not in got["sentence"]


@pytest.mark.slow  # reads every shipped ladder's runs
def test_the_rebuilt_ladders_play_todays_defaults() -> None:
    """Every shipped ladder ends with today's players (a file whose top rung is no longer
    today's default warns: :func:`stale_defaults`)."""
    for name in ("scoring-rules", "bomb-timing", "players-2-vs-3", "betting-thresholds"):
        exp = load_experiment(Path("experiments") / f"{name}.toml")
        assert stale_defaults(exp) == [], name
