"""Compiled decision kernels of the simple built-in strategies: random, greedy, heuristic.

Each kernel reads only the observation array it is given (``haggis_sim.kernel.observe``
output), its float64 parameters and its own splitmix64 stream.
"""

from __future__ import annotations

import numpy as np

from haggis_sim import kernel as K
from haggis_sim.kernel import njit, random_action

# Parameter slots: each kernel's parameter names in the order of its float64 array.
# ``Strategy.param_array`` places every parameter by name through these tuples
# (``strategies.kernels.PARAM_SLOTS``), so the order of a strategy's ``params`` does not
# matter; a parameter without a slot is an error there.
RANDOM_PARAMS = ("bet",)
RANDOM_BET = RANDOM_PARAMS.index("bet")

HEURISTIC_PARAMS = ("bet", "big", "baby", "bomb", "bomb_out", "bomb_give", "wild")
H_BET = HEURISTIC_PARAMS.index("bet")
H_BIG = HEURISTIC_PARAMS.index("big")
H_BABY = HEURISTIC_PARAMS.index("baby")
H_BOMB = HEURISTIC_PARAMS.index("bomb")
H_BOMB_OUT = HEURISTIC_PARAMS.index("bomb_out")
H_BOMB_GIVE = HEURISTIC_PARAMS.index("bomb_give")
H_WILD = HEURISTIC_PARAMS.index("wild")
# values of the ``bomb`` choice parameter (its slot holds the index of the choice)
BOMB_MODES = ("early", "late", "never")
BOMB_EARLY = BOMB_MODES.index("early")
BOMB_LATE = BOMB_MODES.index("late")
BOMB_NEVER = BOMB_MODES.index("never")
# points a face card spent in a bomb costs at ``wild`` = 0 (scaled by 1 - wild): besides its
# card points, a J/Q/K in a bomb is a wild the hand no longer has to complete sets and runs
WILD_SPENT_POINTS = 10.0

# The MCTS kernel's slots and rollout choices (``strategies.ismcts`` derives its M_* and
# ROLLOUT_* constants from these). They live here, not in ``kernels``, because ismcts
# imports this module and ``kernels`` imports ismcts; ``kernels`` re-exports them.
# ``model`` and ``sha`` name the prior's model file; their slots stay 0: the model's
# weights follow the slots (``MctsStrategy.param_array``).
MCTS_PARAMS = (
    "iters", "c", "rollout", "ms", "value", "bets", "prior", "model", "sha", "vmodel", "vsha",
    "mix", "qinit", "horizon", "sure",
)  # fmt: skip
#: how many root moves (those with the highest prior) qinit gives a starting value
MCTS_QINIT_MOVES = 16
MCTS_ROLLOUTS = ("random", "greedy")  # values of ``rollout`` (its slot holds the index)
MCTS_VALUES = ("game", "round", "net")  # values of ``value``
MCTS_BETS = ("search", "never")  # values of ``bets``
MCTS_PRIORS = ("none", "learned")  # values of ``prior``


@njit(cache=True)
def _give_to_lowest_score(obs):
    """Give to the opponent with the fewest game points (first clockwise on ties)."""
    n = obs[K.S_NP]
    me = obs[K.S_TO_ACT]
    best = -1
    for i in range(1, n):
        s = (me + i) % n
        if best < 0 or obs[K.S_SCORE + s] < obs[K.S_SCORE + best]:
            best = s
    return (np.int64(K.T_GIVE) << K.TYPE_SHIFT) | best


@njit(cache=True)
def random_act(obs, params, rng, buf):
    """Uniform over legal actions; when it may bet, it bets with probability ``bet``.

    The engine's :func:`~haggis_sim.kernel.random_action` (the one random player,
    also behind the engine's random game traces), with the bet rate from the parameters.
    """
    return random_action(obs, rng, buf, params[RANDOM_BET])


@njit(cache=True)
def greedy_act(obs, params, rng, buf):
    """The cheapest play that beats; leads its weakest combination; never bets.

    Cheapest: no bomb before any non-bomb, then fewest face cards (wilds kept), then
    lowest rank; leading also prefers more cards at equal rank. Passes when nothing
    beats. Gives bombed tricks and the Haggis to the opponent with the fewest points.
    """
    ph = obs[K.S_PHASE]
    if ph == K.PH_GIVE_TRICK or ph == K.PH_GIVE_HAGGIS:
        return _give_to_lowest_score(obs)
    n = K.legal_actions(obs, buf, False)
    leading = obs[K.S_TOP] == 0
    best = np.int64(0)
    best_key = np.int64(1) << 62
    for i in range(n):
        m = buf[i]
        if m == 0:
            continue
        bomb = 1 if K.move_type(m) == K.T_BOMB else 0
        faces = K.popcount((m >> K.FACE_SHIFT) & 7)
        key = bomb * 1_000_000 + faces * 10_000 + K.move_rank(m) * 100
        if leading:
            key += 50 - K.popcount(m & K.CARDS_MASK)
        if key < best_key:
            best_key = key
            best = m
    return best


@njit(cache=True)
def seen_cards(obs, seat):
    """The cards ``seat`` has seen: its hand, the trick on the table and every captured
    pile. The suit cards not among them are in the other hands or the Haggis."""
    seen = obs[K.S_HAND + seat] | obs[K.S_TRICK_CARDS]
    for s in range(obs[K.S_NP]):
        seen |= obs[K.S_CAPT + s]
    return seen


@njit(cache=True)
def hand_strength(obs, seat):
    """A 0..1 estimate of how well a hand sheds: wilds, high cards, bombs, few rank groups."""
    hand = obs[K.S_HAND + seat]
    suits = hand & K.SUIT_ALL
    faces = K.popcount((hand >> (K.FACE_SHIFT + 3 * seat)) & 7)
    groups = 0
    high = 0
    for r in range(9):
        m = (suits >> (5 * r)) & 31
        if m != 0:
            groups += 1
            if r >= 7:
                high += K.popcount(m)
    bombs = 0
    if (suits >> 5) & 31 and (suits >> 15) & 31 and (suits >> 25) & 31 and (suits >> 35) & 31:
        bombs = 1
    s = 0.1 + 0.1 * faces + 0.04 * high - 0.06 * (groups - 6) + 0.1 * bombs
    return min(1.0, max(0.0, s))


# Under bet_settlement = threshold a bet succeeds when the bettor's round score from going
# out and captured cards reaches its value. The expected such score is read off the hand
# strength, SCORE_PER_STRENGTH * strength - SCORE_OFFSET, and the chance of reaching v is
# logistic in (expected - v) / SCORE_SPREAD: fitted to the heuristic's own rounds under
# `aid` (2 and 3 players, classic card points; 165,000 bettor-rounds).
SCORE_PER_STRENGTH = 65.0
SCORE_OFFSET = 5.0
SCORE_SPREAD = 8.5
BS_THRESHOLD = K.layout.BS_THRESHOLD
R_SETTLEMENT = K.layout.R_SETTLEMENT


@njit(cache=True)
def bet_success_chance(obs, seat, value):
    """The heuristic's estimate of the chance that a bet of ``value`` points succeeds.

    takes_all and split: the bet succeeds when the bettor goes out first, whatever its
    value, so the chance is the hand strength (:func:`hand_strength`), the same for
    every value. threshold: it succeeds when the round score from going out and
    captured cards reaches ``value``, which a middling hand usually does for 5 and
    rarely for 30, so the chance falls with the value (see ``SCORE_PER_STRENGTH``).
    """
    st = hand_strength(obs, seat)
    if obs[K.R_BASE + R_SETTLEMENT] != BS_THRESHOLD:
        return st
    expected = SCORE_PER_STRENGTH * st - SCORE_OFFSET
    return 1.0 / (1.0 + np.exp((value - expected) / SCORE_SPREAD))


@njit(cache=True)
def _bet_choice(obs, params, seat):
    """The points of the largest allowed bet whose success chance reaches its threshold
    (0: no bet).

    Big needs ``big``, Little ``bet``, Baby ``baby``; the chance is
    :func:`bet_success_chance` of the bet's points under the rules (``bet_points``: 30,
    15 and 5 as published), which reads the rules' ``bet_settlement``.
    """
    mask = obs[K.R_BASE + K.R_BET_MASK]
    at = K.R_BASE + K.R_BET_POINTS
    baby, little, big = obs[at], obs[at + 1], obs[at + 2]
    if mask & 4 and bet_success_chance(obs, seat, big) >= params[H_BIG]:
        return big
    if mask & 2 and bet_success_chance(obs, seat, little) >= params[H_BET]:
        return little
    if mask & 1 and bet_success_chance(obs, seat, baby) >= params[H_BABY]:
        return baby
    return 0


@njit(cache=True)
def bomb_cost(obs, params, m):
    """What bomb ``m`` gives away: its own cards' points (under the rules' ``card_points``)
    plus ``WILD_SPENT_POINTS * (1 - wild)`` for each J/Q/K it spends.

    The trick's points are not part of it: a bomb hands the trick to an opponent
    (``bomb_capture``), and the alternative, a pass when nothing else beats, leaves the
    trick to the opponent on top; either way an opponent captures it. What the bomb adds
    to an opponent's pile is its own cards (captured with the trick), and what it takes
    from its own hand is the wilds.
    """
    faces = K.popcount((m >> K.FACE_SHIFT) & 7)
    pts = K.card_points(obs, m & K.CARDS_MASK)
    return pts + (1.0 - params[H_WILD]) * WILD_SPENT_POINTS * faces


@njit(cache=True)
def heuristic_act(obs, params, rng, buf):
    """Shed cheaply, bet by estimated success chance, bomb by policy (early, late, never).

    It bombs only when no other play beats the trick (it passes otherwise). ``early``
    then always bombs; ``late`` bombs when an opponent holds at most ``bomb_out`` cards
    (to stop them going out) or when :func:`bomb_cost` is at most ``bomb_give`` (the lead
    is worth a cheap bomb); ``never`` passes. Of several bombs it plays the cheapest.
    It leads a bomb when only bombs are left (every mode) and goes out with one when it
    can (every mode but ``never``).
    """
    forced = _heuristic_forced(obs, params)
    if forced >= 0:
        return forced
    return heuristic_play(obs, params, buf, K.legal_actions(obs, buf, False))


@njit(cache=True)
def _heuristic_forced(obs, params):
    """:func:`heuristic_act`'s choice where no play is weighed: its give, or the bet it
    declares; -1 otherwise (every action code is at least 0)."""
    ph = obs[K.S_PHASE]
    if ph == K.PH_GIVE_TRICK or ph == K.PH_GIVE_HAGGIS:
        return _give_to_lowest_score(obs)
    seat = obs[K.S_TO_ACT]
    if K.can_bet(obs, seat):
        v = _bet_choice(obs, params, seat)
        if v > 0:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | v
    return np.int64(-1)


@njit(cache=True)
def heuristic_listed(obs, params, buf, n):
    """:func:`heuristic_act`'s choice when ``buf`` already holds the ``n`` legal actions
    as ``legal_actions(obs, buf, True)`` lists them (bets first): a caller that needs
    that list anyway does not have the heuristic generate the plays a second time."""
    forced = _heuristic_forced(obs, params)
    if forced >= 0:
        return forced
    nb = 0
    while nb < n and (buf[nb] >> K.TYPE_SHIFT) == K.T_BET:
        nb += 1
    return heuristic_play(obs, params, buf[nb:], n - nb)


@njit(cache=True)
def heuristic_play(obs, params, buf, n):
    """The heuristic's play (a pass is 0) of the play phase among the ``n`` plays in
    ``buf``, listed as ``legal_actions(obs, buf, False)`` lists them."""
    seat = obs[K.S_TO_ACT]
    n_players = obs[K.S_NP]
    top = obs[K.S_TOP]
    my_size = K.popcount(obs[K.S_HAND + seat])
    min_opp = 99
    for o in range(n_players):
        if o != seat and obs[K.S_SIZE + o] > 0:
            min_opp = min(min_opp, obs[K.S_SIZE + o])
    face_cost = (1.0 - params[H_WILD]) * 12.0 + 1.0
    best = np.int64(0)
    best_key = 1e18
    best_bomb = np.int64(0)
    best_bomb_cost = 1e18
    for i in range(n):
        m = buf[i]
        if m == 0:
            continue
        size = K.popcount(m & K.CARDS_MASK)
        is_bomb = K.move_type(m) == K.T_BOMB
        if size == my_size and not (is_bomb and params[H_BOMB] == BOMB_NEVER):
            return m  # going out beats everything (with a bomb unless bomb=never)
        if is_bomb:
            c = bomb_cost(obs, params, m) * 10.0 + K.move_rank(m) * 0.1
            if c < best_bomb_cost:
                best_bomb_cost = c
                best_bomb = m
            continue
        faces = K.popcount((m >> K.FACE_SHIFT) & 7)
        key = K.move_rank(m) * 10.0 + faces * face_cost * 10.0
        if top == 0:
            key -= size * 7.0
            if min_opp <= 2 and size > min_opp:
                key -= 100.0  # lead what a nearly-out opponent cannot follow
        if key < best_key:
            best_key = key
            best = m
    if best != 0:
        return best
    if best_bomb == 0:
        return best  # pass
    mode = params[H_BOMB]
    if top == 0:
        return best_bomb  # only bombs left to lead
    if mode == BOMB_NEVER:
        return np.int64(0)
    if mode == BOMB_EARLY or min_opp <= params[H_BOMB_OUT]:
        return best_bomb  # early: always; late: to stop an opponent about to go out
    if bomb_cost(obs, params, best_bomb) <= params[H_BOMB_GIVE]:
        return best_bomb  # late: cheap enough to buy the lead
    return np.int64(0)


@njit(cache=True)
def greedy_rollout_act(obs, params, rng, buf):
    """:func:`greedy_act`'s exact choice, found without listing every legal move.

    For rollouts, where greedy's full enumeration (~500 moves for a full hand's lead)
    was most of MCTS's time. Leading with suit cards, greedy's lowest key is unique: every
    suit card of the hand's lowest rank as one set (no wild, lowest rank, most cards).
    Following a set of width w, it is the numerically highest w suit cards of the lowest
    rank above the top that holds w of them (the first such set in the generator's
    order). Everything else (faces only, sequences, nothing without wilds beats) falls
    back to :func:`greedy_act`. A test checks the two agree on many positions.
    """
    ph = obs[K.S_PHASE]
    if ph != K.PH_PLAY:
        return greedy_act(obs, params, rng, buf)
    seat = obs[K.S_TO_ACT]
    suits = obs[K.S_HAND + seat] & K.SUIT_ALL
    top = obs[K.S_TOP]
    if top == 0:
        if suits == 0:
            return greedy_act(obs, params, rng, buf)
        r = K.lowest_bit(suits) // 5
        rm = (suits >> (5 * r)) & 31
        return K.pack(K.T_SET, K.popcount(rm), 1, r + 2, rm << (5 * r))
    if K.move_type(top) == K.T_SET:
        w = K.move_width(top)
        for rank in range(K.move_rank(top) + 1, 11):
            rm = (suits >> (5 * (rank - 2))) & 31
            if K.popcount(rm) >= w:
                t = rm
                while K.popcount(t) > w:
                    t &= t - 1  # drop the lowest suit until w remain: the highest w
                return K.pack(K.T_SET, w, 1, rank, t << (5 * (rank - 2)))
    return greedy_act(obs, params, rng, buf)
