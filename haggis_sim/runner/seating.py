"""Which deal each game plays and which strategy sits where: from (seed, game id) only.

With ``seats="rotate"`` consecutive game ids replay one deal with the strategies
rotated through the seats: every permutation of the seats once, 2 games per deal with 2
players, 6 with 3, so seat and deal luck cancel. With ``seats="fixed"`` every game is a
new deal and the strategies sit in the order given.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from .._cache import njit
from ..engine.rng import derive

SEAT_MODES = ("rotate", "fixed")
STRATEGY_STREAM_SALT = 0x5EA7  # keeps strategy streams apart from deal seeds


def base_entries(n_strategies: int, players: int) -> list[int]:
    """Strategy entry of each seat before rotation: the list repeated to fill the seats."""
    return [i % n_strategies for i in range(players)]


def seat_permutations(players: int) -> list[tuple[int, ...]]:
    return list(permutations(range(players)))


def games_per_deal(seats: str, players: int) -> int:
    return len(seat_permutations(players)) if seats == "rotate" else 1


def deal_id(game_id: int, seats: str, players: int) -> int:
    return game_id // games_per_deal(seats, players)


def seat_entries(game_ids: np.ndarray, seats: str, players: int, n_strategies: int) -> np.ndarray:
    """(games, 3) matrix: the strategy entry playing each seat of each game (-1 unused)."""
    base = base_entries(n_strategies, players)
    perms = seat_permutations(players) if seats == "rotate" else [tuple(range(players))]
    table = np.full((len(perms), 3), -1, dtype=np.int64)
    for p, perm in enumerate(perms):
        for seat in range(players):
            table[p, seat] = base[perm[seat]]
    return table[game_ids % len(perms)]


def deal_seeds(run_seed: int, game_ids: np.ndarray, seats: str, players: int) -> np.ndarray:
    """The deal seed of every game: ``derive(run seed, deal id)``, as ``hs.Game`` uses."""
    per = games_per_deal(seats, players)
    return np.array([derive(np.int64(run_seed), np.int64(g // per)) for g in game_ids], np.int64)


@njit(cache=True)
def strategy_seed(run_seed: int, game_id: int, seat: int) -> np.int64:
    """Seed of the random stream of the strategy in ``seat`` of game ``game_id``.

    Compiled, so that the compiled game loop and the Python one derive it the same way.
    """
    g = derive(np.int64(run_seed) ^ np.int64(STRATEGY_STREAM_SALT), np.int64(game_id))
    return derive(g, np.int64(seat))
