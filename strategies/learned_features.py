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

from .simple_kernels import (
    BOMB_MODES,
    HEURISTIC_PARAMS,
    bet_success_chance,
    hand_strength,
    heuristic_act,
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
C_CHANCE5 = 7
C_CHANCE15 = 8
C_CHANCE30 = 9
C_SCORE_LEAD = 10  # (my game points - best opponent's) / scale, clipped to [-1, 1]
C_DISTANCE = 11  # target games: (target - my points) / target; round-count games: 0
C_MIN_RANK = 12  # lowest rank of a legal non-bomb play (99: none)
C_MY_SIZE = 13  # my cards (raw count)
C_LOWEST_OPP_SEAT = 14  # the opponent with the fewest game points (first clockwise)
N_CONTEXT = 15


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
        ctx[C_CHANCE5] = bet_success_chance(obs, seat, 5)
        ctx[C_CHANCE15] = bet_success_chance(obs, seat, 15)
        ctx[C_CHANCE30] = bet_success_chance(obs, seat, 30)
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
    return ctx


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
        return
    if t == K.T_BET:
        v = m & 255
        if v == 5:
            out[5] = 1.0
            out[37] = ctx[C_CHANCE5]
        elif v == 15:
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
    groups = 0
    singles = 0
    broken = 0
    for rr in range(9):
        g = (after >> (5 * rr)) & 31
        if g != 0:
            groups += 1
            if K.popcount(g) == 1:
                singles += 1
            if (played >> (5 * rr)) & 31:
                broken += 1
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
    the feature count, then :data:`N_FEATURES` weights per player count."""
    if params.shape[0] < 1 + 2 * N_FEATURES or params[0] != N_FEATURES:
        raise ValueError("learned kernel: the parameter array does not hold a model's weights")


@njit(cache=True)
def score_actions(obs, params, buf, scores):
    """Fill ``buf`` with every legal action (bets first, as ``legal_actions`` lists them)
    and ``scores`` with each one's linear score ``features . weights``; return the count.

    ``params`` holds a model (:func:`check_weights`): the feature count, the 2-player
    weights, then the 3-player ones (the row of the game's player count is used). The
    ``learned`` kernel plays the best of these scores; ``mcts`` uses their softmax as
    its root's prior (:func:`strategies.ismcts.root_policy`).
    """
    check_weights(params)
    off = 1 + N_FEATURES * (obs[K.S_NP] - 2)
    # the heuristic draws nothing from its stream
    h = heuristic_act(obs, HEURISTIC_ARRAY, K.new_stream(0), buf)
    n = K.legal_actions(obs, buf, True)
    ctx = context(obs, buf, n)
    f = np.zeros(N_FEATURES)
    for i in range(n):
        action_features(obs, ctx, buf[i], h, f)
        s = 0.0
        for j in range(N_FEATURES):
            s += f[j] * params[off + j]
        scores[i] = s
    return n


@njit(cache=True)
def learned_act(obs, params, rng, buf):
    """The legal action with the highest linear score (:func:`score_actions`).

    Every legal action is scored, bets and gives included (a play at a betting chance
    means "no bet"); ties go to the lowest index in the legal list. The stream ``rng`` is
    not drawn from: the policy is deterministic.
    """
    scores = np.empty(buf.shape[0])
    n = score_actions(obs, params, buf, scores)
    best = 0
    best_score = -np.inf
    for i in range(n):
        if scores[i] > best_score:
            best_score = scores[i]
            best = i
    return buf[best]
