"""What a person types at the ``haggis-sim play`` prompt, read against the legal actions.

A line is a command (``pass``, ``bet 15``, ``give 2``, ``moves [TEXT]``, a move number,
``hint``, ``help``, ``quit``) or cards in the project's notation (``5a 5b``, ``10c J``).
Cards are matched to the legal plays made of exactly those cards: one match is played,
several (a wild card read in a set or in a run, ...) are listed for the person to pick,
none gives one line saying why (not in the hand, not a combination, does not beat).
Nothing here prints or reads: :func:`parse_line` returns a :class:`Command`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import haggis_sim as hs
from haggis_sim.combos import KINDS

#: the longest line read as a command: a whole hand typed out is under 80 characters
MAX_LINE = 200
ECHO = 60  # characters of a refused line quoted back in its error


def clip(text: str) -> str:
    """``text`` as an error quotes it: its first :data:`ECHO` characters, then ``…``."""
    return text if len(text) <= ECHO else text[:ECHO] + "…"


Verb = Literal["act", "choose", "moves", "hint", "help", "quit", "empty", "error"]


@dataclass(frozen=True)
class Command:
    """A typed line, understood.

    ``act``: do ``actions[0]``; ``choose``: the cards read several legal ways, ask which
    of ``actions``; ``moves``: list the legal actions (``text``: a filter); ``error``:
    ``text`` says what is wrong; ``hint``, ``help``, ``quit``, ``empty``: as named.
    """

    verb: Verb
    actions: tuple[hs.Action, ...] = ()
    text: str = ""


def ordered(legal: Sequence[hs.Action]) -> list[hs.Action]:
    """The legal actions in the order ``moves`` numbers them: pass, bets, gives, plays.

    Plays go by kind (sets, sequences, bombs), then shape, then rank, so a number means
    the same action however the engine listed them.
    """

    def key(a: hs.Action) -> tuple[int, int, int, int, int, int]:
        rank = {"pass": 0, "bet": 1, "give": 2, "play": 3}[a.type]
        c = a.combo
        if c is None:
            return (rank, 0, 0, 0, a.value, a.code)
        return (rank, KINDS.index(c.kind), c.size, c.length, c.rank, a.code)

    return sorted(legal, key=key)


def action_text(action: hs.Action) -> str:
    """An action without its seat: ``pass``, ``bet 15``, ``give to seat 2``, ``single 5: 5a``."""
    if action.type == "pass":
        return "pass"
    if action.type == "bet":
        return f"bet {action.value}"
    if action.type == "give":
        return f"give to seat {action.value}"
    return str(action.combo)


def parse_line(
    line: str, obs: hs.Observation, legal: Sequence[hs.Action], rules: hs.Rules
) -> Command:
    """Read one line typed by the seat to act, given its observation and legal actions."""
    text = line.strip()
    if len(text) > MAX_LINE:  # no command or hand is this long: not echoed in full
        return Command(
            "error",
            text=f"a line of {len(text):,} characters is not a move: {clip(text)!r} "
            "(type help for the commands)",
        )
    words = text.lower().split()
    if not words:
        return Command("empty")
    head, rest = words[0], words[1:]
    if head in ("quit", "exit", "q") and not rest:
        return Command("quit")
    if head in ("help", "h", "?") and not rest:
        return Command("help")
    if head == "hint" and not rest:
        return Command("hint")
    if head in ("moves", "m"):
        return Command("moves", text=" ".join(text.split()[1:]))
    if text.isdigit():
        return _numbered(int(text), legal)
    if head in ("pass", "p") and not rest:
        return _pass(obs, legal)
    if head == "bet":
        return _bet(rest, obs, legal)
    if head == "give":
        return _give(rest, obs, legal)
    return _cards(text, obs, legal, rules)


def _numbered(number: int, legal: Sequence[hs.Action]) -> Command:
    listing = ordered(legal)
    if not 1 <= number <= len(listing):
        return Command("error", text=f"no move {number}: the moves are numbered 1..{len(listing)}")
    return Command("act", (listing[number - 1],))


def _pass(obs: hs.Observation, legal: Sequence[hs.Action]) -> Command:
    found = [a for a in legal if a.type == "pass"]
    if found:
        return Command("act", (found[0],))
    if obs.phase != "play":
        return Command("error", text="choose who receives the cards first: give SEAT")
    return Command("error", text="you lead this trick: you must play, not pass")


def _bet(rest: list[str], obs: hs.Observation, legal: Sequence[hs.Action]) -> Command:
    bets = sorted(a.value for a in legal if a.type == "bet")
    if not bets:
        if obs.bets[obs.seat]:
            why = f"you have already bet {obs.bets[obs.seat]}"
        elif obs.has_played[obs.seat]:
            why = "a bet must come before your first play"
        else:
            why = "no bet is possible now"
        return Command("error", text=f"cannot bet: {why}")
    offer = ", ".join(map(str, bets))
    if len(rest) != 1 or not rest[0].isdigit():
        return Command("error", text=f"type bet VALUE; the bets offered are {offer}")
    value = int(rest[0])
    for a in legal:
        if a.type == "bet" and a.value == value:
            return Command("act", (a,))
    return Command(
        "error", text=f"no bet of {value} under these rules; the bets offered are {offer}"
    )


def _give(rest: list[str], obs: hs.Observation, legal: Sequence[hs.Action]) -> Command:
    gives = sorted(a.value for a in legal if a.type == "give")
    if not gives:
        return Command(
            "error",
            text="nothing to give now (give SEAT says who receives a bombed trick or the Haggis)",
        )
    seats = " or ".join(f"seat {s}" for s in gives)
    if len(rest) != 1 or not rest[0].isdigit():
        return Command("error", text=f"type give SEAT: {seats}")
    to = int(rest[0])
    for a in legal:
        if a.type == "give" and a.value == to:
            return Command("act", (a,))
    return Command("error", text=f"cannot give to seat {to}: give to {seats}")


def _cards(text: str, obs: hs.Observation, legal: Sequence[hs.Action], rules: hs.Rules) -> Command:
    try:
        cards = hs.parse_cards(_tokens(text))
    except hs.InputError as exc:
        return Command("error", text=f"{exc} (type help for the commands)")
    if obs.phase != "play":
        return Command("error", text="choose who receives the cards first: give SEAT")
    matches = [a for a in ordered(legal) if a.combo is not None and a.combo.cards == cards]
    if len(matches) == 1:
        return Command("act", (matches[0],))
    if matches:
        return Command("choose", tuple(matches))
    return Command("error", text=why_not(cards, obs, rules))


def _tokens(text: str) -> str:
    """Cards typed loosely: ``5A 10c j`` reads as ``5a Tc J`` (ranks upper, suits lower)."""
    out = []
    for tok in text.replace(",", " ").split():
        if tok.upper() in ("J", "Q", "K"):
            out.append(tok.upper())
        elif len(tok) >= 2:
            out.append(tok[:-1].upper() + tok[-1].lower())
        else:
            out.append(tok)
    return " ".join(out)


def why_not(cards: hs.Cards, obs: hs.Observation, rules: hs.Rules) -> str:
    """Why ``cards`` cannot be played by ``obs.seat`` now, in one line."""
    missing = [c for c in cards if c not in obs.hand]
    if missing:
        return f"not in your hand: {' '.join(missing)}"
    options = hs.readings(cards, rules)
    if not options:
        return f"{cards} is not a combination (a set, a run, a stair or a bomb)"
    top = obs.top
    if top is not None and not any(hs.beats(c, top) for c in options):
        whose = "" if obs.top_seat is None else f" (seat {obs.top_seat})"
        return f"{cards} does not beat the {top}{whose}"
    return f"{cards} cannot be played now"
