"""The environments' fixed action space: one index per action any seat could ever take.

Layout (the same for every preset; a 2-player game uses a prefix of it):

=======================  ==================================================================
index                    action
=======================  ==================================================================
0                        pass
1, 2, 3                  the Baby, Little and Big bet (legal only where the rules offer it)
4, 5                     give the bombed trick or the Haggis to the next seat / the seat
                         after it (seats counted from the actor in turn order; 2 players:
                         only 4)
6 ..                     every play: one per card set and shape, as the engine lists legal
                         plays (the highest reading of the cards, RULES.md 2.3)
=======================  ==================================================================

The plays are the engine's packed moves (cards relative to the player: its own J, Q, K)
that a hand holding every card could lead. Those possible with four suits (no card of
suit e, at most four wide) come first, in ascending packed code, then the others: so a
2-player game (four suits) uses exactly the first ``n_actions(2)`` indices, the 3-player
space extends it, and an index means the same action at every player count. Whether a
move is listed does not depend on the hand (the generator's choice of reading depends on
the cards played only), so every legal play of every hand has an index; a code without
one is an engine fault and raises :class:`ActionTableError`.

A bet's index is its kind (Baby, Little, Big), whatever the rules' ``bet_points``: its
packed code carries the points under the rules in force (:func:`action_code` and
:func:`action_index` take them), and its name (:data:`SPECIAL_NAMES`) is the bet's
published points, ``bet 5``, ``bet 15``, ``bet 30``, as in the rules' ``bet_values``.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from .._cache import njit
from ..combos import Combo
from ..kernel import bet_slot, generate, legal_actions
from ..kernel import layout as L

PASS_INDEX = 0
BET_INDEX = 1  # the Baby, Little and Big bets at 1, 2, 3
GIVE_INDEX = 4  # give to the actor's next seat (4) and the seat after it (5)
N_SPECIAL = 6
#: a person's name of each special action, by index: pass, the bets (by their published
#: points, the names of ``bet_values``, under any ``bet_points``), the gives
SPECIAL_NAMES: tuple[str, ...] = (
    "pass",
    *(f"bet {v}" for v in L.BET_VALUES),
    "give to the next seat",
    "give to the seat after next",
)
#: the suit cards of suit e (the fifth suit, in play with three players only)
SUIT_E = sum(1 << L.suit_bit(r, 4) for r in range(2, 11))


class ActionTableError(RuntimeError):
    """The engine listed a legal action that has no index: a fault, never a user error."""


def _full_deck_plays() -> np.ndarray:
    """Every play a hand holding all 45 suit cards and its J, Q, K could lead."""
    suits = np.int64(L.SUIT_ALL)
    out = np.empty(1 << 20, dtype=np.int64)
    n = generate(suits, np.int64(7), L.N_SUITS_MAX, np.int64(0), out, True)
    return out[:n].copy()


@functools.cache
def table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, sorted codes, index of each sorted code): the play part of the table.

    ``codes[i]`` is the packed move of action ``N_SPECIAL + i``; the other two arrays
    map a code back to its action index by binary search.
    """
    plays = np.unique(_full_deck_plays())
    four_suits = _four_suit(plays)
    four = plays[four_suits]
    five = plays[~four_suits]
    codes = np.concatenate((four, five))
    order = np.argsort(codes, kind="stable")
    return codes, codes[order], (order + N_SPECIAL).astype(np.int64)


def n_actions(players: int) -> int:
    """Size of the action space of a ``players``-player game (2 or 3)."""
    return N_SPECIAL + (_n_four_suit_plays() if players == 2 else len(table()[0]))


@functools.cache
def _n_four_suit_plays() -> int:
    return int(np.count_nonzero(_four_suit(table()[0])))


def _four_suit(plays: np.ndarray) -> npt.NDArray[np.bool_]:
    """Which plays a four-suit game has: no card of suit e, no sequence five suits wide."""
    kind = (plays >> L.TYPE_SHIFT) & 7
    width = (plays >> L.WIDTH_SHIFT) & 15
    four: npt.NDArray[np.bool_] = ((plays & SUIT_E) == 0) & ((kind != L.T_SEQ) | (width <= 4))
    return four


@njit(cache=True)
def legal_indices(st, codes_buf, sorted_codes, sorted_index, out):
    """Fill ``out`` with the action indices of the legal actions at ``st``; return the
    count, or -1 - k when the k-th legal action has no index (a fault)."""
    n = legal_actions(st, codes_buf, True)
    seat = st[L.S_TO_ACT]
    players = st[L.S_NP]
    for i in range(n):
        code = codes_buf[i]
        t = (code >> L.TYPE_SHIFT) & 7
        if t == L.T_PASS:
            out[i] = PASS_INDEX
        elif t == L.T_BET:
            k = bet_slot(st, code & L.VALUE_MASK)
            if k < 0:
                return -1 - i
            out[i] = BET_INDEX + k
        elif t == L.T_GIVE:
            off = ((code & L.VALUE_MASK) - seat + players) % players
            if off < 1 or off > 2:
                return -1 - i
            out[i] = GIVE_INDEX + off - 1
        else:
            j = np.searchsorted(sorted_codes, code)
            if j >= len(sorted_codes) or sorted_codes[j] != code:
                return -1 - i
            out[i] = sorted_index[j]
    return n


@njit(cache=True)
def legal_slots(st, codes_buf, sorted_codes, sorted_index, idx_out, codes_out):
    """The legal actions at ``st`` in slot order (ascending action index, the legal-slot
    representation's order): their indices into ``idx_out`` and packed moves into
    ``codes_out``; return the count, or -1 - k when the k-th legal action (in
    ``codes_buf``, as the engine listed them) has no index (a fault)."""
    n = legal_indices(st, codes_buf, sorted_codes, sorted_index, idx_out)
    if n < 0:
        return n
    order = np.argsort(idx_out[:n])
    listed = idx_out[:n].copy()
    for k in range(n):
        idx_out[k] = listed[order[k]]
        codes_out[k] = codes_buf[order[k]]
    return n


def action_code(
    index: int, seat: int, players: int, bet_points: tuple[int, ...] = L.BET_VALUES
) -> int:
    """The engine's packed action for action ``index`` taken by ``seat``; a bet's code
    carries its points under ``bet_points`` (the rules' ``bet_points``; by default the
    published 5, 15, 30).

    Raises IndexError for an index outside the space of ``players`` players.
    """
    if not 0 <= index < n_actions(players):
        raise IndexError(f"action {index} is not in the {players}-player action space")
    if index == PASS_INDEX:
        return 0
    if index < GIVE_INDEX:
        return (L.T_BET << L.TYPE_SHIFT) | bet_points[index - BET_INDEX]
    if index < N_SPECIAL:
        to = (seat + 1 + index - GIVE_INDEX) % players
        return (L.T_GIVE << L.TYPE_SHIFT) | to
    return int(table()[0][index - N_SPECIAL])


def action_index(
    code: int, seat: int, players: int, bet_points: tuple[int, ...] = L.BET_VALUES
) -> int:
    """The index of the packed action ``code`` taken by ``seat`` (inverse of
    :func:`action_code`, a bet's points read under ``bet_points``).

    Raises ActionTableError for a code that is no action of the table.
    """
    t = (code >> L.TYPE_SHIFT) & 7
    if code == 0:
        return PASS_INDEX
    if t == L.T_BET and code & L.VALUE_MASK in bet_points:
        return BET_INDEX + tuple(bet_points).index(code & L.VALUE_MASK)
    if t == L.T_GIVE:
        off = ((code & L.VALUE_MASK) - seat) % players
        if off in (1, 2):
            return GIVE_INDEX + off - 1
    elif t in (L.T_SET, L.T_SEQ, L.T_BOMB):
        _, sorted_codes, sorted_index = table()
        j = int(np.searchsorted(sorted_codes, code))
        if j < len(sorted_codes) and sorted_codes[j] == code:
            return int(sorted_index[j])
    raise ActionTableError(f"packed action {code:#x} has no index in the action table")


def describe_action(index: int, players: int = 3) -> str:
    """A person's name for action ``index``: ``'pass'``, ``'bet 15'``,
    ``'give to the next seat'``, ``'play 3a 4a 5a (run to 5)'``. A bet is named by its
    published points (``'bet 15'``: the Little bet, whatever the rules' ``bet_points``).

    >>> describe_action(0), describe_action(2), describe_action(4)
    ('pass', 'bet 15', 'give to the next seat')
    """
    if not 0 <= index < n_actions(players):
        raise IndexError(f"action {index} is not in the {players}-player action space")
    if index < N_SPECIAL:
        return SPECIAL_NAMES[index]
    combo = Combo(int(table()[0][index - N_SPECIAL]))
    return f"play {combo.cards} ({combo.describe()})"
