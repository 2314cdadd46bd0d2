"""Consistent re-deals of hidden cards, for the no-hidden-information tests.

A seat's information set at a position is everything it has seen: its own hand and
every public action since the deal. Another deal in the same information set gives the
other players and the Haggis different unseen cards, keeps every card that was played,
and has another deal seed. :func:`redeal` builds such a position *through the engine*:
it deals the round again from the changed hands (``start_round``) and replays the
round's actions, so every field the engine derives from the cards (now or in the future)
is derived from the new cards. Copying the true state and swapping the hand fields
would instead copy any derived field unchanged and hide a leak through it.
"""

from __future__ import annotations

import numpy as np

from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S


def _field_names() -> list[str]:
    """A name for every offset of the state array (``S_HAND+1``, ``R_BASE+R_BONUS``)."""
    names = [""] * L.STATE_SIZE
    starts = sorted(
        (getattr(L, k), k) for k in dir(L) if k.startswith("S_") and isinstance(getattr(L, k), int)
    )
    for (off, name), nxt in zip(starts, [*starts[1:], (L.R_BASE, "")], strict=True):
        for i in range(off, nxt[0]):
            names[i] = name if i == off else f"{name}+{i - off}"
    rules = sorted(
        (getattr(L, k), k)
        for k in dir(L)
        if k.startswith("R_") and k != "R_BASE" and isinstance(getattr(L, k), int)
    )
    for (off, name), nxt in zip(rules, [*rules[1:], (L.N_RULES, "")], strict=True):
        for i in range(off, nxt[0]):
            names[L.R_BASE + i] = f"rules.{name}" + (f"+{i - off}" if i > off else "")
    assert all(names), names
    return names


FIELD_NAMES = _field_names()


def differing_fields(a: np.ndarray, b: np.ndarray) -> list[str]:
    """The state fields where two arrays of ``STATE_SIZE`` differ, by name and values."""
    return [f"{FIELD_NAMES[i]}: {int(a[i])} != {int(b[i])}" for i in np.flatnonzero(a != b)]


def round_start(actions: np.ndarray, row: int) -> int:
    """The row of the deal of the round that ``row`` belongs to (its action is -1)."""
    start = row
    while actions[start] != -1:
        start -= 1
    return start


def hidden_cards(st: np.ndarray, seat: int) -> int:
    """The cards ``seat`` has not seen at ``st``: others' suit cards and the Haggis."""
    hidden = int(st[L.S_HAGGIS])
    for o in range(int(st[L.S_NP])):
        if o != seat:
            hidden |= int(st[L.S_HAND + o]) & L.SUIT_ALL
    return hidden


def redeal(
    states: np.ndarray, actions: np.ndarray, row: int, seat: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """States of another deal that ``seat`` cannot tell from the true one, up to ``row``.

    ``states``/``actions`` are a trace of ``random_game_trace`` (row i is the state after
    ``actions[i]``, a deal has action -1). The cards ``seat`` has not seen at ``row`` are
    shuffled among the other hands and the Haggis (sizes kept), the deal seed changes, and
    the round is dealt again and replayed. Returns the replayed states for the rows from
    the deal to ``row``; each action replayed must still be legal.
    """
    start = round_start(actions, row)
    dealt, now = states[start], states[row]
    n = int(dealt[L.S_NP])
    bits = [b for b in range(L.SUIT_BITS) if hidden_cards(now, seat) >> b & 1]
    rng.shuffle(bits)
    hands = np.zeros(3, dtype=np.int64)
    pos = 0
    for o in range(n):
        first, unseen = int(dealt[L.S_HAND + o]), int(now[L.S_HAND + o]) & L.SUIT_ALL
        assert unseen & ~first == 0, "a hand gained a card during the round"
        if o == seat:
            hands[o] = first
            continue
        k = unseen.bit_count()
        hands[o] = (first & ~unseen) | sum(1 << b for b in bits[pos : pos + k])
        pos += k
    assert int(now[L.S_HAGGIS]) in (0, int(dealt[L.S_HAGGIS]))
    haggis = sum(1 << b for b in bits[pos:]) if now[L.S_HAGGIS] else int(dealt[L.S_HAGGIS])
    alt = dealt.copy()
    S.start_round(
        alt, hands, np.int64(haggis), np.int64(dealt[L.S_LEADER]), np.int64(dealt[L.S_DEALER])
    )
    alt[L.S_SEED] = int(rng.integers(1, 2**62))
    out = [alt.copy()]
    for i in range(start + 1, row + 1):
        err = S.check_action(alt, np.int64(actions[i]))
        assert err == 0, f"row {i}: the re-dealt round cannot replay {actions[i]} (error {err})"
        S.apply_action(alt, np.int64(actions[i]))
        out.append(alt.copy())
    return out
