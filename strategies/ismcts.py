"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), compiled.

Every iteration deals the cards the searching seat cannot see (opponents' suit cards
and the Haggis) afresh, consistent with everything public: hand sizes, the face cards
each player still holds, and every card already played. One tree over the searcher's
information set is walked with UCB using availability counts (a child's exploration
term counts the iterations in which its action was legal), grown by one node, and
finished by a random or greedy rollout to the end of the round. Rewards are the round
score margin squashed to [0, 1]; each node keeps the reward of the seat that moved into
it. The move played is the most visited root child. Bets come from the search's
estimate of going out first.

Nodes live in preallocated arrays indexed by integers; all randomness comes from the
splitmix64 stream the runner injects, so a decision depends only on the seed.
"""

from __future__ import annotations

import time

import numpy as np
from numba import objmode

from haggis_sim import kernel as K
from haggis_sim.kernel import njit

from .simple_kernels import MCTS_PARAMS, MCTS_ROLLOUTS, greedy_act

# parameter slots and rollout choices, by name (one definition: simple_kernels)
M_ITERS = MCTS_PARAMS.index("iters")
M_C = MCTS_PARAMS.index("c")
M_ROLLOUT = MCTS_PARAMS.index("rollout")
M_BET = MCTS_PARAMS.index("bet")
M_MS = MCTS_PARAMS.index("ms")
ROLLOUT_RANDOM = MCTS_ROLLOUTS.index("random")
ROLLOUT_GREEDY = MCTS_ROLLOUTS.index("greedy")
HASH_MUL = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64


@njit(cache=True)
def determinize(obs, seat, rng):
    """A full state consistent with ``seat``'s observation, hidden cards dealt at random."""
    st = obs.copy()
    n = obs[K.S_NP]
    nsuits = obs[K.S_NSUITS]
    seen = obs[K.S_HAND + seat] | obs[K.S_TRICK_CARDS]
    for s in range(n):
        seen |= obs[K.S_CAPT + s]
    unseen = np.empty(45, dtype=np.int64)
    k = 0
    for r in range(9):
        for su in range(nsuits):
            bit = r * 5 + su
            if not (seen >> bit) & 1:
                unseen[k] = bit
                k += 1
    for i in range(k - 1, 0, -1):
        j = K.below(rng, i + 1)
        t = unseen[i]
        unseen[i] = unseen[j]
        unseen[j] = t
    pos = 0
    for o in range(n):
        if o == seat:
            continue
        faces = obs[K.S_HAND + o] & ~K.SUIT_ALL
        need = obs[K.S_SIZE + o] - K.popcount(faces)
        h = faces
        for _ in range(need):
            h |= np.int64(1) << unseen[pos]
            pos += 1
        st[K.S_HAND + o] = h
    hag = np.int64(0)
    for i in range(pos, k):
        hag |= np.int64(1) << unseen[i]
    st[K.S_HAGGIS] = hag
    return st


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
def _rollout_reward(st, rng, buf, policy, rewards, no_params):
    while st[K.S_PHASE] != K.PH_ROUND_OVER:
        if policy == ROLLOUT_GREEDY:
            a = greedy_act(st, no_params, rng, buf)
        else:
            k = K.legal_actions(st, buf, False)
            a = buf[K.below(rng, k)]
        K.apply_action(st, a)
    n = st[K.S_NP]
    for s in range(n):
        best_other = -1_000_000
        for o in range(n):
            if o != s:
                best_other = max(best_other, st[K.S_SC_TOTAL + o])
        margin = st[K.S_SC_TOTAL + s] - best_other
        rewards[s] = 0.5 + 0.5 * np.tanh(margin / 60.0)


@njit(cache=True)
def _now():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def search(obs, params, rng, buf):
    """Run the search from ``obs``; return (best root action, P(searcher goes out first))."""
    seat = obs[K.S_TO_ACT]
    iters = max(1, np.int64(params[M_ITERS]))
    c = params[M_C]
    policy = np.int64(params[M_ROLLOUT])
    cap = iters + 2
    action = np.zeros(cap, dtype=np.int64)
    first_child = np.full(cap, -1, dtype=np.int64)
    sibling = np.full(cap, -1, dtype=np.int64)
    mover = np.zeros(cap, dtype=np.int64)
    visits = np.zeros(cap, dtype=np.float64)
    reward = np.zeros(cap, dtype=np.float64)
    avail = np.zeros(cap, dtype=np.float64)
    n_children = np.zeros(cap, dtype=np.int64)
    n_nodes = 1
    # open-addressing table: legal action -> index in buf, stamped per use
    tsize = 1
    while tsize < 2 * buf.shape[0]:
        tsize *= 2
    tkeys = np.zeros(tsize, dtype=np.int64)
    tvals = np.zeros(tsize, dtype=np.int64)
    tstamp = np.zeros(tsize, dtype=np.int64)
    tried = np.zeros(buf.shape[0], dtype=np.int64)
    stamp = 0
    path = np.empty(cap, dtype=np.int64)
    rewards = np.zeros(3, dtype=np.float64)
    no_params = np.zeros(8, dtype=np.float64)
    first_out = 0
    budget = params[M_MS] / 1000.0
    t0 = _now() if budget > 0 else 0.0
    done = 0
    for it in range(iters):
        if budget > 0 and it % 8 == 7 and _now() - t0 > budget:
            break
        done += 1
        st = determinize(obs, seat, rng)
        node = 0
        depth = 0
        path[0] = 0
        while st[K.S_PHASE] != K.PH_ROUND_OVER:
            k = K.legal_actions(st, buf, False)
            stamp += 1
            for i in range(k):
                h = (buf[i] * HASH_MUL) >> 40
                slot = h & (tsize - 1)
                while tstamp[slot] == stamp:
                    slot = (slot + 1) & (tsize - 1)
                tstamp[slot] = stamp
                tkeys[slot] = buf[i]
                tvals[slot] = i
                tried[i] = 0
            # walk the children: mark the legal ones tried, count availability, pick by UCB
            best = -1
            best_score = -1.0
            child = first_child[node]
            while child >= 0:
                a = action[child]
                h = (a * HASH_MUL) >> 40
                slot = h & (tsize - 1)
                idx = -1
                while tstamp[slot] == stamp:
                    if tkeys[slot] == a:
                        idx = slot
                        break
                    slot = (slot + 1) & (tsize - 1)
                if idx >= 0:
                    tried[tvals[idx]] = 1
                    avail[child] += 1.0
                    score = reward[child] / visits[child] + c * np.sqrt(
                        np.log(avail[child]) / visits[child]
                    )
                    if score > best_score:
                        best_score = score
                        best = child
                child = sibling[child]
            untried = 0
            for i in range(k):
                if tried[i] == 0:
                    untried += 1
            # progressive widening: a node may hold 1 + sqrt(visits) children
            room = n_children[node] < 1 + np.sqrt(visits[node]) or best < 0
            if untried > 0 and room and n_nodes < cap:
                leading = st[K.S_TOP] == 0
                a = np.int64(0)
                a_key = 1e18
                for i in range(k):
                    if tried[i] == 0:
                        key = expansion_key(buf[i], leading) + K.uniform(rng)
                        if key < a_key:
                            a_key = key
                            a = buf[i]
                new = n_nodes
                n_nodes += 1
                n_children[node] += 1
                action[new] = a
                mover[new] = st[K.S_TO_ACT]
                sibling[new] = first_child[node]
                first_child[node] = new
                avail[new] = 1.0
                K.apply_action(st, a)
                depth += 1
                path[depth] = new
                break
            if best < 0:
                break
            K.apply_action(st, action[best])
            node = best
            depth += 1
            path[depth] = node
        _rollout_reward(st, rng, buf, policy, rewards, no_params)
        if st[K.S_OUT] == seat:
            first_out += 1
        for d in range(depth, 0, -1):
            nd = path[d]
            visits[nd] += 1.0
            reward[nd] += rewards[mover[nd]]
        visits[0] += 1.0
    best = -1
    child = first_child[0]
    while child >= 0:
        if best < 0 or visits[child] > visits[best]:
            best = child
        child = sibling[child]
    return action[best], first_out / done


@njit(cache=True)
def mcts_act(obs, params, rng, buf):
    seat = obs[K.S_TO_ACT]
    if obs[K.S_PHASE] == K.PH_PLAY and K.legal_actions(obs, buf, False) == 1 and obs[K.S_TOP] != 0:
        if not K.can_bet(obs, seat):
            return np.int64(0)  # only pass is legal
    a, p_first = search(obs, params, rng, buf)
    if K.can_bet(obs, seat):
        mask = obs[K.R_BASE + K.R_BET_MASK]
        threshold = params[M_BET]
        if mask & 4 and p_first >= threshold + 0.15:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | 30
        if mask & 2 and p_first >= threshold:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | 15
        if mask & 1 and p_first >= threshold - 0.1:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | 5
    return a
