"""The Parquet logs of a run: schema, atomic chunk writes, and reading them back.

A run folder holds ``games/``, ``rounds/`` and ``moves/`` (one Parquet part per chunk in
each, named by the chunk's game range), ``manifest.json`` and the ledger ``parts.jsonl``
(:mod:`.ledger`). Parts are written under a temporary name and renamed into place; a
chunk is finished when its ledger line is written.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError
from ..kernel import layout as L
from ..kernel import record as R

TABLES = ("games", "rounds", "moves")
# the moves ``type`` values: the engine's action type names, in the order of its T_* codes
ACTION_TYPES = list(L.ACTION_TYPES)
ACTION_ENUM = pl.Enum(ACTION_TYPES)

MOVE_TYPES: dict[str, pl.DataType] = {
    "game_id": pl.UInt32(),
    "round": pl.UInt8(),
    "trick": pl.UInt8(),
    "turn": pl.UInt16(),
    "seat": pl.UInt8(),
    "type": ACTION_ENUM,
    "width": pl.UInt8(),
    "length": pl.UInt8(),
    "rank": pl.UInt8(),
    "n_cards": pl.UInt8(),
    "cards": pl.Int64(),
    "value": pl.UInt8(),
    "hand_after": pl.UInt8(),
    "won_trick": pl.Boolean(),
    "trick_to": pl.UInt8(),
    "strength": pl.UInt8(),
}

SCHEMA_DOC = {
    "games": {
        "game_id": "game number in the run (0-based)",
        "deal_id": "deal number: with rotated seats, consecutive games replay one deal",
        "deal_seed": "seed of the deal (hs.Game(rules, seed=run seed, game_id=deal_id))",
        "rules": "rules preset plus every flag changed from it",
        "strategy_k": "strategy (name:params) in seat k (k = 0, 1, 2; null if no seat)",
        "entry_k": "index into the run's --strategies list of the strategy in seat k",
        "winner": "winning seat",
        "winner_entry": "index of the winning strategy in the --strategies list",
        "rounds": "rounds played",
        "score_k": "final total of seat k",
    },
    "rounds": {
        "game_id, round": "game and round number (0-based)",
        "dealer, leader": "dealer and first leader of the round",
        "shepherd, second_out, black_sheep": "order out (second_out null with 2 players)",
        "haggis_to": "seat that captured the Haggis (null: nobody)",
        "tricks, actions": "tricks captured and actions taken in the round",
        "bet_k": "bet declared by seat k (0: none)",
        "going_out_k, cards_k, bets_k, bonus_k, total_k": "seat k's round score by source",
    },
    "moves": {
        "game_id, round, trick, turn": "where: turn counts actions within the round",
        "seat": "who acted",
        "type": "pass, set, sequence, bomb, bet or give",
        "width, length, rank": "the play's shape and rank (sets: width = size, length 1; "
        "bombs: rank = order 1..6)",
        "n_cards": "cards played",
        "cards": "the cards as a mask: bit (rank-2)*5+suit for suit cards, bits 45/46/47 "
        "for the player's J/Q/K",
        "value": "bet value, or the seat given to",
        "hand_after": "cards left in the actor's hand after the action",
        "won_trick": "this play won its trick",
        "trick_to": "on a winning play: who captured the trick (another seat after a bomb)",
        "strength": "on a bet: the bettor's hand strength 0-100 (the heuristic's estimate)",
    },
}


def _col(matrix: np.ndarray, index: int) -> np.ndarray:
    return matrix[:, index]


def moves_frame(moves: np.ndarray) -> pl.DataFrame:
    data = {name: _col(moves, i) for i, name in enumerate(R.MOVE_COLUMNS)}
    frame = pl.DataFrame(data)
    return frame.with_columns(
        pl.col("type").replace_strict(
            list(range(len(ACTION_TYPES))), ACTION_TYPES, return_dtype=ACTION_ENUM
        ),
        pl.col("won_trick").cast(pl.Boolean),
        pl.when(pl.col("trick_to") >= 0).then(pl.col("trick_to")).cast(pl.UInt8),
        pl.when(pl.col("strength") >= 0).then(pl.col("strength")).cast(pl.UInt8),
        *(
            pl.col(c).cast(t)
            for c, t in MOVE_TYPES.items()
            if c not in ("type", "won_trick", "trick_to", "strength")
        ),
    )


def rounds_frame(rounds: np.ndarray) -> pl.DataFrame:
    frame = pl.DataFrame({name: _col(rounds, i) for i, name in enumerate(R.ROUND_COLUMNS)})
    return frame.with_columns(
        pl.col("game_id").cast(pl.UInt32),
        pl.col("round").cast(pl.UInt8),
        *(pl.col(c).cast(pl.UInt16) for c in ("tricks", "actions")),
        *(
            pl.when(pl.col(c) >= 0).then(pl.col(c)).cast(pl.UInt8)
            for c in ("dealer", "leader", "shepherd", "second_out", "black_sheep", "haggis_to")
        ),
        *(
            pl.when(pl.col(c) >= 0).then(pl.col(c)).cast(pl.Int16)
            for c in R.ROUND_COLUMNS[len(R.ROUND_FIXED) :]
        ),
    )


def games_frame(
    games: np.ndarray,
    entries: np.ndarray,
    deal_seeds: np.ndarray,
    deal_ids: np.ndarray,
    specs: list[str],
    players: int,
    rules_label: str = "",
) -> pl.DataFrame:
    winner = games[:, R.GC_WINNER]
    winner_entry = entries[np.arange(len(games)), winner]
    cols: dict[str, object] = {
        "game_id": pl.Series(games[:, R.GC_GAME], dtype=pl.UInt32),
        "deal_id": pl.Series(deal_ids, dtype=pl.UInt32),
        "deal_seed": pl.Series(deal_seeds, dtype=pl.Int64),
        "rules": pl.Series([rules_label] * len(games), dtype=pl.Categorical),
    }
    enum = pl.Enum(sorted(set(specs)))
    for k in range(3):
        if k < players:
            cols[f"strategy_{k}"] = pl.Series([specs[e] for e in entries[:, k]], dtype=enum)
            cols[f"entry_{k}"] = pl.Series(entries[:, k], dtype=pl.UInt8)
        else:
            cols[f"strategy_{k}"] = pl.Series([None] * len(games), dtype=enum)
            cols[f"entry_{k}"] = pl.Series([None] * len(games), dtype=pl.UInt8)
    cols["winner"] = pl.Series(winner, dtype=pl.UInt8)
    cols["winner_entry"] = pl.Series(winner_entry, dtype=pl.UInt8)
    cols["rounds"] = pl.Series(games[:, R.GC_ROUNDS], dtype=pl.UInt16)
    for k in range(3):
        vals = games[:, R.GAME_COLUMNS.index(f"score_{k}")]
        cols[f"score_{k}"] = pl.Series(
            [None] * len(games) if k >= players else vals, dtype=pl.Int32
        )
    return pl.DataFrame(cols)


def parquet_bytes(frame: pl.DataFrame) -> bytes:
    """A frame as Parquet file contents (zstd, with statistics)."""
    buf = io.BytesIO()
    frame.write_parquet(buf, compression="zstd", statistics=True)
    return buf.getvalue()


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """Write a file under a temporary name, then rename it into place.

    A reader never sees a half-written part under its final name. There is no fsync: a
    part lost or cut short by a crash of the machine is caught by its size and digest in
    the ledger when the run resumes, and played again. A write that fails removes its
    temporary file before the error goes on.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:  # a full disk, for one: leave no temporary behind
        tmp.unlink(missing_ok=True)
        raise


TEMP_NAME = re.compile(r"\.part-\d{10}-\d{10}\.parquet\.tmp-\d+")
"""Exactly the temporary names :func:`write_bytes_atomic` gives a run's parts."""


def clean_temporaries(run_dir: Path) -> int:
    """Remove temporary files a killed run left behind; return how many.

    Only names of the run's own temporaries (:data:`TEMP_NAME`) are removed: a user's
    file that merely looks like one is left alone."""
    removed = 0
    for table in TABLES:
        for tmp in (run_dir / table).glob(".*.tmp-*"):
            if TEMP_NAME.fullmatch(tmp.name):
                tmp.unlink(missing_ok=True)
                removed += 1
    return removed


class DamagedLogError(InputError):
    """A log file of a run is missing, truncated or altered since the run wrote it."""
