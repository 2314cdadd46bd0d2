"""Cards and their text notation (RULES.md section 1).

A suit card is written rank then suit: ranks ``2 3 4 5 6 7 8 9 T`` (``10`` also accepted),
suits ``a b c d e``; face cards are ``J``, ``Q``, ``K``.

>>> cards = parse_cards("Ta Tb J Q")
>>> str(cards), len(cards)
('Ta Tb J Q', 4)
>>> list(parse_cards("K 10c 2a"))
['2a', 'Tc', 'K']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .engine.layout import FACE_SHIFT, SUIT_ALL
from .errors import InputError

RANK_CHARS = "23456789T"
SUIT_CHARS = "abcde"
FACE_CHARS = "JQK"


def card_index(rank: int, suit: int) -> int:
    """Bit index of the suit card of ``rank`` (2..10) and ``suit`` (0..4)."""
    return (rank - 2) * 5 + suit


@dataclass(frozen=True)
class Cards:
    """A collection of cards: suit cards as a bitmask, face cards as counts.

    In a hand a player holds at most one J, one Q and one K (their own); captured piles
    may hold several.
    """

    suits: int = 0
    jacks: int = 0
    queens: int = 0
    kings: int = 0

    @classmethod
    def from_mask(cls, mask: int) -> Cards:
        """Cards of an engine mask (suit bits 0..44, face bits of any seat above)."""
        faces = [0, 0, 0]
        for seat in range(3):
            for f in range(3):
                if mask >> (FACE_SHIFT + 3 * seat + f) & 1:
                    faces[f] += 1
        return cls(int(mask) & SUIT_ALL, faces[0], faces[1], faces[2])

    def relative_mask(self) -> int:
        """Engine mask of a hand-like collection: faces at bits 45..47 (J, Q, K)."""
        if max(self.jacks, self.queens, self.kings) > 1:
            raise ValueError(f"{self} holds more than one face card of a rank")
        return (
            self.suits
            | (self.jacks << FACE_SHIFT)
            | (self.queens << (FACE_SHIFT + 1))
            | (self.kings << (FACE_SHIFT + 2))
        )

    def seat_mask(self, seat: int) -> int:
        """Engine mask of a hand held by ``seat`` (its own face cards)."""
        rel = self.relative_mask()
        return (rel & SUIT_ALL) | ((rel >> FACE_SHIFT) << (FACE_SHIFT + 3 * seat))

    @property
    def n_faces(self) -> int:
        return self.jacks + self.queens + self.kings

    @property
    def highest_suit(self) -> int:
        """Highest suit index present (-1 when there is no suit card)."""
        best = -1
        for i in range(45):
            if self.suits >> i & 1:
                best = max(best, i % 5)
        return best

    def __len__(self) -> int:
        return self.suits.bit_count() + self.n_faces

    def __iter__(self) -> Iterator[str]:
        for i in range(45):
            if self.suits >> i & 1:
                yield RANK_CHARS[i // 5] + SUIT_CHARS[i % 5]
        yield from "J" * self.jacks
        yield from "Q" * self.queens
        yield from "K" * self.kings

    def __str__(self) -> str:
        return " ".join(self)

    def __repr__(self) -> str:
        return f"Cards({str(self)!r})"

    def __or__(self, other: Cards) -> Cards:
        if self.suits & other.suits:
            raise ValueError("the two collections share suit cards")
        return Cards(
            self.suits | other.suits,
            self.jacks + other.jacks,
            self.queens + other.queens,
            self.kings + other.kings,
        )

    def __contains__(self, token: object) -> bool:
        if not isinstance(token, str):
            return False
        one = parse_cards(token)
        return (
            one.suits & self.suits == one.suits
            and one.jacks <= self.jacks
            and one.queens <= self.queens
            and one.kings <= self.kings
        )

    def issubset(self, other: Cards) -> bool:
        """Whether every card here is also in ``other``."""
        return (
            self.suits & ~other.suits == 0
            and self.jacks <= other.jacks
            and self.queens <= other.queens
            and self.kings <= other.kings
        )


def parse_cards(text: str | Cards) -> Cards:
    """Parse RULES.md notation (e.g. ``"9a Ta J"``); ValueError on bad text or duplicates.

    >>> parse_cards("Ta Ta")
    Traceback (most recent call last):
    ...
    haggis_sim.errors.InputError: duplicate card 'Ta' in 'Ta Ta'
    """
    if isinstance(text, Cards):
        return text
    if not isinstance(text, str):
        raise InputError(f"cards must be given as text, not {type(text).__name__}")
    suits = 0
    faces = [0, 0, 0]
    for token in text.replace(",", " ").split():
        if token in FACE_CHARS:
            f = FACE_CHARS.index(token)
            if faces[f]:
                raise InputError(f"duplicate card {token!r} in {text!r}")
            faces[f] = 1
            continue
        rank_txt, suit_txt = token[:-1], token[-1:]
        if rank_txt == "10":
            rank_txt = "T"
        if len(rank_txt) != 1 or rank_txt not in RANK_CHARS or suit_txt not in SUIT_CHARS:
            if rank_txt in FACE_CHARS:
                raise InputError(f"bad card {token!r} in {text!r}: face cards have no suit")
            raise InputError(
                f"bad card {token!r} in {text!r}: expected rank 2-9, T or 10 then suit a-e, "
                "or J, Q, K"
            )
        bit = 1 << card_index(RANK_CHARS.index(rank_txt) + 2, SUIT_CHARS.index(suit_txt))
        if suits & bit:
            raise InputError(f"duplicate card {token!r} in {text!r}")
        suits |= bit
    return Cards(suits, faces[0], faces[1], faces[2])
