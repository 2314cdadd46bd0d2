"""Training the ``learned`` strategy: self-play positions of a teacher, then a fit.

Data. Game ``g`` of a training run (``g = 0 .. games - 1``) is fixed by the seed and
``g`` alone, so the data does not depend on how many processes made it: its rules are
the ``g``-th of every (preset, players) pair, its line-up cycles through teacher vs
teacher, teacher vs heuristic and teacher vs greedy (the teacher's seat rotating), and
its deal and every seat's stream come from ``SeedSequence([seed, g])``. At every
decision of a teacher seat with two or more legal actions it records the features
(:func:`~strategies.learned_features.decision_features`, computed from that seat's
observation only) of the legal actions, which one the teacher chose, and the target the
fit imitates: when the teacher is ``mcts`` and searched its play, the share of the
root's visits each legal action received (:func:`~strategies.ismcts.mcts_decide`, the
same decision and random draws as the strategy's own kernel); otherwise (bets, forced
actions, other teachers) the chosen action alone. ``--target chosen`` fits the chosen
action everywhere instead.

Split. Games with ``g % 5 == 4`` are held out (20%): their decisions keep every legal
action, so held-out accuracy is top-1 over the full choice. Training decisions keep
the chosen action, every action the search visited, and others drawn at random up to
:data:`TRAIN_ALTERNATIVES` in all (a lead from a full hand has thousands); for a
conditional logit, fitting on uniformly sampled choice sets estimates the same weights
(McFadden's sampling of alternatives; with visit shares as targets, the unvisited
actions are the sampled ones, an approximation of the same kind).

Fit. A conditional logit (softmax over each decision's actions) with L2 penalty,
minimising the cross-entropy to the targets (visit shares or the chosen action) by
scipy's L-BFGS with the analytic gradient: deterministic for the data. By default the
score has a hidden layer of :data:`HIDDEN` tanh units (:func:`fit_hidden`, its starting
weights drawn from the seed): a linear score imitates the search on about 75-80% of
held-out decisions and, tuned by stage 2, wins about 78% against the heuristic; 16 units
imitate 83.5% and win about 85% untuned (README, *Learned strategy*). Such a model is
then checked against the default heuristic on fresh deals (:func:`heldout_checks`).

Stage 2 (linear models, ``hidden=0``; :mod:`strategies.learned_improve`) then improves
the fitted weights by playing whole games against a pool of opponents, and checks the
result on fresh deals: first on every rule set of both player counts, then, from that
result, half as many iterations
again on the 2-player rule sets alone and on the 3-player ones alone, so the model holds
one row of weights per player count (2- and 3-player Haggis reward different play; one
vector tuned on both served 2 players well and 3 players worse, and one tuned on 2
players alone from the imitation start did worse than the joint one: README, *Learned
strategy*). Each refinement is elitist: it keeps the joint weights unless it beats them
on its own final games.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.engine import state as S
from haggis_sim.presets import PRESETS

from . import ismcts, kernels
from .base import StrategyError
from .builtin import CompiledStrategy, is_compiled
from .learned_features import FEATURES, N_FEATURES, decision_features
from .learned_metrics import _groups, top1
from .learned_model import Hidden, param_row, per_player_count, save_model
from .registry import make

TRAIN_ALTERNATIVES = 24  # actions kept per training decision (chosen and visited included)
TARGETS = ("visits", "chosen")  # what the fit imitates (haggis-sim train --target)
HOLDOUT_EVERY = 5  # game g is held out when g % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
L2 = 1e-3
HIDDEN = 16  # hidden units of haggis-sim train's default model (0: linear, as gen1, gen2)
L2_HIDDEN = 1e-4
HIDDEN_MAXITER = 400
MAX_HIDDEN = 256
OPPONENTS = ("teacher", "heuristic", "greedy")
# The teacher of the shipped model: the default search, whose prior is pinned to the
# shipped second-generation model (``mcts:model=gen2``), so the teacher does not change
# when a new default model ships. gen1 was taught by "mcts:iters=200,prior=none".
DEFAULT_TEACHER = "mcts"
DEFAULT_GAMES = 2000  # haggis-sim train's default teacher games
BATCH = 4  # games per worker task
IMPROVE_ITERS = 60  # stage 2 iterations of the linear recipe (gen1, gen2: --hidden 0)
IMPROVE_GAMES = 600  # games per candidate per iteration
CHECK_GAMES = 2000  # held-out games vs the default heuristic at the end
PLAYER_COUNTS = (2, 3)  # stage 2 refines one row of weights per player count
CHECK_RULES = "revised"  # the held-out check's rules (haggis-sim run's default)


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


def is_holdout(g: int) -> bool:
    return g % HOLDOUT_EVERY == HOLDOUT_EVERY - 1


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

    @property
    def holdout(self) -> np.ndarray:
        return self.game % HOLDOUT_EVERY == HOLDOUT_EVERY - 1


def _index(buf: np.ndarray, n: int, action: int) -> int:
    hits = np.flatnonzero(buf[:n] == action)
    return int(hits[0]) if hits.size else -1


def play_game(g: int, seed: int, teacher: str) -> dict[str, Any]:
    """Play training game ``g`` and return its recorded decisions (see the module doc)."""
    pairs = combos()
    preset, players = pairs[g % len(pairs)]
    lineup = OPPONENTS[(g // len(pairs)) % len(OPPONENTS)]
    ss = np.random.SeedSequence([seed & (2**64 - 1), g])
    words = ss.generate_state(6, np.uint64).astype(np.int64)
    pick = np.random.default_rng(ss.spawn(1)[0])
    teach = make(teacher)
    other = teach if lineup == "teacher" else make(lineup)
    heur = make("heuristic")
    assert isinstance(teach, CompiledStrategy) and teach.compiled_id is not None
    assert isinstance(other, CompiledStrategy) and other.compiled_id is not None
    teacher_seat = g % players
    seats = [teach if s == teacher_seat or lineup == "teacher" else other for s in range(players)]
    records = [s is teach for s in seats]
    params = [s.param_array() for s in seats]
    heur_params = heur.param_array()
    # the root's children and visits of one search (read only for mcts teachers)
    root_moves, root_visits = ismcts.root_buffers(teach.param_array())
    streams = [K.new_stream(words[1 + s]) for s in range(players)]
    st = S.init_state(hs.Rules.preset(preset, players=players).to_array())
    S.start_game(st, words[0])
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    legal = np.empty(K.MAX_MOVES, dtype=np.int64)
    feats: list[np.ndarray] = []
    chosen: list[np.ndarray] = []
    target: list[np.ndarray] = []
    heuristic: list[np.ndarray] = []
    holdout = is_holdout(g)
    while True:
        over = False
        while st[K.S_PHASE] == K.PH_ROUND_OVER:
            if S.next_round(st):
                over = True
                break
        if over:
            break
        seat = int(st[K.S_TO_ACT])
        obs = K.observe(st, seat)
        sid = seats[seat].compiled_id
        assert sid is not None
        n_root = 0
        if records[seat] and sid == kernels.MCTS_ID:
            a_, n_ = ismcts.mcts_decide(obs, params[seat], streams[seat], buf, root_moves,
                                        root_visits)  # fmt: skip
            a, n_root = int(a_), int(n_)
        else:
            a = int(kernels.act(sid, obs, params[seat], streams[seat], buf))
        if records[seat]:
            n = int(K.legal_actions(obs, legal, True))
            ci = _index(legal, n, a)
            if n >= 2 and ci >= 0:
                h = int(kernels.act(kernels.HEURISTIC_ID, obs, heur_params, K.new_stream(0), buf))
                hi = _index(legal, n, h)
                f = decision_features(obs, legal, n)
                y = np.zeros(n)
                if n_root > 0:
                    for m, v in zip(root_moves[:n_root], root_visits[:n_root], strict=True):
                        y[_index(legal, n, int(m))] += v
                    y /= y.sum()
                else:
                    y[ci] = 1.0
                keep = np.arange(n)
                if not holdout and n > TRAIN_ALTERNATIVES:
                    must = (y > 0) | (keep == ci)
                    others = keep[~must]
                    room = max(0, TRAIN_ALTERNATIVES - int(must.sum()))
                    extra = pick.choice(others, min(room, others.size), replace=False)
                    keep = np.sort(np.concatenate((keep[must], extra)))
                feats.append(f[keep].astype(np.float32))
                chosen.append(keep == ci)
                target.append(y[keep].astype(np.float32))
                heuristic.append(keep == hi)
        K.apply_action(st, np.int64(a))
    return {
        "game": g,
        "preset": preset,
        "players": players,
        "features": feats,
        "chosen": chosen,
        "target": target,
        "heuristic": heuristic,
    }


def _batch(games: list[int], seed: int, teacher: str) -> list[dict[str, Any]]:
    return [play_game(g, seed, teacher) for g in games]


def generate(
    games: int,
    seed: int,
    teacher: str = DEFAULT_TEACHER,
    jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
) -> Positions:
    """Play ``games`` training games (in ``jobs`` processes) and collect their decisions.

    The result does not depend on ``jobs``: each game is fixed by (seed, game number)
    and the games are put together in game order.
    """
    check_teacher(teacher)
    batches = [list(range(i, min(i + BATCH, games))) for i in range(0, games, BATCH)]
    results: Iterator[list[dict[str, Any]]]
    if jobs == 1:
        results = (_batch(b, seed, teacher) for b in batches)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs, return_as="generator")(
            delayed(_batch)(b, seed, teacher) for b in batches
        )
    feats, dec, cho, tar, heu, gid, pre, pla = [], [], [], [], [], [], [], []
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
    )


def check_improve(iters: int, games: int, check_games: int) -> None:
    """StrategyError for stage 2 settings that cannot run."""
    if iters < 0:
        raise StrategyError(f"--improve-iters must be 0 or more, got {iters}")
    if iters > 0 and games < 1:
        raise StrategyError(f"--improve-games must be 1 or more, got {games}")
    if iters > 0 and check_games < 2:
        raise StrategyError(f"--check-games must be 2 or more, got {check_games}")


def refine_seed(seed: int, players: int) -> int:
    """The seed of the stage 2 refinement for ``players`` (its own games, apart from the
    first stage 2's)."""
    return int(np.random.SeedSequence([seed & (2**64 - 1), players]).generate_state(1)[0] >> 1)


def check_hidden(hidden: int, improve_iters: int) -> None:
    """StrategyError for a hidden width that cannot be trained."""
    if not 0 <= hidden <= MAX_HIDDEN:
        raise StrategyError(f"--hidden must be 0 to {MAX_HIDDEN}, got {hidden}")
    if hidden > 0 and improve_iters > 0:
        raise StrategyError(
            f"stage 2 (--improve-iters {improve_iters}) tunes linear models only: use "
            "--hidden 0 with it, or --improve-iters 0 with --hidden"
        )


def check_target(target: str) -> None:
    """StrategyError unless ``target`` is one of :data:`TARGETS`."""
    if target not in TARGETS:
        raise StrategyError(f"--target must be one of {', '.join(TARGETS)}, got {target!r}")


def check_teacher(teacher: str) -> None:
    """StrategyError unless ``teacher`` names a compiled strategy."""
    strat = make(teacher)
    if not is_compiled(strat):
        raise StrategyError(f"--teacher must be a compiled strategy, got {teacher!r}")


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
    tmp = path.with_name(f".{path.name}.tmp")
    pl.DataFrame(cols).write_parquet(tmp)
    tmp.replace(path)


def fit(
    x: np.ndarray, decision: np.ndarray, target: np.ndarray, l2: float = L2
) -> tuple[np.ndarray, dict[str, Any]]:
    """Weights of a conditional logit over each decision's rows, with L2 penalty ``l2``.

    ``target`` holds each row's share of its decision (summing to 1 per decision: the
    search's visit shares, or 1 on the chosen row). Loss: mean over decisions of the
    cross-entropy -sum target x log softmax + l2/2 |w|^2, minimised by L-BFGS-B with its
    analytic gradient from zero weights.
    """
    from scipy.optimize import minimize

    x = np.ascontiguousarray(x, dtype=np.float64)
    starts, idx = _groups(decision)
    n_dec = len(starts)
    y = target.astype(np.float64)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = x @ w
        m = np.maximum.reduceat(s, starts)
        e = np.exp(s - m[idx])
        z = np.add.reduceat(e, starts)
        ll = float(np.sum(s * y) - np.sum(m) - np.sum(np.log(z)))
        p = e / z[idx]
        grad = x.T @ (p - y) / n_dec + l2 * w
        return -ll / n_dec + 0.5 * l2 * float(w @ w), grad

    res = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B",
                   options={"maxiter": 500})  # fmt: skip
    return res.x, {"loss": float(res.fun), "iterations": int(res.nit), "converged": res.success}


def fit_hidden(
    x: np.ndarray,
    decision: np.ndarray,
    target: np.ndarray,
    players: np.ndarray,
    units: int,
    seed: int,
    l2: float = L2_HIDDEN,
    maxiter: int = HIDDEN_MAXITER,
) -> tuple[np.ndarray, Hidden, dict[str, Any]]:
    """A conditional logit whose score adds a hidden layer of ``units`` tanh units to the
    linear term, fitted like :func:`fit` (cross-entropy to the targets, L2 penalty ``l2``
    on every weight, L-BFGS-B with the analytic gradient) from small random weights drawn
    from ``seed``.

    The two player counts share one network whose inputs are the features and the
    features times "3 players" (so each count's weights are the shared ones plus a 3-player
    difference); the result is returned per player count, as the kernel reads it: linear
    weights (2, features) and :class:`~strategies.learned_model.Hidden`.
    """
    from scipy.optimize import minimize

    nf = x.shape[1]
    is3 = (players == 3).astype(np.float64)[:, None]
    xa = np.ascontiguousarray(np.hstack((x, x * is3)), dtype=np.float64)
    d = xa.shape[1]
    starts, idx = _groups(decision)
    n_dec = len(starts)
    y = target.astype(np.float64)

    def unpack(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        k = d * units
        return (p[:k].reshape(d, units), p[k : k + units], p[k + units : k + 2 * units],
                p[k + 2 * units :])  # fmt: skip

    def loss(p: np.ndarray) -> tuple[float, np.ndarray]:
        w_in, b, v, u = unpack(p)
        h = np.tanh(xa @ w_in + b)
        s = h @ v + xa @ u
        m = np.maximum.reduceat(s, starts)
        e = np.exp(s - m[idx])
        z = np.add.reduceat(e, starts)
        ll = float(np.sum(s * y) - np.sum(m) - np.sum(np.log(z)))
        g = (e / z[idx] - y) / n_dec  # d loss / d score
        ga = (g[:, None] * v[None, :]) * (1.0 - h * h)
        grad = np.concatenate(((xa.T @ ga).ravel(), ga.sum(axis=0), h.T @ g, xa.T @ g))
        return -ll / n_dec + 0.5 * l2 * float(p @ p), grad + l2 * p

    rng = np.random.default_rng([seed & (2**64 - 1), 21])
    p0 = np.concatenate((0.1 * rng.standard_normal(d * units), np.zeros(units),
                         0.1 * rng.standard_normal(units), np.zeros(d)))  # fmt: skip
    res = minimize(loss, p0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
    w_in, b, v, u = unpack(res.x)
    linear = np.vstack((u[:nf], u[:nf] + u[nf:]))
    hidden = Hidden(
        weights=np.stack((w_in[:nf], w_in[:nf] + w_in[nf:])),
        bias=np.vstack((b, b)),
        output=np.vstack((v, v)),
    )
    info = {"loss": float(res.fun), "iterations": int(res.nit), "converged": bool(res.success),
            "hidden_units": units, "l2": l2, "init_seed": [seed, 21]}  # fmt: skip
    return linear, hidden, info


def hidden_scores(
    x: np.ndarray, players: np.ndarray, linear: np.ndarray, hidden: Hidden
) -> np.ndarray:
    """Each row's score under a model with a hidden layer (the kernel's formula, in numpy)."""
    out = np.zeros(len(x))
    for r, n in enumerate(PLAYER_COUNTS):
        rows = players == n
        xr = x[rows].astype(np.float64)
        act = np.tanh(xr @ hidden.weights[r] + hidden.bias[r])
        out[rows] = xr @ linear[r] + act @ hidden.output[r]
    return out


def heldout_checks(params: np.ndarray, seed: int, games: int) -> dict[str, Any]:
    """The model's win rate against the default heuristic on fresh deals of
    :data:`CHECK_RULES`, 2 players and 3 (one model against two heuristics), rotated
    seats: ``games`` games each, fixed by the seed (games apart from training's)."""
    from .learned_improve import TAG_CHECK, check_summary
    from .learned_play import outcomes_of, schedule, spec_row

    out: dict[str, Any] = {}
    for players in PLAYER_COUNTS:
        sched = schedule(refine_seed(seed, players), (TAG_CHECK,), games, 1,
                         [(CHECK_RULES, players)])  # fmt: skip
        wins = int(outcomes_of(sched, params, [spec_row("heuristic")])[:, 0].sum())
        out[str(players)] = check_summary(wins, len(sched), (CHECK_RULES, players))
    return out


def flagged_share(decision: np.ndarray, chosen: np.ndarray, flag: np.ndarray) -> float:
    """Share of decisions where the flagged row is the chosen one."""
    return float(np.sum(chosen & flag) / len(np.unique(decision)))


def git_commit() -> str | None:
    """The repository's HEAD commit when the package runs from a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


@dataclass
class TrainResult:
    weights: np.ndarray  # (2, features): 2 players, 3 players
    provenance: dict[str, Any]
    hidden: Hidden | None = None


def train(
    pos: Positions,
    *,
    seed: int,
    games: int,
    teacher: str,
    command: str,
    target: str = "visits",
    improve_iters: int = 0,
    improve_games: int = IMPROVE_GAMES,
    check_games: int = CHECK_GAMES,
    jobs: int = 1,
    on_improve: Callable[[int, int, str], None] | None = None,
    hidden: int = HIDDEN,
) -> TrainResult:
    """Fit on the training games, measure on the held-out ones (stage 1); then, unless
    ``improve_iters`` is 0, improve the weights by play (stage 2). Weights and provenance.

    ``target`` (:data:`TARGETS`): ``visits`` fits the search's visit shares where it
    searched, ``chosen`` the chosen action everywhere. ``hidden`` > 0 fits a model with
    that many hidden units (:func:`fit_hidden`); stage 2 tunes linear models only."""
    check_target(target)
    check_hidden(hidden, improve_iters)
    t0 = time.monotonic()
    hold = pos.holdout
    train_rows = ~hold
    if not train_rows.any() or not hold.any():
        raise StrategyError(
            f"training needs games in both the train and held-out split: use --games >= "
            f"{HOLDOUT_EVERY}"
        )
    y = pos.target if target == "visits" else pos.chosen.astype(np.float32)
    x_test = pos.features[hold].astype(np.float64)
    layer: Hidden | None = None
    if hidden > 0:
        linear, layer, info = fit_hidden(
            pos.features[train_rows], pos.decision[train_rows], y[train_rows],
            pos.players[train_rows], hidden, seed,
        )  # fmt: skip
        test_scores = hidden_scores(x_test, pos.players[hold], linear, layer)
        weights = linear
    else:
        w, info = fit(pos.features[train_rows], pos.decision[train_rows], y[train_rows])
        test_scores = x_test @ w
        weights = per_player_count(w)
    acc = top1(test_scores, pos.decision[hold], pos.chosen[hold])
    base = flagged_share(pos.decision[hold], pos.chosen[hold], pos.heuristic[hold])
    n_test = len(np.unique(pos.decision[hold]))
    n_train = len(np.unique(pos.decision[train_rows]))
    pairs = combos()
    stage1_seconds = round(time.monotonic() - t0, 1)
    checks: dict[str, Any] | None = None
    if layer is not None:
        checks = heldout_checks(param_row(linear, layer), seed, check_games)
    stage2: dict[str, Any] | None = None
    if improve_iters > 0:  # a linear fit (check_hidden): its one row serves both counts
        from .learned_improve import follow_heuristic, improve

        w = weights[0]
        x_hold = pos.features[hold].astype(np.float64)
        starts = {
            "imitation": w,
            "imitation + heuristic_choice": follow_heuristic(
                w, x_hold, pos.decision[hold], pos.heuristic[hold]
            ),
        }
        refine_iters = max(1, improve_iters // 2)
        phases = [("both", None, improve_iters, seed)] + [
            (str(n), n, refine_iters, refine_seed(seed, n)) for n in PLAYER_COUNTS
        ]
        steps = [it + 3 for _, _, it, _ in phases]
        stage2 = {}
        rows = []
        joint = w
        for k, (name, players, iters, phase_seed) in enumerate(phases):

            def progress(done: int, total: int, msg: str, k: int = k, name: str = name) -> None:
                if on_improve:
                    on_improve(sum(steps[:k]) + done, sum(steps), f"{name}: {msg}")

            # first both player counts from the two starts, then each count from that result
            result = improve(
                starts if players is None else {"both": joint},
                seed=phase_seed, iters=iters, games=improve_games, check_games=check_games,
                jobs=jobs, on_progress=progress,
                combos=pairs if players is None else [c for c in pairs if c[1] == players],
                check_preset=(CHECK_RULES, players or 2),
            )  # fmt: skip
            mine = pos.players[hold] == players if players else np.ones(len(x_hold), bool)
            result.info["holdout_top1_vs_teacher"] = round(top1(
                x_hold[mine] @ result.weights, pos.decision[hold][mine],
                pos.chosen[hold][mine]), 4) if mine.any() else None  # fmt: skip
            stage2[name] = result.info
            if players is None:
                joint = result.weights
            else:
                rows.append(result.weights)
        weights = np.vstack(rows)
    provenance = {
        "command": command,
        "seed": seed,
        "games": games,
        "teacher": make(teacher).spec,
        "opponents": list(OPPONENTS),
        "presets": sorted({p for p, _ in pairs}),
        "players": sorted({n for _, n in pairs}),
        "split": f"game g held out when g % {HOLDOUT_EVERY} == {HOLDOUT_EVERY - 1}",
        "train_decisions": n_train,
        "holdout_decisions": n_test,
        "train_alternatives": TRAIN_ALTERNATIVES,
        "target": target,
        "hidden_units": hidden,
        "l2": L2_HIDDEN if hidden else L2,
        "fit": info,
        "holdout_top1_vs_teacher": round(acc, 4),
        "heuristic_top1_vs_teacher": round(base, 4),
        "stage1_fit_seconds": stage1_seconds,
        "stage2": stage2,
        "heldout_vs_heuristic": checks,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_commit": git_commit(),
        "haggis_sim_version": hs.__version__,
    }
    return TrainResult(weights, provenance, layer)


def run_training(
    out: Path,
    *,
    games: int,
    seed: int,
    teacher: str = DEFAULT_TEACHER,
    target: str = "visits",
    jobs: int = 1,
    force: bool = False,
    data: Path | None = None,
    command: str = "",
    on_progress: Callable[[int, int], None] | None = None,
    improve_iters: int = 0,
    improve_games: int = IMPROVE_GAMES,
    check_games: int = CHECK_GAMES,
    on_improve: Callable[[int, int, str], None] | None = None,
    hidden: int = HIDDEN,
) -> TrainResult:
    """Generate, fit, improve (stage 2, ``improve_iters`` > 0) and write the model to
    ``out`` (and the positions to ``data``).

    Refuses up front (StrategyError) an existing ``out`` or ``data`` without ``force``,
    so hours of self-play are never thrown away at the end.
    """
    for path in (out, data):
        if path is not None and path.exists() and not force:
            raise StrategyError(f"{path} exists; pass --force to overwrite it")
        if path is not None and not path.parent.is_dir():
            raise StrategyError(f"folder {path.parent} does not exist")
    if games < HOLDOUT_EVERY:
        raise StrategyError(f"--games must be at least {HOLDOUT_EVERY} (one held-out game)")
    check_improve(improve_iters, improve_games, check_games)
    check_hidden(hidden, improve_iters)
    check_teacher(teacher)
    check_target(target)
    t0 = time.monotonic()
    pos = generate(games, seed, teacher, jobs, on_progress)
    seconds = round(time.monotonic() - t0, 1)
    if data is not None:
        write_positions(pos, data)
    result = train(pos, seed=seed, games=games, teacher=teacher, command=command, target=target,
                   improve_iters=improve_iters, improve_games=improve_games,
                   check_games=check_games, jobs=jobs, on_improve=on_improve,
                   hidden=hidden)  # fmt: skip
    result.provenance["stage1_play_seconds"] = seconds
    save_model(out, result.weights, result.provenance, force=force, hidden=result.hidden)
    return result


def describe(provenance: dict[str, Any]) -> str:
    """One line of a model's provenance for ``haggis-sim strategies``."""
    keys = ("games", "seed", "teacher", "target", "hidden_units", "holdout_top1_vs_teacher",
            "heuristic_top1_vs_teacher", "date", "git_commit")  # fmt: skip
    out = {k: provenance.get(k) for k in keys}
    stage2 = provenance.get("stage2")
    if isinstance(stage2, dict):
        for players, info in stage2.items():
            if isinstance(info, dict) and players in ("2", "3"):
                check = info.get("heldout_vs_heuristic") or {}
                out[f"heldout_vs_heuristic_{players}p"] = check.get("win_rate")
        out["improve_iters"] = (stage2.get("both") or {}).get("iters")
    checks = provenance.get("heldout_vs_heuristic")  # a model with a hidden layer
    if isinstance(checks, dict):
        for players, check in checks.items():
            if isinstance(check, dict) and players in ("2", "3"):
                out[f"heldout_vs_heuristic_{players}p"] = check.get("win_rate")
    return json.dumps(out)


__all__ = [
    "N_FEATURES",
    "Positions",
    "TARGETS",
    "TrainResult",
    "combos",
    "describe",
    "fit",
    "generate",
    "play_game",
    "run_training",
    "top1",
    "train",
    "write_positions",
]
