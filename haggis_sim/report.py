"""``haggis-sim report``: a self-contained folder (index.html, PNG figures, CSV tables).

Every number comes from a DuckDB aggregation in :mod:`.sections`; this module only
draws the figures (matplotlib, Agg), formats the tables and writes the folder, atomically:
it is built in a temporary folder next to ``out`` and renamed into place.

The report never deletes or overwrites what it did not write. Every report folder holds
a marker (:data:`MARKER`: tool version, creation time, and every file and folder the
report wrote); :func:`check_out` refuses any other existing ``out`` (a run folder, a
user's folder, a file, a path inside a run or report folder), and ``force`` replaces an
earlier report only when the folder holds nothing but what that report wrote.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import secrets
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import duckdb
import polars as pl

from . import __version__
from .analytics import sections as S
from .errors import InputError
from .logs import ledger
from .logs.manifest import MANIFEST

Format = Literal["html", "png"]
OutState = Literal["new", "empty", "replace"]
MARKER = ".haggis-sim-report.json"


class ReportError(InputError):
    """Bad input to the report: a missing folder, or a folder that is not a run."""


def read_manifests(run_dirs: list[Path]) -> list[dict[str, Any]]:
    """Each run's manifest; ReportError naming the first folder that is not a run."""
    out = []
    for d in run_dirs:
        if not d.exists():
            raise ReportError(f"run folder {d} does not exist")
        if not d.is_dir() or not (d / MANIFEST).exists():
            raise ReportError(f"{d} is not a haggis-sim run folder (no {MANIFEST})")
        try:
            out.append(json.loads((d / MANIFEST).read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise ReportError(f"{d / MANIFEST} cannot be read: {exc}") from None
    return out


def run_notices(run_dirs: list[Path], manifests: list[dict[str, Any]]) -> list[str]:
    """Plain-language warnings: unfinished runs and runs without logged games."""
    notes = []
    for d, m in zip(run_dirs, manifests, strict=True):
        if ledger.has_ledger(d):
            logged = ledger.games_logged(d)
        else:  # a run of an older version: count the games in its parts
            logged = sum(
                pl.scan_parquet(p).select(pl.len()).collect().item()
                for p in ledger.table_files(d, "games")
            )
        total = int(m.get("games", 0) or 0)
        if m.get("status") != "complete":
            notes.append(
                f"Run {d} is unfinished (status {m.get('status')!r}): {logged:,} of {total:,} "
                "games are logged; the report covers only those games."
            )
        if logged == 0:
            notes.append(f"Run {d} has no games logged yet: nothing of it is in this report.")
    return notes


Step = Callable[[str, int, int], None]
"""Progress of a report build: ``(what is being done, steps done, steps in all)``."""
STEPS = len(S.SECTIONS) + 2  # the sections' queries, the figures, the page and tables


def build_tables(
    run_dirs: list[Path],
    manifests: list[dict[str, Any]] | None = None,
    on_step: Step | None = None,
) -> tuple[dict[str, pl.DataFrame], list[int]]:
    """Every section's tables over the runs, and the indices of the runs with games.

    ``on_step`` is called before each section's query (see :data:`Step`)."""
    manifests = manifests if manifests is not None else read_manifests(run_dirs)
    tables: dict[str, pl.DataFrame] = {}
    try:
        con, included = S.connect_runs(run_dirs, manifests)
        try:
            if included:
                n_games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
                if n_games > 0:
                    for i, (name, fn) in enumerate(S.SECTIONS.items()):
                        if on_step:
                            on_step(f"section {name.replace('_', ' and ')}", i, STEPS)
                        tables.update(fn(con))
        finally:
            con.close()
    except (RuntimeError, duckdb.Error) as exc:
        if is_interrupt(exc):  # DuckDB turns Ctrl-C into an error: give it back as one
            raise KeyboardInterrupt from None
        raise
    return tables, included


def is_interrupt(exc: BaseException) -> bool:
    """True for Ctrl-C, also in the form DuckDB raises it (``RuntimeError: Query interrupted``)."""
    if isinstance(exc, KeyboardInterrupt | duckdb.InterruptException):
        return True
    return isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()


# --- figures ---------------------------------------------------------------------------------

# Okabe & Ito's colour-blind-safe palette (blue, orange, green, vermillion, purple, sky, yellow)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442"]
# past seven series the colours repeat, so each further block of seven changes marker and
# line style too: series i and j always differ in colour, marker or line
SERIES_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SERIES_LINES = ("-", "--", ":", "-.")


def series_style(i: int) -> dict[str, str]:
    """Colour, marker and line style of the ``i``-th series of a figure, distinct for
    the first 7 x 4 series (colour-blind-safe colours first, then marker and line).

    >>> series_style(0) == series_style(7)
    False
    """
    block = i // len(PALETTE)
    return {
        "color": PALETTE[i % len(PALETTE)],
        "marker": SERIES_MARKERS[block % len(SERIES_MARKERS)],
        "linestyle": SERIES_LINES[block % len(SERIES_LINES)],
    }


ABOVE, BELOW, UNCLEAR, REFERENCE = "#0072B2", "#D55E00", "#777777", "#555555"
STRENGTH_ORDER = ["<45", "45-49", "50-54", "55-59", "60-64", "65+", "unknown"]


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``name:k=v,k=v`` as the name and its parameters (texts as written in the spec)."""
    name, _, rest = spec.partition(":")
    params = dict(item.partition("=")[::2] for item in rest.split(",") if "=" in item)
    return name, params


def short_specs(specs: list[str]) -> dict[str, str]:
    """A short, distinct label per strategy spec: its name plus only the parameters that
    differ between the specs of that name (``heuristic:bomb=early`` rather than the full
    ``heuristic:bet=0.55,big=0.6,...``); the full spec where that would not be distinct."""
    parsed = {s: split_spec(s) for s in dict.fromkeys(specs)}
    out: dict[str, str] = {}
    for spec, (name, params) in parsed.items():
        same = [p for n, p in parsed.values() if n == name]
        keys = [k for k in params if len({p.get(k) for p in same}) > 1]
        out[spec] = name + (":" + ",".join(f"{k}={params[k]}" for k in keys) if keys else "")
    if len(set(out.values())) < len(out):
        return {s: s for s in out}
    return out


def _wrap(text: str, width: int = 30) -> str:
    import textwrap

    return (
        "\n".join(textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False))
        or text
    )


def _span(lows: list[float], highs: list[float], refs: list[float]) -> tuple[float, float]:
    """Axis limits that hold every interval and reference line, with a margin."""
    vals = [v for v in [*lows, *highs, *refs] if v is not None and v == v]
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    pad = (hi - lo) * 0.08 if hi > lo else max(abs(hi) * 0.1, 0.01)
    return lo - pad, hi + pad


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from cycler import cycler

    plt.rcParams.update(
        {
            "axes.prop_cycle": cycler(color=PALETTE),
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return plt


def _save(fig: Any, path: Path) -> None:
    """Write a figure with nothing clipped (the bounding box grows to hold every label)."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=90, bbox_inches="tight", pad_inches=0.15)
    plt.close(fig)


def _interval_rows(
    ax: Any, values: list[float], lows: list[float], highs: list[float], colors: list[str]
) -> None:
    """Point estimates with horizontal interval bars, one row each (first row on top)."""
    for i, (v, lo, hi, c) in enumerate(zip(values, lows, highs, colors, strict=True)):
        if v is None or v != v:
            continue
        lo = v if lo is None or lo != lo else lo
        hi = v if hi is None or hi != hi else hi
        ax.errorbar([v], [i], xerr=[[v - lo], [hi - v]], fmt="o", color=c, ms=5, capsize=3)


def _errors(values: list[float], lows: Any, highs: Any) -> list[list[float]]:
    """Error-bar lengths below and above each value, from its interval's ends."""
    return [
        [v - lo for v, lo in zip(values, lows, strict=True)],
        [hi - v for v, hi in zip(values, highs, strict=True)],
    ]


def _verdict_color(low: float, high: float) -> str:
    if low == low and low > 0:
        return ABOVE
    if high == high and high < 0:
        return BELOW
    return UNCLEAR


def forest_figure(panels: list[dict[str, Any]], path: Path) -> None:
    """Paired differences against a baseline, one small panel per metric (a forest plot).

    Each panel: ``title``, ``labels`` (one per row, top to bottom), ``diff``, ``low``,
    ``high`` (NaN for no value) and ``percent`` (axis in percentage points). A row is blue
    when its 95% interval lies above zero, vermillion below, grey when it holds zero.
    """
    from matplotlib.ticker import FuncFormatter

    plt = _pyplot()
    n = len(panels)
    cols = min(n, 3)
    rows_ = -(-n // cols)
    k = len(panels[0]["labels"])
    fig, axes = plt.subplots(
        rows_,
        cols,
        figsize=(4.2 * cols + 1.5, (0.38 * k + 1.1) * rows_),
        squeeze=False,
        sharey=True,
    )
    for ax, p in zip(axes.flat, panels, strict=False):
        colors = [_verdict_color(lo, hi) for lo, hi in zip(p["low"], p["high"], strict=True)]
        _interval_rows(ax, p["diff"], p["low"], p["high"], colors)
        ax.axvline(0.0, color=REFERENCE, lw=0.9, ls="--")
        ax.set_xlim(*_span(p["low"], p["high"], [0.0]))
        ax.set_title(_wrap(p["title"], 40))
        ax.grid(axis="x", alpha=0.3)
        if p.get("percent"):
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v * 100:+.1f}"))
            ax.set_xlabel("difference, percentage points")
        else:
            ax.set_xlabel("difference")
    for ax in axes.flat[n:]:
        ax.axis("off")
    axes[0][0].set_yticks(range(k), [_wrap(x, 34) for x in panels[0]["labels"]])
    axes[0][0].set_ylim(k - 0.5, -0.5)
    fig.tight_layout()
    _save(fig, path)


def _no_data(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, _wrap(text, 40), ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _figures(tables: dict[str, pl.DataFrame], folder: Path) -> dict[str, str]:
    """Draw one PNG per section that has data into ``folder``; return {section: file name}."""
    plt = _pyplot()
    files: dict[str, str] = {}
    specs = [s for t in ("strategies", "points") for s in tables[t]["strategy"].to_list()]
    short = short_specs(specs)
    many_rules = len(set(tables["shape"]["rules"].to_list())) > 1
    many_players = len(set(tables["seat"]["players"].to_list())) > 1

    def where(rules: str, players: int) -> str:
        at = ([rules] if many_rules else []) + ([f"{players}p"] if many_players and players else [])
        return f" [{' '.join(at)}]" if at else ""

    def who(strategy: str, rules: str, players: int = 0) -> str:
        return short[strategy] + where(rules, players)

    def save(fig: Any, key: str) -> None:
        _save(fig, folder / f"fig-{key}.png")
        files[key] = f"fig-{key}.png"

    # results: win rate and margin per pairing, in the order the strategies were given
    pairs = tables["pairs"]
    if len(pairs):
        labels = [
            _wrap(f"{short[a]} vs {short[b]}{where(r, p)}", 36)
            for r, p, a, b in zip(
                pairs["rules"], pairs["players"], pairs["a"], pairs["b"], strict=True
            )
        ]
        fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(pairs) + 1.6), sharey=True)
        low, high = pairs["win_low"].to_list(), pairs["win_high"].to_list()
        rate = pairs["win_rate_a"].to_list()
        _interval_rows(axes[0], rate, low, high, [PALETTE[0]] * len(rate))
        axes[0].axvline(0.5, color=REFERENCE, lw=0.9, ls="--", label="even (0.5)")
        axes[0].set_xlim(*_span(low, high, [0.5]))
        axes[0].set_title("A beats B (share of games, 95% Wilson)")
        axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
        m = pairs["margin"].fill_nan(None).to_list()
        mlo = pairs["margin_low"].fill_nan(None).to_list()
        mhi = pairs["margin_high"].fill_nan(None).to_list()
        _interval_rows(axes[1], m, mlo, mhi, [PALETTE[1]] * len(m))
        axes[1].axvline(0.0, color=REFERENCE, lw=0.9, ls="--")
        axes[1].set_xlim(*_span(mlo, mhi, [0.0]))
        axes[1].set_title("score margin A − B (95% over deals)")
        axes[0].set_yticks(range(len(pairs)), labels)
        axes[0].set_ylim(len(pairs) - 0.5, -0.5)
        for ax in axes:
            ax.grid(axis="x", alpha=0.3)
        save(fig, "results")

    # seat and lead: win rates with Wilson intervals against the fair share 1/players
    seat, lead = tables["seat"], tables["lead_game"]
    many = many_rules or len(set(seat["players"])) > 1
    rows_ = max(len(seat), len(lead))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.34 * rows_ + 1.9))
    for ax, t, names, title in (
        (axes[0], seat, [f"seat {s}" for s in seat["seat"]], "win rate by seat"),
        (axes[1], lead, ["led round 1" if x else "did not lead round 1" for x in lead["led_first"]],
         "win rate by who led the first round"),
    ):  # fmt: skip
        ys = list(range(len(t)))
        fair = [1 / p for p in t["players"]]
        rate = t["win_rate"].to_list()
        _interval_rows(ax, rate, t["win_low"].to_list(), t["win_high"].to_list(),
                       [PALETTE[2]] * len(t))  # fmt: skip
        ax.vlines(fair, [y - 0.4 for y in ys], [y + 0.4 for y in ys], color=REFERENCE, ls="--",
                  lw=0.9, label="fair share (1 / players)")  # fmt: skip
        ticks = [n + (f" · {r} · {p}p" if many else "")
                 for n, r, p in zip(names, t["rules"], t["players"], strict=True)]  # fmt: skip
        ax.set_yticks(ys, [_wrap(x, 40) for x in ticks], fontsize=8)
        ax.set_ylim(len(t) - 0.5, -0.5)
        ax.set_xlim(*_span(t["win_low"].to_list(), t["win_high"].to_list(), fair))
        ax.set_title(title + " (95% Wilson)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].legend(loc="lower center", bbox_to_anchor=(1.1, 1.08), frameon=False)
    fig.tight_layout()
    save(fig, "seat_lead")

    # points per round by source: one panel per source, an interval per strategy
    pts = tables["points"]
    sources = ("going_out", "cards", "bets", "bonus")
    fig, axes = plt.subplots(1, 4, figsize=(12, 0.4 * len(pts) + 1.6), sharey=True)
    for ax, src, color in zip(axes, sources, PALETTE, strict=False):
        _interval_rows(
            ax,
            pts[src].to_list(),
            pts[f"{src}_low"].to_list(),
            pts[f"{src}_high"].to_list(),
            [color] * len(pts),
        )
        ax.axvline(0.0, color=REFERENCE, lw=0.9, ls="--")
        ax.set_xlim(*_span(pts[f"{src}_low"].to_list(), pts[f"{src}_high"].to_list(), [0.0]))
        ax.set_title(src.replace("_", " "))
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(
        range(len(pts)),
        [
            _wrap(who(s, r, p), 30)
            for r, p, s in zip(pts["rules"], pts["players"], pts["strategy"], strict=True)
        ],
    )
    axes[0].set_ylim(len(pts) - 0.5, -0.5)
    fig.supxlabel("mean points per round (95% interval)", fontsize=9, y=-0.06)
    save(fig, "points")

    # bets: success rate by hand strength at the bet, one panel per strategy, one colour per
    # bet value (small multiples: each strategy's own curve, none hidden behind another)
    out = tables["bet_outcomes"]
    if len(out):
        values = sorted(set(out["value"].to_list()))
        buckets = [b for b in STRENGTH_ORDER if b in set(out["strength"].to_list())]
        groups = list(dict.fromkeys(zip(out["rules"], out["strategy"], strict=True)))
        cols = min(len(groups), 4)
        nrows = -(-len(groups) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols + 1, 2.6 * nrows + 0.8),
                                 squeeze=False, sharey=True)  # fmt: skip
        for ax, (rules, strat) in zip(axes.flat, groups, strict=False):
            for vi, value in enumerate(values):
                t = out.filter((pl.col("value") == value) & (pl.col("rules") == rules)
                               & (pl.col("strategy") == strat))  # fmt: skip
                if not len(t):
                    continue
                t = t.with_columns(
                    pl.col("strength").replace_strict(buckets, list(range(len(buckets))))
                    .alias("order")
                ).sort("order")  # fmt: skip
                off = (vi - (len(values) - 1) / 2) * 0.15
                r = t["success_rate"].to_list()
                ax.errorbar([buckets.index(b) + off for b in t["strength"]], r,
                            capsize=2, ms=4, lw=0.8, **series_style(vi),
                            label=f"bet {value}",
                            yerr=_errors(r, t["success_low"], t["success_high"]))  # fmt: skip
            ax.set_xticks(range(len(buckets)), buckets, rotation=30, fontsize=8)
            ax.set_title(_wrap(who(strat, rules), 32), fontsize=9)
            ax.grid(axis="y", alpha=0.3)
        for ax in axes.flat[len(groups) :]:
            ax.axis("off")
        for row in axes:
            row[0].set_ylabel("success rate (95% Wilson)")
        axes[0][0].set_ylim(*_span(out["success_low"].to_list(), out["success_high"].to_list(), []))
        fig.supxlabel("hand strength at the bet (the heuristic's 0-100 estimate)", fontsize=9)
        handles: dict[str, Any] = {}
        for ax in axes.flat:
            for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(n, h)
        names = sorted(handles, key=lambda n: int(n.split()[1]))
        fig.legend([handles[n] for n in names], names, loc="lower center", frameon=False,
                   bbox_to_anchor=(0.5, 1.0), ncol=len(names))  # fmt: skip
        fig.tight_layout()
        save(fig, "bets")

    # bombs: when they are played, as a share of each strategy's bombs (one panel per measure)
    timing = tables["bomb_timing"]
    if len(timing):
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
        strats = list(dict.fromkeys(timing["strategy"].to_list()))
        for ax, measure in zip(
            axes, ("trick", "bomber cards left", "opponent cards left"), strict=True
        ):
            sub = timing.filter(pl.col("measure") == measure)
            for i, strat in enumerate(strats):
                s = sub.filter(pl.col("strategy") == strat).sort("value")
                total = max(int(s["bombs"].sum()), 1)
                ax.plot(
                    s["value"].to_list(),
                    [b / total for b in s["bombs"]],
                    ms=4,
                    **series_style(i),
                    label=short[strat],
                )
            ax.set_title(f"bombs by {measure}")
            ax.set_ylabel("share of the strategy's bombs")
            ax.grid(alpha=0.3)
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(
            handles,
            names,
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            frameon=False,
            ncol=min(len(strats), 3),
        )
        save(fig, "bombs")

    # game shape: one row of panels per rules preset (small multiples, shared x per column)
    from matplotlib.ticker import MaxNLocator

    presets = sorted(set(tables["shape"]["rules"].to_list()))
    fig, axes = plt.subplots(
        len(presets), 3, figsize=(12, 1.9 * len(presets) + 1.0), squeeze=False, sharex="col"
    )
    measures = (
        ("shape_rounds", "rounds", "games", "rounds per game"),
        ("shape_tricks", "tricks", "rounds", "tricks per round"),
        ("shape_margins", "margin", "games", "final margin"),
    )
    bins = {}
    for key, x, _, _ in measures:
        xs_all = tables[key][x].cast(pl.Int64)
        lo, hi = int(xs_all.min() or 0), int(xs_all.max() or 0)  # type: ignore[arg-type]
        step = max(1, -(-(hi - lo + 1) // 30))  # at most 30 bins of whole numbers
        bins[key] = [lo - 0.5 + step * i for i in range((hi - lo) // step + 2)]
    for row, rules in enumerate(presets):
        for col, (key, x, count, title) in enumerate(measures):
            ax = axes[row][col]
            s = tables[key].filter(pl.col("rules") == rules)
            total = max(int(s[count].sum()), 1)
            edges = bins[key]
            ax.hist(s[x].to_list(), bins=edges, weights=[c / total for c in s[count]],
                    color=PALETTE[row % len(PALETTE)], rwidth=0.9)  # fmt: skip
            if row == 0:
                ax.set_title(title)
            ax.grid(axis="y", alpha=0.3)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[row][0].set_ylabel(_wrap(rules, 16) + "\nshare")
    fig.tight_layout()
    save(fig, "shape")
    return files


# --- HTML ------------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if value != value:
            return "–"
        return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return html.escape(str(value))


LONG_TABLE = 12  # rows; a longer table is folded into a <details> box


def table_html(frame: pl.DataFrame, caption: str = "") -> str:
    """An HTML table of a frame (floats to 4 significant digits) in a box that scrolls
    sideways on its own, so a wide table never widens the page; a table of more than
    :data:`LONG_TABLE` rows is folded away under ``caption``."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in frame.rows()
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    body = f"<div class='wrap'>{table}</div>"
    if frame.height > LONG_TABLE:
        return f"<details><summary>{caption} ({frame.height:,} rows)</summary>{body}</details>"
    return (f"<h4>{caption}</h4>" if caption else "") + body


SECTION_TEXT: list[tuple[str, str, list[str], str]] = [
    (
        "results",
        "Results",
        ["strategies", "pairs", "ratings"],
        "Win rate per strategy (one row per field of opponents it met) and per pairing with "
        "95% Wilson intervals. In a pairing, A "
        "beats B in a game when A's seat won, or neither won and A scored more. The margin is "
        "A's final score minus B's; its 95% t-interval is taken over deals (games replaying one "
        "deal with rotated seats are averaged first; with fixed seats each game is a deal). "
        "Ratings (more than two strategies): Bradley–Terry fitted by MM over every pairwise "
        "game result, on the Elo scale (400 = 10:1 odds), centred on 0.",
    ),
    (
        "seat_lead",
        "Seat and lead advantage",
        ["seat", "lead_game", "lead_round"],
        "Win rate and final score by seat, and by whether the seat led the first round of the "
        "game; round points and the share of rounds it went out first by whether it led that "
        "round.",
    ),
    (
        "points",
        "Where points come from",
        ["points"],
        "Mean points per round by source — going out, captured cards, bets, bonus — per "
        "strategy and rules preset.",
    ),
    (
        "bets",
        "Bets",
        ["bet_rates", "bet_outcomes"],
        "How often each strategy bets each value (share of its rounds), and the outcome of "
        "its bets by the bettor's hand strength when it bet (the moves log's strength column: "
        "the heuristic's 0-100 estimate, in buckets of 5). A bet succeeded when the "
        "bettor's bet points for the round were positive; net points per bet are the bettor's "
        "bet points for the round (mean), next to its round total.",
    ),
    (
        "bombs",
        "Bombs",
        ["bombs", "bomb_timing"],
        "When bombs are played: trick number, cards left in the bomber's hand after the bomb, "
        "and the fewest cards in an opponent's hand at that moment. Trick points are the card "
        "points of every play in the bombed trick. A bomb counts as worth it when it took its "
        "trick and the bomber ended the round with more points than every opponent. Net "
        "points around a bomb: the bomber's round margin (its round total minus the best "
        "opponent's) in rounds where it bombed, against that strategy's rounds without a "
        "bomb.",
    ),
    (
        "shape",
        "Game shape",
        ["shape", "shape_rounds", "shape_tricks", "shape_margins"],
        "Rounds per game, tricks per round, and final margins (winner's score minus the next "
        "best).",
    ),
]

IMAGE_CHECK = (
    "<script>window.addEventListener('load', function () {"
    " var imgs = Array.prototype.slice.call(document.images);"
    " document.body.dataset.images = String(imgs.length);"
    " document.body.dataset.imagesLoaded = String(imgs.filter(function (i) {"
    " return i.complete && i.naturalWidth > 0; }).length); });</script>"
)

CSS = (
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1180px;padding:0 1em;"
    "line-height:1.45;color:#222}"
    "table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.85em}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "td:first-child{text-align:left}"
    "th{background:#eee}.notice{background:#fff3cd;border:1px solid #e0c36a;padding:0.6em}"
    ".empty{background:#eef3f8;border-left:4px solid #0072B2;padding:0.5em 0.8em}"
    ".wrap{overflow-x:auto;max-width:100%}"
    "img{max-width:100%;height:auto}code{background:#f4f4f4;overflow-wrap:anywhere}"
    "details{margin:0.4em 0 1em}summary{cursor:pointer;color:#0072B2}"
    "h4{margin:1em 0 0.2em}"
)


def _header(run_dirs: list[Path], manifests: list[dict[str, Any]]) -> str:
    parts = []
    for d, m in zip(run_dirs, manifests, strict=True):
        strategies = ", ".join(s.get("spec", "?") for s in m.get("strategies", []))
        rows = [
            ("command", m.get("command", "?")),
            ("rules", json.dumps(m.get("rules", {}))),
            ("strategies", strategies),
            ("seed", m.get("seed", "?")),
            ("games (planned)", m.get("games", "?")),
            ("status", m.get("status", "?")),
            ("package version", m.get("version", "?")),
        ]
        body = "".join(
            f"<tr><th>{html.escape(k)}</th><td style='text-align:left'><code>"
            f"{html.escape(str(v))}</code></td></tr>"
            for k, v in rows
        )
        parts.append(
            f"<h4>Run {html.escape(str(d))}</h4><div class='wrap'><table>{body}</table></div>"
        )
    return (
        f"<details id='runs'><summary>The {len(run_dirs)} run(s): command, rules, strategies, "
        f"seed, games (planned), status, package version</summary>{''.join(parts)}</details>"
    )


def moves_logged(manifests: list[dict[str, Any]]) -> bool:
    """Whether every run kept its moves log (``--no-log-moves`` turns it off)."""
    return all(m.get("config", {}).get("log_moves", True) for m in manifests)


NO_MOVES = (
    "run with move logs (the default; {which} used --no-log-moves, or log_moves = false in "
    "an experiment file)"
)


def empty_notes(tables: dict[str, pl.DataFrame], manifests: list[dict[str, Any]]) -> dict[str, str]:
    """Per section whose figure has no data: a sentence saying why and how to get it."""
    which = "these runs" if len(manifests) > 1 else "this run"
    notes: dict[str, str] = {}
    if not len(tables["pairs"]):
        notes["results"] = (
            "No pairings: one strategy fills every seat, so no strategy can be compared with "
            "another (win rates of one strategy against itself mean nothing). Give two or more "
            "--strategies to compare them; mean scores and game shape are still shown."
        )
    if not len(tables["bet_outcomes"]):
        notes["bets"] = (
            "No bets in these games: the strategies played never bet (greedy and random with "
            "bet=0 never do). Add a strategy that bets, e.g. heuristic or random:bet=0.3."
        )
    elif not moves_logged(manifests):
        notes["bets"] = (
            "Hand strength at the bet is unknown: it is read from the moves log, which "
            f"{which} did not keep; to relate bets to hand strength, "
            + NO_MOVES.format(which=which)
            + "."
        )
    if not len(tables["bomb_timing"]):
        if not moves_logged(manifests):
            notes["bombs"] = (
                f"No bomb figures: bombs are read from the moves log, which {which} did not "
                "keep. To see when bombs are played, " + NO_MOVES.format(which=which) + "."
            )
        else:
            notes["bombs"] = "No bombs were played in these games, so there is nothing to show."
    return notes


def _shortened(frame: pl.DataFrame, short: dict[str, str]) -> pl.DataFrame:
    """The frame with strategy specs in its strategy columns shortened (see
    :func:`short_specs`; the full specs are in the run list and the CSV files)."""
    cols = [c for c in ("strategy", "a", "b") if c in frame.columns]
    frame = frame.with_columns(pl.col(c).replace(short) for c in cols)
    if "opponents" in frame.columns:
        frame = frame.with_columns(
            pl.col("opponents").map_elements(
                lambda t: " + ".join(short.get(x, x) for x in t.split(" + ")),
                return_dtype=pl.String,
            )
        )
    return frame


def _page(
    run_dirs: list[Path],
    manifests: list[dict[str, Any]],
    notices: list[str],
    tables: dict[str, pl.DataFrame],
    figures: dict[str, str],
    games: int,
) -> str:
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>haggis-sim report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>haggis-sim report</h1>",
        f"<p>Built by haggis-sim {html.escape(__version__)} on "
        f"{html.escape(time.strftime('%Y-%m-%d %H:%M:%S'))} from {len(run_dirs)} run(s), "
        f"{games:,} logged games (the runs are listed <a href='#runs'>at the bottom</a>).</p>",
    ]
    out += [f"<p class='notice'>{html.escape(n)}</p>" for n in notices]
    if not tables:
        out.append("<p class='notice'>No games are logged in these runs: no sections.</p>")
    notes = empty_notes(tables, manifests) if tables else {}
    specs = [s for t in ("strategies", "points") for s in tables[t]["strategy"]] if tables else []
    short = short_specs(specs)
    if any(k != v for k, v in short.items()):
        out.append(
            "<p>Strategies are named by the parameters that tell them apart; their full specs "
            "are in the run list at the bottom and in the CSV files.</p>"
        )
    if tables:
        links = " · ".join(f"<a href='#{k}'>{html.escape(t)}</a>" for k, t, _, _ in SECTION_TEXT)
        out.append(f"<p>Sections: {links}</p>")
    for key, title, names, text in SECTION_TEXT:
        if not tables:
            break
        out.append(f"<h2 id='{key}'>{html.escape(title)}</h2><p>{html.escape(text)}</p>")
        if key in notes:
            out.append(f"<p class='empty'>{html.escape(notes[key])}</p>")
        if key in figures:
            out.append(f"<img src='{figures[key]}' alt='{html.escape(title)}'>")
        for name in names:
            if name in tables and len(tables[name]):
                caption = f"{html.escape(name)} (<a href='tables/{name}.csv'>csv</a>)"
                out.append(table_html(_shortened(tables[name], short), caption))
    out.append(_header(run_dirs, manifests))
    out.append(IMAGE_CHECK + "</body></html>")
    return "\n".join(out)


# --- where the report may write ---------------------------------------------------------------


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def tree(folder: Path) -> tuple[list[str], list[str]]:
    """Every file and every folder under ``folder`` (relative POSIX paths, sorted).

    Symbolic links are not followed: a link counts as a file.
    """
    files: list[str] = []
    folders: list[str] = []

    def walk(d: Path, prefix: str) -> None:
        with os.scandir(d) as entries:
            for e in entries:
                rel = prefix + e.name
                if e.is_dir(follow_symlinks=False):
                    folders.append(rel)
                    walk(Path(e.path), rel + "/")
                else:
                    files.append(rel)

    walk(folder, "")
    return sorted(files), sorted(folders)


def check_parents(out: Path, option: str, refuse: type[ValueError]) -> None:
    """Refuse (``refuse``) an ``out`` under a file, or inside a run or report folder.

    A run folder keeps only the run's own files and a report folder only what the report
    wrote (so ``--force`` can replace it), so no tool output goes inside either.
    """
    for p in out.parents:
        if p.exists() or p.is_symlink():
            if not p.is_dir():
                raise refuse(f"{option} {out}: {p} is a file, not a folder")
            break
    for p in out.parents:
        if _is_file(p / MANIFEST):
            raise refuse(
                f"{option} {out} is inside the run folder {p}; a run folder keeps only the "
                "run's own files: choose a path outside it"
            )
        if _is_file(p / MARKER):
            raise refuse(
                f"{option} {out} is inside the report folder {p}; a report folder keeps only "
                "the report's own files: choose a path outside it"
            )


def _some(folder: Path) -> str:
    names = sorted(os.listdir(folder))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return shown


def marker_data(path: Path) -> dict[str, Any]:
    """A marker file's contents (report or experiment); OSError/ValueError if untrustworthy."""
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise ValueError("no list of files")
    return data


def read_marker(folder: Path) -> dict[str, Any]:
    """The report marker of ``folder``; ReportError when it cannot be read."""
    try:
        data = marker_data(folder / MARKER)
    except (OSError, ValueError) as exc:
        raise ReportError(
            f"{folder / MARKER} is damaged ({exc}); cannot tell what the report wrote, "
            "so nothing is replaced: choose another --out"
        ) from None
    return data


def foreign(folder: Path, marker: dict[str, Any]) -> list[str]:
    """Files and folders in a report folder that its report did not write (per its marker)."""
    files, folders = tree(folder)
    own_files = {str(f) for f in marker.get("files", [])} | {MARKER}
    own_folders = {str(f) for f in marker.get("folders", [])}
    extra = [f for f in files if f not in own_files]
    extra += [d for d in folders if d not in own_folders]
    return sorted(extra)


def check_out(out: Path, force: bool = False) -> OutState:
    """How the report may write ``out``: ``new``, ``empty`` (an empty folder) or ``replace``.

    Raises ReportError for every other ``out``: a file or symbolic link, a path under a
    file or inside a run or report folder, a run folder, a non-empty folder that is not a
    report, an earlier report without ``force``, and (with ``force``) a report folder
    holding anything its report did not write. Changes nothing.
    """
    out = Path(os.path.abspath(out))
    try:
        return _check_out(out, force)
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise ReportError(f"cannot look at {exc.filename or out}: {exc.strerror or exc}") from None


def _check_out(out: Path, force: bool) -> OutState:
    if out.is_symlink():
        raise ReportError(f"--out {out} is a symbolic link; give the report a real folder")
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} is a file, not a folder")
    check_parents(out, "--out", ReportError)
    if not out.exists():
        return "new"
    if _is_file(out / MANIFEST):
        raise ReportError(
            f"--out {out} is a haggis-sim run folder; the report needs a folder of its own"
        )
    if not any(out.iterdir()):
        return "empty"
    if not (out / MARKER).exists():
        raise ReportError(
            f"--out {out} already exists and is not a report folder (it holds {_some(out)}); "
            "choose a new or empty folder"
        )
    if not force:
        raise ReportError(f"--out {out} holds an earlier report; add --force to replace it")
    extra = foreign(out, read_marker(out))
    if extra:
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        raise ReportError(
            f"--out {out} holds {out / extra[0]}{more}, which the report did not write; "
            "--force replaces only a report's own files: move it away or choose another --out"
        )
    return "replace"


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the folders created, outermost first."""
    missing = []
    for p in [folder, *folder.parents]:
        if p.exists():
            break
        missing.append(p)
    created: list[Path] = []
    for p in reversed(missing):
        p.mkdir()
        created.append(p)
    return created


def _sibling(out: Path, kind: str) -> Path:
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


def _write_marker(folder: Path, run_dirs: list[Path], fmt: Format) -> None:
    files, folders = tree(folder)
    marker = {
        "tool": "haggis-sim",
        "kind": "report",
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "format": fmt,
        "runs": [str(Path(os.path.abspath(d))) for d in run_dirs],
        "files": files,
        "folders": folders,
    }
    (folder / MARKER).write_text(json.dumps(marker, indent=2) + "\n")


def _remove_own(folder: Path) -> bool:
    """Delete a replaced report: only the files and folders its marker lists, then the folder.

    Anything else found there is left in place (with the folder); returns False then.
    """
    try:
        marker = read_marker(folder)
        for name in marker["files"]:
            (folder / name).unlink(missing_ok=True)
        for name in sorted(marker.get("folders", []), key=lambda n: -n.count("/")):
            if (folder / name).is_dir():
                (folder / name).rmdir()
        (folder / MARKER).unlink()
        folder.rmdir()
    except (OSError, ReportError):
        return False
    return True


def _swap(tmp: Path, out: Path, state: OutState) -> None:
    """Move the finished report ``tmp`` to ``out`` (replacing an earlier report in ``replace``)."""
    if state != "replace":
        os.rename(tmp, out)  # fails, changing nothing, if out is no longer missing or empty
        return
    old = _sibling(out, "old")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        raise
    if not _remove_own(old):  # someone added a file in the last instant: keep it, visibly
        os.rename(old, out.parent / f"{out.name}.old-{os.getpid()}")


def _write_files(
    tmp: Path,
    run_dirs: list[Path],
    manifests: list[dict[str, Any]],
    fmt: Format,
    on_step: Step | None = None,
) -> None:
    step = on_step or (lambda _w, _i, _n: None)
    notices = run_notices(run_dirs, manifests)
    tables, _ = build_tables(run_dirs, manifests, step)
    step("figures", STEPS - 2, STEPS)
    figures = _figures(tables, tmp) if tables else {}
    step("page and tables", STEPS - 1, STEPS)
    if fmt == "html":
        (tmp / "tables").mkdir()
        for name, frame in tables.items():
            frame.write_csv(tmp / "tables" / f"{name}.csv")
        games = _count_games(tables)
        (tmp / "index.html").write_text(
            _page(run_dirs, manifests, notices, tables, figures, games), encoding="utf-8"
        )
    _write_marker(tmp, run_dirs, fmt)
    step("done", STEPS, STEPS)


def build_report(
    run_dirs: list[Path],
    out: Path,
    fmt: Format = "html",
    force: bool = False,
    on_step: Step | None = None,
) -> Path:
    """Write the report folder for ``run_dirs`` at ``out`` and return ``out``.

    ``fmt="html"``: index.html, its PNG figures and every table as ``tables/NAME.csv``;
    ``fmt="png"``: the figures only; either way plus the marker :data:`MARKER`. A run that
    is unfinished or has no games gives a notice in the page (and :func:`run_notices` for
    the terminal) rather than an error.

    ``out`` must be new, an empty folder, or (with ``force``) an earlier report holding
    only its own files (see :func:`check_out`). The report is built in a temporary folder
    next to ``out`` and renamed into place; on any failure or interruption the temporary
    folder and any parent folder this call created are removed and ``out`` is unchanged.

    ``on_step`` hears of each step of the build (see :data:`Step`), for a progress display.

    Raises ReportError for a missing run folder, a folder that is not a run, an ``out``
    that may not be written, and a write the operating system refuses (saying what and
    where); KeyboardInterrupt for Ctrl-C, also when DuckDB reports it as an error.
    """
    if fmt not in ("html", "png"):
        raise ReportError(f"--format must be html or png, got {fmt!r}")
    manifests = read_manifests(run_dirs)
    out = Path(os.path.abspath(out))
    check_out(out, force)
    created: list[Path] = []
    tmp: Path | None = None
    doing = f"create the folder {out.parent}"
    try:
        created = _make_parents(out.parent)
        doing = f"create a folder in {out.parent}"
        tmp = _sibling(out, "tmp")
        tmp.mkdir()
        doing = f"write the report files into {tmp}"
        _write_files(tmp, run_dirs, manifests, fmt, on_step)
        state = check_out(out, force)  # again: out may have changed during the build
        doing = f"move the report into place at {out}"
        _swap(tmp, out, state)
    except BaseException as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for p in reversed(created):
            with contextlib.suppress(OSError):
                p.rmdir()
        if isinstance(exc, OSError):
            where = f" ({exc.filename})" if exc.filename and doing.startswith("write") else ""
            raise ReportError(f"cannot {doing}: {exc.strerror or exc}{where}") from None
        raise
    return out


def _count_games(tables: dict[str, pl.DataFrame]) -> int:
    if "shape" not in tables:
        return 0
    return int(tables["shape"]["games"].sum())
