"""Every ordering shared with compiled code has one definition, and both sides use it.

The engine stores names as integers (action types, phases, rule flag values, log
columns, strategy parameter slots). Each integer constant is computed from one tuple of
names; these tests fail when a constant stops being its name's index, when a name has no
constant (or a constant no name), and when the compiled writers or the Python readers
put a value under the wrong name. Reordering a tuple therefore either keeps everything
consistent or fails here.
"""

from __future__ import annotations

import typing
from types import ModuleType

import duckdb
import numpy as np
import polars as pl
import pytest

from haggis_sim import position
from haggis_sim.analytics.sections import classic_points_sql
from haggis_sim.cards import card_index, parse_cards
from haggis_sim.engine import layout as L
from haggis_sim.engine import record as R
from haggis_sim.engine import state as S
from haggis_sim.engine.moves import generate, move_length, move_rank, move_type, move_width
from haggis_sim.engine.rng import new_stream
from haggis_sim.logs import schema as logs
from haggis_sim.rules import CHOICES, Rules
from strategies import ismcts, kernels
from strategies import simple_kernels as SK
from strategies.base import Param
from strategies.builtin import BUILTIN, HeuristicStrategy, MctsStrategy


def _check_codes(module: ModuleType, prefix: str, names: tuple[str, ...], consts: dict) -> None:
    """``consts`` (name -> constant) covers ``names`` and every ``prefix`` constant, by index."""
    assert sorted(consts) == sorted(names), "a name without a constant, or the reverse"
    defined = {a for a in vars(module) if a.startswith(prefix) and type(vars(module)[a]) is int}
    assert defined == set(consts.values()), f"{prefix}* constants without a name"
    for name, attr in consts.items():
        assert getattr(module, attr) == names.index(name), (attr, name)


def test_action_types_are_the_type_codes() -> None:
    consts = {
        "pass": "T_PASS",
        "set": "T_SET",
        "sequence": "T_SEQ",
        "bomb": "T_BOMB",
        "bet": "T_BET",
        "give": "T_GIVE",
    }
    _check_codes(L, "T_", L.ACTION_TYPES, consts)
    assert L.PASS == 0 and L.T_PASS == 0  # a packed pass is the zero move
    assert list(L.ACTION_TYPES) == logs.ACTION_TYPES
    # the moves reader names each code by the same tuple
    rows = np.zeros((len(L.ACTION_TYPES), R.N_MOVE_COLUMNS), dtype=np.int64)
    rows[:, R.MOVE_COLUMNS.index("type")] = np.arange(len(L.ACTION_TYPES))
    frame = logs.moves_frame(rows)
    assert frame["type"].cast(str).to_list() == list(L.ACTION_TYPES)


def test_phases_are_the_phase_codes() -> None:
    consts = {
        "play": "PH_PLAY",
        "give_trick": "PH_GIVE_TRICK",
        "give_haggis": "PH_GIVE_HAGGIS",
        "round_over": "PH_ROUND_OVER",
        "game_over": "PH_GAME_OVER",
    }
    _check_codes(L, "PH_", L.PHASES, consts)
    assert position.PHASES == L.PHASES
    assert typing.get_args(position.Phase) == L.PHASES
    game = position.Game(Rules.preset("revised", players=2), seed=3)
    assert game.phase == "play" and game._st[L.S_PHASE] == L.PH_PLAY


FLAG_CODES = {
    "bomb_capture": (
        "BC_",
        {
            "winner_chooses": "BC_WINNER_CHOOSES",
            "tournament": "BC_TOURNAMENT",
            "tournament_nonbomb": "BC_TOURNAMENT_NONBOMB",
        },
        L.R_BOMB_CAPTURE,
    ),
    "haggis_to": (
        "HT_",
        {"shepherd": "HT_SHEPHERD", "last_to_play": "HT_LAST_TO_PLAY", "nobody": "HT_NOBODY"},
        L.R_HAGGIS_TO,
    ),
    "card_points": ("CP_", {"classic": "CP_CLASSIC", "per_card": "CP_PER_CARD"}, L.R_CARD_POINTS),
    "bet_settlement": (
        "BS_",
        {"takes_all": "BS_TAKES_ALL", "split": "BS_SPLIT", "threshold": "BS_THRESHOLD"},
        L.R_SETTLEMENT,
    ),
    "lead_tiebreak": (
        "LT_",
        {
            "left_of_dealer": "LT_LEFT_OF_DEALER",
            "left_of_previous_leader": "LT_LEFT_OF_PREVIOUS_LEADER",
        },
        L.R_LEAD_TIEBREAK,
    ),
    "game_end": ("GE_", {"target": "GE_TARGET", "rounds": "GE_ROUNDS"}, L.R_GAME_END),
}


@pytest.mark.parametrize("flag", sorted(FLAG_CODES))
def test_rule_choices_are_the_engine_flag_codes(flag: str) -> None:
    prefix, consts, slot = FLAG_CODES[flag]
    _check_codes(L, prefix, CHOICES[flag], consts)
    assert set(CHOICES) == set(FLAG_CODES)
    for value, attr in consts.items():
        arr = Rules(players=3, **{flag: value}).to_array()
        assert arr[slot] == getattr(L, attr), (flag, value)


MOVE_CODES = {
    "game_id": "MC_GAME",
    "round": "MC_ROUND",
    "trick": "MC_TRICK",
    "turn": "MC_TURN",
    "seat": "MC_SEAT",
    "type": "MC_TYPE",
    "width": "MC_WIDTH",
    "length": "MC_LENGTH",
    "rank": "MC_RANK",
    "n_cards": "MC_NCARDS",
    "cards": "MC_CARDS",
    "value": "MC_VALUE",
    "hand_after": "MC_HAND_AFTER",
    "won_trick": "MC_WON",
    "trick_to": "MC_TRICK_TO",
    "strength": "MC_STRENGTH",
}
ROUND_FIXED_CODES = {
    "game_id": "RC_GAME",
    "round": "RC_ROUND",
    "dealer": "RC_DEALER",
    "leader": "RC_LEADER",
    "shepherd": "RC_SHEPHERD",
    "second_out": "RC_SECOND_OUT",
    "black_sheep": "RC_BLACK_SHEEP",
    "haggis_to": "RC_HAGGIS_TO",
    "tricks": "RC_TRICKS",
    "actions": "RC_ACTIONS",
}
ROUND_SEAT_CODES = {
    "bet": "RC_BET",
    "going_out": "RC_GOING_OUT",
    "cards": "RC_CARDS",
    "bets": "RC_BETS",
    "bonus": "RC_BONUS",
    "total": "RC_TOTAL",
}


def _round_column(name: str) -> int:
    """The index the compiled writer uses for a rounds column (fixed or ``value_seat``)."""
    if name in ROUND_FIXED_CODES:
        return int(getattr(R, ROUND_FIXED_CODES[name]))
    value, _, seat = name.rpartition("_")
    return int(getattr(R, ROUND_SEAT_CODES[value])) + int(seat) * R.RC_SEAT_STRIDE


def _game_column(name: str) -> int:
    if name.startswith("score_"):
        return R.GC_SCORE + int(name[6:]) * R.GC_SEAT_STRIDE
    return int(
        getattr(R, {"game_id": "GC_GAME", "winner": "GC_WINNER", "rounds": "GC_ROUNDS"}[name])
    )


def test_log_column_constants_are_the_named_indices() -> None:
    _check_codes(R, "MC_", R.MOVE_COLUMNS, MOVE_CODES)
    assert len(R.MOVE_COLUMNS) == R.N_MOVE_COLUMNS
    # rounds: every column has its index, and every RC_ constant is used for one
    assert [_round_column(c) for c in R.ROUND_COLUMNS] == list(range(len(R.ROUND_COLUMNS)))
    rc = {a for a in vars(R) if a.startswith("RC_") and a != "RC_SEAT_STRIDE"}
    assert rc == set(ROUND_FIXED_CODES.values()) | set(ROUND_SEAT_CODES.values())
    assert sorted(ROUND_FIXED_CODES) == sorted(R.ROUND_FIXED)
    assert sorted(ROUND_SEAT_CODES) == sorted(R.ROUND_PER_SEAT)
    assert len(R.ROUND_COLUMNS) == R.N_ROUND_COLUMNS
    assert [_game_column(c) for c in R.GAME_COLUMNS] == list(range(len(R.GAME_COLUMNS)))
    assert len(R.GAME_COLUMNS) == R.N_GAME_COLUMNS


def _expected_round(st: np.ndarray, game_id: int) -> dict[str, int]:
    """A finished round's log values by column name, read straight from the state."""
    n = int(st[L.S_NP])
    out = {
        "game_id": game_id,
        "round": st[L.S_ROUND_NO],
        "dealer": st[L.S_DEALER],
        "leader": st[L.S_FIRST_LEADER],
        "shepherd": st[L.S_OUT],
        "second_out": st[L.S_OUT + 1] if st[L.S_N_OUT] > 1 else -1,
        "black_sheep": S.black_sheep(st),
        "haggis_to": st[L.S_HAGGIS_TO_SEAT],
        "tricks": st[L.S_CAPTURES],
        "actions": st[L.S_TURN_NO],
    }
    per_seat = {
        "bet": L.S_BET,
        "going_out": L.S_GO,
        "cards": L.S_SC_CARDS,
        "bets": L.S_SC_BETS,
        "bonus": L.S_SC_BONUS,
        "total": L.S_SC_TOTAL,
    }
    for s in range(3):
        for name, off in per_seat.items():
            out[f"{name}_{s}"] = st[off + s] if s < n else -1
    return {k: int(v) for k, v in out.items()}


@pytest.mark.parametrize("players", [2, 3])
def test_compiled_writers_put_each_value_under_its_name(players: int) -> None:
    """Play one random game through the recorders; check each row by column name."""
    rules = Rules.preset("aid" if players == 3 else "revised", players=players).to_array()
    moves = np.zeros((4000, R.N_MOVE_COLUMNS), dtype=np.int64)
    rounds = np.zeros((50, R.N_ROUND_COLUMNS), dtype=np.int64)
    games = np.zeros((1, R.N_GAME_COLUMNS), dtype=np.int64)
    cursor = np.zeros(R.N_CURSOR, dtype=np.int64)
    cursor[R.C_TOP_ROW] = -1
    st = S.init_state(rules)
    S.start_game(st, np.int64(41))
    rng = new_stream(np.int64(5))
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    gid = 9
    seen_types = set()
    while True:
        if st[L.S_PHASE] == L.PH_ROUND_OVER:
            R.record_round(st, np.int64(gid), rounds, cursor)
            row = dict(zip(R.ROUND_COLUMNS, rounds[cursor[R.C_ROUND] - 1].tolist(), strict=True))
            assert row == _expected_round(st, gid)
            if S.next_round(st):
                break
            continue
        seat, rnd, turn = int(st[L.S_TO_ACT]), int(st[L.S_ROUND_NO]), int(st[L.S_TURN_NO])
        a = int(S.random_action(st, rng, buf, 0.3))
        R.step_recorded(st, np.int64(a), np.int64(gid), moves, cursor, True, np.int64(77))
        row = dict(zip(R.MOVE_COLUMNS, moves[cursor[R.C_MOVE] - 1].tolist(), strict=True))
        kind = L.ACTION_TYPES[row["type"]]
        seen_types.add(kind)
        assert (row["game_id"], row["round"], row["turn"], row["seat"]) == (gid, rnd, turn, seat)
        assert row["strength"] == 77
        assert row["hand_after"] == bin(int(st[L.S_HAND + seat])).count("1")
        if kind in ("bet", "give"):
            assert row["value"] == a & L.VALUE_MASK and row["cards"] == 0
        else:
            assert row["cards"] == a & L.CARDS_MASK and row["n_cards"] == bin(row["cards"]).count(
                "1"
            )
            assert (row["width"], row["length"], row["rank"]) == (
                move_width(a),
                move_length(a),
                move_rank(a),
            )
        assert (
            R.pack_logged_action(
                row["type"], row["width"], row["length"], row["rank"], row["cards"], row["value"]
            )
            == a
        )
    R.record_game(st, np.int64(gid), games, cursor)
    g = dict(zip(R.GAME_COLUMNS, games[0].tolist(), strict=True))
    assert (g["game_id"], g["winner"], g["rounds"]) == (gid, st[L.S_WINNER], st[L.S_ROUND_NO])
    for s in range(3):
        assert g[f"score_{s}"] == (st[L.S_SCORE + s] if s < players else -1)
    assert {"pass", "set", "bet"} <= seen_types
    won = moves[: cursor[R.C_MOVE], R.MOVE_COLUMNS.index("won_trick")]
    assert won.sum() == rounds[: cursor[R.C_ROUND], R.ROUND_COLUMNS.index("tricks")].sum()


def test_readers_take_each_column_by_name() -> None:
    """A matrix whose every column holds distinct values comes back under the right names."""
    n = 4
    moves = np.arange(n * R.N_MOVE_COLUMNS, dtype=np.int64).reshape(n, -1) % 50 + 1
    moves[:, R.MOVE_COLUMNS.index("type")] = np.arange(n)
    moves[:, R.MOVE_COLUMNS.index("won_trick")] = [0, 1, 0, 1]
    frame = logs.moves_frame(moves)
    assert frame.columns == list(R.MOVE_COLUMNS)
    for name in R.MOVE_COLUMNS:
        got = frame[name].cast(str) if name == "type" else frame[name].cast(pl.Int64)
        want = moves[:, R.MOVE_COLUMNS.index(name)]
        if name == "type":
            assert got.to_list() == [L.ACTION_TYPES[v] for v in want], name
        else:
            assert got.to_list() == want.tolist(), name
    rounds = np.arange(n * R.N_ROUND_COLUMNS, dtype=np.int64).reshape(n, -1) % 200
    frame = logs.rounds_frame(rounds)
    for name in R.ROUND_COLUMNS:
        assert frame[name].to_list() == rounds[:, R.ROUND_COLUMNS.index(name)].tolist(), name
    games = np.array([[7, 1, 5, 100, 260, 90], [8, 2, 6, 120, 30, 255]], dtype=np.int64)
    games = games[:, [("game_id", "winner", "rounds", "score_0", "score_1", "score_2").index(c)
                      for c in R.GAME_COLUMNS]]  # fmt: skip
    entries = np.array([[0, 1, 2], [2, 0, 1]])
    frame = logs.games_frame(games, entries, np.array([1, 2]), np.array([0, 0]), ["a", "b", "c"], 3)
    assert frame["game_id"].to_list() == [7, 8]
    assert frame["winner"].to_list() == [1, 2]
    assert frame["winner_entry"].to_list() == [1, 1]
    assert frame["rounds"].to_list() == [5, 6]
    assert [frame[f"score_{k}"].to_list() for k in range(3)] == [[100, 120], [260, 30], [90, 255]]


def test_card_bits_have_one_definition() -> None:
    assert L.suit_bit(2, 0) == 0 and L.suit_bit(10, 4) == L.SUIT_BITS - 1
    assert [L.face_bit(f) for f in range(3)] == [L.FACE_SHIFT, L.FACE_SHIFT + 1, L.FACE_SHIFT + 2]
    bits = [L.suit_bit(r, s) for r in range(2, 11) for s in range(5)]
    bits += [L.face_bit(f, seat) for seat in range(3) for f in range(3)]
    assert sorted(bits) == list(range(54))  # every physical card is its own bit
    for r in range(2, 11):
        for s in range(5):
            assert card_index(r, s) == L.suit_bit(r, s)
            card = parse_cards(f"{'23456789T'[r - 2]}{'abcde'[s]}")
            assert card.seat_mask(0) == 1 << L.suit_bit(r, s)
    for f, name in enumerate(L.FACES):
        assert int(L.FACE_ALL[f]) == sum(1 << L.face_bit(f, seat) for seat in range(3))
        assert parse_cards(name).seat_mask(1) == 1 << L.face_bit(f, 1)
        assert parse_cards(name).relative_mask() == 1 << L.face_bit(f)


def test_sql_card_points_equal_the_engine() -> None:
    """The report's SQL card points are the engine's classic points for any move's cards."""
    st = S.init_state(Rules.preset("revised", players=3).to_array())
    assert st[L.R_BASE + L.R_CARD_POINTS] == L.CP_CLASSIC
    rng = np.random.default_rng(0)
    masks = [int(x) for x in rng.integers(0, 1 << 48, size=300, dtype=np.int64)]
    masks += [1 << b for b in range(48)]
    con = duckdb.connect()
    con.execute("CREATE TABLE m (cards BIGINT)")
    con.executemany("INSERT INTO m VALUES (?)", [(x,) for x in masks])
    got = [r[0] for r in con.execute(f"SELECT {classic_points_sql('cards')} FROM m").fetchall()]
    assert got == [int(S.card_points(st, np.int64(x))) for x in masks]
    assert sum(got[-48:]) == 20 + sum(L.FACE_POINTS)  # 20 odd suit cards, one of each face


def test_move_packing_round_trips_through_the_log_fields() -> None:
    """Every generated play packs back to itself from its logged fields."""
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    hand = parse_cards("3a 3b 3c 3d 4a 5a 6a 7a 7b 8b 9c 9d Ta J Q K")
    n = generate(np.int64(hand.suits), np.int64(7), 4, np.int64(0), buf, True)
    kinds = set()
    for m in buf[:n].tolist():
        kinds.add(move_type(m))
        fields = (move_type(m), move_width(m), move_length(m), move_rank(m))
        assert R.pack_logged_action(*fields, m & L.CARDS_MASK, 0) == m
    assert kinds == {L.T_SET, L.T_SEQ, L.T_BOMB}
    bet = (L.T_BET << L.TYPE_SHIFT) | 30
    assert R.pack_logged_action(L.T_BET, 0, 0, 0, 0, 30) == bet
    assert R.pack_logged_action(L.T_GIVE, 0, 0, 0, 0, 2) == (L.T_GIVE << L.TYPE_SHIFT) | 2
    assert R.pack_logged_action(L.T_PASS, 0, 0, 0, 0, 0) == L.PASS


def test_parameter_slots_are_the_kernels_names() -> None:
    _check_codes(
        SK,
        "H_",
        SK.HEURISTIC_PARAMS,
        {p: "H_" + p.upper() for p in SK.HEURISTIC_PARAMS},
    )
    _check_codes(SK, "BOMB_", SK.BOMB_MODES, {m: "BOMB_" + m.upper() for m in SK.BOMB_MODES})
    assert SK.RANDOM_PARAMS.index("bet") == SK.RANDOM_BET
    _check_codes(
        ismcts, "M_", kernels.MCTS_PARAMS, {p: "M_" + p.upper() for p in kernels.MCTS_PARAMS}
    )
    _check_codes(
        ismcts,
        "ROLLOUT_",
        kernels.MCTS_ROLLOUTS,
        {r: "ROLLOUT_" + r.upper() for r in kernels.MCTS_ROLLOUTS},
    )
    for cls in BUILTIN.values():
        assert cls.compiled_id is not None
        slots = kernels.PARAM_SLOTS[cls.compiled_id]
        assert sorted(slots) == sorted(p.name for p in cls.params), cls.name
        for p in cls.params:
            if p.choices:
                assert sorted(kernels.PARAM_CHOICES[cls.compiled_id, p.name]) == sorted(p.choices)


def test_param_array_places_values_by_name() -> None:
    strat = HeuristicStrategy(bet=0.11, big=0.22, baby=0.33, bomb="never", bomb_out=4,
                              bomb_give=6, wild=0.77)  # fmt: skip
    arr = strat.param_array()
    assert arr[SK.H_BET] == 0.11 and arr[SK.H_BIG] == 0.22 and arr[SK.H_BABY] == 0.33
    assert arr[SK.H_BOMB] == SK.BOMB_NEVER and arr[SK.H_WILD] == 0.77
    assert arr[SK.H_BOMB_OUT] == 4 and arr[SK.H_BOMB_GIVE] == 6
    mcts = MctsStrategy(iters=33, c=0.4, rollout="random", value="game", bets="never", ms=1.5)
    arr_m = mcts.param_array()
    assert arr_m[ismcts.M_ITERS] == 33 and arr_m[ismcts.M_ROLLOUT] == ismcts.ROLLOUT_RANDOM
    assert arr_m[ismcts.M_C] == 0.4 and arr_m[ismcts.M_MS] == 1.5
    assert arr_m[ismcts.M_VALUE] == ismcts.VALUE_GAME and arr_m[ismcts.M_BETS] == ismcts.BETS_NEVER

    # declaring the parameters, or a choice's values, in another order changes nothing
    def flipped(p: Param) -> Param:
        return Param(p.name, p.type, p.default, p.help, p.low, p.high,
                     p.choices[::-1] if p.choices else None)  # fmt: skip

    class Reordered(HeuristicStrategy):
        params = tuple(flipped(p) for p in HeuristicStrategy.params[::-1])

    values = dict(strat.values)
    assert np.array_equal(Reordered(**values).param_array(), arr)

    class Extra(HeuristicStrategy):
        params = (*HeuristicStrategy.params, Param("spare", float, 0.0, "no kernel slot"))

    with pytest.raises(TypeError, match="slots"):
        Extra().param_array()

    class Missing(HeuristicStrategy):
        params = HeuristicStrategy.params[1:]

    with pytest.raises(TypeError, match="slots"):
        Missing().param_array()

    class OtherBombs(HeuristicStrategy):
        params = tuple(
            Param(p.name, p.type, "early", p.help, choices=("early", "late", "sometimes"))
            if p.name == "bomb" else p
            for p in HeuristicStrategy.params
        )  # fmt: skip

    with pytest.raises(TypeError, match="choices of bomb"):
        OtherBombs().param_array()


@pytest.mark.parametrize("bet_rate", [0.0, 0.3, 1.0])
def test_random_strategy_is_the_engine_random_player(bet_rate: float) -> None:
    """The random kernel draws exactly as the engine's random_action on every observation."""
    rules = Rules.preset("aid", players=3).to_array()
    st = S.init_state(rules)
    S.start_game(st, np.int64(17))
    params = np.zeros(8)
    params[SK.RANDOM_BET] = bet_rate
    ra, rb = new_stream(np.int64(3)), new_stream(np.int64(3))
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    bets = 0
    for _ in range(400):
        if st[L.S_PHASE] == L.PH_ROUND_OVER:
            if S.next_round(st):
                break
            continue
        obs = S.observe(st, st[L.S_TO_ACT])
        a = int(SK.random_act(obs, params, ra, buf))
        assert a == int(S.random_action(obs, rb, buf, bet_rate)) and ra[0] == rb[0]
        bets += move_type(a) == L.T_BET
        S.apply_action(st, np.int64(a))
    assert (bets > 0) == (bet_rate > 0)
