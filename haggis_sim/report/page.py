"""The report's HTML page: sections with their text, figures and tables, the run list.

The page is the template ``templates/report.html.j2``; this module gathers what it shows
(every string here is part of the page the browser test reads). Its style sheet and image
check are template partials shared with the experiment pages.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import polars as pl

from .. import __version__
from ..logs.manifest import Manifest
from ..pages import render
from .figures import report_labels
from .style import COLOURS


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
    return str(value)


LONG_TABLE = 12  # rows; a longer table is folded into a <details> box


def table_context(name: str, frame: pl.DataFrame) -> dict[str, Any]:
    """What the page template needs of a table: its name, header and cell texts (floats to
    4 significant digits), and whether it is folded away (more than :data:`LONG_TABLE`
    rows)."""
    rows = [[_cell(v) for v in row] for row in frame.rows()]
    return {
        "name": name,
        "header": frame.columns,
        "rows": rows,
        "folded": frame.height > LONG_TABLE,
    }


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


def _run_list(run_dirs: list[Path], manifests: list[Manifest]) -> list[dict[str, Any]]:
    """The folded run list: each run's command, rules, strategies, seed, games, status."""
    runs = []
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
        runs.append({"dir": str(d), "rows": rows})
    return runs


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
    """The whole index.html (template ``report.html.j2``): title, notices, the overview
    figure (win rate per pairing) and the legend table (short label → full spec), then per
    section (:data:`SECTION_TEXT`) its text, a note when its figure has no data, its figure
    and its tables (strategy specs shortened, each linked to its CSV file), and the run
    list at the bottom."""
    notes = empty_notes(tables, manifests) if tables else {}
    short = report_labels(tables) if tables else {}
    sections = [
        {
            "key": key,
            "title": title,
            "text": text,
            "note": notes.get(key),
            "figure": figures.get(key),
            "tables": [
                table_context(name, _shortened(tables[name], short))
                for name in names
                if name in tables and len(tables[name])
            ],
        }
        for key, title, names, text in (SECTION_TEXT if tables else [])
    ]
    return render(
        "report.html.j2",
        colours=COLOURS,
        version=__version__,
        built=time.strftime("%Y-%m-%d %H:%M:%S"),
        games=games,
        notices=notices,
        overview=figures.get("overview"),
        legend=[(v, k) for k, v in short.items()] if any(k != v for k, v in short.items()) else [],
        sections=sections,
        runs=_run_list(run_dirs, manifests),
    )
