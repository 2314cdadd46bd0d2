"""A game of several rounds (RULES.md section 7), driven by random legal actions.

Every decision the engine takes between rounds -- dealer, first leader, end of the game,
winner -- is recomputed here independently from the recorded round scores and compared,
over many seeded games. Ties are rare in random play, so a second group of tests forces
them: it replays a recorded first round with chosen starting totals (written into the
game's engine state before any action), which makes the totals after round 1 exactly
what the test wants while the round itself plays out identically.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import haggis_sim as hs
from haggis_sim.engine import layout as L

MAX_ACTIONS = 20000


def rules(players: int, preset: str = "revised", **flags: object) -> hs.Rules:
    return hs.Rules.preset(preset, players=players, **flags)


# --- the independent model of RULES.md 7 -------------------------------------------------------


def first_clockwise(candidates: set[int], start: int, n: int) -> int:
    """The first seat of ``candidates`` clockwise from ``start`` (inclusive)."""
    for i in range(n):
        seat = (start + i) % n
        if seat in candidates:
            return seat
    raise AssertionError("no candidate")


def next_dealer(totals: list[int], shepherd: int) -> int:
    """Most points; tie: the shepherd if tied, else the first tied clockwise from them.

    Decision (RULES.md 7): 000's and 002's "winner of the last round" is the shepherd.
    """
    n = len(totals)
    tied = {s for s in range(n) if totals[s] == max(totals)}
    return first_clockwise(tied, shepherd, n)


def next_leader(totals: list[int], dealer: int, prev_leader: int, tiebreak: str) -> int:
    """Fewest points; tie per ``lead_tiebreak`` (RULES.md 7)."""
    n = len(totals)
    tied = {s for s in range(n) if totals[s] == min(totals)}
    start = dealer + 1 if tiebreak == "left_of_dealer" else prev_leader + 1
    return first_clockwise(tied, start % n, n)


def game_ends(totals: list[int], rounds_played: int, r: hs.Rules) -> bool:
    if r.game_end == "target":
        reached = max(totals) >= r.target_score
    else:
        reached = rounds_played >= r.rounds
    return reached and totals.count(max(totals)) == 1


# --- driving a game ------------------------------------------------------------------------------


@dataclass
class Played:
    game: hs.Game
    starts: list[tuple[int, int]]  # (dealer, first leader) seen at the start of each round


def check_deal(game: hs.Game) -> None:
    """RULES.md 1: 14 suit cards + own J, Q, K each; the rest of the deck is the Haggis."""
    n = game.players
    for seat in range(n):
        hand = game.hand(seat)
        assert len(hand) == 17
        assert (hand.jacks, hand.queens, hand.kings) == (1, 1, 1)
        assert hand.highest_suit < game.rules.n_suits
    assert len(game.haggis) == (8 if n == 2 else 3)
    assert game.haggis.highest_suit < game.rules.n_suits
    assert game.phase == "play" and game.to_act == game.first_leader


def play_game(
    r: hs.Rules,
    seed: int,
    rng_seed: int,
    *,
    start_totals: list[int] | None = None,
    stop_after_rounds: int | None = None,
) -> Played:
    game = hs.Game(r, seed=seed)
    if start_totals is not None:  # test hook: the totals the first round adds to
        for s, v in enumerate(start_totals):
            game._st[L.S_SCORE + s] = v
    rng = np.random.default_rng(rng_seed)
    starts = [(game.dealer, game.first_leader)]
    check_deal(game)
    for _ in range(MAX_ACTIONS):
        if game.over or (stop_after_rounds is not None and len(game.rounds) >= stop_after_rounds):
            break
        acts = game.legal_actions()
        assert acts, "no legal action while the game is running"
        n_rounds = len(game.rounds)
        game.apply_action(acts[int(rng.integers(len(acts)))])
        if len(game.rounds) > n_rounds and not game.over:
            starts.append((game.dealer, game.first_leader))
            check_deal(game)
    else:
        raise AssertionError("game did not end")
    return Played(game, starts)


def verify_game(p: Played, r: hs.Rules) -> dict[str, int]:
    """Compare every between-round decision with the independent model; count ties seen."""
    game, n = p.game, r.players
    seen = {"dealer_ties": 0, "leader_ties": 0, "end_ties": 0}
    totals = [0] * n
    assert game.round_no == len(game.rounds)
    assert len(p.starts) == len(game.rounds) + (0 if game.over else 1)
    for i, res in enumerate(game.rounds):
        assert res.number == i + 1
        assert (res.dealer, res.leader) == p.starts[i]
        if i == 0:
            assert res.leader == (res.dealer + 1) % n  # first lead: the dealer's left
        for sc in res.scores:
            assert sc["total"] == sc["going_out"] + sc["cards"] + sc["bets"] + sc["bonus"]
        assert len(res.out_order) == n - 1 and len(set(res.out_order)) == n - 1
        totals = [t + sc["total"] for t, sc in zip(totals, res.scores, strict=True)]
        ended = game_ends(totals, i + 1, r)
        last = i == len(game.rounds) - 1
        if last and game.over:
            assert ended, f"game ended after round {i + 1} with totals {totals}"
            assert game.winner == totals.index(max(totals))
            assert tuple(totals) == game.scores
            return seen
        assert not ended, f"game should have ended after round {i + 1}: {totals}"
        reached = max(totals) >= r.target_score if r.game_end == "target" else i + 1 >= r.rounds
        seen["end_ties"] += reached
        shepherd = res.out_order[0]
        dealer = next_dealer(totals, shepherd)
        leader = next_leader(totals, dealer, res.leader, r.lead_tiebreak)
        seen["dealer_ties"] += totals.count(max(totals)) > 1
        seen["leader_ties"] += totals.count(min(totals)) > 1
        assert p.starts[i + 1] == (dealer, leader), (
            f"round {i + 2}: totals {totals}, shepherd {shepherd}, previous leader "
            f"{res.leader}: expected dealer/leader {(dealer, leader)}, got {p.starts[i + 1]}"
        )
    assert not game.over
    assert tuple(totals) == game.scores
    return seen


# --- tests over many seeds ----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_first_round_dealer_from_seed_leader_left_of_dealer(players: int) -> None:
    r = rules(players)
    dealers = set()
    for seed in range(40):
        game = hs.Game(r, seed=seed)
        assert game.round_no == 0 and not game.over and game.winner is None
        assert game.first_leader == (game.dealer + 1) % players
        assert game.to_act == game.first_leader
        check_deal(game)
        twin = hs.Game(r, seed=seed)  # the same seed deals the same round
        assert twin.dealer == game.dealer
        assert all(twin.hand(s) == game.hand(s) for s in range(players))
        assert twin.haggis == game.haggis
        dealers.add(game.dealer)
    assert dealers == set(range(players))


CONFIGS = [
    ("revised", 2, {}),
    ("revised", 3, {}),
    ("deluxe", 2, {}),
    ("deluxe", 3, {}),
    ("classic", 3, {"lead_tiebreak": "left_of_previous_leader"}),
    ("aid", 3, {}),
]


@pytest.mark.parametrize(("preset", "players", "flags"), CONFIGS)
def test_dealer_leader_and_end_over_many_seeds(preset, players, flags) -> None:
    r = rules(players, preset, game_end="rounds", rounds=4, **flags)
    assert r.lead_tiebreak == (
        "left_of_previous_leader" if preset == "deluxe" or flags else "left_of_dealer"
    )
    n_rounds = 0
    ties = {"dealer_ties": 0, "leader_ties": 0, "end_ties": 0}
    for seed in range(40):
        p = play_game(r, seed=1000 + seed, rng_seed=seed)
        for key, count in verify_game(p, r).items():
            ties[key] += count
        assert p.game.over and len(p.game.rounds) >= 4
        n_rounds += len(p.game.rounds)
    assert n_rounds >= 160
    # random play meets ties too (with these seeds 1 to 5 of each kind per config), and
    # verify_game checked each against the model: dealer ties always, and leader or
    # end-of-game ties (deluxe 3p meets no leader tie, revised 2p no end tie)
    assert ties["dealer_ties"] >= 1 and ties["leader_ties"] + ties["end_ties"] >= 1, ties


@pytest.mark.parametrize("players", [2, 3])
def test_target_score_end(players: int) -> None:
    r = rules(players, target_score=60)
    assert r.game_end == "target"
    lengths = set()
    for seed in range(15):
        p = play_game(r, seed=seed, rng_seed=100 + seed)
        verify_game(p, r)
        game = p.game
        assert game.over and game.phase == "game_over" and game.to_act is None
        assert max(game.scores) >= 60
        assert game.scores.count(max(game.scores)) == 1
        assert game.winner == game.scores.index(max(game.scores))
        lengths.add(len(game.rounds))
        # nothing can be done after the end of the game
        assert game.legal_actions() == []
        with pytest.raises(hs.IllegalAction, match="round is over"):
            game.pass_(0)
    assert len(lengths) > 1  # games of different lengths were checked


def test_default_target_is_250() -> None:
    r = rules(3)
    assert (r.game_end, r.target_score) == ("target", 250)
    p = play_game(r, seed=5, rng_seed=5)
    verify_game(p, r)
    assert max(p.game.scores) >= 250
    assert len(p.game.rounds) >= 2


@pytest.mark.parametrize("players", [2, 3])
def test_fixed_rounds_end(players: int) -> None:
    r = rules(players, game_end="rounds", rounds=2)
    for seed in range(15):
        p = play_game(r, seed=seed, rng_seed=seed)
        verify_game(p, r)
        game = p.game
        totals_after_2 = [
            sum(res.scores[s]["total"] for res in game.rounds[:2]) for s in range(players)
        ]
        if totals_after_2.count(max(totals_after_2)) == 1:
            assert len(game.rounds) == 2
        else:
            assert len(game.rounds) > 2


def test_game_totals_are_sums_of_round_totals() -> None:
    for players in (2, 3):
        r = rules(players, "classic", game_end="rounds", rounds=3)
        p = play_game(r, seed=77, rng_seed=77)
        game = p.game
        sums = tuple(sum(res.scores[s]["total"] for res in game.rounds) for s in range(players))
        assert game.scores == sums
        assert all(
            res.scores[res.out_order[0]]["bonus"] == (5 if players == 3 else 0)
            for res in game.rounds
        )


# --- forced ties ------------------------------------------------------------------------------


def first_round(r: hs.Rules, seed: int) -> hs.RoundResult:
    return play_game(r, seed=seed, rng_seed=seed, stop_after_rounds=1).game.rounds[0]


def replay_with_totals(r: hs.Rules, seed: int, wanted: list[int]) -> tuple[hs.Game, hs.RoundResult]:
    """Play round 1 of game ``seed`` again so that the totals after it are ``wanted``."""
    res = first_round(r, seed)
    offsets = [w - sc["total"] for w, sc in zip(wanted, res.scores, strict=True)]
    p = play_game(r, seed=seed, rng_seed=seed, start_totals=offsets, stop_after_rounds=1)
    again = p.game.rounds[0]
    assert again.history == res.history  # the same round was played
    assert list(p.game.scores) == wanted
    return p.game, res


def rel(shepherd: int, n: int, *values: int) -> list[int]:
    """Totals given clockwise from the shepherd: values[0] is the shepherd's."""
    totals = [0] * n
    for i, v in enumerate(values):
        totals[(shepherd + i) % n] = v
    return totals


TIE_CASES_3P = [
    # (totals clockwise from the shepherd, dealer offset from the shepherd)
    ((100, 100, 100), 0),  # all tied: the shepherd deals
    ((50, 100, 100), 1),  # shepherd not tied: first tied clockwise from the shepherd
    ((100, 100, 50), 0),  # shepherd tied with its left
    ((100, 50, 100), 0),  # shepherd tied with its right
    ((50, 80, 50), 1),  # no dealer tie; the two others tie for fewest points
    ((80, 50, 50), 0),
    ((50, 50, 80), 2),
]


@pytest.mark.parametrize("tiebreak", ["left_of_dealer", "left_of_previous_leader"])
@pytest.mark.parametrize(("pattern", "dealer_offset"), TIE_CASES_3P)
def test_forced_ties_3p(tiebreak: str, pattern: tuple[int, ...], dealer_offset: int) -> None:
    r = rules(3, lead_tiebreak=tiebreak, target_score=1000)
    for seed in (3, 4):
        res = first_round(r, seed)
        shepherd = res.out_order[0]
        totals = rel(shepherd, 3, *pattern)
        game, res = replay_with_totals(r, seed, totals)
        dealer = (shepherd + dealer_offset) % 3
        assert next_dealer(totals, shepherd) == dealer  # the model agrees with the table
        leader = next_leader(totals, dealer, res.leader, tiebreak)
        assert (game.dealer, game.first_leader) == (dealer, leader), (totals, shepherd, res)
        assert game.to_act == leader and not game.over


def test_forced_lead_tie_tiebreaks_differ_3p() -> None:
    """Dealer d unique; seats d+1 (= previous leader) and d+2 tie for fewest points:
    left_of_dealer picks d+1, left_of_previous_leader picks d+2 (RULES.md 7)."""
    found = 0
    for seed in range(30):
        r0 = rules(3, target_score=1000)
        res = first_round(r0, seed)
        prev = res.leader
        d = (prev + 2) % 3
        totals = [0, 0, 0]
        totals[d] = 90
        totals[prev] = totals[(prev + 1) % 3] = 40
        for tiebreak, expected in (
            ("left_of_dealer", prev),
            ("left_of_previous_leader", (prev + 1) % 3),
        ):
            r = rules(3, lead_tiebreak=tiebreak, target_score=1000)
            game, _ = replay_with_totals(r, seed, totals)
            assert (game.dealer, game.first_leader) == (d, expected)
        found += 1
        if found == 3:
            break
    assert found == 3


@pytest.mark.parametrize("tiebreak", ["left_of_dealer", "left_of_previous_leader"])
def test_forced_ties_2p(tiebreak: str) -> None:
    r = rules(2, lead_tiebreak=tiebreak, target_score=1000)
    for seed in range(4):
        res = first_round(r, seed)
        shepherd = res.out_order[0]
        game, res = replay_with_totals(r, seed, [70, 70])
        assert game.dealer == shepherd
        expected = (shepherd + 1) % 2 if tiebreak == "left_of_dealer" else (res.leader + 1) % 2
        assert game.first_leader == expected


@pytest.mark.parametrize("players", [2, 3])
def test_tied_highest_total_plays_on(players: int) -> None:
    """Target reached but the highest totals tie: play another round (RULES.md 7)."""
    r = rules(players, target_score=100)
    wanted = [120, 120, 30][:players]
    game, res = replay_with_totals(r, 8, wanted)
    assert not game.over and game.winner is None and game.round_no == 1
    assert game.dealer == next_dealer(wanted, res.out_order[0])
    # the game then ends after the first round that breaks the tie
    rng = np.random.default_rng(8)
    for _ in range(MAX_ACTIONS):
        if game.over:
            break
        acts = game.legal_actions()
        game.apply_action(acts[int(rng.integers(len(acts)))])
    totals = list(wanted)
    for i, rr in enumerate(game.rounds[1:], start=2):
        totals = [t + sc["total"] for t, sc in zip(totals, rr.scores, strict=True)]
        assert game_ends(totals, i, r) == (i == len(game.rounds))
    assert list(game.scores) == totals
    assert game.winner == totals.index(max(totals))


def test_fixed_rounds_tie_plays_on() -> None:
    r = rules(3, game_end="rounds", rounds=1)
    game, _ = replay_with_totals(r, 2, [40, 40, 10])
    assert not game.over and game.round_no == 1
    # a unique leader after round 1 ends the game at once
    game, _ = replay_with_totals(r, 2, [40, 39, 10])
    assert game.over and game.winner == 0 and game.round_no == 1


def test_target_reached_unique_ends_at_once() -> None:
    r = rules(3, target_score=100)
    game, _ = replay_with_totals(r, 6, [99, 100, 20])
    assert game.over and game.winner == 1
    game, _ = replay_with_totals(r, 6, [99, 98, 20])
    assert not game.over
