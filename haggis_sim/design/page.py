"""A design's page (``index.html``), its front figure (``fig-front.png``) and one
replayable experiment file per confirmed candidate (``candidates/candidate-<n>.toml``).

The page is for a designer: the answer in words first, then the figure (every setting
the search played, the front, and the confirmed candidates with their 95% intervals
beside today's rules), the confirmation table, and the search folded below.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..analytics.compare import RATE_METRICS, fmt_value
from ..experiment.balance import cell_words
from ..pages import render
from ..report.style import COLOURS, pyplot
from .confirm import NAMES, arm_name, confirm_toml, flag_text, players_words
from .search import Candidate, aim_of, quantities
from .spec import Design, quantity

FIGURE = "fig-front.png"
KINDS = (  # how the figure draws a searched setting: kind, legend, marker, colour, size
    ("stopped", "stopped early (fewer games)", "x", "#bbbbbb", 30),
    ("searched", "searched on common deals", "o", "#999999", 30),
    ("front", "front: confirmed below", "o", COLOURS["blue"], 45),
    ("base", "today's rules (searched)", "*", "black", 140),
)
TONES = {"holds up": "holds", "does not hold up": "fails", "not settled": "open"}


def write_candidates(
    design: Design, chosen: list[Candidate], base: Candidate | None, out: Path
) -> list[str]:
    """One experiment file per confirmed candidate (the base rules beside it on the
    confirmation's deals); their paths relative to ``out``."""
    from ..outputs import replace_file

    (out / "candidates").mkdir(exist_ok=True)
    names = []
    for i, cand in enumerate(chosen, start=1):
        name = f"candidates/{arm_name(i)}.toml"
        text = confirm_toml(design, [cand], base, f"{design.name}-{arm_name(i)}", first_number=i)
        replace_file(out / name, text)
        names.append(name)
    return names


def _scale(metric: str) -> float:
    return 100.0 if metric in RATE_METRICS else 1.0


def _label(key: str) -> str:
    metric = quantity(key).metric
    return NAMES[key] + (" (%)" if metric in RATE_METRICS else "")


@dataclass(frozen=True)
class _Plane:
    """Where the front figure puts a setting: with two or more objectives the first two
    quantities (x, y); with one, the first knob's value (x) and the quantity (y)."""

    design: Design

    @property
    def kx(self) -> str | None:
        objs = self.design.objectives
        return objs[0].quantity if len(objs) > 1 else None

    @property
    def ky(self) -> str:
        objs = self.design.objectives
        return objs[1].quantity if len(objs) > 1 else objs[0].quantity

    @property
    def numeric(self) -> bool:
        """The first knob's values are numbers (else it is drawn by position)."""
        values = self.design.knobs[0].choices
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)

    def knob_x(self, flags: dict[str, Any]) -> float:
        """The first knob's value in ``flags`` as a position on the x axis."""
        knob = self.design.knobs[0]
        value = flag_text(flags[knob.flag])
        if self.numeric:
            return float(value)
        return float([flag_text(v) for v in knob.choices].index(value))

    def point(self, figures: dict[str, Any], flags: dict[str, Any]) -> tuple[float, float]:
        """A setting's (x, y) from its quantities' figures (``mean`` each)."""
        y = figures[self.ky]["mean"] * _scale(quantity(self.ky).metric)
        if self.kx is None:
            return self.knob_x(flags), y
        return figures[self.kx]["mean"] * _scale(quantity(self.kx).metric), y

    def error(self, figures: dict[str, Any], key: str | None) -> list[list[float]] | None:
        """The 95% interval of ``key`` around its mean, as matplotlib's error bar."""
        if key is None:
            return None
        f, scale = figures[key], _scale(quantity(key).metric)
        return [[(f["mean"] - f["low"]) * scale], [(f["high"] - f["mean"]) * scale]]


def front_figure(design: Design, result: dict[str, Any], path: Path) -> bool:
    """Draw the front figure into ``path`` (see :class:`_Plane` for the axes). False when
    there is nothing to draw."""
    rows = result["search"]["candidates"]
    if not rows:
        return False
    plane = _Plane(design)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.6, 4.6))
    conf = result.get("confirm")
    chosen = {c["name"] for c in conf["candidates"]} if conf else set()
    base_name = result["search"].get("base")

    def kind(row: dict[str, Any]) -> str:
        if row["name"] == base_name:
            return "base"
        if row["pruned"]:
            return "stopped"
        return "front" if row["name"] in chosen else "searched"

    for key, label, marker, colour, size in KINDS:
        pts = [plane.point(r["estimates"], r["flags"]) for r in rows if kind(r) == key]
        if pts:
            ax.scatter(*zip(*pts, strict=True), marker=marker, color=colour, s=size,
                       label=label, zorder=3 if key == "base" else 2)  # fmt: skip
    if conf:
        searched = {r["name"]: r for r in rows}
        points = [
            ("today's rules (confirmed)", conf["base"], design.base_flags, None, "black", "s")
        ]
        points += [("confirmed on fresh deals", c["figures"], c["flags"], c["name"],
                    COLOURS["orange"], "D") for c in conf["candidates"]]  # fmt: skip
        shown: set[str] = set()
        for label, figures, flags, name, colour, marker in points:
            x, y = plane.point(figures, flags)
            if label in shown:  # once in the legend: matplotlib leaves out a label "_..."
                label = "_" + label
            shown.add(label)
            bars = {"yerr": plane.error(figures, plane.ky), "xerr": plane.error(figures, plane.kx)}
            ax.errorbar([x], [y], **bars, fmt=marker, color=colour, markersize=6, capsize=3,
                        label=label, zorder=4)  # fmt: skip
            if name in searched:  # dotted: from where the search had it
                sx, sy = plane.point(searched[name]["estimates"], flags)
                ax.plot([sx, x], [sy, y], color=colour, linestyle=":", linewidth=1, zorder=1)
    for o in design.objectives:
        if o.goal in ("fair", "near") and o.quantity in (plane.kx, plane.ky):
            aim = aim_of(design, o) * _scale(quantity(o.quantity).metric)
            line = ax.axhline if o.quantity == plane.ky else ax.axvline
            line(aim, color=COLOURS["green"], linestyle="--", linewidth=1, label="aim")
    knob = design.knobs[0]
    ax.set_xlabel(_label(plane.kx) if plane.kx else knob.flag)
    ax.set_ylabel(_label(plane.ky))
    if plane.kx is None and not plane.numeric:
        ax.set_xticks(range(len(knob.choices)), [str(flag_text(v)) for v in knob.choices])
    ax.legend(fontsize=7, loc="best")
    from ..report.figures import save

    fig.tight_layout()
    save(fig, path)
    return True


def design_page(design: Design, result: dict[str, Any], figure: bool, replays: list[str]) -> str:
    """The page's HTML (template ``design.html.j2``)."""
    conf = result.get("confirm")
    confirmed = None
    check = None
    if conf:
        header, rows = confirmed_table(design, conf)
        confirmed = {"header": header, "rows": rows, "note": _confirm_note(design, conf)}
        if "check" in conf:
            c = conf["check"]
            check_header, check_rows = check_table(design, conf)
            check = {
                "who": players_words(c["strategies"]),
                "note": f"{c['games']:,} games per rule set on the same fresh deals.",
                "header": check_header,
                "rows": check_rows,
            }
    search_header, search_rows = search_table(design, result["search"])
    budget = design.budget
    flags = ", ".join(f"{k} = {v}" for k, v in design.rule.items())
    meta = (
        f"{design.players} players ({players_words(design.strategies)}), rules {design.rules}"
        f"{' with ' + flags if flags else ''}; "
        f"knobs {', '.join(k.flag for k in design.knobs)}; budget {budget.trials} settings of at "
        f"most {budget.games:,} games; search seed {design.seed}."
    )
    return render(
        "design.html.j2",
        name=design.name,
        question=design.question,
        headline=result["headline"],
        figure=FIGURE if figure else None,
        figure_note=_figure_note(design),
        confirmed=confirmed,
        check=check,
        replays=replays,
        search={
            "count": len(result["search"]["candidates"]),
            "games": result["search"]["games"],
            "header": search_header,
            "rows": search_rows,
            "note": (
                "Every setting the search played, on the same deals (seed "
                f"{design.seed}), in the order proposed; a setting was stopped early when a "
                "constraint's 95% interval lay outside its bounds or another setting played "
                "in full was better in every objective beyond doubt. These figures choose "
                "the candidates; they are not the results."
            ),
        },
        meta=meta,
        version=__version__,
        built_at=time.strftime("%Y-%m-%d %H:%M:%S"),
        colours=COLOURS,
    )


def confirmed_table(design: Design, conf: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The confirmation table: its header, and per row (today's rules first, then each
    candidate) its tone (``base`` or the verdict's) and its cells."""
    keys = quantities(design)
    header = ["rules", "verdict", *(_label(k) for k in keys)]
    base = [f"today ({design.rules})", "–", *(cell_text(k, conf["base"][k]) for k in keys)]
    rows = [{"tone": "base", "cells": base}]
    for row in conf["candidates"]:
        verdict = row["verdict"] + (f": {'; '.join(row['notes'])}" if row["notes"] else "")
        cells = [row["words"], verdict, *(cell_text(k, row["figures"][k]) for k in keys)]
        rows.append({"tone": TONES[row["verdict"]], "cells": cells})
    return header, rows


def check_table(design: Design, conf: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The check players' table: today's rules, then each candidate, on the same deals."""
    keys, check = quantities(design), conf["check"]
    rows = [[f"today ({design.rules})", *(cell_text(k, check["base"][k]) for k in keys)]]
    for row, figures in zip(conf["candidates"], check["candidates"], strict=True):
        rows.append([row["words"], *(cell_text(k, figures[k]) for k in keys)])
    return ["rules", *(_label(k) for k in keys)], rows


def search_table(design: Design, search: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The search's table: per setting, in the order played, its games, each quantity's
    estimate on the common deals and why it was stopped early."""
    keys = quantities(design)
    rows = [
        [r["name"], f"{r['games']:,}",
         *(fmt_value(quantity(k).metric, r["estimates"][k]["mean"]) for k in keys),
         r["pruned"] or "–"]
        for r in search["candidates"]
    ]  # fmt: skip
    return ["setting", "games", *(_label(k) for k in keys), "stopped"], rows


def _confirm_note(design: Design, conf: dict[str, Any]) -> str:
    return (
        f"{conf['games']:,} games per rule set with {players_words(design.strategies)} on "
        f"fresh deals (seed {conf['seed']}; the search used {design.seed}); each figure with "
        "its 95% interval (clustered by deal), Δ the candidate minus today's rules paired deal by "
        "deal. A candidate holds up when every constraint's interval lies within its bounds "
        "and some objective is better than under today's rules beyond doubt (for a fair or "
        "near aim: nearer it at both ends of the interval); only these games are results, "
        "since the search's own figures favour the settings it picked."
    )


def _figure_note(design: Design) -> str:
    objs = design.objectives
    what = (
        f"{NAMES[objs[0].quantity]} against {NAMES[objs[1].quantity]}"
        if len(objs) > 1
        else f"{NAMES[objs[0].quantity]} by {design.knobs[0].flag}"
    )
    return (
        f"{what.capitalize()}: grey, every setting the search played; blue, the front it "
        "picked; orange, the same candidates re-played on fresh deals with 95% intervals "
        "(dotted: where the search had them); black, today's rules."
    )


def cell_text(key: str, cell: dict[str, Any]) -> str:
    """A confirmed figure of quantity ``key`` in words, as the balance table words it:
    value [interval]; Δ from today [interval]."""
    return cell_words(quantity(key).metric, cell)
