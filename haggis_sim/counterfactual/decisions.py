"""Counterfactual decision studies: what a bomb or a bet is worth, position by position.

A study samples decisions the players of a logged run actually faced — *bomb
opportunities* (the seat to act follows a trick and holds a bomb that beats it) or *bet
opportunities* (a seat's first turn of a round, while it may still bet) — rebuilds each
position by replaying the logged game through :class:`haggis_sim.Game`, and scores the
alternatives from the acting seat's information set only (its
:class:`~haggis_sim.Observation`) with :mod:`strategies.analysis`. Why: the run's win
rates describe what its players did; a study asks what each alternative *would have been
worth* at the same positions, so the answer is about the game, not about the players'
habits (though the positions, and the play the search assumes below them, still come
from a population: :attr:`Study.population` names it).

The search (:class:`StudySettings`): by default today's default ``mcts`` — the reward is
the chance of winning the game (``value="game"``) and, where a bomb study must *choose*
the best bomb and the best other play among many, the choice is the rollout mcts's root
search with the learned model as prior (``prior="learned"``,
:func:`strategies.analysis.root_visits`: PUCT, ``samples`` × alternatives iterations, the
most visited bomb and the most visited other play, the prior breaking ties). The measured
difference is always forced root children, ``samples`` each (the prior cannot change an
alternative that is searched anyway); bets are scored as mcts scores them (every bet
option against not betting, no prior in that search either). ``prior="none"`` chooses
by equal samples per alternative, ``value="round"`` rewards the squashed round margin.

Sampling (:func:`sample_positions`): deals in a seeded random order, one game per deal
(games of one deal under rotated seats repeat its hands), every round of that game, at
most one opportunity per round (chosen at random). So positions are close to
independent, and the intervals across positions in
:mod:`haggis_sim.analytics.decision_table` treat them so.

Stratified (:func:`run_study`): each opportunity met falls in a cell of the crossing that
decides (:func:`decision_table.crossing`: bombs — wilds × nearest opponent's cards ×
trick + bomb points; bets — chance of going out first × the actor's lead) and is scored
only while its cell holds fewer than ``min_per_bin`` scored positions. Sampling stops
when every cell of the crossing is full, when the run's opportunities run out, when
``positions`` positions are scored (the cap), or after looking at ``SCAN_FACTOR`` ×
``positions`` opportunities. So a study is bounded: at most ``positions`` scorings and
``SCAN_FACTOR × positions`` cheap looks (a replay; for bets one ``samples``-iteration
search each, the chance that bins it). ``min_per_bin = 0`` scores every opportunity met
(uniform sampling, as before). Each position carries its cell (``stratum``) and
``weight`` = opportunities seen / scored in that cell, from which the table reweights
rows that span cells (the "all positions" row) to the run's shares. A bomb's cell is
read before scoring from the bomb with fewest wilds (then fewest points) the seat
holds; its rows use the bomb actually scored, which is usually the same.

Features (columns of the positions, the bins of the guidance records
:class:`decision_table.Advice`), all from the acting seat's observation. Those a record
can be conditioned on are computed by :mod:`strategies.advice` (``situation_features``,
``bomb_features``), the functions the ``advised`` strategy follows the records by, so a
bin means the same in the study and in play:

- ``bomb_wilds``: the wilds (J, Q, K) among the scored bomb's cards — 0 (a 3-5-7-9
  rainbow or suited bomb), 2 or 3 (J-Q-K).
- ``min_opponent_cards``: the fewest cards any opponent still in the round holds (0 if
  all are out).
- ``trick_points``: card points of the cards played to the current trick so far;
  ``bomb_points``: of the bomb's own cards; ``trick_plus_bomb_points``: their sum (the
  points the bomb would win with the trick), under the rules in force.
- ``actor_cards``: cards in the acting seat's hand.
- ``actor_lead``: the acting seat's game score minus the best opponent's, before the
  round (the scores the observation shows).
- ``first_out`` (bets): the share of ``samples`` search samples of not betting now (on
  the ``select`` deals) in which the acting seat goes out first — an estimate the seat
  can make from its own information.

Scoring without a max-of-noise bias: for bombs the best bomb and the best non-bomb play
(pass included) are *chosen* on one set of deals (seed ``select``) and their difference
is *measured* on an independent set (seed ``evaluate``), so picking the luckiest of
several noisy estimates does not inflate the reported value. For bets every allowed bet
is measured against not betting (no choice is made, so no selection bias), and the
chance of going out first that bins the position is estimated on the independent
``select`` deals, so the bin does not share noise with the difference it holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.position import action_from_code
from strategies.advice import bomb_features, situation_features
from strategies.analysis import (
    NO_BET,
    PRIORS,
    ROLLOUTS,
    VALUES,
    Alternative,
    analyze,
    compare,
    root_visits,
)

from ..analytics import decision_table
from ..analytics.replay import read_table
from ..errors import IllegalAction, InputError
from ..kernel import record
from ..logs.manifest import Manifest, load_manifest
from ..logs.schema import ACTION_TYPES

KINDS = ("bombs", "bets")
#: the largest ``samples``: the search below one alternative keeps a tree of samples + 1
#: nodes of about 80 bytes, so 100,000 samples are 8 MB per alternative, a few GB for
#: the most alternatives a decision offers in practice (hundreds), within a 24 GB machine
MAX_SAMPLES = 100_000
#: the largest ``positions``: each sampled position holds its observation and where it
#: was (a few kB), so a million of them stay within a few GB
MAX_POSITIONS = 1_000_000
SEED_LIMIT = 2**64  # a study's seed is an unsigned 64-bit number: 0 <= seed < 2**64
#: a study looks at no more than SCAN_FACTOR x ``positions`` opportunities
SCAN_FACTOR = 20
MOVE_ORDER = ("game_id", "round", "turn")
SELECT, EVALUATE = 0, 1  # the two independent seed streams of a position


@dataclass(frozen=True)
class StudySettings:
    """What to sample and how hard to look: the parameters a study's numbers depend on."""

    positions: int = 600  # the cap: at most this many positions scored
    samples: int = 100  # search iterations per alternative, for choosing and for measuring
    seed: int = 0  # picks the positions and the analysis deals: same seed, same study
    c: float = 0.7  # UCB exploration constant of the search below each alternative
    rollout: str = "greedy"
    value: str = "game"  # the reward: "game" (chance of winning the game) or "round"
    prior: str = "learned"  # how a bomb's alternatives are chosen: "learned" or "none"
    min_per_bin: int = 30  # positions each cell of the crossing should hold (0: uniform)

    def check(self) -> None:
        """InputError naming the first setting out of range (:data:`MAX_POSITIONS`,
        :data:`MAX_SAMPLES` and :data:`SEED_LIMIT` keep a study's memory bounded)."""
        for name, most in (("positions", MAX_POSITIONS), ("samples", MAX_SAMPLES)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InputError(f"{name} must be a positive whole number, got {v!r}")
            if v > most:
                raise InputError(f"{name} must be at most {most:,}, got {v:,}")
        m = self.min_per_bin
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m <= MAX_POSITIONS:
            raise InputError(
                f"min_per_bin must be a whole number from 0 to {MAX_POSITIONS:,}, got {m!r}"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InputError(f"seed must be a whole number >= 0, got {self.seed!r}")
        if self.seed >= SEED_LIMIT:
            raise InputError(f"seed must be below 2**64, got {self.seed}")
        if self.rollout not in ROLLOUTS:
            raise InputError(f"rollout must be one of {', '.join(ROLLOUTS)}")
        if self.value not in VALUES:
            raise InputError(f"value must be one of {', '.join(VALUES)}")
        if self.prior not in PRIORS:
            raise InputError(f"prior must be one of {', '.join(PRIORS)}")

    def describe(self) -> str:
        """The search and sampling in words: every setting a study's numbers depend on."""
        default = self.value == "game" and self.prior == "learned"
        choose = (
            "the rollout mcts's root search with the learned prior (PUCT) to choose"
            if self.prior == "learned"
            else f"{self.samples} samples per alternative to choose"
        )
        sampling = (
            f"at least {self.min_per_bin} positions per cell where the run has them"
            if self.min_per_bin
            else "uniform"
        )
        return (
            f"{'the rollout mcts search' if default else 'a search weaker than the rollout mcts'}"
            f" (value={self.value}, prior={self.prior}): {choose}, ISMCTS with forced root "
            f"children, {self.samples} samples per alternative on independent deals to "
            f"measure, {self.rollout} rollouts, c={self.c}; sampling {sampling}, at most "
            f"{self.positions} positions; seed {self.seed}"
        )


@dataclass(frozen=True)
class Opportunity:
    """One sampled decision: where it happened and what the acting seat sees there."""

    game_id: int
    round: int
    turn: int
    seat: int
    strategy: str  # the acting seat's strategy in the run
    logged: str  # what it did in the log: "bomb", "play", "pass", "bet 15", "no bet"
    observation: hs.Observation = field(repr=False)


@dataclass(frozen=True)
class Study:
    """A finished study: the per-position rows, the table by situation, plain guidance."""

    kind: str
    run_dir: Path
    settings: StudySettings
    positions: pl.DataFrame  # one row per position (bets: per position and bet value)
    table: pl.DataFrame  # by situation: positions, mean difference, 95% interval, share
    guidance: list[str]
    population: str  # whose positions, which run, which analysis
    advice: list[decision_table.Advice] = field(default_factory=list)  # guidance as records


@dataclass
class Strata:
    """Stratified sampling's bookkeeping: per cell, opportunities seen and positions scored."""

    cells: int  # cells in the crossing
    least: int  # min_per_bin
    seen: dict[int, int] = field(default_factory=dict)
    scored: dict[int, int] = field(default_factory=dict)

    def take(self, cell: int) -> bool:
        """Count an opportunity of ``cell``; whether to score it (its cell is not full)."""
        self.seen[cell] = self.seen.get(cell, 0) + 1
        if self.least and self.scored.get(cell, 0) >= self.least:
            return False
        self.scored[cell] = self.scored.get(cell, 0) + 1
        return True

    def full(self) -> bool:
        """Every cell of the crossing holds ``least`` positions (never, when uniform)."""
        filled = sum(1 for n in self.scored.values() if n >= self.least)
        return self.least > 0 and filled == self.cells

    def weight(self, cell: int) -> float:
        return self.seen[cell] / self.scored[cell]


def run_study(
    kind: str,
    run_dir: Path,
    settings: StudySettings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Study:
    """Sample ``kind`` opportunities (``"bombs"`` or ``"bets"``) from ``run_dir`` and score them.

    Stratified (see the module docstring): an opportunity is scored while its cell holds
    fewer than ``min_per_bin``; at most ``positions`` are scored. ``progress(done, cap)``
    is called after each scored position. Raises InputError for an unknown kind, bad
    settings, or a run without move logs.
    """
    if kind not in KINDS:
        raise InputError(f"unknown study {kind!r}; known: {', '.join(KINDS)}")
    settings = settings or StudySettings()
    settings.check()
    rules, manifest = load_run(run_dir)
    if kind == "bets" and not rules.bet_values:
        raise InputError(f"run {run_dir} was played with no bets allowed: no bet to study")
    cross = decision_table.crossing(kind)
    strata = Strata(math.prod(cross.sizes()), settings.min_per_bin)
    found: list[Opportunity] = []
    rows: list[dict[str, Any]] = []
    looks = settings.positions * SCAN_FACTOR
    for i, opp in enumerate(sample_positions(run_dir, kind, looks, settings.seed)):
        keep = chance(opp.observation, settings, i) if kind == "bets" else None
        cell, _ = cross.key(cell_features(kind, opp.observation, rules, keep))
        if not strata.take(cell):
            continue
        score = score_bets if kind == "bets" else score_bomb
        for row in score(opp.observation, rules, settings, i, keep):
            rows.append({**_where(opp, i), "stratum": cell, **row})
        found.append(opp)
        if progress is not None:
            progress(len(found), settings.positions)
        if len(found) >= settings.positions or strata.full():
            break
    frame = pl.DataFrame(rows, infer_schema_length=None)
    if frame.height:
        weights = pl.Series([strata.weight(c) for c in frame["stratum"]], dtype=pl.Float64)
        frame = frame.with_columns(weight=weights)
    table = decision_table.summarize(kind, frame)
    advice = decision_table.advice(kind, table, settings.min_per_bin)
    return Study(
        kind=kind,
        run_dir=run_dir,
        settings=settings,
        positions=frame,
        table=table,
        guidance=[a.text for a in advice],
        population=_population(kind, run_dir, manifest, found, settings, strata),
        advice=advice,
    )


def load_run(run_dir: Path) -> tuple[hs.Rules, Manifest]:
    """The run's rules and manifest; InputError if it has no move log to replay."""
    manifest = load_manifest(run_dir)
    if not manifest.config.log_moves:
        raise InputError(
            f"run {run_dir} has no move log (made with --no-log-moves): a study rebuilds "
            "positions from the moves; play the run again without --no-log-moves"
        )
    return manifest.rules, manifest


def sample_positions(run_dir: Path, kind: str, positions: int, seed: int) -> Iterator[Opportunity]:
    """Up to ``positions`` opportunities of ``kind``, depending only on the run and ``seed``
    (a study takes what its strata need from these, in this order).

    Deals come in a seeded random order; of each, one game (rotated seats replay a deal's
    hands) is replayed and at most one opportunity per round kept, chosen at random.
    """
    rules, manifest = load_run(run_dir)
    players = rules.players
    cols = ["game_id", "deal_id", *(f"strategy_{k}" for k in range(players))]
    games = read_table(run_dir, "games", lambda t: t.select(cols).sort("game_id"))
    rng = np.random.default_rng([seed, 0x5CD])
    deals = games.group_by("deal_id", maintain_order=True).agg(pl.col("game_id"))
    order = rng.permutation(deals.height)
    chosen = [int(rng.choice(deals["game_id"][int(i)].to_list())) for i in order]
    by_id = {r["game_id"]: r for r in games.iter_rows(named=True)}
    found = 0
    for start in range(0, len(chosen), 32):
        batch = chosen[start : start + 32]
        moves = read_table(run_dir, "moves", _select_games(batch))
        if moves.height == 0 and start == 0:
            raise InputError(f"run {run_dir} has no logged moves: nothing to study")
        per_game = moves.partition_by("game_id", as_dict=True, maintain_order=True)
        for gid in batch:
            part = per_game.get((gid,))
            if part is None:
                continue
            for opp in _game_opportunities(kind, rules, manifest, by_id[gid], part, rng):
                yield opp
                found += 1
                if found >= positions:
                    return


def _select_games(ids: list[int]) -> Callable[[pl.LazyFrame], pl.LazyFrame]:
    """The moves of games ``ids``, in play order."""
    return lambda t: t.filter(pl.col("game_id").is_in(ids)).sort(MOVE_ORDER)


def _game_opportunities(
    kind: str,
    rules: hs.Rules,
    manifest: Manifest,
    game_row: dict[str, Any],
    moves: pl.DataFrame,
    rng: np.random.Generator,
) -> Iterator[Opportunity]:
    """Replay one logged game; yield one randomly chosen opportunity per round that has one."""
    gid = int(game_row["game_id"])
    game = hs.Game(rules, seed=manifest.seed, game_id=int(game_row["deal_id"]))
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    current = -1
    pending: list[Opportunity] = []
    asked: set[int] = set()
    for row in moves.iter_rows(named=True):
        if row["round"] != current:
            if pending:
                yield pending[int(rng.integers(len(pending)))]
            current, pending, asked = row["round"], [], set()
        code = record.pack_logged_action(
            ACTION_TYPES.index(row["type"]), row["width"], row["length"], row["rank"],
            row["cards"], row["value"],
        )  # fmt: skip
        seat = game.to_act
        if seat is not None and seat == row["seat"] and _is_opportunity(kind, game, buf, asked):
            pending.append(
                Opportunity(
                    game_id=gid,
                    round=int(row["round"]),
                    turn=int(row["turn"]),
                    seat=seat,
                    strategy=str(game_row[f"strategy_{seat}"]),
                    logged=_logged(row),
                    observation=game.observation(seat),
                )
            )
        try:
            game.apply_action(code)
        except IllegalAction as exc:
            raise InputError(
                f"game {gid} round {row['round']} turn {row['turn']} does not replay "
                f"({exc}): the log does not match this version's engine"
            ) from None
    if pending:
        yield pending[int(rng.integers(len(pending)))]


def _is_opportunity(kind: str, game: hs.Game, buf: np.ndarray, asked: set[int]) -> bool:
    """Whether the seat to act faces the decision studied (bets: only its first turn)."""
    st = game.state_array
    seat = int(st[K.S_TO_ACT])
    if kind == "bets":
        if seat in asked or st[K.S_PHASE] != K.PH_PLAY:
            return False
        asked.add(seat)
        return bool(K.can_bet(st, seat))
    if st[K.S_PHASE] != K.PH_PLAY or st[K.S_TOP] == 0:
        return False
    k = K.legal_actions(st, buf, False)
    return any(K.move_type(buf[i]) == K.T_BOMB for i in range(k))


def _logged(row: dict[str, Any]) -> str:
    if row["type"] == "bet":
        return f"bet {row['value']}"
    return {"bomb": "bomb", "pass": "pass"}.get(row["type"], "play")


def _where(opp: Opportunity, index: int) -> dict[str, Any]:
    return {
        "position": index,
        "game_id": opp.game_id,
        "round": opp.round,
        "turn": opp.turn,
        "seat": opp.seat,
        "strategy": opp.strategy,
        "logged": opp.logged,
    }


def acting_observation(position: hs.Round | hs.Game | hs.Observation) -> hs.Observation:
    """The acting seat's observation: all a study may know of ``position``."""
    if isinstance(position, hs.Observation):
        return position
    if position.to_act is None:
        raise InputError("the round is over: there is no decision to study")
    return position.observation(position.to_act)


def position_seed(seed: int, index: int, stream: int) -> int:
    """The analysis seed of position ``index``: ``SELECT`` and ``EVALUATE`` are independent."""
    state = np.random.SeedSequence([seed, index, stream]).generate_state(1, dtype=np.uint64)
    return int(state[0] >> np.uint64(1))


def cell_features(
    kind: str, obs: hs.Observation, rules: hs.Rules, keep: Alternative | None = None
) -> dict[str, Any]:
    """The features that place an opportunity in a cell of :func:`decision_table.crossing`,
    before it is scored: for bombs those of the bomb with fewest wilds (then fewest
    points) the seat holds, for bets the chance ``keep`` of going out first (see
    :func:`chance`) and the actor's lead."""
    where = situation(obs, rules)
    if kind == "bets":
        assert keep is not None
        return {**where, "first_out": keep.first_out}
    arr = obs.array
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    codes = [int(x) for x in buf[: K.legal_actions(arr, buf, False)]]
    costs = [
        (f["bomb_wilds"], f["trick_plus_bomb_points"])
        for f in (bomb_features(arr, c) for c in codes if K.move_type(c) == K.T_BOMB)
    ]
    wilds, points = min(costs)
    return {**where, "bomb_wilds": wilds, "trick_plus_bomb_points": points}


def chance(obs: hs.Observation, settings: StudySettings, index: int) -> Alternative:
    """Not betting now, searched on the ``SELECT`` deals: its ``first_out`` bins a bet
    position (independent of the ``EVALUATE`` deals that measure the differences)."""
    (keep,) = analyze(obs, [NO_BET], **_search(settings, index, SELECT))
    return keep


def _search(settings: StudySettings, index: int, stream: int) -> dict[str, Any]:
    """The keyword arguments of :func:`analyze` for one position and seed stream."""
    return {
        "samples": settings.samples,
        "c": settings.c,
        "rollout": settings.rollout,
        "value": settings.value,
        "seed": position_seed(settings.seed, index, stream),
    }


def situation(obs: hs.Observation, rules: hs.Rules) -> dict[str, Any]:
    """Features of a position every study records: cards left and scores against the target.

    ``actor_cards``, ``min_opponent_cards`` and ``actor_lead`` are those the ``advised``
    strategy follows advice by (:func:`strategies.advice.situation_features`): one
    definition, so a guidance record's bin means the same in the study and in play."""
    seat, n = obs.seat, obs.players
    opponents = [(seat + k) % n for k in range(1, n)]
    sizes = obs.hand_sizes
    shared = situation_features(obs)
    target = rules.target_score if rules.game_end == "target" else None
    best_opp = max(obs.scores[o] for o in opponents)
    return {
        "players": n,
        "preset": rules.label,
        "actor_cards": shared["actor_cards"],
        "next_opponent_cards": sizes[opponents[0]],
        "other_opponent_cards": sizes[opponents[1]] if n == 3 else None,
        "min_opponent_cards": shared["min_opponent_cards"],
        "actor_score": obs.scores[seat],
        "best_opponent_score": best_opp,
        "actor_lead": shared["actor_lead"],
        "actor_to_target": None if target is None else target - obs.scores[seat],
        "opponent_to_target": None if target is None else target - best_opp,
    }


def score_bomb(
    position: hs.Round | hs.Game | hs.Observation,
    rules: hs.Rules,
    settings: StudySettings,
    index: int = 0,
    keep: Alternative | None = None,
) -> list[dict[str, Any]]:
    """The best bomb against the best non-bomb play (pass included), at a bomb opportunity.

    Both are chosen on the ``SELECT`` deals (:func:`_choose`), their difference measured
    on the independent ``EVALUATE`` deals (``keep`` is unused: bets only). Returns one
    row: the situation, the trick's and the bomb's card points under the rules in force,
    the wilds the bomb spends, and the difference in value and round margin with paired
    standard errors.
    """
    obs = acting_observation(position)
    arr = obs.array
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    plays = [action_from_code(obs.seat, int(x)) for x in buf[: K.legal_actions(arr, buf, False)]]
    bombs = [a for a in plays if a.combo is not None and a.combo.kind == "bomb"]
    others = [a for a in plays if a not in bombs]
    if not bombs or obs.top is None:
        raise InputError("not a bomb opportunity: the seat to act must follow and hold a bomb")
    rank = _choose(obs, plays, settings, index)
    bomb = max(bombs, key=rank)
    other = max(others, key=rank)
    cmp = compare(obs, other, [bomb], **_search(settings, index, EVALUATE))
    diff = cmp.differences[0]
    feats = bomb_features(arr, bomb.code)  # the advised strategy's definitions
    trick = int(K.card_points(arr, arr[K.S_TRICK_CARDS]))
    return [
        {
            **situation(obs, rules),
            "trick_points": trick,
            "bomb": str(bomb.combo),
            "bomb_points": feats["trick_plus_bomb_points"] - trick,
            "bomb_wilds": feats["bomb_wilds"],
            "trick_plus_bomb_points": feats["trick_plus_bomb_points"],
            "best_other": str(other),
            "bombs": len(bombs),
            "others": len(others),
            "bomb_value": cmp.alternatives[0].value,
            "other_value": cmp.baseline.value,
            "value_diff": diff.value,
            "value_diff_se": diff.stderr,
            "margin_diff": diff.margin,
            "margin_diff_se": diff.margin_stderr,
            "samples": diff.samples,
        }
    ]


def _choose(
    obs: hs.Observation, plays: list[hs.Action], settings: StudySettings, index: int
) -> Callable[[hs.Action], tuple[float, ...]]:
    """How the ``SELECT`` deals rank the plays (higher is better): with ``prior="learned"``
    by the rollout mcts's root visits, then its prior; else by each play's value with
    equal samples."""
    search = _search(settings, index, SELECT)
    if settings.prior == "learned":
        del search["samples"]
        visits = root_visits(obs, settings.samples * len(plays), **search)
        return lambda a: visits[a.code]
    value = {a.action: a.value for a in analyze(obs, plays, **search)}
    return lambda a: (value[a],)


def score_bets(
    position: hs.Round | hs.Game | hs.Observation,
    rules: hs.Rules,
    settings: StudySettings,
    index: int = 0,
    keep: Alternative | None = None,
) -> list[dict[str, Any]]:
    """Every allowed bet against not betting, at a bet opportunity: one row per bet value.

    The chance of going out first (from the no-bet alternative) is estimated on the
    ``SELECT`` deals (:func:`chance`, or ``keep`` if already estimated there); the
    differences are measured on the independent ``EVALUATE`` deals.
    """
    obs = acting_observation(position)
    arr = obs.array
    if not K.can_bet(arr, obs.seat):
        raise InputError("not a bet opportunity: the seat to act may not bet here")
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    codes = buf[: K.legal_actions(arr, buf, True)]
    bets = [action_from_code(obs.seat, int(x)) for x in codes if K.move_type(x) == K.T_BET]
    keep = keep or chance(obs, settings, index)
    cmp = compare(obs, NO_BET, bets, **_search(settings, index, EVALUATE))
    common = {
        **situation(obs, rules),
        "settlement": rules.bet_settlement,
        "first_out": keep.first_out,
        "first_out_se": keep.first_out_stderr,
        "no_bet_value": cmp.baseline.value,
    }
    return [
        {
            **common,
            "bet": alt.action.value,
            "bet_first_out": alt.first_out,
            "bet_value": alt.value,
            "value_diff": d.value,
            "value_diff_se": d.stderr,
            "margin_diff": d.margin,
            "margin_diff_se": d.margin_stderr,
            "samples": d.samples,
        }
        for alt, d in zip(cmp.alternatives, cmp.differences, strict=True)
    ]


def _population(
    kind: str,
    run_dir: Path,
    manifest: Manifest,
    found: list[Opportunity],
    settings: StudySettings,
    strata: Strata,
) -> str:
    """Whose positions these are and how they were analyzed, in one paragraph."""
    what = "bomb opportunities" if kind == "bombs" else "bet opportunities"
    counts: dict[str, int] = {}
    for opp in found:
        counts[opp.strategy] = counts.get(opp.strategy, 0) + 1
    acting = ", ".join(f"{s} {n}" for s, n in sorted(counts.items(), key=lambda x: -x[1]))
    seen = sum(strata.seen.values())
    short = f" (the run has only {len(found)})" if seen == len(found) < settings.positions else ""
    if seen > len(found):
        full = sum(1 for n in strata.scored.values() if n >= strata.least)
        short = (
            f" scored of {seen} met ({full} of the {len(strata.seen)} cells met hold "
            f"{strata.least}; rows over several cells reweighted to the cells' shares)"
        )
    rules, config = manifest.rules, manifest.config
    return (
        f"{len(found)} {what}{short} from run {run_dir} "
        f"({config.games} games, {rules.players} players, "
        f"{rules.preset_name} rules; strategies {', '.join(s.text for s in config.records)}); "
        f"acting: {acting or 'nobody'}. Analysis: {settings.describe()}."
    )
