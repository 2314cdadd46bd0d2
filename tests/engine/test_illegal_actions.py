"""Illegal actions and bad inputs: each raises, says why, and changes nothing.

Every illegal action must raise :class:`haggis_sim.IllegalAction` (a ValueError) with a
message naming the reason, and leave the engine state (``state_array``) and the history
exactly as they were. Constructor and preset errors raise ValueError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import haggis_sim as hs

C = hs.parse_cards


def rules(players: int = 3, preset: str = "revised", **flags: Any) -> hs.Rules:
    return hs.Rules.preset(preset, players=players, **flags)


def assert_illegal(rnd: hs.Round, match: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> str:
    """Call ``fn``; it must raise IllegalAction matching ``match`` and change nothing."""
    before = rnd.state_array
    n_hist = len(rnd.history)
    with pytest.raises(hs.IllegalAction, match=match) as info:
        fn(*args, **kw)
    assert isinstance(info.value, ValueError)
    assert np.array_equal(rnd.state_array, before)
    assert len(rnd.history) == n_hist
    return str(info.value)


def start3() -> hs.Round:
    return hs.Round(rules(3), hands=["3a 4a 5a J", "9a 9b K 6c", "Tc Td 2e Q"], leader=0)


# --- turn order ----------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [1, 2])
def test_out_of_turn(seat: int) -> None:
    rnd = start3()
    own_card = next(iter(rnd.hand(seat)))
    msg = assert_illegal(rnd, "out of turn", rnd.play, seat, own_card)
    assert "seat 0 is to act" in msg
    assert_illegal(rnd, "out of turn", rnd.pass_, seat)
    assert_illegal(rnd, "out of turn", rnd.bet, seat, 15)
    assert_illegal(rnd, "out of turn", rnd.give, seat, 0)


def test_out_of_turn_after_some_plays() -> None:
    rnd = start3()
    rnd.play(0, "3a")
    assert rnd.to_act == 1
    assert_illegal(rnd, "out of turn", rnd.play, 0, "4a")
    assert_illegal(rnd, "out of turn", rnd.play, 2, "Tc")
    assert_illegal(rnd, "out of turn", rnd.pass_, 2)


# --- the cards of a play ----------------------------------------------------------------------


@pytest.mark.parametrize("cards", ["9a", "3a 9a", "Ta", "K 3a", "2b"])
def test_card_not_held(cards: str) -> None:
    rnd = start3()  # seat 0 holds 3a 4a 5a and its own J
    assert_illegal(rnd, "cards not held", rnd.play, 0, cards)


def test_face_card_not_held_any_more() -> None:
    rnd = start3()
    rnd.play(0, "J")
    rnd.pass_(1)
    rnd.pass_(2)
    assert rnd.to_act == 0
    assert_illegal(rnd, "cards not held", rnd.play, 0, "J")


@pytest.mark.parametrize("cards", ["3a 5a", "3a 9d", "3a 4a 5b", "5b 7c 9d J", "3a 5b 7c 9d J", ""])
def test_not_a_combination(cards: str) -> None:
    hands = ["3a 4a 5a 5b 7c 9d J", "9a 9b K 6c", "Tc Td 2e Q"]
    rnd = hs.Round(rules(3), hands=hands, leader=0)
    assert_illegal(rnd, "not a combination", rnd.play, 0, cards)


def test_does_not_beat() -> None:
    rnd = start3()
    rnd.play(0, "5a")
    assert_illegal(rnd, "does not beat", rnd.play, 1, "9a 9b")  # a pair on a single
    rnd.play(1, "9a")
    assert_illegal(rnd, "does not beat", rnd.play, 2, "2e")  # lower single
    assert_illegal(rnd, "does not beat", rnd.play, 2, "Tc Td")  # other kind
    rnd.play(2, "Q")
    assert_illegal(rnd, "does not beat", rnd.play, 0, "J")  # J (11) on Q (12)


def test_equal_rank_does_not_beat() -> None:
    rnd = hs.Round(rules(2), hands=["9a 2a", "9b 2b"], leader=0)
    rnd.play(0, "9a")
    assert_illegal(rnd, "does not beat", rnd.play, 1, "9b")


def test_leader_passing() -> None:
    rnd = start3()
    assert_illegal(rnd, "leader must play", rnd.pass_, 0)
    rnd.play(0, "3a")
    rnd.pass_(1)
    rnd.pass_(2)
    assert rnd.to_act == 0 and rnd.top is None
    assert_illegal(rnd, "leader must play", rnd.pass_, 0)


# --- bets -------------------------------------------------------------------------------------


def test_bet_after_playing() -> None:
    """Decision (RULES.md 6): a bet only at one's own turn, before one's first play."""
    rnd = start3()
    rnd.play(0, "3a")
    rnd.pass_(1)
    rnd.pass_(2)
    assert rnd.to_act == 0
    assert_illegal(rnd, "after having played", rnd.bet, 0, 15)


def test_bet_after_passing_is_allowed_but_not_after_playing() -> None:
    rnd = start3()
    rnd.play(0, "3a")
    rnd.pass_(1)
    rnd.play(2, "Tc")
    rnd.pass_(0)
    rnd.bet(1, 30)  # seat 1 only passed so far: still allowed (RULES.md 6)
    assert rnd.bets == (0, 30, 0)
    assert rnd.to_act == 1
    assert_illegal(rnd, "second bet", rnd.bet, 1, 15)


def test_second_bet() -> None:
    rnd = start3()
    rnd.bet(0, 15)
    assert_illegal(rnd, "second bet", rnd.bet, 0, 15)
    assert_illegal(rnd, "second bet", rnd.bet, 0, 30)


@pytest.mark.parametrize(
    ("preset", "value", "ok"),
    [
        ("revised", 5, False),
        ("classic", 5, False),
        ("haggish", 5, False),
        ("deluxe", 5, True),
        ("aid", 5, True),
        ("revised", 15, True),
        ("revised", 30, True),
        ("deluxe", 10, False),
        ("revised", 45, False),
        ("revised", 0, False),
        ("revised", -15, False),
        ("revised", 256, False),
        ("revised", 15 + 256, False),
        ("revised", "15", False),
        ("revised", 15.0, False),
    ],
)
def test_bet_value_must_be_in_preset(preset: str, value: Any, ok: bool) -> None:
    rnd = hs.Round(rules(2, preset), hands=["3a 4a", "9a 9b"], leader=0)
    if ok:
        rnd.bet(0, value)
        assert rnd.bets == (value, 0)
        assert len(rnd.history) == 1 and rnd.history[0].type == "bet"
    else:
        assert_illegal(rnd, "bet value not allowed", rnd.bet, 0, value)


def test_bet_value_override_excludes_value() -> None:
    rnd = hs.Round(rules(2, "deluxe", bet_values=(15, 30)), hands=["3a 4a", "9a 9b"], leader=0)
    assert_illegal(rnd, "bet value not allowed", rnd.bet, 0, 5)


# --- seats --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [-1, 3, 7, "x", "0", None, 1.0])
def test_bad_seat(seat: Any) -> None:
    rnd = start3()
    assert_illegal(rnd, "bad seat", rnd.play, seat, "3a")
    assert_illegal(rnd, "bad seat", rnd.pass_, seat)
    assert_illegal(rnd, "bad seat", rnd.bet, seat, 15)
    assert_illegal(rnd, "bad seat", rnd.give, seat, 1)


def test_seat_2_is_bad_with_2_players() -> None:
    rnd = hs.Round(rules(2), hands=["3a 4a", "9a 9b"], leader=0)
    assert_illegal(rnd, "bad seat", rnd.play, 2, "3a")
    with pytest.raises(hs.IllegalAction, match="bad seat"):
        rnd.hand(2)


# --- gives ---------------------------------------------------------------------------------------


def bombed_trick_pending() -> hs.Round:
    """3 players, winner_chooses: seat 1's J-Q bomb won; seat 1 must give the trick."""
    rnd = hs.Round(rules(3), hands=["4a 8a", "6a J Q 9c", "5a 7c Tc"], leader=0)
    rnd.play(0, "4a")
    rnd.play(1, "J Q")
    rnd.pass_(2)
    rnd.pass_(0)
    assert rnd.phase == "give_trick" and rnd.to_act == 1
    return rnd


def test_give_when_no_give_pending() -> None:
    rnd = start3()
    assert_illegal(rnd, "not possible now", rnd.give, 0, 1)
    rnd.play(0, "3a")
    assert_illegal(rnd, "not possible now", rnd.give, 1, 2)


def test_give_to_oneself_or_bad_target() -> None:
    rnd = bombed_trick_pending()
    assert_illegal(rnd, "must give to an opponent", rnd.give, 1, 1)
    assert_illegal(rnd, "bad seat", rnd.give, 1, 3)
    assert_illegal(rnd, "bad seat", rnd.give, 1, -1)
    assert_illegal(rnd, "bad seat", rnd.give, 1, "0")
    assert_illegal(rnd, "out of turn", rnd.give, 0, 2)  # only the bomber gives


def test_play_pass_bet_while_give_pending() -> None:
    rnd = bombed_trick_pending()
    assert_illegal(rnd, "give decision is pending", rnd.play, 1, "6a")
    assert_illegal(rnd, "not possible now", rnd.pass_, 1)
    assert_illegal(rnd, "not possible now", rnd.bet, 1, 15)
    rnd.give(1, 0)  # the legal answer still works afterwards
    assert rnd.phase == "play" and rnd.captured(0) == C("4a J Q")


def test_give_haggis_pending_refuses_plays() -> None:
    rnd = hs.Round(
        rules(3, haggis_to="last_to_play", bomb_capture="tournament"),
        hands=["3a", "4a J Q", "5a 6c 9e"],
        haggis="3b",
        leader=0,
    )
    for seat, cards in ((0, "3a"), (1, "4a"), (2, "5a"), (1, "J Q")):
        rnd.play(seat, cards)
    assert rnd.phase == "give_haggis" and rnd.to_act == 1
    assert_illegal(rnd, "give decision is pending", rnd.play, 1, "J")
    assert_illegal(rnd, "not possible now", rnd.pass_, 1)
    assert_illegal(rnd, "must give to an opponent", rnd.give, 1, 1)


# --- after the round ---------------------------------------------------------------------


def test_acting_after_the_round_is_over() -> None:
    rnd = hs.Round(rules(2), hands=["3a", "9a 9b"], leader=0)
    rnd.play(0, "3a")
    assert rnd.over and rnd.to_act is None and rnd.legal_actions() == []
    for seat in (0, 1):
        assert_illegal(rnd, "round is over", rnd.play, seat, "9a")
        assert_illegal(rnd, "round is over", rnd.pass_, seat)
        assert_illegal(rnd, "round is over", rnd.bet, seat, 15)
        assert_illegal(rnd, "round is over", rnd.give, seat, 1 - seat)
    assert_illegal(rnd, "round is over", rnd.apply_action, 0)


def test_scores_before_the_end_raise() -> None:
    rnd = start3()
    with pytest.raises(ValueError, match="not over"):
        rnd.scores()


# --- card text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("1a", "bad card"),
        ("Tz", "bad card"),
        ("3", "bad card"),
        ("3aa", "bad card"),
        ("Ja", "face cards have no suit"),
        ("11a", "bad card"),
        ("3a 3a", "duplicate card"),
        ("J J", "duplicate card"),
        ("3A", "bad card"),
    ],
)
def test_malformed_card_text(text: str, phrase: str) -> None:
    rnd = start3()
    assert_illegal(rnd, phrase, rnd.play, 0, text)


def test_card_text_must_be_text() -> None:
    rnd = start3()
    assert_illegal(rnd, "cards must be given as text", rnd.play, 0, 5)


def test_suit_e_with_2_players() -> None:
    rnd = hs.Round(rules(2), hands=["3a 4a", "9a 9b"], leader=0)
    assert_illegal(rnd, "cards not held", rnd.play, 0, "3e")
    with pytest.raises(ValueError, match="suit e is not in play"):
        hs.readings("3e", rules(2))


# --- readings ---------------------------------------------------------------------------------


def test_several_kinds_need_kind_when_leading() -> None:
    """RULES.md 2.3: 5a J Q is a set of three 5s or a run 3-5 / 4-6 / 5-7 in suit a."""
    rnd = hs.Round(rules(3), hands=["5a J Q 2b", "9a 9b", "Tc Td"], leader=0)
    msg = assert_illegal(rnd, "read several ways", rnd.play, 0, "5a J Q")
    assert "set of 3 5s" in msg and "run to 7" in msg
    assert_illegal(rnd, "no such reading", rnd.play, 0, "5a J Q", kind="bomb")
    assert_illegal(rnd, "unknown kind", rnd.play, 0, "5a J Q", kind="pair")
    combo = rnd.play(0, "5a J Q", kind="set")
    assert (combo.kind, combo.width, combo.length, combo.rank) == ("set", 3, 1, 5)
    assert rnd.top == combo


def test_kind_sequence_picks_highest_run() -> None:
    rnd = hs.Round(rules(3), hands=["5a J Q 2b", "9a 9b", "Tc Td"], leader=0)
    combo = rnd.play(0, "5a J Q", kind="sequence")
    assert (combo.kind, combo.width, combo.length, combo.rank) == ("sequence", 1, 3, 7)


def test_rank_picks_a_lower_reading_when_leading() -> None:
    """Decision (RULES.md 2.3): the engine accepts every valid reading a player names."""
    rnd = hs.Round(rules(3), hands=["9a Ta J 2b", "8b 9b Tb 2c", "Tc Td"], leader=0)
    assert_illegal(rnd, "no such reading", rnd.play, 0, "9a Ta J", rank=12)
    combo = rnd.play(0, "9a Ta J", rank=10)
    assert (combo.kind, combo.width, combo.length, combo.rank) == ("sequence", 1, 3, 10)
    assert combo.describe() == "run to 10"
    # the lower reading fixes the top play: another run to 10 does not beat it
    assert_illegal(rnd, "does not beat", rnd.play, 1, "8b 9b Tb")


def test_rank_reading_must_still_beat_top() -> None:
    rnd = hs.Round(rules(3), hands=["8a 9a Ta 2b", "9b Tb J 2c", "Tc Td"], leader=0)
    rnd.play(0, "8a 9a Ta")
    # 9b Tb J reads as runs to 10 or J; rank=10 does not beat the run to 10
    assert_illegal(rnd, "does not beat", rnd.play, 1, "9b Tb J", rank=10)
    assert rnd.play(1, "9b Tb J").rank == 11


def test_apply_action_malformed_or_stale() -> None:
    rnd = start3()
    stale = [a for a in rnd.legal_actions() if a.type == "play" and str(a.combo.cards) == "3a"][0]
    assert_illegal(rnd, "malformed action", rnd.apply_action, 12345)
    rnd.apply_action(stale)
    assert rnd.to_act == 1
    # the stale action was made for seat 0: refused at seat 1's turn (tests/api/test_action_seat.py)
    assert_illegal(rnd, "seat 0 acted out of turn", rnd.apply_action, stale)
    assert_illegal(rnd, "cards not held", rnd.apply_action, stale.code)  # seat 1 has no 3a


# --- constructors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "phrase"),
    [
        ({"hands": ["3a 4a", "3a 9b", "Tc"]}, "more than one hand"),
        ({"hands": ["3a 4a", "9b", "Tc"], "haggis": "4a"}, "more than one hand"),
        ({"hands": ["3a 4a", "9b"]}, "3 players need 3 hands"),
        ({"hands": ["3a", "9b", "Tc", "2a"]}, "3 players need 3 hands"),
        ({"hands": ["3a 4a", "9b", "Tc"], "leader": 3}, "bad leader"),
        ({"hands": ["3a 4a", "9b", "Tc"], "leader": -1}, "bad leader"),
        ({"hands": ["3a 4a", "9b", "Tc"], "leader": "0"}, "bad leader"),
        ({"hands": ["3a 4a", "", "Tc"]}, "has no cards"),
        ({"hands": ["3a 4a", "9b", "Tc"], "haggis": "J"}, "suit cards only"),
        ({"hands": ["3a 4a", "9b", "Tz"]}, "bad card"),
        ({"hands": ["3a 3a", "9b", "Tc"]}, "duplicate"),
    ],
)
def test_round_constructor_errors_3p(kwargs: dict[str, Any], phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        hs.Round(rules(3), **kwargs)


def test_round_constructor_errors_2p() -> None:
    with pytest.raises(ValueError, match="suit e is not in play"):
        hs.Round(rules(2), hands=["3a 4e", "9b"])
    with pytest.raises(ValueError, match="suit e is not in play"):
        hs.Round(rules(2), hands=["3a", "9b"], haggis="2e")
    with pytest.raises(ValueError, match="2 players need 2 hands"):
        hs.Round(rules(2), hands=["3a", "9b", "Tc"])
    with pytest.raises(ValueError, match="bad leader"):
        hs.Round(rules(2), hands=["3a", "9b"], leader=2)


@pytest.mark.parametrize(
    ("args", "kwargs", "phrase"),
    [
        (("standard",), {}, "unknown rules preset"),
        (("Revised",), {}, "unknown rules preset"),
        (("revised",), {"bomb_capture_rule": "tournament"}, "unknown rule flag"),
        (("revised",), {"preset_name": "classic"}, "unknown rule flag"),
        (("revised",), {"bomb_capture": "loser_chooses"}, "bomb_capture must be one of"),
        (("revised",), {"haggis_to": "dealer"}, "haggis_to must be one of"),
        (("revised",), {"card_points": "new"}, "card_points must be one of"),
        (("revised",), {"bet_settlement": "share"}, "bet_settlement must be one of"),
        (("revised",), {"lead_tiebreak": "random"}, "lead_tiebreak must be one of"),
        (("revised",), {"game_end": "score"}, "game_end must be one of"),
        (("revised",), {"bet_values": (10, 15)}, "bet_values must be a subset"),
        (("revised",), {"bet_values": (15, 15)}, "repeats"),
        (("revised",), {"target_score": 0}, "target_score must be an integer"),
        (("revised",), {"rounds": 0}, "rounds must be an integer"),
        (("revised",), {"first_out_bonus": -5}, "first_out_bonus must be an integer"),
        (("revised",), {"first_out_bonus": True}, "first_out_bonus must be an integer"),
        (("revised-split",), {"players": 2}, "3 players only"),
        (("haggish",), {"players": 3}, "2 players only"),
        (("revised",), {"players": 4}, "players must be 2 or 3"),
    ],
)
def test_rules_preset_errors(args: tuple[str], kwargs: dict[str, Any], phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        hs.Rules.preset(*args, **kwargs)


def test_rules_presets_accept_their_player_counts() -> None:
    assert hs.Rules.preset("revised-split", players=3).bet_settlement == "split"
    assert hs.Rules.preset("haggish", players=2).haggis_to == "nobody"
    assert hs.Rules.preset("deluxe", players=2, bet_values=[5, 30]).bet_values == (5, 30)
