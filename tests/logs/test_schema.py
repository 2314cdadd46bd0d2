"""The games table names the rules; the docs' log schema documents every logged column."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from docs_helpers import hooks

import haggis_sim as hs
from haggis_sim.runner.run import RunConfig, execute


def test_games_rows_carry_the_rules_label_and_docs_list_every_column(tmp_path: Path) -> None:
    rules = hs.Rules.preset("deluxe", players=3, card_points="classic", bomb_capture="tournament")
    config = RunConfig(
        strategies=["greedy", "random"], games=12, rules=rules.as_dict(), seed=4, chunk_size=6,
        jobs=1, command="test",
    )  # fmt: skip
    execute(config, tmp_path / "run")
    schema = hooks().log_tables_markdown()  # the docs' Log schema page, as the site shows it
    for table in ("games", "rounds", "moves"):
        frame = pl.read_parquet(tmp_path / "run" / table / "*.parquet")
        if table == "games":
            assert set(frame["rules"].cast(pl.String)) == {
                "deluxe bomb_capture=tournament card_points=classic"
            }
        rows = schema.split(f"### `{table}`", 1)[1].split("###", 1)[0]
        documented: set[str] = set()
        for name in re.findall(r"`([\w.]+)`", rows):
            stem = re.sub(r"_k$", "", name)
            documented |= {f"{stem}_{k}" for k in range(3)} if stem != name else {name}
        assert set(frame.columns) <= documented, set(frame.columns) - documented


def test_bets_log_the_bettors_hand_strength_at_that_moment(tmp_path: Path) -> None:
    from haggis_sim.engine import layout as L
    from haggis_sim.engine import state as S
    from strategies.simple_kernels import hand_strength

    rules = hs.Rules.preset("revised", players=2)
    config = RunConfig(
        strategies=["heuristic:bet=0.45,big=0.55", "random:bet=0.5"], games=8,
        rules=rules.as_dict(), seed=11, chunk_size=4, jobs=1, command="test",
    )  # fmt: skip
    execute(config, tmp_path / "run")
    moves = pl.read_parquet(tmp_path / "run" / "moves" / "*.parquet").sort(
        "game_id", "round", "turn"
    )
    games = pl.read_parquet(tmp_path / "run" / "games" / "*.parquet")
    assert (
        moves.filter(pl.col("type") != "bet")["strength"].null_count()
        == moves.filter(pl.col("type") != "bet").height
    )
    bets = moves.filter(pl.col("type") == "bet")
    assert bets.height > 10 and bets["strength"].null_count() == 0
    checked = 0
    for gid in range(4):
        deal = games.filter(pl.col("game_id") == gid)["deal_id"][0]
        game = hs.Game(rules, seed=11, game_id=deal)
        for row in moves.filter(pl.col("game_id") == gid).iter_rows(named=True):
            if row["type"] == "bet":
                st = game.state_array
                expected = int(hand_strength(S.observe(st, row["seat"]), row["seat"]) * 100 + 0.5)
                assert row["strength"] == expected
                assert int(st[L.S_PLAYED + row["seat"]]) == 0
                checked += 1
            action = next(a for a in game.legal_actions() if _matches(a, row))
            game.apply_action(action)
    assert checked > 0


def _matches(action: hs.Action, row: dict[str, object]) -> bool:
    if action.type in ("bet", "give"):
        return action.type == row["type"] and action.value == row["value"]
    if action.type == "pass":
        return row["type"] == "pass"
    combo = action.combo
    assert combo is not None
    return (
        row["type"] == combo.kind
        and row["cards"] == combo.code & ((1 << 48) - 1)
        and row["rank"] == combo.rank
        and row["width"] == combo.width
        and row["length"] == combo.length
    )
