"""Counterfactual decision studies (haggis_sim.counterfactual.decisions, ``haggis-sim study``).

Tiny runs, few positions, few samples: these check the machinery (which positions are
sampled, what is recorded, determinism, the information set, the claim rule, the
command's errors), not the game's answers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from cli_helpers import one_line_error
from typer.testing import CliRunner

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.analytics import decision_table
from haggis_sim.cli import app
from haggis_sim.counterfactual.decisions import (
    EVALUATE,
    SELECT,
    StudySettings,
    _is_opportunity,
    position_seed,
    run_study,
    sample_positions,
    score_bets,
    score_bomb,
)
from haggis_sim.engine.record import pack_logged_action
from haggis_sim.logs.schema import ACTION_TYPES
from strategies.analysis import NO_BET, analyze

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

runner = CliRunner()
RULES2 = hs.Rules.preset("revised", players=2)
FAST = StudySettings(positions=6, samples=12, seed=3)


def _run(out: Path, *extra: str) -> Path:
    res = runner.invoke(
        app,
        ["run", "--strategies", "random,heuristic", "--games", "10", "--chunk-size", "10",
         "--jobs", "1", "--seed", "11", "--out", str(out), "-q", *extra],
    )  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr, res.exception)
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("study") / "run")


@pytest.fixture(scope="module")
def bare_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("study") / "bare", "--no-log-moves")


def _replay_to(run_dir: Path, game_id: int, rnd: int, turn: int) -> tuple[hs.Game, list[dict]]:
    """The logged game rebuilt independently up to (round, turn), and that round's moves."""
    import json

    manifest = json.loads((run_dir / "manifest.json").read_text())
    rules_d = dict(manifest["rules"])
    rules_d["bet_values"] = tuple(rules_d["bet_values"])
    games = pl.read_parquet(run_dir / "games").filter(pl.col("game_id") == game_id)
    moves = (
        pl.read_parquet(run_dir / "moves").filter(pl.col("game_id") == game_id)
        .sort("round", "turn").to_dicts()
    )  # fmt: skip
    game = hs.Game(hs.Rules(**rules_d), seed=manifest["seed"], game_id=games["deal_id"][0])
    for m in moves:
        if (m["round"], m["turn"]) == (rnd, turn):
            break
        game.apply_action(
            pack_logged_action(ACTION_TYPES.index(m["type"]), m["width"], m["length"],
                               m["rank"], m["cards"], m["value"])
        )  # fmt: skip
    return game, [m for m in moves if m["round"] == rnd]


@pytest.mark.parametrize("kind", ["bombs", "bets"])
def test_sampled_positions_are_opportunities_of_the_acting_seat(run_dir: Path, kind: str) -> None:
    found = list(sample_positions(run_dir, kind, 100, seed=1))  # every round of the run
    assert 20 < len(found) < 100
    assert len({(o.game_id, o.round) for o in found}) == len(found)  # at most one per round
    games = pl.read_parquet(run_dir / "games")
    deal = dict(zip(games["game_id"], games["deal_id"], strict=True))
    per_deal = {}
    for o in found:
        assert per_deal.setdefault(deal[o.game_id], o.game_id) == o.game_id  # one game a deal
        game, moves = _replay_to(run_dir, o.game_id, o.round, o.turn)
        assert game.to_act == o.seat and o.observation == game.observation(o.seat)
        legal = game.legal_actions()
        if kind == "bombs":
            assert game.top is not None  # following, not leading
            assert any(a.combo is not None and a.combo.kind == "bomb" for a in legal)
        else:
            assert any(a.type == "bet" for a in legal)
            earlier = [m for m in moves if m["seat"] == o.seat and m["turn"] < o.turn]
            assert earlier == []  # the seat's first turn of the round


def test_a_bet_opportunity_is_only_the_seats_first_turn_of_the_round() -> None:
    """A seat that passed its first turn may still bet at its next one; that is not sampled."""
    game, asked = hs.Game(RULES2, seed=1), set[int]()
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    leader = game.to_act
    assert _is_opportunity("bets", game, buf, asked)
    game.apply_action(next(a for a in game.legal_actions() if a.type == "play"))
    follower = game.to_act
    assert _is_opportunity("bets", game, buf, asked)
    game.pass_(follower)
    assert game.to_act == leader and not _is_opportunity("bets", game, buf, asked)
    game.apply_action(next(a for a in game.legal_actions() if a.type == "play"))
    assert game.to_act == follower and K.can_bet(game.state_array, follower)  # it may bet...
    assert not _is_opportunity("bets", game, buf, asked)  # ...but it is not its first turn


def test_features_of_a_constructed_bomb_position() -> None:
    rules = hs.Rules.preset("revised", players=3)
    rnd = hs.Round(rules, hands=["J Q 4a 6b", "3c Tb 5d 6d", "9a 9b K 7e 8e 2e"], leader=2)
    rnd.play(2, "9a 9b K")
    arr = rnd.observation(0).array
    arr[K.S_SCORE : K.S_SCORE + 3] = [200, 180, 40]  # game totals before this round
    obs = hs.Observation.from_array(arr, 0)
    (row,) = score_bomb(obs, rules, StudySettings(samples=10))
    assert row["trick_points"] == 7  # two 9s, one point each, and a king, 5 (classic)
    assert row["bomb"] == "bomb J-Q: J Q"
    assert (row["bomb_points"], row["bomb_wilds"], row["trick_plus_bomb_points"]) == (5, 2, 12)
    assert (row["actor_cards"], row["next_opponent_cards"], row["other_opponent_cards"]) == (
        4,
        4,
        3,
    )
    assert row["min_opponent_cards"] == 3
    assert (row["actor_score"], row["best_opponent_score"]) == (200, 180)
    assert row["actor_lead"] == 20
    assert (row["actor_to_target"], row["opponent_to_target"]) == (50, 70)
    assert (row["players"], row["preset"], row["best_other"]) == (3, "revised", "seat 0 passes")
    assert row["value_diff"] == pytest.approx(row["bomb_value"] - row["other_value"])
    assert row["samples"] == 10
    two = hs.Round(hs.Rules.preset("revised", players=2), hands=["3a 5b 7c 9d 4a", "Ta Tb"])
    two.play(0, "4a")
    two.play(1, "Ta")
    (rainbow,) = score_bomb(two, two.rules, StudySettings(samples=10))
    assert rainbow["bomb"] == "bomb rainbow 3-5-7-9: 3a 5b 7c 9d"
    assert (rainbow["bomb_points"], rainbow["bomb_wilds"], rainbow["trick_points"]) == (4, 0, 0)
    assert (rainbow["other_opponent_cards"], rainbow["min_opponent_cards"]) == (None, 1)
    three = hs.Round(rules, hands=["J Q 4a", "3c Tb 5d", "9a 9b"], leader=2)
    three.play(2, "9a 9b")  # seat 2 is out: the nearest opponent is seat 1, with 3 cards
    (gone,) = score_bomb(three, rules, StudySettings(samples=5))
    assert (gone["next_opponent_cards"], gone["other_opponent_cards"]) == (3, 0)
    assert gone["min_opponent_cards"] == 3


def _known_bet(hands: list[str], leader: int, lead: str = "") -> dict[int, dict[str, Any]]:
    rnd = hs.Round(hs.Rules.preset("revised", players=2), hands=hands, leader=leader)
    if lead:
        rnd.play(leader, lead)
    return {r["bet"]: r for r in score_bets(rnd, rnd.rules, StudySettings(samples=40))}


def test_bets_on_positions_with_known_answers() -> None:
    sure = _known_bet(["Ta Tb", "5b 7c 9d"], 0)  # a pair of tens led: seat 0 goes out first
    fresh = hs.Round(hs.Rules.preset("revised", players=2), hands=["Ta Tb", "5b 7c 9d"])
    seeds = {s: position_seed(0, 0, s) for s in (SELECT, EVALUATE)}
    (chosen,) = analyze(fresh, [NO_BET], samples=40, seed=seeds[SELECT])
    assert sure[15]["first_out"] == chosen.first_out  # estimated on the independent deals
    measured = analyze(fresh, [NO_BET, fresh.legal_actions()[0]], samples=40, seed=seeds[EVALUATE])
    assert (sure[15]["no_bet_value"], sure[15]["bet_value"]) == tuple(a.value for a in measured)
    assert sure[15]["first_out"] > 0.8 and sure[15]["settlement"] == "takes_all"
    assert 0 < sure[15]["margin_diff"] < sure[30]["margin_diff"]
    assert sure[30]["value_diff"] > 3 * sure[30]["value_diff_se"]
    # seat 0 cannot beat the 5 and must pass; seat 1 then leads its ten and is out first
    mixed = hs.Round(RULES2, hands=["3a 5b 7c 9d 2a 2b Ta", "4a 6b 8c 9a"])
    row = score_bets(mixed, RULES2, StudySettings(samples=30, seed=5), 3)[0]
    on = {s: analyze(mixed, [NO_BET], samples=30, seed=position_seed(5, 3, s)) for s in seeds}
    assert on[SELECT][0].first_out != on[EVALUATE][0].first_out  # the two can be told apart
    assert row["first_out"] == on[SELECT][0].first_out
    hopeless = _known_bet(["3a 4c", "5b Ta"], 1, "5b")
    assert hopeless[15]["first_out"] == 0.0 and hopeless[15]["bet_first_out"] == 0.0
    assert hopeless[15]["margin_diff"] < 0 and hopeless[15]["value_diff"] < 0
    assert hopeless[30]["margin_diff"] == 2 * hopeless[15]["margin_diff"]
    assert hopeless[30]["value_diff_se"] == 0.0  # the same loss on every deal


def _twins() -> tuple[hs.Round, hs.Round]:
    """Two rounds that seat 0 cannot tell apart: the opponent's cards differ, unseen."""
    rules = hs.Rules.preset("revised", players=2)
    one = hs.Round(rules, hands=["J Q 4a 6b 8c", "9a 9b 3c Tb"], haggis="2a 2b", leader=1)
    other = hs.Round(rules, hands=["J Q 4a 6b 8c", "9a 9b 5c 7d"], haggis="2a 3d", leader=1)
    for rnd in (one, other):
        rnd.play(1, "9a 9b")
    return one, other


def test_a_study_sees_only_the_acting_seats_information_set() -> None:
    one, other = _twins()
    assert one.observation(0) == other.observation(0)
    assert one.state_array.tolist() != other.state_array.tolist()
    s = StudySettings(samples=15, seed=4)
    assert score_bomb(one, one.rules, s, 2) == score_bomb(other, other.rules, s, 2)
    assert score_bomb(one.observation(0), one.rules, s, 2) == score_bomb(one, one.rules, s, 2)
    fresh_one = hs.Round(one.rules, hands=["Ta 4a 6b", "9a 3c Tb"], haggis="2a 2b", leader=0)
    fresh_other = hs.Round(one.rules, hands=["Ta 4a 6b", "9a 5c 7d"], haggis="2a 3d", leader=0)
    assert score_bets(fresh_one, one.rules, s) == score_bets(fresh_other, one.rules, s)


def test_a_study_depends_only_on_its_seed(run_dir: Path) -> None:
    first = run_study("bombs", run_dir, FAST)
    again = run_study("bombs", run_dir, FAST)
    assert first.positions.equals(again.positions) and first.table.equals(again.table)
    assert first.guidance == again.guidance
    other = run_study("bombs", run_dir, StudySettings(positions=6, samples=12, seed=4))
    assert not other.positions.equals(first.positions)
    bets = run_study("bets", run_dir, FAST)
    assert bets.positions.equals(run_study("bets", run_dir, FAST).positions)
    assert set(bets.positions["bet"]) == {15, 30} and bets.positions["position"].n_unique() == 6


def _positions(diffs: list[float], **extra: Any) -> pl.DataFrame:
    n = len(diffs)
    return pl.DataFrame(
        {"value_diff": diffs, "margin_diff": [d * 100 for d in diffs],
         "trick_plus_bomb_points": [3] * n, "bomb_wilds": [2] * n, "min_opponent_cards": [12] * n,
         "actor_cards": [9] * n, "actor_lead": [-60] * n, **extra}
    )  # fmt: skip


def test_guidance_claims_only_where_the_interval_excludes_zero() -> None:
    rng = np.random.default_rng(0)
    good = _positions(list(0.05 + 0.01 * rng.standard_normal(30)))
    lines = decision_table.guidance("bombs", decision_table.summarize("bombs", good))
    assert re.match(r"bomb \(all positions\): \+0\.0\d\d \[\+0\.0\d\d, \+0\.0\d\d\]", lines[0])
    assert lines[0].endswith("points of margin (30 positions)")
    assert lines[1].startswith("bomb when the trick and the bomb's own cards are worth 0–5 points")
    bad = _positions(list(-0.05 + 0.01 * rng.standard_normal(30)))
    line = decision_table.guidance("bombs", decision_table.summarize("bombs", bad))[0]
    assert re.match(r"do not bomb \(all positions\): -0\.0\d\d \[-0\.0\d\d, -0\.0\d\d\]", line)
    noisy = _positions([0.3, -0.2, 0.1, -0.25, 0.08])  # mean +0.006, interval spans 0
    table = decision_table.summarize("bombs", noisy)
    assert table["value_low"][0] < 0 < table["value_diff"][0] < table["value_high"][0]
    line = decision_table.guidance("bombs", table)[0]
    assert line.startswith("bomb or not (all positions): no clear answer (+0.006 [")
    line = decision_table.guidance(
        "bombs", decision_table.summarize("bombs", _positions([-0.3, 0.2, -0.1, 0.25, -0.08]))
    )[0]
    assert line.startswith("bomb or not (all positions): no clear answer (-0.006 [")
    one = decision_table.guidance("bombs", decision_table.summarize("bombs", _positions([0.5])))
    assert one[0] == "bomb or not (all positions): too few positions (1)"
    bets = _positions([0.05, 0.06, 0.04], bet=[15] * 3, settlement=["split"] * 3,
                      first_out=[0.9, 0.2, 0.1])  # fmt: skip
    table = decision_table.summarize("bets", bets)
    assert table["bin"].to_list() == [  # 20% opens a bin; then the crossed bins
        "all", "0–20%", "20–40%", "80–100%", "behind by 50+ points",
        "0–20%, behind by 50+ points", "20–40%, behind by 50+ points",
        "80–100%, behind by 50+ points",
    ]  # fmt: skip
    lines = decision_table.guidance("bets", table)
    assert lines[0].startswith("bet 15 (split) (all positions): +0.050 [")
    assert lines[1].startswith("bet 15 (split) or not when the chance of going out first is 0–20%")
    assert lines[4].startswith("bet 15 (split) when behind by 50+ points in the game: +0.050 [")


def _invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_cli_refuses_bad_requests_in_one_line(
    run_dir: Path, bare_run: Path, tmp_path: Path
) -> None:
    one_line_error(_invoke("study", "bombs", str(bare_run)), "no move log", "--no-log-moves")
    one_line_error(_invoke("study", "bomb", str(run_dir)), "unknown study 'bomb'")
    one_line_error(_invoke("study", "bets", str(tmp_path)), "not a haggis-sim run")
    one_line_error(_invoke("study", "bets", str(run_dir), "--samples", "0"), "samples")
    existing = tmp_path / "table.csv"
    existing.write_text("mine\n")
    res = _invoke("study", "bombs", str(run_dir), "--out", str(existing))
    one_line_error(res, "already exists", "--force")
    assert existing.read_text() == "mine\n"
    one_line_error(_invoke("study", "bombs", str(run_dir), "--out", str(tmp_path / "t.txt")),
                    ".parquet or .csv")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]  # nothing left behind


def test_cli_prints_the_table_and_writes_the_positions(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "bets.parquet"
    args = ("study", "bets", str(run_dir), "--positions", "4", "--samples", "10", "--out", str(out))
    res = _invoke(*args)
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert "Guidance" in res.stdout and "chance of going out first" in res.stdout
    assert "Population: 4 bet opportunities" in res.stdout
    assert pl.read_parquet(out).height == 8  # 4 positions x bets 15 and 30
    assert _invoke(*args).exit_code == 2
    assert _invoke(*args, "--force").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bets.parquet"]
