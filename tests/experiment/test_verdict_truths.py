"""The verdicts against known truths: the best arm and the cross-population verdict are
statistics, not rankings.

* A/A: one real run's games split at random by deal (the rotated replays of a deal stay
  together) into arms that did the same thing; a separable claim (best, holds,
  disagrees) must be rare (≤ 7% of ≥ 200 splits).
* A planted difference: the same splits with a known share of one arm's wins turned into
  losses; the handicapped arm must be found, and populations planted with opposite
  handicaps must disagree.
* One test per verdict kind (best, tied, holds, disagrees, not separable) on constructed
  games whose differences are known exactly; each fails when the rule behind it is broken.

Every summary here is built by :func:`summarize` from per-game frames (the same code as an
experiment's ``summary.json``) and every cross verdict by :func:`cross_population`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from verdict_helpers import experiment, frame, pair, summary_of

from haggis_sim.analytics.compare import game_metrics
from haggis_sim.experiment import best_line, cross_population
from haggis_sim.experiment.separation import games_to_detect, games_to_resolve
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig, execute

SPLITS = 200
RUN_GAMES = 4000  # 2,000 deals, each played twice (seats rotated)


def cross(*summaries: dict[str, Any]) -> dict[str, Any]:
    return cross_population([(f"p{i}", s) for i, s in enumerate(summaries)], "win_rate")


# ------------------------------------------------------------------ one real run, split


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    out = tmp_path_factory.mktemp("aa") / "run"
    rules = Rules.preset("revised", players=2)
    config = RunConfig(strategies=["heuristic", "greedy"], games=RUN_GAMES,
                       rules=rules.as_dict(), seed=11, jobs=1, log_moves=False)  # fmt: skip
    execute(config, out)
    frame = game_metrics(out)
    assert frame.group_by("deal_id").len()["len"].to_list() == [2] * (RUN_GAMES // 2)
    return frame


def split(frame: pl.DataFrame, parts: int, rng: np.random.Generator) -> list[pl.DataFrame]:
    """``parts`` frames of equally many deals each, deals drawn at random."""
    deals = rng.permutation(frame["deal_id"].unique().sort().to_numpy())
    return [frame.filter(pl.col("deal_id").is_in(chunk)) for chunk in np.array_split(deals, parts)]


def handicap(frame: pl.DataFrame, share: float, rng: np.random.Generator) -> pl.DataFrame:
    """The frame with ``share`` of entry 0's wins turned into losses (at random)."""
    wins = frame["win_rate_0"].to_numpy().copy()
    won = np.flatnonzero(wins == 1)
    wins[rng.choice(won, size=round(share * len(won)), replace=False)] = 0.0
    return frame.with_columns(pl.Series("win_rate_0", wins))


@pytest.mark.slow  # a false-verdict rate needs many simulated blocks
def test_aa_best_arm_is_rarely_claimed(games: pl.DataFrame) -> None:
    rng = np.random.default_rng(1)
    exp = experiment(["a", "b"])
    kinds = [summary_of(exp, split(games, 2, rng))["best"]["kind"] for _ in range(SPLITS)]
    rate = kinds.count("best") / SPLITS
    print(f"A/A, 2 arms: best claimed in {rate:.1%} of {SPLITS} splits")
    assert set(kinds) <= {"best", "tied"}
    assert rate <= 0.07


@pytest.mark.slow  # a false-verdict rate needs many simulated blocks
@pytest.mark.parametrize(("arms", "seed"), [(2, 2), (4, 5)])
def test_aa_cross_verdict_is_rarely_separable(games: pl.DataFrame, arms: int, seed: int) -> None:
    # with 4 arms the tops of two populations are picked from 4 arms each: without counting
    # the 6 arm pairs as tests, noise "disagrees" in about 14% of these splits
    rng = np.random.default_rng(seed)
    exp = experiment(list("abcd"[:arms]))
    verdicts = []
    for _ in range(SPLITS):
        f = split(games, 2 * arms, rng)
        verdicts.append(cross(summary_of(exp, f[:arms]), summary_of(exp, f[arms:]))["verdict"])
    rates = {v: verdicts.count(v) / SPLITS for v in ("holds", "disagrees", "not separable")}
    print(f"A/A, {arms} arms x 2 populations over {SPLITS} splits: {rates}")
    assert rates["holds"] + rates["disagrees"] <= 0.07


def test_planted_handicap_is_found(games: pl.DataFrame) -> None:
    rng = np.random.default_rng(3)
    exp = experiment(["a", "b"])
    named: list[str] = []
    for _ in range(100):
        a, b = split(games, 2, rng)
        best = summary_of(exp, [a, handicap(b, 0.05, rng)])["best"]
        named.append(best["arm"] if best["kind"] == "best" else "tied")
    print(f"planted −5% of b's wins: best a {named.count('a')}, b {named.count('b')}, tied "
          f"{named.count('tied')} of 100")  # fmt: skip
    assert named.count("a") >= 80 and named.count("b") == 0


def test_planted_opposite_handicaps_disagree(games: pl.DataFrame) -> None:
    rng = np.random.default_rng(4)
    exp = experiment(["a", "b"])
    verdicts = []
    for _ in range(50):
        pa, pb, qa, qb = split(games, 4, rng)
        p = summary_of(exp, [pa, handicap(pb, 0.08, rng)])
        q = summary_of(exp, [handicap(qa, 0.08, rng), qb])
        got = cross(p, q)
        verdicts.append(got["verdict"])
        if got["verdict"] == "disagrees":
            assert got["interactions"][0]["arms"] in (["a", "b"], ["b", "a"])
    print(f"planted opposite handicaps: {verdicts.count('disagrees')} of 50 disagree")
    assert verdicts.count("disagrees") >= 40 and "holds" not in verdicts


# ------------------------------------------------------------------ one test per kind


# x ahead of y by +0.2 points, 95% interval about ±1.5: the "bet045" tie
TIE = pair(4000, 472, 464, 2000)
# x ahead of y by +5.0 points, 95% interval about ±1.4: separable
LEAD = pair(4000, 400, 200, 2000)


def test_best_is_separable_from_every_arm() -> None:
    x, y = LEAD
    worse = y.copy()
    worse[2000:2200] = 0  # 5 points below y on the same games
    got = summary_of(experiment(["y", "x", "w"]), [frame(y), frame(x), frame(worse)])["best"]
    assert got["kind"] == "best" and got["arm"] == "x" and got["tied"] == []
    assert [o["arm"] for o in got["vs_others"]] == ["y", "w"]
    assert got["vs_others"][0]["diff"] == pytest.approx(0.05) and got["vs_others"][0]["paired"]
    assert got["runner_up"] == "y" and got["clear"] and got["more_games"] is None
    low = summary_of(experiment(["y", "x", "w"], goal="min"),
                     [frame(y), frame(x), frame(worse)])["best"]  # fmt: skip
    assert low["kind"] == "best" and low["arm"] == "w"


def test_tied_when_the_top_is_not_separable_from_the_runner_up() -> None:
    x, y = TIE
    summary = summary_of(experiment(["y", "x"]), [frame(y), frame(x)])
    got = summary["best"]
    assert got["arm"] == "x" and got["vs_runner_up"]["diff"] == pytest.approx(0.002)
    assert got["kind"] == "tied" and got["tied"] == ["y"] and not got["clear"]
    # +0.2 points is below the ±1.5-point tolerance of a rate: power would chase ±0.14
    # points with ~400,000 more games; the games named find a true 1.5 points 4 times in 5
    power = games_to_resolve(got["vs_runner_up"], 4000)
    assert power is not None and power[1] < 0.015 and power[0] > 100_000
    more = got["more_games"]
    assert more["vs"] == "y" and more["games"] == 4000 and more["diff"] == pytest.approx(0.002)
    want = games_to_detect(got["vs_runner_up"], 4000, 0.015)
    assert more["basis"] == "tolerance" and more["detect"] == 0.015
    assert want is not None and more["more"] == want > 0
    line = best_line(summary)
    assert line.startswith("best arm by win_rate (max): none separable — x = 61.8%")
    assert "is tied with y (vs runner-up y: +0.2%" in line
    assert line.endswith(
        f"not separable at 4,000 games — the difference from y (0.2 points) is below the "
        f"tolerance; about {want:,} more games per arm would find a true difference of 1.5 "
        "points (the tolerance) four times in five"
    )


def test_a_small_tie_gets_the_games_that_find_the_tolerance() -> None:
    x, y = pair(1000, 120, 118, 500)  # +0.2 points on 1,000 games, interval about ±3
    summary = summary_of(experiment(["y", "x"]), [frame(y), frame(x)])
    more = summary["best"]["more_games"]
    narrow = games_to_resolve(summary["best"]["vs_runner_up"], 1000, half_width=0.015)
    want = games_to_detect(summary["best"]["vs_runner_up"], 1000, 0.015)
    assert want is not None and more["basis"] == "tolerance" and more["more"] == want > 0
    # 80% power needs (1.96 + 0.84)² / 1.96² ≈ 2.04 times the games of an interval of ±1.5
    assert narrow is not None and (1000 + want) / (1000 + narrow[0]) == pytest.approx(2.04, 0.01)
    assert best_line(summary).endswith(
        f"not separable at 1,000 games — the difference from y (0.2 points) is below the "
        f"tolerance; about {want:,} more games per arm would find a true difference of 1.5 "
        "points (the tolerance) four times in five"
    )


def test_a_tie_larger_than_the_tolerance_gets_the_power_based_games() -> None:
    x, y = pair(200, 30, 20, 100)  # +5.0 points on 200 games, interval about ±6
    got = summary_of(experiment(["y", "x"]), [frame(y), frame(x)])["best"]
    assert got["kind"] == "tied"
    more, hw = games_to_resolve(got["vs_runner_up"], 200) or (0, 0.0)
    assert hw == pytest.approx(0.05 * 1.96 / (1.96 + 0.84), rel=1e-3) and hw > 0.015
    assert got["more_games"] == {
        "vs": "y", "games": 200, "diff": pytest.approx(0.05), "low": got["vs_runner_up"]["low"],
        "high": got["vs_runner_up"]["high"], "more": more, "half_width": hw, "basis": "power",
    }  # fmt: skip
    assert best_line(summary_of(experiment(["y", "x"]), [frame(y), frame(x)])).endswith(
        f"about {more:,} more games per arm would resolve ±{hw * 100:.1f} points"
    )


def test_a_tie_already_within_the_tolerance_needs_no_more_games() -> None:
    x, y = pair(40_000, 2002, 1998, 20_000)  # +0.01 points, interval about ±0.3
    got = summary_of(experiment(["y", "x"]), [frame(y), frame(x)])["best"]
    assert got["kind"] == "tied" and got["more_games"]["more"] == 0
    assert best_line(summary_of(experiment(["y", "x"]), [frame(y), frame(x)])).endswith(
        "not separable at 40,000 games — the difference from y, +0.0 points [-0.3, +0.3], lies "
        "within ±1.5 points (the tolerance): too small to matter"
    )


def test_tied_with_a_lower_arm_the_top_is_not_separable_from() -> None:
    x, y = LEAD
    few = frame([1] * 21 + [0] * 19)  # 52.5% in 40 other games: below y, a wide interval
    got = summary_of(experiment(["y", "x", "few"]), [frame(y), frame(x), few])["best"]
    assert got["clear"] and got["runner_up"] == "y"  # separable from the runner-up ...
    assert got["kind"] == "tied" and got["tied"] == ["few"]  # ... but not from every arm
    assert got["more_games"]["vs"] == "few" and got["more_games"]["games"] == 40


def test_holds_only_where_every_population_separates_the_same_arm() -> None:
    exp = experiment(["y", "x"])
    lead = summary_of(exp, [frame(LEAD[1]), frame(LEAD[0])])
    tie = summary_of(exp, [frame(TIE[1]), frame(TIE[0])])
    got = cross(lead, lead)
    assert got["verdict"] == "holds" and got["not_separable"] == []
    assert got["sentence"].startswith(
        "Holds in every population: the best arm is x, separable from every other arm in "
        "each (vs its runner-up in p0: +5.0% (95% "
    )
    # the same top arm by raw means, but tied in one population: not "holds"
    assert cross(lead, tie)["verdict"] == "not separable"


def test_disagrees_names_both_populations_arms_and_the_interaction() -> None:
    exp = experiment(["y", "x"])
    p = summary_of(exp, [frame(LEAD[1]), frame(LEAD[0])])  # x ahead by +5.0
    q = summary_of(exp, [frame(LEAD[0]), frame(LEAD[1])])  # y ahead by +5.0
    got = cross(p, q)
    assert got["verdict"] == "disagrees" and got["tests"] == 1
    inter = got["interactions"][0]
    assert inter["populations"] == ["p0", "p1"] and inter["arms"] == ["x", "y"]
    assert inter["interaction"]["diff"] == pytest.approx(0.10) and inter["separable"]
    sentence = got["sentence"]
    assert sentence.startswith(
        "Disagrees across populations: the best arm is x in p0 (x − y +5.0% (95% "
    )
    assert "but the best arm is y in p1 (x − y -5.0% (95% " in sentence
    assert "the difference of the two differences is +10.0% (95%: +" in sentence


def test_tops_that_differ_by_noise_do_not_disagree() -> None:
    exp = experiment(["y", "x"])
    p = summary_of(exp, [frame(TIE[1]), frame(TIE[0])])  # x ahead by +0.2, tied
    q = summary_of(exp, [frame(TIE[0]), frame(TIE[1])])  # y ahead by +0.2, tied
    got = cross(p, q)
    assert got["tops"] == {"p0": "x", "p1": "y"}  # the raw ranking differs ...
    assert got["interactions"] and not got["interactions"][0]["separable"]
    assert got["verdict"] == "not separable"  # ... the interaction does not separate it


def test_disagrees_is_family_wise_over_populations_and_arms() -> None:
    # x leads y by 1.55 standard errors in p, y leads x so in q: the interaction is 2.2
    # standard errors, beyond 1.96 but not beyond the 2.39 of 3 tests (3 arms, 3 arm pairs
    # any of which the tops could have been, in 1 pair of populations)
    x, y = pair(4000, 422, 378, 2000)
    far = np.zeros(4000)
    exp = experiment(["y", "x", "far"])
    p = summary_of(exp, [frame(y), frame(x), frame(far)])
    q = summary_of(exp, [frame(x), frame(y), frame(far)])
    got = cross(p, q)
    assert got["tops"] == {"p0": "x", "p1": "y"}
    assert got["tests"] == 3
    inter = got["interactions"][0]["interaction"]
    assert inter["low"] < 0 < inter["diff"] - 1.96 * inter["se"]  # only separable uncorrected
    assert got["verdict"] == "not separable"
    assert "family-wise over 3 tests" in got["sentence"]


def test_not_separable_says_who_separates_what_and_how_many_games_would_resolve() -> None:
    exp = experiment(["y", "x"])
    lead = summary_of(exp, [frame(LEAD[1]), frame(LEAD[0])])
    tie = summary_of(exp, [frame(TIE[1]), frame(TIE[0])])
    got = cross(lead, tie)
    assert got["verdict"] == "not separable" and got["not_separable"] == ["p1"]
    assert got["interactions"] == []
    more = tie["best"]["more_games"]["more"]
    assert got["sentence"] == (
        "Not separable across populations: p0 separates x as the best arm; p1 has x tied "
        "with y (not separable at 4,000 games — the difference from y (0.2 points) is below "
        f"the tolerance; about {more:,} more games per arm would find a true difference of "
        "1.5 points (the tolerance) four times in five)."
    )
