"""Re-playing a logged game through the engine, checking the log at every step.

:func:`load_game` reads one game's rows, :func:`start_game` deals it again and
:class:`LogCursor` hands its logged actions to the engine one by one, checking each
(seat, round, legality) and every round's scores; :func:`replay` narrates the game with
them, and the game viewer (:mod:`haggis_sim.counterfactual.game_view`) builds its frames with them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import IllegalAction, InputError
from ..kernel import layout, record
from ..logs import ledger
from ..logs.manifest import Manifest, load_manifest
from ..logs.query import check_parts, damage_from
from ..logs.schema import ACTION_TYPES
from ..position import Game, RoundResult
from ..rules import Rules
from ..transcript import narrate


class ReplayMismatch(RuntimeError):
    """The log and the engine disagree."""


def read_table(
    run_dir: Path, table: str, select: Callable[[pl.LazyFrame], pl.LazyFrame]
) -> pl.DataFrame:
    """``select`` over one table of the run; DamagedLogError naming a damaged part.

    Footers are checked first (a truncated or overwritten part); damage inside a part
    shows only when polars decodes it, and then the parts are read one by one to name it.
    """
    files = ledger.table_files(run_dir, table)
    check_parts(run_dir, files)
    try:
        return select(pl.scan_parquet(files, glob=False)).collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        damage = damage_from(run_dir, files, exc)
        if damage is None:
            raise
        raise damage from None


@dataclass(frozen=True)
class LoggedGame:
    """One game of a run as logged: its ``games`` row, its moves and its rounds, in order."""

    run_dir: Path
    game_id: int
    manifest: Manifest
    rules: Rules
    row: dict[str, Any]
    moves: list[dict[str, Any]]
    rounds: list[dict[str, Any]]


def load_game(run_dir: Path, game_id: int) -> LoggedGame:
    """Read game ``game_id`` of a run; InputError for an unknown game or no move log."""
    manifest = load_manifest(run_dir)
    rules = manifest.rules
    games = read_table(run_dir, "games", lambda t: t.filter(pl.col("game_id") == game_id))
    if games.height == 0:
        raise InputError(f"game {game_id} is not in {run_dir} (unfinished chunk or bad id)")
    moves = read_table(
        run_dir, "moves", lambda t: t.filter(pl.col("game_id") == game_id).sort("round", "turn")
    )
    if moves.height == 0:
        raise InputError(f"run {run_dir} has no move log for game {game_id} (--no-log-moves?)")
    rounds = read_table(
        run_dir, "rounds", lambda t: t.filter(pl.col("game_id") == game_id).sort("round")
    )
    return LoggedGame(
        run_dir, game_id, manifest, rules, games.row(0, named=True), moves.to_dicts(),
        rounds.to_dicts(),
    )  # fmt: skip


def start_game(logged: LoggedGame) -> Game:
    """The logged game dealt again by the engine; ReplayMismatch if its deal seed differs."""
    game = Game(logged.rules, seed=logged.manifest.seed, game_id=int(logged.row["deal_id"]))
    if int(game.state_array[layout.S_SEED]) != int(logged.row["deal_seed"]):
        raise ReplayMismatch(f"game {logged.game_id}: deal seed differs from the engine's")
    return game


class LogCursor:
    """The logged actions of one game, handed to the engine one at a time and checked.

    :meth:`next_action` and :meth:`check_round` fit :func:`~haggis_sim.transcript.narrate`;
    :meth:`finish` checks that the log ends with the game and that the final scores agree.
    """

    def __init__(self, logged: LoggedGame) -> None:
        self.logged = logged
        self._rows = iter(logged.moves)
        #: the moves row of the action last handed out
        self.row: dict[str, Any] = {}

    def next_action(self, g: Game) -> int:
        """The packed code of the next logged action; ReplayMismatch if it cannot be here."""
        game_id = self.logged.game_id
        try:
            row = next(self._rows)
        except StopIteration:
            raise ReplayMismatch(f"game {game_id}: the log ends before the game does") from None
        self.row = row
        where = f"game {game_id} round {row['round']} turn {row['turn']}"
        if row["seat"] != g.to_act or row["round"] != g.round_no:
            raise ReplayMismatch(
                f"{where}: log has seat {row['seat']} acting, engine expects seat {g.to_act} "
                f"in round {g.round_no}"
            )
        code = record.pack_logged_action(
            ACTION_TYPES.index(row["type"]), row["width"], row["length"], row["rank"],
            row["cards"], row["value"],
        )  # fmt: skip
        if code not in {a.code for a in g.legal_actions()}:
            raise ReplayMismatch(f"{where}: logged action {row['type']} is illegal here")
        return code

    def check_round(self, result: RoundResult) -> None:
        """ReplayMismatch unless the logged scores of this round are the engine's."""
        if result.number > len(self.logged.rounds):
            raise ReplayMismatch(
                f"game {self.logged.game_id}: the rounds table has no row for round "
                f"{result.number - 1}"
            )
        logged = self.logged.rounds[result.number - 1]
        for s in range(self.logged.rules.players):
            for key in ("going_out", "cards", "bets", "bonus", "total"):
                if logged[f"{key}_{s}"] != result.scores[s][key]:
                    raise ReplayMismatch(
                        f"game {self.logged.game_id} round {result.number - 1}: seat {s} {key} "
                        f"is {logged[f'{key}_{s}']} in the log, {result.scores[s][key]} in the "
                        "engine"
                    )

    def finish(self, game: Game) -> None:
        """ReplayMismatch if the log goes on after the game or its final scores differ."""
        game_id = self.logged.game_id
        if next(self._rows, None) is not None:
            raise ReplayMismatch(f"game {game_id}: the log has actions after the game ended")
        row = self.logged.row
        final = [row[f"score_{k}"] for k in range(self.logged.rules.players)]
        if list(game.scores) != final or game.winner != row["winner"]:
            raise ReplayMismatch(
                f"game {game_id}: final scores {final} in the log, {list(game.scores)} in the "
                "engine"
            )


def replay(run_dir: Path, game_id: int) -> Iterator[str]:
    """Yield the transcript of a logged game; raise ReplayMismatch where the log is wrong."""
    logged = load_game(run_dir, game_id)
    game = start_game(logged)
    cursor = LogCursor(logged)
    row = logged.row
    seats = ", ".join(f"seat {k}: {row[f'strategy_{k}']}" for k in range(logged.rules.players))
    yield f"haggis-sim replay: run {run_dir}, game {game_id} (deal {row['deal_id']}); {seats}"
    try:
        yield from narrate(game, cursor.next_action, cursor.check_round)
    except IllegalAction as exc:
        raise ReplayMismatch(f"game {game_id}: {exc}") from None
    cursor.finish(game)
