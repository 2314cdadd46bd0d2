"""The report's HTML page: sections with their text, figures and tables, the run list.

Every string here is part of the page the browser test reads; :data:`CSS` and
:data:`IMAGE_CHECK` are shared with the experiment pages.
"""

from __future__ import annotations

import html
import json
import time
from pathlib import Path
from typing import Any

import polars as pl

from .. import __version__
from ..logs.manifest import Manifest
from .labels import short_specs


def _cell(value: Any) -> str:
    """A table cell's text: a dash for no value, floats to 4 significant digits."""
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


def _header(run_dirs: list[Path], manifests: list[Manifest]) -> str:
    """The folded run list: each run's command, rules, strategies, seed, games, status."""
    parts = []
    for d, m in zip(run_dirs, manifests, strict=True):
        rows = [
            ("command", m.command),
            ("rules", json.dumps(m.rules.as_dict())),
            ("strategies", ", ".join(m.specs)),
            ("seed", m.seed),
            ("games (planned)", m.games),
            ("status", m.status),
            ("package version", m.version),
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


def moves_logged(manifests: list[Manifest]) -> bool:
    """Whether every run kept its moves log (``--no-log-moves`` turns it off)."""
    return all(m.config.log_moves for m in manifests)


NO_MOVES = (
    "run with move logs (the default; {which} used --no-log-moves, or log_moves = false in "
    "an experiment file)"
)


def empty_notes(tables: dict[str, pl.DataFrame], manifests: list[Manifest]) -> dict[str, str]:
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


def page_html(
    run_dirs: list[Path],
    manifests: list[Manifest],
    notices: list[str],
    tables: dict[str, pl.DataFrame],
    figures: dict[str, str],
    games: int,
) -> str:
    """The whole index.html: title, notices, then per section (:data:`SECTION_TEXT`) its
    text, a note when its figure has no data, its figure and its tables (strategy specs
    shortened, each linked to its CSV file), and the run list at the bottom."""
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
