"""The default action representation (``actions="legal"``): a slot among the legal actions
of the moment, with abstract ids and per-action features from the agent's information
set only, playing exactly the game the flat table plays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from redeal import redeal  # noqa: E402

import haggis_sim as hs  # noqa: E402
from haggis_sim.combos import Combo  # noqa: E402
from haggis_sim.engine import layout as L  # noqa: E402
from haggis_sim.engine import state as S  # noqa: E402
from haggis_sim.env import MAX_LEGAL, HaggisGymEnv, env, raw_env  # noqa: E402
from haggis_sim.env import legal as LG  # noqa: E402
from strategies.learned_features import FEATURES, decision_features  # noqa: E402


@pytest.mark.parametrize(("preset", "players"), [("revised", 2), ("classic", 3), ("aid", 3)])
def test_a_slot_plays_the_flat_action_it_stands_for(preset: str, players: int) -> None:
    """Slot k is the k-th legal action in ascending flat index: the same random games
    played with slots and with flat indices pass through the same states, observations
    and rewards; the mask is the prefix of the n legal slots."""
    a = raw_env(preset=preset, players=players)
    b = raw_env(preset=preset, players=players, actions="flat")
    assert a.action_space("player_0").n == MAX_LEGAL == L.MAX_MOVES
    rng = np.random.default_rng(3)
    steps = 0
    for game in range(6):
        a.reset(seed=9, options={"game_id": game})
        b.reset(seed=9, options={"game_id": game})
        for _agent in a.agent_iter():
            obs, reward, term, trunc, info = a.last()
            obs_b, reward_b, term_b, _, info_b = b.last()
            assert (reward, term) == (reward_b, term_b)
            assert np.array_equal(obs["observation"], obs_b["observation"])
            if term or trunc:
                a.step(None)
                b.step(None)
                continue
            n = len(info_b["legal_actions"])
            assert np.array_equal(info["legal_actions"], np.arange(n))
            assert obs["action_mask"][:n].all() and not obs["action_mask"][n:].any()
            flat = a.flat_actions()
            assert np.array_equal(flat, np.sort(info_b["legal_actions"]))
            k = int(rng.integers(n))
            assert a.describe(k) == b.describe(int(flat[k]))
            assert a.action_code(k) == b.action_code(int(flat[k]))
            assert a.action_index(a.action_code(k)) == k
            a.step(k)
            b.step(int(flat[k]))
            steps += 1
        assert np.array_equal(a.state_array, b.state_array)
    assert steps > 300


def test_an_illegal_slot_is_refused_and_changes_nothing() -> None:
    e = raw_env(players=3)
    e.reset(seed=2)
    n = len(e.legal_actions())
    before = (e.state_array, e.agent_selection, e.legal_actions())
    for bad in (n, MAX_LEGAL, -1, 1.0):
        with pytest.raises(hs.IllegalAction):
            e.step(bad)  # type: ignore[arg-type]
        assert np.array_equal(e.state_array, before[0]) and e.agent_selection == before[1]
        assert np.array_equal(e.legal_actions(), before[2])
    with pytest.raises(hs.IllegalAction, match=f"slots 0..{n - 1}"):
        e.step(n)
    with pytest.raises(hs.InputError, match="actions must be one of legal, flat"):
        raw_env(actions="index")  # type: ignore[arg-type]


def test_action_ids_name_each_action_as_its_combo_does() -> None:
    """Every legal action of random 3-player games: the id's kind, width, length, rank
    and bomb order are the combo's (plays) or the special action's."""
    e = raw_env(players=3)
    rng = np.random.default_rng(5)
    kinds: set[str] = set()
    for game in range(4):
        e.reset(seed=1, options={"game_id": game})
        for _agent in e.agent_iter():
            _, _, term, _, info = e.last(observe=False)
            if term:
                e.step(None)
                continue
            ids = e.legal_action_ids()
            assert ids.shape == (len(info["legal_actions"]), len(LG.ID_FIELDS))
            for k, row in enumerate(ids.tolist()):
                code = e.action_code(k)
                kind = LG.KINDS[row[0]]
                kinds.add(kind)
                if kind in ("set", "sequence", "bomb"):
                    combo = Combo(code)
                    assert combo.kind == kind
                    want = (
                        [0, 0, 0, combo.rank]
                        if combo.is_bomb
                        else [combo.width, combo.length, combo.rank, 0]
                    )
                    assert row[1:] == want
                else:
                    assert row[1:] == [0, 0, 0, 0]
                    assert e.describe(k) == ("pass" if kind == "pass" else kind)
            e.step(int(rng.integers(len(info["legal_actions"]))))
    assert {"pass", "set", "sequence", "bomb"} <= kinds and any(k.startswith("bet") for k in kinds)


@pytest.mark.parametrize("steps", [0, 40])  # a first decision (bets legal), and later
def test_action_features_are_their_documented_blocks(steps: int) -> None:
    e = raw_env(players=2)
    e.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        legal = e.legal_actions()
        e.step(int(legal[rng.integers(len(legal))]))
    if not steps:
        assert any(e.describe(k).startswith("bet") for k in e.legal_actions())
    feats = e.legal_action_features()
    n = len(e.legal_actions())
    fields = LG.feature_fields()
    assert feats.shape == (n, LG.n_features()) and feats.dtype == np.float32
    assert [f[0] for f in fields] == ["kind", "shape", "bomb", "cards", "decision"]
    assert fields[-1][1] == len(FEATURES)
    at = dict(zip([f[0] for f in fields], np.cumsum([0] + [f[1] for f in fields]), strict=False))
    ids = e.legal_action_ids()
    assert np.array_equal(feats[:, at["kind"] : at["shape"]].argmax(axis=1), ids[:, 0])
    assert np.array_equal(feats[:, at["shape"] : at["cards"]], ids[:, 1:])
    codes = np.array([e.action_code(k) for k in range(n)], dtype=np.int64)
    for k, code in enumerate(codes):
        cards = feats[k, at["cards"] : at["decision"]]
        assert int(cards.sum()) == (Combo(int(code)).size if ids[k, 0] >= LG.K_SET else 0)
    seat = int(e.state_array[L.S_TO_ACT])
    observation = hs.kernel.observe(e.state_array, seat)
    want = decision_features(observation, codes, n)
    assert np.allclose(feats[:, at["decision"] :], want)


def test_action_features_hold_no_hidden_card() -> None:
    """Another deal of the cards the acting seat has not seen (replayed through the
    engine) gives its legal actions the same ids and features."""
    rng = np.random.default_rng(12)
    compared = 0
    for k, (preset, players) in enumerate([("revised", 2), ("classic", 3)]):
        rules = hs.Rules.preset(preset, players=players)
        states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
        actions = np.empty(8000, dtype=np.int64)
        n = S.random_game_trace(rules.to_array(), np.int64(70 + k), 0.3, states, actions)
        live = np.flatnonzero(states[:n, L.S_PHASE] == L.PH_PLAY)
        buf = np.empty(L.MAX_MOVES, dtype=np.int64)
        for row in map(int, rng.choice(live, size=15, replace=False)):
            seat = int(states[row, L.S_TO_ACT])
            alt = redeal(states[:n], actions[:n], row, seat, rng)[-1]
            rows = []
            for st in (states[row], alt):
                m = hs.kernel.legal_actions(st, buf, True)
                codes = np.sort(buf[:m].copy())
                obs = hs.kernel.observe(st, seat)
                rows.append(LG.action_features(obs, codes, seat, players))
            assert np.array_equal(rows[0], rows[1]), (preset, row)
            compared += 1
    assert compared == 30


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoos_masked_sampling_plays_legal_slots(players: int) -> None:
    e = env(players=players)
    for game in range(3):
        e.reset(seed=game)
        for agent in e.agent_iter():
            obs, _, term, _, _ = e.last()
            if term:
                e.step(None)
                continue
            e.step(e.action_space(agent).sample(obs["action_mask"]))
        assert not e.agents


def test_the_gym_env_speaks_slots_and_describes_them() -> None:
    g = HaggisGymEnv(opponents=["greedy"])
    obs, info = g.reset(seed=6)
    n = len(info["legal_actions"])
    assert np.array_equal(np.flatnonzero(g.action_masks()), np.arange(n))
    assert g.legal_action_features().shape == (n, LG.n_features())
    assert g.legal_action_ids().shape == (n, len(LG.ID_FIELDS))
    obs, reward, term, trunc, info = g.step(n)  # the first slot past the legal ones
    assert term and reward == -1.0 and info["illegal_action"] == n
    with pytest.raises(hs.InputError):
        g.legal_action_features()


@pytest.mark.parametrize("actions", ["legal", "flat"])
def test_a_bet_under_changed_bet_points_round_trips(actions: str) -> None:
    """Under bet_points 5, 20, 40 the Little bet keeps its flat index 2 (named ``bet 15``
    by its published points) and its code carries 20: action and code convert both ways,
    its id's kind is the Little bet, the step declares 20 points, and the observation shows
    a Little bet and the rules' bet points."""
    from haggis_sim.env import actions as A
    from haggis_sim.env import encode as E

    points = (5, 20, 40)
    e = raw_env(preset="aid", players=3, bet_points=points, actions=actions)
    e.reset(seed=1)
    agent = e.agent_selection
    seat = e.agent_name_mapping[agent]
    little = (L.T_BET << L.TYPE_SHIFT) | 20
    assert [A.action_code(A.BET_INDEX + j, seat, 3, points) for j in range(3)] == [
        (L.T_BET << L.TYPE_SHIFT) | v for v in points
    ]
    assert A.action_index(little, seat, 3, points) == A.BET_INDEX + 1
    with pytest.raises(A.ActionTableError):
        A.action_index(little, seat, 3)  # 20 is no bet's published points
    k = e.action_index(little)
    assert e.action_code(k) == little and e.describe(k) == "bet 15"
    if actions == "flat":
        assert k == A.BET_INDEX + 1
    row = e.legal_actions().tolist().index(k)
    assert LG.KINDS[e.legal_action_ids()[row, 0]] == "bet 15"
    assert LG.KINDS[int(np.argmax(e.legal_action_features()[row, : len(LG.KINDS)]))] == "bet 15"
    e.step(k)
    assert e.state_array[L.S_BET + seat] == 20 and e.agent_selection == agent
    vec = e.observe(agent)["observation"]
    off = E.offsets()
    assert vec[off["seat_0"] + E.P_BET : off["seat_0"] + E.P_BET + 3].tolist() == [0, 1, 0]
    assert vec[off["bet_points"] : off["bet_points"] + 3].tolist() == list(points)
