"""Whole games between compiled strategies at full speed, for stage 2 and the checks.

:func:`play_games` plays a batch of games wholly in compiled code, each through the
runner's own game loop (:func:`haggis_sim.runner.chunk.play_one_game`) without logs.
:func:`schedule` lays out which deal, rules and line-up each game of an evaluation
plays, from (seed, tag, round, unit) alone, so an evaluation does not depend on how its
games are split over processes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim._cache import njit
from haggis_sim.kernel import record as R
from haggis_sim.runner.chunk import play_one_game
from strategies import kernels, make
from strategies.learned_features import N_FEATURES
from strategies.learned_model import param_row

L = K.layout
WIDTH = 1 + 2 * N_FEATURES  # a learned model's parameter array; every row is padded to it


@njit(cache=True)
def play_games(
    rules: np.ndarray,
    sids: np.ndarray,
    params: np.ndarray,
    entries: np.ndarray,
    words: np.ndarray,
    out: np.ndarray,
) -> None:
    """Play game ``g`` of ``rules[g]`` (one rules array per row) with strategy entry
    ``entries[g, seat]`` in each seat (kernel ``sids[e]``, parameters ``params[e]``),
    deal seed ``words[g, 0]`` and seat streams from ``words[g, 1 + seat]``; write the
    winner and the three final scores (-1: no such seat) to ``out[g]``."""
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    every_kernel = np.zeros(0, dtype=np.int64)  # kernels.dispatcher_tag of them all
    rngs = np.empty((3, 1), dtype=np.uint64)
    moves = np.empty((1, R.N_MOVE_COLUMNS), dtype=np.int64)  # no logs: never written
    rounds = np.empty((1, R.N_ROUND_COLUMNS), dtype=np.int64)
    cursor = np.zeros(R.N_CURSOR, dtype=np.int64)
    for g in range(rules.shape[0]):
        st = K.init_state(rules[g])
        n = rules[g, L.R_PLAYERS]
        for s in range(n):
            rngs[s, 0] = K.new_stream(words[g, 1 + s])[0]
        play_one_game(st, words[g, 0], rngs, sids, params, entries[g], 0, False, False,
                      moves, rounds, cursor, buf, every_kernel)  # fmt: skip
        out[g, 0] = st[L.S_WINNER]
        for s in range(3):
            out[g, 1 + s] = st[L.S_SCORE + s] if s < n else -1


def spec_row(spec: str) -> tuple[int, np.ndarray]:
    """A compiled strategy's kernel id and its parameter array padded to :data:`WIDTH`
    (at least)."""
    strat = make(spec)
    sid = getattr(strat, "compiled_id", None)
    if sid is None:
        raise ValueError(f"{spec!r} is not a compiled strategy")
    p = strat.param_array()
    row = np.zeros(max(WIDTH, len(p)))
    row[: len(p)] = p
    return int(sid), row


def param_table(rows: list[np.ndarray]) -> np.ndarray:
    """Parameter arrays as :func:`play_games`' table: row ``e`` is entry ``e``'s, padded
    with zeros to the longest."""
    table = np.zeros((len(rows), max(len(r) for r in rows)))
    for i, r in enumerate(rows):
        table[i, : len(r)] = r
    return table


def weights_row(weights: np.ndarray) -> np.ndarray:
    """The learned kernel's parameter array for ``weights`` (shape (features,): the same
    weights for 2 and 3 players; or (2, features))."""
    return param_row(weights)


@dataclass(frozen=True)
class Schedule:
    """The games of one evaluation: the candidate is entry 0, opponent ``k`` entry 1 + k.

    Unit ``u`` is one deal of rules ``rules[u]`` against opponent ``opponent[u]``, played
    once per seat of the candidate (rotated seats: seat luck cancels within the unit).
    """

    rules: np.ndarray  # (games, N_RULES)
    entries: np.ndarray  # (games, 3)
    words: np.ndarray  # (games, 4) deal seed, three seat stream seeds
    opponent: np.ndarray  # (games,) opponent index
    seat: np.ndarray  # (games,) the candidate's seat
    scale: np.ndarray  # (games,) points that normalise a score margin

    def __len__(self) -> int:
        return len(self.seat)

    def part(self, rows: slice) -> Schedule:
        return Schedule(self.rules[rows], self.entries[rows], self.words[rows],
                        self.opponent[rows], self.seat[rows], self.scale[rows])  # fmt: skip


def schedule(
    seed: int,
    key: tuple[int, ...],
    games: int,
    n_opponents: int,
    combos: list[tuple[str, int]],
) -> Schedule:
    """At least ``games`` games in whole units: unit ``u`` plays ``combos[u % len]`` against
    opponent ``u % n_opponents`` on the deal of ``SeedSequence([seed, *key, u])``."""
    arrays = {c: hs.Rules.preset(c[0], players=c[1]).to_array() for c in combos}
    rules: list[np.ndarray] = []
    words: list[np.ndarray] = []
    entries: list[list[int]] = []
    opponent: list[int] = []
    seat: list[int] = []
    scale: list[float] = []
    u = 0
    while len(seat) < games:
        name, players = combos[u % len(combos)]
        opp = u % n_opponents
        w = np.random.SeedSequence([seed & (2**64 - 1), *key, u]).generate_state(4, np.uint64)
        ra = arrays[(name, players)]
        target = float(ra[L.R_END_VALUE]) if ra[L.R_GAME_END] != L.GE_ROUNDS else 100.0
        for c in range(players):
            rules.append(ra)
            row = [1 + opp if s != c else 0 for s in range(players)] + [-1] * (3 - players)
            entries.append(row)
            words.append(w.astype(np.int64))
            opponent.append(opp)
            seat.append(c)
            scale.append(max(target, 1.0))
        u += 1
    return Schedule(np.array(rules, dtype=np.int64), np.array(entries, dtype=np.int64),
                    np.array(words, dtype=np.int64), np.array(opponent, dtype=np.int64),
                    np.array(seat, dtype=np.int64), np.array(scale))  # fmt: skip


def outcomes(
    sched: Schedule, candidate: np.ndarray, opponents: list[tuple[int, np.ndarray]]
) -> np.ndarray:
    """Play ``sched`` with the learned ``candidate`` weights as entry 0: per game, the
    candidate's win (0/1) and its score margin over the best opponent seat (points)."""
    return outcomes_of(sched, weights_row(candidate), opponents)


def outcomes_of(
    sched: Schedule, params: np.ndarray, opponents: list[tuple[int, np.ndarray]]
) -> np.ndarray:
    """:func:`outcomes` for a learned model given as its kernel parameter array (any
    model, a hidden layer included; :meth:`strategies.learned_model.LearnedModel.param_array`)."""
    sids = np.array([kernels.LEARNED_ID] + [sid for sid, _ in opponents], dtype=np.int64)
    table = param_table([params] + [row for _, row in opponents])
    out = np.empty((len(sched), 4), dtype=np.int64)
    play_games(sched.rules, sids, table, sched.entries, sched.words, out)
    rows = np.arange(len(sched))
    mine = out[rows, 1 + sched.seat]
    others = out[:, 1:].astype(np.float64)
    others[rows, sched.seat] = -np.inf
    others[sched.entries < 0] = -np.inf  # seats a 2-player game does not have
    margin = mine - others.max(axis=1)
    win = (out[:, 0] == sched.seat).astype(np.float64)
    return np.column_stack([win, margin])
