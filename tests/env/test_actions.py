"""The environments' action space: complete, fixed, and equal to the engine's legal moves.

The table is checked against the engine's generator run independently on a full hand of
four and of five suits, and the mask against the engine's legal actions (and hs.Game's)
on every state of random games of every ruleset.
"""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
from haggis_sim.engine import layout as L
from haggis_sim.engine import moves as M
from haggis_sim.engine import state as S
from haggis_sim.env import actions as A
from haggis_sim.env.actions import ActionTableError, action_code, action_index, describe_action
from haggis_sim.training.positions import combos


def _full_hand_plays(nsuits: int) -> set[int]:
    suits = 0
    for r in range(2, 11):
        for s in range(nsuits):
            suits |= 1 << L.suit_bit(r, s)
    out = np.empty(1 << 20, dtype=np.int64)
    n = M.generate(np.int64(suits), np.int64(7), nsuits, np.int64(0), out, True)
    return set(out[:n].tolist())


@pytest.mark.slow  # walks the whole action spaces
def test_the_two_player_space_is_the_four_suit_plays_and_a_prefix_of_the_three_player_one():
    codes = A.table()[0]
    n2, n3 = A.n_actions(2), A.n_actions(3)
    assert n3 == A.N_SPECIAL + len(codes) > n2
    four = codes[: n2 - A.N_SPECIAL]
    assert set(four.tolist()) == _full_hand_plays(4)
    assert set(codes.tolist()) == _full_hand_plays(5)
    assert len(set(codes.tolist())) == len(codes)  # one index per play
    assert np.all(np.diff(four) > 0) and np.all(np.diff(codes[len(four) :]) > 0)


def test_index_and_code_are_inverse_for_every_seat():
    rng = np.random.default_rng(1)
    for players in (2, 3):
        picks = [*range(A.N_SPECIAL), *rng.integers(A.N_SPECIAL, A.n_actions(players), 500)]
        for seat in range(players):
            for i in picks:
                if players == 2 and i == A.GIVE_INDEX + 1:
                    continue  # the seat after next is the actor itself with two players
                assert action_index(action_code(int(i), seat, players), seat, players) == i


def test_gives_are_relative_to_the_actor():
    give = L.T_GIVE << L.TYPE_SHIFT
    assert action_code(A.GIVE_INDEX, 2, 3) == give | 0
    assert action_code(A.GIVE_INDEX + 1, 2, 3) == give | 1
    assert action_code(A.GIVE_INDEX, 1, 2) == give | 0
    assert action_index(give | 2, 1, 3) == A.GIVE_INDEX
    assert action_index(give | 0, 1, 3) == A.GIVE_INDEX + 1
    for players in (2, 3):
        with pytest.raises(ActionTableError):
            action_index(give | 1, 1, players)  # to oneself


def test_codes_outside_the_table_and_indices_outside_the_space_are_refused():
    low = next(c for c in hs.readings(hs.parse_cards("5a J Q"), hs.Rules.preset("revised")))
    lower_run = [c for c in hs.readings(hs.parse_cards("5a J Q"), hs.Rules.preset("revised"))]
    # the generator lists the highest reading of these cards as a run; a lower one has no index
    runs = sorted((c for c in lower_run if c.kind == "sequence"), key=lambda c: c.rank)
    assert action_index(runs[-1].code, 0, 3) >= A.N_SPECIAL
    with pytest.raises(ActionTableError):
        action_index(runs[0].code, 0, 3)
    assert action_index(low.code, 0, 3) >= A.N_SPECIAL
    with pytest.raises(ActionTableError):
        action_index((L.T_BET << L.TYPE_SHIFT) | 7, 0, 3)
    for bad in (-1, A.n_actions(2)):
        with pytest.raises(IndexError):
            action_code(bad, 0, 2)
        with pytest.raises(IndexError):
            describe_action(bad, 2)
    assert action_code(A.n_actions(2), 0, 3) != 0  # the 3-player space goes on


def test_descriptions_name_the_actions():
    assert [describe_action(i) for i in range(A.N_SPECIAL)] == [
        "pass",
        "bet 5",
        "bet 15",
        "bet 30",
        "give to the next seat",
        "give to the seat after next",
    ]
    code = hs.readings(hs.parse_cards("3a 4a 5a"), hs.Rules.preset("revised"))[-1].code
    assert describe_action(action_index(code, 0, 2), 2) == "play 3a 4a 5a (run to 5)"


@pytest.mark.slow  # several seconds on this machine
def test_legal_indices_are_exactly_the_engines_legal_actions_on_random_games():
    """Every state of 10 random games per ruleset (bets, gives, every phase): the indices
    the environments mark legal map to exactly the engine's legal actions, and
    ``hs.Game.legal_actions`` lists the same codes."""
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    idx = np.empty(L.MAX_MOVES, dtype=np.int64)
    _, sorted_codes, sorted_index = A.table()
    checked = kinds = 0
    seen_types: set[int] = set()
    for k, (preset, players) in enumerate(combos()):
        rules = hs.Rules.preset(preset, players=players)
        for g in range(10):
            states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
            actions = np.empty(8000, dtype=np.int64)
            n = S.random_game_trace(rules.to_array(), np.int64(100 * k + g), 0.3, states, actions)
            for st in states[:n]:
                if st[L.S_PHASE] not in (L.PH_PLAY, L.PH_GIVE_TRICK, L.PH_GIVE_HAGGIS):
                    continue
                seat = int(st[L.S_TO_ACT])
                m = A.legal_indices(st, buf, sorted_codes, sorted_index, idx)
                assert m >= 0, f"{preset}/{players}: a legal action has no index"
                codes = buf[: S.legal_actions(st, buf, True)].tolist()
                engine = set(codes)
                mine = {action_code(int(i), seat, players) for i in idx[:m]}
                assert mine == engine and len(set(idx[:m].tolist())) == m
                # the compiled lookup and the Python one agree, action by action
                assert [action_index(c, seat, players) for c in codes] == idx[:m].tolist()
                assert max(idx[:m]) < A.n_actions(players)
                seen_types |= {(c >> L.TYPE_SHIFT) & 7 for c in engine}
                checked += 1
        game = hs.Game(rules, seed=k)
        while not game.over:
            codes = {a.code for a in game.legal_actions()}
            mine = {
                action_code(int(i), game.to_act, players)
                for i in idx[
                    : A.legal_indices(game.state_array, buf, sorted_codes, sorted_index, idx)
                ]
            }
            assert mine == codes
            game.apply_action(sorted(codes)[len(codes) // 2])
            kinds += 1
    assert checked > 25_000 and kinds > 1_000
    assert seen_types == {L.T_PASS, L.T_SET, L.T_SEQ, L.T_BOMB, L.T_BET, L.T_GIVE}
