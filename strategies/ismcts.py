"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), compiled.

Every iteration deals the cards the searching seat cannot see (opponents' suit cards
and the Haggis) afresh, consistent with everything public: hand sizes, the face cards
each player still holds, and every card already played. One tree over the searcher's
information set is walked with UCB using availability counts (a child's exploration
term counts the iterations in which its action was legal), grown by one node, and
finished by a random or greedy rollout to the end of the round. At the root, by default
(``prior=learned``), every legal play is a candidate from the first iteration and the
next one to search is chosen by PUCT (Silver et al. 2017) with the softmax of the
shipped ``learned`` model's scores as prior (:func:`root_policy`): the budget goes to
the moves a good player would consider, so 64 iterations play stronger than 200
without it (docs/performance.md); ``prior=none`` is UCB with progressive widening there
too. The reward of a rollout
is, with ``value=game``, each seat's estimated chance of winning the *game* from
the game totals after the round (:func:`game_values`); with ``value=round`` it is the
round score margin squashed to [0, 1]. With 2 players the two win equally often (3,000
games head to head); with 3 the game value wins far more (docs/models.md, *How
the search was built*). With ``value=net`` (the default) no rollout is needed: the leaf
is scored by a learned value network over what each seat sees of it, trained on the
search's own self-play (:mod:`strategies.value_features`); with ``mix`` below 1 the
leaf's reward is ``mix`` times that estimate plus ``1 - mix`` times a rollout's game
value (AlphaGo's mixed leaf evaluation, Silver et al. 2016); with ``horizon`` above 0
that rollout stops after ``horizon`` moves and is valued by the network where it stopped
(a truncated rollout). With ``qinit`` above 0 (and the value network and the prior),
each of the root's likeliest moves starts with ``qinit`` virtual visits at the network's
estimate of the position after it, as the searcher sees it (:func:`root_values`), so a
small budget is not spent confirming what the value already says (docs/models.md
measures it). With ``sure`` above 0 (and the prior), a decision whose prior gives one
move at least that probability plays it without searching: the iterations go to the
decisions the prior is unsure of. Each node keeps the reward of
the seat that moved into it. The move played is the most visited root child. A bet is
chosen by scoring every bet option the rules allow, and not betting, with forced root
children (:func:`choose_bet`): the rollouts (or the leaf value, which sees the bets)
settle the bets under the rules in force.

Nodes live in preallocated arrays indexed by integers; all randomness comes from the
splitmix64 stream the runner injects, so a decision depends only on the seed.
"""

from __future__ import annotations

import time

import numpy as np
from numba import objmode

from haggis_sim import kernel as K
from haggis_sim.kernel import njit

from .ismcts_tree import (
    HASH_MUL,
    POOL_SIZE,
    add_child,
    child_legal,
    decided,
    expansion_key,
    new_tree,
    pick_untried,
    ucb_pick,
)
from .ismcts_values import ROLLOUT_GREEDY as ROLLOUT_GREEDY
from .ismcts_values import ROLLOUT_RANDOM as ROLLOUT_RANDOM
from .ismcts_values import VALUE_GAME as VALUE_GAME
from .ismcts_values import VALUE_NET, determinize_into, rollout_reward
from .ismcts_values import VALUE_ROUND as VALUE_ROUND
from .ismcts_values import determinize as determinize
from .ismcts_values import game_values as game_values
from .ismcts_values import round_values as round_values
from .learned_features import score_actions
from .network import layer, layer_score
from .simple_kernels import MCTS_BETS, MCTS_PARAMS, MCTS_PRIORS, MCTS_QINIT_MOVES
from .value_features import N_VALUE_FEATURES, value_features, value_scratch

# parameter slots and rollout choices, by name (one definition: simple_kernels)
M_ITERS = MCTS_PARAMS.index("iters")
M_C = MCTS_PARAMS.index("c")
M_ROLLOUT = MCTS_PARAMS.index("rollout")
M_MS = MCTS_PARAMS.index("ms")
M_VALUE = MCTS_PARAMS.index("value")
M_BETS = MCTS_PARAMS.index("bets")
M_PRIOR = MCTS_PARAMS.index("prior")
M_MODEL = MCTS_PARAMS.index("model")  # free text: the slot stays 0 (the weights follow)
M_SHA = MCTS_PARAMS.index("sha")  # free text: the slot stays 0
M_VMODEL = MCTS_PARAMS.index("vmodel")  # free text: the slot stays 0 (the weights follow)
M_VSHA = MCTS_PARAMS.index("vsha")  # free text: the slot stays 0
M_MIX = MCTS_PARAMS.index("mix")
M_QINIT = MCTS_PARAMS.index("qinit")
M_HORIZON = MCTS_PARAMS.index("horizon")
M_SURE = MCTS_PARAMS.index("sure")
# After the named slots: the length of the value model's parameter array (0 unless
# value=net), that array (value_features.value_logit), then, with prior=learned, the
# prior model's parameter array (learned_features.score_actions); see value_params and
# prior_params.
VALUE_BASE = len(MCTS_PARAMS)
BETS_SEARCH = MCTS_BETS.index("search")
BETS_NEVER = MCTS_BETS.index("never")
PRIOR_NONE = MCTS_PRIORS.index("none")
PRIOR_LEARNED = MCTS_PRIORS.index("learned")
# A root alternative of analyze_alternatives that changes nothing: "do not bet", below which
# the acting seat's own next decision (its play) is searched.
KEEP = np.int64(-1)


@njit(cache=True)
def value_params(params):
    """The value model's parameter array within an mcts parameter array (empty unless
    ``value=net``)."""
    if params.shape[0] <= VALUE_BASE:
        return params[:0]
    n = np.int64(params[VALUE_BASE])
    return params[VALUE_BASE + 1 : VALUE_BASE + 1 + n]


@njit(cache=True)
def prior_params(params):
    """The prior model's parameter array within an mcts parameter array (with
    ``prior=learned``; whatever follows the value model otherwise)."""
    if params.shape[0] <= VALUE_BASE:
        return params[:0]
    return params[VALUE_BASE + 1 + np.int64(params[VALUE_BASE]) :]


@njit(cache=True)
def _now():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def root_policy(obs, model, moves):
    """The prior of each root move: the softmax of the learned model's scores.

    ``model`` is a learned model's parameter array (the feature count, then the weights);
    ``moves`` are plays and passes legal at ``obs`` (``legal_actions`` without bets), which
    the model scores after the bets it lists first. Computed from the observation only.
    """
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    scores = np.empty(K.MAX_MOVES, dtype=np.float64)
    n = score_actions(obs, model, buf, scores)
    k = moves.shape[0]
    first = n - k  # the bets listed before the plays
    top = -np.inf
    for i in range(k):
        if buf[first + i] != moves[i]:
            raise ValueError("root_policy: the moves are not the legal plays of the observation")
        top = max(top, scores[first + i])
    prior = np.empty(k, dtype=np.float64)
    total = 0.0
    for i in range(k):
        prior[i] = np.exp(scores[first + i] - top)
        total += prior[i]
    return prior / total


@njit(cache=True)
def _puct_pick(root_child, prior, visits, reward, root_sum, c, q0, n0):
    """Index of the root move to search next, by PUCT (Silver et al. 2017):
    ``Q + c * prior * sqrt(N) / (1 + n)``, ``Q`` a move's mean reward, or the root's mean
    reward so far while it is unvisited (``root_sum`` over ``visits[0]`` iterations).
    A move with ``n0[i] > 0`` virtual visits (``qinit``) starts from its estimate
    ``q0[i]``: ``Q = (reward + n0 q0) / (n + n0)``, and ``q0[i]`` while unvisited.
    Ties go to the lowest index."""
    n_root = visits[0]
    fpu = root_sum / n_root if n_root > 0 else 0.5
    scale = c * np.sqrt(max(n_root, 1.0))
    best = 0
    best_score = -np.inf
    for i in range(root_child.shape[0]):
        ch = root_child[i]
        if n0[i] > 0:
            if ch >= 0:
                q = (reward[ch] + n0[i] * q0[i]) / (visits[ch] + n0[i])
                score = q + scale * prior[i] / (1.0 + visits[ch])
            else:
                score = q0[i] + scale * prior[i]
        elif ch >= 0:
            score = reward[ch] / visits[ch] + scale * prior[i] / (1.0 + visits[ch])
        else:
            score = fpu + scale * prior[i]
        if score > best_score:
            best_score = score
            best = i
    return best


@njit(cache=True)
def root_values(obs, moves, prior, vparams, scratch, rng, unseen, deal, st, out):
    """The value model's estimate of the position after each of the root ``moves`` with
    the :data:`~strategies.simple_kernels.MCTS_QINIT_MOVES` highest ``prior`` (ties
    included), as the acting seat sees it: ``out[i]``, and the mask of the moves scored
    (1.0, else 0.0) as the return value.

    The moves are applied to one determinization (``rng``), so the engine moves on as
    in a real deal, but the estimate is the sigmoid of the network over the acting seat's
    own features (:func:`~strategies.value_features.value_features`), which read its own
    hand and public information only; a move that ends the round is valued as the
    finished round (``game``) of that deal. ``scratch`` is :func:`value_scratch`'s buffer,
    ``unseen``, ``deal`` and ``st`` scratch as for :func:`determinize_into`.
    """
    seat = obs[K.S_TO_ACT]
    n = obs[K.S_NP]
    k = moves.shape[0]
    scored = np.zeros(k, dtype=np.float64)
    cut = -1.0
    if k > MCTS_QINIT_MOVES:
        cut = np.sort(prior)[k - MCTS_QINIT_MOVES]
    off, w_in, b_in, w_out = layer(vparams, n)
    x = scratch[:N_VALUE_FEATURES]
    act = scratch[N_VALUE_FEATURES:]
    finished = np.zeros(3, dtype=np.float64)
    determinize_into(obs, seat, rng, deal, unseen)
    for i in range(k):
        if prior[i] < cut:
            continue
        scored[i] = 1.0
        st[:] = deal
        K.apply_action(st, moves[i])
        if st[K.S_PHASE] == K.PH_ROUND_OVER:
            round_values(st, VALUE_GAME, finished)
            out[i] = finished[seat]
            continue
        for s in range(n):
            st[K.S_SIZE + s] = K.popcount(st[K.S_HAND + s])
        value_features(st, seat, x)
        out[i] = 1.0 / (1.0 + np.exp(-layer_score(x, vparams, off, w_in, b_in, w_out, act)))
    return scored


@njit(cache=True)
def _descend(
    st, depth, expanded, path, tree, table, ctr, pool, ptried, rng, buf, rewards, settings
):
    """One iteration below the root's chosen child ``path[depth]``: select (UCB with
    availability), expand one node where progressive widening allows, roll out, back up.

    ``tree`` is :func:`new_tree`'s tuple of node arrays; ``table`` the hash table
    (``tkeys``, ``tvals``, ``tstamp``, ``tried``), returned, grown if a node had more
    legal actions than fit; ``settings`` is (``c``, rollout ``policy``, ``value``,
    ``no_params``, node ``cap``, searcher ``seat``, the value model's array, its
    scratch (:func:`~strategies.value_features.value_scratch`) and the value's weight
    ``mix`` against a rollout, and the rollout's ``horizon``). The bundles are unpacked
    into locals here, once per iteration, and the hot helpers get plain arrays: reading
    the arrays out of a tuple inside the loops cost a quarter of the search's time.
    ``ctr`` holds [nodes in use, hash-table stamp, pool entries in use]. A node where the
    searcher ``seat`` is to act has the same legal actions in every determinization (its
    own hand and the public path decide them), so they are listed once into ``pool``
    (from ``lstart[node]``, with a tried flag each in ``ptried``) while the pool has room;
    other nodes list them afresh each time.
    """
    action, first_child, sibling, mover, visits, reward, avail, n_children, lstart = tree
    tkeys, tvals, tstamp, tried = table
    c, policy, value, no_params, cap, seat, vparams, x, mix, horizon = settings
    tsize = tkeys.shape[0]
    node = path[depth]
    while not expanded and depth > 0 and st[K.S_PHASE] != K.PH_ROUND_OVER:
        # walk the children: count availability of the legal ones, pick by UCB
        best = -1
        best_score = -1.0
        n_legal = 0
        child = first_child[node]
        while child >= 0:
            if child_legal(st, action[child]):
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
            base = -1
            if st[K.S_TO_ACT] == seat:
                base = lstart[node]
                if base < 0:
                    k = K.legal_actions(st, buf, False)
                    if ctr[2] + k + 1 <= pool.shape[0]:
                        base = ctr[2]
                        ctr[2] += k + 1
                        lstart[node] = base
                        for i in range(k):
                            pool[base + i] = buf[i]
                            ptried[base + i] = 0
                        child = first_child[node]
                        while child >= 0:
                            for i in range(k):
                                if pool[base + i] == action[child]:
                                    ptried[base + i] = 1
                            child = sibling[child]
                        ptried[base + k] = -1  # end of this node's list
            if base >= 0:
                k = 0
                while ptried[base + k] >= 0:
                    k += 1
                if k > n_legal:
                    leading = st[K.S_TOP] == 0
                    a_i = pick_untried(pool[base : base + k], ptried[base : base + k], leading, rng)
                    ptried[base + a_i] = 1
                    add_child(st, node, pool[base + a_i], ctr, n_children, action, mover,
                               sibling, first_child, avail)  # fmt: skip
                    depth += 1
                    path[depth] = ctr[0] - 1
                    break
            else:
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
                    a = buf[pick_untried(buf[:k], tried[:k], leading, rng)]
                    add_child(st, node, a, ctr, n_children, action, mover, sibling,
                               first_child, avail)  # fmt: skip
                    depth += 1
                    path[depth] = ctr[0] - 1
                    break
        if best < 0:
            break
        K.apply_action(st, action[best])
        node = best
        depth += 1
        path[depth] = node
    rollout_reward(st, rng, buf, policy, value, rewards, no_params, vparams, x, mix, horizon)
    for d in range(depth, 0, -1):
        nd = path[d]
        visits[nd] += 1.0
        reward[nd] += rewards[mover[nd]]
    return tkeys, tvals, tstamp, tried


@njit(cache=True)
def root_buffers(params):
    """Empty arrays for a search's root children and their visit counts: ``iters`` + 2
    slots each, room for every child :func:`search_root` can make."""
    cap = max(1, np.int64(params[M_ITERS])) + 2
    return np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.float64)


@njit(cache=True)
def search(obs, params, rng, buf, stop_early=False):
    """Run the search from ``obs``; return the most visited root action (see
    :func:`search_root`)."""
    moves, visits = root_buffers(params)
    n = search_root(obs, params, rng, buf, stop_early, moves, visits)
    return moves[np.argmax(visits[:n])]


@njit(cache=True)
def search_root(obs, params, rng, buf, stop_early, out_moves, out_visits):
    """Run the search from ``obs``; write the root's children, newest first, and their
    visit counts into ``out_moves`` and ``out_visits`` (``iters`` + 2 slots) and return
    how many there are. The first most visited of them is the search's move.

    With ``stop_early`` the search ends as soon as the most visited root child leads the
    runner-up by more visits than iterations remain: it can no longer be overtaken, so
    the action is the one the full budget would choose.

    The root's legal actions and their expansion keys depend only on what the searcher
    sees (its own hand, the trick, the phase), so they are computed once per decision;
    deeper nodes look their legal actions up in a stamped hash table sized on demand.
    With ``prior=learned`` the root's child is chosen by :func:`_puct_pick` over all of
    its legal moves (the model's weights: :func:`prior_params`), with ``qinit`` and
    ``value=net`` starting from :func:`root_values`; with ``sure`` above 0 and a prior
    whose favourite has at least that probability, there is no search: the favourite is
    the root's one child, with one visit, and no random number is drawn.
    """
    seat = obs[K.S_TO_ACT]
    iters = max(1, np.int64(params[M_ITERS]))
    c = params[M_C]
    policy = np.int64(params[M_ROLLOUT])
    value = np.int64(params[M_VALUE])
    cap = iters + 2
    tree = new_tree(cap)
    action, first_child, sibling, mover, visits, reward, avail, n_children, lstart = tree
    ctr = np.zeros(3, dtype=np.int64)  # [nodes in use, hash-table stamp, pool in use]
    pool = np.empty(POOL_SIZE, dtype=np.int64)
    ptried = np.empty(POOL_SIZE, dtype=np.int64)
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
    table = (
        np.zeros(tsize, dtype=np.int64),
        np.zeros(tsize, dtype=np.int64),
        np.zeros(tsize, dtype=np.int64),
        np.zeros(tsize // 2, dtype=np.int64),
    )
    path = np.empty(cap, dtype=np.int64)
    rewards = np.zeros(3, dtype=np.float64)
    no_params = np.zeros(8, dtype=np.float64)
    vparams = value_params(params)
    scratch = value_scratch(vparams)
    horizon = np.int64(params[M_HORIZON])
    settings = (c, policy, value, no_params, cap, seat, vparams, scratch, params[M_MIX], horizon)
    st = np.empty_like(obs)
    unseen = np.empty(45, dtype=np.int64)
    budget = params[M_MS] / 1000.0
    t0 = _now() if budget > 0 else 0.0
    done = 0
    use_prior = params[M_PRIOR] == PRIOR_LEARNED
    if use_prior:
        root_prior = root_policy(obs, prior_params(params), root_moves)
    else:
        root_prior = np.zeros(0, dtype=np.float64)
    root_child = np.full(k0, -1, dtype=np.int64)
    root_sum = 0.0
    root_q = np.zeros(k0, dtype=np.float64)
    root_n = np.zeros(k0, dtype=np.float64)  # virtual visits at root_q (qinit)
    if use_prior and k0 > 1 and params[M_SURE] > 0:
        top = np.argmax(root_prior)  # the first of equals
        if root_prior[top] >= params[M_SURE]:
            # sure: the prior's favourite is played unsearched, as a root with one visit
            out_moves[0] = root_moves[top]
            out_visits[0] = 1.0
            return 1
    if use_prior and params[M_QINIT] > 0 and value == VALUE_NET:
        scored = root_values(obs, root_moves, root_prior, vparams, scratch, rng, unseen,
                             st.copy(), st, root_q)  # fmt: skip
        root_n = scored * params[M_QINIT]
    for it in range(iters):
        if budget > 0 and it % 8 == 7 and _now() - t0 > budget:
            break
        done += 1
        determinize_into(obs, seat, rng, st, unseen)
        depth = 0
        path[0] = 0
        if use_prior:
            # every root move is a candidate from the start, ranked by PUCT with the prior
            i = _puct_pick(root_child, root_prior, visits, reward, root_sum, c, root_q, root_n)
            expanded = root_child[i] < 0
            if expanded:
                add_child(st, 0, root_moves[i], ctr, n_children, action, mover, sibling,
                           first_child, avail)  # fmt: skip
                root_child[i] = ctr[0] - 1
            else:
                K.apply_action(st, root_moves[i])
            depth = 1
            path[1] = root_child[i]
        else:
            # the same choice as a deeper node's, without regenerating the root's moves
            best = ucb_pick(0, first_child, sibling, visits, reward, avail, c)
            room = n_children[0] < 1 + np.sqrt(visits[0]) or best < 0
            expanded = False
            if n_children[0] < k0 and room and ctr[0] < cap:
                a_i = -1
                a_key = 1e18
                for i in range(k0):
                    if root_tried[i] == 0:
                        key = root_keys[i] + K.uniform(rng)
                        if key < a_key:
                            a_key = key
                            a_i = i
                root_tried[a_i] = 1
                add_child(st, 0, root_moves[a_i], ctr, n_children, action, mover, sibling,
                           first_child, avail)  # fmt: skip
                depth = 1
                path[1] = ctr[0] - 1
                expanded = True
            elif best >= 0:
                K.apply_action(st, action[best])
                depth = 1
                path[1] = best
        table = _descend(
            st, depth, expanded, path, tree, table, ctr, pool, ptried, rng, buf, rewards, settings
        )
        root_sum += rewards[seat]
        visits[0] += 1.0
        if stop_early and decided(first_child, sibling, visits, iters - done):
            break
    n = 0
    child = first_child[0]
    while child >= 0:
        out_moves[n] = action[child]
        out_visits[n] = visits[child]
        n += 1
        child = sibling[child]
    return n


@njit(cache=True)
def analyze_alternatives(obs, moves, groups, seed, c, policy, value, buf, vparams, mix, horizon):
    """Score each of ``moves`` (legal at ``obs``) by ISMCTS with forced root children.

    ``groups`` times: deal the hidden cards once (stream ``derive(seed, 2g)``), then for
    every move apply it to a copy of that deal and run one iteration of the search below
    that move's own root child, every move with the same stream ``derive(seed, 2g + 1)``
    (common random numbers). A move ``KEEP`` (-1) applies nothing: below it the acting
    seat's own decision is searched, which scores "do not bet" against the bets.
    ``value`` is the reward (:func:`round_values`; with ``value=net`` the value model's
    array ``vparams`` at the leaves, weighted ``mix`` against a rollout of at most
    ``horizon`` moves, 0: to the end of the round). Returns one row
    per move: sum and sum of squares of the acting seat's reward, then of its round score
    margin over the best other seat, then the number of samples (columns 0-4); then (5)
    the number of samples in which the acting seat went out first (the shepherd), and
    (6, 7) the sums of squared differences of its reward and margin from the first move's
    on the same deal, so the standard error of a difference between alternatives is exact
    under common random numbers (the first move's row holds zeros there).
    """
    seat = obs[K.S_TO_ACT]
    m = moves.shape[0]
    cap = m * (groups + 1) + 2
    tree = new_tree(cap)
    action, first_child, sibling, mover, visits, reward, avail, n_children, lstart = tree
    for j in range(m):
        action[j + 1] = moves[j]
        mover[j + 1] = seat
        avail[j + 1] = 1.0
    n_children[0] = m
    ctr = np.zeros(3, dtype=np.int64)
    pool = np.empty(POOL_SIZE, dtype=np.int64)
    ptried = np.empty(POOL_SIZE, dtype=np.int64)
    ctr[0] = m + 1
    table = (
        np.zeros(1024, dtype=np.int64),
        np.zeros(1024, dtype=np.int64),
        np.zeros(1024, dtype=np.int64),
        np.zeros(512, dtype=np.int64),
    )
    path = np.empty(cap, dtype=np.int64)
    rewards = np.zeros(3, dtype=np.float64)
    no_params = np.zeros(8, dtype=np.float64)
    scratch = value_scratch(vparams)
    settings = (c, policy, value, no_params, cap, seat, vparams, scratch, mix, horizon)
    deal = np.empty_like(obs)
    st = np.empty_like(obs)
    unseen = np.empty(45, dtype=np.int64)
    out = np.zeros((m, 8), dtype=np.float64)
    n = obs[K.S_NP]
    reward0 = 0.0
    margin0 = 0.0
    for g in range(groups):
        determinize_into(obs, seat, K.new_stream(K.derive(seed, 2 * g)), deal, unseen)
        for j in range(m):
            st[:] = deal
            if moves[j] != KEEP:
                K.apply_action(st, moves[j])
            path[0] = 0
            path[1] = j + 1
            rng = K.new_stream(K.derive(seed, 2 * g + 1))
            table = _descend(
                st, 1, False, path, tree, table, ctr, pool, ptried, rng, buf, rewards, settings
            )
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
            if st[K.S_OUT] == seat:
                out[j, 5] += 1.0
            if j == 0:
                reward0 = rewards[seat]
                margin0 = float(margin)
            else:
                out[j, 6] += (rewards[seat] - reward0) ** 2
                out[j, 7] += (margin - margin0) ** 2
    return out


@njit(cache=True)
def choose_bet(obs, params, rng, buf):
    """The bet to declare now (0: none), by the value of each option under the rules.

    Not betting and every bet the rules allow (at the rules' ``bet_points``) are scored
    as forced root children of one search (:func:`analyze_alternatives`, ``iters``
    iterations shared among the options, the same deals and streams for each); the
    rollouts settle bets by the rules in force (``bet_settlement``), so the threshold rule
    is weighed as it scores. A bet is declared only when its mean reward is higher than
    not betting's.
    """
    mask = obs[K.R_BASE + K.R_BET_MASK]
    opts = np.empty(4, dtype=np.int64)
    opts[0] = KEEP
    n = 1
    for i in range(3):
        if (mask >> i) & 1:
            opts[n] = (np.int64(K.T_BET) << K.TYPE_SHIFT) | obs[K.R_BASE + K.R_BET_POINTS + i]
            n += 1
    groups = max(1, np.int64(params[M_ITERS]) // n)
    seed = np.int64(K.next_u64(rng) >> np.uint64(1))
    sums = analyze_alternatives(
        obs, opts[:n], groups, seed, params[M_C], np.int64(params[M_ROLLOUT]),
        np.int64(params[M_VALUE]), buf, value_params(params), params[M_MIX],
        np.int64(params[M_HORIZON]),
    )  # fmt: skip
    best = 0
    for j in range(1, n):
        if sums[j, 0] > sums[best, 0]:
            best = j
    return 0 if best == 0 else opts[best]


# inlined into its callers: a function compiled on its own re-optimises the whole search
# it calls (seconds of a first run's compile)
@njit(cache=True, inline="always")
def mcts_decide(obs, params, rng, buf, out_moves, out_visits):
    """The search's action, and how many root children the play search left in
    ``out_moves``/``out_visits`` (:func:`search_root`; 0 when the action is a bet or
    forced, with no play search). Same action and random draws as :func:`mcts_act`:
    training records the visit distribution of the very decisions the strategy makes.
    """
    seat = obs[K.S_TO_ACT]
    if K.can_bet(obs, seat) and params[M_BETS] == BETS_SEARCH:
        bet = choose_bet(obs, params, rng, buf)
        if bet != 0:
            return bet, 0
    if K.legal_actions(obs, buf, False) == 1:
        return buf[0], 0  # forced: a lone pass, play or give
    n = search_root(obs, params, rng, buf, True, out_moves, out_visits)
    return out_moves[np.argmax(out_visits[:n])], n


@njit(cache=True)
def mcts_act(obs, params, rng, buf):
    """The search's action; no search when only one action is legal and no bet is open."""
    moves, visits = root_buffers(params)
    return mcts_decide(obs, params, rng, buf, moves, visits)[0]
