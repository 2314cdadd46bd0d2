"""Scoring a round (RULES.md sections 5 and 6): card points, the first-out bonus and bets.

Each case plays a short scripted round built with :class:`haggis_sim.Round`; bets are
declared with ``rnd.bet`` at the bettor's own turn before their first play, so the
engine's settlement runs for real. Seats 0, 1, 2 are the seed examples' A, B, C.
"""

from __future__ import annotations

import pytest

import haggis_sim as hs

C = hs.parse_cards

CLASSIC_VALUE = {"3": 1, "5": 1, "7": 1, "9": 1, "J": 2, "Q": 3, "K": 5}


def rules(players: int, preset: str = "revised", **flags: object) -> hs.Rules:
    return hs.Rules.preset(preset, players=players, **flags)


def column(rnd: hs.Round, key: str) -> list[int]:
    return [s[key] for s in rnd.scores()]


def check_totals(rnd: hs.Round) -> None:
    for sc in rnd.scores():
        assert sc["total"] == sc["going_out"] + sc["cards"] + sc["bets"] + sc["bonus"]


# --- card points ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "card", ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "J", "Q", "K"]
)
@pytest.mark.parametrize("card_points", ["classic", "per_card"])
def test_value_of_each_card(card: str, card_points: str) -> None:
    """Seat 0 captures ``card`` and the zero-point 2a, then the black sheep's 2b 4b."""
    rnd = hs.Round(
        rules(2, card_points=card_points), hands=[f"{card} 2a", "2b 4b"], haggis="", leader=0
    )
    rnd.play(0, card)
    rnd.pass_(1)
    rnd.play(0, "2a")
    assert rnd.over
    assert rnd.captured(0) == C(f"{card} 2a 2b 4b")
    expected = CLASSIC_VALUE.get(card[0], 0) if card_points == "classic" else 4
    assert column(rnd, "cards") == [expected, 0]
    assert column(rnd, "going_out") == [10, 0]
    check_totals(rnd)


def _card_points_round(r: hs.Rules) -> hs.Round:
    """Seat 1 captures a trick with faces, a lone Q, then goes out; the Haggis and the
    black sheep's hand (3a 4c) go to seat 1 as shepherd."""
    rnd = hs.Round(r, hands=["7a 7b J 3a 4c", "9a 9b K Q 6c"], haggis="3c 5c 3d", leader=0)
    assert rnd.play(0, "7a 7b J").describe() == "set of 3 7s"
    assert rnd.play(1, "9a 9b K").describe() == "set of 3 9s"
    rnd.pass_(0)
    rnd.play(1, "Q")
    rnd.pass_(0)
    rnd.play(1, "6c")
    assert rnd.over and rnd.out_order == (1,)
    assert rnd.captured(1) == hs.Cards(C("7a 7b 9a 9b 6c 3c 5c 3d 3a 4c").suits, 1, 1, 1)
    return rnd


@pytest.mark.parametrize(
    ("preset", "flags", "cards"),
    [
        # 7a 7b J(2) 9a 9b K(5) Q(3) 6c | Haggis 3c 5c 3d | black sheep 3a 4c
        ("revised", {}, 1 + 1 + 2 + 1 + 1 + 5 + 3 + 0 + 3 + 1),
        ("classic", {}, 18),
        ("haggish", {"haggis_to": "shepherd"}, 18),
        ("revised", {"card_points": "per_card"}, 13),
        ("deluxe", {}, 13),
    ],
)
def test_card_points_include_haggis_and_black_sheep_hand(preset, flags, cards) -> None:
    """Decision (RULES.md 5.2): end-of-round captures score like trick captures."""
    rnd = _card_points_round(rules(2, preset, **flags))
    assert column(rnd, "going_out") == [0, 10]
    assert column(rnd, "cards") == [0, cards]
    assert column(rnd, "bets") == [0, 0]
    assert column(rnd, "bonus") == [0, 0]
    assert column(rnd, "total") == [0, cards + 10]
    check_totals(rnd)


@pytest.mark.parametrize(
    ("faces", "cards"),
    [
        ((2, 3, 5), 18),  # the published values: the case above
        ((0, 0, 0), 8),  # 7a 7b 9a 9b | 3c 5c 3d | 3a: odd suit cards only
        ((1, 1, 1), 11),
        ((4, 0, 10), 8 + 4 + 10),  # J 4, Q 0, K 10
    ],
)
def test_face_points_score_each_captured_face(faces, cards) -> None:
    """The ``face_points`` knob: a captured J, Q and K score its three values (the odd
    suit cards 1 each, as published)."""
    rnd = _card_points_round(rules(2, face_points=faces))
    assert column(rnd, "cards") == [0, cards]
    assert column(rnd, "total") == [0, cards + 10]
    check_totals(rnd)


@pytest.mark.parametrize("out_points", [0, 1, 5, 12])
def test_out_points_per_card_of_the_largest_opponent_hand(out_points: int) -> None:
    """The ``out_points`` knob: going out scores it per card of the largest hand left
    (3 players: seat 0 out first with hands of 1 and 2 cards left, then seat 1 with 2)."""
    rnd = hs.Round(rules(3, out_points=out_points), hands=["3a", "4a", "5a 9e"],
                   haggis="2b 2c 2d", leader=0)  # fmt: skip
    rnd.play(0, "3a")
    rnd.play(1, "4a")
    assert rnd.over and rnd.out_order == (0, 1)
    assert column(rnd, "going_out") == [2 * out_points, 2 * out_points, 0]
    check_totals(rnd)


def test_haggish_scores_no_haggis_nor_black_sheep_hand() -> None:
    """Decision (RULES.md 4, haggis_to = nobody): only trick captures score."""
    rnd = hs.Round(
        rules(2, "haggish"), hands=["7a 7b J 3a 4c", "9a 9b K Q 6c"], haggis="3c 5c 3d", leader=0
    )
    rnd.play(0, "7a 7b J")
    rnd.play(1, "9a 9b K")
    rnd.pass_(0)
    rnd.play(1, "Q")
    rnd.pass_(0)
    rnd.play(1, "6c")
    assert column(rnd, "cards") == [0, 14]  # 7a 7b J(2) 9a 9b K(5) Q(3) 6c
    assert column(rnd, "total") == [0, 24]
    check_totals(rnd)


# --- first-out bonus --------------------------------------------------------------------


def _bonus_round(r: hs.Rules) -> hs.Round:
    rnd = hs.Round(r, hands=["3a", "4a", "5a 9e"], haggis="2b 2c 2d", leader=0)
    rnd.play(0, "3a")
    rnd.play(1, "4a")
    assert rnd.over and rnd.out_order == (0, 1)
    return rnd


@pytest.mark.parametrize(
    ("preset", "flags", "bonus"),
    [
        ("classic", {}, 5),
        ("revised", {}, 0),
        ("revised-split", {}, 0),
        ("deluxe", {}, 0),
        ("aid", {"haggis_to": "shepherd"}, 0),
        ("revised", {"first_out_bonus": 5}, 5),
        ("classic", {"first_out_bonus": 0}, 0),
    ],
)
def test_first_out_bonus_3p(preset, flags, bonus) -> None:
    r = rules(3, preset, **flags)
    assert r.first_out_bonus == bonus
    rnd = _bonus_round(r)
    assert column(rnd, "bonus") == [bonus, 0, 0]
    assert column(rnd, "going_out") == [10, 10, 0]
    per_card = r.card_points == "per_card"
    # shepherd: 2b 2c 2d + 5a 9e; seat 1: 3a 4a
    assert column(rnd, "cards") == ([5, 2, 0] if per_card else [2, 1, 0])
    assert column(rnd, "total")[0] == 10 + (5 if per_card else 2) + bonus
    check_totals(rnd)


def test_classic_2p_has_no_first_out_bonus() -> None:
    r = rules(2, "classic")
    assert r.first_out_bonus == 0
    rnd = hs.Round(r, hands=["3a", "4a 9b"], haggis="2b", leader=0)
    rnd.play(0, "3a")
    assert column(rnd, "bonus") == [0, 0]
    assert column(rnd, "total") == [10 + 2, 0]  # 3a 9b


# --- bets: takes_all --------------------------------------------------------------------


def test_takes_all_seed_example_a_first() -> None:
    """RULES.md 6: A and B bet 15, C none; A goes out first: A 30, B 0, C 15."""
    rnd = hs.Round(rules(3), hands=["3a", "4a 8a", "5a 9a"], haggis="2b 2c 2d", leader=0)
    rnd.bet(0, 15)
    assert rnd.to_act == 0  # betting keeps the turn
    rnd.play(0, "3a")
    rnd.bet(1, 15)
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.pass_(1)
    rnd.play(2, "9a")
    assert rnd.over and rnd.out_order == (0, 2)
    assert rnd.bets == (15, 15, 0)
    assert column(rnd, "bets") == [30, 0, 15]
    assert column(rnd, "going_out") == [10, 0, 5]
    assert column(rnd, "cards") == [0, 0, 3]
    assert column(rnd, "total") == [40, 0, 23]
    check_totals(rnd)


def test_takes_all_seed_example_c_first() -> None:
    """RULES.md 6: A and B bet 15, C none; C goes out first: C 30, A 0, B 0."""
    rnd = hs.Round(rules(3), hands=["3a 8a", "4a 8b", "5a"], haggis="2b 2c 2d", leader=0)
    rnd.bet(0, 15)
    rnd.play(0, "3a")
    rnd.bet(1, 15)
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.pass_(0)
    rnd.pass_(1)
    rnd.play(0, "8a")
    assert rnd.over and rnd.out_order == (2, 0)
    assert column(rnd, "bets") == [0, 0, 30]
    assert column(rnd, "going_out") == [5, 0, 5]  # A and B hold 1 card each
    assert column(rnd, "cards") == [0, 0, 2]
    assert column(rnd, "total") == [5, 0, 37]
    check_totals(rnd)


def _three_way_round(r: hs.Rules, bets: tuple[int, int, int]) -> hs.Round:
    """A goes out first, B second, C is the black sheep; each bets at its first turn.

    Going out: A 5 x 3 = 15, B 5 x 2 = 10. Final trick 3a 4a 5a 6a to B (2 points);
    Haggis 3c 5c 7c (3 points) and C's 9a 9b (2 points) per ``haggis_to``.
    """
    rnd = hs.Round(r, hands=["3a", "4a 6a", "5a 9a 9b"], haggis="3c 5c 7c", leader=0)
    for seat, card in ((0, "3a"), (1, "4a"), (2, "5a"), (1, "6a")):
        if bets[seat] and rnd.bets[seat] == 0:
            rnd.bet(seat, bets[seat])
        rnd.play(seat, card)
    assert rnd.over and rnd.out_order == (0, 1)
    assert rnd.bets == bets
    assert column(rnd, "going_out") == [15, 10, 0]
    check_totals(rnd)
    return rnd


@pytest.mark.parametrize(
    ("bets", "expected"),
    [
        ((15, 0, 0), (15, 0, 0)),
        ((30, 15, 0), (45, 0, 15)),
        ((0, 0, 30), (30, 30, 0)),  # a failed sheep bet also pays the sheep who did not bet
        ((0, 15, 30), (45, 0, 0)),
        ((15, 30, 15), (60, 0, 0)),
        ((0, 15, 0), (15, 0, 15)),
    ],
)
def test_takes_all_settlement(bets, expected) -> None:
    rnd = _three_way_round(rules(3), bets)
    assert tuple(column(rnd, "bets")) == expected
    assert column(rnd, "cards") == [3 + 2, 2, 0]  # Haggis + 9a 9b | 3a 5a


@pytest.mark.parametrize("settlement", ["takes_all", "split"])
def test_2p_bets_split_equals_takes_all(settlement: str) -> None:
    """RULES.md 6: with 2 players split equals takes_all."""
    r = rules(2, bet_settlement=settlement)
    rnd = hs.Round(r, hands=["3a 8a", "4a"], haggis="", leader=0)
    rnd.bet(0, 15)
    rnd.play(0, "3a")
    rnd.bet(1, 30)
    rnd.play(1, "4a")
    assert rnd.over
    assert column(rnd, "bets") == [0, 45]
    assert column(rnd, "total") == [0, 5 + 1 + 45]  # 5 x 1 (8a); 3a 4a 8a = 1
    # seat 0 goes out first instead: its own 15 and seat 1's failed 30
    rnd = hs.Round(r, hands=["3a", "4a 8a"], haggis="", leader=0)
    rnd.bet(0, 15)
    rnd.play(0, "3a")
    assert column(rnd, "bets") == [15, 0]
    rnd = hs.Round(r, hands=["3a 8a", "2a 4a"], haggis="", leader=0)
    rnd.bet(0, 30)
    rnd.play(0, "3a")
    rnd.bet(1, 15)
    rnd.play(1, "4a")
    rnd.pass_(0)
    rnd.play(1, "2a")
    assert column(rnd, "bets") == [0, 45]


# --- bets: split (revised-split) ---------------------------------------------------------


def test_split_seed_example_a_first_b_second() -> None:
    """RULES.md 6: A, B bet 15, C none; A first, B second: A 25, B 5."""
    rnd = hs.Round(rules(3, "revised-split"), hands=["3a", "4a", "5a 9a 9b"], leader=0)
    rnd.bet(0, 15)
    rnd.play(0, "3a")
    rnd.bet(1, 15)
    rnd.play(1, "4a")
    assert rnd.over and rnd.out_order == (0, 1)
    assert column(rnd, "bets") == [25, 5, 0]
    assert column(rnd, "going_out") == [15, 15, 0]
    assert column(rnd, "cards") == [3, 1, 0]  # 5a 9a 9b | 3a
    assert column(rnd, "total") == [43, 21, 0]
    check_totals(rnd)


def test_split_seed_example_c_first_b_second() -> None:
    """RULES.md 6: A, B bet 15, C none; C first, B second: C 20, B 10."""
    rnd = hs.Round(rules(3, "revised-split"), hands=["3a 8a 8b", "4a 9c", "5a"], leader=0)
    rnd.bet(0, 15)
    rnd.play(0, "3a")
    rnd.bet(1, 15)
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.pass_(0)
    rnd.pass_(1)
    rnd.play(0, "8a")
    rnd.play(1, "9c")
    assert rnd.over and rnd.out_order == (2, 1)
    assert column(rnd, "bets") == [0, 10, 20]
    assert column(rnd, "going_out") == [0, 5, 10]
    assert column(rnd, "cards") == [0, 1, 2]  # 9c | 3a 5a (+ 8b)
    assert column(rnd, "total") == [0, 16, 32]
    check_totals(rnd)


@pytest.mark.parametrize(
    ("bets", "expected"),
    [
        # Decision (RULES.md 6): thirds round to the nearest integer, remainder to the
        # shepherd. Sheep bets 5: 5/3 = 1.67 -> second-out 2, shepherd 3.
        ((0, 5, 0), (3, 2, 0)),
        ((0, 0, 5), (3, 2, 0)),  # the black sheep's bet is shared too
        ((5, 5, 0), (5 + 3, 2, 0)),
        ((0, 5, 5), (7, 3, 0)),  # 10/3 = 3.33 -> 3
        ((0, 5, 15), (13, 7, 0)),  # 20/3 = 6.67 -> 7
        ((0, 30, 5), (23, 12, 0)),  # 35/3 = 11.67 -> 12
        ((0, 15, 30), (30, 15, 0)),
        ((15, 30, 30), (15 + 40, 20, 0)),
        ((30, 0, 0), (30, 0, 0)),
    ],
)
def test_split_settlement_and_rounding(bets, expected) -> None:
    r = rules(3, "revised-split", bet_values=(5, 15, 30))
    rnd = _three_way_round(r, bets)
    assert tuple(column(rnd, "bets")) == expected


# --- bets: threshold (aid) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("bets", "expected"),
    [
        # going out + cards: A 15 + 2 = 17, B 10 + 5 = 15, C 0
        ((15, 0, 0), (15, 0, 0)),
        # the shepherd's own failed bet: once for the shepherd, once for each non-bettor
        ((30, 0, 0), (30, 30, 30)),
        ((0, 15, 0), (0, 15, 0)),  # equalled: a sheep's bet succeeds
        ((0, 30, 0), (30, 0, 30)),
        ((0, 0, 5), (5, 5, 0)),
        ((30, 15, 5), (35, 15, 0)),
        ((15, 30, 0), (45, 0, 30)),
        ((5, 5, 5), (5 + 5, 5, 0)),
    ],
)
def test_threshold_settlement(bets, expected) -> None:
    """Decision (RULES.md 6, threshold): a bet succeeds when going out + cards reach it."""
    r = rules(3, "aid")
    assert (r.bet_settlement, r.haggis_to, r.bet_values) == (
        "threshold",
        "last_to_play",
        (5, 15, 30),
    )
    rnd = _three_way_round(r, bets)
    # last_to_play: B, the last to play, takes the Haggis; C's hand goes to the shepherd
    assert column(rnd, "cards") == [2, 2 + 3, 0]
    assert tuple(column(rnd, "bets")) == expected
    total = [g + c + b for g, c, b in zip((15, 10, 0), (2, 5, 0), expected, strict=True)]
    assert column(rnd, "total") == total


# --- bets: the bet_points knob -------------------------------------------------------------

CHANGED = (5, 20, 40)  # bet_points: Baby 5, Little 20, Big 40


@pytest.mark.parametrize(
    ("bets", "expected"),
    [
        ((20, 0, 0), (20, 0, 0)),  # a successful Little bet scores 20
        ((40, 20, 0), (60, 0, 20)),
        ((0, 20, 0), (20, 0, 20)),
        ((0, 0, 40), (40, 40, 0)),
    ],
)
def test_takes_all_settles_the_rules_bet_points(bets, expected) -> None:
    """The ``bet_points`` knob under takes_all: as published, with the bets' own points."""
    r = rules(3, bet_points=CHANGED)
    rnd = _three_way_round(r, bets)
    assert tuple(column(rnd, "bets")) == expected
    assert column(rnd, "cards") == [3 + 2, 2, 0]


@pytest.mark.parametrize(
    ("bets", "expected"),
    [
        # going out + cards: A 15 + 2 = 17, B 10 + 5 = 15, C 0: a Little bet of 20 fails
        # where one of 15 succeeds (test_threshold_settlement)
        ((20, 0, 0), (20, 20, 20)),
        ((0, 20, 0), (20, 0, 20)),
        ((5, 5, 5), (10, 5, 0)),  # the Baby bet keeps its published 5
    ],
)
def test_threshold_measures_the_score_against_the_bets_points(bets, expected) -> None:
    r = rules(3, "aid", bet_points=CHANGED)
    rnd = _three_way_round(r, bets)
    assert tuple(column(rnd, "bets")) == expected


@pytest.mark.parametrize(
    ("sheep", "bets"),
    [
        ("4a 6a 8a Ta", [20, 0]),  # 4 cards left: going out scores 20, the bet's points
        ("4a 6a 8a", [20, 20]),  # 15 < 20: failed, the shepherd's and the sheep's 20
    ],
)
def test_threshold_a_little_bet_succeeds_when_the_score_reaches_its_points(sheep, bets) -> None:
    """threshold (aid) under bet_points 5, 20, 40: seat 0 bets Little (20) and goes out
    at once; its round score is 5 a card of the sheep's hand (even cards: no card points)."""
    rnd = hs.Round(rules(2, "aid", bet_points=CHANGED), hands=["2a", sheep], haggis="", leader=0)
    rnd.bet(0, 20)
    rnd.play(0, "2a")
    assert rnd.over
    assert column(rnd, "going_out") == [5 * len(sheep.split()), 0]
    assert column(rnd, "cards") == [0, 0]
    assert column(rnd, "bets") == bets
    check_totals(rnd)
