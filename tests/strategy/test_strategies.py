"""The strategies: legal actions only, decisions from the seed alone, no peeking at hidden
cards, plain-Python plug-ins, parameter validation, compiled and Python drivers agreeing,
parameters that change behaviour, and the ``strategies`` command.

Positions come from whole games played by the engine's random driver
(``random_game_trace``), sampled over every rules preset and both player counts, plus two
constructed positions with a pending give decision (a bombed trick, the Haggis).
"""

from __future__ import annotations

import collections
import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from redeal import redeal
from strat_helpers import report
from typer.testing import CliRunner

import haggis_sim as hs
import strategies
from haggis_sim.cli import app
from haggis_sim.engine import layout as L
from haggis_sim.engine import record as R
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.runner.chunk import ChunkLogs, StrategyActionError, play_chunk
from haggis_sim.runner.seating import strategy_seed
from haggis_sim.training.positions import combos
from strategies import CompiledStrategy, Param, Strategy, StrategyError
from strategies.ismcts import determinize

HERE = Path(__file__).resolve().parents[1]  # tests/, where the helpers live
ACTIVE = (L.PH_PLAY, L.PH_GIVE_TRICK, L.PH_GIVE_HAGGIS)
PER_RULESET = 260  # sampled positions per (preset, players)
BUF = np.empty(L.MAX_MOVES, dtype=np.int64)
DEAL = [L.S_HAND, L.S_HAND + 1, L.S_HAND + 2, L.S_HAGGIS]  # where the unseen cards are


RULESETS = combos()  # every (preset, players) pair the rules allow


def rules_array(preset: str, players: int) -> np.ndarray:
    return hs.Rules.preset(preset, players=players).to_array()


# --- positions ------------------------------------------------------------------------------


def game_trace(
    rules: np.ndarray, seed: int, bet_rate: float = 0.3
) -> tuple[np.ndarray, np.ndarray]:
    """Every state of one random game (engine random driver) and the action before it."""
    states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
    actions = np.empty(8000, dtype=np.int64)
    n = S.random_game_trace(rules, np.int64(seed), bet_rate, states, actions)
    assert n > 0, "trace buffer too small"
    return states[:n], actions[:n]


def trace(rules: np.ndarray, seed: int, bet_rate: float = 0.3) -> np.ndarray:
    """Every state of one random game (engine random driver)."""
    return game_trace(rules, seed, bet_rate)[0]


def give_positions() -> list[np.ndarray]:
    """Aid rules, 3 players: a bomb goes out last, so its player gives the trick, then the
    Haggis (bomb_capture winner_chooses, haggis_to last_to_play)."""
    rnd = hs.Round(
        hs.Rules.preset("aid", players=3),
        hands=["3a", "4a J Q", "5a 6c 9e"],
        haggis="3b",
        leader=0,
    )
    for seat, cards in ((0, "3a"), (1, "4a"), (2, "5a"), (1, "J Q")):
        rnd.play(seat, cards)
    assert rnd.phase == "give_trick"
    first = rnd.state_array
    rnd.give(1, 2)
    assert rnd.phase == "give_haggis"
    return [first, rnd.state_array]


@pytest.fixture(scope="module")
def positions() -> dict[tuple[str, int], np.ndarray]:
    """Sampled states (play or give phase) per ruleset; key ("aid-give", 3): give decisions."""
    rng = np.random.default_rng(2024)
    out: dict[tuple[str, int], np.ndarray] = {}
    for k, (preset, players) in enumerate(RULESETS):
        rules = rules_array(preset, players)
        states = np.concatenate([trace(rules, 1000 * k + g) for g in range(2)])
        active = states[np.isin(states[:, L.S_PHASE], ACTIVE)]
        gives = active[active[:, L.S_PHASE] != L.PH_PLAY]
        plays = active[active[:, L.S_PHASE] == L.PH_PLAY]
        pick = rng.choice(len(plays), size=min(PER_RULESET, len(plays)), replace=False)
        out[preset, players] = np.concatenate([gives, plays[np.sort(pick)]])
    out["aid-give", 3] = np.stack(give_positions())
    return out


def all_positions(positions: dict[tuple[str, int], np.ndarray]) -> Iterator[np.ndarray]:
    for states in positions.values():
        yield from states


def legal_codes(st: np.ndarray) -> set[int]:
    k = S.legal_actions(st, BUF, True)
    return {int(x) for x in BUF[:k]}


def compiled(spec: str) -> CompiledStrategy:
    strat = strategies.make(spec)
    assert isinstance(strat, CompiledStrategy)
    return strat


def act(strat: CompiledStrategy, st: np.ndarray, seed: int) -> int:
    """The strategy's action in true state ``st``, seeing only the acting seat's observation."""
    return strat.act_array(S.observe(st, st[L.S_TO_ACT]), new_stream(np.int64(seed)))


# --- 1. legal actions only ---------------------------------------------------------------------

LEGALITY_SPECS = [
    "random",
    "random:bet=1",
    "greedy",
    "heuristic",
    "heuristic:bomb=early,wild=1",
    "heuristic:bomb=never,wild=0",
    "heuristic:bomb=late,wild=1,bomb_out=17,bomb_give=0",
    "heuristic:bet=0,big=0.3,baby=0",
    "mcts:iters=20,rollout=random",
    "mcts:iters=20,rollout=greedy",
    "mcts:iters=1,c=0,bets=never",
    "mcts:iters=20,value=net",
    "mcts:iters=20,value=net,mix=0.5,qinit=3",
    "mcts:iters=20,value=net,mix=0.5,horizon=4",
    "mcts:iters=12,model=mix6,qinit=0,sure=0.8",
]


def test_positions_cover_every_ruleset_and_phase(
    positions: dict[tuple[str, int], np.ndarray],
) -> None:
    assert ("revised-split", 3) in positions and ("revised-split", 2) not in positions
    assert ("haggish", 2) in positions and ("haggish", 3) not in positions
    assert len(RULESETS) == 10
    total = sum(len(v) for v in positions.values())
    assert total >= 2500
    phases = {(int(st[L.S_NP]), int(st[L.S_PHASE])) for st in all_positions(positions)}
    assert {(2, L.PH_PLAY), (3, L.PH_PLAY), (3, L.PH_GIVE_TRICK), (3, L.PH_GIVE_HAGGIS)} <= phases
    # leads, follows and chances to bet are all there
    assert sum(st[L.S_TOP] == 0 for st in all_positions(positions)) > 300
    assert sum(st[L.S_TOP] != 0 for st in all_positions(positions)) > 300
    assert sum(bool(S.can_bet(st, st[L.S_TO_ACT])) for st in all_positions(positions)) > 100


@pytest.mark.parametrize("spec", LEGALITY_SPECS)
def test_builtin_strategy_returns_only_legal_actions(
    spec: str, positions: dict[tuple[str, int], np.ndarray]
) -> None:
    strat = compiled(spec)
    bad = []
    types = set()
    for i, st in enumerate(all_positions(positions)):
        code = act(strat, st, 7919 * i + 1)
        types.add(code >> L.TYPE_SHIFT)
        err = int(S.check_action(st, np.int64(code)))
        if err or code not in legal_codes(st):
            bad.append((i, int(st[L.S_NP]), int(st[L.S_PHASE]), hex(code), err))
    assert not bad, f"{spec}: {len(bad)} illegal actions, e.g. {bad[:5]}"
    assert {L.T_SET, L.T_GIVE} <= types  # it played and it gave


# --- 2. decisions depend on the seed, not on the process ---------------------------------------


def seed_positions(positions: dict[tuple[str, int], np.ndarray]) -> np.ndarray:
    return np.concatenate([positions["revised", 3][:70], positions["deluxe", 2][:70]])


def test_same_seed_same_action_different_seed_sometimes_different(
    positions: dict[tuple[str, int], np.ndarray],
) -> None:
    states = seed_positions(positions)
    seeds = [int(1_000_003 * i + 5) for i in range(len(states))]
    choice = [len(legal_codes(st)) > 1 for st in states]
    assert sum(choice) > 50
    for spec in ("random:bet=0.3", "greedy", "heuristic", "mcts:iters=15"):
        strat = compiled(spec)
        first = [act(strat, st, sd) for st, sd in zip(states, seeds, strict=True)]
        again = [act(strat, st, sd) for st, sd in zip(states, seeds, strict=True)]
        assert first == again, spec
        if spec.startswith(("random", "mcts")):
            other = [act(strat, st, sd + 1) for st, sd in zip(states, seeds, strict=True)]
            differ = sum(a != b for a, b, c in zip(first, other, choice, strict=True) if c)
            assert differ >= 3, f"{spec}: the seed barely matters ({differ} differences)"


@pytest.mark.slow
def test_decisions_are_the_same_in_a_fresh_process(
    positions: dict[tuple[str, int], np.ndarray], tmp_path: Path
) -> None:
    states = seed_positions(positions)[::2]
    seeds = [int(31 * i + 2) for i in range(len(states))]
    here = report(states, seeds)
    np.savez(tmp_path / "pos.npz", positions=states, seeds=np.array(seeds, dtype=np.int64))
    env = dict(os.environ, PYTHONHASHSEED="4321")
    res = subprocess.run(
        [sys.executable, str(HERE / "strat_helpers.py"), str(tmp_path / "pos.npz")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    there = json.loads(res.stdout)
    assert there["actions"] == here["actions"]
    assert there["digest"] == here["digest"]


def test_play_chunk_decisions_depend_on_seed_and_game_id_only() -> None:
    rules = rules_array("revised", 3)
    strats = [compiled("heuristic"), compiled("mcts:iters=10"), compiled("random:bet=0.3")]
    whole = play_chunk(rules, strats, np.arange(8), 5, "rotate")
    again = play_chunk(rules, strats, np.arange(8), 5, "rotate")
    part = play_chunk(rules, strats, np.arange(5, 8), 5, "rotate")
    for name in ("moves", "rounds", "games"):
        assert np.array_equal(getattr(whole, name), getattr(again, name)), name
    in_part = np.isin(whole.moves[:, R.MC_GAME], [5, 6, 7])
    assert np.array_equal(whole.moves[in_part], part.moves)
    assert np.array_equal(whole.games[5:], part.games)
    other = play_chunk(rules, strats, np.arange(8), 6, "rotate")
    assert not np.array_equal(whole.games, other.games)


# --- 3. no hidden information --------------------------------------------------------------------


def hidden_from(st: np.ndarray, seat: int) -> int:
    """The cards ``seat`` may not see: other hands' suit cards and the Haggis."""
    hidden = int(st[L.S_HAGGIS])
    for o in range(int(st[L.S_NP])):
        if o != seat:
            hidden |= int(st[L.S_HAND + o]) & L.SUIT_ALL
    return hidden


def card_fields(obs: np.ndarray) -> int:
    """Every card an observation shows, in any card field."""
    seen = int(obs[L.S_TRICK_CARDS]) | int(obs[L.S_HAGGIS]) | int(obs[L.S_BLACK_LEFT])
    seen |= int(obs[L.S_TOP]) & L.SUIT_ALL
    for o in range(3):
        seen |= int(obs[L.S_HAND + o]) | int(obs[L.S_CAPT + o])
    return seen & L.SUIT_ALL


def check_observation(obs: np.ndarray, st: np.ndarray, seat: int) -> None:
    n = int(st[L.S_NP])
    assert int(obs[L.S_HAND + seat]) == int(st[L.S_HAND + seat])
    for o in range(n):
        assert int(obs[L.S_SIZE + o]) == int(st[L.S_HAND + o]).bit_count()
        if o != seat:
            assert int(obs[L.S_HAND + o]) & L.SUIT_ALL == 0
            assert int(obs[L.S_HAND + o]) == int(st[L.S_HAND + o]) & ~L.SUIT_ALL  # faces public
    assert obs[L.S_HAGGIS] == 0 and obs[L.S_SEED] == 0
    if st[L.S_PHASE] in ACTIVE:
        assert obs[L.S_BLACK_LEFT] == 0
    assert card_fields(obs) & hidden_from(st, seat) == 0


def test_observation_array_zeroes_other_hands_and_the_haggis(
    positions: dict[tuple[str, int], np.ndarray],
) -> None:
    with_hidden = 0
    for st in all_positions(positions):
        for seat in range(int(st[L.S_NP])):
            obs = S.observe(st, seat)
            check_observation(obs, st, seat)
            with_hidden += hidden_from(st, seat) != 0
            o = hs.Observation.from_array(obs, seat)
            assert o.hand == hs.Cards.from_mask(int(st[L.S_HAND + seat]))
    assert with_hidden > 5000  # the check is not vacuous


@pytest.mark.parametrize(
    ("spec", "rows"),
    [
        ("heuristic", 12),
        ("mcts", 8),  # the default since 2026-12: mix5 prior, mixed leaves, qinit=3
        ("mcts:iters=20,value=game,model=gen2", 8),  # the rollout search
        ("mcts:iters=20,value=net,mix=1,qinit=0", 8),
        ("mcts:iters=20,value=net,mix=0.5,qinit=3", 8),
        ("mcts:iters=20,value=net,mix=0.5,horizon=4", 8),
        ("mcts:iters=12,model=mix6,qinit=0,sure=0.8", 8),  # prior-sure decisions unsearched
        ("random:bet=0.3", 12),
        ("greedy", 12),
    ],  # fmt: skip
)
def test_redealing_hidden_cards_does_not_change_the_decision(spec: str, rows: int) -> None:
    """A seat decides the same in every deal it cannot tell apart: the cards it has not
    seen dealt again, the deal seed changed and the round replayed through the engine
    (``redeal``), the strategy, given the same seed, chooses the same action at each of
    the seat's turns from the deal to the sampled position. (That the observation itself
    is equal, field by field, is test_properties' check; this one follows it into the
    decisions, each made as the runner makes it, from the true state's observation.)"""
    strat = compiled(spec)
    rng = np.random.default_rng(99)
    decisions = moved = 0
    for k, (preset, players) in enumerate(RULESETS):
        states, actions = game_trace(rules_array(preset, players), 500 + k)
        live = np.flatnonzero(np.isin(states[:, L.S_PHASE], ACTIVE))
        for row in map(int, rng.choice(live, size=rows, replace=False)):
            seat = int(states[row, L.S_TO_ACT])
            alt = redeal(states, actions, row, seat, rng)
            first = row + 1 - len(alt)
            moved += not np.array_equal(alt[-1][DEAL], states[row][DEAL])
            for j, st in enumerate(alt):
                if st[L.S_TO_ACT] != seat or st[L.S_PHASE] not in ACTIVE:
                    continue
                seed = 11 * (first + j) + 3
                a, b = act(strat, states[first + j], seed), act(strat, st, seed)
                assert a == b, f"{spec}, {preset}/{players}: row {first + j} changed its action"
                assert S.check_action(st, np.int64(b)) == 0
                decisions += 1
    assert moved >= 0.8 * rows * len(RULESETS) and decisions >= 5 * rows * len(RULESETS), (
        moved,
        decisions,
    )


def test_ismcts_determinizations_agree_with_the_observation(
    positions: dict[tuple[str, int], np.ndarray],
) -> None:
    dealt = {k: v for k, v in positions.items() if k[0] != "aid-give"}  # whole decks only
    for i, st in enumerate(list(all_positions(dealt))[::2]):
        seat = int(st[L.S_TO_ACT])
        obs = S.observe(st, seat)
        det = determinize(obs, seat, new_stream(np.int64(i)))
        assert np.array_equal(S.observe(det, seat), obs)
        assert int(det[L.S_HAGGIS]).bit_count() == int(st[L.S_HAGGIS]).bit_count()
        piles = [int(det[L.S_HAGGIS]), int(det[L.S_TRICK_CARDS]) & L.SUIT_ALL]
        piles += [int(det[L.S_HAND + s]) & L.SUIT_ALL for s in range(3)]
        piles += [int(det[L.S_CAPT + s]) & L.SUIT_ALL for s in range(3)]
        union = 0
        for p in piles:
            assert union & p == 0, f"position {i}: a card dealt twice"
            union |= p
        deck = hs.Rules.preset("revised", players=int(st[L.S_NP])).n_suits
        assert union.bit_count() == 9 * deck


class Spy(Strategy):
    """Records what it is handed; plays a random legal action."""

    name = "test-spy"
    description = "records every observation (tests)"

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.seen: list[tuple[hs.Observation, list[int]]] = []

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        self.seen.append((observation, [a.code for a in legal]))
        return legal[int(rng.integers(len(legal)))]


def replay(rules: np.ndarray, logs: ChunkLogs, i: int) -> Iterator[tuple[np.ndarray, int, int]]:
    """(true state before the action, seat, action) for every logged action of game ``i``,
    checking each action is legal and the game ends as recorded."""
    gid = int(logs.games[i, 0])
    st = S.init_state(rules)
    S.start_game(st, logs.deal_seeds[i])
    for row in logs.moves[logs.moves[:, R.MC_GAME] == gid]:
        if st[L.S_PHASE] == L.PH_ROUND_OVER:
            assert not S.next_round(st)
        code = R.pack_logged_action(*(int(row[c]) for c in (5, 6, 7, 8, 10, 11)))
        seat = int(st[L.S_TO_ACT])
        assert seat == row[R.MC_SEAT]
        assert S.check_action(st, np.int64(code)) == 0, f"game {gid}: illegal {row}"
        yield st.copy(), seat, code
        S.apply_action(st, np.int64(code))
    assert st[L.S_PHASE] == L.PH_ROUND_OVER and S.next_round(st)
    assert st[L.S_WINNER] == logs.games[i, 1]


@pytest.mark.parametrize(("preset", "players"), [("revised", 2), ("aid", 3)])
def test_python_strategy_sees_only_its_own_cards(preset: str, players: int) -> None:
    spy = Spy()
    rules = rules_array(preset, players)
    others = [compiled("random:bet=0.3"), compiled("greedy")][: players - 1]
    logs = play_chunk(rules, [spy, *others], np.arange(2 * players), 3, "rotate")
    seen = iter(spy.seen)
    n_checked = 0
    for i in range(len(logs.games)):
        for st, seat, _ in replay(rules, logs, i):
            if logs.entries[i, seat] != 0:
                continue
            obs, legal = next(seen)
            assert obs.seat == seat and obs.to_act == seat
            assert np.array_equal(obs.array, S.observe(st, seat))
            check_observation(obs.array, st, seat)
            assert obs.hand == hs.Cards.from_mask(int(st[L.S_HAND + seat]))
            assert obs.hand_sizes == tuple(
                int(st[L.S_HAND + s]).bit_count() for s in range(players)
            )
            assert sorted(legal) == sorted(legal_codes(st))
            n_checked += 1
    assert next(seen, None) is None
    assert n_checked > 100


# --- 4. plain-Python strategies through play_chunk ------------------------------------------------


class Lowest(Strategy):
    """Bets at a rate; otherwise the lowest-ranked play; passes whenever it may."""

    name = "test-lowest"
    description = "the lowest play (tests)"
    params = (Param("bet", float, 0.0, "chance to bet when it may", 0.0, 1.0),)

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        bets = [a for a in legal if a.type == "bet"]
        if bets and rng.random() < self.values["bet"]:
            return bets[0]
        for kind in ("pass", "give"):
            for a in legal:
                if a.type == kind:
                    return a
        plays = [a for a in legal if a.type == "play"]
        return min(plays, key=lambda a: (a.combo.rank if a.combo else 0, a.code))


def test_registered_python_strategy_plays_legal_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strategies.registry, "_extra", {})
    strategies.register(Lowest)
    assert strategies.known()["test-lowest"] is Lowest
    mine = strategies.make("test-lowest:bet=0.5")
    assert isinstance(mine, Lowest) and mine.values == {"bet": 0.5}
    assert strategies.make(mine.spec).spec == mine.spec == "test-lowest:bet=0.5"
    listed = CliRunner().invoke(app, ["strategies"])
    assert listed.exit_code == 0 and "test-lowest: the lowest play (tests)" in listed.stdout
    for preset, players, opponents in (
        ("revised", 2, ["greedy"]),
        ("deluxe", 3, ["heuristic", "mcts:iters=5"]),
    ):
        rules = rules_array(preset, players)
        strats = [mine, *(strategies.make(s) for s in opponents)]
        logs = play_chunk(rules, strats, np.arange(2 * players), 8, "rotate")
        assert len(logs.games) == 2 * players and (logs.games[:, 1] >= 0).all()
        mine_rows = 0
        for i in range(len(logs.games)):
            for st, seat, code in replay(rules, logs, i):
                if logs.entries[i, seat] == 0:
                    mine_rows += 1
                    legal = legal_codes(st)
                    if 0 in legal:
                        assert code == 0 or code >> L.TYPE_SHIFT == L.T_BET
        assert mine_rows > 50
        bets = logs.moves[:, R.MC_TYPE] == L.T_BET
        assert bets.any()  # bet=0.5 bets


def illegal_pass(observation: hs.Observation, legal: list[hs.Action]) -> Any:
    return 0  # a pass, also when leading


def garbage(observation: hs.Observation, legal: list[hs.Action]) -> Any:
    return 123456789


def unheld_card(observation: hs.Observation, legal: list[hs.Action]) -> Any:
    """A single suit card the seat does not hold, correctly packed."""
    held = observation.hand.suits
    bit = next(b for b in range(45) if not held >> b & 1)
    return (L.T_SET << L.TYPE_SHIFT) | (1 << 56) | (1 << 52) | ((bit // 5 + 2) << 48) | 1 << bit


def bet_after_play(observation: hs.Observation, legal: list[hs.Action]) -> Any:
    """A legal play first; a bet on its next turn (not allowed after playing)."""
    if observation.has_played[observation.seat]:
        return hs.Action(observation.seat, "bet", (L.T_BET << L.TYPE_SHIFT) | 15, value=15)
    plays = [a for a in legal if a.type == "play"]
    return plays[0] if plays else legal[0]


def cheat_class(choose: Callable[[hs.Observation, list[hs.Action]], Any]) -> type[Strategy]:
    class Cheat(Strategy):
        name = "test-cheat"
        description = "returns an illegal action (tests)"

        def act(
            self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
        ) -> Any:
            return choose(observation, legal)

    return Cheat


@pytest.mark.parametrize("choose", [illegal_pass, garbage, unheld_card, bet_after_play])
def test_python_strategy_illegal_action_raises(choose: Callable[..., Any]) -> None:
    cheat = cheat_class(choose)()
    rules = rules_array("revised", 2)
    with pytest.raises(StrategyActionError, match="test-cheat"):
        play_chunk(rules, [cheat, compiled("greedy")], np.arange(2), 1, "rotate")


def test_python_strategy_returning_no_action_raises_strategy_action_error() -> None:
    """Forgetting ``return`` in act() is a strategy error like any illegal action."""
    cheat = cheat_class(lambda observation, legal: None)()
    rules = rules_array("revised", 2)
    with pytest.raises(StrategyActionError, match="test-cheat"):
        play_chunk(rules, [cheat, compiled("greedy")], np.arange(2), 1, "rotate")


# --- 5. parameters ------------------------------------------------------------------------------

BAD_SPECS = {
    "heuristic:bet=2": ["bet", "1.01"],
    "mcts:iters=0": ["iters"],
    "mcts:rollout=foo": ["rollout", "random", "greedy"],
    "random:bet=-1": ["bet"],
    "random:bet=lots": ["bet", "float"],
    "greedy:x=1": ["greedy", "'x'"],
    "heuristic:wildness=1": ["heuristic", "wildness", "wild"],
    "heuristic:bomb_out=2.5": ["bomb_out", "int"],
    "heuristic:bomb=sometimes": ["bomb", "early", "late", "never"],
    "mcts:c=inf": ["c"],
    "heuristic:bet": ["bet", "k=v"],
    ":bet=1": ["empty strategy name"],
    "nosuch": ["nosuch", "random", "greedy", "heuristic", "mcts"],
    "nosuch:bet=1": ["nosuch"],
}


@pytest.mark.parametrize("spec", list(BAD_SPECS))
def test_bad_spec_is_a_clear_strategy_error(spec: str) -> None:
    with pytest.raises(StrategyError) as info:
        strategies.make(spec)
    assert isinstance(info.value, ValueError)
    for word in BAD_SPECS[spec]:
        assert word in str(info.value), (spec, str(info.value))


@pytest.mark.parametrize("spec", ["heuristic:bet=nan", "mcts:c=nan", "random:bet=nan"])
def test_nan_parameter_is_out_of_range(spec: str) -> None:
    name = spec.split(":")[1].split("=")[0]
    with pytest.raises(StrategyError, match=name):
        strategies.make(spec)


@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "random:bet=0",
        "random:bet=1e-05",
        "greedy",
        "greedy:",
        "heuristic",
        " heuristic : bomb = never , wild = 1 ",
        "heuristic:bet=0.4,big=1.01,baby=0,bomb=early,bomb_out=17,bomb_give=200,wild=0",
        "mcts",
        "mcts:iters=1,c=0,rollout=random,value=game,bets=never",
    ],
)
def test_valid_spec_round_trips(spec: str) -> None:
    strat = strategies.make(spec)
    name = spec.strip().split(":")[0].strip()
    assert strat.name == name and strat.spec.startswith(name)
    assert set(strat.values) == {p.name for p in type(strat).params}
    again = strategies.make(strat.spec)
    assert type(again) is type(strat) and again.values == strat.values
    assert again.spec == strat.spec
    assert np.array_equal(again.param_array(), strat.param_array())
    # every parameter is explicit in the spec
    for p in type(strat).params:
        assert f"{p.name}=" in strat.spec


def test_given_parameters_are_kept_others_default() -> None:
    h = strategies.make("heuristic:bomb=never,wild=1,bomb_out=2")
    assert h.values["bomb"] == "never" and h.values["wild"] == 1.0
    assert h.values["bomb_out"] == 2 and isinstance(h.values["bomb_out"], int)
    assert h.values["bet"] == 0.55
    m = strategies.make("mcts:iters=30,rollout=random")
    assert m.values["iters"] == 30 and m.values["rollout"] == "random" and m.values["c"] == 0.7


# --- 6. compiled and Python drivers choose the same actions ---------------------------------------


class Unseated(Strategy):
    """Never seated (one strategy more than seats): it only forces the Python driver."""

    name = "test-unseated"

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        raise AssertionError("an unseated strategy was asked to act")


@pytest.mark.parametrize(
    ("players", "specs", "n_games"),
    [
        (2, ["heuristic", "mcts:iters=30"], 4),
        (3, ["heuristic", "mcts:iters=30", "random:bet=0.3"], 6),
    ],
)
def test_compiled_and_python_drivers_choose_the_same_actions(
    players: int, specs: list[str], n_games: int
) -> None:
    rules_obj = hs.Rules.preset("classic", players=players)
    rules = rules_obj.to_array()
    strats = [compiled(s) for s in specs]
    ids, run_seed = np.arange(10, 10 + n_games), 41
    fast = play_chunk(rules, strats, ids, run_seed, "rotate")
    slow = play_chunk(rules, [*strats, Unseated()], ids, run_seed, "rotate")
    assert not (slow.entries == len(strats)).any()
    for name in ("moves", "rounds", "games", "entries", "deal_seeds"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert len(fast.moves) > 200 * n_games // 2

    # step by step through the public Python API (hs.Game), streams from strategy_seed
    for i, gid in enumerate(ids):
        game = hs.Game(rules_obj, seed=run_seed, game_id=int(gid) // (2 if players == 2 else 6))
        assert game.state_array[L.S_SEED] == fast.deal_seeds[i]
        streams = [new_stream(np.int64(strategy_seed(run_seed, int(gid), s))) for s in range(3)]
        while not game.over:
            seat = game.to_act
            assert seat is not None
            strat = strats[int(fast.entries[i, seat])]
            game.apply_action(strat.act_array(game.observation(seat).array, streams[seat]))
        rows = fast.moves[fast.moves[:, R.MC_GAME] == gid]
        logged = [R.pack_logged_action(*(int(r[c]) for c in (5, 6, 7, 8, 10, 11))) for r in rows]
        assert [a.code for a in game.history] == logged
        assert game.winner == fast.games[i, 1]
        assert list(game.scores) == list(fast.games[i, 3 : 3 + players])


# --- 7. parameters change behaviour -------------------------------------------------------------


def strategy_rows(logs: ChunkLogs, entry: int = 0) -> np.ndarray:
    """The move rows of the strategy at ``entry``."""
    m = logs.moves
    return m[logs.entries[m[:, R.MC_GAME] - int(logs.games[0, 0]), m[:, R.MC_SEAT]] == entry]


def bets(value: int) -> Callable[[np.ndarray], int]:
    return lambda rows: int(
        ((rows[:, R.MC_TYPE] == L.T_BET) & (rows[:, R.MC_VALUE] == value)).sum()
    )


def bombs(rows: np.ndarray) -> int:
    return int((rows[:, R.MC_TYPE] == L.T_BOMB).sum())


def wilds(rows: np.ndarray) -> int:
    """Face cards spent as wilds: in sets and sequences of suit ranks (2..10)."""
    faces = (rows[:, R.MC_CARDS] >> L.FACE_SHIFT) & 7
    as_wild = np.isin(rows[:, R.MC_TYPE], [L.T_SET, L.T_SEQ]) & (rows[:, R.MC_RANK] <= 10)
    return int(sum(((faces[as_wild] >> f) & 1).sum() for f in range(3)))


HEURISTIC_EFFECTS = {
    # parameter: (preset, more-of-it spec, less-of-it spec, what is counted)
    "bet": ("revised", "heuristic:bet=0.4", "heuristic:bet=0.9,big=0.95", bets(15)),
    "big": ("revised", "heuristic:bet=0.2,big=0.3", "heuristic:big=1.01", bets(30)),
    "baby": ("deluxe", "heuristic:bet=1.01,big=1.01,baby=0.3", "heuristic:baby=1.01", bets(5)),
    "bomb": ("revised", "heuristic:bomb=early", "heuristic:bomb=never", bombs),
    "bomb_out": (
        "revised",
        "heuristic:bomb=late,bomb_give=-1,bomb_out=17",
        "heuristic:bomb=late,bomb_give=-1,bomb_out=0",
        bombs,
    ),
    "bomb_give": (
        "revised",
        "heuristic:bomb=late,bomb_out=0,bomb_give=200",
        "heuristic:bomb=late,bomb_out=0,bomb_give=-1",
        bombs,
    ),
    "wild": ("revised", "heuristic:wild=1", "heuristic:wild=0", wilds),
}


def heuristic_vs_greedy(spec: str, preset: str, players: int, n_games: int = 200) -> ChunkLogs:
    rules = rules_array(preset, players)
    return play_chunk(rules, [compiled(spec), compiled("greedy")], np.arange(n_games), 12, "rotate")


def test_every_heuristic_parameter_is_exercised() -> None:
    assert set(HEURISTIC_EFFECTS) == {p.name for p in strategies.HeuristicStrategy.params}


@pytest.mark.parametrize("param", list(HEURISTIC_EFFECTS))
@pytest.mark.parametrize("players", [2, 3])
def test_heuristic_parameter_changes_behaviour(param: str, players: int) -> None:
    preset, more, less, count = HEURISTIC_EFFECTS[param]
    n_games = 200 if players == 2 else 120
    hi = count(strategy_rows(heuristic_vs_greedy(more, preset, players, n_games)))
    lo = count(strategy_rows(heuristic_vs_greedy(less, preset, players, n_games)))
    assert hi >= 20 and hi >= 1.3 * lo + 5, f"{param}: {more} -> {hi}, {less} -> {lo}"


@functools.cache
def bomb_never_choices(players: int) -> collections.Counter[tuple[str, bool, str]]:
    """How heuristic:bomb=never, playing greedy, chose where it could bomb: counts by
    (situation, whether a bomb would empty its hand, what it played). Situations: a lead
    with only bombs ("lead: bombs only"), a lead with a non-bomb too ("lead: choice"), a
    trick that only a bomb beats ("follow: only a bomb beats") or that a non-bomb beats
    too ("follow: choice"). Every decision is replayed from the runner's logs."""
    rules = rules_array("revised", players)
    logs = heuristic_vs_greedy("heuristic:bomb=never", "revised", players, 200)
    names = {L.T_PASS: "pass", L.T_SET: "non-bomb", L.T_SEQ: "non-bomb", L.T_BOMB: "bomb"}
    seen: collections.Counter[tuple[str, bool, str]] = collections.Counter()
    for i in range(len(logs.games)):
        for st, seat, code in replay(rules, logs, i):
            if logs.entries[i, seat] != 0 or st[L.S_PHASE] != L.PH_PLAY:
                continue
            if code >> L.TYPE_SHIFT == L.T_BET:
                continue  # the same seat then plays from the same cards
            legal = [int(m) for m in BUF[: S.legal_actions(st, BUF, False)]]
            bombs = [m for m in legal if m >> L.TYPE_SHIFT == L.T_BOMB]
            if not bombs:
                continue
            others = any(m != 0 and m >> L.TYPE_SHIFT != L.T_BOMB for m in legal)
            lead = st[L.S_TOP] == 0
            situation = ("lead: " if lead else "follow: ") + (
                "choice" if others else ("bombs only" if lead else "only a bomb beats")
            )
            size = int(st[L.S_HAND + seat]).bit_count()
            out = any((m & L.CARDS_MASK).bit_count() == size for m in bombs)
            seen[situation, out, names[code >> L.TYPE_SHIFT]] += 1
    return seen


def choices_in(seen: collections.Counter[tuple[str, bool, str]], situation: str) -> dict[str, int]:
    """What was played in ``situation`` (any hand size), e.g. {"pass": 40}."""
    out: dict[str, int] = collections.defaultdict(int)
    for (where, _, chose), count in seen.items():
        if where == situation:
            out[chose] += count
    return dict(out)


def only_a_bomb_goes_out() -> np.ndarray:
    """2 players: seat 0 leads a pair; seat 1 holds only J Q, so only the J-Q bomb beats
    the pair and it would empty seat 1's hand (random play rarely meets this)."""
    rnd = hs.Round(hs.Rules.preset("revised", players=2), hands=["2a 2b 4a", "J Q"], leader=0)
    rnd.play(0, "2a 2b")
    st = rnd.state_array
    plays = {int(m) >> L.TYPE_SHIFT for m in BUF[: S.legal_actions(st, BUF, False)]}
    assert plays == {L.T_PASS, L.T_BOMB}, plays
    return st


@pytest.mark.parametrize("players", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_heuristic_bomb_never_passes_when_only_a_bomb_beats(players: int) -> None:
    """Following a trick that only a bomb beats, bomb=never passes; in logged games this
    happened often, and it passes also where the bomb would empty its hand (constructed:
    bomb=early and bomb=late bomb there, so the position does discriminate)."""
    seen = bomb_never_choices(players)
    chosen = choices_in(seen, "follow: only a bomb beats")
    assert set(chosen) == {"pass"} and chosen["pass"] >= 20, seen
    st = only_a_bomb_goes_out()
    no_bets = "bet=1.01,big=1.01,baby=1.01"  # it may bet here: make it play at once
    for seed in range(5):
        assert act(compiled(f"heuristic:bomb=never,{no_bets}"), st, seed) == L.PASS
        for mode in ("early", "late"):
            code = act(compiled(f"heuristic:bomb={mode},{no_bets}"), st, seed)
            assert code >> L.TYPE_SHIFT == L.T_BOMB, mode


@pytest.mark.parametrize("players", [2, 3])
def test_heuristic_bomb_never_plays_a_non_bomb_where_one_is_possible(players: int) -> None:
    """Where it could bomb but a non-bomb play was possible too, leading or following,
    bomb=never played a non-bomb, also where only the bomb would have emptied its hand
    (each situation met in the logged games). It never bombed at all: a lead with only
    bombs cannot happen, as every hand can lead a single card."""
    seen = bomb_never_choices(players)
    for situation in ("lead: choice", "follow: choice"):
        chosen = choices_in(seen, situation)
        assert set(chosen) == {"non-bomb"} and chosen["non-bomb"] >= 20, (situation, seen)
        assert seen[situation, True, "non-bomb"] >= 5, (situation, seen)
    assert not [key for key in seen if key[2] == "bomb" or key[0] == "lead: bombs only"], seen


def mcts_positions(positions: dict[tuple[str, int], np.ndarray]) -> list[np.ndarray]:
    """Play positions with a real choice, from both player counts."""
    out = []
    for key in (("revised", 2), ("revised", 3)):
        out += [st for st in positions[key][::3] if len(legal_codes(st)) > 2]
    return out[:100]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("mcts:iters=2", "mcts:iters=80"),
        ("mcts:iters=40,c=0", "mcts:iters=40,c=5"),
        ("mcts:iters=40,rollout=random", "mcts:iters=40,rollout=greedy"),
    ],
)
def test_mcts_parameter_changes_decisions(
    a: str, b: str, positions: dict[tuple[str, int], np.ndarray]
) -> None:
    states = mcts_positions(positions)
    assert len(states) >= 60
    sa, sb = compiled(a), compiled(b)
    differ = sum(act(sa, st, 100 + i) != act(sb, st, 100 + i) for i, st in enumerate(states))
    assert differ >= 0.05 * len(states), f"{a} vs {b}: {differ} of {len(states)} differ"


def test_mcts_bets_setting_switches_betting(positions: dict[tuple[str, int], np.ndarray]) -> None:
    keys = [("revised", 3), ("revised", 2), ("classic", 3), ("classic", 2)]
    pool = np.concatenate([positions[k] for k in keys])
    states = [st for st in pool if S.can_bet(st, st[L.S_TO_ACT])][:40]
    assert len(states) >= 30
    search, never = compiled("mcts:iters=20"), compiled("mcts:iters=20,bets=never")
    n_search = sum(act(search, st, i) >> L.TYPE_SHIFT == L.T_BET for i, st in enumerate(states))
    n_never = sum(act(never, st, i) >> L.TYPE_SHIFT == L.T_BET for i, st in enumerate(states))
    assert n_never == 0 and n_search >= 3


# --- 8. the strategies command ----------------------------------------------------------------


def test_cli_lists_builtin_strategies_and_their_parameters() -> None:
    res = CliRunner().invoke(app, ["strategies"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    blocks: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line and not line[0].isspace():
            blocks[line.split(":")[0]] = []
        elif line.strip():
            blocks[list(blocks)[-1]].append(line.strip())
    expected = {
        "random": ["bet"],
        "greedy": [],
        "heuristic": ["bet", "big", "baby", "bomb", "bomb_out", "bomb_give", "wild"],
        "mcts": ["iters", "c", "rollout", "ms", "value", "bets"],
    }
    for name, params in expected.items():
        assert name in blocks, f"{name} not listed:\n{out}"
        listed = [line.split("=")[0] for line in blocks[name]]
        assert set(params) <= set(listed), (name, listed)
        cls = strategies.known()[name]
        assert listed == [p.name for p in cls.params] or (not cls.params and blocks[name])
        for p in cls.params:
            assert any(line.startswith(f"{p.name}={p.default}") for line in blocks[name])
    assert "early|late|never" in out and "random|greedy" in out
