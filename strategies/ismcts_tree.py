"""The ISMCTS search tree (compiled): node storage, selection by UCB with availability
counts, the legality of a stored child in the current determinization, and the order in
which untried actions are expanded (see :mod:`strategies.ismcts` for the search itself).

Nodes live in preallocated arrays indexed by integers, passed as plain arrays (not
bundled in a tuple: the search's hot loop keeps their pointers in registers that way).
Node 0 is the root; a node's children form a linked list through ``first_child`` and
``sibling``, newest first.
"""

from __future__ import annotations

import numpy as np

from haggis_sim import kernel as K
from haggis_sim.kernel import njit

HASH_MUL = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64
# Entries of the per-search pool caching the searcher's legal actions at its tree nodes
# (a full hand's lead is ~500); when it is full, further nodes list their actions afresh.
POOL_SIZE = 32_768


@njit(cache=True)
def expansion_key(m, leading):
    """Order in which untried actions are expanded: cheap plays first, bombs last."""
    if m == 0:
        return 50_000.0
    if K.move_type(m) == K.T_BOMB:
        return 1_000_000.0 + K.move_rank(m)
    faces = K.popcount((m >> K.FACE_SHIFT) & 7)
    key = faces * 100_000.0 + K.move_rank(m) * 100.0
    if leading:
        key -= K.popcount(m & K.CARDS_MASK) * 70.0
    return key


@njit(cache=True)
def child_legal(st, a):
    """Whether ``a``, a move once listed by ``legal_actions`` at this tree node, is legal now.

    Equal to ``a`` being in ``legal_actions(st, buf, False)``: the generator lists one
    canonical reading per card set, and ``a`` is that reading, so it is listed exactly when
    its cards are in the mover's hand and it beats the top (a pass: when following; a
    give: in a give phase, to another seat).
    """
    ph = st[K.S_PHASE]
    t = K.move_type(a)
    if t == K.T_GIVE:
        return (ph == K.PH_GIVE_TRICK or ph == K.PH_GIVE_HAGGIS) and (a & 7) != st[K.S_TO_ACT]
    if ph != K.PH_PLAY:
        return False
    if a == 0:
        return st[K.S_TOP] != 0
    seat = st[K.S_TO_ACT]
    hand = st[K.S_HAND + seat]
    cards = a & K.CARDS_MASK
    if (cards & K.SUIT_ALL) & ~hand:
        return False
    if ((cards >> K.FACE_SHIFT) & 7) & ~((hand >> (K.FACE_SHIFT + 3 * seat)) & 7):
        return False
    return K.beats(a, st[K.S_TOP])


@njit(cache=True)
def ucb_pick(node, first_child, sibling, visits, reward, avail, c):
    """At the root (every child legal in every determinization): count availability, pick by UCB."""
    best = -1
    best_score = -1.0
    child = first_child[node]
    while child >= 0:
        avail[child] += 1.0
        score = reward[child] / visits[child] + c * np.sqrt(np.log(avail[child]) / visits[child])
        if score > best_score:
            best_score = score
            best = child
        child = sibling[child]
    return best


@njit(cache=True)
def pick_untried(moves, tried, leading, rng):
    """Index of the untried move (``tried[i] == 0``) to expand next: the lowest
    :func:`expansion_key`, ties broken by one uniform draw per untried move, in order."""
    a_i = -1
    a_key = 1e18
    for i in range(moves.shape[0]):
        if tried[i] == 0:
            key = expansion_key(moves[i], leading) + K.uniform(rng)
            if key < a_key:
                a_key = key
                a_i = i
    return a_i


@njit(cache=True)
def new_tree(cap):
    """The node arrays of a search tree of ``cap`` nodes, all empty: action, first child,
    next sibling, mover, visits, reward sum, availability, child count, and where the
    node's listed legal actions start in the pool (-1: not listed)."""
    return (
        np.zeros(cap, dtype=np.int64),
        np.full(cap, -1, dtype=np.int64),
        np.full(cap, -1, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap, dtype=np.float64),
        np.zeros(cap, dtype=np.float64),
        np.zeros(cap, dtype=np.float64),
        np.zeros(cap, dtype=np.int64),
        np.full(cap, -1, dtype=np.int64),
    )


@njit(cache=True)
def add_child(st, node, a, ctr, n_children, action, mover, sibling, first_child, avail):
    """Make ``a`` a new child of ``node`` (the tree's next free slot) and play it in ``st``."""
    new = ctr[0]
    ctr[0] += 1
    n_children[node] += 1
    action[new] = a
    mover[new] = st[K.S_TO_ACT]
    sibling[new] = first_child[node]
    first_child[node] = new
    avail[new] = 1.0
    K.apply_action(st, a)


@njit(cache=True)
def decided(first_child, sibling, visits, remaining):
    """Whether the root's most visited child leads every other by more than ``remaining``."""
    top = 0.0
    second = 0.0
    child = first_child[0]
    while child >= 0:
        v = visits[child]
        if v > top:
            second = top
            top = v
        elif v > second:
            second = v
        child = sibling[child]
    return top - second > remaining
