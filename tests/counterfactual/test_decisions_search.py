"""A study's search is the default mcts's, and its sampling fills the cells that decide
(haggis_sim.counterfactual.decisions), on a small logged three-player run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim import kernel as K
from haggis_sim.analytics import decision_table
from haggis_sim.counterfactual.decisions import (
    EVALUATE,
    SELECT,
    StudySettings,
    cell_features,
    load_run,
    position_seed,
    run_study,
    sample_positions,
    score_bets,
    score_bomb,
)
from haggis_sim.position import action_from_code
from strategies.analysis import NO_BET, compare, root_visits
from strategies.base import parse_spec
from strategies.builtin import ROLLOUT_MCTS, MctsStrategy

pytestmark = pytest.mark.slow  # a logged run and searches: not in the everyday fast subset


@pytest.fixture(scope="module")
def run3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("strata") / "run"
    res = invoke(
        "run", "-p", "3", "--strategies", "heuristic,heuristic,heuristic", "--games", "30",
        "--chunk-size", "30", "--jobs", "1", "--seed", "11", "--out", str(out), "-q",
    )  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr)
    return out


def test_the_study_search_defaults_to_the_default_mcts() -> None:
    """A study judged by a weaker search than the strongest default player (value=round,
    no prior) is what #25 found; the defaults must stay those of the rollout ``mcts``
    (the default player when the shipped studies were measured, ROLLOUT_MCTS)."""
    s, mcts = StudySettings(), MctsStrategy(**parse_spec(ROLLOUT_MCTS)[1]).values
    assert (s.value, s.prior, s.c, s.rollout) == ("game", "learned", 0.7, "greedy")
    assert (s.value, s.prior, s.c, s.rollout) == (
        mcts["value"], mcts["prior"], mcts["c"], mcts["rollout"]
    )  # fmt: skip
    assert "the rollout mcts search (value=game, prior=learned)" in s.describe()
    weaker = StudySettings(value="round", prior="none").describe()
    assert weaker.startswith("a search weaker than the rollout mcts (value=round, prior=none)")


def test_bets_are_measured_with_the_game_value(run3: Path) -> None:
    rules, _ = load_run(run3)
    opp = next(
        o for o in sample_positions(run3, "bets", 50, 0) if o.observation.scores != (0, 0, 0)
    )
    obs = opp.observation
    row = score_bets(obs, rules, StudySettings(samples=20), 7)[0]
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    codes = buf[: K.legal_actions(obs.array, buf, True)]
    bets = [action_from_code(obs.seat, int(x)) for x in codes if K.move_type(x) == K.T_BET]
    seed = position_seed(0, 7, EVALUATE)
    game = compare(obs, NO_BET, bets, samples=20, value="game", seed=seed)
    rnd = compare(obs, NO_BET, bets, samples=20, value="round", seed=seed)
    assert row["no_bet_value"] == game.baseline.value != rnd.baseline.value


def test_a_bombs_alternatives_are_chosen_by_the_prior_search(run3: Path) -> None:
    """With prior=learned the bomb and the other play scored are the most visited of the
    default mcts's root search; with prior=none (equal samples) they differ somewhere."""
    rules, _ = load_run(run3)
    differ = 0
    for i, opp in enumerate(sample_positions(run3, "bombs", 12, 1)):
        obs = opp.observation
        plays = [action_from_code(obs.seat, int(c)) for c in _legal(obs)]
        learned = score_bomb(obs, rules, StudySettings(samples=8), i)[0]
        visits = root_visits(obs, 8 * len(plays), seed=position_seed(0, i, SELECT))
        bombs = [a for a in plays if a.combo is not None and a.combo.kind == "bomb"]
        others = [a for a in plays if a not in bombs]
        assert learned["bomb"] == str(max(bombs, key=lambda a: visits[a.code]).combo)
        assert learned["best_other"] == str(max(others, key=lambda a: visits[a.code]))
        plain = score_bomb(obs, rules, StudySettings(samples=8, prior="none"), i)[0]
        differ += (plain["bomb"], plain["best_other"]) != (learned["bomb"], learned["best_other"])
    assert differ > 0


def _legal(obs) -> list[int]:  # type: ignore[no-untyped-def]
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    return [int(x) for x in buf[: K.legal_actions(obs.array, buf, False)]]


def test_stratified_sampling_fills_a_rare_cell_that_uniform_sampling_misses(run3: Path) -> None:
    rules, _ = load_run(run3)
    cross = decision_table.crossing("bombs")
    order = [
        cross.key(cell_features("bombs", o.observation, rules))[0]
        for o in sample_positions(run3, "bombs", 10_000, 0)
    ]
    counts, least = Counter(order), 3
    rare = min((c for c in counts if counts[c] >= least), key=lambda c: counts[c])
    # the cap: the uniform sample of that many holds fewer than `least` of the rare cell,
    # yet room enough for every cell's quota
    cap = [i for i, c in enumerate(order) if c == rare][least - 1]
    assert sum(min(n, least) for n in counts.values()) <= cap, (counts, cap)
    assert counts[rare] / len(order) < 0.15  # rare indeed
    uniform = run_study("bombs", run3, StudySettings(positions=cap, samples=2, min_per_bin=0))
    assert uniform.positions.height == cap
    assert uniform.positions["stratum"].to_list().count(rare) < least
    strat = run_study("bombs", run3, StudySettings(positions=cap, samples=2, min_per_bin=least))
    got = Counter(strat.positions["stratum"].to_list())
    assert got[rare] == least
    assert all(got[c] == min(n, least) for c, n in counts.items())  # every cell, where it can
    weights = dict(zip(strat.positions["stratum"], strat.positions["weight"], strict=True))
    assert weights[rare] == 1.0 and max(weights.values()) == max(counts.values()) / least
    assert "cells met hold 3; rows over several cells reweighted" in strat.population


def test_the_cli_records_the_search_and_takes_its_flags(run3: Path) -> None:
    res = invoke("study", "bets", str(run3), "--positions", "3", "--samples", "4")
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert "the rollout mcts search (value=game, prior=learned)" in " ".join(res.stdout.split())
    args = ["study", "bets", str(run3), "--positions", "3", "--samples", "4", "--value", "round",
            "--prior", "none", "--min-per-bin", "0"]  # fmt: skip
    res = invoke(*args)
    assert res.exit_code == 0, (res.stdout, res.stderr)
    text = " ".join(res.stdout.split())
    assert "weaker than the rollout mcts (value=round, prior=none)" in text
    assert "sampling uniform" in text
    one_line_error(invoke("study", "bets", str(run3), "--prior", "mcts"), "prior must be one of")
    one_line_error(invoke("study", "bets", str(run3), "--min-per-bin", "-1"), "min_per_bin")
