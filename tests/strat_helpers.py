"""Helpers of the strategy tests: positions walked through many games, and what
tests/strategy/test_strategies.py must also compute in a fresh subprocess.

Run as a script (``python tests/strat_helpers.py POSITIONS.npz``) it prints, as JSON, the
actions the built-in strategies choose at the saved positions and a digest of a small
chunk played with a plain-Python strategy, so the test can compare them with the same
computations done in the pytest process.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable

import numpy as np

import haggis_sim as hs
import strategies
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.runner.chunk import play_chunk
from strategies import Strategy
from strategies.simple_kernels import random_act

#: ``decide(preset, game, state, observation, rng)``: sees a decision, returns an action
Decide = Callable[[str, int, np.ndarray, np.ndarray, np.ndarray], int]

# compiled strategies whose decisions are compared across processes and seeds
SEED_SPECS = (
    "random:bet=0.3",
    "greedy",
    "heuristic",
    "mcts:iters=15,rollout=random",
    "mcts:iters=15",
)


def walk_mixed_games(games: int, decide: Decide, random_bet: float) -> int:
    """Play games ``0 .. games - 1`` of every preset with 2 and 3 players (where the
    preset allows it), calling ``decide`` at every decision with the game's stream; odd
    games play the action it returns, even games a random one (a bet with probability
    ``random_bet``), so the decisions cover many shapes of hands and tricks. Returns how
    many decisions ``decide`` saw."""
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    bet = np.array([random_bet])
    seen = 0
    for preset in hs.PRESETS:
        for players in (2, 3):
            try:
                rules = hs.Rules.preset(preset, players=players).to_array()
            except ValueError:
                continue
            for g in range(games):
                st = S.init_state(rules)
                S.start_game(st, np.int64(g))
                rng = new_stream(np.int64(g))
                while True:
                    if st[L.S_PHASE] == L.PH_ROUND_OVER:
                        if S.next_round(st):
                            break
                        continue
                    obs = S.observe(st, int(st[L.S_TO_ACT]))
                    move = decide(preset, g, st, obs, rng)
                    seen += 1
                    if g % 2 == 0:
                        move = random_act(obs, bet, rng, buf)
                    S.apply_action(st, np.int64(move))
    return seen


class PyRandom(Strategy):
    """A plain-Python strategy: uniform over the legal actions, from the injected generator."""

    name = "test-pyrandom"
    description = "uniformly random legal action (tests)"

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        return legal[int(rng.integers(len(legal)))]


def decide(spec: str, positions: np.ndarray, seeds: list[int]) -> list[int]:
    """The action of ``spec`` at each position (a true state), each from its own seed."""
    strat = strategies.make(spec)
    assert isinstance(strat, strategies.CompiledStrategy)
    out = []
    for st, seed in zip(positions, seeds, strict=True):
        obs = S.observe(st, st[S.S_TO_ACT])
        out.append(strat.act_array(obs, new_stream(np.int64(seed))))
    return out


def chunk_digest(run_seed: int) -> str:
    """SHA-256 of the logs of a small 3-player chunk: plain Python vs a compiled MCTS."""
    rules = hs.Rules.preset("revised", players=3).to_array()
    logs = play_chunk(
        rules,
        [PyRandom(), strategies.make("mcts:iters=10"), strategies.make("random:bet=0.3")],
        np.arange(6),
        run_seed,
        "rotate",
    )
    h = hashlib.sha256()
    for m in (logs.moves, logs.rounds, logs.games):
        h.update(np.ascontiguousarray(m).tobytes())
    return h.hexdigest()


def report(positions: np.ndarray, seeds: list[int]) -> dict[str, object]:
    """Everything compared across processes."""
    return {
        "actions": {spec: decide(spec, positions, seeds) for spec in SEED_SPECS},
        "digest": chunk_digest(17),
    }


if __name__ == "__main__":
    data = np.load(sys.argv[1])
    print(json.dumps(report(data["positions"], [int(x) for x in data["seeds"]])))
