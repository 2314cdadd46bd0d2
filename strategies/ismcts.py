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

from .simple_kernels import MCTS_PARAMS, MCTS_ROLLOUTS, greedy_rollout_act

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
    determinize_into(obs, seat, rng, st, np.empty(45, dtype=np.int64))
    return st


@njit(cache=True)
def determinize_into(obs, seat, rng, st, unseen):
    """:func:`determinize` into preallocated ``st`` (obs-sized) and ``unseen`` (45 slots)."""
    st[:] = obs
    n = obs[K.S_NP]
    nsuits = obs[K.S_NSUITS]
    seen = obs[K.S_HAND + seat] | obs[K.S_TRICK_CARDS]
    for s in range(n):
        seen |= obs[K.S_CAPT + s]
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
            a = greedy_rollout_act(st, no_params, rng, buf)
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
def _child_legal(st, a):
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
def _ucb_pick(node, first_child, sibling, visits, reward, avail, c):
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
def _descend(
    st, depth, expanded, path, action, first_child, sibling, mover, visits, reward, avail,
    n_children, ctr, tkeys, tvals, tstamp, tried, rng, buf, c, policy, rewards, no_params, cap,
):  # fmt: skip
    """One iteration below the root's chosen child ``path[depth]``: select (UCB with
    availability), expand one node where progressive widening allows, roll out, back up.

    ``ctr`` holds [nodes in use, hash-table stamp]; the hash table (``tkeys``, ``tvals``,
    ``tstamp``, ``tried``) is returned, grown if a node had more legal actions than fit.
    """
    tsize = tkeys.shape[0]
    node = path[depth]
    while not expanded and depth > 0 and st[K.S_PHASE] != K.PH_ROUND_OVER:
        # walk the children: count availability of the legal ones, pick by UCB
        best = -1
        best_score = -1.0
        n_legal = 0
        child = first_child[node]
        while child >= 0:
            if _child_legal(st, action[child]):
                n_legal += 1
                avail[child] += 1.0
                score = reward[child] / visits[child] + c * np.sqrt(
                    np.log(avail[child]) / visits[child]
                )
                if score > best_score:
                    best_score = score
                    best = child
            child = sibling[child]
        # progressive widening: a node may hold 1 + sqrt(visits) children; only then
        # are the legal actions listed, to find the untried ones
        room = n_children[node] < 1 + np.sqrt(visits[node]) or best < 0
        if room and ctr[0] < cap:
            k = K.legal_actions(st, buf, False)
            if k > n_legal:
                if 2 * k > tsize:
                    while 2 * k > tsize:
                        tsize *= 2
                    tkeys = np.zeros(tsize, dtype=np.int64)
                    tvals = np.zeros(tsize, dtype=np.int64)
                    tstamp = np.zeros(tsize, dtype=np.int64)
                    tried = np.zeros(tsize // 2, dtype=np.int64)
                ctr[1] += 1
                stamp = ctr[1]
                for i in range(k):
                    h = (buf[i] * HASH_MUL) >> 40
                    slot = h & (tsize - 1)
                    while tstamp[slot] == stamp:
                        slot = (slot + 1) & (tsize - 1)
                    tstamp[slot] = stamp
                    tkeys[slot] = buf[i]
                    tvals[slot] = i
                    tried[i] = 0
                child = first_child[node]
                while child >= 0:
                    a = action[child]
                    h = (a * HASH_MUL) >> 40
                    slot = h & (tsize - 1)
                    while tstamp[slot] == stamp:
                        if tkeys[slot] == a:
                            tried[tvals[slot]] = 1
                            break
                        slot = (slot + 1) & (tsize - 1)
                    child = sibling[child]
                leading = st[K.S_TOP] == 0
                a = np.int64(0)
                a_key = 1e18
                for i in range(k):
                    if tried[i] == 0:
                        key = expansion_key(buf[i], leading) + K.uniform(rng)
                        if key < a_key:
                            a_key = key
                            a = buf[i]
                new = ctr[0]
                ctr[0] += 1
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
    for d in range(depth, 0, -1):
        nd = path[d]
        visits[nd] += 1.0
        reward[nd] += rewards[mover[nd]]
    return tkeys, tvals, tstamp, tried


@njit(cache=True)
def _decided(first_child, sibling, visits, remaining):
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


@njit(cache=True)
def search(obs, params, rng, buf, stop_early=False):
    """Run the search from ``obs``; return (best root action, P(searcher goes out first)).

    With ``stop_early`` the search ends as soon as the most visited root child leads the
    runner-up by more visits than iterations remain: it can no longer be overtaken, so
    the action is the one the full budget would choose (the estimate of going out first
    rests on fewer iterations; mcts_act does not stop early when it may bet).

    The root's legal actions and their expansion keys depend only on what the searcher
    sees (its own hand, the trick, the phase), so they are computed once per decision;
    deeper nodes look their legal actions up in a stamped hash table sized on demand.
    """
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
    ctr = np.zeros(2, dtype=np.int64)  # [nodes in use, hash-table stamp]
    ctr[0] = 1
    # the root, constant within the decision
    k0 = K.legal_actions(obs, buf, False)
    root_moves = buf[:k0].copy()
    root_leading = obs[K.S_TOP] == 0
    root_keys = np.empty(k0, dtype=np.float64)
    for i in range(k0):
        root_keys[i] = expansion_key(root_moves[i], root_leading)
    root_tried = np.zeros(k0, dtype=np.int64)
    # open-addressing table: legal action -> index in buf, stamped per use; grown on demand
    tsize = 1024
    tkeys = np.zeros(tsize, dtype=np.int64)
    tvals = np.zeros(tsize, dtype=np.int64)
    tstamp = np.zeros(tsize, dtype=np.int64)
    tried = np.zeros(tsize // 2, dtype=np.int64)
    path = np.empty(cap, dtype=np.int64)
    rewards = np.zeros(3, dtype=np.float64)
    no_params = np.zeros(8, dtype=np.float64)
    st = np.empty_like(obs)
    unseen = np.empty(45, dtype=np.int64)
    first_out = 0
    budget = params[M_MS] / 1000.0
    t0 = _now() if budget > 0 else 0.0
    done = 0
    for it in range(iters):
        if budget > 0 and it % 8 == 7 and _now() - t0 > budget:
            break
        done += 1
        determinize_into(obs, seat, rng, st, unseen)
        depth = 0
        path[0] = 0
        # root step: the same choice as a deeper node's, without regenerating its moves
        best = _ucb_pick(0, first_child, sibling, visits, reward, avail, c)
        room = n_children[0] < 1 + np.sqrt(visits[0]) or best < 0
        expanded = False
        if n_children[0] < k0 and room and ctr[0] < cap:
            a = np.int64(0)
            a_i = -1
            a_key = 1e18
            for i in range(k0):
                if root_tried[i] == 0:
                    key = root_keys[i] + K.uniform(rng)
                    if key < a_key:
                        a_key = key
                        a_i = i
            a = root_moves[a_i]
            root_tried[a_i] = 1
            new = ctr[0]
            ctr[0] += 1
            n_children[0] += 1
            action[new] = a
            mover[new] = seat
            sibling[new] = first_child[0]
            first_child[0] = new
            avail[new] = 1.0
            K.apply_action(st, a)
            depth = 1
            path[1] = new
            expanded = True
        elif best >= 0:
            K.apply_action(st, action[best])
            depth = 1
            path[1] = best
        tkeys, tvals, tstamp, tried = _descend(
            st, depth, expanded, path, action, first_child, sibling, mover, visits, reward,
            avail, n_children, ctr, tkeys, tvals, tstamp, tried, rng, buf, c, policy, rewards,
            no_params, cap,
        )  # fmt: skip
        if st[K.S_OUT] == seat:
            first_out += 1
        visits[0] += 1.0
        if stop_early and _decided(first_child, sibling, visits, iters - done):
            break
    best = -1
    child = first_child[0]
    while child >= 0:
        if best < 0 or visits[child] > visits[best]:
            best = child
        child = sibling[child]
    return action[best], first_out / done


@njit(cache=True)
def analyze_alternatives(obs, moves, groups, seed, c, policy, buf):
    """Score each of ``moves`` (legal at ``obs``) by ISMCTS with forced root children.

    ``groups`` times: deal the hidden cards once (stream ``derive(seed, 2g)``), then for
    every move apply it to a copy of that deal and run one iteration of the search below
    that move's own root child, every move with the same stream ``derive(seed, 2g + 1)``
    (common random numbers). Returns one row per move: sum and sum of squares of the
    acting seat's reward, then of its round score margin over the best other seat, then
    the number of samples.
    """
    seat = obs[K.S_TO_ACT]
    m = moves.shape[0]
    cap = m * (groups + 1) + 2
    action = np.zeros(cap, dtype=np.int64)
    first_child = np.full(cap, -1, dtype=np.int64)
    sibling = np.full(cap, -1, dtype=np.int64)
    mover = np.zeros(cap, dtype=np.int64)
    visits = np.zeros(cap, dtype=np.float64)
    reward = np.zeros(cap, dtype=np.float64)
    avail = np.zeros(cap, dtype=np.float64)
    n_children = np.zeros(cap, dtype=np.int64)
    for j in range(m):
        action[j + 1] = moves[j]
        mover[j + 1] = seat
        avail[j + 1] = 1.0
    n_children[0] = m
    ctr = np.zeros(2, dtype=np.int64)
    ctr[0] = m + 1
    tkeys = np.zeros(1024, dtype=np.int64)
    tvals = np.zeros(1024, dtype=np.int64)
    tstamp = np.zeros(1024, dtype=np.int64)
    tried = np.zeros(512, dtype=np.int64)
    path = np.empty(cap, dtype=np.int64)
    rewards = np.zeros(3, dtype=np.float64)
    no_params = np.zeros(8, dtype=np.float64)
    deal = np.empty_like(obs)
    st = np.empty_like(obs)
    unseen = np.empty(45, dtype=np.int64)
    out = np.zeros((m, 5), dtype=np.float64)
    n = obs[K.S_NP]
    for g in range(groups):
        determinize_into(obs, seat, K.new_stream(K.derive(seed, 2 * g)), deal, unseen)
        for j in range(m):
            st[:] = deal
            K.apply_action(st, moves[j])
            path[0] = 0
            path[1] = j + 1
            rng = K.new_stream(K.derive(seed, 2 * g + 1))
            tkeys, tvals, tstamp, tried = _descend(
                st, 1, False, path, action, first_child, sibling, mover, visits, reward,
                avail, n_children, ctr, tkeys, tvals, tstamp, tried, rng, buf, c, policy,
                rewards, no_params, cap,
            )  # fmt: skip
            best_other = -1_000_000
            for o in range(n):
                if o != seat:
                    best_other = max(best_other, st[K.S_SC_TOTAL + o])
            margin = st[K.S_SC_TOTAL + seat] - best_other
            out[j, 0] += rewards[seat]
            out[j, 1] += rewards[seat] * rewards[seat]
            out[j, 2] += margin
            out[j, 3] += margin * margin
            out[j, 4] += 1.0
    return out


@njit(cache=True)
def mcts_act(obs, params, rng, buf):
    """The search's action; no search when only one action is legal and no bet is open."""
    seat = obs[K.S_TO_ACT]
    may_bet = K.can_bet(obs, seat)
    if not may_bet and K.legal_actions(obs, buf, False) == 1:
        return buf[0]  # forced: a lone pass, play or give
    a, p_first = search(obs, params, rng, buf, not may_bet)
    if may_bet:
        mask = obs[K.R_BASE + K.R_BET_MASK]
        threshold = params[M_BET]
        if mask & 4 and p_first >= threshold + 0.15:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | 30
        if mask & 2 and p_first >= threshold:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | 15
        if mask & 1 and p_first >= threshold - 0.1:
            return (np.int64(K.T_BET) << K.TYPE_SHIFT) | 5
    return a
