"""The experiment's HTML: ``index.html`` with its forest plots, and ``compare.html``.

A single population's pieces (its forest plot, a metric's table, its arms table, its
comparison sections) are built by one function each; an experiment with populations
builds them per population and adds only the cross-population verdicts.
"""

from __future__ import annotations

import html
import math
import time
from pathlib import Path
from typing import Any

from .. import __version__
from ..analytics.compare import compare_runs, compare_section_html
from .folder import claim, forest_name, write_own
from .markdown import swap_text
from .spec import Experiment, population_experiment
from .studies import studies_html
from .verdicts import (
    ROW_HEADER,
    arm_labels,
    best_line,
    metric_words,
    num,
    result_rows,
    verdict_sentence,
)

_FOREST_KEY = (
    "one panel per metric. Blue: the interval lies above zero; vermillion: below; grey: it "
    "holds zero (no difference separable at 95%).</p>"
)


# ---------------------------------------------------------------- one population's pieces


def write_forest(
    summary: dict[str, Any], out: Path, marker: dict[str, Any], name: str
) -> str | None:
    """Draw one population's forest plot into ``out/name`` (listed in the marker first);
    its file name, or None when no metric has a difference to show."""
    from ..report import forest_figure

    panels = forest_panels(summary, arm_labels(summary))
    if not panels:
        return None
    claim(out, marker, name)
    forest_figure(panels, out / name)
    return name


def forest_panels(summary: dict[str, Any], labels: dict[str, str]) -> list[dict[str, Any]]:
    """One forest-plot panel per metric with a value: every arm's difference from the first."""
    from ..analytics.compare import RATE_METRICS

    panels = []
    for metric, res in summary["results"].items():
        rows = res["rows"][1:]
        diffs = [num(r["vs_first"]["diff"]) for r in rows]
        if not rows or all(math.isnan(d) for d in diffs):
            continue
        mark = " (the question)" if metric == summary["metric"] else ""
        panels.append(
            {
                "title": f"{metric}{mark}",
                "labels": [labels[r["arm"]] for r in rows],
                "diff": diffs,
                "low": [num(r["vs_first"]["low"]) for r in rows],
                "high": [num(r["vs_first"]["high"]) for r in rows],
                "percent": metric in RATE_METRICS,
            }
        )
    return panels


def _table(header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f"<div class='wrap'>{table}</div>"


def _metric_table(summary: dict[str, Any], metric: str, labels: dict[str, str]) -> str:
    """One population's table of a metric, each arm shown by its label."""
    rows = result_rows(summary, metric)
    return _table(ROW_HEADER, [[labels[r[0]], *r[1:]] for r in rows])


def _arms_table(summary: dict[str, Any], labels: dict[str, str], first: str) -> str:
    """One population's arms: label, players, rules, strategies, games, and whether each
    is paired with the ``first`` arm (the baseline)."""
    arm_rows = [
        [a["name"], labels[a["name"]], str(a["players"]), a["rules"], ", ".join(a["strategies"]),
         f"{a['games']:,}", "yes" if a["paired_with_first"] else "no"]
        for a in summary["arms"]
    ]  # fmt: skip
    header = ["arm", "label", "players", "rules", "strategies", "games", f"paired with the {first}"]
    return _table(header, arm_rows)


def _compare_sections(exp: Experiment, out: Path) -> list[str]:
    """One comparison section per arm of ``exp`` (played into ``out``) against its first."""
    first = out / exp.arms[0].name
    return [compare_section_html(compare_runs(first, out / arm.name)) for arm in exp.arms[1:]]


# ---------------------------------------------------------------- the pages


def _head(summary: dict[str, Any], css: str = "") -> list[str]:
    """The page's head, title and question (``css``: rules added to the shared ones)."""
    from ..report import CSS

    e = html.escape
    return [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(summary['name'])}: haggis-sim experiment</title>"
        f"<style>{CSS}#verdict li{{margin:0.35em 0}}"
        f".question{{font-size:1.1em;border-left:4px solid #E69F00;padding-left:0.8em}}{css}"
        "</style></head><body>",
        f"<h1>Experiment {e(summary['name'])}</h1>",
        f"<p class='question'>{e(summary['question'])}</p>",
    ]


def _links(links: list[tuple[str, str]]) -> list[str]:
    e = html.escape
    return ["<h2>More</h2><ul>", *(f"<li><a href='{e(href)}'>{e(text)}</a></li>"
                                   for href, text in links)]  # fmt: skip


def _built() -> str:
    """Which version built the page, when, and from which file."""
    e = html.escape
    return (
        f"built by haggis-sim {e(__version__)} on {e(time.strftime('%Y-%m-%d %H:%M:%S'))} "
        "from <a href='experiment.toml'>experiment.toml</a>.</p>"
    )


def compare_page(exp: Experiment, out: Path) -> str:
    """An HTML page with one comparison section per arm against the first arm."""
    title = f"{exp.name}: every arm against {exp.arms[0].name}"
    return _compare_page(title, _compare_sections(exp, out))


def populations_compare_page(exp: Experiment, out: Path) -> str:
    """``compare.html`` with populations: per population, every arm against its first arm."""
    body = []
    for pop in exp.populations:
        body.append(f"<h2>population {html.escape(pop.name)}</h2>")
        body += _compare_sections(population_experiment(exp, pop), out / pop.name)
    title = f"{exp.name}: every arm against {exp.arms[0].name}, per population"
    return _compare_page(title, body)


def _compare_page(title: str, body: list[str]) -> str:
    title = html.escape(title)
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:sans-serif} table{border-collapse:collapse}"
        "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "td:first-child{text-align:left} tr.significant{font-weight:bold}</style>"
        f"</head><body>\n<h1>{title}</h1>\n" + "\n".join(body) + "</body></html>\n"
    )


def write_experiment_page(
    summary: dict[str, Any], out: Path, marker: dict[str, Any], report: str | None
) -> None:
    """Write the experiment's ``index.html`` and its forest plot ``fig-forest.png`` into
    ``out`` (both listed in the marker first, like every file the experiment writes); with
    populations one forest plot per population (``fig-forest-<population>.png``)."""
    if "populations" in summary:
        forests = {}
        for pop in summary["populations"]:
            name = write_forest(pop["summary"], out, marker, forest_name(pop["name"]))
            if name:
                forests[pop["name"]] = name
        write_own(out, marker, "index.html", population_page(summary, forests, report))
        return
    forest = write_forest(summary, out, marker, forest_name(None))
    write_own(out, marker, "index.html", experiment_page(summary, forest, report))


def experiment_page(summary: dict[str, Any], forest: str | None, report: str | None) -> str:
    """The experiment's ``index.html``: the question, one verdict sentence per metric, the
    forest plot of paired differences (``forest``: its file name), then the tables per
    metric, links to the full report (``report``: its index page) and the comparison, and
    the run metadata folded away at the bottom."""
    from ..report import IMAGE_CHECK

    e = html.escape
    labels = arm_labels(summary)
    base = summary["arms"][0]
    out = [
        *_head(summary),
        "<section id='verdict'><h2>Verdict</h2>",
        f"<p>{summary['games_per_arm']:,} games per arm; every difference is an arm minus the "
        f"baseline <b>{e(labels[base['name']])}</b> (arm {e(base['name'])}), paired game by "
        "game where the arms played the same deals, with its 95% interval (clustered by "
        "deal).</p><ul>",
    ]

    def item(metric: str) -> str:
        name, _, rest = verdict_sentence(summary, metric, labels).partition(" — ")
        mark = " (the question)" if metric == summary["metric"] else ""
        return f"<li><b>{e(name)}{mark}</b> — {e(rest)}</li>"

    out.append(item(summary["metric"]) + f"</ul><p><b>{e(best_line(summary))}</b></p>")
    if forest:
        out.append(
            f"<img src='{forest}' alt='paired differences of every arm from the baseline'>"
            f"<p>Each arm's difference from the baseline with its 95% interval, {_FOREST_KEY}"
        )
    others = [m for m in summary["results"] if m != summary["metric"]]
    if others:
        out.append("<ul>" + "".join(item(m) for m in others) + "</ul>")
    out.append("</section>")
    links = [("summary.md", "summary (Markdown)"), ("summary.json", "summary (JSON)")]
    if len(summary["arms"]) > 1:
        links.insert(0, ("compare.html", "every arm against the baseline, metric by metric"))
    if report:
        links.insert(0, (report, "the full report over every arm (seats, points, bets, bombs, "
                                 "game shape)"))  # fmt: skip
    out += _links(links)
    out.append("</ul><h2>Every metric per arm</h2>")
    for metric in summary["results"]:
        out.append(f"<h4>{e(metric)}: {e(metric_words(summary, metric))}</h4>")
        out.append(_metric_table(summary, metric, labels))
    out.append(studies_html(summary.get("studies", [])))
    out.append(
        "<details id='metadata'><summary>Run metadata: arms, strategies, seed, seats</summary>"
        f"<p>Seed {summary['seed']}, seats {e(summary['seats'])}, "
        f"{summary['games_per_arm']:,} games per arm; " + _built()
        + _arms_table(summary, labels, "baseline")
        + "</details>"
    )  # fmt: skip
    out.append(IMAGE_CHECK + "</body></html>")
    return "\n".join(out)


def population_page(summary: dict[str, Any], forests: dict[str, str], report: str | None) -> str:
    """The ``index.html`` of an experiment with populations: the question and the
    populations; per metric the cross-population verdict first, then each population's
    verdict sentence (the question's metric) or table; the forest plot per population;
    links; each population's arms folded away at the bottom."""
    from ..report import IMAGE_CHECK

    e = html.escape
    pops = summary["populations"]
    labels = {p["name"]: arm_labels(p["summary"]) for p in pops}
    out = [
        *_head(summary, ".cross{font-weight:bold}"),
        "<p>Every arm is played in each player population; the first is the baseline: "
        + "; ".join(
            f"<b>{e(p['name'])}</b> ({e(swap_text(p))}, {p['games_per_arm']:,} games per arm)"
            for p in pops
        )
        + ". Within a population every difference is an arm minus its first arm, paired game "
        "by game where the arms played the same deals, with its 95% interval (clustered by "
        "deal).</p>",
        "<section id='verdict'><h2>Verdict</h2><ul>",
        _cross_item(summary, summary["metric"], labels) + "</ul>",
        "<ul>"
        + "".join(
            f"<li>best arm in <b>{e(p['name'])}</b>: {e(best_line(p['summary']))}</li>"
            for p in pops
        )  # fmt: skip
        + "</ul>",
    ]
    for p in pops:
        if p["name"] in forests:
            out.append(
                f"<h3>population {e(p['name'])}</h3><img src='{e(forests[p['name']])}' "
                f"alt='paired differences of every arm from the first, population "
                f"{e(p['name'])}'>"
            )
    if forests:
        out.append(
            "<p>Each arm's difference from the population's first arm with its 95% interval, "
            + _FOREST_KEY
        )
    others = [m for m in summary["cross"] if m != summary["metric"]]
    if others:
        out.append("<ul>" + "".join(_cross_item(summary, m, None) for m in others) + "</ul>")
    out.append("</section>")
    links = [("summary.md", "summary (Markdown)"), ("summary.json", "summary (JSON)"),
             ("compare.html", "every arm against the first arm, per population")]  # fmt: skip
    if report:
        links.insert(0, (report, "the full report over every arm of every population"))
    out += _links(links)
    out.append("</ul><h2>Every metric per population</h2>")
    for metric, cross in summary["cross"].items():
        out.append(f"<h3>{e(metric)}: {e(metric_words(pops[0]['summary'], metric))}</h3>")
        out.append(f"<p class='cross'>{e(cross['sentence'])}</p>")
        for p in pops:
            out.append(f"<h4>population {e(p['name'])}</h4>")
            out.append(_metric_table(p["summary"], metric, labels[p["name"]]))
    out.append(studies_html(summary.get("studies", [])))
    out.append(
        "<details id='metadata'><summary>Run metadata: arms and strategies per population, "
        f"seed, seats</summary><p>Seed {summary['seed']}, seats {e(summary['seats'])}; " + _built()
    )
    for p in pops:
        out.append(f"<h4>population {e(p['name'])}</h4>")
        out.append(_arms_table(p["summary"], labels[p["name"]], "first arm"))
    out.append("</details>" + IMAGE_CHECK + "</body></html>")
    return "\n".join(out)


_VERDICT_COLOUR = {"holds": "#0072B2", "disagrees": "#D55E00", "unclear": "#777"}


def _cross_item(
    summary: dict[str, Any], metric: str, labels: dict[str, dict[str, str]] | None
) -> str:
    """A metric's cross-population verdict as a list item; with ``labels`` (arm labels per
    population) also each population's own verdict sentence under it."""
    e = html.escape
    cross = summary["cross"][metric]
    mark = " (the question)" if metric == summary["metric"] else ""
    text = (
        f"<li><b>{e(metric)}{mark}</b> — <span class='cross' style='color:"
        f"{_VERDICT_COLOUR[cross['verdict']]}'>{e(cross['sentence'])}</span>"
    )
    if labels is not None:
        text += "<ul>"
        for p in summary["populations"]:
            sentence = verdict_sentence(p["summary"], metric, labels[p["name"]])
            rest = sentence.partition(" — ")[2].partition(": ")[2]
            text += f"<li>in <b>{e(p['name'])}</b>: {e(rest)}</li>"
        text += "</ul>"
    return text + "</li>"
