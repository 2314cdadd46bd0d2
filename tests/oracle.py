"""Independent brute-force oracle for Haggis combinations.

Written from ``RULES.md`` sections 1, 2 and 2.4 only -- deliberately NOT from the
``haggis_sim`` sources -- so that the engine's move generator can be checked against
it.  Everything here is plain Python and favours obviously-correct enumeration over
speed.

Cards are text tokens: a suit card is a rank char from ``23456789T`` followed by a
suit letter from ``abcde`` (2 players use ``abcd`` only, i.e. ``nsuits=4``); face
cards are ``"J"``, ``"Q"``, ``"K"``.

A reading is a tuple ``(kind, width, length, rank)``:

* ``("set", n, 1, r)`` -- n cards of rank r (a lone face card is a single of its
  printed rank 11/12/13);
* ``("sequence", w, L, top)`` -- w suits times L consecutive ranks, ``top`` being the
  highest rank of the range;
* ``("bomb", 0, 0, order)`` -- order 1..6 as in RULES.md 2.1.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable

Reading = tuple[str, int, int, int]
Move = tuple[frozenset[str], str, int, int, int]

RANK_CHARS = "23456789T"
SUIT_CHARS = "abcde"
FACE_RANK = {"J": 11, "Q": 12, "K": 13}

BOMB_RAINBOW = 1
BOMB_JQ = 2
BOMB_JK = 3
BOMB_QK = 4
BOMB_JQK = 5
BOMB_FLUSH = 6


def card_rank(token: str) -> int:
    if token in FACE_RANK:
        return FACE_RANK[token]
    return RANK_CHARS.index(token[0]) + 2


def is_face(token: str) -> bool:
    return token in FACE_RANK


def check_token(token: str, nsuits: int) -> None:
    if token in FACE_RANK:
        return
    if len(token) != 2 or token[0] not in RANK_CHARS or token[1] not in SUIT_CHARS[:nsuits]:
        raise ValueError(f"bad card token {token!r} for {nsuits} suits")


def full_deck(nsuits: int) -> list[str]:
    """All suit cards of the deck (no face cards)."""
    return [r + s for r in RANK_CHARS for s in SUIT_CHARS[:nsuits]]


# --------------------------------------------------------------------------- readings


def _bomb_order(suit_cards: list[str], faces: list[str]) -> int | None:
    if not suit_cards:
        names = frozenset(faces)
        return {
            frozenset("JQ"): BOMB_JQ,
            frozenset("JK"): BOMB_JK,
            frozenset("QK"): BOMB_QK,
            frozenset("JQK"): BOMB_JQK,
        }.get(names)
    if faces or len(suit_cards) != 4:
        return None
    if sorted(card_rank(c) for c in suit_cards) != [3, 5, 7, 9]:
        return None
    suits = {c[1] for c in suit_cards}
    if len(suits) == 4:
        return BOMB_RAINBOW
    if len(suits) == 1:
        return BOMB_FLUSH
    return None


def _set_readings(suit_cards: list[str], faces: list[str], nsuits: int) -> set[Reading]:
    n = len(suit_cards) + len(faces)
    max_size = 8 if nsuits == 5 else 7
    if not suit_cards:
        # Face cards alone: only a lone face card is a set (a single).
        if len(faces) == 1:
            return {("set", 1, 1, card_rank(faces[0]))}
        return set()
    ranks = {card_rank(c) for c in suit_cards}
    if len(ranks) != 1 or n > max_size:
        return set()
    (r,) = ranks
    # Every face card must be able to stand for r (wild: r below its printed rank).
    if all(FACE_RANK[f] >= r for f in faces):
        return {("set", n, 1, r)}
    return set()


def _exact_cover(suit_cards: list[str], faces: list[str], slots: list[tuple[int, str]]) -> bool:
    """Is every slot filled by exactly one card (suit card exact, face card covering)?"""
    if len(slots) != len(suit_cards) + len(faces):
        return False
    remaining = list(slots)
    for c in suit_cards:
        slot = (card_rank(c), c[1])
        if slot not in remaining:
            return False
        remaining.remove(slot)
    # Brute force: try every assignment of face cards to the remaining slots.
    for perm in itertools.permutations(remaining):
        if all(
            FACE_RANK[f] >= slot_rank for f, (slot_rank, _suit) in zip(faces, perm, strict=True)
        ):
            return True
    return False


def _sequence_readings(suit_cards: list[str], faces: list[str], nsuits: int) -> set[Reading]:
    out: set[Reading] = set()
    if not suit_cards:
        return out  # face-only combinations are never sequences
    n = len(suit_cards) + len(faces)
    suits_in_play = SUIT_CHARS[:nsuits]
    for w in range(1, nsuits + 1):
        for length in range(3 if w == 1 else 2, 13):
            if w * length != n:
                continue  # exact cover uses w*L cards
            for r0 in range(2, 14 - length + 1):
                ranks = range(r0, r0 + length)
                for suit_set in itertools.combinations(suits_in_play, w):
                    slots = [(r, s) for r in ranks for s in suit_set]
                    if _exact_cover(suit_cards, faces, slots):
                        out.add(("sequence", w, length, r0 + length - 1))
    return out


@functools.cache
def _readings_cached(cards: frozenset[str], nsuits: int) -> frozenset[Reading]:
    for c in cards:
        check_token(c, nsuits)
    if not cards:
        return frozenset()
    suit_cards = sorted(c for c in cards if not is_face(c))
    faces = sorted((c for c in cards if is_face(c)), key=card_rank)
    out: set[Reading] = set()
    order = _bomb_order(suit_cards, faces)
    if order is not None:
        out.add(("bomb", 0, 0, order))
    out |= _set_readings(suit_cards, faces, nsuits)
    out |= _sequence_readings(suit_cards, faces, nsuits)
    return frozenset(out)


def oracle_readings(cards: Iterable[str], nsuits: int) -> set[Reading]:
    """Every valid reading ``(kind, width, length, rank)`` of exactly this card set."""
    return set(_readings_cached(frozenset(cards), nsuits))


# --------------------------------------------------------------------------- beating


def oracle_beats(new: Reading, top: Reading | None) -> bool:
    """RULES.md 2.4 on ``(kind, width, length, rank)`` tuples; ``top=None`` = leading."""
    if top is None:
        return True
    nkind, nwidth, nlength, nrank = new
    tkind, twidth, tlength, trank = top
    if nkind == "bomb":
        return tkind != "bomb" or nrank > trank
    if tkind == "bomb":
        return False
    return (nkind, nwidth, nlength) == (tkind, twidth, tlength) and nrank > trank


# --------------------------------------------------------------------------- move lists


def _sequence_prefilter(suit_cards: list[str], n: int, nsuits: int) -> bool:
    """Cheap necessary condition for a sequence reading (used only to speed up
    the all-subsets enumeration; ``oracle_readings`` itself never relies on it):
    some width w (1..nsuits) divides n with a legal length L = n/w, such that at
    least max-cards-per-rank and #distinct-suits fit in w, and the rank span of the
    suit cards fits in L."""
    if not suit_cards:
        return False
    ranks = [card_rank(c) for c in suit_cards]
    span = max(ranks) - min(ranks) + 1
    per_rank = max(ranks.count(r) for r in set(ranks))
    nsu = len({c[1] for c in suit_cards})
    for w in range(max(per_rank, nsu), nsuits + 1):
        if n % w:
            continue
        length = n // w
        if length < (3 if w == 1 else 2) or span > length:
            continue
        return True
    return False


def _all_moves_uncached(hand: frozenset[str], nsuits: int) -> frozenset[Move]:
    """Every (card set, kind, width, length, highest rank) over all subsets of hand."""
    tokens = sorted(hand)
    moves: set[Move] = set()
    for k in range(1, len(tokens) + 1):
        for combo in itertools.combinations(tokens, k):
            cards = frozenset(combo)
            suit_cards = [c for c in combo if not is_face(c)]
            # Speed-up only: skip oracle_readings when no kind can possibly apply.
            could_set = len({c[0] for c in suit_cards}) <= 1
            could_bomb = k <= 4
            if not (could_set or could_bomb or _sequence_prefilter(suit_cards, k, nsuits)):
                continue
            best: dict[tuple[str, int, int], int] = {}
            for kind, width, length, rank in oracle_readings(cards, nsuits):
                key = (kind, width, length)
                best[key] = max(best.get(key, rank), rank)
            for (kind, width, length), rank in best.items():
                moves.add((cards, kind, width, length, rank))
    return frozenset(moves)


@functools.lru_cache(maxsize=64)
def _all_moves(hand: frozenset[str], nsuits: int) -> frozenset[Move]:
    return _all_moves_uncached(hand, nsuits)


def oracle_all_moves(hand_tokens: Iterable[str], nsuits: int) -> set[Move]:
    """All moves of a hand when leading (one per card set, kind, width, length)."""
    return set(_all_moves(frozenset(hand_tokens), nsuits))


def oracle_legal_plays(hand_tokens: Iterable[str], top: Reading | None, nsuits: int) -> set[Move]:
    """Moves ``(frozenset(cards), kind, width, length, rank)`` that may be played on
    ``top`` (a ``(kind, width, length, rank)`` tuple, or None when leading).

    One move per (card set, kind, width, length): its highest-ranked reading, kept
    when that reading beats ``top`` (RULES.md 2.3 Decision)."""
    return {m for m in _all_moves(frozenset(hand_tokens), nsuits) if oracle_beats(m[1:], top)}
