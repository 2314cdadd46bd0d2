"""``summary.md``: the experiment's summary as Markdown.

One population's blocks (its arms table, a metric's table with its fair-share sentence)
are written by one function each; an experiment with populations writes them per
population and adds only the cross-population verdicts and rankings.
"""

from __future__ import annotations

from typing import Any

from ..analytics.compare import RATE_METRICS, no_pairing_note
from .balance import balance_markdown
from .bottom_line import bottom_line
from .ladder import LADDER_NOTE, rung_rows
from .spec import short_spec
from .studies import studies_markdown
from .summary import markdown_table
from .verdicts import ROW_HEADER, best_line, fair_sentence, metric_words, result_rows


def summary_markdown(summary: dict[str, Any]) -> str:
    """The summary as Markdown: the question, the arms, one table per metric, the best arm
    (with populations: :func:`populations_markdown`)."""
    if "populations" in summary:
        return "\n".join(
            [populations_markdown(summary), *balance_markdown(summary.get("balance")),
             *studies_markdown(summary.get("studies", []))]
        )  # fmt: skip
    lines = [
        f"# Experiment {summary['name']}",
        "",
        *bottom_markdown(summary),
        summary["question"],
        "",
        f"{summary['games_per_arm']:,} games per arm, seed {summary['seed']}, seats "
        f"{summary['seats']}. Intervals: 95%, clustered by deal; Δ is paired game by game "
        "where the arms played the same deals.",
        "",
        *([sizing_line(summary["sizing"], summary["metric"]), ""] if "sizing" in summary else []),
        *arms_markdown(summary),
    ]
    for metric in summary["results"]:
        lines += _metric_head(summary, metric, _no_pairing_md(summary, metric))
        lines += ["", *metric_markdown(summary, metric)]
    lines += ["", f"**{best_line(summary)}**", ""]
    lines += balance_markdown(summary.get("balance"))
    lines += studies_markdown(summary.get("studies", []))
    return "\n".join(lines)


def bottom_markdown(summary: dict[str, Any]) -> list[str]:
    """The bottom line (:func:`.bottom_line.bottom_line`) as a short list, the summary's
    first block."""
    return ["**Bottom line**", "", *(f"- {line}" for line in bottom_line(summary)), ""]


def arms_markdown(summary: dict[str, Any]) -> list[str]:
    """The table of one population's arms: players, rules and strategies of each."""
    lines = ["| arm | label | players | rules | strategies |", "|---|---|---|---|---|"]
    for arm in summary["arms"]:
        lines.append(
            f"| {arm['name']} | {arm.get('label') or arm['name']} | {arm['players']} | "
            f"{arm['rules']} | "
            f"{', '.join(f'`{s}`' for s in arm['strategies'])} |"
        )
    return lines


def metric_markdown(summary: dict[str, Any], metric: str) -> list[str]:
    """One population's table of a metric (see :func:`result_rows`) and, for a metric with
    a fair value, the fair-share sentence under it."""
    lines = markdown_table(ROW_HEADER, result_rows(summary, metric))
    fair = fair_sentence(summary, metric, {a["name"]: a["name"] for a in summary["arms"]})
    if fair:
        lines += ["", fair.strip()]
    return lines


def _metric_head(summary: dict[str, Any], metric: str, note: str) -> list[str]:
    """A metric's heading (marked when it is the question's) and its description."""
    mark = " (the question's metric)" if metric == summary["metric"] else ""
    return ["", f"## {metric}{mark}", "", f"{metric_words(summary, metric)}.{note}"]


def _no_pairing_md(summary: dict[str, Any], metric: str) -> str:
    lone = [r["arm"] for r in summary["results"][metric]["rows"] if r.get("no_pairing")]
    if not lone:
        return ""
    where = f"in arm{'s' if len(lone) > 1 else ''} {', '.join(lone)}"
    note = no_pairing_note(where)
    return f" {note[0].upper()}{note[1:]}."


def _width(metric: str, value: float) -> str:
    """A half-width as ``±1.2 points`` (a rate) or ``±0.85`` (anything else)."""
    return f"±{value * 100:.1f} points" if metric in RATE_METRICS else f"±{value:.3g}"


def sizing_line(sizing: dict[str, Any], metric: str) -> str:
    """One sentence saying what sizing to a precision did (the summary's ``sizing``):
    the games per arm it reached from the first batch, the half-width achieved, and what
    stopped it -- the precision, the budget (first), or the rounds of one run."""
    want = _width(metric, sizing["precision"])
    games = f"{sizing['games']:,} games per arm (first batch {sizing['first_batch']:,})"
    if sizing["half_width"] is None:
        return (
            f"Sized to {want} on {metric}: {games}; {metric} has no interval to size by, "
            "so the first batch was kept."
        )
    got = _width(metric, sizing["half_width"])
    if sizing["stopped_by"] == "precision":
        return f"Sized to {want} on {metric}: reached {got} at {games}."
    if sizing["stopped_by"] == "budget":
        return (
            f"Sized to {want} on {metric}: the budget stopped it first, at {games} "
            f"(budget {sizing['budget']:,}), with {got}."
        )
    return (
        f"Sized to {want} on {metric}: {got} at {games}, not yet reached when the rounds "
        "of this run ran out; run the experiment again to go on."
    )


def swap_text(pop: dict[str, Any], short: bool = False) -> str:
    """What a population swaps, as ``old → new; ...`` (or the strategies it plays in
    every arm instead of the arms' own); with ``short``, each spec as a person would write
    it (:func:`~.spec.short_spec`: the page's line above the verdict, whose full specs
    are in the run metadata below it)."""
    spell = short_spec if short else str
    if pop.get("strategies"):
        return "every arm: " + ", ".join(spell(s) for s in pop["strategies"])
    if not pop["swap"]:
        return "the strategies as written"
    return "; ".join(f"{spell(old)} → {spell(new)}" for old, new in pop["swap"].items())


def ladder_markdown(ladder_metric: dict[str, Any], metric: str) -> list[str]:
    """A ladder's convergence sentence for one metric, then its table arms × rungs."""
    header, rows = rung_rows(ladder_metric, metric)
    return [
        "",
        f"**{ladder_metric['sentence']}**",
        "",
        *markdown_table(header, rows),
    ]


def populations_markdown(summary: dict[str, Any]) -> str:
    """Markdown of an experiment with populations: the question, the populations, then per
    metric the cross-population verdict, the ranking in each population and each
    population's table (as without populations), and each population's arms at the end."""
    lines = [f"# Experiment {summary['name']}", "", *bottom_markdown(summary),
             summary["question"], "",
             f"Seed {summary['seed']}, seats {summary['seats']}. Intervals: 95%, clustered by "
             "deal; Δ is paired game by game where the arms played the same deals. Every arm "
             "is played in every population; the first population is the baseline.", "",
             "| population | games per arm | strategies swapped |", "|---|---|---|"]  # fmt: skip
    for pop in summary["populations"]:
        lines.append(f"| {pop['name']} | {pop['games_per_arm']:,} | {swap_text(pop)} |")
    if "ladder" in summary:
        lines += ["", LADDER_NOTE]
    sized = [p for p in summary["populations"] if "sizing" in p]
    if sized:
        lines.append("")
    for pop in sized:
        lines.append(f"- {pop['name']}: {sizing_line(pop['sizing'], summary['metric'])}")
    for metric, cross in summary["cross"].items():
        lines += _metric_head(summary, metric, "")
        if "ladder" in summary:
            lines += ladder_markdown(summary["ladder"]["metrics"][metric], metric)
        lines += ["", f"**{cross['sentence']}**", ""]
        for pop in summary["populations"]:
            view = cross["populations"][pop["name"]]
            ranking = " > ".join(view["ranking"]) if view["ranking"] else "no values"
            lines.append(f"- ranking in {pop['name']}: {ranking}")
        for pop in summary["populations"]:
            sub = pop["summary"]
            lines += ["", f"### {metric} in population {pop['name']}", ""]
            lines += metric_markdown(sub, metric)
            if metric == summary["metric"]:
                lines += ["", f"**{best_line(sub)}**"]
    lines += ["", "## Arms per population"]
    for pop in summary["populations"]:
        lines += ["", f"### {pop['name']}", "", *arms_markdown(pop["summary"])]
    return "\n".join([*lines, ""])
