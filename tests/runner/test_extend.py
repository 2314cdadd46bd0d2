"""Extending a finished or interrupted run to more games (``runner.run.extend``).

An extension must write exactly the run a fresh ``execute`` of the larger count writes
(game logs row for row, the manifest apart from timestamps and command), keep every
game it already had, refuse any other change of the games, and survive a Ctrl-C.
Runs are small (2 players, greedy vs random, at most 150 games) and in-process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from haggis_sim.logs import ledger
from haggis_sim.rules import Rules
from haggis_sim.runner import lock
from haggis_sim.runner.run import RunConfig, RunError, execute, extend

KEYS = {"games": ["game_id"], "rounds": ["game_id", "round"], "moves": ["game_id", "round", "turn"]}
# what a fresh run and an extended one may differ in: when and by which command
CLOCK_KEYS = ("created", "finished", "command")


def config(games: int = 150, **changes: Any) -> RunConfig:
    settings: dict[str, Any] = {
        "strategies": ["greedy", "random"],
        "games": games,
        "rules": Rules.preset("revised", players=2).as_dict(),
        "seed": 17,
        "seats": "rotate",
        "chunk_size": 20,
        "jobs": 1,
        "command": "test",
    }
    return RunConfig(**{**settings, **changes})


def tables(run_dir: Path) -> dict[str, pl.DataFrame]:
    return {t: pl.read_parquet(ledger.table_files(run_dir, t)).sort(k) for t, k in KEYS.items()}


def manifest(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "manifest.json").read_text())
    return data


def comparable(run_dir: Path) -> dict[str, Any]:
    """The manifest without what may differ between an extended and a fresh run."""
    data = {k: v for k, v in manifest(run_dir).items() if k not in CLOCK_KEYS}
    data["config"] = {k: v for k, v in data["config"].items() if k != "command"}
    return data


def assert_same_run(got: Path, want: Path) -> None:
    a, b = tables(got), tables(want)
    for t in KEYS:
        assert a[t].equals(b[t]), t
    assert comparable(got) == comparable(want)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference: 150 games played in one go."""
    out = tmp_path_factory.mktemp("fresh") / "run"
    execute(config(150), out)
    return out


@pytest.mark.parametrize("first", [60, 61])  # 61: the extension starts inside a deal
def test_extension_equals_a_fresh_run_of_the_new_count(
    first: int, fresh: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    execute(config(first), out)
    kept = {p: p.read_bytes() for p in out.rglob("part-*.parquet")}
    seen: list[tuple[int, int]] = []
    final = extend(config(150), out, on_progress=lambda d, t: seen.append((d, t)))
    assert final.status == "complete" and final.games == 150
    assert seen[0] == (first, 150)  # the old games count as done, none is played again
    assert all(p.read_bytes() == data for p, data in kept.items())  # kept as logged
    games = tables(out)["games"]
    assert games["game_id"].to_list() == list(range(150))
    assert games["deal_id"].to_list() == [g // 2 for g in range(150)]
    assert_same_run(out, fresh)


def test_extension_to_the_same_count_changes_nothing(fresh: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    execute(config(150), out)
    before = {p: p.read_bytes() for p in out.rglob("part-*.parquet")}
    extend(config(150), out)
    assert {p: p.read_bytes() for p in out.rglob("part-*.parquet")} == before
    assert_same_run(out, fresh)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"seed": 18}, ["another seed", "only the number of games"]),
        ({"strategies": ["greedy", "heuristic"]}, ["another strategies"]),
        ({"seats": "fixed"}, ["another seats"]),
        ({"log_moves": False}, ["another log_moves"]),
        ({"rules": Rules.preset("deluxe", players=2).as_dict()}, ["another rules"]),
        ({"games": 59}, ["has 60 games", "cannot be cut to 59"]),
    ],
)
def test_extension_refuses_any_other_change(
    change: dict[str, Any], words: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    execute(config(60), out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    asked = config(**{"games": 150, **change})
    with pytest.raises(RunError) as info:
        extend(asked, out)
    for word in words:
        assert word in str(info.value)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_extension_of_a_locked_run_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    execute(config(60), out)
    before = manifest(out)
    held = lock.RunLock(out)  # another writer at work in the folder
    try:
        with pytest.raises(lock.RunLockedError, match="being written"):
            extend(config(150), out)
    finally:
        held.release()
    assert manifest(out) == before


def interrupted(out: Path, after: int) -> None:
    """Play 60 games into ``out``, then extend them to 150 and press Ctrl-C once
    ``after`` games are logged."""
    execute(config(60), out)

    def ctrl_c(done: int, total: int) -> None:
        if done >= after:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        extend(config(150), out, on_progress=ctrl_c)


def test_interrupted_extension_resumes(fresh: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    interrupted(out, 100)
    m = manifest(out)
    assert m["status"] == "running" and m["games"] == 150 and m["config"]["games"] == 150
    assert 100 <= ledger.games_logged(out) < 150
    assert not (out / lock.LOCK).exists()
    # an ordinary unfinished run of the new count: run --resume completes it
    execute(config(1, strategies=[], rules={}), out, resume=True)
    assert_same_run(out, fresh)


def test_interrupted_extension_completes_when_extended_again(fresh: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    interrupted(out, 80)
    with pytest.raises(RunError, match="cannot be cut to 100"):
        extend(config(100), out)  # the interrupted extension already asked for 150
    extend(config(150), out)
    assert_same_run(out, fresh)


def test_a_run_recorded_at_an_older_spec_version_extends(tmp_path: Path) -> None:
    """A run whose manifest recorded its specs at spec version 2 (before mcts's ``sure``,
    so without it) grows with the spec typed today: the recorded spec, lifted by the
    migration table, is the same search. Another ``sure`` is still refused."""
    from haggis_sim.logs.manifest import config_digest

    search = "mcts:iters=2,value=game,model=gen2"
    out = tmp_path / "run"
    execute(config(20, strategies=["greedy", search], chunk_size=10), out)
    data = manifest(out)
    data["config"]["strategies"] = [
        s.replace(",sure=0.0", "") for s in data["config"]["strategies"]
    ]
    for entry in data["strategies"]:
        entry["spec"] = entry["spec"].replace(",sure=0.0", "")
        entry["params"].pop("sure", None)
    assert "sure" not in json.dumps(data)
    data["spec_version"] = 2
    data["config_digest"] = config_digest(data["config"])
    (out / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(RunError, match="another strategies"):
        extend(config(30, strategies=["greedy", search + ",sure=0.5"], chunk_size=10), out)
    final = extend(config(30, strategies=["greedy", search], chunk_size=10), out)
    assert final.status == "complete" and final.games == 30
    assert tables(out)["games"]["game_id"].to_list() == list(range(30))
