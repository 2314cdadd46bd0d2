"""Traps a maintainer could fall into, each closed and pinned (issue 9, "Traps").

* a strategy class whose ``compiled_id`` names no kernel fails loudly (in Python when the
  class is defined or built, in compiled code when the dispatch is reached anyway);
* parameter arrays are as wide as the widest kernel needs, not a hand-kept 8;
* :class:`haggis_sim.Observation` compares and hashes by value;
* ``observe()`` copies only declared public slots, so a new state slot is hidden by
  default; it is proven equal to the former "copy everything, zero the secrets"
  version (kept here as an oracle) on random and on played states;
* the move generator's "at most three face cards" assumption is checked.
"""

from __future__ import annotations

import numpy as np
import pytest

import haggis_sim as hs
from haggis_sim.engine import layout as L
from haggis_sim.engine import moves as M
from haggis_sim.engine import record as R
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.runner.chunk import _play_compiled, play_chunk
from strategies import CompiledStrategy, GreedyStrategy, Param, Strategy, kernels
from strategies import simple_kernels as SK
from strategies.builtin import BUILTIN

ROW_CAP = 40_000


def _trace(preset: str, players: int, seed: int) -> np.ndarray:
    """Every state of one random game (the engine's random driver)."""
    rules = hs.Rules.preset(preset, players=players)
    states = np.zeros((ROW_CAP, L.STATE_SIZE), dtype=np.int64)
    actions = np.zeros(ROW_CAP, dtype=np.int64)
    n = S.random_game_trace(rules.to_array(), np.int64(seed), 0.2, states, actions)
    assert n > 0
    return states[:n]


# --- 1. unknown compiled_id -------------------------------------------------------------------


def test_unknown_compiled_id_fails_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match=r"NoSuchKernel.*compiled_id 99"):

        class NoSuchKernel(CompiledStrategy):
            name = "no-such-kernel"
            compiled_id = 99

    with pytest.raises(TypeError, match=r"BoolKernel.*compiled_id True"):

        class BoolKernel(CompiledStrategy):  # True == 1 would otherwise pass as greedy
            name = "bool-kernel"
            compiled_id = True


def test_unknown_compiled_id_fails_at_construction() -> None:
    class Renumbered(GreedyStrategy):
        name = "renumbered"

    Renumbered()  # a valid id passes
    Renumbered.compiled_id = 42  # changed after the class was defined
    with pytest.raises(TypeError, match=r"Renumbered.*compiled_id 42"):
        Renumbered()


def test_compiled_dispatch_raises_for_an_unknown_id() -> None:
    """The compiled dispatch has no fallback: an unknown id raises, it does not play greedy."""
    st = _trace("revised", 3, 5)[0]
    obs = S.observe(st, int(st[L.S_TO_ACT]))
    params = np.zeros(kernels.PARAM_WIDTH, dtype=np.float64)
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    greedy = kernels.act(kernels.GREEDY_ID, obs, params, new_stream(np.int64(1)), buf)
    assert greedy != 0  # a leader's play: the dispatch works for known ids
    for sid in (-1, 5, 99):
        message = f"no compiled strategy kernel has id {sid}"
        with pytest.raises(kernels.UnknownKernelError, match=message):
            kernels.act(sid, obs, params, new_stream(np.int64(1)), buf)
    # the smaller dispatchers a run of fewer kernels compiles refuse the kernels they lack
    for act, lacks in (
        (kernels.act_simple, (kernels.MCTS_ID, kernels.LEARNED_ID, 5)),
        (kernels.act_learned, (kernels.MCTS_ID, 5)),
    ):
        assert act(kernels.GREEDY_ID, obs, params, new_stream(np.int64(1)), buf) == greedy
        for sid in lacks:
            with pytest.raises(kernels.UnknownKernelError, match=f"id {sid}"):
                act(sid, obs, params, new_stream(np.int64(1)), buf)


def test_a_run_compiles_the_smallest_dispatcher_that_holds_its_kernels() -> None:
    K = kernels
    assert K.dispatcher([K.GREEDY_ID, K.HEURISTIC_ID, K.RANDOM_ID]) is K.act_simple
    assert K.dispatcher([K.LEARNED_ID, K.HEURISTIC_ID]) is K.act_learned
    assert K.dispatcher([K.MCTS_ID, K.GREEDY_ID]) is K.act
    assert K.dispatcher([7]) is K.act  # an unknown id: the dispatcher that refuses it
    tags = {K.dispatcher_tag(ids).dtype for ids in ([K.GREEDY_ID], [K.LEARNED_ID], [K.MCTS_ID])}
    assert len(tags) == 3  # compiled code tells the three apart


def test_the_runner_stops_on_an_unknown_kernel_and_records_no_game() -> None:
    rules = hs.Rules.preset("revised", players=3).to_array()
    game_ids = np.arange(2, dtype=np.int64)
    # Python side: an instance whose id was changed after construction is caught before play
    strat = GreedyStrategy()
    strat.compiled_id = 7  # type: ignore[misc]
    with pytest.raises(TypeError, match="compiled_id 7"):
        play_chunk(rules, [strat], game_ids, 1, "rotate")
    # compiled side: the compiled game loop itself raises instead of playing the game
    games = np.zeros((2, R.N_GAME_COLUMNS), dtype=np.int64)
    cursor = np.zeros(R.N_CURSOR, dtype=np.int64)
    cursor[R.C_TOP_ROW] = -1
    with pytest.raises(kernels.UnknownKernelError, match="id 7"):
        _play_compiled(
            rules, np.array([7], dtype=np.int64), np.zeros((1, kernels.PARAM_WIDTH)),
            np.zeros((2, 3), dtype=np.int64), np.array([11, 12], dtype=np.int64), game_ids, 0, 1,
            False, np.empty((1, R.N_MOVE_COLUMNS), dtype=np.int64),
            np.empty((300, R.N_ROUND_COLUMNS), dtype=np.int64), games, cursor,
            kernels.dispatcher_tag([7]),
        )  # fmt: skip
    assert cursor[R.C_GAME] == 0, "no game may be recorded"


# --- 2. parameter slots ------------------------------------------------------------------------


def test_parameter_arrays_are_as_wide_as_the_widest_kernel() -> None:
    widest = max(len(slots) for slots in kernels.PARAM_SLOTS.values())
    assert widest == kernels.PARAM_WIDTH
    for cls in BUILTIN.values():
        arr = cls().param_array()
        if cls.compiled_id == kernels.LEARNED_ID:  # a model's weights: the runner pads the rest
            assert arr.shape[0] > kernels.PARAM_WIDTH
            continue
        if cls.compiled_id == kernels.MCTS_ID:  # the prior's weights follow the named slots
            assert arr.shape[0] > kernels.PARAM_WIDTH
            arr = cls(prior="none", value="game").param_array()  # no model of either kind
        assert arr.shape == (kernels.PARAM_WIDTH,), cls.name  # the runner stacks these


def test_a_strategy_may_have_more_than_eight_parameters() -> None:
    class Many(Strategy):
        name = "many"
        # more parameters than the widest kernel has slots: one entry each, none cut
        params = tuple(
            Param(f"p{i}", float, float(i), "a parameter") for i in range(kernels.PARAM_WIDTH + 3)
        )

    last = kernels.PARAM_WIDTH + 2
    arr = Many(**{f"p{last}": 0.5}).param_array()
    assert arr.tolist() == [float(i) for i in range(last)] + [0.5]


# --- 3. Observation equality and hashing -----------------------------------------------------


def test_observations_compare_and_hash_by_value() -> None:
    rules = hs.Rules.preset("revised", players=3)
    a = hs.Game(rules, seed=3)
    b = hs.Game(rules, seed=3)
    seat = a.to_act
    assert seat is not None
    first, again = a.observation(seat), b.observation(seat)
    assert first == again and hash(first) == hash(again)
    other_seat = a.observation((seat + 1) % 3)
    other_deal = hs.Game(rules, seed=4).observation(seat)
    b.apply_action(b.legal_actions()[0])
    later = b.observation(seat)
    distinct = [first, other_seat, other_deal, later]
    assert all(x != y for i, x in enumerate(distinct) for y in distinct[i + 1 :])
    table = {obs: i for i, obs in enumerate(distinct)}
    assert table[again] == 0 and len(table) == 4 and len(set(distinct)) == 4


def test_observation_array_is_the_engine_array_and_a_copy() -> None:
    game = hs.Game(hs.Rules.preset("classic", players=2), seed=9)
    seat = game.to_act
    assert seat is not None
    obs = game.observation(seat)
    expected = S.observe(game.state_array, seat)
    arr = obs.array
    assert arr.dtype == np.int64 and np.array_equal(arr, expected)
    arr[:] = 0  # the observation is immutable: changing a copy changes nothing
    assert np.array_equal(obs.array, expected)
    assert obs == game.observation(seat)


# --- 4. observe(): public slots copied, everything else hidden ---------------------------------


def observe_oracle(st: np.ndarray, seat: int) -> np.ndarray:
    """The former ``observe``: copy everything, then zero the secrets (kept as an oracle)."""
    obs = st.copy()
    n = st[L.S_NP]
    for o in range(3):
        bits = int(st[L.S_HAND + o]) & 0xFFFF_FFFF_FFFF_FFFF  # two's complement, as popcount
        obs[L.S_SIZE + o] = bits.bit_count() if o < n else 0
        if o != seat:
            obs[L.S_HAND + o] = st[L.S_HAND + o] & ~L.SUIT_ALL
    obs[L.S_HAGGIS] = 0
    obs[L.S_SEED] = 0
    if st[L.S_PHASE] != L.PH_ROUND_OVER and st[L.S_PHASE] != L.PH_GAME_OVER:
        obs[L.S_BLACK_LEFT] = 0
    return obs


# Written out by name: making a slot public is a deliberate edit of this list and of
# engine.state.PUBLIC_FIELDS (not S_HAND, S_SIZE, S_BLACK_LEFT: observe() derives those).
EXPECTED_PUBLIC = {
    "S_NP": 1, "S_NSUITS": 1, "S_PHASE": 1, "S_TO_ACT": 1, "S_LEADER": 1, "S_TOP": 1,
    "S_TOP_SEAT": 1, "S_BEATEN_SEAT": 1, "S_PASSES": 1, "S_TRICK_NO": 1, "S_TURN_NO": 1,
    "S_TRICK_CARDS": 1, "S_N_OUT": 1, "S_OUT": 3, "S_CAPT": 3, "S_BET": 3, "S_PLAYED": 3,
    "S_GO": 3, "S_SC_CARDS": 3, "S_SC_BETS": 3, "S_SC_BONUS": 3, "S_SC_TOTAL": 3,
    "S_LAST_NB": 3, "S_PLAY_SEQ": 1, "S_LAST_PLAYER": 1, "S_FIRST_LEADER": 1, "S_DEALER": 1,
    "S_LAST_RECEIVER": 1, "S_GAME": 1, "S_SCORE": 3, "S_ROUND_NO": 1,
    "S_PREV_FIRST_LEADER": 1, "S_WINNER": 1, "S_HAGGIS_TO_SEAT": 1, "S_CAPTURES": 1,
    "R_BASE": L.N_RULES,
}  # fmt: skip
DERIVED = {L.S_HAND + i for i in range(3)} | {L.S_SIZE + i for i in range(3)} | {L.S_BLACK_LEFT}


def test_public_slots_are_exactly_the_declared_list() -> None:
    expected = {getattr(L, name) + i for name, k in EXPECTED_PUBLIC.items() for i in range(k)}
    assert set(S.PUBLIC_SLOTS.tolist()) == expected
    assert len(S.PUBLIC_SLOTS) == len(expected)  # no slot listed twice
    assert not expected & DERIVED


def _random_states(rng: np.random.Generator, count: int) -> np.ndarray:
    """Arbitrary int64 in every slot, with a valid player count and phase."""
    states = rng.integers(-(2**62), 2**62, size=(count, L.STATE_SIZE), dtype=np.int64)
    states[:, L.S_NP] = rng.integers(2, 4, size=count)
    states[:, L.S_PHASE] = rng.integers(0, len(L.PHASES), size=count)
    return states


def test_observe_equals_the_former_observe_on_arbitrary_states() -> None:
    """Random values in every slot: any slot the two treat differently shows up."""
    rng = np.random.default_rng(20240901)
    for st in _random_states(rng, 3000):
        for seat in range(int(st[L.S_NP])):
            assert np.array_equal(S.observe(st, seat), observe_oracle(st, seat))


@pytest.mark.parametrize(("preset", "players"), [("revised", 3), ("classic", 2), ("aid", 3)])
def test_observe_equals_the_former_observe_on_played_states(preset: str, players: int) -> None:
    for seed in range(3):
        for st in _trace(preset, players, seed):
            for seat in range(players):
                assert np.array_equal(S.observe(st, seat), observe_oracle(st, seat))


def test_undeclared_slots_never_reach_an_observation() -> None:
    """Random values in every slot that is neither public nor derived change nothing."""
    rng = np.random.default_rng(7)
    hidden = sorted(set(range(L.STATE_SIZE)) - set(S.PUBLIC_SLOTS.tolist()) - DERIVED)
    assert {L.S_HAGGIS, L.S_SEED} <= set(hidden)
    states = _trace("revised", 3, 11)
    for st in states[rng.choice(len(states), size=40, replace=False)]:
        for seat in range(3):
            obs = S.observe(st, seat)
            alt = st.copy()
            alt[hidden] = rng.integers(-(2**62), 2**62, size=len(hidden))
            alt[[L.S_SIZE + i for i in range(3)]] = rng.integers(0, 99, size=3)
            if st[L.S_PHASE] < L.PH_ROUND_OVER:
                alt[L.S_BLACK_LEFT] = rng.integers(1, 2**40)
            assert np.array_equal(S.observe(alt, seat), obs)


# --- 5. MCTS slots defined once -------------------------------------------------------------------


def test_mcts_slot_tuples_have_one_definition() -> None:
    from strategies import ismcts

    assert kernels.MCTS_PARAMS is SK.MCTS_PARAMS and kernels.MCTS_ROLLOUTS is SK.MCTS_ROLLOUTS
    names = ("iters", "c", "rollout", "ms", "value", "bets")
    by_name = [SK.MCTS_PARAMS.index(p) for p in names]
    slots = [
        ismcts.M_ITERS,
        ismcts.M_C,
        ismcts.M_ROLLOUT,
        ismcts.M_MS,
        ismcts.M_VALUE,
        ismcts.M_BETS,
    ]
    assert by_name == slots
    assert [SK.MCTS_ROLLOUTS.index(r) for r in ("random", "greedy")] == [
        ismcts.ROLLOUT_RANDOM,
        ismcts.ROLLOUT_GREEDY,
    ]
    assert [SK.MCTS_VALUES.index(v) for v in ("game", "round")] == [
        ismcts.VALUE_GAME,
        ismcts.VALUE_ROUND,
    ]
    assert [SK.MCTS_BETS.index(b) for b in ("search", "never")] == [
        ismcts.BETS_SEARCH,
        ismcts.BETS_NEVER,
    ]
    assert kernels.PARAM_CHOICES[kernels.MCTS_ID, "value"] is SK.MCTS_VALUES
    assert kernels.PARAM_CHOICES[kernels.MCTS_ID, "bets"] is SK.MCTS_BETS


# --- 6. the move generator's face-card bound ----------------------------------------------------


def test_move_generator_checks_the_face_card_bound() -> None:
    out = np.empty(L.MAX_MOVES, dtype=np.int64)
    suits = (1 << L.suit_bit(5, 0)) | (1 << L.suit_bit(6, 0))
    assert M.MAX_FACES == len(L.FACES) == 3
    assert M.generate(suits, 0b111, 5, 0, out, True) > 0
    with pytest.raises(RuntimeError, match="at most three face cards"):
        M.generate(suits, 0b1111, 5, 0, out, True)


def test_a_compiled_strategy_needs_a_kernel_or_its_own_act() -> None:
    from strategies import CompiledStrategy

    with pytest.raises(TypeError, match="without a compiled_id"):

        class NoKernel(CompiledStrategy):  # noqa: F841 - defining it is the test
            name = "no-kernel"
            description = "a compiled strategy that names no kernel"

    class OwnAct(CompiledStrategy):
        name = "own-act"
        description = "plays through its own act(), step by step"

        def act(self, observation, legal, rng):  # type: ignore[no-untyped-def]
            return legal[0]

    assert OwnAct().compiled_id is None
