"""What ``haggis-sim play`` shows: the table from one seat's point of view.

Everything here is drawn from that seat's :class:`~haggis_sim.Observation` and the
public record of the trick (who played or passed, in order): the seat's own hand, hand
sizes, bets, the face cards each player still holds (public: they lie face up), captured
piles, scores and the size of the Haggis. Never another player's suit cards or the
Haggis's cards: the observation does not hold them, and nothing else is read.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

import haggis_sim as hs

from .play_input import action_text

SUIT_CARDS = {2: 36, 3: 45}
HAND_SUIT_CARDS = 14


def seat_label(seat: int, me: int, names: Sequence[str]) -> str:
    """``you`` for the person's seat, ``seat 1 (mcts)`` for a bot."""
    return "you" if seat == me else f"seat {seat} ({names[seat]})"


def hand_text(cards: hs.Cards) -> str:
    """A hand sorted by rank, ranks apart: ``2a 2c  5b  Tc Td  J Q``."""
    groups: list[list[str]] = []
    last = ""
    for card in cards:
        rank = card[0] if len(card) == 2 else card
        if rank != last or rank in "JQK":
            groups.append([])
            last = rank
        groups[-1].append(card)
    faces = [g for g in groups if g[0] in "JQK"]
    suits = [g for g in groups if g[0] not in "JQK"]
    parts = ["  ".join(" ".join(g) for g in suits)]
    if faces:
        parts.append(" ".join(g[0] for g in faces))
    return "  ".join(p for p in parts if p) or "(no cards)"


def haggis_size(rules: hs.Rules) -> int:
    """Cards set aside unseen at the deal: 8 with 2 players, 3 with 3."""
    return SUIT_CARDS[rules.players] - HAND_SUIT_CARDS * rules.players


def game_goal(rules: hs.Rules) -> str:
    """How the game ends, in a few words."""
    if rules.game_end == "rounds":
        return f"{rules.rounds} rounds"
    return f"first to {rules.target_score}"


def screen(
    obs: hs.Observation,
    rules: hs.Rules,
    names: Sequence[str],
    round_no: int,
    trick: Sequence[tuple[int, hs.Action]],
) -> RenderableType:
    """The table as the seat ``obs.seat`` sees it when it is to act.

    ``round_no`` counts from 1; ``trick`` is the public record of the current trick:
    (seat, action) for every play and pass since it was led.
    """
    me = obs.seat
    head = Text(
        f"Round {round_no} · trick {obs.trick_no + 1} · {rules.label}, {rules.players} "
        f"players, {game_goal(rules)} · Haggis: {haggis_size(rules)} cards, unseen",
        style="bold",
    )
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for col, justify in (
        ("seat", "left"),
        ("cards", "right"),
        ("faces held", "left"),
        ("bet", "right"),
        ("captured", "right"),
        ("score", "right"),
        ("", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for s in range(obs.players):
        notes = []
        if s in obs.out_order:
            notes.append(f"out #{obs.out_order.index(s) + 1}")
        if obs.to_act == s:
            notes.append("to act")
        table.add_row(
            seat_label(s, me, names),
            str(obs.hand_sizes[s]),
            " ".join(obs.faces_held[s]) or "-",
            str(obs.bets[s]) if obs.bets[s] else "-",
            str(len(obs.captured[s])),
            str(obs.scores[s]),
            ", ".join(notes),
            style="bold" if s == me else None,
        )
    lines: list[RenderableType] = [head, table]
    if trick:
        lines.append(Text("Trick:", style="bold"))
        for seat, action in trick:
            lines.append(Text(f"  {seat_label(seat, me, names)}: {action_text(action)}"))
    if obs.phase == "give_trick":
        lines.append(Text("Your bomb won the trick: choose who receives it (give SEAT)."))
    elif obs.phase == "give_haggis":
        lines.append(Text("Choose who receives the Haggis (give SEAT)."))
    elif obs.top is None:
        lines.append(Text("You lead: play any combination.", style="bold"))
    else:
        owner = "" if obs.top_seat is None else f" by {seat_label(obs.top_seat, me, names)}"
        lines.append(Text(f"To beat: {obs.top}{owner}", style="bold"))
    lines.append(Text(f"Your hand ({len(obs.hand)}): {hand_text(obs.hand)}", style="bold cyan"))
    return Group(*lines)


def plain(renderable: RenderableType, width: int = 100) -> str:
    """A renderable as plain text (no colour), as it would print ``width`` columns wide."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, force_terminal=False).print(renderable)
    return out.getvalue()
