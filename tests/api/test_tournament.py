"""``haggis_sim.tournament``: ``haggis-sim run`` from Python, with the logs as polars frames.

One implementation: the games, checks and summary are the runner's, so a tournament is
the run the command would have played; the manifest records the Python call; a result of
``out=None`` owns its temporary folder; bad arguments raise the package's InputError
before anything is written.
"""

from __future__ import annotations

import gc
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
import pytest
from cli_helpers import invoke

import haggis_sim as hs
from haggis_sim.logs.manifest import load_manifest
from haggis_sim.runner.run import RunConfig, RunError, verified_config
from haggis_sim.runner.summary import summarize
from haggis_sim.runner.tournament import tournament

PAIR = ["greedy", "random:bet=0.2"]


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder that ``tempfile`` creates its temporary folders in, to watch them."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_the_run_the_command_plays_with_its_summary(tmp_path: Path) -> None:
    """Same arguments as ``haggis-sim run``: the same games, and the summary it prints."""
    res = tournament(PAIR, games=24, seed=3, jobs=1, chunk_size=7, out=tmp_path / "api")
    cli = invoke(
        "run", "-s", ",".join(PAIR), "-n", "24", "--seed", "3", "--jobs", "1",
        "--chunk-size", "7", "--out", str(tmp_path / "cli"), "-q",
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    for table in ("games", "rounds", "moves"):
        theirs = pl.read_parquet(tmp_path / "cli" / table / "*.parquet")
        assert getattr(res, table).equals(theirs), table
    assert res.games["game_id"].to_list() == list(range(24))
    rows = summarize(tmp_path / "cli", res.manifest.specs, 2)
    assert res.summary.drop("strategy").rows() == [
        (r.entry, r.games, r.wins, r.win_rate, r.low, r.high, r.mean_score) for r in rows
    ]
    wins = res.games.filter(pl.col("winner_entry") == 0).height
    assert res.summary["wins"].to_list() == [wins, 24 - wins]
    assert res.path == tmp_path / "api" and not res.temporary
    res.close()  # an out=PATH run folder is the user's: closing leaves it
    assert (tmp_path / "api" / "manifest.json").is_file()


def test_the_manifest_records_the_call(tmp_path: Path) -> None:
    rules = hs.Rules.preset("classic", players=3, bomb_capture="tournament")
    out = tmp_path / "run"
    res = tournament(PAIR, games=6, rules=rules, seed=5, jobs=1, moves=False, out=out)
    want = (
        "haggis_sim.runner.tournament.tournament(strategies=['greedy', 'random:bet=0.2'], games=6, "
        "rules=Rules.preset('classic', players=3, bomb_capture='tournament'), seed=5, "
        f"jobs=1, out={str(out)!r}, moves=False)"
    )
    manifest = load_manifest(out)  # the typed loader reads it like any run's manifest
    assert manifest.command == manifest.config.command == res.manifest.command == want
    assert verified_config(out, manifest).command == want  # resumable: digest unchanged
    expr = want.split("rules=")[1].split(", seed")[0]
    assert eval(expr, {"Rules": hs.Rules}) == rules  # the recorded rules make the same rules


@pytest.mark.slow
def test_the_command_line_still_records_its_argv(tmp_path: Path) -> None:
    argv = ["run", "-s", "greedy,random", "-n", "4", "--jobs", "1", "--out", str(tmp_path / "r")]
    exe = Path(sys.executable).with_name("haggis-sim")
    subprocess.run([str(exe), *argv, "-q"], check=True, capture_output=True)
    data = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert data["command"] == shlex.join(["haggis-sim", *argv, "-q"])


def test_a_temporary_folder_lives_as_long_as_the_result(private_tmp: Path) -> None:
    res = tournament(PAIR, games=4, jobs=1)
    assert res.temporary and res.path.parent == private_tmp and res.path.is_dir()
    games = res.games  # read before closing: kept
    with res as same:
        assert same is res
    assert res.closed and not res.path.exists()
    assert games.height == 4 and res.games is games
    with pytest.raises(RunError, match="was deleted"):
        res.rounds  # noqa: B018 -- not read before closing
    res.close()  # again: nothing happens
    tournament(PAIR, games=4, jobs=1)  # dropped at once: deleted when collected
    gc.collect()
    assert list(private_tmp.iterdir()) == []


def test_moves_false_has_no_moves_table() -> None:
    with tournament(PAIR, games=4, jobs=1, moves=False) as res:
        assert res.rounds.height > 0
        with pytest.raises(RunError, match="moves=False"):
            res.moves  # noqa: B018
        with pytest.raises(RunError, match="unknown table"):
            res.scan("hands")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"strategies": "greedy,random"}, "list of specs"),
        ({"strategies": ["greedy", 3]}, "spec strings"),
        ({"strategies": ["nosuch"]}, "nosuch"),
        ({"strategies": ["greedy", "random", "greedy"]}, "3 strategies for 2 seats"),
        ({"games": 0}, "positive"),
        ({"games": 2.5}, "positive"),
        ({"seed": 2**64}, "64-bit"),
        ({"jobs": -1}, "jobs"),
        ({"seats": "shuffle"}, "rotate or fixed"),
        ({"backend": "slurm"}, "loky or dask"),
        ({"rules": "nope"}, "unknown rules preset"),
        ({"rules": 3}, "preset name"),
        ({"players": 4}, "players must be 2 or 3"),
        ({"rules": hs.Rules.preset("revised", players=3), "players": 2}, "contradicts"),
        ({"out": 5}, "folder path"),
    ],
)
def test_bad_arguments_raise_input_error_and_write_nothing(
    private_tmp: Path, tmp_path: Path, kwargs: dict[str, object], words: str
) -> None:
    args: dict[str, object] = {"strategies": PAIR, "games": 4, "jobs": 1}
    args.update(kwargs)
    with pytest.raises(hs.InputError, match=words):
        tournament(**args)
    assert list(private_tmp.iterdir()) == []


def test_an_out_folder_follows_the_rules_of_out(private_tmp: Path, tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="already exists"):
        tournament(PAIR, games=4, jobs=1, out=full)
    assert [p.name for p in full.iterdir()] == ["notes.txt"]
    run = tournament(PAIR, games=4, jobs=1, out=tmp_path / "run").path
    with pytest.raises(RunError, match="inside the run folder"):
        tournament(PAIR, games=4, jobs=1, out=run / "games" / "x")
    assert not (run / "games" / "x").exists()
    assert list(private_tmp.iterdir()) == []


def test_a_failed_run_leaves_no_temporary_folder(
    private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error while playing (here: the log writer) removes the folder the call made."""
    import haggis_sim.runner.tournament as T

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(T, "execute", broken)
    with pytest.raises(OSError, match="disk full"):
        tournament(PAIR, games=4, jobs=1)
    assert list(private_tmp.iterdir()) == []


@pytest.mark.slow
def test_same_seed_same_games_whatever_jobs(tmp_path: Path) -> None:
    one = tournament(PAIR, games=40, seed=11, jobs=1, chunk_size=10, out=tmp_path / "a")
    two = tournament(PAIR, games=40, seed=11, jobs=2, chunk_size=10, out=tmp_path / "b")
    for table in ("games", "rounds", "moves"):
        assert getattr(one, table).equals(getattr(two, table)), table
    assert one.summary.equals(two.summary)
    other = tournament(PAIR, games=40, seed=12, jobs=1)
    assert not other.games.equals(one.games)


def test_the_package_top_does_not_import_the_runner() -> None:
    """``import haggis_sim`` stays light and names no tournament: the runner's
    ``tournament`` is imported from its own module."""
    code = (
        "import sys, haggis_sim as hs; print('haggis_sim.runner' in sys.modules, "
        "hasattr(hs, 'tournament'), 'tournament' in hs.__all__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_run_config_is_the_one_check() -> None:
    """The API adds no checks of its own to what RunConfig checks: the same message."""
    with pytest.raises(RunError) as api:
        tournament(PAIR, games=0, jobs=1)
    with pytest.raises(RunError) as cfg:
        RunConfig(strategies=PAIR, games=0, rules=hs.Rules.preset(players=2).as_dict()).validate()
    assert str(api.value) == str(cfg.value)


def test_precision_stops_early_at_the_same_games_as_a_fixed_run() -> None:
    # a lopsided pairing reaches ±5 points long before 2,000 games
    kw = {"games": 2000, "seed": 3, "jobs": 1}
    with tournament(["heuristic", "random"], precision=0.05, **kw) as sized:
        n = sized.manifest.games
        assert 0 < n < 2000 and sized.manifest.config.precision == 0.05
        with tournament(["heuristic", "random"], games=n, seed=3, jobs=1) as fixed:
            assert sized.games.sort("game_id").equals(fixed.games.sort("game_id"))
    with pytest.raises(RunError, match="--precision must be"):
        tournament(["heuristic", "random"], precision=0.7, **kw)


def test_an_absurdly_fine_precision_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    with pytest.raises(hs.InputError, match="--precision must be a half-width from 0.0001"):
        tournament(["greedy", "random"], games=10, precision=1e-300, out=tmp_path / "t")
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"moves": "no"}, "moves (--log-moves) must be True or False"),
        ({"progress": 5}, "progress must be a function"),
        ({"games": True}, "--games must be a positive whole number, got True"),
        ({"seed": True}, "--seed must be a 64-bit integer, got True"),
        ({"chunk_size": True}, "--chunk-size must be 0 (automatic)"),
        ({"jobs": True}, "--jobs"),
    ],
)
def test_arguments_of_the_wrong_type_are_refused_before_anything_is_written(
    kwargs: dict, words: str, tmp_path: Path
) -> None:
    with pytest.raises(hs.InputError, match=re.escape(words)):
        tournament(["greedy", "random"], **{"games": 4, **kwargs}, out=tmp_path / "t")
    assert not (tmp_path / "t").exists()
