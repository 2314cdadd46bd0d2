"""Trick play, going out and the end of a round (RULES.md sections 3 and 4).

Every test builds an exact position with :class:`haggis_sim.Round`, plays a short
script and checks who acts, who captures what, and the final scores to the point.
Seats: with 3 players seat 0's left is seat 1, seat 1's left is seat 2, seat 2's left
is seat 0 (RULES.md 1). A hand's ``J``/``Q``/``K`` are that seat's own face cards.
"""

from __future__ import annotations

import pytest

import haggis_sim as hs

C = hs.parse_cards


def rules(players: int, preset: str = "revised", **flags: object) -> hs.Rules:
    return hs.Rules.preset(preset, players=players, **flags)


def pile(suit_cards: str, j: int = 0, q: int = 0, k: int = 0) -> hs.Cards:
    """A captured pile: suit cards plus counts of face cards (of any seat)."""
    return hs.Cards(C(suit_cards).suits, j, q, k)


def check_totals(rnd: hs.Round) -> None:
    for sc in rnd.scores():
        assert sc["total"] == sc["going_out"] + sc["cards"] + sc["bets"] + sc["bonus"]


def trick_over_state(rnd: hs.Round, leader: int, trick_no: int) -> None:
    """The previous trick has ended and ``leader`` leads trick ``trick_no``."""
    assert rnd.phase == "play"
    assert rnd.top is None
    assert rnd.top_seat is None
    assert rnd.trick_cards == C("")
    assert rnd.leader == leader
    assert rnd.to_act == leader
    assert rnd.trick_no == trick_no


# --- section 3: passing, re-entry and the end of a trick ---------------------------------


def test_3p_reentry_after_pass() -> None:
    """A player who passed may play later in the same trick (RULES.md 3)."""
    rnd = hs.Round(rules(3), hands=["3a 8a 8b", "6a 9c 9d", "4b Tc Td"], leader=0)
    rnd.play(0, "3a")
    rnd.pass_(1)
    assert rnd.to_act == 2
    rnd.play(2, "4b")
    rnd.pass_(0)
    # seat 1 passed earlier in this trick and may still play
    assert rnd.to_act == 1
    plays = {str(a.combo.cards) for a in rnd.legal_actions() if a.type == "play"}
    assert plays == {"6a", "9c", "9d"}
    rnd.play(1, "6a")
    rnd.pass_(2)
    # one pass only: the trick goes on
    assert rnd.to_act == 0
    assert rnd.top is not None and rnd.top_seat == 1
    rnd.pass_(0)
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(1) == C("3a 4b 6a")
    assert rnd.captured(0) == C("") and rnd.captured(2) == C("")


def test_2p_trick_ends_at_first_pass() -> None:
    rnd = hs.Round(rules(2), hands=["3a 8a 2a", "5b 9c 2b"], leader=0)
    rnd.play(0, "3a")
    rnd.pass_(1)
    trick_over_state(rnd, leader=0, trick_no=1)
    assert rnd.captured(0) == C("3a")
    rnd.play(0, "8a")
    rnd.play(1, "9c")
    rnd.pass_(0)
    trick_over_state(rnd, leader=1, trick_no=2)
    assert rnd.captured(1) == C("8a 9c")


def test_3p_trick_needs_two_successive_passes() -> None:
    rnd = hs.Round(rules(3), hands=["3a 8a 8b", "6a 9c 9d", "4b Tc Td"], leader=0)
    rnd.play(0, "3a")
    rnd.pass_(1)
    assert (rnd.to_act, rnd.top_seat, rnd.trick_no) == (2, 0, 0)
    rnd.play(2, "4b")  # a play resets the pass count
    rnd.pass_(0)
    assert (rnd.to_act, rnd.top_seat, rnd.trick_no) == (1, 2, 0)
    rnd.pass_(1)
    trick_over_state(rnd, leader=2, trick_no=1)
    assert rnd.captured(2) == C("3a 4b")


def test_3p_player_out_counts_as_passing() -> None:
    """Seat 0 goes out; the trick then ends after one pass (RULES.md 3)."""
    rnd = hs.Round(rules(3), hands=["3a", "5a 6a 6b 7c", "4b 9c 9d 8c"], leader=0)
    rnd.play(0, "3a")
    assert rnd.out_order == (0,)
    assert rnd.to_act == 1
    rnd.play(1, "5a")
    assert rnd.to_act == 2
    rnd.pass_(2)
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(1) == C("3a 5a")
    # seat 0 is skipped from now on: seat 1 leads, seat 2 follows, then seat 1 again
    rnd.play(1, "6a")
    assert rnd.to_act == 2
    rnd.play(2, "8c")
    assert rnd.to_act == 1


def test_3p_out_player_is_skipped_while_both_others_hold_cards() -> None:
    """After the player who went out made the top play, both others must pass."""
    rnd = hs.Round(rules(3), hands=["3a", "5a 6a 6b 7c", "4b 9c 9d 8c"], leader=0)
    rnd.play(0, "3a")
    rnd.pass_(1)
    assert rnd.to_act == 2 and rnd.top_seat == 0
    rnd.pass_(2)
    # winner 0 is out: the next player to its left holding cards (seat 1) leads
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(0) == C("3a")


@pytest.mark.parametrize("out_seat", [0, 1, 2])
def test_3p_winner_out_next_left_leads(out_seat: int) -> None:
    hands = ["5a 6a 6b", "4b 9c 9d", "8c 7d 7e"]
    hands[out_seat] = "3a"
    rnd = hs.Round(rules(3), hands=hands, leader=out_seat)
    rnd.play(out_seat, "3a")
    left, right = (out_seat + 1) % 3, (out_seat + 2) % 3
    assert rnd.to_act == left
    rnd.pass_(left)
    assert rnd.to_act == right
    rnd.pass_(right)
    trick_over_state(rnd, leader=left, trick_no=1)
    assert rnd.captured(out_seat) == C("3a")


def test_winner_leads_next_trick_3p() -> None:
    rnd = hs.Round(rules(3), hands=["3a 8a 8b", "6a 9c 9d", "4b Tc Td"], leader=1)
    rnd.play(1, "6a")
    rnd.play(2, "Tc")
    rnd.pass_(0)
    rnd.pass_(1)
    trick_over_state(rnd, leader=2, trick_no=1)
    assert rnd.captured(2) == C("6a Tc")


def test_leader_may_lead_any_kind_and_must_be_followed_in_kind() -> None:
    """A sequence lead is followed by a sequence of the same width and length only."""
    rnd = hs.Round(rules(3), hands=["3a 4a 5a 2e", "6b 7b 8b 9e", "6c 7c 8c 9c 2d"], leader=0)
    rnd.play(0, "3a 4a 5a")
    with pytest.raises(hs.IllegalAction, match="does not beat"):
        rnd.play(1, "9e")
    rnd.play(1, "6b 7b 8b")
    # a run of 4 does not beat a run of 3 (other length)
    with pytest.raises(hs.IllegalAction, match="does not beat"):
        rnd.play(2, "6c 7c 8c 9c")
    combo = rnd.play(2, "7c 8c 9c")
    assert (combo.kind, combo.width, combo.length, combo.rank) == ("sequence", 1, 3, 9)


# --- combinations in play ----------------------------------------------------------------


def test_face_singles_rank_11_12_13() -> None:
    rnd = hs.Round(rules(3), hands=["Ta K 2a", "9b J 2b", "Tc Q 2c"], leader=0)
    rnd.play(0, "Ta")
    j = rnd.play(1, "J")
    assert (j.kind, j.width, j.length, j.rank) == ("set", 1, 1, 11)
    with pytest.raises(hs.IllegalAction, match="does not beat"):
        rnd.play(2, "Tc")
    q = rnd.play(2, "Q")
    assert (q.kind, q.rank) == ("set", 12)
    k = rnd.play(0, "K")
    assert (k.kind, k.rank) == ("set", 13)
    rnd.pass_(1)
    rnd.pass_(2)
    assert rnd.captured(0) == C("Ta J Q K")


def test_bomb_beats_non_bomb_and_bomb_order_3p() -> None:
    """RULES.md 2.1/2.4: bombs beat non-bombs; rainbow < J-Q < J-K < Q-K < flush."""
    rnd = hs.Round(
        rules(3),
        hands=["8a 8b 8c 8d 8e J K 3e 5e 7e 9e 2a", "3a 5b 7c 9d Q K 2b", "J Q 3b 5c 7d 9a 2c"],
        leader=0,
    )
    assert rnd.play(0, "8a 8b 8c 8d 8e").describe() == "set of 5 8s"
    assert (rnd.play(1, "3a 5b 7c 9d").kind, rnd.top.rank) == ("bomb", 1)
    assert rnd.play(2, "J Q").rank == 2
    assert rnd.play(0, "J K").rank == 3
    assert rnd.play(1, "Q K").rank == 4
    before, n_hist = rnd.state_array, len(rnd.history)
    with pytest.raises(hs.IllegalAction, match="does not beat"):
        rnd.play(2, "3b 5c 7d 9a")  # a rainbow does not beat Q-K
    assert (rnd.state_array == before).all() and len(rnd.history) == n_hist
    rnd.pass_(2)
    flush = rnd.play(0, "3e 5e 7e 9e")
    assert (flush.kind, flush.rank) == ("bomb", 6)
    assert flush.describe() == "bomb flush 3-5-7-9"
    rnd.pass_(1)
    rnd.pass_(2)
    assert rnd.phase == "give_trick" and rnd.to_act == 0
    rnd.give(0, 1)
    trick_over_state(rnd, leader=0, trick_no=1)
    assert rnd.captured(1) == pile("8a 8b 8c 8d 8e 3a 5b 7c 9d 3e 5e 7e 9e", j=2, q=2, k=2)


def test_bomb_order_jqk_2p() -> None:
    rnd = hs.Round(rules(2), hands=["Q K 3a 5a 7a 9a 2b", "J Q K 3b 5c 2c"], leader=0)
    assert rnd.play(0, "Q K").rank == 4
    with pytest.raises(hs.IllegalAction, match="does not beat"):
        rnd.play(1, "J Q")
    jqk = rnd.play(1, "J Q K")
    assert (jqk.kind, jqk.rank, jqk.describe()) == ("bomb", 5, "bomb J-Q-K")
    assert rnd.play(0, "3a 5a 7a 9a").rank == 6
    rnd.pass_(1)
    # 2 players: a bombed trick goes to the other player; the bomber leads next
    trick_over_state(rnd, leader=0, trick_no=1)
    assert rnd.captured(1) == pile("3a 5a 7a 9a", j=1, q=2, k=2)
    assert rnd.captured(0) == C("")


def test_3579_with_a_face_card_is_not_a_combination() -> None:
    rnd = hs.Round(rules(3), hands=["3a 5b 7c 9d J 2e", "4b 8c", "6d 8d"], leader=0)
    before, n_hist = rnd.state_array, len(rnd.history)
    with pytest.raises(hs.IllegalAction, match="not a combination"):
        rnd.play(0, "3a 5b 7c 9d J")
    assert (rnd.state_array == before).all() and len(rnd.history) == n_hist
    assert hs.readings("3a 5b 7c 9d J", rules(3)) == []
    # mixed suits that are neither all different nor all equal: no bomb either
    assert hs.readings("3a 5a 7c 9d", rules(3)) == []


# --- section 4: going out and the end of a round -----------------------------------------


def test_going_out_count_includes_face_cards_and_is_taken_at_that_moment() -> None:
    """3 players: the shepherd's count is the largest opponent hand when going out.

    Decision (RULES.md 7): the going-out count is taken at the moment a player goes out.
    """
    rnd = hs.Round(
        rules(3), hands=["3a 4a 5a", "6b 7b 8b 9b J", "2c 2d Tc Td"], haggis="3c 5c 9c", leader=0
    )
    rnd.play(0, "3a 4a 5a")
    # seat 1 holds 4 suit cards + J = 5 cards; seat 2 holds 4
    assert rnd.out_order == (0,) and rnd.shepherd == 0
    assert rnd.phase == "play" and not rnd.over and rnd.to_act == 1
    rnd.play(1, "6b 7b 8b")
    rnd.pass_(2)  # seat 0 is out: one pass ends the trick
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.play(1, "9b J").describe() == "set of 2 9s"
    # the second player out ends the round (3 players); seat 2 is the black sheep
    assert rnd.over and rnd.phase == "round_over" and rnd.to_act is None
    assert rnd.out_order == (0, 1)
    # the black sheep's hand (counted first) and the Haggis went to the shepherd
    assert rnd.captured(0) == C("3c 5c 9c 2c 2d Tc Td")
    assert rnd.captured(1) == C("3a 4a 5a 6b 7b 8b 9b J")
    assert rnd.hand(2) == C("") and rnd.haggis == C("")
    sc = rnd.scores()
    assert [s["going_out"] for s in sc] == [25, 20, 0]  # 5 x 5 (J counts), 5 x 4
    assert [s["cards"] for s in sc] == [3, 6, 0]  # 3c 5c 9c | 3a 5a 7b 9b J(2)
    assert [s["total"] for s in sc] == [28, 26, 0]
    check_totals(rnd)


def test_2p_round_ends_when_first_player_goes_out() -> None:
    rnd = hs.Round(rules(2), hands=["3a 4a 5a J", "9a 9b K"], haggis="2b 3b", leader=0)
    combo = rnd.play(0, "3a 4a 5a J")
    assert combo.describe() == "run to 6"  # J wild as a 6: the highest reading
    assert rnd.over and rnd.out_order == (0,)
    assert rnd.captured(0) == C("3a 4a 5a J 2b 3b 9a 9b K")
    sc = rnd.scores()
    assert [s["going_out"] for s in sc] == [15, 0]  # 9a 9b K: 3 cards
    # 3a 5a J(2) 3b 9a 9b K(5) = 1+1+2+1+1+1+5
    assert [s["cards"] for s in sc] == [12, 0]
    assert [s["total"] for s in sc] == [27, 0]
    check_totals(rnd)


def test_last_player_out_wins_final_trick_even_if_beatable() -> None:
    """The round ends on the second player out; seat 2's J-Q bomb is never played."""
    rnd = hs.Round(rules(3), hands=["3a", "4a 7b", "5a 6c J Q"], haggis="2b 2c 2d", leader=0)
    rnd.play(0, "3a")
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    assert rnd.to_act == 1  # seat 0 is out and skipped
    rnd.play(1, "7b")
    assert rnd.over and rnd.out_order == (0, 1)
    assert rnd.captured(1) == C("3a 4a 5a 7b")
    assert rnd.captured(0) == C("2b 2c 2d 6c J Q")
    sc = rnd.scores()
    assert [s["going_out"] for s in sc] == [20, 15, 0]  # 5 x 4 (5a 6c J Q), 5 x 3
    assert [s["cards"] for s in sc] == [5, 3, 0]  # J(2)+Q(3) | 3a 5a 7b
    check_totals(rnd)


def test_2p_final_trick_won_by_bomb_goes_to_other_player() -> None:
    rnd = hs.Round(rules(2), hands=["3a J Q", "8a 8b"], haggis="3b 5b", leader=0)
    rnd.play(0, "3a")
    rnd.play(1, "8a")
    rnd.play(0, "J Q")
    assert rnd.over and rnd.out_order == (0,)
    assert rnd.captured(1) == C("3a 8a J Q")
    assert rnd.captured(0) == C("3b 5b 8b")
    sc = rnd.scores()
    assert [s["going_out"] for s in sc] == [5, 0]
    assert [s["cards"] for s in sc] == [2, 6]  # 3b 5b | 3a J(2) Q(3)
    assert [s["total"] for s in sc] == [7, 6]
    check_totals(rnd)


def test_3p_final_trick_bomb_winner_chooses_even_a_player_already_out() -> None:
    rnd = hs.Round(rules(3), hands=["3a", "4a J Q", "5a 6c 9e"], haggis="3b 5b 7b", leader=0)
    rnd.play(0, "3a")  # out: 5 x 3
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.play(1, "J Q")  # out: 5 x 2; a bomb wins the final trick
    assert rnd.out_order == (0, 1)
    assert rnd.phase == "give_trick" and rnd.to_act == 1 and not rnd.over
    gives = sorted((a.type, a.value) for a in rnd.legal_actions())
    assert gives == [("give", 0), ("give", 2)]
    rnd.give(1, 0)  # the shepherd, already out, may receive it (Decision, RULES.md 3)
    assert rnd.over
    assert rnd.captured(0) == C("3a 4a 5a J Q 3b 5b 7b 6c 9e")
    sc = rnd.scores()
    assert [s["going_out"] for s in sc] == [15, 10, 0]
    assert [s["cards"] for s in sc] == [11, 0, 0]  # 3a 5a J Q = 7, Haggis 3, 9e 1
    assert [s["total"] for s in sc] == [26, 10, 0]
    check_totals(rnd)


# --- bombed tricks: who captures -----------------------------------------------------------


def test_2p_bombed_trick_goes_to_other_player_bomber_leads() -> None:
    rnd = hs.Round(rules(2), hands=["4a 8a 8b", "6a J Q 9c"], leader=0)
    rnd.play(0, "4a")
    rnd.play(1, "J Q")
    rnd.pass_(0)
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(0) == C("4a J Q")
    assert rnd.captured(1) == C("")


@pytest.mark.parametrize("to", [0, 2])
def test_3p_winner_chooses_gives_bombed_trick(to: int) -> None:
    rnd = hs.Round(rules(3), hands=["4a 8a", "6a J Q 9c", "5a 7c Tc"], leader=0)
    rnd.play(0, "4a")
    rnd.play(1, "J Q")
    rnd.pass_(2)
    assert rnd.phase == "play" and rnd.to_act == 0
    rnd.pass_(0)
    assert rnd.phase == "give_trick" and rnd.to_act == 1
    assert sorted(a.value for a in rnd.legal_actions() if a.type == "give") == [0, 2]
    assert all(a.type == "give" for a in rnd.legal_actions())
    rnd.give(1, to)
    trick_over_state(rnd, leader=1, trick_no=1)  # the bomber leads next
    assert rnd.captured(to) == C("4a J Q")
    assert rnd.captured(1) == C("") and rnd.captured(2 - to) == C("")


# Trick A: 0 leads 5a, 1 rainbow bomb, 2 J-Q bomb, 0 and 1 pass.
# Trick B: 0 leads 5a, 1 6a, 2 7a, 0 rainbow, 1 passes, 2 J-Q, 0 and 1 pass.
HANDS_A = ["5a 8a 8b", "3b 5c 7d 9e Ta", "J Q Tb Tc"]
HANDS_B = ["5a 3b 5c 7d 9e 8a", "6a Ta Tb", "7a J Q Tc"]


def _trick_a(rnd: hs.Round) -> None:
    rnd.play(0, "5a")
    rnd.play(1, "3b 5c 7d 9e")
    rnd.play(2, "J Q")
    rnd.pass_(0)
    rnd.pass_(1)


def _trick_b(rnd: hs.Round) -> None:
    rnd.play(0, "5a")
    rnd.play(1, "6a")
    rnd.play(2, "7a")
    rnd.play(0, "3b 5c 7d 9e")
    rnd.pass_(1)
    rnd.play(2, "J Q")
    rnd.pass_(0)
    rnd.pass_(1)


@pytest.mark.parametrize(
    ("bomb_capture", "hands", "script", "receiver"),
    [
        # tournament: the play the winning bomb beat (here itself a bomb)
        ("tournament", HANDS_A, _trick_a, 1),
        ("tournament", HANDS_B, _trick_b, 0),
        # tournament_nonbomb: the last non-bomb play by an opponent of the bomber
        ("tournament_nonbomb", HANDS_A, _trick_a, 0),
        ("tournament_nonbomb", HANDS_B, _trick_b, 1),
    ],
)
def test_3p_tournament_bomb_capture(bomb_capture, hands, script, receiver) -> None:
    rnd = hs.Round(rules(3, bomb_capture=bomb_capture), hands=hands, leader=0)
    script(rnd)
    trick_over_state(rnd, leader=2, trick_no=1)  # no give phase; the bomber leads
    assert rnd.captured(receiver) == C(
        "5a 3b 5c 7d 9e J Q" if hands is HANDS_A else "5a 6a 7a 3b 5c 7d 9e J Q"
    )
    for s in range(3):
        if s != receiver:
            assert rnd.captured(s) == C("")


@pytest.mark.parametrize("bomb_capture", ["tournament", "tournament_nonbomb"])
def test_3p_lead_bomb_goes_to_leaders_right(bomb_capture: str) -> None:
    rnd = hs.Round(
        rules(3, bomb_capture=bomb_capture), hands=["5a 8a", "6a Ta", "J Q Tb"], leader=2
    )
    rnd.play(2, "J Q")
    rnd.pass_(0)
    rnd.pass_(1)
    trick_over_state(rnd, leader=2, trick_no=1)
    assert rnd.captured(1) == C("J Q")  # seat 1 is the leader's (seat 2's) right
    assert rnd.captured(0) == C("") and rnd.captured(2) == C("")


def test_3p_tournament_lead_bomb_beaten_by_bomb() -> None:
    """tournament: the beaten lead bomb's player captures."""
    rnd = hs.Round(
        rules(3, bomb_capture="tournament"), hands=["3b 5c 7d 9e 8a", "6a Ta", "J Q Tb"], leader=0
    )
    rnd.play(0, "3b 5c 7d 9e")
    rnd.pass_(1)
    rnd.play(2, "J Q")
    rnd.pass_(0)
    rnd.pass_(1)
    trick_over_state(rnd, leader=2, trick_no=1)
    assert rnd.captured(0) == C("3b 5c 7d 9e J Q")


def test_3p_tournament_nonbomb_no_nonbomb_leaders_right_is_bomber() -> None:
    """Only bombs in the trick and the leader's right is the bomber itself.

    RULES.md 3 says "the player to the leader's right", which here is the winner, who
    cannot capture a bombed trick; the rules do not settle this case. We only require
    that an opponent of the bomber captures it.
    """
    rnd = hs.Round(
        rules(3, bomb_capture="tournament_nonbomb"),
        hands=["3b 5c 7d 9e 8a", "6a Ta", "J Q Tb"],
        leader=0,
    )
    rnd.play(0, "3b 5c 7d 9e")
    rnd.pass_(1)
    rnd.play(2, "J Q")
    rnd.pass_(0)
    rnd.pass_(1)
    assert rnd.phase == "play" and rnd.to_act == 2
    takers = [s for s in range(3) if rnd.captured(s) == C("3b 5c 7d 9e J Q")]
    assert len(takers) == 1 and takers[0] in (0, 1)


@pytest.mark.parametrize("bomb_capture", ["tournament", "tournament_nonbomb"])
def test_3p_bombed_trick_goes_to_player_already_out(bomb_capture: str) -> None:
    """Decision (RULES.md 3): a player who has gone out can still receive a trick."""
    rnd = hs.Round(
        rules(3, bomb_capture=bomb_capture), hands=["5a", "J Q 9c 9d", "6a 7a 8a"], leader=0
    )
    rnd.play(0, "5a")  # out
    rnd.play(1, "J Q")
    rnd.pass_(2)  # seat 0 counts as passing: the trick ends
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(0) == C("5a J Q")


def test_3p_winner_chooses_may_give_to_player_already_out() -> None:
    rnd = hs.Round(rules(3), hands=["5a", "J Q 9c 9d", "6a 7a 8a"], leader=0)
    rnd.play(0, "5a")
    rnd.play(1, "J Q")
    rnd.pass_(2)
    assert rnd.phase == "give_trick" and rnd.to_act == 1
    rnd.give(1, 0)
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(0) == C("5a J Q")


# --- haggis_to ------------------------------------------------------------------------------


def test_haggis_to_shepherd_3p() -> None:
    rnd = hs.Round(rules(3), hands=["3a", "4a 7b", "5a 6c 9e K"], haggis="3b 5b 7c", leader=0)
    rnd.play(0, "3a")
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.play(1, "7b")
    assert rnd.over and rnd.shepherd == 0
    assert rnd.captured(0) == C("3b 5b 7c 6c 9e K")
    assert rnd.captured(1) == C("3a 4a 5a 7b")
    assert rnd.hand(2) == C("") and rnd.haggis == C("")
    sc = rnd.scores()
    # seat 1's count (5 x 3) is taken before the black sheep's hand is captured
    assert [s["going_out"] for s in sc] == [20, 15, 0]
    assert [s["cards"] for s in sc] == [9, 3, 0]  # 3b 5b 7c 9e K(5) | 3a 5a 7b
    check_totals(rnd)


def test_haggis_to_last_to_play_3p_non_bomb() -> None:
    rnd = hs.Round(
        rules(3, haggis_to="last_to_play"),
        hands=["3a", "4a 7b", "5a 6c 9e K"],
        haggis="3b 5b 7c",
        leader=0,
    )
    rnd.play(0, "3a")
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.play(1, "7b")
    assert rnd.over
    # the last player to play (seat 1) takes the Haggis; the black sheep's hand still
    # goes to the shepherd (Decision, RULES.md 4)
    assert rnd.captured(1) == C("3a 4a 5a 7b 3b 5b 7c")
    assert rnd.captured(0) == C("6c 9e K")
    assert rnd.hand(2) == C("") and rnd.haggis == C("")
    sc = rnd.scores()
    assert [s["going_out"] for s in sc] == [20, 15, 0]
    assert [s["cards"] for s in sc] == [6, 6, 0]
    check_totals(rnd)


@pytest.mark.parametrize(
    ("bomb_capture", "trick_to", "haggis_to"),
    [("winner_chooses", 2, 0), ("winner_chooses", 0, 2), ("tournament", 2, 2)],
)
def test_haggis_to_last_to_play_3p_bomb_bomber_chooses(
    bomb_capture: str, trick_to: int, haggis_to: int
) -> None:
    """The last play is a bomb: the bomber chooses who gets the Haggis, whatever
    bomb_capture says (RULES.md 4)."""
    rnd = hs.Round(
        rules(3, haggis_to="last_to_play", bomb_capture=bomb_capture),
        hands=["3a", "4a J Q", "5a 6c 9e"],
        haggis="3b 5b 7b",
        leader=0,
    )
    rnd.play(0, "3a")
    rnd.play(1, "4a")
    rnd.play(2, "5a")
    rnd.play(1, "J Q")
    if bomb_capture == "winner_chooses":
        assert rnd.phase == "give_trick" and rnd.to_act == 1
        rnd.give(1, trick_to)
    # tournament: the bomb beat seat 2's 5a, so seat 2 takes the trick
    assert rnd.phase == "give_haggis" and rnd.to_act == 1 and not rnd.over
    assert sorted(a.value for a in rnd.legal_actions()) == [0, 2]
    assert C("3a 4a 5a J Q").issubset(rnd.captured(trick_to))
    assert rnd.haggis == C("3b 5b 7b")  # not yet captured
    rnd.give(1, haggis_to)
    assert rnd.over
    expected = {0: C(""), 1: C(""), 2: C("")}
    expected[trick_to] = expected[trick_to] | C("3a 4a 5a J Q")
    expected[haggis_to] = expected[haggis_to] | C("3b 5b 7b")
    expected[0] = expected[0] | C("6c 9e")  # the black sheep's hand to the shepherd
    for s in range(3):
        assert rnd.captured(s) == expected[s]
    check_totals(rnd)


def test_haggis_to_last_to_play_2p() -> None:
    r = rules(2, haggis_to="last_to_play")
    rnd = hs.Round(r, hands=["3a 4b", "8a 9b"], haggis="3c 5c", leader=0)
    rnd.play(0, "3a")
    rnd.pass_(1)
    rnd.play(0, "4b")
    assert rnd.captured(0) == C("3a 4b 3c 5c 8a 9b")
    # a bomb as the last play: the Haggis goes to the other player (no choice with 2)
    rnd = hs.Round(r, hands=["3a J Q", "8a 9b"], haggis="3c 5c", leader=0)
    rnd.play(0, "3a")
    rnd.play(1, "8a")
    rnd.play(0, "J Q")
    assert rnd.over
    assert rnd.captured(1) == C("3a 8a J Q 3c 5c")
    assert rnd.captured(0) == C("9b")
    assert [s["cards"] for s in rnd.scores()] == [1, 8]
    check_totals(rnd)


@pytest.mark.parametrize("players", [2, 3])
def test_haggis_to_nobody(players: int) -> None:
    if players == 2:
        r = rules(2, "haggish")
        hands, haggis = ["3a 4b", "8a 9b K"], "3c 5c"
    else:
        r = rules(3, haggis_to="nobody")
        hands, haggis = ["3a", "4b", "8a 9b K"], "3c 5c 7c"
    assert r.haggis_to == "nobody"
    rnd = hs.Round(r, hands=hands, haggis=haggis, leader=0)
    rnd.play(0, "3a")
    if players == 2:
        rnd.pass_(1)
        rnd.play(0, "4b")
    else:
        rnd.play(1, "4b")
    assert rnd.over
    # Haggis and black sheep's hand stay uncaptured
    assert rnd.haggis == C(haggis)
    assert rnd.hand(players - 1) == C("8a 9b K")
    captured = [rnd.captured(s) for s in range(players)]
    if players == 2:
        assert captured == [C("3a 4b"), C("")]
        assert [s["going_out"] for s in rnd.scores()] == [15, 0]
        assert [s["cards"] for s in rnd.scores()] == [1, 0]
    else:
        assert captured == [C(""), C("3a 4b"), C("")]
        assert [s["going_out"] for s in rnd.scores()] == [15, 15, 0]
        assert [s["cards"] for s in rnd.scores()] == [0, 1, 0]
    check_totals(rnd)


def test_3p_bomber_who_went_out_still_chooses_and_left_holder_leads() -> None:
    """Seat 1 goes out with a bomb: it still gives the trick; seat 2 then leads."""
    rnd = hs.Round(rules(3), hands=["4a 8a 8b", "J Q", "5a 7c Tc"], leader=0)
    rnd.play(0, "4a")
    rnd.play(1, "J Q")  # out: 5 x 3
    assert rnd.out_order == (1,) and rnd.to_act == 2
    rnd.pass_(2)
    assert rnd.phase == "play" and rnd.to_act == 0  # both others must pass
    rnd.pass_(0)
    assert rnd.phase == "give_trick" and rnd.to_act == 1
    rnd.give(1, 0)
    trick_over_state(rnd, leader=2, trick_no=1)
    assert rnd.captured(0) == C("4a J Q")


@pytest.mark.parametrize(
    ("bomb_capture", "receiver"), [("tournament", 2), ("tournament_nonbomb", 2)]
)
def test_3p_lead_bomb_going_out_goes_to_leaders_right(bomb_capture: str, receiver: int) -> None:
    rnd = hs.Round(rules(3, bomb_capture=bomb_capture), hands=["J Q", "4a 8a", "5a 7c"], leader=0)
    rnd.play(0, "J Q")
    rnd.pass_(1)
    rnd.pass_(2)
    trick_over_state(rnd, leader=1, trick_no=1)
    assert rnd.captured(receiver) == C("J Q")
