"""Games a settled answer needs: today's paired estimator against variance-reduced ones.

Run from the repository root over finished experiment folders (the arm runs must be
there, e.g. after ``haggis-sim experiment experiments/scoring-rules.toml --out
reports/scoring-rules``)::

    python benchmarks/bench_estimators.py --scoring reports/scoring-rules \
        --bombs reports/bomb-timing

For each question (scoring-rules: ``ahead_r1_win``, revised per-card minus old points;
bomb-timing: ``win_rate`` of the heuristic, bombing early minus late) and each of the
top two rungs, the games per arm that a ±1.5-point 95% interval needs, ``n · (h /
0.015)²`` from the half-width ``h`` seen at ``n`` games, under:

* ``paired`` — today's estimator: the mean of the per-game differences, clustered by
  deal (:func:`haggis_sim.analytics.compare.difference`);
* ``deal luck`` — the same, with AIVAT-style control variates for the luck of every
  later round's deal: per round, how far the deal's value for the reference seat (the
  leader after round 1, or the heuristic's seat) stands above its mean over random deals
  for the same leader and dealer, read off the shipped value network (``vgen1``) from the
  whole deal, times the round's score state; these have mean 0 whatever the play, so the
  estimate stays unbiased; coefficients cross-fitted on two halves of the deals;
* ``paired across rungs`` — the interaction (top rung minus the second) paired deal by
  deal, as both rungs play the same deals, instead of two independent estimates.

Coverage of the ``deal luck`` interval: 200 bootstrap replicates of a quarter of the
deals, each interval checked against the full sample's estimate (the truth of the
bootstrap world).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
from _results import add_out_option, recorded
from numba import njit

from haggis_sim.analytics.compare import _clustered, game_metrics
from haggis_sim.engine import layout as L
from haggis_sim.engine.rounds import deal, init_state, start_round
from haggis_sim.experiment.ladder import RATE_TOLERANCE
from haggis_sim.experiment.separation import Z95
from haggis_sim.logs.manifest import load_manifest
from haggis_sim.logs.query import run_files
from haggis_sim.stats import games_for_half_width
from strategies.learned_model import SHIPPED_VALUE_MODELS, load_value_model, model_path
from strategies.value_features import leaf_values, value_scratch

POOL = 20_000  # random deals per (leader, dealer) for the value's mean
REPLICATES = 200


@njit(cache=True)
def _deal_values(rules, seeds, games, rounds, leaders, dealers, vparams, out):  # pragma: no cover
    """The value network's share of the round for every seat at the start of each round."""
    st = init_state(rules)
    scratch = value_scratch(vparams)
    v = np.zeros(3)
    for i in range(len(games)):
        st[L.S_SEED] = seeds[games[i]]
        hands, haggis, _ = deal(st, rounds[i])
        start_round(st, hands, haggis, leaders[i], dealers[i])
        leaf_values(st, vparams, scratch, v)
        for s in range(3):
            out[i, s] = v[s]


@njit(cache=True)
def _pool_means(rules, vparams, n, players, out):  # pragma: no cover
    """Per (leader, dealer, seat) the value's mean over ``n`` random deals."""
    st = init_state(rules)
    scratch = value_scratch(vparams)
    v = np.zeros(3)
    for ld in range(players):
        for dl in range(players):
            for j in range(n):
                st[L.S_SEED] = 1_000_003 * j + 77 * ld + dl
                hands, haggis, _ = deal(st, 1)
                start_round(st, hands, haggis, ld, dl)
                leaf_values(st, vparams, scratch, v)
                for s in range(players):
                    out[ld, dl, s] += v[s] / n


@dataclass(frozen=True)
class Arm:
    """One arm run's per-game outcome ``y`` (NaN where the metric has no value), its
    deal-luck covariates ``z`` (games × k, mean 0 by construction) and deal ids."""

    y: np.ndarray
    z: np.ndarray
    deal: np.ndarray


def load_arm(folder: Path, metric: str, vparams: np.ndarray) -> Arm:
    manifest = load_manifest(folder)
    players = manifest.players
    frame = game_metrics(folder)
    column = metric if metric in frame.columns else f"{metric}_0"
    files = run_files(folder)
    con = duckdb.connect()
    try:
        rounds = con.sql(
            f"SELECT * FROM read_parquet({[str(f) for f in files['rounds']]}) "
            "ORDER BY game_id, round"
        ).pl()
        games = con.sql(
            f"SELECT * FROM read_parquet({[str(f) for f in files['games']]}) ORDER BY game_id"
        ).pl()
    finally:
        con.close()
    rules = manifest.rules.to_array()
    seeds = games["deal_seed"].to_numpy().astype(np.int64)
    g = rounds["game_id"].to_numpy().astype(np.int64)
    k = rounds["round"].to_numpy().astype(np.int64)
    ld = rounds["leader"].to_numpy().astype(np.int64)
    dl = rounds["dealer"].to_numpy().astype(np.int64)
    values = np.zeros((len(g), 3))
    _deal_values(rules, seeds, g, k, ld, dl, vparams, values)
    means = np.zeros((3, 3, 3))
    _pool_means(rules, vparams, POOL, players, means)
    centred = values[:, :players] - means[ld, dl, :players]
    totals = np.stack([rounds[f"total_{s}"].to_numpy() for s in range(players)], 1).astype(float)
    if metric == "ahead_r1_win":  # the reference seat: ahead after round 1 (from round 2 on)
        first = rounds.filter(pl.col("round") == 0)
        ref = np.stack([first[f"total_{s}"].to_numpy() for s in range(players)], 1).argmax(1)
        skip_first = True
    else:  # the seat of entry 0 (the heuristic)
        entries = np.stack([games[f"entry_{s}"].to_numpy() for s in range(players)], 1)
        ref = (entries == 0).argmax(1)
        skip_first = False
    z = np.zeros((len(seeds), 16))
    score = np.zeros((len(seeds), players))
    target = manifest.rules.target_score
    for i in range(len(g)):
        gi, ki = g[i], k[i]
        if not (skip_first and ki == 0):
            r = ref[gi]
            others = [s for s in range(players) if s != r]
            rel = centred[i, r] - centred[i, others].mean()
            sc = score[gi]
            gap = (sc[r] - sc[others].max()) / 100
            left = max(target - sc.max(), 0) / target
            b = min(ki, 3)
            z[gi, b] += rel
            z[gi, 4 + b] += rel * gap
            z[gi, 8 + b] += rel * left
            z[gi, 12 + b] += rel * gap * gap
        score[gi] += totals[i]
    y = frame[column].to_numpy().astype(float)
    return Arm(y, z, frame["deal_id"].to_numpy())


def clustered(x: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """Mean and deal-clustered standard error, as the experiments compute them."""
    mean, se, _ = _clustered(x, clusters)
    return mean, se


def adjusted(d: np.ndarray, z: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """``d`` minus its fitted control variates, the coefficients of each half of the
    deals fitted on the other half (cross-fitting: no game's own outcome sets its
    correction)."""
    keep = z.std(0) > 0
    z = z[:, keep]
    half = (clusters % 2) == 0
    out = np.empty_like(d)
    for fit, apply in ((half, ~half), (~half, half)):
        beta, *_ = np.linalg.lstsq(z[fit], d[fit] - d[fit].mean(), rcond=None)
        out[apply] = d[apply] - z[apply] @ beta
    return out


def needed(se: float, n: int) -> int:
    """Games per arm for a ±1.5-point 95% interval (the rule behind every "more games")."""
    return games_for_half_width(n, Z95 * se, RATE_TOLERANCE)


def coverage(d: np.ndarray, z: np.ndarray, clusters: np.ndarray, seed: int) -> float:
    """Share of bootstrap replicates (a quarter of the deals each) whose ``deal luck``
    95% interval holds the full sample's estimate."""
    truth = float(adjusted(d, z, clusters).mean())
    deals = np.unique(clusters)
    rng = np.random.default_rng(seed)
    index = {c: np.flatnonzero(clusters == c) for c in deals}
    hits = 0
    for _ in range(REPLICATES):
        chosen = rng.choice(deals, size=len(deals) // 4, replace=True)
        rows = np.concatenate([index[c] for c in chosen])
        relabel = np.repeat(np.arange(len(chosen)), [len(index[c]) for c in chosen])
        mean, se = clustered(adjusted(d[rows], z[rows], relabel), relabel)
        hits += abs(mean - truth) <= Z95 * se
    return hits / REPLICATES


def question(name: str, folder: Path, metric: str, arms: tuple[str, str], rungs: list[str],
             vparams: np.ndarray) -> None:  # fmt: skip
    print(f"\n## {name}: {metric}, {arms[1]} − {arms[0]}\n")
    print("| rung | games | difference | paired: games for ±1.5 | deal luck: games for ±1.5 "
          "| ratio | deal-luck coverage (200 replicates) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    per_rung = {}
    for rung in rungs:
        a, b = (load_arm(folder / rung / arm, metric, vparams) for arm in arms)
        n = min(len(a.y), len(b.y))
        ok = ~np.isnan(a.y[:n]) & ~np.isnan(b.y[:n])
        d = b.y[:n][ok] - a.y[:n][ok]
        z = np.hstack([b.z[:n][ok], a.z[:n][ok]])
        clusters = a.deal[:n][ok]
        mean, se = clustered(d, clusters)
        adj = adjusted(d, z, clusters)
        mean_cv, se_cv = clustered(adj, clusters)
        cover = coverage(d, z, clusters, seed=len(rung))
        full = np.full(n, np.nan)
        full[ok] = d
        per_rung[rung] = (full, a.deal[:n])
        print(f"| {rung} | {n:,} | {mean * 100:+.2f} points | {needed(se, n):,} | "
              f"{needed(se_cv, n):,} | {(se / se_cv) ** 2:.2f}× | {cover:.1%} |")  # fmt: skip
    second, top = rungs[-2], rungs[-1]
    (d_sec, deals), (d_top, _) = per_rung[second], per_rung[top]
    n = min(len(d_sec), len(d_top))
    both = ~np.isnan(d_sec[:n]) & ~np.isnan(d_top[:n])
    top_d, sec_d, clusters = d_top[:n][both], d_sec[:n][both], deals[:n][both]
    _, se_top = clustered(top_d, clusters)
    _, se_sec = clustered(sec_d, clusters)
    _, se_pair = clustered(top_d - sec_d, clusters)
    independent = math.hypot(se_top, se_sec)
    print(f"\nInteraction {top} − {second} on the {n:,} games both rungs played: games per "
          f"arm at each rung for ±1.5 points {needed(independent, n):,} as two independent "
          f"estimates, {needed(se_pair, n):,} paired deal by deal "
          f"({(independent / se_pair) ** 2:.2f}×).")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scoring", type=Path, help="the scoring-rules experiment folder")
    parser.add_argument("--bombs", type=Path, help="the bomb-timing experiment folder")
    add_out_option(parser, "bench_estimators")
    args = parser.parse_args()
    if not (args.scoring or args.bombs):
        parser.error("give --scoring and/or --bombs: finished experiment folders with arm runs")
    vparams = load_value_model(model_path("vgen1", SHIPPED_VALUE_MODELS)).param_array()
    with recorded(args.out):
        print("# Games for a ±1.5-point interval: paired vs deal-luck control variates\n")
        print("Games per arm that a 95% interval of ±1.5 points needs at each rung, from the "
              "half-width seen (games × (half-width / 1.5 points)²).")  # fmt: skip
        if args.scoring:
            question("scoring-rules", args.scoring, "ahead_r1_win",
                     ("revised", "revised-per_card"), ["learned", "mcts"], vparams)  # fmt: skip
        if args.bombs:
            question("bomb-timing", args.bombs, "win_rate",
                     ("late-vs-greedy", "early-vs-greedy"), ["vs-learned", "vs-mcts"],
                     vparams)  # fmt: skip


if __name__ == "__main__":
    main()
