"""Re-playing a logged game through the engine, checking the log at every step."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl

from ..engine.layout import S_SEED
from ..engine.record import pack_logged_action
from ..errors import IllegalAction, InputError
from ..logs import ledger
from ..logs.manifest import read_manifest
from ..logs.query import check_parts, damage_from
from ..logs.schema import ACTION_TYPES
from ..position import Game, RoundResult
from ..rules import Rules
from ..transcript import narrate


class ReplayMismatch(RuntimeError):
    """The log and the engine disagree."""


def _read(
    run_dir: Path, table: str, select: Callable[[pl.LazyFrame], pl.LazyFrame]
) -> pl.DataFrame:
    """``select`` over one table of the run; DamagedLogError naming a damaged part.

    Footers are checked first (a truncated or overwritten part); damage inside a part
    shows only when polars decodes it, and then the parts are read one by one to name it.
    """
    files = ledger.table_files(run_dir, table)
    check_parts(run_dir, files)
    try:
        return select(pl.scan_parquet(files)).collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        damage = damage_from(run_dir, files, exc)
        if damage is None:
            raise
        raise damage from None


def replay(run_dir: Path, game_id: int) -> Iterator[str]:
    """Yield the transcript of a logged game; raise ReplayMismatch where the log is wrong."""
    manifest = read_manifest(run_dir)
    rules_d = dict(manifest["rules"])
    rules_d["bet_values"] = tuple(rules_d["bet_values"])
    rules = Rules(**rules_d)
    games = _read(run_dir, "games", lambda t: t.filter(pl.col("game_id") == game_id))
    if games.height == 0:
        raise InputError(f"game {game_id} is not in {run_dir} (unfinished chunk or bad id)")
    game_row = games.row(0, named=True)
    moves = _read(
        run_dir, "moves", lambda t: t.filter(pl.col("game_id") == game_id).sort("round", "turn")
    )
    if moves.height == 0:
        raise InputError(f"run {run_dir} has no move log for game {game_id} (--no-log-moves?)")
    rounds = _read(
        run_dir, "rounds", lambda t: t.filter(pl.col("game_id") == game_id).sort("round")
    ).to_dicts()
    game = Game(rules, seed=int(manifest["seed"]), game_id=int(game_row["deal_id"]))
    if int(game.state_array[S_SEED]) != int(game_row["deal_seed"]):
        raise ReplayMismatch(f"game {game_id}: deal seed differs from the engine's")
    rows = iter(moves.to_dicts())
    players = rules.players
    seats = ", ".join(f"seat {k}: {game_row[f'strategy_{k}']}" for k in range(players))
    yield f"haggis-sim replay: run {run_dir}, game {game_id} (deal {game_row['deal_id']}); {seats}"

    def next_action(g: Game) -> int:
        try:
            row = next(rows)
        except StopIteration:
            raise ReplayMismatch(f"game {game_id}: the log ends before the game does") from None
        where = f"game {game_id} round {row['round']} turn {row['turn']}"
        if row["seat"] != g.to_act or row["round"] != g.round_no:
            raise ReplayMismatch(
                f"{where}: log has seat {row['seat']} acting, engine expects seat {g.to_act} "
                f"in round {g.round_no}"
            )
        code = pack_logged_action(
            ACTION_TYPES.index(row["type"]), row["width"], row["length"], row["rank"],
            row["cards"], row["value"],
        )  # fmt: skip
        if code not in {a.code for a in g.legal_actions()}:
            raise ReplayMismatch(f"{where}: logged action {row['type']} is illegal here")
        return code

    def check_round(result: RoundResult) -> None:
        logged = rounds[result.number - 1]
        for s in range(players):
            for key in ("going_out", "cards", "bets", "bonus", "total"):
                if logged[f"{key}_{s}"] != result.scores[s][key]:
                    raise ReplayMismatch(
                        f"game {game_id} round {result.number - 1}: seat {s} {key} is "
                        f"{logged[f'{key}_{s}']} in the log, {result.scores[s][key]} in the engine"
                    )

    try:
        yield from narrate(game, next_action, check_round)
    except IllegalAction as exc:
        raise ReplayMismatch(f"game {game_id}: {exc}") from None
    if next(rows, None) is not None:
        raise ReplayMismatch(f"game {game_id}: the log has actions after the game ended")
    final = [game_row[f"score_{k}"] for k in range(players)]
    if list(game.scores) != final or game.winner != game_row["winner"]:
        raise ReplayMismatch(
            f"game {game_id}: final scores {final} in the log, {list(game.scores)} in the engine"
        )
