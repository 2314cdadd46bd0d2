"""The search: Optuna proposes knob settings, each candidate is played on the design's
common deals, and a candidate that cannot reach the front is stopped early.

Every candidate is an ordinary run (``execute`` / ``extend``) into
``<out>/search/<candidate name>/`` with the design's seed, so all candidates play the
same deals and a setting proposed twice is played once. A candidate is played in rungs
(:func:`rungs`: the first rung, then three times as many games at a time up to the
budget's ``games``). After each rung but the last it is stopped (*pruned*) when its
result cannot matter: a constraint missed with the whole 95% interval outside its
bounds, or every objective's interval worse than the same objective's interval of one
candidate already played in full (dominated beyond doubt). Pruning only saves games: the
search's figures are never reported as results (they carry the winner's curse); the
chosen candidates are re-played on fresh deals (:mod:`.confirm`).

The sampler is Optuna's TPE (multi-objective, with the constraints), seeded from the
design's seed; a setting stopped early tells it its estimate too (where not to look).
Every run is deterministic, so a search interrupted and started again proposes the same
candidates and finds the runs it had played.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analytics.compare import Estimate, game_metrics
from ..experiment.balance import quantity_estimate, quantity_fair
from ..experiment.folder import check_same_run
from ..experiment.schema import ExperimentError
from ..logs.manifest import MANIFEST, read_manifest
from ..rules import Rules
from ..runner.run import RunConfig, execute, extend
from .spec import Design, Knob, Objective, quantity, whole_deals

if TYPE_CHECKING:
    import optuna
    import polars as pl

Say = Callable[[str], None]
GROWTH = 3  # each rung plays this many times the games of the one before
ASKS_PER_TRIAL = 20  # proposals per new setting at most: the sampler may repeat itself


@dataclass(frozen=True)
class Candidate:
    """A knob setting and what the search measured of it (on the common deals)."""

    name: str
    flags: dict[str, Any]
    games: int
    estimates: dict[str, Estimate]  # per quantity of the objectives and constraints
    pruned: str  # why it was stopped early ("" when played in full)

    @property
    def full(self) -> bool:
        return not self.pruned


def candidate_name(flags: dict[str, Any]) -> str:
    """A folder name for a knob setting: ``flag=value`` joined by commas (a list's
    values by ``+``); a name that would be too long ends in a digest."""
    parts = []
    for flag in sorted(flags):
        value = flags[flag]
        shown = "+".join(map(str, value)) if isinstance(value, tuple) else str(value).lower()
        parts.append(f"{flag}={re.sub(r'[^A-Za-z0-9._+-]', '_', shown)}")
    name = ",".join(parts)
    if len(name) > 90:
        name = name[:70] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    return name


def rungs(design: Design) -> list[int]:
    """The game counts a candidate is played to, in whole deals: the first rung (the
    budget's ``first_games``, else a ninth of ``games``), three times as many each rung,
    and ``games`` last."""
    deal = design.deal_games
    last = whole_deals(design.budget.games, deal)
    first = whole_deals(design.budget.first_games or design.budget.games / GROWTH**2, deal)
    counts = [min(first, last)]
    while counts[-1] < last:
        counts.append(min(whole_deals(counts[-1] * GROWTH, deal), last))
    return counts


def loss(objective: Objective, est: Estimate, aim: float) -> tuple[float, float, float]:
    """The objective as a value to make small, with its interval: (value, low, high).
    ``max`` is the negated quantity; ``fair`` and ``near`` the distance from ``aim``
    (:func:`aim_of`)."""
    if objective.goal == "min":
        return est.mean, est.low, est.high
    if objective.goal == "max":
        return -est.mean, -est.high, -est.low
    near = 0.0 if est.low <= aim <= est.high else min(abs(est.low - aim), abs(est.high - aim))
    return abs(est.mean - aim), near, max(abs(est.low - aim), abs(est.high - aim))


def aim_of(design: Design, objective: Objective) -> float:
    """Where a ``near`` or ``fair`` objective aims: its target, or the fair value."""
    if objective.target is not None:
        return float(objective.target)
    return fair(design, objective.quantity) or 0.0


def quantities(design: Design) -> list[str]:
    """The quantities the search measures: the objectives', then the constraints'."""
    keys = [o.quantity for o in design.objectives] + [c.quantity for c in design.constraints]
    return list(dict.fromkeys(keys))


def fair(design: Design, key: str) -> float | None:
    """Quantity ``key``'s fair value with the design's players and strategies."""
    return quantity_fair(quantity(key), design.players, len(design.strategies))


def losses(design: Design, cand: Candidate) -> list[tuple[float, float, float]]:
    """Every objective's :func:`loss` of a candidate."""
    return [loss(o, cand.estimates[o.quantity], aim_of(design, o)) for o in design.objectives]


def violations(design: Design, cand: Candidate) -> list[float]:
    """Each constraint's violation at the candidate's estimate (0: kept)."""
    return [c.violation(cand.estimates[c.quantity].mean) for c in design.constraints]


def run_config(design: Design, rules: Rules, games: int, name: str, jobs: int) -> RunConfig:
    """The run that plays a candidate: the design's strategies and seed, rotated seats."""
    return RunConfig(
        strategies=list(design.strategies),
        games=games,
        rules=rules.as_dict(),
        seed=design.seed,
        seats="rotate",
        log_moves=False,
        jobs=jobs,
        command=f"haggis-sim design {design.source or design.name} (candidate {name})",
    )


def play_to(config: RunConfig, run_dir: Path, say: Say) -> pl.DataFrame:
    """The first ``config.games`` games of the run in ``run_dir``, played, resumed or
    extended as needed (a run holding more games is kept and only read)."""
    if not (run_dir / MANIFEST).exists():
        execute(config, run_dir, on_note=say)
    else:
        manifest = read_manifest(run_dir)
        have = manifest.get("config", {})
        check_same_run(have, config.as_dict(), str(run_dir), games=False)
        if manifest.get("status") != "complete":
            execute(config, run_dir, resume=True, on_note=say)
        if int(have.get("games", 0)) < config.games:
            extend(config, run_dir, on_note=say)
    import polars as pl

    return game_metrics(run_dir).filter(pl.col("game_id") < config.games)


def measure(design: Design, frame: pl.DataFrame) -> dict[str, Estimate]:
    """The design's quantities over a candidate's games."""
    return {key: quantity_estimate(quantity(key), frame) for key in quantities(design)}


def prune_reason(design: Design, cand: Candidate, finished: list[Candidate]) -> str:
    """Why a candidate after a rung cannot matter ("" when it may): a constraint missed
    beyond doubt, or dominated beyond doubt by a candidate played in full."""
    for c in design.constraints:
        est = cand.estimates[c.quantity]
        if (c.at_least is not None and est.high < c.at_least) or (
            c.at_most is not None and est.low > c.at_most
        ):
            return f"misses the constraint on {c.quantity} beyond doubt"
    mine = losses(design, cand)
    for other in finished:
        if not any(violations(design, other)):  # only a candidate that keeps them
            theirs = losses(design, other)
            if all(t[2] < m[1] for t, m in zip(theirs, mine, strict=True)):
                return f"worse than {other.name} in every objective beyond doubt"
    return ""


def search(design: Design, out: Path, jobs: int, say: Say) -> tuple[list[Candidate], optuna.Study]:
    """Play the design's trials; every candidate measured, in the order proposed."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)

    sampler = optuna.samplers.TPESampler(
        seed=design.seed % 2**32,
        multivariate=True,
        n_startup_trials=min(10, max(2, design.budget.trials // 3)),
    )
    study = optuna.create_study(directions=["minimize"] * len(design.objectives), sampler=sampler)
    base = design.base_flags
    if all(base[k.flag] in k.choices for k in design.knobs):  # today's rules come first
        study.enqueue_trial({k.flag: _key(base[k.flag]) for k in design.knobs})
    plan = _Plan(design, rungs(design), out, jobs, say)
    seen: dict[str, Candidate | None] = {}  # every setting tried (None: not valid rules)
    played: list[Candidate] = []
    space = math.prod(len(k.choices) for k in design.knobs)
    goal = min(design.budget.trials, space)
    asked = 0
    while len(seen) < goal and asked < ASKS_PER_TRIAL * design.budget.trials:
        asked += 1
        trial = study.ask()
        flags = {k.flag: _suggest(trial, k) for k in design.knobs}
        name = candidate_name(flags)
        if name in seen:  # a setting proposed again is told its result again
            cand = seen[name]
        else:
            cand = seen[name] = plan.attempt(flags, name, played)
            if cand is not None:
                played.append(cand)
            say(f"candidate {len(seen)}/{goal}: {_summary(design, name, cand)}")
        if cand is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:  # a setting stopped early is told its estimate too: where not to look
            for i, v in enumerate(violations(design, cand)):
                trial.set_constraint(f"constraint {i + 1}", v)
            study.tell(trial, [v for v, _, _ in losses(design, cand)])
    return played, study


@dataclass(frozen=True)
class _Plan:
    """What playing a candidate needs: the design, its rungs, the folder, the workers."""

    design: Design
    steps: list[int]
    out: Path
    jobs: int
    say: Say

    def attempt(
        self, flags: dict[str, Any], name: str, played: list[Candidate]
    ) -> Candidate | None:
        """A new setting played (:meth:`play`); None when the rules refuse it."""
        try:
            rules = self.design.candidate_rules(flags)
        except ExperimentError:
            return None
        return self.play(rules, flags, name, [c for c in played if c.full])

    def play(
        self, rules: Rules, flags: dict[str, Any], name: str, finished: list[Candidate]
    ) -> Candidate:
        """Play one candidate rung by rung until it is pruned or played in full."""
        design = self.design
        for i, games in enumerate(self.steps):
            config = run_config(design, rules, games, name, self.jobs)
            frame = play_to(config, self.out / "search" / name, self.say)
            cand = Candidate(name, flags, games, measure(design, frame), "")
            if i < len(self.steps) - 1:
                why = prune_reason(design, cand, finished)
                if why:
                    return Candidate(name, flags, games, cand.estimates, why)
        return cand


def _suggest(trial: optuna.Trial, knob: Knob) -> Any:
    """The trial's value of a knob: a whole number of its range, or one of its values."""
    if knob.values is None:
        assert knob.low is not None and knob.high is not None
        return trial.suggest_int(knob.flag, knob.low, knob.high, step=knob.step)
    key = trial.suggest_categorical(knob.flag, [_key(v) for v in knob.choices])
    return next(v for v in knob.choices if _key(v) == key)


def _key(value: Any) -> str | int | bool | float:
    """A knob value as Optuna's categorical choice (a list's values as JSON text)."""
    return json.dumps(list(value)) if isinstance(value, tuple) else value


def _summary(design: Design, name: str, cand: Candidate | None) -> str:
    """A candidate's line: the setting, games and each objective's estimate."""
    if cand is None:
        return f"{name}: not a valid rule set (the rules refuse this combination)"
    parts = [f"{o.quantity} {cand.estimates[o.quantity].mean:.3g}" for o in design.objectives]
    state = f"{cand.games:,} games"
    if cand.pruned:
        state = f"stopped after {state}: {cand.pruned}"
    return f"{name}: {', '.join(parts)} ({state})"
