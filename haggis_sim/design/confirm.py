"""The confirmation: the search's best candidates re-played on fresh deals beside the base
rules, as an ordinary experiment, and judged on those games only.

The front is the candidates played in full that keep every constraint (at the search's
estimate) and that no other such candidate beats in every objective; without any, the
candidates closest to keeping the constraints. At most ``[confirm] candidates`` of them,
in the order of the first objective, then the next. The base rules are not re-played as
a candidate: they are the experiment's first arm.

The experiment (:func:`confirm_toml`) uses the design's seed + 1, so its deals are not the
search's; every arm plays the same deals, so each candidate's difference from the base
rules is paired game by game. Its text is written beside the results and replays the
confirmation with ``haggis-sim experiment``.

A candidate **holds up** when, on the fresh deals, every constraint's 95% interval lies
within its bounds and no objective is worse than the search measured beyond doubt (its
interval of the objective's distance from the aim starts above the search's estimate);
it **does not hold up** when a constraint's interval lies outside its bounds or an
objective is worse beyond doubt; otherwise it is **not settled**.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from ..analytics.compare import Estimate, fmt_interval, fmt_value
from ..experiment import parse_experiment, run_experiment
from .search import Candidate, Say, aim_of, loss, losses, quantities, violations
from .spec import Design, quantity

MAX_SEED = 2**63 - 1
NAMES = {
    "seat0_win": "the seat-0 edge",
    "first_lead_win": "the first leader's edge",
    "ahead_r1_win": "how often the leader after round 1 wins",
    "margin": "the winning margin",
    "rounds": "the game length in rounds",
    "lead_changes": "lead changes per game",
    "winner_lead_round": "how late the winner takes the lead for good",
    "skill_expression": "skill expression (the stronger player's win rate)",
    "luck_share": "the luck share (a weaker player wins)",
}


def front(design: Design, played: list[Candidate]) -> list[Candidate]:
    """The candidates to confirm (see the module's docstring)."""
    base = {k.flag: getattr(design.base_rules, k.flag) for k in design.knobs}
    full = [c for c in played if c.full and c.flags != base]
    keep = [c for c in full if not any(violations(design, c))]
    if not keep:
        full.sort(key=lambda c: sum(violations(design, c)))
        return full[: design.confirm.candidates]
    value = {c.name: [v for v, _, _ in losses(design, c)] for c in keep}
    best = [
        c for c in keep
        if not any(_beats(value[o.name], value[c.name]) for o in keep if o is not c)
    ]  # fmt: skip
    best.sort(key=lambda c: value[c.name])
    return best[: design.confirm.candidates]


def _beats(a: list[float], b: list[float]) -> bool:
    """``a`` is no worse than ``b`` in every objective and better in one."""
    return all(x <= y for x, y in zip(a, b, strict=True)) and a != b


def fresh_seed(design: Design) -> int:
    """The confirmation's seed: not the search's."""
    return design.seed + 1 if design.seed < MAX_SEED else design.seed - 1


def confirm_toml(design: Design, chosen: list[Candidate], base_search: Candidate | None) -> str:
    """The confirmation experiment as a file: the base rules first, then each candidate."""
    first = design.objectives[0]
    goal = first.goal
    if goal in ("fair", "near"):  # towards the aim from where the base rules stand
        aim = aim_of(design, first)
        now = base_search.estimates[first.quantity].mean if base_search else aim
        goal = "min" if now > aim else "max"
    metrics = [quantity(k).metric for k in quantities(design)]
    deal = design.deal_games
    games = -(-design.confirm.games // deal) * deal
    lines = [
        f"# haggis-sim experiment: the confirmation of design {design.name!r} on fresh deals",
        f"name = {json.dumps(design.name + '-confirm')}",
        f"question = {json.dumps(_question(design))}",
        f"games = {games}",
        f"seed = {fresh_seed(design)}",
        f"players = {design.players}",
        f"rules = {json.dumps(design.rules)}",
        f"strategies = {json.dumps(list(design.strategies))}",
        f"metric = {json.dumps(metrics[0])}",
        f"goal = {json.dumps(goal)}",
        f"also = {json.dumps(list(dict.fromkeys(m for m in metrics[1:] if m != metrics[0])))}",
        "log_moves = false",
        "balance = true",
    ]
    if design.rule:
        lines += ["", "[rule]", *_flags(design.rule)]
    lines += ["", "[[arms]]", 'name = "base"', f"label = {json.dumps('today: ' + design.rules)}"]
    for i, cand in enumerate(chosen):
        lines += [
            "",
            "[[arms]]",
            f'name = "candidate-{i + 1}"',
            f"label = {json.dumps(words(cand.flags))}",
        ]
        lines += ["[arms.rule]", *_flags(cand.flags)]
    return "\n".join(lines) + "\n"


def _question(design: Design) -> str:
    return (
        f"{design.question.strip()} (the design search's candidates re-played on fresh deals "
        "beside the base rules)"
    )


def _flags(flags: dict[str, Any]) -> list[str]:
    return [f"{k} = {json.dumps(list(v) if isinstance(v, tuple) else v)}" for k, v in flags.items()]


def words(flags: dict[str, Any]) -> str:
    """A knob setting in words: ``out_points 4, target_score 300``."""
    return ", ".join(
        f"{k} {','.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in flags.items()
    )


def confirm(
    design: Design, chosen: list[Candidate], base_search: Candidate | None, out: Path, jobs: int,
    say: Say,
) -> dict[str, Any]:  # fmt: skip
    """Play the confirmation experiment into ``out/confirm`` and judge each candidate."""
    text = confirm_toml(design, chosen, base_search)
    exp = parse_experiment(tomllib.loads(text), text=text)
    summary = run_experiment(exp, out / "confirm", jobs=jobs, log=say, report=False)
    cells = _cells(summary["balance"])
    rows = []
    for i, cand in enumerate(chosen):
        arm = f"candidate-{i + 1}"
        rows.append(judge(design, cand, arm, cells))
    return {"experiment": "confirm", "seed": fresh_seed(design), "games": exp.games,
            "base": _figures(design, cells, "base"), "candidates": rows}  # fmt: skip


def _cells(balance: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """The balance table's cells by (quantity, arm)."""
    group = balance["groups"][0]
    return {(row["quantity"], c["arm"]): c for row in group["rows"] for c in row["cells"]}


def _figures(
    design: Design, cells: dict[tuple[str, str], dict[str, Any]], arm: str
) -> dict[str, Any]:
    return {k: cells[(k, arm)] for k in quantities(design)}


def judge(
    design: Design, cand: Candidate, arm: str, cells: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    """A candidate's confirmed figures and verdict (see the module's docstring)."""
    figures = _figures(design, cells, arm)
    est = {k: Estimate(c["mean"], c["low"], c["high"], c["n"], c["sd"] or 0.0)
           for k, c in figures.items()}  # fmt: skip
    missed = unsettled = False
    notes = []
    for c in design.constraints:
        e = est[c.quantity]
        if (c.at_least is not None and e.high < c.at_least) or (
            c.at_most is not None and e.low > c.at_most
        ):
            missed = True
            notes.append(f"misses the constraint on {c.quantity}")
        elif c.violation(e.low) > 0 or c.violation(e.high) > 0:
            unsettled = True
            notes.append(f"the constraint on {c.quantity} is not settled")
    for o, searched in zip(design.objectives, losses(design, cand), strict=True):
        _, low, _ = loss(o, est[o.quantity], aim_of(design, o))
        if low > searched[0]:
            missed = True
            notes.append(f"{o.quantity} is worse than the search measured")
    verdict = "does not hold up" if missed else "not settled" if unsettled else "holds up"
    return {"name": cand.name, "arm": arm, "flags": {k: list(v) if isinstance(v, tuple) else v
            for k, v in cand.flags.items()}, "words": words(cand.flags), "verdict": verdict,
            "notes": notes, "figures": figures,
            "search": {k: e.mean for k, e in cand.estimates.items()}}  # fmt: skip


def headline(design: Design, result: dict[str, Any]) -> str:
    """The answer in plain words: the first candidate that held up, objective by
    objective against the base rules; or that none did."""
    held = [r for r in result["candidates"] if r["verdict"] == "holds up"]
    if not held:
        return (
            "No candidate held up on fresh deals: "
            + "; ".join(f"{r['words']} {r['verdict']}" for r in result["candidates"])
            + f". Today's rules ({design.rules}) stay the reference."
        )
    best = held[0]
    parts = []
    for o in design.objectives:
        q = quantity(o.quantity)
        base, cell = result["base"][o.quantity], best["figures"][o.quantity]
        d = cell["vs_first"]
        name = NAMES[o.quantity]
        if d is None or d["low"] is None or d["low"] <= 0 <= d["high"]:
            parts.append(f"{name} is unchanged ({fmt_value(q.metric, base['mean'])}; "
                         f"difference {fmt_interval(q.metric, d['low'], d['high'], signed=True)})"
                         if d and d["low"] is not None else f"{name} is unchanged")  # fmt: skip
        else:
            verb = "rises" if d["diff"] > 0 else "falls"
            parts.append(f"{name} {verb} from {fmt_value(q.metric, base['mean'])} to "
                         f"{fmt_value(q.metric, cell['mean'])}")  # fmt: skip
    return f"With {best['words']}, " + "; ".join(parts) + "."
