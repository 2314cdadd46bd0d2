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

A candidate is judged against the base rules on the fresh deals, objective by objective,
from the paired difference's 95% interval: *better* beyond doubt when every difference in
the interval moves the objective the right way (a ``fair`` or ``near`` objective: nearer
its aim than the base rules are, at both ends), *worse* beyond doubt when none does. It
**holds up** when every constraint's interval lies within its bounds and some objective is
better beyond doubt (another may be worse: a trade the headline states); it **does not
hold up** when a constraint's interval lies outside its bounds or no objective is better
beyond doubt; otherwise (a constraint's interval straddles a bound) it is **not
settled**. The search's own estimates are not the yardstick: they carry the winner's curse
(a candidate near a ``fair`` aim on the search's deals is, by selection, nearer than it is).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..analytics.compare import fmt_value
from ..experiment import parse_experiment, run_experiment
from ..experiment.labels import short_spec
from ..runner.seating import games_per_deal
from .search import Candidate, Say, aim_of, losses, quantities, violations
from .spec import Design, Objective, json_flags, quantity, whole_deals

MAX_SEED = 2**63 - 1
PLAYERS, CHECK = "players", "check"  # the confirmation's populations with [confirm] check
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
    base = design.base_flags
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


def confirm_toml(
    design: Design,
    chosen: list[Candidate],
    base_search: Candidate | None,
    name: str = "",
    first_number: int = 1,
) -> str:
    """The confirmation experiment as a file (named ``name``, default ``<design>-confirm``):
    the base rules first, then each candidate as ``candidate-<n>`` from ``first_number``;
    with ``[confirm] check``, a second population of those players."""
    first = design.objectives[0]
    goal = first.goal
    if goal in ("fair", "near"):  # towards the aim from where the base rules stand
        aim = aim_of(design, first)
        now = base_search.estimates[first.quantity].mean if base_search else aim
        goal = "min" if now > aim else "max"
    metrics = [quantity(k).metric for k in quantities(design)]
    lines = [
        f"# haggis-sim experiment: design {design.name!r} confirmed on fresh deals",
        f"name = {json.dumps(name or design.name + '-confirm')}",
        f"question = {json.dumps(_question(design))}",
        f"games = {whole_deals(design.confirm.games, design.deal_games)}",
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
        lines += ["", "[[arms]]", f"name = {json.dumps(arm_name(first_number + i))}"]
        lines += [f"label = {json.dumps(words(cand.flags))}", "[arms.rule]", *_flags(cand.flags)]
    sizing = []
    if design.confirm.precision is not None:
        sizing = [f"precision = {design.confirm.precision!r}"]
        if design.confirm.budget is not None:
            sizing.append(f"budget = {design.confirm.budget}")
    if not design.confirm.check:
        lines[4:4] = sizing  # after games: the question's sizing
    else:
        check = design.confirm.check
        games = design.confirm.check_games or design.confirm.games
        deal = games_per_deal("rotate", design.players, len(check))
        first_batch = whole_deals(design.confirm.games, design.deal_games)
        lines += ["", "[[populations]]", f"name = {json.dumps(PLAYERS)}",
                  f"games = {first_batch}", *sizing]  # fmt: skip
        lines += ["", "[[populations]]", f"name = {json.dumps(CHECK)}"]
        lines += [f"games = {whole_deals(games, deal)}", f"strategies = {json.dumps(list(check))}"]
    return "\n".join(lines) + "\n"


def _question(design: Design) -> str:
    return (
        f"{design.question.strip()} (the design search's candidates re-played on fresh deals "
        "beside the base rules)"
    )


def _flags(flags: dict[str, Any]) -> list[str]:
    return [f"{k} = {json.dumps(v)}" for k, v in json_flags(flags).items()]


def arm_name(number: int) -> str:
    """The confirmation experiment's arm of the ``number``-th candidate (from 1)."""
    return f"candidate-{number}"


def flag_text(value: Any) -> Any:
    """A knob value as a person reads it: a list's values joined by commas."""
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else value


def words(flags: dict[str, Any]) -> str:
    """A knob setting in words: ``out_points 4, target_score 300``."""
    return ", ".join(f"{k} {flag_text(v)}" for k, v in flags.items())


def players_words(strategies: Iterable[str]) -> str:
    """Who played, as a person writes it: ``mcts and learned``."""
    return " and ".join(dict.fromkeys(short_spec(s) for s in strategies))


def confirm(
    design: Design, chosen: list[Candidate], base_search: Candidate | None, out: Path, jobs: int,
    say: Say,
) -> dict[str, Any]:  # fmt: skip
    """Play the confirmation experiment into ``out/confirm`` and judge each candidate on
    the design's players; the check population's figures beside."""
    text = confirm_toml(design, chosen, base_search)
    exp = parse_experiment(tomllib.loads(text), text=text)
    summary = run_experiment(exp, out / "confirm", jobs=jobs, log=say, report=False)
    groups = _cells(summary["balance"])
    cells = groups[PLAYERS if design.confirm.check else None]
    result: dict[str, Any] = {
        "experiment": "confirm", "seed": fresh_seed(design), "games": exp.games,
        "base": _figures(design, cells, "base"),
        "candidates": [judge(design, c, arm_name(i), cells) for i, c in enumerate(chosen, start=1)],
    }  # fmt: skip
    if design.confirm.check:
        check = groups[CHECK]
        arms = [arm_name(i) for i in range(1, len(chosen) + 1)]
        result["check"] = {
            "strategies": list(design.confirm.check),
            "games": exp.populations[1].games,
            "base": _figures(design, check, "base"),
            "candidates": [_figures(design, check, arm) for arm in arms],
        }  # fmt: skip
    return result


def _cells(balance: dict[str, Any]) -> dict[str | None, dict[tuple[str, str], dict[str, Any]]]:
    """The balance table's cells by population, then by (quantity, arm)."""
    return {
        group["population"]: {
            (row["quantity"], c["arm"]): c for row in group["rows"] for c in row["cells"]
        }
        for group in balance["groups"]
    }


def _figures(
    design: Design, cells: dict[tuple[str, str], dict[str, Any]], arm: str
) -> dict[str, Any]:
    return {k: cells[(k, arm)] for k in quantities(design)}


def judge(
    design: Design, cand: Candidate, arm: str, cells: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    """A candidate's confirmed figures and verdict (see the module's docstring)."""
    figures = _figures(design, cells, arm)
    base = _figures(design, cells, "base")
    missed = unsettled = False
    notes = []
    for c in design.constraints:
        f = figures[c.quantity]
        if (c.at_least is not None and f["high"] < c.at_least) or (
            c.at_most is not None and f["low"] > c.at_most
        ):
            missed = True
            notes.append(f"misses the constraint on {c.quantity}")
        elif c.violation(f["low"]) > 0 or c.violation(f["high"]) > 0:
            unsettled = True
            notes.append(f"the constraint on {c.quantity} is not settled")
    changes = {o.quantity: change(design, o, base[o.quantity], figures[o.quantity])
               for o in design.objectives}  # fmt: skip
    if "better" not in changes.values():
        missed = True
        notes.append("no objective better than today's rules beyond doubt")
    verdict = "does not hold up" if missed else "not settled" if unsettled else "holds up"
    return {
        "name": cand.name, "arm": arm, "flags": json_flags(cand.flags), "words": words(cand.flags),
        "verdict": verdict, "notes": notes, "changes": changes, "figures": figures,
        "search": {k: e.mean for k, e in cand.estimates.items()},
    }  # fmt: skip


def change(design: Design, objective: Objective, base: dict[str, Any], cell: dict[str, Any]) -> str:
    """``better``, ``worse`` or ``same`` (not separable) for one objective: the candidate's
    paired difference from the base rules (``cell["vs_first"]``), judged at both ends of
    its 95% interval; for ``fair`` and ``near`` by the distance from the aim, the base
    rules' value taken as measured."""
    d = cell["vs_first"]
    if d is None or d["low"] is None:
        return "same"
    if objective.goal in ("min", "max"):
        sign = 1.0 if objective.goal == "min" else -1.0  # a change that lowers the loss
        ends = (sign * d["low"], sign * d["high"])
    else:
        aim, was = aim_of(design, objective), base["mean"]
        # the distance's change is convex in the difference: its largest is at an end,
        # its smallest at an end or where the candidate sits on the aim (then below 0)
        ends = tuple(abs(was + x - aim) - abs(was - aim) for x in (d["low"], d["high"]))
        if d["low"] <= aim - was <= d["high"]:
            ends = (min(*ends, -abs(was - aim)), max(ends))
    if max(ends) < 0:
        return "better"
    if min(ends) > 0:
        return "worse"
    return "same"


def headline(design: Design, result: dict[str, Any]) -> str:
    """The answer in plain words: the first candidate that held up, objective by
    objective against the base rules (with the check players' result where there is
    one); or that none did."""
    held = [i for i, r in enumerate(result["candidates"]) if r["verdict"] == "holds up"]
    if not held:
        tried = "; ".join(f"{r['words']}: {r['notes'][0]}" for r in result["candidates"])
        return (
            f"No candidate held up on fresh deals ({tried}); today's rules ({design.rules}) "
            "stay the reference."
        )
    best = result["candidates"][held[0]]
    text = (
        f"With {best['words']}, " + changes_in_words(design, result["base"], best["figures"]) + "."
    )
    check = result.get("check")
    if check:
        who = players_words(check["strategies"])
        text += (
            f" With {who} players: "
            + changes_in_words(design, check["base"], check["candidates"][held[0]])
            + "."
        )
    return text


def changes_in_words(design: Design, base: dict[str, Any], figures: dict[str, Any]) -> str:
    """Each objective's, then each other constrained quantity's, change from the base
    rules in words: "rises from A to B" where the paired difference's interval excludes 0,
    else "does not change measurably"."""
    aims = {o.quantity: (o.goal, aim_of(design, o)) for o in design.objectives}
    keys = list(aims) + [c.quantity for c in design.constraints if c.quantity not in aims]
    parts = []
    for key in dict.fromkeys(keys):
        metric = quantity(key).metric
        d = figures[key]["vs_first"]
        was = fmt_value(metric, base[key]["mean"])
        if d is None or d["low"] is None or d["low"] <= 0 <= d["high"]:
            parts.append(f"{NAMES[key]} does not change measurably (today {was})")
            continue
        verb = "rises" if d["diff"] > 0 else "falls"
        now = fmt_value(metric, figures[key]["mean"])
        goal, aim = aims.get(key, ("", 0.0))
        aimed = f" (aim {fmt_value(metric, aim)})" if goal in ("fair", "near") else ""
        parts.append(f"{NAMES[key]} {verb} from {was} to {now}{aimed}")
    return "; ".join(parts)
