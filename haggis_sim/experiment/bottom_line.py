"""The bottom line of an experiment: the answer in one to three plain sentences.

What a designer reads first (the box at the top of ``index.html``, the first lines of
``summary.md``): the question's metric at the top rung of the ladder (or the single
population) as absolute levels with their 95% intervals, who played and how many games;
then whether the answer has converged with player strength; then, where a study ran, the
lines of its advice that won when followed in play.

Everything here reads ``summary.json`` data and claims no more than the verdicts do: an
arm is "best" only when the summary's top arm is separable from every other (kind
``best``, :func:`.summary.top_arm`); a difference from the baseline is called higher or
lower only when its interval excludes 0 (:func:`.separation.sign`). A summary written
before a field existed (labels, head-to-head arms, the ladder) still gets a bottom line.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from strategies import StrategyError

from ..analytics.compare import BINARY_METRICS, fmt_change, fmt_value
from ..runner.seating import base_entries
from .separation import num, sign
from .spec import short_spec
from .verdicts import apart, arm_labels, bracket, resolve_text

#: the short words of the ladder's convergence verdicts (:mod:`.ladder`)
CONVERGED = "converged: the two strongest players agree"

#: a difference from the baseline in words, by :func:`.separation.sign`
VS_BASELINE = {1: "above the baseline", -1: "below the baseline",
               0: "no difference from the baseline separable"}  # fmt: skip


def level(metric: str, row: dict[str, Any]) -> str:
    """A level with its interval: ``41.0% [39.8%, 42.2%]``."""
    return f"{fmt_value(metric, num(row['mean']))} {bracket(metric, row['low'], row['high'])}"


def change(metric: str, d: dict[str, Any]) -> str:
    """A difference with its interval: ``+1.2 points [-0.3, +2.7]``."""
    return f"{fmt_change(metric, num(d['diff']))} {bracket(metric, d['low'], d['high'], True)}"


def players_text(arm: dict[str, Any]) -> str:
    """Who plays an arm, short, seat by seat as the runner fills them (the strategies
    list repeated: ``a, b`` at 3 players seats ``a`` twice), each strategy named with the
    parameters it plays by that differ from its defaults (:func:`.spec.short_spec`), so
    a stronger version of a strategy is not mistaken for the default one.

    >>> players_text({"strategies": ["learned", "heuristic"], "players": 3})
    'learned ×2 vs heuristic'
    >>> players_text({"strategies": ["learned", "heuristic", "heuristic"], "players": 3})
    'learned vs heuristic ×2'
    >>> from strategies import make  # a summary records every spec in full
    >>> recorded = [make("mcts:iters=400").spec, make("mcts").spec, make("mcts").spec]
    >>> players_text({"strategies": recorded, "players": 3})
    'mcts:iters=400 vs mcts ×2'
    >>> players_text({"strategies": ["heuristic", "mcts:value=game,model=mix2"], "players": 2})
    'heuristic vs mcts:value=game,model=mix2'
    >>> players_text({"strategies": ["learned"], "players": 3})
    '3 learned players'
    >>> players_text({"strategies": ["plugin:a=1", "plugin"], "players": 3})  # not known here
    'plugin:a=1 ×2 vs plugin'
    """
    specs = arm["strategies"]
    seated = [_short_or_as_written(specs[e]) for e in base_entries(len(specs), arm["players"])]
    if len(set(seated)) == 1:
        return f"{len(seated)} {seated[0]} players"
    count = Counter(seated)
    return " vs ".join(f"{n} ×{k}" if k > 1 else n for n, k in count.items())


def _short_or_as_written(spec: str) -> str:
    """``spec`` short, or as written when its strategy is not known here (a summary
    written elsewhere, with a strategy this installation lacks)."""
    try:
        return short_spec(spec)
    except StrategyError:
        return spec


def tied_text(top: dict[str, Any], labels: dict[str, str]) -> str:
    """The arms tied with the top one, at most three named."""
    tied = ", ".join(labels[a] for a in top["tied"][:3])
    return tied + ("…" if len(top["tied"]) > 3 else "")


def answer(summary: dict[str, Any], where: str = "") -> str:
    """The answer of one population's summary by the question's metric, after ``where``
    (``At the top rung (vs-mcts)``) and the metric in words: the baseline's level; the
    best arm when it is separable (else the top arm, tied, and the games that would
    resolve it); the top's difference from the baseline; players and games."""
    metric = summary["metric"]
    labels = arm_labels(summary)
    rows = summary["results"][metric]["rows"]
    base = rows[0]
    words = summary["metrics_described"][metric].split(";")[0].split(" (")[0]
    what = f"how often {words}" if metric in BINARY_METRICS else words
    head = f"{where}, {what} ({metric}): " if where else f"{what[0].upper()}{what[1:]} ({metric}): "
    parts = [f"{labels[base['arm']]} (baseline) {level(metric, base)}"]
    top = summary["results"][metric].get("top")
    skip = apart(summary)
    if top and top["arm"] not in skip and top["arm"] != base["arm"] and top.get("kind"):
        row = next(r for r in rows if r["arm"] == top["arm"])
        name = labels[top["arm"]]
        if top["kind"] == "best":
            parts.append(f"best: {name} {level(metric, row)}, separable from every other arm")
        elif top["kind"] == "tied":
            more = resolve_text(metric, top.get("more_games"), labels).replace(" — ", "; ")
            parts.append(f"no best arm: the top, {name} {level(metric, row)}, is tied with "
                         f"{tied_text(top, labels)} ({more})")  # fmt: skip
        d = row["vs_first"]
        if d.get("diff") is not None:
            said = VS_BASELINE[sign(d)]
            parts.append(f"{name} − baseline {change(metric, d)}: {said}")
    elif top is None or top["arm"] in skip:  # an older summary ranked a head-to-head arm
        ranked = [r for r in rows[1:] if r["arm"] not in skip and r["mean"] is not None]
        if ranked:
            pick = max if summary.get("goal", "max") == "max" else min
            row = pick(ranked, key=lambda r: r["mean"])
            name, d = labels[row["arm"]], row["vs_first"]
            said = VS_BASELINE[sign(d)]
            parts.append(f"the top mean of the other arms: {name} {level(metric, row)}; "
                         f"{name} − baseline {change(metric, d)}: {said}")  # fmt: skip
    elif top["arm"] == base["arm"] and top.get("kind") == "best":
        parts[0] = f"best: {labels[base['arm']]} (baseline) {level(metric, base)}, " \
                   "separable from every other arm"  # fmt: skip
    elif top["arm"] == base["arm"] and top.get("kind") == "tied":
        more = resolve_text(metric, top.get("more_games"), labels).replace(" — ", "; ")
        parts.append(f"no best arm: the baseline is on top, tied with "
                     f"{tied_text(top, labels)} ({more})")  # fmt: skip
    arm0 = summary["arms"][0]
    who = f"{players_text(arm0)}, {summary['games_per_arm']:,} games per arm"
    return head + "; ".join(parts) + f" ({who})."


def convergence(summary: dict[str, Any]) -> str | None:
    """Whether the question's answer has converged with player strength, short: the
    ladder's verdict (:mod:`.ladder`) with what moves or what more games would tell;
    None without a ladder."""
    if "ladder" not in summary:
        return None
    metric = summary["metric"]
    lm = summary["ladder"]["metrics"][metric]
    if lm["verdict"] == "converged":
        return f"{CONVERGED} ({lm['second']} and {lm['top']})."
    if lm["verdict"] == "still moving":
        labels = arm_labels(summary["populations"][-1]["summary"])
        moving = [(a, i) for a, i in lm["interactions"].items() if sign(i)]
        moving.sort(key=lambda x: -abs(num(x[1]["diff"])))
        base = next(iter(lm["table"]))
        said = [
            f"{labels.get(a, a)}{'' if lm['single_arm'] else ' − ' + labels.get(base, base)} "
            f"changes by {fmt_change(metric, num(i['diff']))} from {lm['second']} to {lm['top']}"
            for a, i in moving[:2]
        ]
        return "still moving with strength: " + "; ".join(said) + "."
    more = lm["sentence"].partition("; about ")[2].rstrip(".")
    return "not known whether it has converged" + (f": about {more}." if more else ".")


def study_headline(study: dict[str, Any]) -> str:
    """A study's headline: how many of its lines are advice that won when followed in
    play, and the first of them with its winning result."""
    records = study.get("advice") or []
    if not study.get("followed_games"):
        return f"Study {study['label']}: not tested in play, so no line of it is advice yet."
    won = [(line, rec) for line, rec in zip(study["guidance"], records, strict=False)
           if (rec.get("followed") or {}).get("status") == "advice"]  # fmt: skip
    if not won:
        return no_advice_headline(study, records)
    line, rec = won[0]
    wins = [b["text"] for b in rec["followed"]["bases"] if b["text"].split()[1][0] == "+"]
    return (
        f"Study {study['label']}: {len(won)} of {len(records)} lines are advice that won "
        f"when followed in play, e.g. “{line.partition(':')[0]}” "
        f"({(wins or [b['text'] for b in rec['followed']['bases']])[0]})."
    )


def no_advice_headline(study: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """A study none of whose lines won in play: how many were followed, how many lost
    (the first with its worst result) and how many were not confirmed either way."""
    status = [(rec.get("followed") or {}).get("status") for rec in records]
    followed = [s for s in status if s]
    head = f"Study {study['label']}: none of its {len(records)} lines is advice"
    if not followed:
        return head + " (no line had a clear counterfactual to follow in play)."
    failed = [
        (line, rec)
        for line, rec, st in zip(study["guidance"], records, status, strict=False)
        if st == "failed"
    ]
    said = f"{len(followed)} with a clear counterfactual were followed in play"
    if failed:
        line, rec = failed[0]
        worst = min(rec["followed"]["bases"], key=lambda b: num(b.get("points")))
        rest = len(followed) - len(failed)
        said += (f": {len(failed)} lost, e.g. following “{line.partition(':')[0]}” lost "
                 f"({worst['text']}), {rest} not confirmed either way")  # fmt: skip
    else:
        said += ", none confirmed either way"
    return f"{head}; {said}."


def bottom_line(summary: dict[str, Any]) -> list[str]:
    """The bottom line: the answer (at the top rung of a ladder, per population without
    one, or of the single population), its convergence, each study's headline."""
    if "populations" not in summary:
        lines = [answer(summary)]
    elif "ladder" in summary:
        top = summary["populations"][-1]
        lines = [answer(top["summary"], f"At the top rung ({top['name']})")]
    else:
        lines = [answer(p["summary"], f"In {p['name']}") for p in summary["populations"]]
    conv = convergence(summary)
    if conv:
        lines.append(conv[0].upper() + conv[1:])
    lines += [study_headline(s) for s in summary.get("studies", [])]
    return lines
