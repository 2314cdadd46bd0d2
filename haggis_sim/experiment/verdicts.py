"""The wording of an experiment's results: table rows, verdict, fair-share and best-arm
sentences, short arm labels, and whether an answer holds across player populations.

Everything here reads a summary (see :mod:`.summary`) and returns text or plain data,
so the Markdown and the HTML page (:mod:`.page`) say the same thing in the same words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from scipy.stats import norm

from strategies import parse_spec

from ..analytics.compare import (
    ENTRY_METRICS,
    PAIRING_METRICS,
    fair_claim,
    fmt_change,
    fmt_interval,
    fmt_value,
    fmt_width,
    no_pairing_note,
)
from .separation import interaction, num, sign


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
                "(baseline)" if i == 0 else fmt_change(metric, num(d["diff"])),
                ""
                if i == 0
                else change_interval(metric, num(d["low"]), num(d["high"]))
                + ("" if d["paired"] else " (unpaired)"),
            ]
        )
    return rows


ROW_HEADER = ["arm", "games", "value", "95% interval", "Δ vs first arm", "95% interval of Δ"]


def change_interval(metric: str, low: float, high: float) -> str:
    """The interval of a difference in the difference's units: ``-0.8 … +0.3 points`` for
    a rate or a share (percentage points, never ``%``), signed values otherwise.

    >>> change_interval("win_rate", -0.008, 0.003), change_interval("rounds", -0.3, -0.1)
    ('-0.8 … +0.3 points', '-0.30 … -0.10')
    """
    if math.isnan(low) or math.isnan(high):
        return "–"
    if fmt_change(metric, low).endswith(" points"):
        return f"{low * 100:+.1f} … {high * 100:+.1f} points"
    return fmt_interval(metric, low, high, signed=True)


def best_line(summary: dict[str, Any]) -> str:
    """The best arm by the question's metric as a statistic: separable from every other arm
    (kind ``best``) or tied with the arms it is not separable from, and then how many more
    games would resolve it (see :func:`~haggis_sim.experiment.summary.top_arm`)."""
    best = summary["best"]
    metric = summary["metric"]
    if best is None:
        if metric in PAIRING_METRICS and all(a.get("no_pairing") for a in summary["arms"]):
            return f"best arm by {metric}: none; {no_pairing_note('in every arm')}"
        return "best arm: none (no values)"
    value = (
        f"{best['arm']} = {fmt_value(metric, num(best['mean']))} "
        f"(95% {fmt_interval(metric, num(best['low']), num(best['high']))})"
    )
    head = f"best arm by {metric} ({summary['goal']})"
    if "runner_up" not in best:
        return f"{head}: {value}"
    runner = f"vs runner-up {best['runner_up']}: {diff_text(metric, best['vs_runner_up'])}"
    # a summary.json written before kinds existed has only "clear" (its pages still render)
    kind = best.get("kind") or ("best" if best.get("clear") else "tied")
    if kind == "best":
        return f"{head}: {value}, separable from every other arm; {runner}"
    tied = best.get("tied") or [best["runner_up"]]
    return (
        f"{head}: none separable — {value} is tied with {', '.join(tied)} "
        f"({runner}); {resolve_text(metric, best.get('more_games'))}"
    )


def diff_text(metric: str, d: dict[str, Any]) -> str:
    """A difference as ``+1.2% (95% -0.3% … +2.7%)``, marked when it is not paired."""
    return (
        f"{fmt_value(metric, num(d['diff']), signed=True)} "
        f"(95% {fmt_interval(metric, num(d['low']), num(d['high']), signed=True)}"
        f"{'' if d.get('paired', True) else ', unpaired'})"
    )


def bracket(metric: str, low: Any, high: Any, change: bool = False) -> str:
    """An interval as ``[a, b]`` (a level, or with ``change`` a signed difference)."""
    fmt: Callable[[float], str] = (
        (lambda v: fmt_change(metric, v)) if change else (lambda v: fmt_value(metric, v))
    )
    return f"[{fmt(num(low))}, {fmt(num(high))}]".replace(" points", "")


def resolve_text(
    metric: str, more: dict[str, Any] | None, labels: dict[str, str] | None = None
) -> str:
    """``not separable at N games — about M more games per arm would resolve ±X points``
    from a top arm's ``more_games`` (:func:`~haggis_sim.experiment.separation.
    games_to_settle`); the half-width in the metric's units, percentage points
    ("points") for a rate. Where the observed difference is below the metric's tolerance
    the games named are those that would find a true difference of the tolerance four
    times in five, and the text says so, naming the arm the difference is to (by
    ``labels``, else its name); arms that played identical games get no games at all."""
    if more is None:
        return "not separable"
    head = f"not separable at {more['games']:,} games"
    vs = (labels or {}).get(more.get("vs", ""), more.get("vs", ""))
    if more.get("basis") == "identical":
        return f"{head} — {vs} played identical games: the difference is exactly 0"
    if more.get("more") is None:
        return f"{head} — the observed difference is 0, so no number of games is estimated"
    width = fmt_width(metric, float(more["half_width"]))
    if more.get("basis") != "tolerance":  # power-based (every summary before the basis)
        return f"{head} — about {more['more']:,} more games per arm would resolve {width}"
    diff, low, high = num(more.get("diff")), num(more.get("low")), num(more.get("high"))
    tol = float(more.get("detect", more["half_width"]))
    band = fmt_width(metric, tol)
    if more["more"] == 0 and -tol <= low and high <= tol:
        interval = bracket(metric, low, high, change=True)
        return (
            f"{head} — the difference from {vs}, {fmt_change(metric, diff)} {interval}, lies "
            f"within {band} (the tolerance): too small to matter"
        )
    size = fmt_width(metric, abs(diff)).lstrip("±")
    if "detect" not in more:  # a summary whose games narrowed the interval to the tolerance
        if more["more"] == 0:
            most = fmt_width(metric, max(abs(low), abs(high))).lstrip("±")
            return (
                f"{head} — the interval of the difference from {vs} is already as narrow as "
                f"the tolerance ({band}): they differ by at most {most}"
            )
        return (
            f"{head} — the difference from {vs} ({size}) is below the tolerance; about "
            f"{more['more']:,} more games per arm would narrow it to {band}"
        )
    if more["more"] == 0:
        return (
            f"{head} — the difference from {vs} ({size}) is below the tolerance ({band}), "
            f"and these games would find a true difference of {band.lstrip('±')} four times "
            "in five"
        )
    return (
        f"{head} — the difference from {vs} ({size}) is below the tolerance; about "
        f"{more['more']:,} more games per arm would find a true difference of "
        f"{band.lstrip('±')} (the tolerance) four times in five"
    )


def arm_labels(summary: dict[str, Any]) -> dict[str, str]:
    """A short, distinct label per arm built from exactly what differs between the arms.

    Per ``--strategies`` entry: its strategy name where names differ between arms, and the
    parameters whose values differ between the arms playing that strategy at that entry
    (``bomb=early`` rather than ``heuristic:bet=0.55,...,bomb=early,...``) — for an arm
    other than the baseline (the first) only those that differ from the baseline's; entries
    are joined by " vs " when more than one differs. Then the rules label and the player count
    where they differ. An arm falls back to its name when labels would not be distinct.
    A summary that records labels (``label`` per arm, from the experiment file) uses them.
    """
    arms = summary["arms"]
    if all(a.get("label") for a in arms):  # the experiment file's labels (arm names by default)
        return {a["name"]: a["label"] for a in arms}
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


def apart(summary: dict[str, Any]) -> set[str]:
    """The head-to-head arms of one population's summary (none in an older summary): they
    play another opponent than the baseline, so no sentence ranks them against it."""
    return {a["name"] for a in summary["arms"] if a.get("head_to_head")}


def metric_words(summary: dict[str, Any], metric: str) -> str:
    """The metric's description, with the entry it is measured for where it has one."""
    desc: str = summary["metrics_described"][metric]
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
    skip = apart(summary)
    for r in rows[1:]:
        if r["arm"] in skip:  # another opponent: its own table, not against the baseline
            continue
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


# ---------------------------------------------------------------- across populations


def _view(summary: dict[str, Any], metric: str) -> dict[str, Any]:
    """One population's side of a metric: its top arm (the summary's ``top``), the ranking
    it implies, and whether the top is separated (kind ``best``)."""
    top = summary["results"][metric]["top"]
    if top is None:
        return {"ranking": [], "top": None, "kind": None, "tied": [], "more_games": None}
    return {
        "ranking": [top["arm"], *(o["arm"] for o in top["vs_others"])],
        "top": top["arm"],
        "kind": top["kind"],
        "tied": top["tied"],
        "more_games": top["more_games"],
    }


def _top_minus(top: dict[str, Any], arm: str) -> dict[str, Any] | None:
    """The top arm's difference from ``arm`` (top minus arm), None if ``arm`` has none."""
    return next((o for o in top["vs_others"] if o["arm"] == arm), None)


def _negated(d: dict[str, Any]) -> dict[str, Any]:
    """``-d``: the same difference the other way round (its interval mirrored)."""
    return {**d, "diff": -num(d["diff"]), "low": -num(d["high"]), "high": -num(d["low"])}


def _interactions(tops: dict[str, dict[str, Any]], want: int) -> tuple[list[dict[str, Any]], int]:
    """Per pair of populations whose top arms differ (X in p, Y in q): the X − Y difference
    in p and in q and their interaction (:func:`interaction`), its interval family-wise
    (Bonferroni) over every population pair times every arm pair the tops could have been
    (the tops are picked by the data, so each arm pair is a test that could have been
    made); ``separable`` when it excludes 0 in the direction the tops point (``want``:
    +1 for goal max). Returns the tested pairs and the number of tests corrected for."""
    names = list(tops)
    pairs = [(p, q) for i, p in enumerate(names) for q in names[i + 1:]
             if tops[p]["arm"] != tops[q]["arm"]]  # fmt: skip
    arms = max(1 + len(t["vs_others"]) for t in tops.values()) if tops else 1
    tests = max(1, len(pairs) * arms * (arms - 1) // 2)
    z = float(norm.ppf(1 - 0.05 / (2 * tests)))
    tested = []
    for p, q in pairs:
        x, y = tops[p]["arm"], tops[q]["arm"]
        in_p, in_q = _top_minus(tops[p], y), _top_minus(tops[q], x)
        if in_p is None or in_q is None:
            continue
        in_q = _negated(in_q)
        inter = interaction(in_p, in_q, z)
        tested.append({"populations": [p, q], "arms": [x, y], "in_first": in_p,
                       "in_second": in_q, "interaction": inter,
                       "separable": sign(inter) == want})  # fmt: skip
    return tested, tests


def cross_population(named: list[tuple[str, dict[str, Any]]], metric: str) -> dict[str, Any]:
    """Whether the answer by ``metric`` holds in every population, as a statistic.

    ``named``: (population, its summary) with the baseline population first; each
    summary's ``top`` of the metric (:func:`~haggis_sim.experiment.summary.top_arm`: the
    best arm by the goal for the question's metric, the highest for the others). The
    verdict is ``holds`` when every population separates the same top arm (kind
    ``best``); ``disagrees`` when two populations have different top arms (X in p, Y in
    q) and the interaction of the X − Y difference between p and q excludes 0,
    family-wise over the tests (:func:`_interactions`); otherwise ``not separable``,
    saying which population separates which arm and, per tied population, how many more
    games would resolve it. Ranking by raw means never decides anything here.
    """
    question = metric == named[0][1]["metric"]
    top_word = "best arm" if question else "highest arm"
    views = {name: _view(s, metric) for name, s in named}
    tops = {n: s["results"][metric]["top"] for n, s in named if s["results"][metric]["top"]}
    goal = next(iter(tops.values()))["goal"] if tops else "max"
    tested, tests = _interactions(tops, 1 if goal == "max" else -1)
    found = [t for t in tested if t["separable"]]
    separated = {n: v["top"] for n, v in views.items() if v["kind"] == "best"}
    if found:
        verdict = "disagrees"
        sentence = (
            "Disagrees across populations: "
            + "; ".join(_disagreement(metric, t, top_word, tests, views) for t in found)
            + "."
        )
    elif len(separated) == len(views) and len(set(separated.values())) == 1:
        verdict = "holds"
        arm = next(iter(separated.values()))
        sentence = (
            f"Holds in every population: the {top_word} is {arm}, separable from every other "
            f"arm in each (vs its runner-up "
            + "; ".join(
                f"in {n}: {diff_text(metric, s['results'][metric]['top']['vs_runner_up'])}"
                for n, s in named
            )
            + ")."
        )
    else:
        verdict = "not separable"
        sentence = _not_separable(metric, named, views, tested, top_word, tests)
    return {
        "verdict": verdict,
        "sentence": sentence,
        "not_separable": [n for n, v in views.items() if v["kind"] != "best"],
        "tops": {n: v["top"] for n, v in views.items()},
        "interactions": tested,
        "tests": tests,
        "populations": views,
    }


def _disagreement(
    metric: str, t: dict[str, Any], top_word: str, tests: int, views: dict[str, dict[str, Any]]
) -> str:
    """One separable interaction: both populations, both arms, both differences and the
    interaction with its family-wise interval. A population's top arm is called the
    ``top_word`` (best or highest arm) only where that population separates it from every
    other arm; elsewhere it is "on top, tied with" the arms it is not separable from."""
    (p, q), (x, y), inter = t["populations"], t["arms"], t["interaction"]
    family = "" if tests == 1 else f", family-wise over {tests} tests"
    return (
        f"{_top_words(x, p, views[p], top_word)} ({x} − {y} {diff_text(metric, t['in_first'])}) "
        f"but {_top_words(y, q, views[q], top_word)} ({x} − {y} "
        f"{diff_text(metric, t['in_second'])}); the difference of the two differences is "
        f"{fmt_value(metric, inter['diff'], signed=True)} "
        f"(95%{family}: {fmt_interval(metric, inter['low'], inter['high'], signed=True)})"
    )


def _top_words(arm: str, population: str, view: dict[str, Any], top_word: str) -> str:
    """``the best arm is X in P`` where P separates X; ``X is on top in P, tied with A, B``
    where it does not."""
    if view.get("kind") == "best":
        return f"the {top_word} is {arm} in {population}"
    tied = view.get("tied") or []
    return f"{arm} is on top in {population}" + (f", tied with {', '.join(tied)}" if tied else "")


def _not_separable(
    metric: str,
    named: list[tuple[str, dict[str, Any]]],
    views: dict[str, dict[str, Any]],
    tested: list[dict[str, Any]],
    top_word: str,
    tests: int,
) -> str:
    """The ``not separable`` sentence: per population the arm it separates, or the tied
    arms with how many more games would resolve them; then any interaction that was tested
    and did not exclude 0."""
    parts = []
    for name, _ in named:
        v = views[name]
        if v["top"] is None:
            parts.append(f"no values in {name}")
        elif v["kind"] == "best":
            parts.append(f"{name} separates {v['top']} as the {top_word}")
        elif v["kind"] == "only":
            parts.append(f"only {v['top']} has a value in {name}")
        else:
            parts.append(
                f"{name} has {v['top']} tied with {', '.join(v['tied'])} "
                f"({resolve_text(metric, v['more_games'])})"
            )
    family = "" if tests == 1 else f", family-wise over {tests} tests"
    for t in tested:
        (p, q), (x, y), inter = t["populations"], t["arms"], t["interaction"]
        parts.append(
            f"the {x} − {y} difference changes by "
            f"{fmt_value(metric, inter['diff'], signed=True)} from {p} to {q} (95%{family}: "
            f"{fmt_interval(metric, inter['low'], inter['high'], signed=True)}), not separable"
        )
    return "Not separable across populations: " + "; ".join(parts) + "."
