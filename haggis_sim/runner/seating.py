"""Which deal each game plays and which strategy sits where: from (seed, game id) only.

With ``seats="rotate"`` consecutive game ids replay one deal, once per *distinct seating*
(which strategy entry sits in which seat): the permutations of the seats in
``itertools.permutations`` order, a permutation dropped when it gives a seating an
earlier one gave. With three distinct entries that is all 6 seat orders (2 with 2
players); with ``--strategies a,b`` at 3 players (entries 0, 1, 0) it is 3, since
swapping the two seats of entry 0 gives the same seating, and replaying it would only
repeat a game (identically, for deterministic strategies) and count it twice in every
interval. One entry in every seat gives 1 game per deal. Seat and deal luck still cancel:
every entry sits in every seat equally often. With ``seats="fixed"`` every game is a new
deal and the strategies sit in the order given.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np

from .._cache import njit
from ..kernel import derive

SEAT_MODES = ("rotate", "fixed")
STRATEGY_STREAM_SALT = 0x5EA7  # keeps strategy streams apart from deal seeds
#: the rotation scheme these functions implement, recorded in a run's manifest: runs made
#: before it (every permutation, repeated seatings included) number their games otherwise
SEATING_SCHEME = "distinct"


def base_entries(n_strategies: int, players: int) -> list[int]:
    """Strategy entry of each seat before rotation: the list repeated to fill the seats."""
    return [i % n_strategies for i in range(players)]


def distinct_seatings(base: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct seating of the entries ``base`` (entry per seat): the seat
    permutations in ``itertools`` order applied to ``base``, a permutation dropped when it
    gives a seating an earlier one gave (``(0, 1, 0)`` -> 3 seatings, ``(0, 1, 2)`` -> 6)."""
    seen: dict[tuple[int, ...], None] = {}
    for perm in permutations(range(len(base))):
        seen.setdefault(tuple(base[p] for p in perm), None)
    return tuple(seen)


@lru_cache(maxsize=64)
def seatings(seats: str, players: int, n_strategies: int) -> tuple[tuple[int, ...], ...]:
    """The seatings one deal is played with, in game order: per seating the entry per seat.

    ``rotate``: :func:`distinct_seatings` of :func:`base_entries`; ``fixed``: the base
    seating alone.
    """
    base = tuple(base_entries(n_strategies, players))
    return distinct_seatings(base) if seats == "rotate" else (base,)


def games_per_deal(seats: str, players: int, n_strategies: int) -> int:
    """How many consecutive games replay one deal: the number of distinct seatings."""
    return len(seatings(seats, players, n_strategies))


def deal_id(game_id: int, seats: str, players: int, n_strategies: int) -> int:
    """The deal game ``game_id`` plays (``hs.Game(rules, seed, game_id=deal_id)``)."""
    return game_id // games_per_deal(seats, players, n_strategies)


def seat_entries(game_ids: np.ndarray, seats: str, players: int, n_strategies: int) -> np.ndarray:
    """(games, 3) matrix: the strategy entry playing each seat of each game (-1 unused)."""
    chosen = seatings(seats, players, n_strategies)
    table = np.full((len(chosen), 3), -1, dtype=np.int64)
    for p, seating in enumerate(chosen):
        table[p, :players] = seating
    return table[np.asarray(game_ids, dtype=np.int64) % len(chosen)]


def deal_seeds(
    run_seed: int, game_ids: np.ndarray, seats: str, players: int, n_strategies: int
) -> np.ndarray:
    """The deal seed of every game: ``derive(run seed, deal id)``, as ``hs.Game`` uses."""
    per = games_per_deal(seats, players, n_strategies)
    return np.array([derive(np.int64(run_seed), np.int64(g // per)) for g in game_ids], np.int64)


@njit(cache=True)
def strategy_seed(run_seed: int, game_id: int, seat: int) -> np.int64:
    """Seed of the random stream of the strategy in ``seat`` of game ``game_id``.

    Compiled, so that the compiled game loop and the Python one derive it the same way.
    """
    g = derive(np.int64(run_seed) ^ np.int64(STRATEGY_STREAM_SALT), np.int64(game_id))
    seed: np.int64 = derive(g, np.int64(seat))  # derive is typed by numba: mypy sees Any
    return seed
