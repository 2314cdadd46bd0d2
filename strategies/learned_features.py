"""Features of one legal action, read from the acting seat's observation only, and the
compiled ``learned`` kernel that scores every legal action by them.

A decision's *context* (hand size, opponents' cards, trick, scores, hand strength) is
computed once from the observation; each legal action then gets :data:`FEATURES`: what
the action is (pass, set, sequence, bomb, bet, give), what it spends (cards, rank,
wilds, card points) and leaves (cards, rank groups), and products of those with the
context. A linear model only ranks actions within a decision, so context alone would
add nothing: the products are what let it play differently when, say, an opponent is
about to go out. Nothing here reads another seat's hand: the observation has it zeroed.
"""

from __future__ import annotations

import numpy as np

from haggis_sim import kernel as K
from haggis_sim.kernel import njit

from .ismcts_tree import HASH_MUL
from .network import hidden_width, layer, layer_score, model_length
from .simple_kernels import (
    BOMB_MODES,
    HEURISTIC_PARAMS,
    bet_success_chance,
    hand_strength,
    heuristic_act,
    heuristic_listed,
    seen_cards,
)

FEATURES: tuple[str, ...] = (
    "pass",
    "set",
    "sequence",
    "bomb",
    "bomb_order",
    "bet5",
    "bet15",
    "bet30",
    "give_lowest",
    "cards",
    "rank",
    "jack_spent",
    "queen_spent",
    "king_spent",
    "points",
    "left_after",
    "goes_out",
    "lowest_rank",
    "width",
    "length",
    "groups_after",
    "breaks_group",
    "singles_after",
    "pass_x_trick_points",
    "pass_x_opp_near_out",
    "pass_x_my_cards",
    "bomb_x_trick_points",
    "bomb_x_opp_near_out",
    "bomb_x_leading",
    "bomb_x_opp_bet",
    "pass_x_opp_bet",
    "cards_x_leading",
    "rank_x_leading",
    "cards_x_opp_near_out",
    "lead_more_than_opp_holds",
    "wilds_x_my_cards",
    "points_x_leading",
    "bet5_x_chance",
    "bet15_x_chance",
    "bet30_x_chance",
    "bet_x_strength",
    "bet_x_score_lead",
    "bet_x_distance",
    "bet_x_opp_bet",
    "rank_x_my_cards",
    "lowest_rank_x_leading",
    "wilds_x_leading",
    "points_x_opp_near_out",
    "bomb_x_my_cards",
    "left_after_x_opp_near_out",
    "heuristic_choice",
    "heuristic_choice_x_leading",
    "heuristic_choice_x_opp_near_out",
    "rank_above_lowest",
    # appended in the third generation (a model over the first 54 reads 0 weight on these)
    "beatable",
    "safe",
    "safe_x_leading",
    "safe_x_trick_points",
    "safe_x_opp_near_out",
    "unseen_above",
    "bomb_overbombable",
    "pass_x_opp_face_bomb",
    "high_after",
)
N_FEATURES = len(FEATURES)

# The default heuristic's parameters (HeuristicStrategy's defaults, a test checks): its
# choice is a feature, so the model learns where the teacher departs from it.
HEURISTIC_DEFAULTS = {"bet": 0.55, "big": 0.6, "baby": 0.5, "bomb": float(BOMB_MODES.index("late")),
                      "bomb_out": 3.0, "bomb_give": 4.0, "wild": 0.5}  # fmt: skip
HEURISTIC_ARRAY = np.array([HEURISTIC_DEFAULTS[k] for k in HEURISTIC_PARAMS])

# context slots (computed once per decision by ``context``)
C_MY_CARDS = 0  # my cards / 17
C_MIN_OPP = 1  # fewest cards an opponent still holds (raw count; 99 when none)
C_LEADING = 2
C_TRICK_POINTS = 3  # card points on the table / 10
C_NEAR_OUT = 4  # an opponent holds at most 3 cards
C_OPP_BET = 5  # an opponent has declared a bet
C_STRENGTH = 6
# the heuristic's success chance of a Baby, Little and Big bet at the rules' bet_points
# (the features bet5, bet15 and bet30 name the bets by their published points)
C_CHANCE5 = 7
C_CHANCE15 = 8
C_CHANCE30 = 9
C_SCORE_LEAD = 10  # (my game points - best opponent's) / scale, clipped to [-1, 1]
C_DISTANCE = 11  # target games: (target - my points) / target; round-count games: 0
C_MIN_RANK = 12  # lowest rank of a legal non-bomb play (99: none)
C_MY_SIZE = 13  # my cards (raw count)
C_LOWEST_OPP_SEAT = 14  # the opponent with the fewest game points (first clockwise)
C_OPP_FACE_BOMB = 15  # the highest face bomb an opponent holds (bomb order 2..5; 0 none)
C_MAX_UNSEEN = 16  # the highest rank of an unseen suit card (0 none)
C_UNSEEN_TOTAL = 17  # unseen suit cards (other hands and the Haggis)
C_OPP = 18  # per opponent (clockwise, 2 slots): its face bits (J 1, Q 2, K 4), then cards held
C_UNSEEN = 22  # 9 slots: unseen suit cards of rank 2..10
C_OPP_HAS_FACE_BOMB = 31  # 1 when an opponent holds a face bomb, else 0
N_CONTEXT = 32
#: bomb order of the face bombs by face bits (J 1, Q 2, K 4): J-Q 2, J-K 3, Q-K 4, J-Q-K 5
FACE_BOMB_ORDER = np.array([0, 0, 0, 2, 0, 3, 4, 5], dtype=np.int64)

#: the features that are a feature of the action times a number of the decision's
#: context: rows (feature, factor feature, context slot), and a feature with several rows
#: is the sum of its products (``bet_x_strength`` is bet5, bet15 or bet30 times the
#: strength). :func:`action_features` writes each of them as that product, a test checks
#: every row; the screen folds them into the weights (:func:`fold_weights`)
PRODUCTS = np.array([
    (23, 0, C_TRICK_POINTS), (24, 0, C_NEAR_OUT), (25, 0, C_MY_CARDS), (30, 0, C_OPP_BET),
    (61, 0, C_OPP_HAS_FACE_BOMB),
    (26, 3, C_TRICK_POINTS), (27, 3, C_NEAR_OUT), (28, 3, C_LEADING), (29, 3, C_OPP_BET),
    (48, 3, C_MY_CARDS),
    (37, 5, C_CHANCE5), (38, 6, C_CHANCE15), (39, 7, C_CHANCE30),
    (40, 5, C_STRENGTH), (40, 6, C_STRENGTH), (40, 7, C_STRENGTH),
    (41, 5, C_SCORE_LEAD), (41, 6, C_SCORE_LEAD), (41, 7, C_SCORE_LEAD),
    (42, 5, C_DISTANCE), (42, 6, C_DISTANCE), (42, 7, C_DISTANCE),
    (43, 5, C_OPP_BET), (43, 6, C_OPP_BET), (43, 7, C_OPP_BET),
    (31, 9, C_LEADING), (33, 9, C_NEAR_OUT), (32, 10, C_LEADING), (44, 10, C_MY_CARDS),
    (35, 11, C_MY_CARDS), (35, 12, C_MY_CARDS), (35, 13, C_MY_CARDS),
    (46, 11, C_LEADING), (46, 12, C_LEADING), (46, 13, C_LEADING),
    (36, 14, C_LEADING), (47, 14, C_NEAR_OUT), (49, 15, C_NEAR_OUT), (45, 17, C_LEADING),
    (51, 50, C_LEADING), (52, 50, C_NEAR_OUT),
    (56, 55, C_LEADING), (57, 55, C_TRICK_POINTS), (58, 55, C_NEAR_OUT),
], dtype=np.int64)  # fmt: skip
#: the features that are no such product, in order: the screen's columns
FACTORS = np.array(sorted(set(range(len(FEATURES))) - set(PRODUCTS[:, 0].tolist())), dtype=np.int64)
#: each feature's column among :data:`FACTORS` (-1: a product)
FACTOR_COLUMN = np.full(len(FEATURES), -1, dtype=np.int64)
FACTOR_COLUMN[FACTORS] = np.arange(FACTORS.shape[0])


@njit(cache=True)
def context(obs, buf, n):
    """The decision's context from the observation and its ``n`` legal actions in ``buf``."""
    ctx = np.zeros(N_CONTEXT)
    seat = obs[K.S_TO_ACT]
    n_players = obs[K.S_NP]
    my_size = K.popcount(obs[K.S_HAND + seat])
    ctx[C_MY_SIZE] = my_size
    ctx[C_MY_CARDS] = my_size / 17.0
    min_opp = 99
    opp_bet = 0
    best_opp = -(1 << 40)
    lowest = -1
    for i in range(1, n_players):
        o = (seat + i) % n_players
        if obs[K.S_SIZE + o] > 0:
            min_opp = min(min_opp, obs[K.S_SIZE + o])
        if obs[K.S_BET + o] > 0:
            opp_bet = 1
        best_opp = max(best_opp, obs[K.S_SCORE + o])
        if lowest < 0 or obs[K.S_SCORE + o] < obs[K.S_SCORE + lowest]:
            lowest = o
    ctx[C_MIN_OPP] = min_opp
    ctx[C_LEADING] = 1.0 if obs[K.S_TOP] == 0 else 0.0
    ctx[C_TRICK_POINTS] = K.card_points(obs, obs[K.S_TRICK_CARDS]) / 10.0
    ctx[C_NEAR_OUT] = 1.0 if min_opp <= 3 else 0.0
    ctx[C_OPP_BET] = opp_bet
    ctx[C_STRENGTH] = hand_strength(obs, seat)
    if obs[K.S_PHASE] == K.PH_PLAY:
        at = K.R_BASE + K.R_BET_POINTS  # the Baby, Little and Big bets' points
        ctx[C_CHANCE5] = bet_success_chance(obs, seat, obs[at])
        ctx[C_CHANCE15] = bet_success_chance(obs, seat, obs[at + 1])
        ctx[C_CHANCE30] = bet_success_chance(obs, seat, obs[at + 2])
    mine = obs[K.S_SCORE + seat]
    target = obs[K.R_BASE + K.R_END_VALUE]
    scale = 100.0
    if obs[K.R_BASE + K.R_GAME_END] != K.GE_ROUNDS and target > 0:
        scale = float(target)
        ctx[C_DISTANCE] = (target - mine) / scale
    ctx[C_SCORE_LEAD] = min(1.0, max(-1.0, (mine - best_opp) / scale))
    min_rank = 99
    for i in range(n):
        m = buf[i]
        t = K.move_type(m)
        if t == K.T_SET or t == K.T_SEQ:
            min_rank = min(min_rank, K.move_rank(m))
    ctx[C_MIN_RANK] = min_rank
    ctx[C_LOWEST_OPP_SEAT] = lowest
    # public card counting: the suit cards not in my hand, on the table or captured are
    # in the opponents' hands or the Haggis; face cards are dealt face up (the
    # observation shows every seat's), so each opponent's are known
    seen = seen_cards(obs, seat)
    nsuits = obs[K.S_NSUITS]
    for r in range(9):
        u = 0
        for su in range(nsuits):
            if not (seen >> (5 * r + su)) & 1:
                u += 1
        ctx[C_UNSEEN + r] = u
        ctx[C_UNSEEN_TOTAL] += u
        if u > 0:
            ctx[C_MAX_UNSEEN] = r + 2
    for i in range(1, n_players):
        o = (seat + i) % n_players
        faces = (obs[K.S_HAND + o] >> (K.FACE_SHIFT + 3 * o)) & 7
        ctx[C_OPP + 2 * (i - 1)] = faces
        ctx[C_OPP + 2 * (i - 1) + 1] = obs[K.S_SIZE + o]
        ctx[C_OPP_FACE_BOMB] = max(ctx[C_OPP_FACE_BOMB], FACE_BOMB_ORDER[faces])
    ctx[C_OPP_HAS_FACE_BOMB] = 1.0 if ctx[C_OPP_FACE_BOMB] > 0 else 0.0
    return ctx


#: the lowest bit of each rank's five suit bits
RANK_LOW_BITS = sum(1 << (5 * r) for r in range(9))


@njit(cache=True, inline="always")
def ranks_held(cards):
    """The lowest bit of each rank's five suit bits set where ``cards`` holds that rank."""
    return (cards | (cards >> 1) | (cards >> 2) | (cards >> 3) | (cards >> 4)) & RANK_LOW_BITS


@njit(cache=True)
def beatable(ctx, t, rank, width, length, ncards):
    """Whether one opponent could beat a set or sequence with the same shape and a higher
    rank, from its known face cards and any of the unseen suit cards (a public bound: the
    unseen cards may be in another hand or the Haggis). Bombs are not counted."""
    for k in range(2):
        faces = int(ctx[C_OPP + 2 * k])
        held = ctx[C_OPP + 2 * k + 1]
        if held < ncards:
            continue
        nf = K.popcount(faces)
        if t == K.T_SET:
            if width == 1:
                for f in range(3):
                    if (faces >> f) & 1 and 11 + f > rank:
                        return True
            for r in range(rank + 1, 11):
                u = ctx[C_UNSEEN + r - 2]
                if u >= 1 and u + nf >= width:
                    return True
        else:
            for top in range(rank + 1, 14):
                lo = top - length + 1
                missing = 0.0
                naturals = 0.0
                for r in range(lo, top + 1):
                    u = ctx[C_UNSEEN + r - 2] if r <= 10 else 0.0
                    if r > 10 and (faces >> (r - 11)) & 1:
                        u = 1.0  # the face itself, natural
                    naturals += u
                    if u < width:
                        missing += width - u
                if naturals >= 1 and missing <= nf:
                    return True
    return False


@njit(cache=True)
def action_features(obs, ctx, m, h, out):
    """Fill ``out`` (length :data:`N_FEATURES`) with the features of legal action ``m``;
    ``h`` is the default heuristic's action in this decision."""
    out[:] = 0.0
    if m == h:
        out[50] = 1.0
        out[51] = ctx[C_LEADING]
        out[52] = ctx[C_NEAR_OUT]
    t = K.move_type(m)
    seat = obs[K.S_TO_ACT]
    leading = ctx[C_LEADING]
    near = ctx[C_NEAR_OUT]
    if t == K.T_PASS:
        out[0] = 1.0
        out[23] = ctx[C_TRICK_POINTS]
        out[24] = near
        out[25] = ctx[C_MY_CARDS]
        out[30] = ctx[C_OPP_BET]
        out[61] = ctx[C_OPP_HAS_FACE_BOMB]
        return
    if t == K.T_BET:
        kind = K.bet_slot(obs, m & 255)  # Baby, Little, Big: bet5, bet15, bet30
        if kind == 0:
            out[5] = 1.0
            out[37] = ctx[C_CHANCE5]
        elif kind == 1:
            out[6] = 1.0
            out[38] = ctx[C_CHANCE15]
        else:
            out[7] = 1.0
            out[39] = ctx[C_CHANCE30]
        out[40] = ctx[C_STRENGTH]
        out[41] = ctx[C_SCORE_LEAD]
        out[42] = ctx[C_DISTANCE]
        out[43] = ctx[C_OPP_BET]
        return
    if t == K.T_GIVE:
        if (m & 7) == ctx[C_LOWEST_OPP_SEAT]:
            out[8] = 1.0
        return
    cards = m & K.CARDS_MASK
    ncards = K.popcount(cards)
    faces = (m >> K.FACE_SHIFT) & 7
    nfaces = K.popcount(faces)
    rank = K.move_rank(m)
    pts = K.card_points(obs, cards) / 10.0
    my_size = ctx[C_MY_SIZE]
    left = my_size - ncards
    if t == K.T_BOMB:
        out[3] = 1.0
        out[4] = rank / 6.0
        out[26] = ctx[C_TRICK_POINTS]
        out[27] = near
        out[28] = leading
        out[29] = ctx[C_OPP_BET]
        out[48] = ctx[C_MY_CARDS]
    else:
        r = (rank - 2) / 11.0
        if t == K.T_SET:
            out[1] = 1.0
        else:
            out[2] = 1.0
        out[10] = r
        out[53] = (rank - ctx[C_MIN_RANK]) / 11.0
        if rank == ctx[C_MIN_RANK]:
            out[17] = 1.0
            out[45] = leading
        out[18] = K.move_width(m) / 5.0
        out[19] = K.move_length(m) / 9.0
        out[32] = r * leading
        out[44] = r * ctx[C_MY_CARDS]
    out[9] = ncards / 10.0
    out[11] = faces & 1
    out[12] = (faces >> 1) & 1
    out[13] = (faces >> 2) & 1
    out[14] = pts
    out[15] = left / 17.0
    out[16] = 1.0 if left == 0 else 0.0
    # the hand's rank groups after the play: fewer groups and singles shed more easily
    hand = obs[K.S_HAND + seat] & K.SUIT_ALL
    played = cards & K.SUIT_ALL
    after = hand & ~played
    held = ranks_held(after)
    groups = K.popcount(held)
    singles = groups - K.popcount(ranks_held(after & (after - held)))  # x & (x - 1) per rank
    broken = K.popcount(held & ranks_held(played))
    out[20] = groups / 9.0
    out[21] = broken / 2.0
    out[22] = singles / 9.0
    out[31] = ncards / 10.0 * leading
    out[33] = ncards / 10.0 * near
    if leading > 0 and ctx[C_MIN_OPP] <= 2 and ncards > ctx[C_MIN_OPP]:
        out[34] = 1.0
    out[35] = nfaces * ctx[C_MY_CARDS]
    out[36] = pts * leading
    out[46] = nfaces * leading
    out[47] = pts * near
    out[49] = left / 17.0 * near
    if t == K.T_BOMB:
        out[60] = 1.0 if ctx[C_OPP_FACE_BOMB] > rank else 0.0
    else:
        width = K.move_width(m)
        length = K.move_length(m)
        if beatable(ctx, t, rank, width, length, ncards):
            out[54] = 1.0
        else:
            out[55] = 1.0
            out[56] = leading
            out[57] = ctx[C_TRICK_POINTS]
            out[58] = near
        above = 0.0
        for rr in range(rank + 1, 11):
            above += ctx[C_UNSEEN + rr - 2]
        if ctx[C_UNSEEN_TOTAL] > 0:
            out[59] = above / ctx[C_UNSEEN_TOTAL]
    low = 5 * max(0, int(ctx[C_MAX_UNSEEN]) - 1)  # the first rank above every unseen card
    out[62] = K.popcount(after & ((K.SUIT_ALL >> low) << low)) / 5.0


@njit(cache=True)
def decision_features(obs, buf, n):
    """The ``(n, N_FEATURES)`` features of the ``n`` legal actions in ``buf``."""
    h = heuristic_act(obs, HEURISTIC_ARRAY, K.new_stream(0), np.empty(K.MAX_MOVES, np.int64))
    ctx = context(obs, buf, n)
    out = np.zeros((n, N_FEATURES))
    for i in range(n):
        action_features(obs, ctx, buf[i], h, out[i])
    return out


@njit(cache=True)
def check_weights(params):
    """Refuse a parameter array that does not hold a model (ValueError): ``params[0]`` is
    the feature count, then :data:`N_FEATURES` linear weights per player count, then
    optionally the hidden layer (:func:`score_actions`)."""
    if params.shape[0] < 1 + 2 * N_FEATURES or params[0] != N_FEATURES:
        raise ValueError("learned kernel: the parameter array does not hold a model's weights")
    if hidden_width(params) < 0 or params.shape[0] < model_length(params):
        raise ValueError("learned kernel: the parameter array does not hold its hidden layer")


@njit(cache=True)
def decision_start(obs, params, buf):
    """What every action's features of a decision share: check the model, then list the
    legal actions into ``buf`` (bets first) and return their count, the decision's
    context and the heuristic's choice."""
    check_weights(params)
    n = K.legal_actions(obs, buf, True)
    h = heuristic_listed(obs, HEURISTIC_ARRAY, buf, n)
    return n, context(obs, buf, n), h


@njit(cache=True)
def feature_key(m):
    """A key of legal action ``m`` that equal features share: a play with its suit cards
    replaced by how many of each rank it holds (the features read the suit cards only
    through those counts: :func:`action_features`), any other action as it is."""
    t = K.move_type(m)
    if t != K.T_SET and t != K.T_SEQ and t != K.T_BOMB:
        return m
    suits = m & K.SUIT_ALL
    counts = 0
    for r in range(9):
        c = K.popcount((suits >> (5 * r)) & 31)
        counts |= ((1 << c) - 1) << (5 * r)
    return (m & ~K.SUIT_ALL) | counts


@njit(cache=True)
def distinct_rows(buf, n, h, first, row):
    """Into ``first``, the index of each of the ``n`` actions in ``buf`` whose features no
    earlier action shares (:func:`feature_key`; ``h``, the heuristic's action, has a
    feature of its own), in order, and into ``row[i]`` the position in ``first`` of the
    action whose features action ``i`` shares; return how many. Equal features score
    equal, so the argmax and every score are read off these alone."""
    size = 16
    while size < 2 * n:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    keys = np.empty(size, dtype=np.int64)
    u = 0
    for i in range(n):
        m = buf[i]
        if m == h:
            first[u] = i
            row[i] = u
            u += 1
            continue
        key = feature_key(m)
        slot = ((key * HASH_MUL) >> 40) & (size - 1)
        while table[slot] >= 0 and keys[slot] != key:
            slot = (slot + 1) & (size - 1)
        if table[slot] < 0:
            table[slot] = u
            keys[slot] = key
            first[u] = i
            u += 1
        row[i] = table[slot]
    return u


@njit(cache=True)
def score_actions(obs, params, buf, scores):
    """Fill ``buf`` with every legal action (bets first, as ``legal_actions`` lists them)
    and ``scores`` with each one's score; return the count.

    ``params`` holds a model (:func:`check_weights`; its layout is
    :mod:`strategies.network`'s). The weights of the game's player count are used:
    score = features . weights + v . tanh(features @ W + b) (a linear model: the first
    term alone). The ``learned`` kernel plays the best of these scores; ``mcts``
    uses their softmax as its root's prior (:func:`strategies.ismcts.root_policy`).
    Actions whose features are equal (:func:`distinct_rows`) are scored once.
    """
    n, ctx, h = decision_start(obs, params, buf)
    off, w_in, b_in, w_out = layer(params, obs[K.S_NP])
    act = np.empty(b_in.shape[0])
    f = np.zeros(N_FEATURES)
    first = np.empty(n, dtype=np.int64)
    row = np.empty(n, dtype=np.int64)
    u = distinct_rows(buf, n, h, first, row)
    distinct = np.empty(u)
    for j in range(u):
        action_features(obs, ctx, buf[first[j]], h, f)
        distinct[j] = layer_score(f, params, off, w_in, b_in, w_out, act)
    for i in range(n):
        scores[i] = distinct[row[i]]
    return n


# ``learned`` plays the argmax of the scores, and almost every action of a large decision
# is far from it: bounds on every score come from matrix products and a rational stand-in
# for tanh (:func:`screen_bounds`), and only the actions whose upper bound reaches the
# best lower bound are scored exactly.
#: widens every bound by this share of the magnitudes summed (plus 1): covers the
#: rounding of sums added in another order (BLAS), and of the bound's own sum against the
#: score's, a few ulps of that magnitude each, whatever the model's scale
BOUND_MARGIN = 1e-9


#: decisions with at least this many legal actions are screened by matrix products
#: (BLAS) before the few near the top are scored exactly; smaller ones are scored exactly
SCREEN_FROM = 8
#: actions per matrix product: OpenBLAS runs products below ~10,000 terms (a vector) and
#: ~260,000 (a matrix) on the calling thread; larger ones start threads, which in a run's
#: worker processes compete for the cores the other workers use
SCREEN_ROWS = 128
#: a rational function close to tanh (Eigen's ``generic_fast_tanh``): odd numerator and
#: even denominator coefficients in powers of x, taken at x clamped to the range below
TANH_FIT_NUMERATOR = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
                      5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
                      -2.76076847742355e-16)  # fmt: skip
TANH_FIT_DENOMINATOR = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
                        1.19825839466702e-06)  # fmt: skip
TANH_FIT_CLAMP = 7.90531110763549805
#: the most :func:`tanh_fit` differs from tanh anywhere (a test samples every real
#: densely enough to prove it: the largest difference seen is ~5e-7, clamping included)
TANH_FIT_ERROR = 4e-6


@njit(cache=True, inline="always", error_model="numpy")
def tanh_fit(x):
    """tanh(x) within :data:`TANH_FIT_ERROR`, in arithmetic alone (no library call, no
    branch), so a loop of them runs on vector instructions. NaN stays NaN: a bound made
    from it is NaN, which neither screens an action out nor sets the bar."""
    x = TANH_FIT_CLAMP if x > TANH_FIT_CLAMP else x
    x = -TANH_FIT_CLAMP if x < -TANH_FIT_CLAMP else x
    x2 = x * x
    a = TANH_FIT_NUMERATOR
    p = ((((((a[6] * x2 + a[5]) * x2 + a[4]) * x2 + a[3]) * x2 + a[2]) * x2 + a[1]) * x2 + a[0]) * x
    d = TANH_FIT_DENOMINATOR
    return p / (((d[3] * x2 + d[2]) * x2 + d[1]) * x2 + d[0])


@njit(cache=True)
def fold_weights(ctx, params, off, w_in, w_lin, w_hid, mag):
    """The screen's weights over the :data:`FACTORS` columns for a decision with context
    ``ctx``: each product feature's weights (:data:`PRODUCTS`) times its context number,
    added to its factor's, into ``w_lin`` (the linear term) and ``w_hid`` (a row per
    factor, a column per hidden unit), so that a factor row times them gives the sums a
    whole feature row gives. ``mag[k]`` (``k`` < ``H``; ``mag[H]`` the linear term) is
    the sum of every weight's magnitude with its context number: a feature row's terms
    add up to at most the row's largest factor times it."""
    nh = w_in.shape[1]
    mag[:] = 0.0
    for c in range(FACTORS.shape[0]):
        j = FACTORS[c]
        w_lin[c] = params[off + j]
        mag[nh] += abs(w_lin[c])
        for k in range(nh):
            w_hid[c, k] = w_in[j, k]
            mag[k] += abs(w_in[j, k])
    for p in range(PRODUCTS.shape[0]):
        j = PRODUCTS[p, 0]
        c = FACTOR_COLUMN[PRODUCTS[p, 1]]
        times = ctx[PRODUCTS[p, 2]]
        if times == 0.0:
            continue  # the product is 0 in every row of the decision
        w = times * params[off + j]
        w_lin[c] += w
        mag[nh] += abs(w)
        for k in range(nh):
            w = times * w_in[j, k]
            w_hid[c, k] += w
            mag[k] += abs(w)


@njit(cache=True, error_model="numpy")
def screen_bounds(xs, big, w_lin, w_hid, mag, b_in, w_out, upper, lower):
    """Bounds on the scores of the factor rows ``xs`` (``n`` x factors: the
    :data:`FACTORS` columns of feature rows; ``big`` at least their largest magnitude)
    into ``upper`` and ``lower``: an estimate of each score, plus and minus what it can be
    off by. ``w_lin``, ``w_hid`` and ``mag`` are the decision's folded weights
    (:func:`fold_weights`).

    The estimate takes the hidden units' sums and the linear term from matrix products
    (BLAS) over the folded weights: the same sums as the kernel's over whole rows, added
    in another order, fused, and with the products' weights rounded into their factors',
    so each is within ``delta`` of the kernel's: :data:`BOUND_MARGIN` times a bound on
    the magnitudes summed, ``1 + |b_k| + max|x| mag[k]``, a relative error of 1e-9 where
    rounding makes ~1e-14. tanh comes from :func:`tanh_fit` (within
    :data:`TANH_FIT_ERROR`). As tanh has slope at most 1, unit ``k``'s term is off by at
    most ``|v_k|`` times the sum of the two, and the score's own rounding by
    :data:`BOUND_MARGIN` of its magnitude."""
    n = xs.shape[0]
    nh = b_in.shape[0]
    slack = 0.0
    out_scale = 0.0
    for k in range(nh):
        m = abs(b_in[k]) + big * mag[k]
        slack += abs(w_out[k]) * (BOUND_MARGIN * (1.0 + m) + TANH_FIT_ERROR)
        out_scale += abs(w_out[k])
    slack += BOUND_MARGIN * (1.0 + big * mag[nh])
    linear = np.empty(n)
    per_unit = np.empty((nh, n))  # each unit's sums, a column per action
    for first in range(0, n, SCREEN_ROWS):
        last = min(n, first + SCREEN_ROWS)
        block = xs[first:last]
        linear[first:last] = np.dot(block, w_lin)
        sums = np.dot(block, w_hid)  # a row per action: turned below, so that the loop
        for r in range(last - first):  # over actions runs on vector instructions
            for k in range(nh):
                per_unit[k, first + r] = sums[r, k]
    est = linear.copy()
    for k in range(nh):
        v = w_out[k]
        bk = b_in[k]
        for r in range(n):
            est[r] += v * tanh_fit(per_unit[k, r] + bk)
    for r in range(n):
        margin = slack + BOUND_MARGIN * (1.0 + abs(linear[r]) + out_scale)
        upper[r] = est[r] + margin
        lower[r] = est[r] - margin


@njit(cache=True)
def screen_rows(xs, ctx, params, off, w_in, b_in, w_out, upper, lower):
    """Bounds on the scores of the feature rows ``xs`` (``n`` x :data:`N_FEATURES`) of a
    decision with context ``ctx`` into ``upper`` and ``lower`` (:func:`screen_bounds`
    over their :data:`FACTORS` columns, the weights folded by :func:`fold_weights`)."""
    n = xs.shape[0]
    nf = FACTORS.shape[0]
    nh = b_in.shape[0]
    w_lin = np.empty(nf)
    w_hid = np.empty((nf, nh))
    mag = np.empty(nh + 1)
    fold_weights(ctx, params, off, w_in, w_lin, w_hid, mag)
    factors = np.empty((n, nf))
    big = 0.0
    for i in range(n):
        for c in range(nf):
            x = xs[i, FACTORS[c]]
            factors[i, c] = x
            big = max(big, abs(x))
    screen_bounds(factors, big, w_lin, w_hid, mag, b_in, w_out, upper, lower)


@njit(cache=True)
def learned_act(obs, params, rng, buf):
    """The legal action with the highest score (:func:`score_actions`).

    Every legal action is scored, bets and gives included (a play at a betting chance
    means "no bet"); ties go to the lowest index in the legal list. The stream ``rng`` is
    not drawn from: the policy is deterministic. The action is the one the scores'
    argmax gives, each score computed as :func:`score_actions` computes it. With
    :data:`SCREEN_FROM` actions or more, bounds on every score come first
    (:func:`screen_rows`: matrix products over the features that are no product of
    others), and an action is scored exactly only when its upper bound
    reaches the best lower bound: a few a decision rather than hundreds. Only the first of
    the actions with equal features is featured, bounded and scored
    (:func:`distinct_rows`): the others score the same and come later in the list.
    """
    n0, ctx, h = decision_start(obs, params, buf)
    first = np.empty(n0, dtype=np.int64)
    n = distinct_rows(buf, n0, h, first, np.empty(n0, dtype=np.int64))
    off, w_in, b_in, w_out = layer(params, obs[K.S_NP])
    nh = b_in.shape[0]
    act = np.empty(nh)
    xs = np.empty((n, N_FEATURES))
    for i in range(n):
        action_features(obs, ctx, buf[first[i]], h, xs[i])
    upper = np.full(n, np.inf)
    lower = np.full(n, -np.inf)
    if n >= SCREEN_FROM and nh > 0:
        screen_rows(xs, ctx, params, off, w_in, b_in, w_out, upper, lower)
    best_lower = -np.inf
    for i in range(n):
        if lower[i] > best_lower:
            best_lower = lower[i]
    best = 0
    best_score = -np.inf
    for i in range(n):
        if upper[i] < best_lower:
            continue  # below a score another action reaches: not the argmax
        s = layer_score(xs[i], params, off, w_in, b_in, w_out, act)
        if s > best_score:
            best_score = s
            best = i
    return buf[first[best]]
