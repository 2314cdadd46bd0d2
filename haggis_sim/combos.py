"""Combinations: readings of a card set, beating, and legal plays (RULES.md section 2).

>>> import haggis_sim as hs
>>> rules = hs.Rules.preset("revised", players=3)
>>> [str(c) for c in hs.readings(hs.parse_cards("5a J Q"), rules)]
['set of 3 5s: 5a J Q', 'run to 5: 5a J Q', 'run to 6: 5a J Q', 'run to 7: 5a J Q']
>>> hs.beats(hs.readings(hs.parse_cards("J Q"), rules)[0], None)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .cards import Cards, parse_cards
from .engine import layout as L
from .engine import moves as M
from .errors import InputError
from .rules import Rules

Kind = Literal["set", "sequence", "bomb"]
KINDS: tuple[Kind, ...] = ("set", "sequence", "bomb")
_KIND_OF_TYPE: dict[int, Kind] = {L.T_SET: "set", L.T_SEQ: "sequence", L.T_BOMB: "bomb"}
_TYPE_OF_KIND = {v: k for k, v in _KIND_OF_TYPE.items()}
BOMB_NAMES = ("", "rainbow 3-5-7-9", "J-Q", "J-K", "Q-K", "J-Q-K", "flush 3-5-7-9")
RANK_NAMES = {11: "J", 12: "Q", 13: "K", 10: "10"}


def rank_name(rank: int) -> str:
    """Printed name of a rank: 2..10, J, Q, K."""
    return RANK_NAMES.get(rank, str(rank))


@dataclass(frozen=True)
class Combo:
    """One reading of a card set: a set, a sequence or a bomb.

    ``rank`` is the set's rank, the sequence's top rank, or the bomb's order 1..6.
    Sets have ``width`` = number of cards and ``length`` 1; bombs have both 0.
    ``code`` is the engine's packed move (cards relative to the player: faces J, Q, K).
    """

    code: int

    @property
    def kind(self) -> Kind:
        return _KIND_OF_TYPE[(self.code >> L.TYPE_SHIFT) & 7]

    @property
    def rank(self) -> int:
        return (self.code >> L.RANK_SHIFT) & 15

    @property
    def width(self) -> int:
        return (self.code >> L.WIDTH_SHIFT) & 15

    @property
    def length(self) -> int:
        return (self.code >> L.LENGTH_SHIFT) & 15

    @property
    def cards(self) -> Cards:
        return Cards.from_mask(self.code & L.CARDS_MASK)

    @property
    def size(self) -> int:
        return int((self.code & L.CARDS_MASK).bit_count())

    @property
    def is_bomb(self) -> bool:
        return self.kind == "bomb"

    def describe(self) -> str:
        """Human name of the reading, e.g. ``stair of 2 pairs to J``."""
        if self.kind == "bomb":
            return f"bomb {BOMB_NAMES[self.rank]}"
        if self.kind == "set":
            if self.size == 1:
                return f"single {rank_name(self.rank)}"
            return f"set of {self.size} {rank_name(self.rank)}s"
        if self.width == 1:
            return f"run to {rank_name(self.rank)}"
        group = {2: "pairs", 3: "triples"}.get(self.width, f"{self.width}-sets")
        return f"stair of {self.length} {group} to {rank_name(self.rank)}"

    def __str__(self) -> str:
        return f"{self.describe()}: {self.cards}"

    def __repr__(self) -> str:
        return f"Combo({self})"


def _hand_mask(cards: Cards | str, rules: Rules) -> int:
    cards = parse_cards(cards)
    if cards.highest_suit >= rules.n_suits:
        raise InputError(f"suit e is not in play with {rules.players} players: {cards}")
    return cards.relative_mask()


def _sort_key(c: Combo) -> tuple[int, int, int, int, int]:
    return (KINDS.index(c.kind), c.width, c.length, c.rank, c.code)


def readings(cards: Cards | str, rules: Rules) -> list[Combo]:
    """Every valid reading of exactly these cards (``[]`` when they form no combination)."""
    mask = _hand_mask(cards, rules)
    if mask == 0:
        return []
    out = np.empty(L.MAX_MOVES, dtype=np.int64)
    n = M.readings(np.int64(mask), rules.n_suits, out)
    return sorted((Combo(int(x)) for x in out[:n]), key=_sort_key)


def beats(new: Combo, top: Combo | None) -> bool:
    """Whether ``new`` may be played on ``top`` (``None``: leading)."""
    return bool(M.beats(np.int64(new.code), np.int64(0 if top is None else top.code)))


def legal_plays(hand: Cards | str, top: Combo | None, rules: Rules) -> list[Combo]:
    """Every play allowed now from ``hand`` on ``top``: one per (card set, kind, width,
    length), its highest reading. Passing is not listed."""
    mask = _hand_mask(hand, rules)
    out = np.empty(L.MAX_MOVES, dtype=np.int64)
    n = M.generate(
        np.int64(mask & L.SUIT_ALL),
        np.int64(mask >> L.FACE_SHIFT),
        rules.n_suits,
        np.int64(0 if top is None else top.code),
        out,
        True,
    )
    return sorted((Combo(int(x)) for x in out[:n]), key=_sort_key)


def kind_type(kind: str) -> int:
    """Engine type of a kind name; ValueError on an unknown name."""
    if kind not in _TYPE_OF_KIND:
        raise InputError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    return _TYPE_OF_KIND[kind]
