"""The learned leaf value of ``mcts`` (compiled): features of a position as one seat sees
it, and a small network that estimates from them the seat's reward at the end of the
round (what a rollout to the end of the round measures, learned from the search's own
self-play instead of a greedy player's outcome).

Features read one seat's observation only (``observe(state, seat)``: its own hand and
public information), in relative seats (me, the best other seat, the other seats by
their fewest and most cards), so 2- and 3-player positions share one layout; the
network has its own weights per player count. At a search leaf the state is a
determinization of the searcher's information set, and each seat is scored from its own
observation of it (:func:`leaf_values`).
"""

from __future__ import annotations

import numpy as np

from haggis_sim import kernel as K
from haggis_sim.kernel import njit

from .network import hidden_width, layer, layer_score
from .simple_kernels import hand_strength, seen_cards

L = K.layout  # the state's offsets the kernel module does not re-export

VALUE_FEATURES: tuple[str, ...] = (
    "bias",
    "three_players",
    "per_card_points",
    "my_turn",
    "leading",
    "my_cards",
    "fewest_other_cards",
    "most_other_cards",
    "i_am_out",
    "other_out",
    "my_strength",
    "my_faces",
    "other_faces",
    "trick_points",
    "top_is_mine",
    "my_round_points",
    "best_other_round_points",
    "my_bet",
    "best_other_bet",
    "score_lead",
    "my_distance",
    "best_other_distance",
    "unseen_high",
    "tricks_played",
    "my_rank_groups",
    "my_high_cards",
    "my_sets",
    "my_longest_run",
    "my_suit_bomb",
)
N_VALUE_FEATURES = len(VALUE_FEATURES)


@njit(cache=True)
def value_features(view, seat, out):
    """Fill ``out`` (:data:`N_VALUE_FEATURES`) with the features of a position as ``seat``
    sees it. ``view`` is that seat's observation, or a state whose hand-size slots
    (``S_SIZE``) are current (:func:`leaf_values` sets them): only the seat's own hand,
    the other hands' face cards and sizes, and public slots are read, so both give the
    same features (tests/strategy/test_value.py)."""
    n = view[K.S_NP]
    out[:] = 0.0
    out[0] = 1.0
    out[1] = 1.0 if n == 3 else 0.0
    out[2] = 1.0 if view[K.R_BASE + L.R_CARD_POINTS] != L.CP_CLASSIC else 0.0
    out[3] = 1.0 if view[K.S_TO_ACT] == seat else 0.0
    out[4] = 1.0 if view[K.S_TOP] == 0 and view[K.S_TO_ACT] == seat else 0.0
    hand = view[K.S_HAND + seat]
    my_size = view[K.S_SIZE + seat]
    out[5] = my_size / 17.0
    fewest = 99
    most = 0
    other_out = 0.0
    best_round = -(1 << 40)
    best_bet = 0
    best_score = -(1 << 40)
    other_faces = 0
    for i in range(1, n):
        o = (seat + i) % n
        size = view[K.S_SIZE + o]
        if size == 0:
            other_out = 1.0
        fewest = min(fewest, size)
        most = max(most, size)
        best_round = max(best_round, K.card_points(view, view[K.S_CAPT + o]))
        best_bet = max(best_bet, view[K.S_BET + o])
        best_score = max(best_score, view[K.S_SCORE + o])
        other_faces += K.popcount((view[K.S_HAND + o] >> (K.FACE_SHIFT + 3 * o)) & 7)
    out[6] = fewest / 17.0
    out[7] = most / 17.0
    out[8] = 1.0 if my_size == 0 else 0.0
    out[9] = other_out
    out[10] = hand_strength(view, seat)
    out[11] = K.popcount((hand >> (K.FACE_SHIFT + 3 * seat)) & 7) / 3.0
    out[12] = other_faces / 6.0
    out[13] = K.card_points(view, view[K.S_TRICK_CARDS]) / 10.0
    out[14] = 1.0 if view[K.S_TOP] != 0 and view[K.S_TOP_SEAT] == seat else 0.0
    out[15] = K.card_points(view, view[K.S_CAPT + seat]) / 20.0
    out[16] = best_round / 20.0
    out[17] = view[K.S_BET + seat] / 30.0
    out[18] = best_bet / 30.0
    mine = view[K.S_SCORE + seat]
    target = view[K.R_BASE + K.R_END_VALUE]
    scale = 100.0
    if view[K.R_BASE + K.R_GAME_END] != K.GE_ROUNDS and target > 0:
        scale = float(target)
        out[20] = (target - mine) / scale
        out[21] = (target - best_score) / scale
    out[19] = min(1.0, max(-1.0, (mine - best_score) / scale))
    seen = seen_cards(view, seat)
    high = 0
    for r in range(6, 9):  # unseen suit cards of rank 8, 9, 10
        for su in range(view[K.S_NSUITS]):
            if not (seen >> (5 * r + su)) & 1:
                high += 1
    out[22] = high / 15.0
    out[23] = view[L.S_TRICK_NO] / 20.0
    # the shape of the hand: how many plays it takes to shed, and what wins tricks
    suits = hand & K.SUIT_ALL
    groups = 0
    sets = 0
    run = 0
    longest = 0
    for r in range(9):
        c = K.popcount((suits >> (5 * r)) & 31)
        if c > 0:
            groups += 1
            run += 1
            longest = max(longest, run)
            if c >= 2:
                sets += 1
            if r >= 7:
                out[25] += c / 10.0
        else:
            run = 0
    out[24] = groups / 9.0
    out[26] = sets / 9.0
    out[27] = longest / 9.0
    if (suits >> 5) & 31 and (suits >> 15) & 31 and (suits >> 25) & 31 and (suits >> 35) & 31:
        out[28] = 1.0


@njit(cache=True)
def value_logit(x, params, players):
    """The network's score for features ``x`` with ``players`` players. ``params`` is the
    value model's parameter array, laid out as the learned model's
    (:mod:`strategies.network`): score = x . w + v . tanh(x @ W + b). A search's leaves
    use :func:`leaf_values`, which scores every seat from one scratch buffer."""
    off, w_in, b_in, w_out = layer(params, players)
    return layer_score(x, params, off, w_in, b_in, w_out, np.empty(b_in.shape[0]))


@njit(cache=True)
def value_scratch(params):
    """A scratch buffer for :func:`leaf_values` with the value model ``params``: the
    features, then the hidden units' sums."""
    return np.empty(N_VALUE_FEATURES + hidden_width(params))


@njit(cache=True)
def leaf_values(st, params, scratch, out):
    """Each seat's estimated reward at the end of the round from the state ``st`` (a
    determinization at a search leaf): the sigmoid of the network over what that seat
    sees (:func:`value_features`), normalised over the seats to sum to 1 as the game
    value does. ``scratch`` is :func:`value_scratch`'s buffer (ValueError when shorter),
    so a leaf allocates nothing. Sets ``st``'s hand-size slots, which the engine does not
    keep in a state."""
    off, w_in, b_in, w_out = layer(params, st[K.S_NP])
    if scratch.shape[0] < N_VALUE_FEATURES + b_in.shape[0]:
        raise ValueError("leaf_values: the scratch buffer is shorter than value_scratch's")
    x = scratch[:N_VALUE_FEATURES]
    act = scratch[N_VALUE_FEATURES:]
    n = st[K.S_NP]
    for s in range(n):
        st[K.S_SIZE + s] = K.popcount(st[K.S_HAND + s])
    total = 0.0
    for s in range(n):
        value_features(st, s, x)
        out[s] = 1.0 / (1.0 + np.exp(-layer_score(x, params, off, w_in, b_in, w_out, act)))
        total += out[s]
    for s in range(n):
        out[s] /= total
