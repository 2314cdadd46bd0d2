"""The experiment page's answer figures, drawn from ``summary.json`` data with matplotlib.

* :func:`axis_figure`: with an ``axis`` (arms with ``at``), the question's metric as a
  line with its 95% band against the axis, one line per rung (or the single population);
* :func:`strength_figure`: with a ladder, the question's metric against player strength,
  one line per arm (head-to-head arms left out: another opponent), each point with its
  95% interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..analytics.compare import RATE_METRICS
from ..report.style import pyplot, series_style
from .separation import num
from .verdicts import apart, arm_labels

#: the first screen's colours by a change's tone (:func:`.headline.tone`): better for the
#: question's goal, worse, no measurable change
TONE_COLOURS = {"better": "#1b7f3b", "worse": "#c0392b", "same": "#8a8a8a"}


def measure_label(metric: str) -> str:
    """A metric as an axis names it for a player: its plain name and unit, the metric's
    own name after it (``comebacks: the leader after round 1 wins, % (ahead_r1_win)``)."""
    from .headline import PLAIN

    plain = PLAIN.get(metric)
    if plain is None:
        return f"{metric}{_scale(metric)[1]}"
    unit = "%" if metric in RATE_METRICS else plain.unit.strip()
    if metric == "win_vs_fair":
        unit = "1 = a fair share"
    return plain.what + (f", {unit}" if unit else "") + f" ({metric})"


def _scale(metric: str) -> tuple[float, str]:
    """Values of ``metric`` shown ×100 with "%" (a rate), or as they are."""
    return (100.0, " (%)") if metric in RATE_METRICS else (1.0, "")


def _save(fig: Any, path: Path) -> None:
    """Lay the figure out and write it as the report's figures are written."""
    from ..report.figures import save

    fig.tight_layout()
    save(fig, path)


def rungs(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(population name, its summary) per population; ("", summary) without populations."""
    if "populations" not in summary:
        return [("", summary)]
    return [(p["name"], p["summary"]) for p in summary["populations"]]


def arms_across_rungs(
    summary: dict[str, Any], head_to_head: bool
) -> list[tuple[str, list[dict[str, Any]]]]:
    """Per arm of the first population (the head-to-head arms, or with ``head_to_head``
    False the others) its label and its row of the question's metric in every population,
    in :func:`rungs` order."""
    metric = summary["metric"]
    pops = rungs(summary)
    first = pops[0][1]
    labels, skip = arm_labels(first), apart(first)
    names = [a["name"] for a in first["arms"] if (a["name"] in skip) == head_to_head]
    return [
        (labels[arm], [next(r for r in sub["results"][metric]["rows"] if r["arm"] == arm)
                       for _, sub in pops])
        for arm in names
    ]  # fmt: skip


def axis_points(sub: dict[str, Any], metric: str) -> list[tuple[float, dict[str, Any]]]:
    """The arms of one population's summary that stand on the axis, as (at, row), in order."""
    at = {a["name"]: a["at"] for a in sub["arms"] if a.get("at") is not None}
    rows = [(float(at[r["arm"]]), r) for r in sub["results"][metric]["rows"] if r["arm"] in at]
    return sorted((p for p in rows if p[1]["mean"] is not None), key=lambda p: p[0])


def axis_figure(summary: dict[str, Any], path: Path) -> bool:
    """Draw the question's metric along the experiment's axis into ``path``; False (no
    file) without an axis or with fewer than two arms on it."""
    metric, axis = summary["metric"], summary.get("axis")
    lines = [(name, axis_points(sub, metric)) for name, sub in rungs(summary)]
    if not axis or not any(len(pts) > 1 for _, pts in lines):
        return False
    k, unit = _scale(metric)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for i, (name, pts) in enumerate(lines):
        xs = [x for x, _ in pts]
        style = series_style(i)
        ax.plot(xs, [num(r["mean"]) * k for _, r in pts], label=name or None, **style)
        lows = [num(r["low"]) * k for _, r in pts]
        highs = [num(r["high"]) * k for _, r in pts]
        ax.fill_between(xs, lows, highs, color=style["color"], alpha=0.18)
    base_label = _mark_first_arm(ax, summary, metric, k)
    ax.set_xlabel(axis)
    ax.set_ylabel(measure_label(metric))
    ax.set_xticks(sorted({x for _, pts in lines for x, _ in pts}))
    ax.grid(alpha=0.3)
    ax.legend(title="opponent / rung" if len(lines) > 1 else None, fontsize=8)
    ax.set_title(f"along the {axis}: mean with its 95% band; ★/dotted: {base_label}")
    _save(fig, path)
    return True


def _mark_first_arm(ax: Any, summary: dict[str, Any], metric: str, k: float) -> str:
    """Mark the first arm (the default the others are read against) on an axis figure, per
    rung: a star at its place on the axis, or a dotted line at its level when it is not
    on the axis; its label."""
    label = ""
    for i, (_, sub) in enumerate(rungs(summary)):
        arm = sub["arms"][0]
        label = arm_labels(sub)[arm["name"]]
        row = sub["results"][metric]["rows"][0]
        if row["mean"] is None:
            continue
        colour = series_style(i)["color"]
        if arm.get("at") is not None:
            ax.plot([float(arm["at"])], [num(row["mean"]) * k], marker="*", ms=14,
                    color=colour, markeredgecolor="black", ls="none")  # fmt: skip
        else:
            ax.axhline(num(row["mean"]) * k, color=colour, ls=":", lw=1.4)
    ax.plot([], [], marker="*", ls=":", color="black", label=label)
    return label


def strength_figure(summary: dict[str, Any], path: Path) -> bool:
    """Draw the question's metric against player strength (one line per arm across the
    rungs) into ``path``; False (no file) without a ladder."""
    if "ladder" not in summary:
        return False
    metric = summary["metric"]
    pops = rungs(summary)
    arms = arms_across_rungs(summary, head_to_head=False)
    k, unit = _scale(metric)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    xs = list(range(len(pops)))
    for i, (label, got) in enumerate(arms):
        mean = [num(r["mean"]) * k for r in got]
        err = [[m - num(r["low"]) * k for m, r in zip(mean, got, strict=True)],
               [num(r["high"]) * k - m for m, r in zip(mean, got, strict=True)]]  # fmt: skip
        shift = [x + (i - (len(arms) - 1) / 2) * 0.03 for x in xs]
        name = label + (" (baseline)" if i == 0 else "")
        ax.errorbar(shift, mean, yerr=err, capsize=3, label=name, **series_style(i))
    ax.set_xticks(xs, [name for name, _ in pops])
    ax.set_xlabel("player strength (the players of each set, weakest first)")
    ax.set_ylabel(measure_label(metric))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    ax.set_title("against player strength: mean with its 95% interval")
    _save(fig, path)
    return True


def level_panels(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One panel per metric with a value: every ranked arm's level (head-to-head arms left
    out), the baseline first, each with its 95% interval and its difference from the
    baseline (``vs``: the colour says whether that difference is separable)."""
    labels, skip = arm_labels(summary), apart(summary)
    panels = []
    for metric, res in summary["results"].items():
        rows = [r for r in res["rows"] if r["arm"] not in skip and r["mean"] is not None]
        if len(rows) < 2 or rows[0]["arm"] != res["rows"][0]["arm"]:
            continue
        mark = " (the question)" if metric == summary["metric"] else ""
        panels.append({
            "title": f"{metric}{mark}",
            "labels": [labels[r["arm"]] + (" (baseline)" if i == 0 else "")
                       for i, r in enumerate(rows)],
            "mean": [num(r["mean"]) for r in rows],
            "low": [num(r["low"]) for r in rows],
            "high": [num(r["high"]) for r in rows],
            "vs": [(num(r["vs_first"]["low"]), num(r["vs_first"]["high"])) for r in rows],
            "percent": metric in RATE_METRICS,
        })  # fmt: skip
    return panels


def levels_figure(panels: list[dict[str, Any]], path: Path) -> None:
    """A forest plot of levels: per metric one panel, one row per arm (the baseline on top,
    in black, with a dashed line at its level), each level with its 95% interval; blue when
    the arm's difference from the baseline lies above zero, vermillion below, grey when
    it holds zero."""
    from ..report.figures import interval_rows
    from ..report.style import REFERENCE, verdict_color

    plt = pyplot()
    n, k = len(panels), len(panels[0]["labels"])
    cols = min(n, 3)
    rows_ = -(-n // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(4.2 * cols + 1.5, (0.38 * k + 1.1) * rows_),
                             squeeze=False, sharey=True)  # fmt: skip
    for ax, p in zip(axes.flat, panels, strict=False):
        f = 100.0 if p["percent"] else 1.0
        colors = ["black"] + [verdict_color(lo, hi) for lo, hi in p["vs"][1:]]
        interval_rows(ax, [m * f for m in p["mean"]], [v * f for v in p["low"]],
                      [v * f for v in p["high"]], colors)  # fmt: skip
        ax.axvline(p["mean"][0] * f, color=REFERENCE, lw=0.9, ls="--")
        ax.set_title(p["title"][:48])
        ax.set_xlabel("level, %" if p["percent"] else "level")
        ax.grid(axis="x", alpha=0.3)
    for ax in axes.flat[n:]:
        ax.axis("off")
    axes[0][0].set_yticks(range(k), panels[0]["labels"])
    axes[0][0].set_ylim(k - 0.5, -0.5)
    _save(fig, path)


def change_figure(summary: dict[str, Any], path: Path) -> bool:
    """Draw the first screen's figure into ``path``: for the strongest players (see
    :func:`.headline.top_summary`), each compared variant's change in the question's
    measure from the first variant, with its 95% interval, in a player's units; the
    first variant (the default or the rules as they are) is the marked zero line. False
    (no file) when no variant has a change to draw."""
    from ..report.figures import interval_rows
    from ..report.style import REFERENCE
    from .headline import PLAIN, change_of, compared, tone, top_summary

    top, _ = top_summary(summary)
    metric = top["metric"]
    labels = arm_labels(top)
    changes = [(labels[a], change_of(top, metric, a)) for a in compared(top)]
    drawn = [(label, d) for label, d in changes if d is not None and d.get("diff") is not None]
    if not drawn:
        return False
    plain = PLAIN.get(metric)
    k = 100.0 if metric in RATE_METRICS else (plain.scale if plain else 1.0)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 0.34 * len(drawn) + 1.3))
    values = [num(d["diff"]) * k for _, d in drawn]
    lows = [num(d["low"]) * k for _, d in drawn]
    highs = [num(d["high"]) * k for _, d in drawn]
    goal = top.get("goal", "max")
    colours = [TONE_COLOURS[tone(d, goal)] for _, d in drawn]
    interval_rows(ax, values, lows, highs, colours)
    base = labels[top["arms"][0]["name"]]
    ax.axvline(0.0, color=REFERENCE, lw=1.2, ls="--", label=f"0: {base}")
    ax.set_yticks(range(len(drawn)), [label for label, _ in drawn])
    ax.invert_yaxis()
    unit = "percentage points" if metric in RATE_METRICS else (plain.unit.strip() if plain else "")
    name = plain.what if plain else metric
    toward = f"; right: {plain.up}" if plain else ""
    ax.set_xlabel(f"change in {name}" + (f" ({unit}{toward})" if unit else f" ({toward[2:]})"))
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    _save(fig, path)
    return True
