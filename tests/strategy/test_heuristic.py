"""The heuristic's bomb gate, its settlement-aware bets, and refusals of inert parameters.

Positions are built with :class:`haggis_sim.Round` so each decision is forced: the seat to
act holds nothing but a bomb that beats the trick, or is at its first chance to bet.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import haggis_sim as hs
import strategies
from haggis_sim import kernel as K
from haggis_sim.cli import app
from haggis_sim.engine.rng import new_stream
from haggis_sim.errors import InputError
from haggis_sim.experiment import ExperimentError, parse_experiment
from strategies.base import InertParameterError
from strategies.simple_kernels import bomb_cost, hand_strength

REVISED2 = hs.Rules.preset("revised", players=2)
RUN = CliRunner()


def decide(spec: str, rnd: hs.Round, seat: int) -> int:
    """The compiled heuristic's action for ``seat`` (from its observation only)."""
    strat = strategies.make(spec)
    return strat.act_array(rnd.observation(seat).array, new_stream(7))


def kind(action: int) -> str:
    return K.layout.ACTION_TYPES[K.move_type(action)] if action else "pass"


def face_bomb_round(opponent: str) -> hs.Round:
    """Seat 1 leads the run 8c-9c-Tc; seat 0 holds low cards and J Q: only the J-Q bomb
    beats (no 9 or 10 to build a higher run with the wilds). Classic points: J 2 + Q 3,
    plus 10 x (1 - wild) per face spent: 15 at the default wild=0.5."""
    rnd = hs.Round(REVISED2, hands=["2a 2b 4a 4b 6a J Q", opponent], leader=1)
    rnd.play(1, "8c 9c Tc")
    return rnd


def rainbow_round() -> hs.Round:
    """As above, but seat 0's only beating play is the rainbow 3-5-7-9 (4 points)."""
    rnd = hs.Round(REVISED2, hands=["3a 5b 7c 9d 2a 2b 4a", "8c 9c Tc 2c 2d 4c 4d 6b"], leader=1)
    rnd.play(1, "8c 9c Tc")
    return rnd


# --- the bomb gate ------------------------------------------------------------------------


def test_bomb_cost_is_own_points_plus_wilds_spent() -> None:
    rnd = face_bomb_round("8c 9c Tc 2c 2d 4c 4d 6b")
    obs = rnd.observation(0).array
    jq = next(a.code for a in rnd.legal_actions() if a.combo and a.combo.kind == "bomb")
    half = strategies.make("heuristic").param_array()
    free = strategies.make("heuristic:wild=1").param_array()
    assert bomb_cost(obs, half, jq) == 5 + 10.0  # J 2 + Q 3, two wilds at 5 each
    assert bomb_cost(obs, free, jq) == 5


def test_late_passes_when_the_bomb_gives_away_too_much() -> None:
    rnd = face_bomb_round("8c 9c Tc 2c 2d 4c 4d 6b")  # opponent keeps 5 cards
    assert kind(decide("heuristic", rnd, 0)) == "pass"
    assert kind(decide("heuristic:bomb_give=15", rnd, 0)) == "bomb"  # cost 15 allowed
    assert kind(decide("heuristic:bomb=early", rnd, 0)) == "bomb"
    assert kind(decide("heuristic:bomb=never", rnd, 0)) == "pass"


def test_late_bombs_when_the_bomb_is_cheap() -> None:
    rnd = rainbow_round()  # rainbow: 4 points, no wilds; opponent keeps 5 cards
    assert kind(decide("heuristic", rnd, 0)) == "bomb"
    assert kind(decide("heuristic:bomb_give=3", rnd, 0)) == "pass"
    assert kind(decide("heuristic:bomb=never", rnd, 0)) == "pass"


def test_late_bombs_whatever_it_costs_to_stop_an_opponent_about_to_go_out() -> None:
    rnd = face_bomb_round("8c 9c Tc 2c 2d")  # opponent keeps 2 cards
    assert kind(decide("heuristic", rnd, 0)) == "bomb"
    assert kind(decide("heuristic:bomb_out=1", rnd, 0)) == "pass"


# --- bets read bet_settlement -------------------------------------------------------------

BET_HANDS = ["2a 2b 3a 3b 4a 4b 5a 5b 6a 7a 9a Ta Tb 8a J Q K",
             "2c 2d 3c 3d 4c 4d 5c 5d 6b 6c 6d 7b 7c 7d"]  # fmt: skip


@pytest.mark.parametrize(("preset", "expected"), [("deluxe", None), ("aid", 15)])
def test_bets_differ_between_takes_all_and_threshold(preset: str, expected: int | None) -> None:
    """A middling hand (strength 0.44): under takes_all (deluxe) it reaches no threshold
    (0.44 < baby 0.5 < bet 0.55: it plays); under threshold (aid) scoring 15 from going
    out and cards is likely (estimate 0.73 >= bet), 30 is not (0.32 < big): Little."""
    rnd = hs.Round(hs.Rules.preset(preset, players=2), hands=BET_HANDS, leader=0)
    assert abs(hand_strength(rnd.observation(0).array, 0) - 0.44) < 1e-9
    action = decide("heuristic", rnd, 0)
    if expected is None:
        assert kind(action) != "bet"
    else:
        assert kind(action) == "bet" and action & K.layout.VALUE_MASK == expected


# --- inert parameters -----------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["heuristic:bet=0.6", "heuristic:bet=0.7,big=0.65"])
def test_bet_not_below_big_is_refused(spec: str) -> None:
    with pytest.raises(InertParameterError, match="never makes a Little bet") as info:
        strategies.make(spec)
    assert isinstance(info.value, InputError)


@pytest.mark.parametrize("spec", ["heuristic:bet=1.01", "heuristic:bet=0.59", "heuristic"])
def test_bet_below_big_or_switched_off_is_accepted(spec: str) -> None:
    strategies.make(spec)


def test_cli_refuses_an_inert_combination_in_one_line(tmp_path: Path) -> None:
    res = RUN.invoke(app, ["run", "-s", "heuristic:bet=0.7,greedy", "-n", "4",
                           "--out", str(tmp_path / "r")])  # fmt: skip
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "bet=0.7" in lines[0]
    assert not (tmp_path / "r").exists()


EXP = """
name = "dup"
question = "q"
games = 10
players = 2
rules = "{rules}"
strategies = ["heuristic", "greedy"]
metric = "win_rate"
[[arms]]
name = "a"
strategies = ["{a}", "greedy"]
[[arms]]
name = "b"
strategies = ["{b}", "greedy"]
"""


@pytest.mark.parametrize(
    ("rules", "a", "b", "why"),
    [
        ("revised", "heuristic:baby=0.2", "heuristic:baby=0.3", "no Baby bet"),
        ("deluxe", "heuristic:baby=0.7", "heuristic:baby=0.9", "never a Baby bet"),
        ("revised", "heuristic:bomb=never,bomb_out=1", "heuristic:bomb=never", "bomb=late"),
        ("revised", "heuristic:bet=1.01,big=0.6", "heuristic:bet=1.005,big=0.6", "never a"),
    ],
)
def test_arms_playing_one_policy_are_refused(rules: str, a: str, b: str, why: str) -> None:
    data = tomllib.loads(EXP.format(rules=rules, a=a, b=b))
    with pytest.raises(ExperimentError, match="arms 'a' and 'b' would play identical") as info:
        parse_experiment(data)
    assert why in str(info.value)


@pytest.mark.parametrize(
    ("rules", "a", "b"),
    [
        ("deluxe", "heuristic:baby=0.2", "heuristic:baby=0.3"),  # Baby offered, below bet
        ("aid", "heuristic:baby=0.7", "heuristic:baby=0.9"),  # threshold: chances differ
        ("revised", "heuristic:bomb_out=1", "heuristic:bomb_out=2"),
    ],
)
def test_arms_with_a_parameter_that_acts_are_kept(rules: str, a: str, b: str) -> None:
    exp = parse_experiment(tomllib.loads(EXP.format(rules=rules, a=a, b=b)))
    assert [arm.name for arm in exp.arms] == ["a", "b"]


@pytest.mark.slow  # reads every shipped experiment's runs
def test_shipped_experiments_have_no_duplicate_arms() -> None:
    from haggis_sim.experiment import load_experiment

    root = Path(__file__).resolve().parents[2] / "experiments"
    for path in sorted(root.glob("*.toml")):
        load_experiment(path)


@pytest.mark.parametrize(
    "spec",
    ["heuristic", "heuristic:bomb=early,bet=0.3", "heuristic:bomb=never,bet=0.45,big=0.9,wild=0"],
)
def test_the_heuristic_on_a_listed_decision_is_the_heuristic(spec: str) -> None:
    """``heuristic_listed`` (the heuristic's choice from a list of the legal actions, bets
    first, that ``learned`` and ``mcts``'s prior build anyway) is ``heuristic_act``'s
    choice, at every kind of decision: bets, leads, follows, bombs and gives."""
    import numpy as np
    from strat_helpers import walk_mixed_games

    from haggis_sim.engine import layout as L
    from haggis_sim.engine import state as S
    from strategies.simple_kernels import heuristic_act, heuristic_listed

    params = strategies.make(spec).param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    listed = np.empty(L.MAX_MOVES, dtype=np.int64)
    bets = gives = 0

    def decide(preset: str, g: int, st: np.ndarray, obs: np.ndarray, rng: np.ndarray) -> int:
        nonlocal bets, gives
        want = int(heuristic_act(obs, params, rng, buf))
        n = S.legal_actions(st, listed, True)
        assert heuristic_listed(obs, params, listed, n) == want, (preset, g)
        bets += K.can_bet(obs, int(st[L.S_TO_ACT]))
        gives += st[L.S_PHASE] != L.PH_PLAY
        return want

    seen = walk_mixed_games(3, decide, random_bet=0.3)
    assert seen > 3000 and bets > 100 and gives > 20, (seen, bets, gives)
