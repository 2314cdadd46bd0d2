"""The small network both learned models score with (compiled): a linear term plus one
hidden layer of tanh units, with its own weights per player count.

``learned``'s action scores (:mod:`strategies.learned_features`, its features of an
action) and ``mcts``'s leaf value (:mod:`strategies.value_features`, its features of a
position) share this layout and these sums, so a model file means one function whatever
reads it. A parameter array holds the feature count ``F``, the linear weights for 2
players then 3 (``F`` each), and, when it goes on, the hidden width ``H`` and per player
count the hidden weights ``W`` (``F`` x ``H``, row by row), biases ``b`` and output
weights ``v`` (``H`` each): score = x . w + v . tanh(x @ W + b)
(:func:`strategies.learned_model.param_row` writes it).
"""

from __future__ import annotations

import numpy as np

from haggis_sim.kernel import njit


@njit(cache=True)
def hidden_width(params):
    """The hidden layer's width ``H`` in a parameter array (0: a linear model, or an
    empty array: no model)."""
    if params.shape[0] == 0:
        return np.int64(0)
    f = np.int64(params[0])
    if params.shape[0] > 1 + 2 * f:
        return np.int64(params[1 + 2 * f])
    return np.int64(0)


@njit(cache=True)
def model_length(params):
    """The length a parameter array needs for the model its head announces (its feature
    count ``F`` and hidden width ``H``): shorter arrays do not hold their weights."""
    f = np.int64(params[0])
    h = hidden_width(params)
    if h == 0:
        return 1 + 2 * f
    return 2 + 2 * f + 2 * h * (f + 2)


@njit(cache=True)
def layer(params, players):
    """The weights for ``players`` players: the offset of the linear weights in
    ``params``, and views of the hidden layer's ``W`` (``F`` x ``H``), ``b`` and ``v``
    (``H`` = 0 for a linear model)."""
    f = np.int64(params[0])
    row = players - 2
    off = 1 + f * row
    nh = hidden_width(params)
    hid = 2 + 2 * f + row * nh * (f + 2)
    w_in = params[hid : hid + f * nh].reshape((f, nh))
    b_in = params[hid + f * nh : hid + f * nh + nh]
    w_out = params[hid + f * nh + nh : hid + f * nh + 2 * nh]
    return off, w_in, b_in, w_out


@njit(cache=True)
def layer_sums(x, params, off, w_in, b_in, act):
    """The linear term ``x . w`` (returned) and the hidden units' sums ``x @ W + b``
    (into ``act``, ``H`` long) of features ``x``: the score before the tanh. Each sum
    adds its terms in the features' order; a feature that is 0 is skipped, since its
    product adds nothing (a finite weight's product is a zero, which leaves a sum
    unchanged but for the sign of a zero sum, which no comparison or exp sees). Most
    features of an action or a position are 0, and this loop is the hot one of every
    action scored exactly (``learned`` screens large decisions first:
    :func:`strategies.learned_features.screen_bounds`) and every leaf valued: one pass,
    a row of ``W`` at a time."""
    s = 0.0
    for k in range(b_in.shape[0]):
        act[k] = b_in[k]
    for j in range(w_in.shape[0]):
        xj = x[j]
        if xj != 0.0:
            s += xj * params[off + j]
            for k in range(b_in.shape[0]):
                act[k] += xj * w_in[j, k]
    return s


@njit(cache=True)
def layer_output(linear, w_out, act):
    """The score from the linear term and the hidden units' sums (:func:`layer_sums`):
    ``linear + v . tanh(act)``."""
    s = linear
    for k in range(w_out.shape[0]):
        s += w_out[k] * np.tanh(act[k])
    return s


@njit(cache=True)
def layer_score(x, params, off, w_in, b_in, w_out, act):
    """The score of features ``x`` with the weights :func:`layer` gives (``act``: a
    scratch of ``H`` floats)."""
    return layer_output(layer_sums(x, params, off, w_in, b_in, act), w_out, act)
