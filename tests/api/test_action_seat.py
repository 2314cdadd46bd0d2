"""An :class:`Action` carries its seat, and the API honours it (issue 8, item 13).

``legal_actions()`` builds each action for the seat to act (``action_from_code(seat,
code)``). The same packed code can be legal for another seat too (a pass, a bet, a give,
or a play of face cards: every seat has its own J, Q and K), so ``apply_action`` and
``check_action`` must refuse an action made for another seat than the one to act, with
an :class:`IllegalAction` naming both seats and the state left exactly as it was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import haggis_sim as hs

RULES3 = hs.Rules.preset("revised", players=3)


def assert_refused(pos: Any, match: str, fn: Callable[..., Any], *args: Any) -> str:
    """``fn(*args)`` raises IllegalAction matching ``match``; state and history unchanged."""
    before = pos.state_array
    history = list(pos.history)
    with pytest.raises(hs.IllegalAction, match=match) as info:
        fn(*args)
    assert np.array_equal(pos.state_array, before)
    assert pos.history == history
    return str(info.value)


def assert_wrong_seat_refused(pos: Any, action: hs.Action) -> None:
    """Every re-made copy of ``action`` for another seat is refused by check and apply."""
    to_act = pos.to_act
    assert action.seat == to_act
    for other in range(pos.players):
        if other == to_act:
            continue
        forged = dataclasses.replace(action, seat=other)
        assert forged not in pos.legal_actions()
        for fn in (pos.check_action, pos.apply_action):
            msg = assert_refused(pos, "out of turn", fn, forged)
            assert f"seat {other} acted" in msg and f"seat {to_act} is to act" in msg


def one(pos: Any, kind: str, **fields: Any) -> hs.Action:
    """The legal action of type ``kind`` whose attributes equal ``fields``."""
    found = [
        a
        for a in pos.legal_actions()
        if a.type == kind and all(getattr(a, k) == v for k, v in fields.items())
    ]
    assert len(found) == 1, found
    return found[0]


def test_face_card_play_for_another_seat_is_refused() -> None:
    # every seat holds its own J: "play J" made for seat 0 is a legal code for seat 1 too
    rnd = hs.Round(RULES3, hands=["3a J", "4a J", "5a J"], leader=0)
    rnd.play(0, "3a")
    assert rnd.to_act == 1
    jack = next(a for a in rnd.legal_actions() if a.type == "play" and str(a.combo.cards) == "J")
    for other in (0, 2):
        forged = dataclasses.replace(jack, seat=other)
        assert_refused(rnd, f"seat {other} acted out of turn", rnd.apply_action, forged)
    assert_wrong_seat_refused(rnd, jack)
    rnd.check_action(jack)  # legal for its own seat: no error, nothing changes
    assert rnd.apply_action(jack) == jack
    assert rnd.hand(1) == hs.parse_cards("4a") and rnd.hand(0) == hs.parse_cards("J")


def test_bet_and_pass_for_another_seat_are_refused() -> None:
    rnd = hs.Round(RULES3, hands=["3a 4a 9b", "5a 8c K", "6a 7d Q"], leader=0)
    bet = one(rnd, "bet", value=15)
    assert_wrong_seat_refused(rnd, bet)
    assert rnd.bets == (0, 0, 0)
    rnd.apply_action(bet)
    assert rnd.bets == (15, 0, 0) and rnd.history[-1] == bet
    rnd.play(0, "3a")
    pass_ = one(rnd, "pass")
    assert pass_.seat == 1
    assert_wrong_seat_refused(rnd, pass_)
    rnd.apply_action(pass_)
    assert rnd.to_act == 2 and rnd.history[-1] == pass_


def test_give_for_another_seat_is_refused() -> None:
    rnd = hs.Round(RULES3, hands=["4a 8a", "6a J Q 9c", "5a 7c Tc"], leader=0)
    rnd.play(0, "4a")
    rnd.play(1, "J Q")
    rnd.pass_(2)
    rnd.pass_(0)
    assert rnd.phase == "give_trick" and rnd.to_act == 1
    give = one(rnd, "give", value=2)
    assert_wrong_seat_refused(rnd, give)
    # seat 0 "giving to seat 2" is the same code as seat 1's give: still refused
    msg = assert_refused(rnd, "out of turn", rnd.apply_action, dataclasses.replace(give, seat=0))
    assert "seat 0" in msg and "seat 1 is to act" in msg
    rnd.apply_action(give)
    assert rnd.captured(2) == hs.parse_cards("4a J Q")


def test_game_refuses_actions_for_another_seat_at_every_step() -> None:
    """A whole round of a 3-player game: at each step every forged seat is refused."""
    game = hs.Game(RULES3, seed=3)
    rng = np.random.default_rng(0)
    kinds: set[str] = set()
    while game.round_no == 0:
        legal = game.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        assert_wrong_seat_refused(game, action)
        kinds.add(action.type)
        game.check_action(action)
        game.apply_action(action)
    assert {"play", "pass"} <= kinds
    assert [a.seat for a in game.rounds[0].history] == [a.seat for a in game.history]


def test_malformed_actions_are_refused() -> None:
    rnd = hs.Round(RULES3, hands=["3a 4a 9b", "5a 8c K", "6a 7d Q"], leader=0)
    play = next(a for a in rnd.legal_actions() if a.type == "play")
    lie = dataclasses.replace(play, type="pass")  # fields that do not match the code
    assert_refused(rnd, "do not match its code", rnd.apply_action, lie)
    assert_refused(rnd, "do not match its code", rnd.check_action, lie)
    bad_seat = dataclasses.replace(play, seat=7)
    assert_refused(rnd, "bad seat 7", rnd.apply_action, bad_seat)
    assert_refused(rnd, "not an action", rnd.apply_action, "3a")
    assert_refused(rnd, "not an action", rnd.check_action, None)
    # a bare packed code has no seat: it is taken for the seat to act
    rnd.apply_action(play.code)
    assert rnd.history[-1] == play
