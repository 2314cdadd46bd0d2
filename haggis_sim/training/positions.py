"""Stage 1's data: self-play positions of a teacher (see :mod:`haggis_sim.training.train`).

Game ``g`` of a training run is fixed by the seed and ``g`` alone (its rules, line-up,
deal and every seat's stream), so the data does not depend on how many processes made
it. At every decision of a teacher seat with two or more legal actions it records the
features of the legal actions, which one the teacher chose, the target the fit imitates
(the search's root visit shares where it searched, else the chosen action) and the
default heuristic's choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.outputs import write_file_atomically
from haggis_sim.presets import PRESETS
from haggis_sim.selfplay import play_out
from strategies import CompiledStrategy, StrategyError, is_compiled, ismcts, kernels, make
from strategies.builtin import ROLLOUT_MCTS
from strategies.learned_features import FEATURES, decision_features

from .split import holdout_mask, is_holdout
from .tasks import in_order
from .value_rows import ValueRecorder, ValueRows

TRAIN_ALTERNATIVES = 24  # actions kept per training decision (chosen and visited included)
OPPONENTS = ("teacher", "heuristic", "greedy")
#: the search that teaches by default, the teacher of the shipped third generation: the
#: rollout mcts search (gen2 as prior, rollouts), pinned by its full spec so neither a new
#: default search nor a new default model changes it. gen1 was
#: taught by "mcts:iters=200,prior=none" (today: with value=game).
DEFAULT_TEACHER = ROLLOUT_MCTS
BATCH = 4  # games per worker task


def combos() -> list[tuple[str, int]]:
    """Every (preset, players) pair the rules allow, in the order of the presets."""
    out = []
    for name in PRESETS:
        for players in (2, 3):
            try:
                hs.Rules.preset(name, players=players)
            except ValueError:
                continue
            out.append((name, players))
    return out


@dataclass
class Positions:
    """Recorded decisions: one row per kept legal action."""

    features: np.ndarray  # (rows, N_FEATURES) float32
    decision: np.ndarray  # (rows,) int64, contiguous per decision, increasing
    chosen: np.ndarray  # (rows,) bool: the teacher's choice
    target: np.ndarray  # (rows,) float32: share of the search's root visits (sums to 1)
    heuristic: np.ndarray  # (rows,) bool: the default heuristic's choice
    game: np.ndarray  # (rows,) int64
    preset: list[str] = field(default_factory=list)  # per row
    players: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    values: ValueRows | None = None  # every seat's value rows (generate(values=True))

    @property
    def holdout(self) -> np.ndarray:
        return holdout_mask(self.game)


def _index(buf: np.ndarray, n: int, action: int) -> int:
    hits = np.flatnonzero(buf[:n] == action)
    return int(hits[0]) if hits.size else -1


class _Recorder:
    """The decisions of one training game's teacher seats, as the module doc says."""

    def __init__(self, teach: CompiledStrategy, holdout: bool, pick: np.random.Generator) -> None:
        self.heur_params = make("heuristic").param_array()
        # the root's children and visits of one search (read only for mcts teachers)
        self.root_moves, self.root_visits = ismcts.root_buffers(teach.param_array())
        self.holdout = holdout
        self.pick = pick
        self.legal = np.empty(K.MAX_MOVES, dtype=np.int64)
        self.buf = np.empty(K.MAX_MOVES, dtype=np.int64)
        self.rows: dict[str, list[np.ndarray]] = {
            "features": [], "chosen": [], "target": [], "heuristic": []
        }  # fmt: skip

    def decide(self, sid: int, obs: np.ndarray, params: np.ndarray, stream: np.ndarray) -> int:
        """A teacher seat's action; records its decision (and visits, for mcts)."""
        n_root = 0
        if sid == kernels.MCTS_ID:
            a_, n_ = ismcts.mcts_decide(obs, params, stream, self.buf, self.root_moves,
                                        self.root_visits)  # fmt: skip
            a, n_root = int(a_), int(n_)
        else:
            a = int(kernels.act(sid, obs, params, stream, self.buf))
        self.record(obs, a, n_root)
        return a

    def record(self, obs: np.ndarray, a: int, n_root: int) -> None:
        """Keep the decision at ``obs`` where the teacher chose ``a`` (``n_root`` root
        children searched; 0: none), unless it had one legal action."""
        legal = self.legal
        n = int(K.legal_actions(obs, legal, True))
        ci = _index(legal, n, a)
        if n < 2 or ci < 0:
            return
        h = int(kernels.act(kernels.HEURISTIC_ID, obs, self.heur_params, K.new_stream(0),
                            self.buf))  # fmt: skip
        hi = _index(legal, n, h)
        f = decision_features(obs, legal, n)
        y = np.zeros(n)
        if n_root > 0:
            for m, v in zip(self.root_moves[:n_root], self.root_visits[:n_root], strict=True):
                y[_index(legal, n, int(m))] += v
            y /= y.sum()
        else:
            y[ci] = 1.0
        keep = np.arange(n)
        if not self.holdout and n > TRAIN_ALTERNATIVES:
            must = (y > 0) | (keep == ci)
            others = keep[~must]
            room = max(0, TRAIN_ALTERNATIVES - int(must.sum()))
            extra = self.pick.choice(others, min(room, others.size), replace=False)
            keep = np.sort(np.concatenate((keep[must], extra)))
        self.rows["features"].append(f[keep].astype(np.float32))
        self.rows["chosen"].append(keep == ci)
        self.rows["target"].append(y[keep].astype(np.float32))
        self.rows["heuristic"].append(keep == hi)


def play_game(g: int, seed: int, teacher: str, values: bool = False) -> dict[str, Any]:
    """Play training game ``g`` and return its recorded decisions (see the module doc);
    with ``values``, also every seat's value rows (:mod:`~haggis_sim.training.value_rows`)
    under ``"values"``: recording them draws nothing, so the game is the same."""
    pairs = combos()
    preset, players = pairs[g % len(pairs)]
    lineup = OPPONENTS[(g // len(pairs)) % len(OPPONENTS)]
    ss = np.random.SeedSequence([seed & (2**64 - 1), g])
    words = ss.generate_state(6, np.uint64).astype(np.int64)
    teach = make(teacher)
    other = teach if lineup == "teacher" else make(lineup)
    assert isinstance(teach, CompiledStrategy) and teach.compiled_id is not None
    assert isinstance(other, CompiledStrategy) and other.compiled_id is not None
    teacher_seat = g % players
    seats = [teach if s == teacher_seat or lineup == "teacher" else other for s in range(players)]
    params = [s.param_array() for s in seats]
    rec = _Recorder(teach, is_holdout(g), np.random.default_rng(ss.spawn(1)[0]))
    streams = [K.new_stream(words[1 + s]) for s in range(players)]
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    value_rec = ValueRecorder(g, players) if values else None

    def choose(seat: int, obs: np.ndarray) -> int:
        sid = seats[seat].compiled_id
        assert sid is not None
        if value_rec is not None:
            value_rec.decision(seat, obs)
        if seats[seat] is teach:
            return rec.decide(sid, obs, params[seat], streams[seat])
        return int(kernels.act(sid, obs, params[seat], streams[seat], buf))

    rules = hs.Rules.preset(preset, players=players).to_array()
    play_out(rules, words[0], choose, value_rec.round_over if value_rec is not None else None)
    out = {"game": g, "preset": preset, "players": players, **rec.rows}
    if value_rec is not None:
        out["values"] = value_rec.rows()
    return out


def _batch(games: list[int], seed: int, teacher: str, values: bool) -> list[dict[str, Any]]:
    return [play_game(g, seed, teacher, values) for g in games]


def check_teacher(teacher: str) -> CompiledStrategy:
    """The compiled strategy ``teacher`` names; StrategyError unless it is one."""
    strat = make(teacher)
    if not is_compiled(strat) or not isinstance(strat, CompiledStrategy):
        raise StrategyError(f"--teacher must be a compiled strategy, got {teacher!r}")
    return strat


def generate(
    games: int,
    seed: int,
    teacher: str = DEFAULT_TEACHER,
    jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
    values: bool = False,
) -> Positions:
    """Play ``games`` training games (in ``jobs`` processes) and collect their decisions
    (with ``values``, also every seat's value rows of the same games, in ``.values``).

    The result does not depend on ``jobs``: each game is fixed by (seed, game number)
    and the games are put together in game order.
    """
    check_teacher(teacher)
    batches = [list(range(i, min(i + BATCH, games))) for i in range(0, games, BATCH)]
    results = in_order(_batch, [(b, seed, teacher, values) for b in batches], jobs)
    feats, dec, cho, tar, heu, gid, pre, pla = [], [], [], [], [], [], [], []
    value_parts: list[ValueRows] = []
    d = 0
    done = 0
    for batch in results:
        for rec in batch:
            for f, c, t, h in zip(rec["features"], rec["chosen"], rec["target"],
                                  rec["heuristic"], strict=True):  # fmt: skip
                feats.append(f)
                cho.append(c)
                tar.append(t)
                heu.append(h)
                dec.append(np.full(len(c), d, dtype=np.int64))
                gid.append(np.full(len(c), rec["game"], dtype=np.int64))
                pla.append(np.full(len(c), rec["players"], dtype=np.int64))
                pre.extend([rec["preset"]] * len(c))
                d += 1
            if values:
                value_parts.append(rec["values"])
            done += 1
        if on_progress:
            on_progress(done, games)
    if not feats:
        raise StrategyError("training recorded no decisions: play more games (--games)")
    return Positions(
        features=np.concatenate(feats),
        decision=np.concatenate(dec),
        chosen=np.concatenate(cho),
        target=np.concatenate(tar),
        heuristic=np.concatenate(heu),
        game=np.concatenate(gid),
        preset=pre,
        players=np.concatenate(pla),
        values=ValueRows.joined(value_parts) if values else None,
    )


def write_positions(pos: Positions, path: Path) -> None:
    """Write the positions as Parquet (one row per kept action, a column per feature)."""
    import polars as pl

    cols: dict[str, Any] = {
        "game": pos.game,
        "decision": pos.decision,
        "preset": pos.preset,
        "players": pos.players,
        "holdout": pos.holdout,
        "chosen": pos.chosen,
        "target": pos.target,
        "heuristic": pos.heuristic,
    }
    for j, name in enumerate(FEATURES):
        cols[f"f_{name}"] = pos.features[:, j]
    frame = pl.DataFrame(cols)
    write_file_atomically(path, frame.write_parquet, StrategyError, "--data")
