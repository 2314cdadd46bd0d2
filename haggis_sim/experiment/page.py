"""The experiment's HTML: ``index.html`` with its forest plots, and ``compare.html``.

A single population's pieces (its forest plot, a metric's table, its arms table, its
comparison sections) are gathered by one function each; an experiment with populations
gathers them per population and adds only the cross-population verdicts. The pages
themselves are templates (``experiment.html.j2``, ``populations.html.j2``,
``experiment_compare.html.j2``; see :mod:`haggis_sim.pages`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from .. import __version__
from ..analytics.compare import compare_runs, compare_section_html
from ..pages import render
from ..report.style import COLOURS, VERDICT_COLOURS
from .balance import balance_for_page
from .bottom_line import bottom_line, level
from .figures import (
    arms_across_rungs,
    axis_figure,
    change_figure,
    level_panels,
    levels_figure,
    rungs,
    strength_figure,
)
from .folder import claim, forest_name, write_own
from .headline import effect_table, headline, how_far
from .ladder import LADDER_NOTE, rung_rows
from .markdown import sizing_line, swap_text
from .spec import Experiment, population_experiment
from .studies import studies_for_page
from .verdicts import (
    ROW_HEADER,
    arm_labels,
    best_line,
    metric_words,
    result_rows,
    verdict_sentence,
)

#: the first screen's figure (:func:`.figures.change_figure`)
FIRST_FIGURE = "fig-answer.png"
#: the icon beside a first-screen cell, by its tone (:class:`.headline.Cell`)
TONE_ICONS = {"better": "✔", "worse": "✖", "up": "▲", "down": "▼", "same": "="}

# ---------------------------------------------------------------- one population's pieces


def write_forest(
    summary: dict[str, Any], out: Path, marker: dict[str, Any], name: str
) -> str | None:
    """Draw one population's forest plot of levels into ``out/name`` (listed in the marker
    first): per metric every ranked arm's level with its interval, the baseline on top
    (:func:`.figures.levels_figure`); its file name, or None when no metric has two arms
    with a value."""
    panels = level_panels(summary)
    if not panels:
        return None
    claim(out, marker, name)
    levels_figure(panels, out / name)
    return name


def first_screen(summary: dict[str, Any], out: Path, marker: dict[str, Any]) -> dict[str, Any]:
    """What the page shows first (:mod:`.headline`): the headline, the table of changes in
    a player's words, whether the answer holds for stronger players, and the figure of
    the changes (``fig-answer.png``, listed in the marker first)."""
    claim(out, marker, FIRST_FIGURE)
    drawn = change_figure(summary, out / FIRST_FIGURE)
    header, rows = effect_table(summary)
    return {
        "headline": headline(summary),
        "header": header,
        "rows": rows,
        "how_far": how_far(summary),
        "figure": FIRST_FIGURE if drawn else None,
    }


def answer_figures(summary: dict[str, Any], out: Path, marker: dict[str, Any]) -> list[str]:
    """Draw the figures of the answer (along the axis, against player strength) into
    ``out`` (each listed in the marker first); the names of those drawn."""
    drawn = []
    for name, draw in (("fig-axis.png", axis_figure), ("fig-strength.png", strength_figure)):
        claim(out, marker, name)
        if draw(summary, out / name):
            drawn.append(name)
    return drawn


def code_text(text: str) -> Markup:
    """``text`` for a page with its `backticked` parts as code: escaped first, then every
    pair of backticks around a part turned into ``<code>``."""
    parts = str(escape(text)).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick stays as it is
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


def level_rows(summary: dict[str, Any], head_to_head: bool) -> tuple[list[str], list[list[str]]]:
    """Levels side by side: per arm (the head-to-head arms, or with ``head_to_head`` False
    the others) its label, then per population the question's metric (for the
    strategies entry it follows) with its 95% interval; no rows without such arms."""
    metric = summary["metric"]
    header = ["arm", *(name or metric for name, _ in rungs(summary))]
    rows = [[label, *(level(metric, c) for c in cells)]
            for label, cells in arms_across_rungs(summary, head_to_head)]  # fmt: skip
    return header, rows


def _metric_rows(summary: dict[str, Any], metric: str, labels: dict[str, str]) -> list[list[str]]:
    """One population's table rows of a metric (:data:`ROW_HEADER`), each arm by its label."""
    return [[labels[r[0]], *r[1:]] for r in result_rows(summary, metric)]


def _arms_rows(summary: dict[str, Any], labels: dict[str, str]) -> list[list[str]]:
    """One population's arms (:func:`_arms_header`): label, players, rules, strategies,
    games, and whether each is paired with the first arm (the baseline)."""
    return [
        [a["name"], labels[a["name"]], str(a["players"]), a["rules"], ", ".join(a["strategies"]),
         f"{a['games']:,}", "yes" if a["paired_with_first"] else "no"]
        for a in summary["arms"]
    ]  # fmt: skip


def _arms_header(first: str) -> list[str]:
    """The arms table's header; ``first`` names the arm the others are paired with."""
    return ["arm", "label", "players", "rules", "strategies", "games", f"paired with the {first}"]


def _compare_sections(exp: Experiment, out: Path) -> list[str]:
    """One comparison section per arm of ``exp`` (played into ``out``) against its first."""
    first = out / exp.arms[0].name
    return [compare_section_html(compare_runs(first, out / arm.name)) for arm in exp.arms[1:]]


def _fragments(sections: list[str]) -> list[dict[str, Any]]:
    """Comparison sections for ``experiment_compare.html.j2``, marked as markup: each was
    rendered (and its values escaped) by ``compare.html.j2``, so it goes on the page as is."""
    return [{"html": Markup(section)} for section in sections]


# ---------------------------------------------------------------- the pages


def _render(template: str, summary: dict[str, Any], **context: Any) -> str:
    """An experiment page from ``template``: the context every experiment page shares (the
    summary, the palette, the version and time that built it, the studies, the balance
    table) and ``context``."""
    return render(
        template,
        summary=summary,
        colours=COLOURS,
        version=__version__,
        built_at=time.strftime("%Y-%m-%d %H:%M:%S"),
        studies=studies_for_page(summary.get("studies", [])),
        balance=balance_for_page(summary.get("balance")),
        question=code_text(summary["question"]),
        bottom=bottom_line(summary),
        head_to_head=level_rows(summary, True),
        icons=TONE_ICONS,
        levels=level_rows(summary, False),
        **context,
    )


def compare_page(exp: Experiment, out: Path) -> str:
    """An HTML page with one comparison section per arm against the first arm."""
    title = f"{exp.name}: every arm against {exp.arms[0].name}"
    sections = _fragments(_compare_sections(exp, out))
    return render("experiment_compare.html.j2", title=title, sections=sections)


def populations_compare_page(exp: Experiment, out: Path) -> str:
    """``compare.html`` with populations: per population, every arm against its first arm."""
    body: list[dict[str, Any]] = []
    for pop in exp.populations:
        body.append({"population": pop.name})
        sections = _compare_sections(population_experiment(exp, pop), out / pop.name)
        body += _fragments(sections)
    title = f"{exp.name}: every arm against {exp.arms[0].name}, per population"
    return render("experiment_compare.html.j2", title=title, sections=body)


def write_experiment_page(
    summary: dict[str, Any], out: Path, marker: dict[str, Any], report: str | None
) -> None:
    """Write the experiment's ``index.html`` and its forest plot ``fig-forest.png`` into
    ``out`` (both listed in the marker first, like every file the experiment writes); with
    populations one forest plot per population (``fig-forest-<population>.png``)."""
    figures = answer_figures(summary, out, marker)
    first = first_screen(summary, out, marker)
    if "populations" in summary:
        forests = {}
        for pop in summary["populations"]:
            name = write_forest(pop["summary"], out, marker, forest_name(pop["name"]))
            if name:
                forests[pop["name"]] = name
        page = population_page(summary, forests, report, figures, first)
        write_own(out, marker, "index.html", page)
        return
    forest = write_forest(summary, out, marker, forest_name(None))
    write_own(out, marker, "index.html", experiment_page(summary, forest, report, figures, first))


def experiment_page(
    summary: dict[str, Any],
    forest: str | None,
    report: str | None,
    figures: list[str] | None = None,
    first: dict[str, Any] | None = None,
) -> str:
    """The experiment's ``index.html`` (template ``experiment.html.j2``): the question, one
    verdict sentence per metric, the forest plot of paired differences (``forest``: its
    file name), then the tables per metric, links to the full report (``report``: its
    index page) and the comparison, and the run metadata folded away at the bottom."""
    labels = arm_labels(summary)
    base = summary["arms"][0]

    def verdict(metric: str) -> dict[str, Any]:
        name, _, rest = verdict_sentence(summary, metric, labels).partition(" — ")
        return {"metric": name, "question": metric == summary["metric"], "rest": rest}

    others = [m for m in summary["results"] if m != summary["metric"]]
    links = [("summary.md", "summary (Markdown)"), ("summary.json", "summary (JSON)")]
    if len(summary["arms"]) > 1:
        links.insert(0, ("compare.html", "every arm against the baseline, metric by metric"))
    if report:
        links.insert(0, (report, "the full report over every arm (seats, points, bets, bombs, "
                                 "game shape)"))  # fmt: skip
    metrics = [
        {
            "metric": metric,
            "words": metric_words(summary, metric),
            "rows": _metric_rows(summary, metric, labels),
        }
        for metric in summary["results"]
    ]
    return _render(
        "experiment.html.j2",
        summary,
        base_label=labels[base["name"]],
        base_name=base["name"],
        verdicts=[verdict(m) for m in [summary["metric"], *others]],
        best=best_line(summary),
        forest=forest,
        links=links,
        header=ROW_HEADER,
        metrics=metrics,
        arms_header=_arms_header("baseline"),
        arms=_arms_rows(summary, labels),
        sizing=sizing_line(summary["sizing"], summary["metric"]) if "sizing" in summary else None,
        figures=figures or [],
        first=first,
    )


def population_page(
    summary: dict[str, Any],
    forests: dict[str, str],
    report: str | None,
    figures: list[str] | None = None,
    first: dict[str, Any] | None = None,
) -> str:
    """The ``index.html`` of an experiment with populations (template
    ``populations.html.j2``): the question and the populations; per metric the
    cross-population verdict first, then each population's verdict sentence (the
    question's metric) or table; the forest plot per population; links; each population's
    arms folded away at the bottom."""
    pops = summary["populations"]
    labels = {p["name"]: arm_labels(p["summary"]) for p in pops}
    others = [m for m in summary["cross"] if m != summary["metric"]]
    links = [("summary.md", "summary (Markdown)"), ("summary.json", "summary (JSON)"),
             ("compare.html", "every arm against the first arm, per population")]  # fmt: skip
    if report:
        links.insert(0, (report, "the full report over every arm of every population"))
    metrics = [
        {
            "metric": metric,
            "words": metric_words(pops[0]["summary"], metric),
            "sentence": cross["sentence"],
            "rows": [_metric_rows(p["summary"], metric, labels[p["name"]]) for p in pops],
            "ladder": _ladder_item(summary, metric),
        }
        for metric, cross in summary["cross"].items()
    ]
    populations = [
        {
            "name": p["name"],
            "swap": swap_text(p, short=True),
            "games_per_arm": p["games_per_arm"],
            "sizing": sizing_line(p["sizing"], summary["metric"]) if "sizing" in p else None,
            "best": best_line(p["summary"]),
            "forest": forests.get(p["name"]),
            "arms": _arms_rows(p["summary"], labels[p["name"]]),
        }
        for p in pops
    ]
    return _render(
        "populations.html.j2",
        summary,
        pops=populations,
        cross=[_cross_item(summary, summary["metric"], labels)]
        + [_cross_item(summary, m, None) for m in others],
        links=links,
        header=ROW_HEADER,
        metrics=metrics,
        arms_header=_arms_header("first arm"),
        ladder_note=LADDER_NOTE.replace("*", "") if "ladder" in summary else None,
        figures=figures or [],
        legend=_arms_rows(pops[0]["summary"], labels[pops[0]["name"]]),
        first=first,
    )


def _cross_item(
    summary: dict[str, Any], metric: str, labels: dict[str, dict[str, str]] | None
) -> dict[str, Any]:
    """A metric's cross-population verdict for the page; with ``labels`` (arm labels per
    population) also each population's own verdict sentence under it."""
    cross = summary["cross"][metric]
    per_population = None
    if labels is not None:
        per_population = []
        for p in summary["populations"]:
            sentence = verdict_sentence(p["summary"], metric, labels[p["name"]])
            per_population.append((p["name"], sentence.partition(" — ")[2].partition(": ")[2]))
    return {
        "metric": metric,
        "question": metric == summary["metric"],
        # "unclear": the verdict of a summary.json written before "not separable" replaced it
        "colour": VERDICT_COLOURS.get(cross["verdict"], VERDICT_COLOURS["not separable"]),
        "sentence": cross["sentence"],
        "per_population": per_population,
        "ladder": _ladder_item(summary, metric),
    }


#: the colour of a ladder's convergence verdict (the cross-population verdicts' palette)
LADDER_COLOURS = {
    "converged": VERDICT_COLOURS["holds"],
    "still moving": VERDICT_COLOURS["disagrees"],
    "not known": VERDICT_COLOURS["not separable"],
}


def _ladder_item(summary: dict[str, Any], metric: str) -> dict[str, Any] | None:
    """A metric's convergence verdict and its table arms × rungs; None without a ladder."""
    if "ladder" not in summary:
        return None
    lm = summary["ladder"]["metrics"][metric]
    header, rows = rung_rows(lm, metric)
    return {"sentence": lm["sentence"], "colour": LADDER_COLOURS[lm["verdict"]],
            "header": header, "rows": rows}  # fmt: skip
