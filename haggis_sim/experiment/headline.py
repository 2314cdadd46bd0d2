"""The first screen of an experiment's page: its answer in everyday words.

A designer reads one headline sentence (at most :data:`MAX_WORDS` words, no statistical
vocabulary), then a small table with one row per variant and one column per measure,
whose cells say "no measurable difference" or "+2.1 points (more comebacks)". Both are
read from the strongest players' population (the top of a ladder; the last population
otherwise; the single population of a plain experiment) and claim no more than the
verdicts do: a change is named only where its 95% interval excludes 0
(:func:`.separation.sign`); the intervals, the games and how the answer moves with
player strength stay on the page below, under "How sure are we?".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analytics.compare import RATE_METRICS, fmt_change
from .separation import num, sign
from .verdicts import apart, arm_labels

#: the headline's length limit, in words
MAX_WORDS = 30

#: words a designer does not use, kept out of the headline and the table
JARGON = ("rung", "arm", "baseline", "separable", "tolerance", "family-wise", "population")


@dataclass(frozen=True)
class Plain:
    """A measure in a player's words: its name, and what a rise and a fall mean."""

    name: str
    up: str
    down: str
    unit: str = ""  # after a change that is not a rate: " rounds", " points"
    digits: int = 1  # decimals of such a change
    scale: float = 1.0  # its factor: 100 for a share of a fair share in percent
    level: str = ""  # what the measure's value is, where that differs from its name

    @property
    def what(self) -> str:
        """What an axis of the measure's values shows: its level's words, or its name."""
        return self.level or self.name


#: the measures a headline can speak of, in a player's words
PLAIN: dict[str, Plain] = {
    "ahead_r1_win": Plain(
        "comebacks",
        "fewer comebacks",
        "more comebacks",
        level="how often the leader after round 1 wins",
    ),
    "rounds": Plain("game length", "longer games", "shorter games", " rounds", 2),
    "margin": Plain("winning margin", "wider margins", "narrower margins", " points"),
    "seat0_win": Plain(
        "first seat's edge",
        "first seat wins more",
        "first seat wins less",
        level="how often the first seat wins",
    ),
    "first_lead_win": Plain(
        "first lead's edge", "first leader wins more", "first leader wins less"
    ),
    "lead_changes": Plain("lead changes", "more lead changes", "fewer lead changes", " a game", 2),
    "winner_lead_round": Plain("when the winner pulls ahead", "later", "earlier"),
    "win_rate": Plain("wins", "wins more", "wins less", level="games won"),
    "win_vs_fair": Plain(
        "wins against a fair share", "more wins", "fewer wins", "% of a fair share", 1, 100.0
    ),
    "score": Plain("score", "scores more", "scores less", " points"),
    "bet_points": Plain("points from bets", "more from bets", "less from bets", " points"),
    **{
        f"decisive_{s}": Plain(f"games decided by {w}", f"{w} decide more", f"{w} decide fewer")
        for s, w in (
            ("going_out", "going out"),
            ("cards", "cards"),
            ("bets", "bets"),
            ("bonus", "bonuses"),
        )
    },  # fmt: skip
}

#: the measures a table shows beside the question's, in this order of preference
TABLE_PREFERENCE = ("rounds", "margin", "lead_changes", "score", "bet_points", "seat0_win")
TABLE_COLUMNS = 4


@dataclass(frozen=True)
class Cell:
    """One cell of the first-screen table: its words, and ``better``/``worse``/``up``/
    ``down``/``same`` for its colour and icon."""

    text: str
    tone: str


def top_summary(summary: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The summary the first screen speaks for, and the name of its population (None
    for a plain experiment)."""
    if "populations" not in summary:
        return summary, None
    top = summary["populations"][-1]
    return top["summary"], top["name"]


def compared(summary: dict[str, Any]) -> list[str]:
    """The arms compared with the first: every arm but the first and the head-to-head
    ones, in the file's order."""
    skip = apart(summary)
    return [a["name"] for a in summary["arms"][1:] if a["name"] not in skip]


def change_of(summary: dict[str, Any], metric: str, arm: str) -> dict[str, Any] | None:
    """``arm``'s difference from the first arm on ``metric`` (``diff``, ``low``,
    ``high``), or None where the summary has none."""
    rows = summary.get("results", {}).get(metric, {}).get("rows", [])
    row = next((r for r in rows if r["arm"] == arm), None)
    return None if row is None else row.get("vs_first")


def change_words(metric: str, d: dict[str, Any]) -> str:
    """A measured change in everyday words: ``+2.1 points (fewer comebacks)``."""
    plain = PLAIN.get(metric)
    diff = num(d["diff"])
    if plain is None:
        return fmt_change(metric, diff)
    if metric in RATE_METRICS:
        said = fmt_change(metric, diff)
    else:
        said = f"{diff * plain.scale:+.{plain.digits}f}{plain.unit}"
    return f"{said} ({plain.up if diff > 0 else plain.down})"


def tone(d: dict[str, Any], goal: str | None) -> str:
    """How a change reads: ``same`` where its interval holds 0; else ``better`` or
    ``worse`` for the question's ``goal`` (``max`` or ``min``), ``up`` or ``down``
    without one."""
    s = sign(d)
    if s == 0:
        return "same"
    if goal is None:
        return "up" if s > 0 else "down"
    return "better" if (s > 0) == (goal == "max") else "worse"


def cell(summary: dict[str, Any], metric: str, arm: str, goal: str | None) -> Cell:
    """The table's cell for ``arm`` on ``metric``: its change from the first arm where the
    interval excludes 0, else "no measurable difference"; ``goal`` (the question's
    ``max`` or ``min``) colours the question's column better or worse."""
    d = change_of(summary, metric, arm)
    if d is None or d.get("diff") is None:
        return Cell("not measured", "same")
    how = tone(d, goal)
    return Cell("no measurable difference" if how == "same" else change_words(metric, d), how)


def table_metrics(summary: dict[str, Any]) -> list[str]:
    """The question's metric, then up to three more measures the experiment reports."""
    question = summary["metric"]
    results = summary.get("results", {})
    others = [m for m in TABLE_PREFERENCE if m in results and m != question]
    return [question, *others][:TABLE_COLUMNS]


def effect_table(summary: dict[str, Any]) -> tuple[list[str], list[tuple[str, list[Cell]]]]:
    """The first screen's table of the strongest players' summary: the header (the
    measures in a player's words) and per compared variant its cells."""
    top, _ = top_summary(summary)
    labels = arm_labels(top)
    metrics = table_metrics(top)
    header = ["compared with " + labels[top["arms"][0]["name"]]]
    header += [PLAIN[m].name if m in PLAIN else m for m in metrics]
    goal = top.get("goal", "max")
    rows = [
        (
            labels[arm],
            [cell(top, m, arm, goal if m == top["metric"] else None) for m in metrics],
        )
        for arm in compared(top)
    ]
    return header, rows


def _who(name: str | None, ladder: bool) -> str:
    if name is None:
        return ""
    if ladder:
        return f"With the strongest players tested ({name}), "
    return f"With {name}, "


def headline(summary: dict[str, Any]) -> str:
    """The answer in one sentence of at most :data:`MAX_WORDS` words: which variants
    measurably change the question's measure for the strongest players, by how much and
    which way; or that none does."""
    top, name = top_summary(summary)
    metric = top["metric"]
    labels = arm_labels(top)
    base = labels[top["arms"][0]["name"]]
    plain = PLAIN.get(metric)
    measure = plain.name if plain else metric
    who = _who(name, "ladder" in summary)
    moved = []
    for arm in compared(top):
        d = change_of(top, metric, arm)
        if d is not None and d.get("diff") is not None and sign(d):
            moved.append((abs(num(d["diff"])), labels[arm], d))
    moved.sort(key=lambda x: -x[0])
    best = (top["results"][metric].get("top") or {}) if metric in top["results"] else {}
    if best.get("kind") == "best" and best.get("arm") in labels:
        text = who + _best_sentence(metric, measure, labels[best["arm"]], base, moved)
        if len(text.split()) <= MAX_WORDS:
            return text[0].upper() + text[1:]
    if not moved:
        sentence = f"no variant measurably changes {measure} compared with {base}."
    else:
        said = [f"{label}: {change_words(metric, d)}" for _, label, d in moved[:2]]
        more = len(moved) - 2
        tail = f"; {more} more changed" if more > 0 else ""
        rest = len(compared(top)) - len(moved)
        same = f"; {rest} others no measurable change" if rest > 0 and more <= 0 else ""
        sentence = f"compared with {base}, " + "; ".join(said) + tail + same + "."
    text = who + sentence
    text = text[0].upper() + text[1:]
    if len(text.split()) > MAX_WORDS and moved:
        most = f"{moved[0][1]}: {change_words(metric, moved[0][2])}"
        text = f"{who}{len(moved)} of {len(compared(top))} variants change {measure} measurably; "
        text += f"the most, {most}."
        text = text[0].upper() + text[1:]
    return text


#: how far the answer holds, by the ladder's convergence verdict (:mod:`.ladder`)
HOW_FAR = {
    "converged": "The two strongest sets of players tested agree on this answer.",
    "still moving": "The answer still changes as the players get stronger: it holds for "
    "these players, not necessarily for stronger ones.",
    "not known": "Not yet known whether stronger players would change this answer.",
}


def how_far(summary: dict[str, Any]) -> str | None:
    """Whether the answer holds beyond the strongest players tested, in a sentence; None
    without a ladder."""
    ladder = summary.get("ladder")
    if not ladder:
        return None
    return HOW_FAR[ladder["metrics"][summary["metric"]]["verdict"]]


def _best_sentence(
    metric: str, measure: str, best: str, base: str, moved: list[tuple[float, str, dict[str, Any]]]
) -> str:
    """The headline's sentence where one variant is best, apart from every other."""
    if best != base:
        d = next(d for _, label, d in moved if label == best)
        return f"{best} is best for {measure}: {change_words(metric, d)} compared with {base}."
    diffs = [d for _, _, d in moved]
    lo = min(diffs, key=lambda d: abs(num(d["diff"])))
    hi = max(diffs, key=lambda d: abs(num(d["diff"])))
    near = change_words(metric, lo).split(" ")[0]
    far = change_words(metric, hi)
    return f"{base} is best for {measure}: every other variant {near} to {far}."
