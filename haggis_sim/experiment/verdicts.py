"""The wording of an experiment's results: table rows, verdict, fair-share and best-arm
sentences, short arm labels, and whether an answer holds across player populations.

Everything here reads a summary (see :mod:`.summary`) and returns text or plain data,
so the Markdown and the HTML page (:mod:`.page`) say the same thing in the same words.
"""

from __future__ import annotations

import math
from typing import Any

from strategies import parse_spec

from ..analytics.compare import (
    ENTRY_METRICS,
    PAIRING_METRICS,
    fair_claim,
    fmt_interval,
    fmt_value,
    no_pairing_note,
)


def num(v: float | None) -> float:
    """A summary number (None for no value) as a float (NaN for no value)."""
    return math.nan if v is None else float(v)


def result_rows(summary: dict[str, Any], metric: str) -> list[list[str]]:
    """Display rows of one metric: arm, games, value, interval, Δ vs first, its interval."""
    rows = []
    for i, r in enumerate(summary["results"][metric]["rows"]):
        d = r["vs_first"]
        if r.get("no_pairing"):
            base = "(baseline)" if i == 0 else ""
            rows.append([r["arm"], f"{r['n']:,}", "no pairing", "", base, ""])
            continue
        rows.append(
            [
                r["arm"],
                f"{r['n']:,}",
                fmt_value(metric, num(r["mean"])),
                fmt_interval(metric, num(r["low"]), num(r["high"])),
                "(baseline)" if i == 0 else fmt_value(metric, num(d["diff"]), signed=True),
                ""
                if i == 0
                else fmt_interval(metric, num(d["low"]), num(d["high"]), signed=True)
                + ("" if d["paired"] else " (unpaired)"),
            ]
        )
    return rows


ROW_HEADER = ["arm", "games", "value", "95% interval", "Δ vs first arm", "95% interval of Δ"]


def best_line(summary: dict[str, Any]) -> str:
    """The best arm by the question's metric and how clearly it leads its runner-up."""
    best = summary["best"]
    metric = summary["metric"]
    if best is None:
        if metric in PAIRING_METRICS and all(a.get("no_pairing") for a in summary["arms"]):
            return f"best arm by {metric}: none; {no_pairing_note('in every arm')}"
        return "best arm: none (no values)"
    text = (
        f"best arm by {metric} ({summary['goal']}): {best['arm']} = "
        f"{fmt_value(metric, num(best['mean']))} "
        f"(95% {fmt_interval(metric, num(best['low']), num(best['high']))})"
    )
    if "runner_up" in best:
        d = best["vs_runner_up"]
        verdict = "clearly ahead" if best["clear"] else "not separable at 95%"
        text += (
            f"; vs runner-up {best['runner_up']}: "
            f"{fmt_value(metric, num(d['diff']), signed=True)} "
            f"(95% {fmt_interval(metric, num(d['low']), num(d['high']), signed=True)}"
            f"{'' if d['paired'] else ', unpaired'}) — {verdict}"
        )
    return text


def arm_labels(summary: dict[str, Any]) -> dict[str, str]:
    """A short, distinct label per arm built from exactly what differs between the arms.

    Per ``--strategies`` entry: its strategy name where names differ between arms, and the
    parameters whose values differ between the arms playing that strategy at that entry
    (``bomb=early`` rather than ``heuristic:bet=0.55,...,bomb=early,...``) — for an arm
    other than the baseline (the first) only those that differ from the baseline's; entries
    are joined by " vs " when more than one differs. Then the rules label and the player count
    where they differ. An arm falls back to its name when labels would not be distinct.
    """
    arms = summary["arms"]
    n_entries = max(len(a["strategies"]) for a in arms)
    parsed = [[parse_spec(s) for s in a["strategies"]] for a in arms]

    def entry(i: int, e: int) -> tuple[str, dict[str, str]] | None:
        return parsed[i][e] if e < len(parsed[i]) else None

    texts: list[list[str]] = [[] for _ in arms]
    for e in range(n_entries):
        names = {(entry(i, e) or ("", {}))[0] for i in range(len(arms))}
        parts = []
        for i in range(len(arms)):
            got = entry(i, e)
            if got is None:
                parts.append("")
                continue
            name, params = got
            same = [p[e][1] for p in parsed if e < len(p) and p[e][0] == name]
            keys = [k for k in params if len({p.get(k) for p in same}) > 1]
            base = entry(0, e)
            if i > 0 and base is not None and base[0] == name:  # only what the baseline lacks
                keys = [k for k in keys if params[k] != base[1].get(k)]
            shown = ",".join(f"{k}={params[k]}" for k in keys)
            if len(names) > 1:
                shown = name + (f":{shown}" if shown else "")
            parts.append(shown)
        if any(parts):
            for i, part in enumerate(parts):
                got = entry(i, e)
                if got is not None:  # an entry like the baseline's shows its name
                    texts[i].append(part or got[0])
    labels = []
    for i, arm in enumerate(arms):
        bits = [" vs ".join(texts[i])] if texts[i] else []
        if len({a["rules"] for a in arms}) > 1:
            bits.append(arm["rules"])
        if len({a["players"] for a in arms}) > 1:
            bits.append(f"{arm['players']} players")
        labels.append("; ".join(bits) or arm["name"])
    if len(set(labels)) < len(labels):
        labels = [a["name"] for a in arms]
    return {a["name"]: label for a, label in zip(arms, labels, strict=True)}


def metric_words(summary: dict[str, Any], metric: str) -> str:
    """The metric's description, with the entry it is measured for where it has one."""
    desc = summary["metrics_described"][metric]
    return desc + (f" (entry #{summary['entry']})" if metric in ENTRY_METRICS else "")


def verdict_sentence(summary: dict[str, Any], metric: str, labels: dict[str, str]) -> str:
    """One sentence: the baseline's value, then each arm's paired difference from it with
    its 95% interval, grouped into higher, lower and not separable at 95%."""
    rows = summary["results"][metric]["rows"]
    base = rows[0]
    head = f"{metric} — {metric_words(summary, metric)}: "
    if base.get("no_pairing"):
        head += f"no value for the baseline {labels[base['arm']]} (one strategy fills every seat)"
    else:
        head += (
            f"{labels[base['arm']]} (baseline) {fmt_value(metric, num(base['mean']))} "
            f"(95% {fmt_interval(metric, num(base['low']), num(base['high']))})"
        )
    groups: dict[str, list[tuple[float, str]]] = {
        "higher": [], "lower": [], "same": [], "open": [], "none": []
    }  # fmt: skip
    for r in rows[1:]:
        d = r["vs_first"]
        diff, low, high = num(d["diff"]), num(d["low"]), num(d["high"])
        if math.isnan(diff):
            groups["none"].append((0.0, labels[r["arm"]]))
            continue
        text = (
            f"{labels[r['arm']]} {fmt_value(metric, diff, signed=True)} "
            f"(95% {fmt_interval(metric, low, high, signed=True)}"
            f"{'' if d['paired'] else ', unpaired: different deals'})"
        )
        if math.isnan(low) or math.isnan(high):  # a claim of no difference needs an interval
            kind = "open"
        else:
            kind = "higher" if low > 0 else "lower" if high < 0 else "same"
        groups[kind].append((abs(diff), text))
    words = {
        "higher": "higher in",
        "lower": "lower in",
        "same": "no difference separable at 95% in",
        "open": "no interval (too few deals) in",
        "none": "no value in",
    }
    parts = [
        f"{words[k]} " + ", ".join(t for _, t in sorted(v, key=lambda x: -x[0]))
        for k, v in groups.items()
        if v
    ]
    fair = fair_sentence(summary, metric, labels)
    if len(rows) == 1:
        return head + "." + fair
    return head + "; " + "; ".join(parts) + "." + fair


def fair_sentence(summary: dict[str, Any], metric: str, labels: dict[str, str]) -> str:
    """`` Against a fair share: ARM no edge …; ARM an edge of …`` for a metric with a fair
    value (:func:`fair_value`), each arm by :func:`fair_claim`; "" for other metrics."""
    parts = [
        f"{labels[r['arm']]} "
        + fair_claim(metric, num(r["mean"]), num(r["low"]), num(r["high"]), r["fair"])
        for r in summary["results"][metric]["rows"]
        if r.get("fair") is not None and not r.get("no_pairing")
    ]
    return f" Against a fair share: {'; '.join(parts)}." if parts else ""


def _sign(d: dict[str, Any]) -> int:
    """+1 / -1 when the interval of a difference lies above / below zero, else 0."""
    low, high = num(d.get("low")), num(d.get("high"))
    return 1 if low > 0 else -1 if high < 0 else 0


def _population_view(summary: dict[str, Any], metric: str) -> dict[str, Any]:
    """One population's side of a metric: ranking, top arm, clear signs vs the first arm."""
    rows = summary["results"][metric]["rows"]
    question = metric == summary["metric"]
    lowest_first = question and summary["goal"] == "min"
    valued = [r for r in rows if r["mean"] is not None]
    ranking = [r["arm"] for r in sorted(valued, key=lambda r: r["mean"], reverse=not lowest_first)]
    signs = {r["arm"]: _sign(r["vs_first"]) for r in rows[1:] if _sign(r["vs_first"])}
    best = summary.get("best") if question else None
    top_clear = bool(best and best.get("clear")) if question else None
    return {
        "ranking": ranking,
        "means": {r["arm"]: r["mean"] for r in valued},
        "top": ranking[0] if ranking else None,
        "top_clear": top_clear,
        "signs": signs,
        "separable": bool(signs) or bool(top_clear),
    }


def cross_population(named: list[tuple[str, dict[str, Any]]], metric: str) -> dict[str, Any]:
    """Whether the answer by ``metric`` holds in every population.

    ``named``: (population, its summary) with the baseline population first. Per
    population: the ranking of the arms (by the experiment's goal for the question's
    metric, highest first for the others), the top arm, and the sign of each arm's
    difference from the first arm where its 95% interval excludes 0. A population where
    no difference excludes 0 (and, for the question's metric, the best arm is not clearly
    ahead) is *not separable*: it can neither confirm nor contradict. The verdict is
    ``holds`` (every population separable, the same top arm, no clear sign reversed
    between populations), ``disagrees`` (a separable population has another top arm, or an
    arm is clearly above the first arm in one population and clearly below in another) or
    ``unclear`` (no disagreement, but some population is not separable), with a sentence.
    """
    views = {name: _population_view(s, metric) for name, s in named}
    question = metric == named[0][1]["metric"]
    first_arm = named[0][1]["results"][metric]["rows"][0]["arm"]
    top_word = "best arm" if question else "highest arm"
    separable = [n for n, v in views.items() if v["separable"]]
    blurred = [n for n, v in views.items() if not v["separable"]]
    tops: dict[str, list[str]] = {}
    for n in separable:
        if views[n]["top"] is not None:
            tops.setdefault(views[n]["top"], []).append(n)
    problems: list[str] = []
    if len(tops) > 1:
        clear = [n for n in separable if views[n]["top_clear"]]
        problems.append(_tops_differ(tops, top_word, clear if question else None))
    reversed_arms = _reversed_arms(views, first_arm, problems)
    not_sep = (
        f"not separable in {_pops(blurred)} (no arm's difference from {first_arm} excludes 0)"
        if blurred
        else ""
    )
    if problems:
        verdict = "disagrees"
        sentence = "Disagrees across populations: " + "; ".join(problems)
        sentence += f"; {not_sep}." if not_sep else "."
    elif not separable:
        verdict = "unclear"
        sentence = (
            f"Not separable in any population ({', '.join(blurred)}): no arm's difference "
            f"from {first_arm} excludes 0."
        )
    else:
        top = next(iter(tops), None)
        same = (
            f"{top_word} {top}{' in each' if len(separable) > 1 else ''}, no clear "
            f"difference from {first_arm} changes sign"
            if top
            else f"no clear difference from {first_arm} changes sign"
        )
        verdict = "unclear" if blurred else "holds"
        sentence = (
            f"Holds in {_pops(separable)} ({same}); {not_sep}."
            if blurred
            else f"Holds in every population ({same})."
        )
    return {
        "verdict": verdict,
        "sentence": sentence,
        "not_separable": blurred,
        "reversed": reversed_arms,
        "tops": tops,
        "populations": views,
    }


def _tops_differ(tops: dict[str, list[str]], top_word: str, clear: list[str] | None) -> str:
    """The top arm differs between separable populations; ``clear`` (for the question's
    metric): the populations where the top arm is clearly ahead of its runner-up."""
    return (
        f"the {top_word} differs: "
        + "; ".join(f"{arm} in {_pops(ns)}" for arm, ns in tops.items())
        + (
            ""
            if clear is None
            else f" (clearly ahead of its runner-up in {_pops(clear)})"
            if clear
            else " (in none clearly ahead of its runner-up)"
        )
    )


def _reversed_arms(
    views: dict[str, dict[str, Any]], first_arm: str, problems: list[str]
) -> list[str]:
    """Arms clearly above the first arm in one population and clearly below in another
    (each also appended to ``problems`` as a sentence part)."""
    reversed_arms = []
    arms = dict.fromkeys(a for v in views.values() for a in v["signs"])
    for arm in arms:
        up = [n for n, v in views.items() if v["signs"].get(arm) == 1]
        down = [n for n, v in views.items() if v["signs"].get(arm) == -1]
        if up and down:
            reversed_arms.append(arm)
            problems.append(
                f"{arm} is clearly above {first_arm} in {_pops(up)} but clearly below in "
                f"{_pops(down)}"
            )
    return reversed_arms


def _pops(names: list[str]) -> str:
    return ("population " if len(names) == 1 else "populations ") + ", ".join(names)
