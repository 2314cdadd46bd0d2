"""The report's figures: one drawing function per section, registered by name.

:data:`FIGURES` maps a section key (as in :data:`.page.SECTION_TEXT`) to the function
drawing its figure from the section tables; :func:`draw_figures` draws every registered
figure that has data into ``fig-KEY.png``. The small helpers here (interval rows, axis
spans, error-bar lengths, saving) are shared by the figures and by the experiment pages'
level plots (:mod:`haggis_sim.experiment.figures`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .labels import short_specs, wrap
from .style import PALETTE, REFERENCE, STRENGTH_ORDER, pyplot, series_style, verdict_color

Tables = dict[str, pl.DataFrame]


def span(lows: list[float], highs: list[float], refs: list[float]) -> tuple[float, float]:
    """Axis limits that hold every interval and reference line, with a margin."""
    vals = [v for v in [*lows, *highs, *refs] if v is not None and v == v]
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    pad = (hi - lo) * 0.08 if hi > lo else max(abs(hi) * 0.1, 0.01)
    return lo - pad, hi + pad


def save(fig: Any, path: Path) -> None:
    """Write a figure with nothing clipped (the bounding box grows to hold every label)."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=90, bbox_inches="tight", pad_inches=0.15)
    plt.close(fig)


def interval_rows(
    ax: Any, values: list[float], lows: list[float], highs: list[float], colors: list[str]
) -> None:
    """Point estimates with horizontal interval bars, one row each (first row on top)."""
    for i, (v, lo, hi, c) in enumerate(zip(values, lows, highs, colors, strict=True)):
        if v is None or v != v:
            continue
        lo = v if lo is None or lo != lo else lo
        hi = v if hi is None or hi != hi else hi
        ax.errorbar([v], [i], xerr=[[v - lo], [hi - v]], fmt="o", color=c, ms=5, capsize=3)


def errors(values: list[float], lows: Any, highs: Any) -> list[list[float]]:
    """Error-bar lengths below and above each value, from its interval's ends."""
    return [
        [v - lo for v, lo in zip(values, lows, strict=True)],
        [hi - v for v, hi in zip(values, highs, strict=True)],
    ]


def no_data(ax: Any, text: str) -> None:
    """A panel that says, in words, why it holds no data."""
    ax.text(0.5, 0.5, wrap(text, 40), ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


# --- the registry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Names:
    """How the figures of one report name strategies and pairings: short specs
    (:func:`short_specs`), the rules preset and player count only where the report holds
    several, and each strategy's series index (one colour per strategy in every figure)."""

    short: dict[str, str]
    many_rules: bool
    many_players: bool
    pairings: dict[int, tuple[list[str], str, int]]  # number -> (specs, rules, players)

    @classmethod
    def of(cls, tables: Tables) -> Names:
        """The names for a report's tables."""
        return cls(
            report_labels(tables),
            len(set(tables["shape"]["rules"].to_list())) > 1,
            len(set(tables["seat"]["players"].to_list())) > 1,
            pairing_fields(tables),
        )

    def where(self, rules: str, players: int) -> str:
        """`` [rules 3p]``: what tells this row's games apart, or nothing."""
        at = ([rules] if self.many_rules else []) + (
            [f"{players}p"] if self.many_players and players else []
        )
        return f" [{' '.join(at)}]" if at else ""

    def who(self, strategy: str, rules: str, players: int = 0) -> str:
        """A strategy's short label, with where it played when that tells rows apart."""
        return self.short[strategy] + self.where(rules, players)

    def index(self, strategy: str) -> int:
        """The strategy's series index: its place among the report's specs."""
        return list(self.short).index(strategy)

    def against(self, strategy: str, pairing: int, what: str = "") -> str:
        """``A vs B``: the strategy's short label (and ``what`` of it: ``A's bets vs B``),
        then its opponents in that pairing (``(self-play)`` when it met only itself), with
        where they played."""
        field, rules, players = self.pairings[pairing]
        others = [self.short[s] for s in field if s != strategy]
        vs = " vs " + " + ".join(others) if others else " (self-play)"
        return self.short[strategy] + what + vs + self.where(rules, players)

    def pairing(self, pairing: int) -> str:
        """The pairing's strategies (short labels) joined by " vs ", with where they played."""
        field, rules, players = self.pairings[pairing]
        return " vs ".join(self.short[s] for s in field) + self.where(rules, players)


def pairing_fields(tables: Tables) -> dict[int, tuple[list[str], str, int]]:
    """Each pairing's specs (in the order given), rules and players, from ``pairings``."""
    if "pairings" not in tables:
        return {}
    info = tables["pairings"].select("pairing", "field", "rules", "players")
    return {
        n: (field.split(" vs "), rules, players) for n, field, rules, players in info.iter_rows()
    }


def report_labels(tables: Tables) -> dict[str, str]:
    """The report's one short label per strategy spec (figures and page alike)."""
    specs = [s for t in ("strategies", "points") if t in tables for s in tables[t]["strategy"]]
    specs += [s for field, _, _ in pairing_fields(tables).values() for s in field]
    return short_specs(specs)


Figure = Callable[[Tables, Names], Any]
"""Draws one section's figure from the tables and returns it; None when there is no data."""

FIGURES: dict[str, Figure] = {}


def figure(key: str) -> Callable[[Figure], Figure]:
    """Register a figure function for the section ``key`` (drawn in registration order)."""

    def register(fn: Figure) -> Figure:
        FIGURES[key] = fn
        return fn

    return register


def draw_figures(tables: Tables, folder: Path) -> dict[str, str]:
    """Draw one PNG per section that has data into ``folder``; return {section: file name}."""
    names = Names.of(tables)
    files: dict[str, str] = {}
    for key, draw in FIGURES.items():
        fig = draw(tables, names)
        if fig is not None:
            save(fig, folder / f"fig-{key}.png")
            files[key] = f"fig-{key}.png"
    return files


def integer_ticks(axis: Any) -> None:
    """Ticks at whole numbers only, for an axis of counts (cards, tricks, rounds)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


# --- the figures -------------------------------------------------------------------------------


@figure("overview")
def overview_figure(tables: Tables, names: Names) -> Any:
    """The figure a designer looks at first: per pairing, how often the first-named
    strategy wins against the other, with its 95% interval and the number beside it; blue
    when the interval lies above even, vermillion below, grey when it holds 50%."""
    from matplotlib.ticker import PercentFormatter

    plt = pyplot()
    pairs = tables["pairs"]
    if not len(pairs):
        return None
    short = names.short
    labels = [
        wrap(f"{short[a]} vs {short[b]}{names.where(r, p)}", 40)
        for r, p, a, b in zip(pairs["rules"], pairs["players"], pairs["a"], pairs["b"], strict=True)
    ]
    rate, low, high = (pairs[c].to_list() for c in ("win_rate_a", "win_low", "win_high"))
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(pairs) + 1.4))
    interval_rows(
        ax,
        rate,
        low,
        high,
        [verdict_color(lo - 0.5, hi - 0.5) for lo, hi in zip(low, high, strict=True)],
    )
    ax.axvline(0.5, color=REFERENCE, lw=0.9, ls="--")
    for i, (v, lo, hi) in enumerate(zip(rate, low, high, strict=True)):
        ax.annotate(
            f"{v:.1%} [{lo:.1%}, {hi:.1%}]",
            (1.0, i),
            xycoords=("axes fraction", "data"),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_xlim(*span(low, high, [0.5]))
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_yticks(range(len(pairs)), labels)
    ax.set_ylim(len(pairs) - 0.5, -0.5)
    ax.set_title("Who wins: the first strategy's share of games against the second")
    ax.set_xlabel("win rate with its 95% interval (dashed: even)")
    ax.grid(axis="x", alpha=0.3)
    return fig


@figure("results")
def results_figure(tables: Tables, names: Names) -> Any:
    """Score margin per pairing, in the order the strategies were given (the win rates are
    the overview figure at the top of the page)."""
    plt = pyplot()
    short, pairs = names.short, tables["pairs"]
    if not len(pairs):
        return None
    labels = [
        wrap(f"{short[a]} vs {short[b]}{names.where(r, p)}", 40)
        for r, p, a, b in zip(pairs["rules"], pairs["players"], pairs["a"], pairs["b"], strict=True)
    ]
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(pairs) + 1.4))
    m = pairs["margin"].fill_nan(None).to_list()
    mlo = pairs["margin_low"].fill_nan(None).to_list()
    mhi = pairs["margin_high"].fill_nan(None).to_list()
    interval_rows(ax, m, mlo, mhi, [PALETTE[1]] * len(m))
    ax.axvline(0.0, color=REFERENCE, lw=0.9, ls="--")
    ax.set_xlim(*span(mlo, mhi, [0.0]))
    ax.set_title("final score margin, first strategy − second (95% over deals)")
    ax.set_yticks(range(len(pairs)), labels)
    ax.set_ylim(len(pairs) - 0.5, -0.5)
    ax.grid(axis="x", alpha=0.3)
    return fig


@figure("seat_lead")
def seat_lead_figure(tables: Tables, names: Names) -> Any:
    """Win rates by seat and by first lead, with Wilson intervals, against the fair share
    1/players."""
    plt = pyplot()
    seat, lead = tables["seat"], tables["lead_game"]
    many = names.many_rules or len(set(seat["players"])) > 1
    rows_ = max(len(seat), len(lead))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.34 * rows_ + 1.9))
    for ax, t, labels, title in (
        (axes[0], seat, [f"seat {s}" for s in seat["seat"]], "win rate by seat"),
        (axes[1], lead, ["led round 1" if x else "did not lead round 1" for x in lead["led_first"]],
         "win rate by who led the first round"),
    ):  # fmt: skip
        ys = list(range(len(t)))
        fair = [1 / p for p in t["players"]]
        rate = t["win_rate"].to_list()
        interval_rows(ax, rate, t["win_low"].to_list(), t["win_high"].to_list(),
                      [PALETTE[2]] * len(t))  # fmt: skip
        ax.vlines(fair, [y - 0.4 for y in ys], [y + 0.4 for y in ys], color=REFERENCE, ls="--",
                  lw=0.9, label="fair share (1 / players)")  # fmt: skip
        ticks = [n + (f" · {r} · {p}p" if many else "")
                 for n, r, p in zip(labels, t["rules"], t["players"], strict=True)]  # fmt: skip
        ax.set_yticks(ys, [wrap(x, 40) for x in ticks], fontsize=8)
        ax.set_ylim(len(t) - 0.5, -0.5)
        ax.set_xlim(*span(t["win_low"].to_list(), t["win_high"].to_list(), fair))
        ax.set_title(title + " (95% Wilson)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].legend(loc="lower center", bbox_to_anchor=(1.1, 1.08), frameon=False)
    fig.tight_layout()
    return fig


@figure("points")
def points_figure(tables: Tables, names: Names) -> Any:
    """Points per round by source: one panel per source, an interval per strategy and
    pairing (a strategy's points against one opponent are not pooled with another's)."""
    plt = pyplot()
    pts = tables["points_by_pairing"]
    many = len(names.pairings) > 1
    sources = ("going_out", "cards", "bets", "bonus")
    fig, axes = plt.subplots(1, 4, figsize=(12, 0.4 * len(pts) + 1.6), sharey=True)
    for ax, src, color in zip(axes, sources, PALETTE, strict=False):
        interval_rows(
            ax,
            pts[src].to_list(),
            pts[f"{src}_low"].to_list(),
            pts[f"{src}_high"].to_list(),
            [color] * len(pts),
        )
        ax.axvline(0.0, color=REFERENCE, lw=0.9, ls="--")
        ax.set_xlim(*span(pts[f"{src}_low"].to_list(), pts[f"{src}_high"].to_list(), [0.0]))
        ax.set_title(src.replace("_", " "))
        ax.grid(axis="x", alpha=0.3)
    labels = [
        names.against(s, n) if many else names.who(s, r, p)
        for n, r, p, s in pts.select("pairing", "rules", "players", "strategy").iter_rows()
    ]
    axes[0].set_yticks(range(len(pts)), [wrap(x, 34) for x in labels])
    axes[0].set_ylim(len(pts) - 0.5, -0.5)
    fig.supxlabel("mean points per round (95% interval)", fontsize=9, y=-0.06)
    return fig


def panel_grid(plt: Any, n: int, cols: int, width: float, height: float, **kw: Any) -> Any:
    """``n`` small panels in rows of ``cols`` (the panels past ``n`` switched off)."""
    cols = max(1, min(n, cols))
    rows_ = -(-n // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(width * cols + 1, height * rows_ + 0.8),
                             squeeze=False, **kw)  # fmt: skip
    for ax in axes.flat[n:]:
        ax.axis("off")
    return fig, axes


@figure("bets")
def bets_figure(tables: Tables, names: Names) -> Any:
    """Bet success rate by hand strength at the bet, one panel per strategy and pairing,
    one colour per bet value (small multiples with a shared y axis: each strategy's own
    curve against each opponent, none hidden behind another or pooled across opponents)."""
    plt = pyplot()
    out = tables["bet_outcomes_by_pairing"]
    if not len(out):
        return None
    values = sorted(set(out["value"].to_list()))
    buckets = [b for b in STRENGTH_ORDER if b in set(out["strength"].to_list())]
    groups = list(dict.fromkeys(zip(out["pairing"], out["strategy"], strict=True)))
    fig, axes = panel_grid(plt, len(groups), 4, 3.2, 2.6, sharey=True)
    for ax, (pairing, strat) in zip(axes.flat, groups, strict=False):
        for vi, value in enumerate(values):
            t = out.filter((pl.col("value") == value) & (pl.col("pairing") == pairing)
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
                        yerr=errors(r, t["success_low"], t["success_high"]))  # fmt: skip
        ax.set_xticks(range(len(buckets)), buckets, rotation=30, fontsize=8)
        ax.set_title(wrap(names.against(strat, pairing, "'s bets"), 34), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    for row in axes:
        row[0].set_ylabel("success rate (95% Wilson)")
    axes[0][0].set_ylim(*span(out["success_low"].to_list(), out["success_high"].to_list(), []))
    fig.supxlabel("hand strength at the bet (the heuristic's 0-100 estimate)", fontsize=9)
    figure_legend(fig, axes, key=lambda n: int(n.split()[1]))
    fig.tight_layout()
    return fig


def figure_legend(fig: Any, axes: Any, key: Callable[[str], Any] | None = None) -> None:
    """One legend above the figure for every series drawn in any of its panels."""
    handles: dict[str, Any] = {}
    for ax in axes.flat:
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(n, h)
    labels = sorted(handles, key=key) if key else list(handles)
    fig.legend([handles[n] for n in labels], labels, loc="lower center", frameon=False,
               bbox_to_anchor=(0.5, 1.0), ncol=min(len(labels), 4))  # fmt: skip


BOMB_MEASURES = (
    ("trick", "trick number"),
    ("bomber cards left", "cards left in the bomber's hand"),
    ("opponent cards left", "fewest cards in an opponent's hand"),
)
"""The bomb-timing measures: (measure in the table, axis label)."""


@figure("bombs")
def bombs_figure(tables: Tables, names: Names) -> Any:
    """When bombs are played, as a share of each strategy's bombs: one row of panels per
    pairing (a line per strategy of that pairing, so two or three lines a panel), one
    column per measure, whole-number ticks; one colour per strategy throughout."""
    plt = pyplot()
    timing = tables["bomb_timing_by_pairing"]
    if not len(timing):
        return None
    pairings = list(dict.fromkeys(timing["pairing"].to_list()))
    fig, axes = plt.subplots(len(pairings), 3, figsize=(12, 1.9 * len(pairings) + 0.9),
                             squeeze=False, sharex="col", sharey=True)  # fmt: skip
    for row, pairing in zip(axes, pairings, strict=True):
        here = timing.filter(pl.col("pairing") == pairing)
        for ax, (measure, _) in zip(row, BOMB_MEASURES, strict=True):
            sub = here.filter(pl.col("measure") == measure)
            for strat in dict.fromkeys(here["strategy"].to_list()):
                s = sub.filter(pl.col("strategy") == strat).sort("value")
                total = max(int(s["bombs"].sum()), 1)
                ax.plot(s["value"].to_list(), [b / total for b in s["bombs"]], ms=4, lw=1.2,
                        **series_style(names.index(strat)), label=names.short[strat])  # fmt: skip
            integer_ticks(ax.xaxis)
            ax.grid(alpha=0.3)
        row[0].set_ylabel(wrap(names.pairing(pairing), 24) + "\nshare of bombs", fontsize=8)
    for ax, (measure, _) in zip(axes[0], BOMB_MEASURES, strict=True):
        ax.set_title(f"bombs by {measure}")
    for ax, (_, label) in zip(axes[-1], BOMB_MEASURES, strict=True):
        ax.set_xlabel(label)
    figure_legend(fig, axes)
    fig.tight_layout()
    return fig


SHAPE_MEASURES = (
    ("shape_rounds", "rounds", "games", "rounds per game"),
    ("shape_tricks", "tricks", "rounds", "tricks per round"),
    ("shape_margins", "margin", "games", "final margin"),
)
"""The game-shape histograms: (table, value column, count column, title)."""


def shape_bins(tables: Tables) -> dict[str, list[float]]:
    """Per game-shape table, bin edges shared by every preset: at most 30 bins of whole
    numbers over the table's whole range."""
    bins = {}
    for key, x, _, _ in SHAPE_MEASURES:
        xs_all = tables[key][x].cast(pl.Int64)
        lo, hi = int(xs_all.min() or 0), int(xs_all.max() or 0)  # type: ignore[arg-type]
        step = max(1, -(-(hi - lo + 1) // 30))  # at most 30 bins of whole numbers
        bins[key] = [lo - 0.5 + step * i for i in range((hi - lo) // step + 2)]
    return bins


@figure("shape")
def shape_figure(tables: Tables, names: Names) -> Any:
    """Game shape: one row of panels per rules preset (small multiples, shared x per column)."""
    plt = pyplot()
    presets = sorted(set(tables["shape"]["rules"].to_list()))
    fig, axes = plt.subplots(
        len(presets), 3, figsize=(12, 1.9 * len(presets) + 1.0), squeeze=False, sharex="col"
    )
    bins = shape_bins(tables)
    for row, rules in enumerate(presets):
        for col, (key, x, count, title) in enumerate(SHAPE_MEASURES):
            ax = axes[row][col]
            s = tables[key].filter(pl.col("rules") == rules)
            total = max(int(s[count].sum()), 1)
            edges = bins[key]
            ax.hist(s[x].to_list(), bins=edges, weights=[c / total for c in s[count]],
                    color=PALETTE[row % len(PALETTE)], rwidth=0.9)  # fmt: skip
            if row == 0:
                ax.set_title(title)
            ax.grid(axis="y", alpha=0.3)
            integer_ticks(ax.xaxis)
        axes[row][0].set_ylabel(wrap(rules, 16) + "\nshare")
    fig.tight_layout()
    return fig
