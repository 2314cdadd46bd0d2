"""The numeric scoring knobs ``out_points``, ``face_points`` and ``bet_points`` as rule
flags: published values by default and left out of the record, a changed value recorded
and read back (manifest, resume, experiment file), impossible values refused in one line
before anything is played, the bets the engine lists and accepts under changed bet
points. Their effect on a round's score: tests/engine/test_scoring.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import invoke, one_line_error

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.experiment.schema import build_rules as experiment_rules
from haggis_sim.rules import PUBLISHED_KNOBS

BET = L.T_BET << L.TYPE_SHIFT


@pytest.mark.parametrize("preset", ["classic", "revised", "deluxe", "aid"])
def test_the_published_values_are_the_defaults_and_left_out_of_the_record(preset: str) -> None:
    rules = hs.Rules.preset(preset, players=2)
    assert (rules.out_points, rules.face_points, rules.bet_points) == (5, (2, 3, 5), (5, 15, 30))
    assert rules == hs.Rules.preset(preset, players=2, bet_points=(5, 15, 30))
    record = rules.as_dict()
    assert PUBLISHED_KNOBS.keys() == {"out_points", "face_points", "bet_points"}
    assert not record.keys() & PUBLISHED_KNOBS.keys()
    again = hs.Rules(**{**record, "bet_values": tuple(record["bet_values"])})
    assert again == rules and again.to_array().tolist() == rules.to_array().tolist()


def test_a_changed_knob_is_recorded_and_named_in_the_label() -> None:
    rules = hs.Rules.preset("revised", players=3, out_points=4, face_points=(1, 2, 3))
    record = rules.as_dict()
    assert record["out_points"] == 4 and record["face_points"] == [1, 2, 3]
    assert rules.label == "revised out_points=4 face_points=1,2,3"
    assert rules.to_array().tolist()[-7:] == [4, 1, 2, 3, 5, 15, 30]
    bets = rules.with_flags(bet_points=(5, 20, 40))
    assert bets.as_dict()["bet_points"] == [5, 20, 40]
    assert bets.label == "revised out_points=4 face_points=1,2,3 bet_points=5,20,40"
    assert bets.to_array().tolist()[-3:] == [5, 20, 40]


def test_a_run_records_its_knobs_and_resumes_with_them(tmp_path: Path) -> None:
    out = tmp_path / "run"
    knobs = ["--rule", "out_points=3", "--rule", "face_points=1,1,4", "--rule",
             "bet_points=5,20,40"]  # fmt: skip
    res = invoke("run", "-s", "random:bet=0.5,random", "-n", "8", "--chunk-size", "4", "-q",
                 *knobs, "--out", str(out))  # fmt: skip
    assert res.exit_code == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    recorded = manifest["rules"]
    assert recorded["out_points"] == 3 and recorded["face_points"] == [1, 1, 4]
    assert recorded["bet_points"] == [5, 20, 40]
    again = invoke("run", "--resume", str(out), "-q")
    assert again.exit_code == 0, again.stderr


def test_an_experiment_file_takes_the_knobs() -> None:
    flags = {"out_points": 6, "face_points": [3, 3, 3], "bet_points": [5, 10, 20]}
    rules = experiment_rules("revised", 2, flags)
    assert (rules.out_points, rules.face_points, rules.bet_points) == (6, (3, 3, 3), (5, 10, 20))


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("out_points=-1", ("out_points must be an integer 0..100", "-1")),
        ("out_points=five", ("out_points takes an integer", "five")),
        ("face_points=2,3", ("face_points must be three integers 0..100",)),
        ("face_points=2,3,500", ("face_points must be three integers 0..100",)),
        ("face_points=a,b,c", ("face_points takes numbers like 2,3,5",)),
        ("bet_points=5,20", ("bet_points must be three integers 1..255", "(5, 20)")),
        ("bet_points=0,20,40", ("bet_points must be three integers 1..255",)),
        ("bet_points=5,20,256", ("bet_points must be three integers 1..255",)),
        ("bet_points=5,40,20", ("bet_points must be strictly increasing", "5,40,20")),
        ("bet_points=5,20,20", ("bet_points must be strictly increasing",)),
        ("bet_points=5,x,40", ("bet_points takes numbers like 5,15,30",)),
        ("bet_points=4,20,40", ("the Baby bet 4 points", "bet_values=15,30 does not offer")),
    ],
)
def test_an_impossible_knob_gets_one_line_and_nothing_is_written(
    tmp_path: Path, rule: str, words: tuple[str, ...]
) -> None:
    out = tmp_path / "run"
    res = invoke("run", "-s", "random,random", "-n", "4", "--rule", rule, "--out", str(out))
    one_line_error(res, *words)
    assert not out.exists()


def test_face_points_with_per_card_scoring_are_refused(tmp_path: Path) -> None:
    """Under ``card_points=per_card`` every card scores 1: a face value there would be
    silently ignored, so it is refused (its published value is accepted)."""
    out = tmp_path / "run"
    res = invoke("run", "-s", "random,random", "-n", "4", "--rules", "deluxe",
                 "--rule", "face_points=1,2,3", "--out", str(out))  # fmt: skip
    one_line_error(res, "face_points count under card_points=classic only")
    assert not out.exists()
    assert hs.Rules.preset("deluxe", players=2, face_points=(2, 3, 5)).card_points == "per_card"


def test_bet_points_must_be_a_tuple_of_whole_numbers() -> None:
    """The constructor's own checks (the CLI above always gives a tuple of ints)."""
    aid = hs.Rules.preset("aid", players=3)
    for bad in ((5.0, 15, 30), (5, True, 30), [5, 15, 30], "5,15,30", (5, 15, 30, 40)):
        with pytest.raises(hs.InputError, match="bet_points must be three integers"):
            aid.with_flags(bet_points=bad)
    assert hs.Rules.preset("aid", players=3, bet_points=[1, 2, 255]).bet_points == (1, 2, 255)


# --- the bets the engine lists and accepts under changed bet points --------------------------


def _bet_codes(rules: hs.Rules) -> tuple[list[int], np.ndarray]:
    """The bet codes the engine lists for the first player of a fresh deal, and its state."""
    st = S.init_state(rules.to_array())
    S.start_game(st, np.int64(3))
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    n = S.legal_actions(st, buf, True)
    return [int(c) for c in buf[:n] if c >> L.TYPE_SHIFT == L.T_BET], st


@pytest.mark.parametrize(
    ("preset", "points", "listed"),
    [
        ("aid", (5, 15, 30), [5, 15, 30]),
        ("aid", (5, 20, 40), [5, 20, 40]),
        ("aid", (1, 2, 255), [1, 2, 255]),
        ("revised", (5, 20, 40), [20, 40]),  # no Baby bet on offer
        ("revised", (5, 16, 17), [16, 17]),
    ],
)
def test_the_legal_bets_carry_the_rules_points(preset, points, listed) -> None:
    """legal_actions lists each bet on offer with its points; check_action accepts exactly
    those and refuses the published points that are no longer a bet's."""
    rules = hs.Rules.preset(preset, players=3, bet_points=points)
    codes, st = _bet_codes(rules)
    assert codes == [BET | v for v in listed]
    accepted = [v for v in range(1, 256) if S.check_action(st, np.int64(BET | v)) == S.E_OK]
    assert accepted == listed
    assert S.check_action(st, np.int64(BET)) == S.E_BET_VALUE
    assert [K.bet_slot(st, v) for v in points] == [0, 1, 2]
    assert K.bet_slot(st, 0) == -1 and K.bet_slot(st, 256) == -1


def test_a_bet_of_the_published_points_is_refused_under_changed_points() -> None:
    rules = hs.Rules.preset("revised", players=2, bet_points=(5, 20, 40))
    rnd = hs.Round(rules, hands=["3a 8a", "4a"], haggis="", leader=0)
    with pytest.raises(hs.IllegalAction, match="bet value not allowed"):
        rnd.bet(0, 15)
    with pytest.raises(hs.IllegalAction, match="bet value not allowed"):
        rnd.bet(0, 30)
    rnd.bet(0, 20)
    assert rnd.bets == (20, 0)


def test_the_random_player_bets_the_rules_points() -> None:
    """random_action draws a bet among those on offer, at the rules' points."""
    rules = hs.Rules.preset("aid", players=3, bet_points=(6, 21, 44))
    _, st = _bet_codes(rules)
    rng = new_stream(np.int64(9))
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    drawn = {int(S.random_action(st, rng, buf, 1.0)) for _ in range(200)}
    assert drawn == {BET | 6, BET | 21, BET | 44}
