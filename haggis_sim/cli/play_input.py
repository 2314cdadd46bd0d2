"""What a person types at the ``haggis-sim play`` prompt, read against the legal actions.

A line is a command (``pass``, ``bet 15``, ``give 2``, ``moves [WORDS]``, ``more``, a
move number, ``hint``, ``help``, ``quit``) or cards in the project's notation (``5a 5b``,
``10c J``). Cards are matched to the legal plays made of exactly those cards: one match is
played, several (a wild card read in a set or in a run, ...) are listed for the person to
pick, none gives one line saying why (not in the hand, not a combination, does not beat).

Move numbers belong to the position: :func:`ordered` numbers the legal actions the same
way every time they are listed, and a number is played only if it was shown on a list of
this position (``shown``), so a number remembered from an earlier position is refused
rather than read as whatever that number means now. ``moves WORDS`` keeps the actions
matching every word (:func:`move_filter`). Nothing here prints or reads:
:func:`parse_line` returns a :class:`Command`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
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


Verb = Literal["act", "choose", "moves", "more", "hint", "help", "quit", "empty", "error"]


@dataclass(frozen=True)
class Command:
    """A typed line, understood.

    ``act``: do ``actions[0]``; ``choose``: the cards read several legal ways, list
    ``actions`` to pick from by number; ``moves``: list the legal actions (``text``: the
    filter words, already checked by :func:`move_filter`); ``more``: the next page of the
    last list; ``error``: ``text`` says what is wrong; ``hint``, ``help``, ``quit``,
    ``empty``: as named.
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
    line: str,
    obs: hs.Observation,
    legal: Sequence[hs.Action],
    rules: hs.Rules,
    shown: Collection[int] = frozenset(),
) -> Command:
    """Read one line typed by the seat to act, given its observation and legal actions.

    ``shown``: the move numbers listed at this position so far (by ``moves``, ``more``,
    ``hint`` or a list of readings); a number not among them is refused.
    """
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
        wanted = " ".join(text.split()[1:])  # as typed: an error quotes it so
        problem = move_filter(wanted)
        if isinstance(problem, str):
            return Command("error", text=problem)
        return Command("moves", text=wanted)
    if head == "more" and not rest:
        return Command("more")
    if text.isdigit():
        return _numbered(int(text), legal, shown)
    if head in ("pass", "p") and not rest:
        return _pass(obs, legal)
    if head == "bet":
        return _bet(rest, obs, legal)
    if head == "give":
        return _give(rest, obs, legal)
    return _cards(text, obs, legal, rules)


def _numbered(number: int, legal: Sequence[hs.Action], shown: Collection[int]) -> Command:
    listing = ordered(legal)
    if not 1 <= number <= len(listing):
        return Command("error", text=f"no move {number}: the moves are numbered 1..{len(listing)}")
    if not shown:
        return Command(
            "error",
            text=f"no moves listed at this position yet, so {number} is not played: "
            "type moves first",
        )
    if number not in shown:
        return Command(
            "error",
            text=f"move {number} is not on a list shown at this position: type moves first",
        )
    return Command("act", (listing[number - 1],))


#: ``moves`` words naming a kind of action (a plural ``pairs``, ``bombs`` reads the same)
KIND_WORDS: dict[str, Callable[[hs.Action], bool]] = {
    "single": lambda a: a.combo is not None and a.combo.kind == "set" and a.combo.size == 1,
    "pair": lambda a: a.combo is not None and a.combo.kind == "set" and a.combo.size == 2,
    "triple": lambda a: a.combo is not None and a.combo.kind == "set" and a.combo.size == 3,
    "set": lambda a: a.combo is not None and a.combo.kind == "set" and a.combo.size >= 2,
    "run": lambda a: a.combo is not None and a.combo.kind == "sequence" and a.combo.width == 1,
    "stair": lambda a: a.combo is not None and a.combo.kind == "sequence" and a.combo.width > 1,
    "bomb": lambda a: a.combo is not None and a.combo.kind == "bomb",
    "pass": lambda a: a.type == "pass",
    "bet": lambda a: a.type == "bet",
    "give": lambda a: a.type == "give",
}
RANK_WORDS = {**{str(r): str(r) for r in range(2, 10)}, "10": "T", "t": "T"}
RANK_WORDS |= {"j": "J", "q": "Q", "k": "K"}
FILTER_HELP = (
    "a rank (7, 10, J), a card (7a) or one of " + ", ".join(KIND_WORDS) + "; words combine "
    "(moves pair 7: the pairs holding a 7)"
)


def _word_test(word: str) -> Callable[[hs.Action], bool] | None:
    """What one ``moves`` word keeps: a kind, a rank, a card; None if it is none of them."""
    w = word.lower()
    for name in (w, w[:-1] if w.endswith("s") else None):
        if name in KIND_WORDS:
            return KIND_WORDS[name]
        if name in RANK_WORDS:
            rank = RANK_WORDS[name]
            return lambda a: a.combo is not None and any(c[0] == rank for c in a.combo.cards)
    try:
        cards = hs.parse_cards(_tokens(word))
    except hs.InputError:
        return None
    if len(cards) != 1:
        return None
    card = next(iter(cards))
    return lambda a: a.combo is not None and card in a.combo.cards


def move_filter(words: str) -> Callable[[hs.Action], bool] | str:
    """``moves WORDS`` as a test an action passes when it matches every word; or, for a word
    that is not a rank, a card or a kind of action, the one line saying so."""
    tests = []
    for word in words.split():
        test = _word_test(word)
        if test is None:
            return f"moves cannot filter by {clip(word)!r}: give {FILTER_HELP}"
        tests.append(test)
    return lambda a: all(t(a) for t in tests)


def numbered(legal: Sequence[hs.Action], words: str = "") -> list[tuple[int, hs.Action]]:
    """The legal actions ``moves WORDS`` lists: (number, action), numbered as
    :func:`ordered` numbers the whole list (a filter keeps each action's number)."""
    keep = move_filter(words)
    if isinstance(keep, str):
        raise hs.InputError(keep)
    return [(i, a) for i, a in enumerate(ordered(legal), 1) if keep(a)]


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
