"""One game played move by move from Python, and the positions one seat met in it.

Benchmarks, tests and training's self-play all walk a game the same way: deal from a
seed, let each seat to act choose from its observation, and keep what one seat saw. This
module is that loop, written once: :func:`play_out` plays a game with a chooser,
:func:`seat_positions` also returns one seat's observations in order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .engine import layout as L
from .engine import state as S

#: chooses the action (a legal action code) of ``seat`` from its observation array
Chooser = Callable[[int, np.ndarray], int]


def play_out(
    rules: np.ndarray,
    deal_seed: int,
    choose: Chooser,
    on_round_over: Callable[[np.ndarray], None] | None = None,
) -> np.ndarray:
    """Play a whole game of ``rules`` (an array) dealt from ``deal_seed``, every action
    ``choose(seat, observation)`` of the seat to act; return the final state array.
    ``on_round_over(state)`` sees each finished round (scored, before the next deal)."""
    st: np.ndarray = S.init_state(rules)
    S.start_game(st, np.int64(deal_seed))
    while True:
        if st[L.S_PHASE] == L.PH_ROUND_OVER:
            if on_round_over is not None:
                on_round_over(st)
            if S.next_round(st):
                return st
            continue
        seat = int(st[L.S_TO_ACT])
        obs = S.observe(st, seat)
        S.apply_action(st, np.int64(choose(seat, obs)))


def seat_positions(
    rules: np.ndarray, deal_seed: int, choose: Chooser, seat: int = 0
) -> list[np.ndarray]:
    """:func:`play_out`, returning the observation arrays of ``seat`` at each of its
    decisions, in order (each a fresh array: the chooser may keep it)."""
    out: list[np.ndarray] = []

    def record(s: int, obs: np.ndarray) -> int:
        if s == seat:
            out.append(obs)
        return choose(s, obs)

    play_out(rules, deal_seed, record)
    return out
