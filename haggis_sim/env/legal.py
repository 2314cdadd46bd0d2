"""The environments' default action representation: a choice among the legal actions of the moment.

With ``actions="legal"`` an action is a *slot*: slot ``k`` is the ``k``-th legal action of
the agent to act, the legal actions taken in ascending order of their index in the
fixed table of :mod:`haggis_sim.env.actions` (so a pass, when legal, is slot 0, then the
bets, the gives and the plays). The space is ``Discrete(MAX_LEGAL)`` and the legal
slots are always ``0 .. n-1``: the mask is a prefix. :data:`MAX_LEGAL` is the engine's
move-buffer capacity, which no decision can exceed (the generator raises past it; the
richest hand found has 6,556 leads), so no legal action is ever left out.

A slot means a different action at each decision; what it is comes with it, computed
from the acting seat's information set only:

- :func:`action_ids`: the abstract action id of each legal action (:data:`ID_FIELDS`:
  kind, width, length, rank, bomb order), as an RLCard/DouZero-style agent would key it;
- :func:`action_features`: a float32 row per legal action (:data:`FEATURE_FIELDS`): the
  kind, the shape, the cards spent (the observation's card encoding) and the decision
  features the ``learned`` strategy scores (``strategies.learned_features.FEATURES``).

The cost of both grows with the number of legal actions, not with the table.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..kernel import layout as L
from .actions import BET_INDEX, GIVE_INDEX, SPECIAL_NAMES

#: the size of the legal-slot action space: the engine's move-buffer capacity
MAX_LEGAL = L.MAX_MOVES

#: the abstract kinds of action, in the order of an action id's ``kind``: the special
#: actions as the flat table names and numbers them, then the plays
KINDS: tuple[str, ...] = (*SPECIAL_NAMES, "set", "sequence", "bomb")
K_SET = KINDS.index("set")
K_SEQ = KINDS.index("sequence")
K_BOMB = KINDS.index("bomb")

#: the columns of :func:`action_ids`
ID_FIELDS: tuple[tuple[str, str], ...] = (
    (
        "kind",
        "index into KINDS: pass, bet 5/15/30 (the Baby, Little, Big bet at any bet_points), "
        "give next/after next, set, sequence, bomb",
    ),
    ("width", "sets: cards in the set; sequences: cards per rank; else 0"),
    ("length", "sets: 1; sequences: ranks covered; else 0"),
    ("rank", "sets and sequences: the (top) rank, 2..13; else 0"),
    ("bomb", "bombs: their order 1 (lowest) .. 6; else 0"),
)

_PLAY_KINDS = {L.T_SET: K_SET, L.T_SEQ: K_SEQ, L.T_BOMB: K_BOMB}


def action_ids(
    codes: npt.NDArray[np.int64],
    seat: int,
    players: int,
    bet_points: tuple[int, ...] = L.BET_VALUES,
) -> npt.NDArray[np.int64]:
    """The ``(n, 5)`` abstract ids (:data:`ID_FIELDS`) of the packed actions ``codes``
    taken by ``seat`` in a ``players``-player game whose Baby, Little and Big bets score
    ``bet_points`` (the rules' ``bet_points``; a bet's kind is the Baby, Little or Big
    bet, named ``bet 5/15/30`` by its published points).

    >>> import numpy as np
    >>> from haggis_sim.env.actions import action_code
    >>> action_ids(np.array([action_code(0, 0, 2), action_code(2, 0, 2)]), 0, 2).tolist()
    [[0, 0, 0, 0, 0], [2, 0, 0, 0, 0]]
    """
    codes = np.asarray(codes, dtype=np.int64)
    out = np.zeros((len(codes), len(ID_FIELDS)), dtype=np.int64)
    kind = (codes >> L.TYPE_SHIFT) & 7
    value = codes & L.VALUE_MASK
    for j, bet in enumerate(bet_points):
        out[(kind == L.T_BET) & (value == bet), 0] = BET_INDEX + j
    give = kind == L.T_GIVE
    out[give, 0] = GIVE_INDEX - 1 + (value[give] - seat) % players
    for t, k in _PLAY_KINDS.items():
        out[kind == t, 0] = k
    plays = (kind == L.T_SET) | (kind == L.T_SEQ)
    width = (codes >> L.WIDTH_SHIFT) & 15
    length = (codes >> L.LENGTH_SHIFT) & 15
    rank = (codes >> L.RANK_SHIFT) & 15
    out[plays, 1] = width[plays]
    out[plays, 2] = length[plays]
    out[plays, 3] = rank[plays]
    bombs = kind == L.T_BOMB
    out[bombs, 4] = rank[bombs]
    return out


#: the suit-card bit of each of the 45 card entries, then the player-relative J, Q, K
_CARD_BITS = np.array(
    [L.suit_bit(r, s) for r in range(2, 11) for s in range(L.N_SUITS_MAX)]
    + [L.FACE_SHIFT + f for f in range(3)],
    dtype=np.int64,
)


def card_features(codes: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """The ``(n, 48)`` cards each packed action spends, encoded as the observation's card
    fields are (45 suit cards by index ``(rank - 2) * 5 + suit``, then own J, Q, K);
    zero for passes, bets and gives."""
    codes = np.asarray(codes, dtype=np.int64)
    kind = (codes >> L.TYPE_SHIFT) & 7
    plays = (kind == L.T_SET) | (kind == L.T_SEQ) | (kind == L.T_BOMB)
    bits = (codes[:, None] >> _CARD_BITS[None, :]) & 1
    out: npt.NDArray[np.float32] = (bits * plays[:, None]).astype(np.float32)
    return out


def feature_fields() -> tuple[tuple[str, int, str], ...]:
    """The blocks of an :func:`action_features` row, in order: (name, size, meaning)."""
    from strategies.learned_features import N_FEATURES

    return (
        ("kind", len(KINDS), "one-hot over KINDS"),
        (
            "shape",
            3,
            "width, length, rank (as in the action id; 0 for anything but a set or sequence)",
        ),
        ("bomb", 1, "bomb order 1..6, 0 for anything but a bomb"),
        (
            "cards",
            48,
            "the cards spent: 45 suit cards by index (rank - 2) * 5 + suit, then own J, Q, K",
        ),
        (
            "decision",
            N_FEATURES,
            "the features the learned strategy scores (strategies.learned_features.FEATURES)",
        ),
    )


def n_features() -> int:
    """The length of an :func:`action_features` row."""
    return sum(size for _, size, _ in feature_fields())


def action_features(
    observation: npt.NDArray[np.int64], codes: npt.NDArray[np.int64], seat: int, players: int
) -> npt.NDArray[np.float32]:
    """The ``(n, n_features())`` float32 rows (:func:`feature_fields`) of the legal
    actions ``codes`` of ``seat``, from the seat's engine observation array only."""
    from strategies.learned_features import N_FEATURES, decision_features

    codes = np.ascontiguousarray(codes, dtype=np.int64)
    n = len(codes)
    points = observation[L.R_BASE + L.R_BET_POINTS : L.R_BASE + L.R_BET_POINTS + 3]
    ids = action_ids(codes, seat, players, tuple(int(v) for v in points))
    kind = np.zeros((n, len(KINDS)), dtype=np.float32)
    kind[np.arange(n), ids[:, 0]] = 1.0
    if n:
        decision = decision_features(observation, codes, n).astype(np.float32)
    else:
        decision = np.zeros((0, N_FEATURES), dtype=np.float32)
    out: npt.NDArray[np.float32] = np.concatenate(
        (kind, ids[:, 1:].astype(np.float32), card_features(codes), decision), axis=1
    )
    return out
