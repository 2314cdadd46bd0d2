"""Move packing, beating and legal-move generation (compiled).

The generator follows DouZero's shape: when leading it enumerates every combination in
the hand; when following it generates only combinations of the top play's kind, width
and length that rank higher, plus bombs. It lists exactly one move per (card set, kind,
width, length): the highest-ranked reading of that card set (RULES.md 2.3).
"""

from __future__ import annotations

import numpy as np

from .._cache import njit
from .bits import lowest_bit, popcount
from .layout import (
    CARDS_MASK,
    FACE_SHIFT,
    FACES,
    LANE,
    LENGTH_SHIFT,
    MAX_MOVES,
    RANGE_MASK,
    RANK_SHIFT,
    SHAPE_SHIFT,
    T_BOMB,
    T_SEQ,
    T_SET,
    TYPE_SHIFT,
    WIDTH_SHIFT,
)

# Face cards one player can hold (its J, Q and K). A hand's or a move's faces are a
# 3-bit relative mask, so this is an invariant of the encoding; the sequence generator
# relies on it (it swaps at most this many suit cards for faces) and checks it.
MAX_FACES = len(FACES)


@njit(cache=True, inline="always")
def pack(kind, width, length, rank, cards):
    return (
        (np.int64(kind) << TYPE_SHIFT)
        | (np.int64(width) << WIDTH_SHIFT)
        | (np.int64(length) << LENGTH_SHIFT)
        | (np.int64(rank) << RANK_SHIFT)
        | cards
    )


@njit(cache=True, inline="always")
def move_type(m):
    return (m >> TYPE_SHIFT) & 7


@njit(cache=True, inline="always")
def move_width(m):
    return (m >> WIDTH_SHIFT) & 15


@njit(cache=True, inline="always")
def move_length(m):
    return (m >> LENGTH_SHIFT) & 15


@njit(cache=True, inline="always")
def move_rank(m):
    return (m >> RANK_SHIFT) & 15


@njit(cache=True, inline="always")
def move_cards(m):
    return m & CARDS_MASK


@njit(cache=True)
def beats(new, top):
    """Whether play ``new`` may be played on ``top`` (0: leading)."""
    if top == 0:
        return True
    if move_type(new) == T_BOMB:
        return move_type(top) != T_BOMB or move_rank(new) > move_rank(top)
    return (new >> SHAPE_SHIFT) == (top >> SHAPE_SHIFT) and move_rank(new) > move_rank(top)


@njit(cache=True, inline="always")
def _push(out, n, m):
    if n >= out.shape[0]:
        raise ValueError("move buffer too small")
    out[n] = m
    return n + 1


@njit(cache=True)
def _gen_sets(suits, faces, size_req, min_rank, out, n):
    for r in range(max(min_rank, 2), 11):
        rm = (suits >> (5 * (r - 2))) & 31
        t = rm
        while t != 0:
            nt = popcount(t)
            f = faces
            while True:
                sz = nt + popcount(f)
                if size_req == 0 or sz == size_req:
                    cards = (t << (5 * (r - 2))) | (f << FACE_SHIFT)
                    n = _push(out, n, pack(T_SET, sz, 1, r, cards))
                if f == 0:
                    break
                f = (f - 1) & faces
            t = (t - 1) & rm
    if size_req == 0 or size_req == 1:
        for i in range(3):
            if faces & (1 << i) and 11 + i >= min_rank:
                n = _push(out, n, pack(T_SET, 1, 1, 11 + i, np.int64(1) << (FACE_SHIFT + i)))
    return n


@njit(cache=True)
def _gen_bombs(suits, faces, min_rank, out, n):
    m3 = (suits >> 5) & 31
    m5 = (suits >> 15) & 31
    m7 = (suits >> 25) & 31
    m9 = (suits >> 35) & 31
    if m3 and m5 and m7 and m9:
        for s3 in range(5):
            if not (m3 >> s3) & 1:
                continue
            for s5 in range(5):
                if not (m5 >> s5) & 1:
                    continue
                for s7 in range(5):
                    if not (m7 >> s7) & 1:
                        continue
                    for s9 in range(5):
                        if not (m9 >> s9) & 1:
                            continue
                        used = (1 << s3) | (1 << s5) | (1 << s7) | (1 << s9)
                        pc = popcount(used)
                        if pc == 1:
                            rank = 6
                        elif pc == 4:
                            rank = 1
                        else:
                            continue
                        if rank < min_rank:
                            continue
                        cards = (
                            (np.int64(1) << (5 + s3))
                            | (np.int64(1) << (15 + s5))
                            | (np.int64(1) << (25 + s7))
                            | (np.int64(1) << (35 + s9))
                        )
                        n = _push(out, n, pack(T_BOMB, 0, 0, rank, cards))
    # J-Q (2), J-K (3), Q-K (4), J-Q-K (5)
    for fb, rank in ((3, 2), (5, 3), (6, 4), (7, 5)):
        if faces & fb == fb and rank >= min_rank:
            n = _push(out, n, pack(T_BOMB, 0, 0, rank, np.int64(fb) << FACE_SHIFT))
    return n


@njit(cache=True, inline="always")
def _suits_of(c):
    acc = np.int64(0)
    for r in range(9):
        acc |= (c >> (5 * r)) & 31
    return acc


@njit(cache=True, inline="always")
def _faces_fit(f, h11, h12, h13):
    """Whether face set ``f`` can fill holes of ranks 11, 12, 13 (counts h11, h12, h13)."""
    nk = (f >> 2) & 1
    nqk = popcount(f & 6)
    return nk >= h13 and nqk >= h12 + h13 and popcount(f) >= h11 + h12 + h13


@njit(cache=True, inline="always")
def _high_holes(w, r0, r1):
    h11 = w if (r0 <= 11 and r1 >= 11) else 0
    h12 = w if (r0 <= 12 and r1 >= 12) else 0
    h13 = w if r1 >= 13 else 0
    return h11, h12, h13


@njit(cache=True)
def _emit_seq(suits_c, faces, k, w, L, r0, r1, s, nsuits, canonical, out, n):
    """Emit every face choice of size k that completes cards ``suits_c`` to a sequence.

    The sequence is the reading of width ``w`` over ranks ``r0..r1`` (length ``L``) in
    suit set ``s``: the suit cards ``suits_c`` fill some of its slots, and the ``k``
    faces fill the rest (a face covers a slot of its own rank or lower, whatever the
    suit). A face subset fits when every slot of rank 11, 12, 13 gets a face that
    reaches it (:func:`_faces_fit`); slots of rank 10 or lower take any face.

    With ``canonical`` (the legal-move list, RULES.md 2.3) the same cards must not be
    listed twice as the same kind, width and length, and the listed reading must be the
    highest, so two kinds of duplicate are skipped:

    * suit set: when faces fill whole suit lanes, any free suits would do for them and
      each choice is the same card set with the same rank; only the choice of the
      lowest free suits is kept;
    * rank: when the bottom rank ``r0`` holds only faces and the window can move up a
      rank (``r1 < 13``) with the same faces still fitting, a higher reading of the
      same cards exists, so this one is dropped. Checking one step up suffices: any
      higher window also needs ``r0 + 1 <= lowest suit card`` and ``r1 + 1 <= 13``
      and asks no less of the high faces than the one-step window does (the
      brute-force oracle in tests/engine/test_movegen_oracle.py checks the resulting lists).

    Without ``canonical`` every reading is emitted (``readings`` lists them all).
    """
    if canonical:
        # the suits of S that hold no suit card must be the lowest suits outside the cards'
        sc = _suits_of(suits_c)
        extra = s & ~sc
        cand = ~sc & ((1 << nsuits) - 1)
        for _ in range(popcount(extra)):
            cand &= cand - 1
        # cand now lacks the lowest popcount(extra) free suits; extra must avoid cand
        if extra & cand:
            return n
    h11, h12, h13 = _high_holes(w, r0, r1)
    cmin = lowest_bit(suits_c) // 5 + 2  # rank of the lowest suit card
    # the same cards also read one rank higher (rank r0 is all faces; r1 + 1 exists)
    can_shift = canonical and r0 + 1 <= cmin and r1 + 1 <= 13
    s11, s12, s13 = _high_holes(w, r0 + 1, r1 + 1)
    f = faces
    while True:
        if popcount(f) == k and _faces_fit(f, h11, h12, h13):
            if not (can_shift and _faces_fit(f, s11, s12, s13)):
                n = _push(out, n, pack(T_SEQ, w, L, r1, suits_c | (f << FACE_SHIFT)))
        if f == 0:
            break
        f = (f - 1) & faces
    return n


@njit(cache=True)
def _gen_seqs(suits, faces, nsuits, w_req, l_req, min_top, out, n, canonical):
    """Append every sequence of the hand (``suits``, relative ``faces``) to ``out``.

    ``w_req``/``l_req`` (0: any) fix the width and length when following, ``min_top``
    the lowest allowed top rank. For each width, suit set and rank window the hand's
    suit cards in the window's lanes are taken, and the holes (slots without a suit
    card) must be filled with faces. A play need not use every suit card it could: a
    face may stand in a slot whose suit card stays in the hand, so readings that drop
    1, 2 or 3 of those suit cards for spare faces are emitted too. Three is the most
    there can be, one per face card (``MAX_FACES``); the nested loops below are
    written for exactly that and the check makes the assumption explicit.
    """
    nf = popcount(faces)
    if nf > MAX_FACES:
        raise RuntimeError("a hand holds at most three face cards (J, Q, K)")
    total = popcount(suits) + nf
    bits = np.empty(48, dtype=np.int64)
    w_lo = 1 if w_req == 0 else w_req
    w_hi = nsuits if w_req == 0 else w_req
    for w in range(w_lo, w_hi + 1):
        l_min = 3 if w == 1 else 2
        if l_req != 0:
            l_min = l_req
        for s in range(1, 1 << nsuits):
            if popcount(s) != w:
                continue
            lane = LANE[s]
            for r0 in range(2, 11):
                for L in range(l_min, 13):
                    if l_req != 0 and L != l_req:
                        break
                    r1 = r0 + L - 1
                    if r1 > 13 or w * L > total:
                        break
                    if r1 < min_top:
                        continue
                    # suit cards of the hand in the window's slots (suit cards stop at 10)
                    a_mask = suits & RANGE_MASK[r0, min(r1, 10)] & lane
                    a = popcount(a_mask)
                    m = w * L - a  # holes: slots the faces must fill
                    if m > nf:
                        break  # a longer window has at least as many holes
                    if a == 0:
                        continue
                    spare = nf - m
                    n = _emit_seq(a_mask, faces, m, w, L, r0, r1, s, nsuits, canonical, out, n)
                    if spare == 0:
                        continue
                    # drop 1..spare suit cards of the slots and fill them with faces instead
                    # (spare <= nf <= MAX_FACES: one loop level per face card)
                    nb = 0
                    x = a_mask
                    while x:
                        bits[nb] = x & -x
                        x &= x - 1
                        nb += 1
                    for i in range(nb):
                        c1 = a_mask ^ bits[i]
                        if c1 != 0:
                            n = _emit_seq(
                                c1, faces, m + 1, w, L, r0, r1, s, nsuits, canonical, out, n
                            )
                        if spare < 2:
                            continue
                        for j in range(i + 1, nb):
                            c2 = c1 ^ bits[j]
                            if c2 != 0:
                                n = _emit_seq(
                                    c2, faces, m + 2, w, L, r0, r1, s, nsuits, canonical, out, n
                                )
                            if spare < 3:
                                continue
                            for q in range(j + 1, nb):
                                c3 = c2 ^ bits[q]
                                if c3 != 0:
                                    n = _emit_seq(
                                        c3, faces, m + 3, w, L, r0, r1, s, nsuits, canonical, out, n
                                    )
    return n


@njit(cache=True)
def generate(suits, faces, nsuits, top, out, canonical):
    """Fill ``out`` with every play from a hand that may be played on ``top``; return count.

    ``suits`` is the hand's suit-card mask, ``faces`` its relative J/Q/K bits, ``top`` the
    packed top play (0 when leading). Pass is not included. With ``canonical`` false every
    reading is listed (used to enumerate the readings of one card set).
    """
    n = 0
    if top == 0:
        n = _gen_sets(suits, faces, 0, 0, out, n)
        n = _gen_seqs(suits, faces, nsuits, 0, 0, 0, out, n, canonical)
        n = _gen_bombs(suits, faces, 0, out, n)
        return n
    t = move_type(top)
    if t == T_SET:
        n = _gen_sets(suits, faces, move_width(top), move_rank(top) + 1, out, n)
        n = _gen_bombs(suits, faces, 0, out, n)
    elif t == T_SEQ:
        n = _gen_seqs(
            suits,
            faces,
            nsuits,
            move_width(top),
            move_length(top),
            move_rank(top) + 1,
            out,
            n,
            canonical,
        )
        n = _gen_bombs(suits, faces, 0, out, n)
    else:
        n = _gen_bombs(suits, faces, move_rank(top) + 1, out, n)
    return n


@njit(cache=True)
def readings(cards, nsuits, out):
    """Fill ``out`` with every reading of exactly the card set ``cards`` (relative mask)."""
    buf = np.empty(out.shape[0], dtype=np.int64)
    suits = cards & ((np.int64(1) << FACE_SHIFT) - 1)
    faces = (cards >> FACE_SHIFT) & 7
    k = generate(suits, faces, nsuits, 0, buf, False)
    n = 0
    for i in range(k):
        if move_cards(buf[i]) == cards:
            dup = False
            for j in range(n):
                if out[j] == buf[i]:
                    dup = True
                    break
            if not dup:
                out[n] = buf[i]
                n += 1
    return n


@njit(cache=True)
def is_reading(move, nsuits):
    """Whether the packed play ``move`` is a valid reading of its own cards."""
    out = np.empty(MAX_MOVES, dtype=np.int64)
    k = readings(move_cards(move), nsuits, out)
    for i in range(k):
        if out[i] == move:
            return True
    return False
