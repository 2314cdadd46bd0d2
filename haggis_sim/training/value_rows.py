"""The leaf value's training rows and how a game records them: at a decision, the acting
seat's value features (from its own observation); once the round is over, that seat's
reward for the round as the search scores a finished round (``round_values`` with the
game value). Shared by ``haggis-sim train-value``'s self-play
(:mod:`~haggis_sim.training.value_data`) and the joint generations of ``haggis-sim train
--generations K --value-units U`` (:mod:`~haggis_sim.training.positions`), so both learn
the same target from the same features.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from strategies.ismcts import VALUE_GAME, round_values
from strategies.value_features import N_VALUE_FEATURES, value_features

from .split import holdout_mask


@dataclass
class ValueRows:
    """One row per decision: the acting seat's features and its round-end reward."""

    features: np.ndarray  # (rows, N_VALUE_FEATURES) float32
    target: np.ndarray  # (rows,) float32 in [0, 1]
    players: np.ndarray  # (rows,) int64
    game: np.ndarray  # (rows,) int64

    @property
    def holdout(self) -> np.ndarray:
        """Whether each row's game is held out of the fit."""
        return holdout_mask(self.game)

    @classmethod
    def joined(cls, parts: list[ValueRows]) -> ValueRows:
        """The rows of ``parts`` as one set, in their order (each row keeps its game
        number, so the held-out games stay held out)."""
        return cls(*(np.concatenate([getattr(p, k) for p in parts])
                     for k in ("features", "target", "players", "game")))  # fmt: skip


class ValueRecorder:
    """The value rows of one game: :meth:`decision` at each decision to record,
    :meth:`round_over` at the end of each round, :meth:`rows` at the end of the game."""

    def __init__(self, game: int, players: int) -> None:
        self.game = game
        self.players = players
        self.feats: list[np.ndarray] = []
        self.seats: list[int] = []
        self.targets: list[float] = []
        self.pending = 0  # rows of the current round, waiting for its end
        self.x = np.empty(N_VALUE_FEATURES)
        self.rewards = np.zeros(3)

    def decision(self, seat: int, obs: np.ndarray) -> None:
        """Record ``seat``'s features at its observation ``obs``."""
        value_features(obs, seat, self.x)
        self.feats.append(self.x.astype(np.float32))
        self.seats.append(seat)
        self.pending += 1

    def round_over(self, st: np.ndarray) -> None:
        """Give the round's rows their seats' rewards (``st``: the finished round)."""
        round_values(st, VALUE_GAME, self.rewards)
        waiting = self.seats[len(self.seats) - self.pending :]
        self.targets.extend(float(self.rewards[s]) for s in waiting)
        self.pending = 0

    def rows(self) -> ValueRows:
        """The game's rows (every round finished)."""
        n = len(self.feats)
        return ValueRows(
            features=np.array(self.feats, dtype=np.float32).reshape(n, N_VALUE_FEATURES),
            target=np.array(self.targets, dtype=np.float32),
            players=np.full(n, self.players, dtype=np.int64),
            game=np.full(n, self.game, dtype=np.int64),
        )
