"""Reproducibility of runs: each game's deal and every strategy's random choices derive from
(--seed, game id) alone, never from global random state, chunking, or the other games."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import haggis_sim as hs
import strategies.registry as registry
from haggis_sim.cli import app
from haggis_sim.engine import record as R
from haggis_sim.position import game_seed
from haggis_sim.runner import chunk as C
from haggis_sim.runner.seating import deal_seeds, seat_entries
from strategies import Strategy, make

KEYS = {"games": ["game_id"], "rounds": ["game_id", "round"], "moves": ["game_id", "round", "turn"]}
RUN3 = [
    "--strategies", "random:bet=0.3,greedy,random", "--players", "3", "--games", "120",
    "--chunk-size", "50", "--rules", "deluxe", "--jobs", "1",
]  # fmt: skip

runner = CliRunner()


def run(out: Path, *args: str) -> Path:
    res = runner.invoke(app, ["run", *args, "--out", str(out), "-q"])
    assert res.exit_code == 0, (res.stderr, res.exception)
    return out


def tables(run_dir: Path) -> dict[str, pl.DataFrame]:
    return {
        name: pl.read_parquet(run_dir / name / "part-*.parquet").sort(keys)
        for name, keys in KEYS.items()
    }


def assert_same(a: dict[str, pl.DataFrame], b: dict[str, pl.DataFrame]) -> None:
    for name in KEYS:
        assert a[name].equals(b[name]), name


def stir_global_rngs(seed: int) -> None:
    np.random.seed(seed)
    np.random.random(1000)
    random.seed(seed)
    random.random()


def test_same_seed_same_logs_whatever_the_global_rng(tmp_path: Path) -> None:
    stir_global_rngs(1)
    first = tables(run(tmp_path / "a", *RUN3, "--seed", "17"))
    stir_global_rngs(2)
    second = tables(run(tmp_path / "b", *RUN3, "--seed", "17"))
    assert_same(first, second)
    assert (first["moves"]["type"] == "bet").any()  # the random strategy's choices matter


def test_a_game_does_not_depend_on_chunking_or_the_other_games(tmp_path: Path) -> None:
    whole = tables(run(tmp_path / "a", *RUN3, "--seed", "17"))
    args = [a if a != "50" else "7" for a in RUN3]
    args[args.index("120")] = "60"
    part = tables(run(tmp_path / "b", *args, "--seed", "17"))
    assert part["games"].height == 60
    for name in KEYS:
        assert part[name].equals(whole[name].filter(pl.col("game_id") < 60)), name


def test_a_different_seed_gives_different_games(tmp_path: Path) -> None:
    a = tables(run(tmp_path / "a", *RUN3, "--seed", "17"))
    b = tables(run(tmp_path / "b", *RUN3, "--seed", "18"))
    seeds_a = set(a["games"]["deal_seed"].to_list())
    seeds_b = set(b["games"]["deal_seed"].to_list())
    assert len(seeds_a) == 20 and len(seeds_b) == 20 and not seeds_a & seeds_b
    assert not a["moves"].equals(b["moves"])
    # the same deals seen from the first game of each: different cards are played
    first = {
        k: t["moves"].filter(pl.col("game_id") == 0)["cards"].to_list()
        for k, t in (("a", a), ("b", b))
    }
    assert first["a"] != first["b"]


def test_fixed_seats_keep_the_given_order(tmp_path: Path) -> None:
    specs = ["greedy", "random:bet=0.2", "random:bet=0.1"]
    out = run(
        tmp_path / "fixed", "--strategies", "greedy,random:bet=0.2,random", "--players", "3",
        "--games", "40", "--chunk-size", "15", "--seats", "fixed", "--seed", "4", "--jobs", "1",
    )  # fmt: skip
    games = tables(out)["games"]
    for k in range(3):
        assert (games[f"entry_{k}"] == k).all()
        assert (games[f"strategy_{k}"].cast(pl.String) == specs[k]).all()
    assert (games["deal_id"] == games["game_id"]).all()
    assert games["deal_seed"].n_unique() == 40  # a new deal every game
    assert games["deal_seed"].to_list() == [game_seed(4, g) for g in range(40)]

    # fewer strategies than seats: the list repeats, still in order
    out2 = run(
        tmp_path / "fixed2", "--strategies", "greedy,random", "--players", "3", "--games", "12",
        "--seats", "fixed", "--jobs", "1",
    )  # fmt: skip
    games2 = tables(out2)["games"]
    assert games2.select("entry_0", "entry_1", "entry_2").unique().rows() == [(0, 1, 0)]
    assert set(games2["strategy_2"].cast(pl.String)) == {"greedy"}


def test_compiled_and_python_drivers_log_the_same_games() -> None:
    """A chunk with a Python strategy in it is played step by step from Python; built-in
    strategies must then make exactly the choices they make in compiled code."""
    rules = hs.Rules.preset("deluxe", players=3).to_array()
    strategies = [make("random:bet=0.3"), make("greedy")]
    gids = np.arange(40, 52, dtype=np.int64)
    compiled = C.play_chunk(rules, strategies, gids, 123, "rotate")
    entries = seat_entries(gids, "rotate", 3, 2)
    seeds = deal_seeds(123, gids, "rotate", 3, 2)
    moves = np.empty((C.MOVE_ROWS, R.N_MOVE_COLUMNS), dtype=np.int64)
    rounds = np.empty((C.ROUND_ROWS, R.N_ROUND_COLUMNS), dtype=np.int64)
    games = np.zeros((len(gids), R.N_GAME_COLUMNS), dtype=np.int64)
    cursor = np.zeros(R.N_CURSOR, dtype=np.int64)
    cursor[R.C_TOP_ROW] = -1
    for i, gid in enumerate(gids):
        C._python_game(
            rules, strategies, entries[i], int(seeds[i]), int(gid), 123, True,
            C.LogBuffers(moves, rounds, games, cursor),
        )  # fmt: skip
    np.testing.assert_array_equal(moves[: cursor[R.C_MOVE]], compiled.moves)
    np.testing.assert_array_equal(rounds[: cursor[R.C_ROUND]], compiled.rounds)
    np.testing.assert_array_equal(games, compiled.games)
    assert (compiled.moves[:, R.MC_TYPE] == 4).any()  # bets were drawn


class PyRandom(Strategy):
    """Uniform over every legal action (bets included), with the injected generator."""

    name = "pyrandom"
    description = "uniform over legal actions (test strategy)"

    def act(self, observation: Any, legal: list[Any], rng: np.random.Generator) -> Any:
        return legal[int(rng.integers(len(legal)))]


@pytest.fixture
def pyrandom(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._extra, PyRandom.name, PyRandom)


ONE_ROUND = [
    "--strategies", "pyrandom,random:bet=0.3", "--games", "16", "--rule", "game_end=rounds",
    "--rule", "rounds=1", "--jobs", "1",
]  # fmt: skip


def test_python_strategy_randomness_comes_from_seed_and_game_id(
    pyrandom: None, tmp_path: Path
) -> None:
    stir_global_rngs(5)
    a = tables(run(tmp_path / "a", *ONE_ROUND, "--chunk-size", "16", "--seed", "8"))
    stir_global_rngs(6)
    b = tables(run(tmp_path / "b", *ONE_ROUND, "--chunk-size", "3", "--seed", "8"))
    assert_same(a, b)
    c = tables(run(tmp_path / "c", *ONE_ROUND, "--chunk-size", "16", "--seed", "9"))
    assert not a["moves"].equals(c["moves"])
    games = a["games"]
    assert set(games["strategy_0"].cast(pl.String)) == {"pyrandom", "random:bet=0.3"}
    assert (a["moves"]["type"] == "bet").any()
