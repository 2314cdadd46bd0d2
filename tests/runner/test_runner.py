"""The tournament runner end to end: ``haggis-sim run``, ``query``, ``replay``, ``strategies``.

Runs are small (hundreds of games). Most go through the command line in this process
(``typer.testing.CliRunner``); what needs real processes (Dask, killing a run, a plug-in
found on ``PYTHONPATH``, the terminal progress bar) runs ``python -m haggis_sim.cli``.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from cli_helpers import invoke, one_line_error

import haggis_sim
from haggis_sim.analytics.replay import ReplayMismatch, replay
from haggis_sim.logs import ledger
from haggis_sim.position import game_seed

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

KEYS = {"games": ["game_id"], "rounds": ["game_id", "round"], "moves": ["game_id", "round", "turn"]}
HAND = 17  # 14 suit cards + J Q K, with 2 and with 3 players
RUN2 = [
    "--strategies", "greedy,random:bet=0.3", "--players", "2", "--games", "600",
    "--chunk-size", "150", "--seed", "11",
]  # fmt: skip
RUN3 = [
    "--strategies", "random:bet=0.3,greedy,random", "--players", "3", "--games", "300",
    "--chunk-size", "70", "--seed", "5", "--rules", "deluxe",
]  # fmt: skip
# replayed game by game: bets (three bet values, threshold settlement), bombs, gives
REPLAY2 = [
    "--strategies", "random:bet=0.3,greedy", "--players", "2", "--games", "20",
    "--chunk-size", "8", "--seed", "21", "--rules", "deluxe",
]  # fmt: skip
REPLAY3 = [
    "--strategies", "random:bet=0.3", "--players", "3", "--games", "30",
    "--chunk-size", "12", "--seed", "22", "--rules", "aid", "--rule", "bomb_capture=tournament",
]  # fmt: skip


# --- helpers --------------------------------------------------------------------------------


def run_in_process(out: Path, args: list[str], *extra: str) -> Path:
    result = invoke("run", *args, *extra, "--out", str(out), "-q")
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return out


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(extra)
    return env


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Any:
    """``python -m haggis_sim.cli ARGS`` in a new process."""
    return subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        capture_output=True,
        text=True,
        env=env or cli_env(),
        timeout=timeout,
    )


def table(run_dir: Path, name: str) -> pl.DataFrame:
    """One whole table of a run, in key order (independent of chunks and workers)."""
    return pl.read_parquet(run_dir / name / "part-*.parquet").sort(KEYS[name])


def assert_same_logs(a: Path, b: Path) -> None:
    for name in KEYS:
        ta, tb = table(a, name), table(b, name)
        assert ta.schema == tb.schema, name
        assert ta.height == tb.height, name
        assert ta.equals(tb), f"{name} differ between {a.name} and {b.name}"


def manifest(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "manifest.json").read_text())
    return data


def ledger_ranges(run_dir: Path) -> list[tuple[int, int]]:
    """The game ranges the run's ledger records as finished, in order."""
    lines = (run_dir / "parts.jsonl").read_text().splitlines()
    return sorted((json.loads(x)["start"], json.loads(x)["stop"]) for x in lines)


def temporaries(run_dir: Path) -> list[Path]:
    return [p for p in run_dir.rglob("*") if ".tmp" in p.name]


# --- shared runs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The reference runs (--jobs 1, in this process)."""
    base = tmp_path_factory.mktemp("runs")
    return {
        "2p": run_in_process(base / "2p", RUN2, "--jobs", "1"),
        "3p": run_in_process(base / "3p", RUN3, "--jobs", "1"),
        "replay2": run_in_process(base / "replay2", REPLAY2, "--jobs", "1"),
        "replay3": run_in_process(base / "replay3", REPLAY3, "--jobs", "1"),
    }


RUN_ARGS = {"2p": RUN2, "3p": RUN3}
PLAYERS = {"2p": 2, "3p": 3, "replay2": 2, "replay3": 3}


# --- same games whatever executes them --------------------------------------------------------


@pytest.mark.parametrize("which", ["2p", "3p"])
def test_jobs_2_writes_the_same_games_as_jobs_1(
    which: str, runs: dict[str, Path], tmp_path: Path
) -> None:
    other = run_in_process(tmp_path / "jobs2", RUN_ARGS[which], "--jobs", "2")
    assert len(list((other / "games").glob("part-*.parquet"))) > 1  # several chunks
    assert_same_logs(runs[which], other)


@pytest.mark.parametrize("which", ["2p", "3p"])
def test_dask_local_cluster_writes_the_same_games_as_jobs_1(
    which: str, runs: dict[str, Path], tmp_path: Path
) -> None:
    pytest.importorskip("distributed")
    out = tmp_path / "dask"
    res = cli("run", *RUN_ARGS[which], "--backend", "dask", "--jobs", "2", "--out", str(out), "-q")
    assert res.returncode == 0, res.stderr
    assert manifest(out)["status"] == "complete"
    assert_same_logs(runs[which], out)


# --- resuming ---------------------------------------------------------------------------------

RESUME_ARGS = [
    "--strategies", "greedy,random", "--games", "6000", "--chunk-size", "200", "--seed", "7",
]  # fmt: skip


def start_and_stop(out: Path, args: list[str], sig: int) -> subprocess.Popen[str]:
    """Start a run; once a chunk is in the ledger but the run is not finished, send ``sig``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "haggis_sim.cli", "run", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    deadline = time.monotonic() + 60

    def finished() -> int:
        try:
            return len(ledger_ranges(out))
        except (OSError, ValueError):
            return 0

    before = finished()
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if finished() > before:
            try:
                status = manifest(out)["status"]
            except (OSError, ValueError, KeyError):
                status = None
            if status == "running":
                proc.send_signal(sig)
                break
        time.sleep(0.005)
    proc.wait(timeout=60)
    return proc


def test_killed_run_resumed_equals_uninterrupted_run(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    proc = start_and_stop(out, [*RESUME_ARGS, "--jobs", "1", "--out", str(out), "-q"], 9)
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    done = sorted((out / "games").glob("part-*.parquet"))
    assert 1 <= len(done) < 30 and manifest(out)["status"] == "running"

    # Ctrl-C while resuming: a clean stop that says how to continue
    proc = start_and_stop(out, ["--resume", str(out), "--jobs", "1", "-q"], signal.SIGINT)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert proc.returncode == 130, err
    assert f"--resume {out}" in err and "Traceback" not in err
    done = sorted((out / "games").glob("part-*.parquet"))
    assert 2 <= len(done) < 30

    # a chunk caught between its parts: moves and rounds written (one of them cut
    # short), games not; and temporaries of a writer that died mid-write
    last = done[-1].name
    (out / "games" / last).unlink()
    moves = pl.read_parquet(out / "moves" / last)
    moves.head(10).write_parquet(out / "moves" / last)
    (out / "moves" / ".part-0000000600-0000000800.parquet.tmp-123").write_bytes(b"PAR1 half")
    (out / "games" / f".{last}.tmp-99999").write_bytes(b"")
    (out / "rounds" / ".part-0000005800-0000006000.parquet.tmp-1").write_bytes(b"junk")

    res = invoke("run", "--resume", str(out), "--jobs", "2", "-q")
    assert res.exit_code == 0, (res.stderr, res.exception)
    ref = run_in_process(tmp_path / "ref", RESUME_ARGS, "--jobs", "1")
    assert_same_logs(ref, out)
    games = table(out, "games")
    assert games["game_id"].to_list() == list(range(6000))  # each game id exactly once
    assert table(out, "moves").select("game_id", "round", "turn").is_duplicated().sum() == 0
    assert temporaries(out) == []
    m = manifest(out)
    assert m["status"] == "complete"
    assert ledger_ranges(out) == [(a, a + 200) for a in range(0, 6000, 200)]
    assert sorted(p.name for p in (out / "moves").iterdir()) == sorted(
        p.name for p in (ref / "moves").iterdir()
    )


def test_resume_of_a_finished_run_changes_nothing(runs: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runs["replay2"], copy)
    before = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*.parquet")}
    res = invoke("run", "--resume", str(copy), "--jobs", "1", "-q")
    assert res.exit_code == 0, res.stderr
    after = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*.parquet")}
    assert before == after
    assert manifest(copy)["status"] == "complete"


def test_folder_left_by_a_kill_before_the_manifest_is_not_a_dead_end(tmp_path: Path) -> None:
    """Killed between creating the table folders and writing manifest.json (the folder
    holds only empty table folders): the same command carries on and plays every game;
    --resume says plainly there is no run to resume, without sending the user back to
    the command, and leaves the folder as it was."""
    early = [tmp_path / "again", tmp_path / "resume"]
    for out in early:
        for name in KEYS:
            (out / name).mkdir(parents=True)
    args = ["--strategies", "greedy,random", "--games", "20", "--jobs", "1"]
    again = invoke("run", *args, "--out", str(early[0]), "-q")
    assert again.exit_code == 0, again.stderr
    assert table(early[0], "games")["game_id"].to_list() == list(range(20))
    assert manifest(early[0])["status"] == "complete"
    resumed = invoke("run", "--resume", str(early[1]), "--jobs", "1", "-q")
    assert resumed.exit_code == 2, resumed.stderr
    assert resumed.stderr.startswith("error: ") and resumed.stderr.count("\n") == 1
    assert "no manifest.json" in resumed.stderr and "--resume" not in resumed.stderr
    assert sorted(p.relative_to(early[1]) for p in early[1].rglob("*")) == sorted(map(Path, KEYS))


# --- replay -----------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["replay2", "replay3"])
def test_every_logged_game_replays(which: str, runs: dict[str, Path]) -> None:
    run_dir = runs[which]
    moves = table(run_dir, "moves")
    kinds = set(moves["type"].cast(pl.String).unique())
    assert {"bet", "bomb", "set", "sequence", "pass"} <= kinds  # the logs cover them
    ids = table(run_dir, "games")["game_id"].to_list()
    assert ids == list(range(manifest(run_dir)["games"]))
    for gid in ids:
        lines = list(replay(run_dir, gid))
        assert lines[-1].startswith("Game over")


def first_part(run_dir: Path, name: str) -> Path:
    return ledger.table_files(run_dir, name)[0]


def tampered_copy(src: Path, dst: Path, name: str, edit: Any) -> Path:
    """A copy of a run with the first part of ``name`` edited, its ledger line forged to
    match: the ledger cannot tell, so replay's own checks must."""
    shutil.copytree(src, dst)
    part = first_part(dst, name)
    frame = pl.read_parquet(part)
    edited = edit(frame).select(frame.columns).cast(frame.schema)
    assert not edited.equals(frame)
    edited.write_parquet(part)
    entries, _ = ledger.read_entries(dst)
    data = part.read_bytes()
    forged = [
        e
        if e.name != part.name
        else ledger.Entry(
            e.start,
            e.stop,
            {**e.files, name: ledger.PartFile(edited.height, len(data), ledger.digest(data))},
        )
        for e in entries
    ]
    ledger.rewrite(dst, forged)
    return dst


def play_row(moves: pl.DataFrame, game_id: int) -> int:
    """Index (in the chunk's moves part) of the first card play of round 0 of a game."""
    rows = moves.with_row_index().filter(
        (pl.col("game_id") == game_id) & (pl.col("round") == 0) & (pl.col("n_cards") > 0)
    )
    return int(rows["index"][0])


def set_at(frame: pl.DataFrame, index: int, column: str, value: Any) -> pl.DataFrame:
    at = pl.int_range(pl.len()) == index
    return frame.with_columns(
        pl.when(at).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
    )


def test_replay_detects_tampered_logs(runs: dict[str, Path], tmp_path: Path) -> None:
    src = runs["replay3"]
    moves = pl.read_parquet(first_part(src, "moves"))
    gid = 3
    i = play_row(moves, gid)
    seat = int(moves["seat"][i])
    # a suit card another seat plays in this round: the actor never holds it
    others = moves.filter(
        (pl.col("game_id") == gid) & (pl.col("round") == 0) & (pl.col("seat") != seat)
    )
    foreign = int(others.filter(pl.col("n_cards") > 0)["cards"][0]) & ((1 << 45) - 1)
    assert foreign
    old = int(moves["cards"][i])
    new_cards = old | (foreign & -foreign)  # plus one card the actor never held
    assert new_cards != old
    edits = {
        "cards": lambda f: set_at(f, i, "cards", new_cards),
        "seat": lambda f: set_at(f, i, "seat", (seat + 1) % 3),
    }
    for what, edit in edits.items():
        bad = tampered_copy(src, tmp_path / what, "moves", edit)
        with pytest.raises(ReplayMismatch):
            list(replay(bad, gid))
        res = invoke("replay", str(bad), str(gid))
        assert res.exit_code == 1, (what, res.stdout[-500:], res.stderr)
        assert "REPLAY MISMATCH" in res.stderr
        assert "Traceback" not in res.stderr
        # the other games of the part are untouched and still replay
        assert list(replay(bad, gid + 1))[-1].startswith("Game over")

    # a round score that the engine does not reproduce
    rounds_bad = tampered_copy(
        src,
        tmp_path / "score",
        "rounds",
        lambda f: f.with_columns(
            pl.when((pl.col("game_id") == gid) & (pl.col("round") == 0))
            .then(pl.col("total_1") + 1)
            .otherwise(pl.col("total_1"))
            .alias("total_1")
        ),
    )
    with pytest.raises(ReplayMismatch, match="total"):
        list(replay(rounds_bad, gid))

    # the log of a game cut short
    last = int(moves.with_row_index().filter(pl.col("game_id") == gid)["index"].to_list()[-1])
    short = tampered_copy(
        src,
        tmp_path / "short",
        "moves",
        lambda f: f.with_row_index().filter(pl.col("index") != last),
    )
    with pytest.raises(ReplayMismatch):
        list(replay(short, gid))

    # untouched logs replay through the CLI with exit status 0
    ok = invoke("replay", str(src), str(gid))
    assert ok.exit_code == 0, ok.stderr
    assert "Game over" in ok.stdout


# --- log contents -----------------------------------------------------------------------------


def bits_of(cards: np.ndarray, lo: int, hi: int) -> list[tuple[int, np.ndarray]]:
    return [(b, ((cards >> b) & 1).astype(bool)) for b in range(lo, hi)]


@pytest.mark.parametrize("which", ["2p", "3p", "replay2", "replay3"])
def test_cards_are_conserved_in_every_logged_round(which: str, runs: dict[str, Path]) -> None:
    run_dir, players = runs[which], PLAYERS[which]
    moves = table(run_dir, "moves")
    rounds = table(run_dir, "rounds")
    cards = moves["cards"].to_numpy().astype(np.int64)
    kind = moves["type"].cast(pl.String).to_numpy()
    n_cards = moves["n_cards"].to_numpy().astype(np.int64)
    assert (cards >> 48 == 0).all() and (cards >= 0).all()
    popcount = np.bitwise_count(cards.astype(np.uint64)).astype(np.int64)
    assert (popcount == n_cards).all()
    plays = np.isin(kind, ["set", "sequence", "bomb"])
    assert (n_cards[plays] > 0).all() and (cards[~plays] == 0).all()

    key = moves["game_id"].to_numpy().astype(np.int64) * 256 + moves["round"].to_numpy()
    # no suit card is played twice in a round; 2 players use suits a-d only
    played = np.concatenate([key[sel] * 64 + b for b, sel in bits_of(cards, 0, 45)])
    assert len(np.unique(played)) == len(played)
    if players == 2:
        assert not any(sel.any() for b, sel in bits_of(cards, 0, 45) if b % 5 == 4)
    # each seat plays each of its own J, Q, K at most once a round
    seat_key = key * 4 + moves["seat"].to_numpy()
    faces = np.concatenate([seat_key[sel] * 64 + b for b, sel in bits_of(cards, 45, 48)])
    assert len(np.unique(faces)) == len(faces)

    # per seat and round: cards played + cards left = 17; out seats have none left
    per_seat = moves.group_by("game_id", "round", "seat").agg(
        pl.col("n_cards").cast(pl.Int64).sum().alias("played"),
        pl.col("hand_after").sort_by("turn").last().cast(pl.Int64).alias("left"),
        (
            pl.col("hand_after").sort_by("turn").first().cast(pl.Int64)
            + pl.col("n_cards").sort_by("turn").first()
        ).alias("start"),
    )
    assert per_seat.height == rounds.height * players  # every seat acts in every round
    assert (per_seat["played"] + per_seat["left"] == HAND).all()
    assert (per_seat["start"] == HAND).all()
    outs = rounds.select(
        "game_id", "round", pl.concat_list("shepherd", "second_out").alias("out")
    ).explode("out")
    outs = outs.filter(pl.col("out").is_not_null())
    assert outs.height == rounds.height * (players - 1)
    left_out = per_seat.join(
        outs.rename({"out": "seat"}), on=["game_id", "round", "seat"], how="inner"
    )
    assert left_out.height == outs.height and (left_out["left"] == 0).all()
    sheep = per_seat.join(
        rounds.select("game_id", "round", pl.col("black_sheep").alias("seat")),
        on=["game_id", "round", "seat"],
    )
    assert sheep.height == rounds.height and (sheep["left"] > 0).all()

    # turns count the round's actions; tricks are the plays that won one
    per_round = moves.group_by("game_id", "round").agg(
        pl.len().alias("n"),
        pl.col("turn").min().alias("first"),
        pl.col("turn").max().alias("last"),
        pl.col("won_trick").sum().alias("won"),
    )
    both = per_round.join(rounds, on=["game_id", "round"])
    assert both.height == rounds.height == per_round.height
    assert (both["n"] == both["actions"].cast(pl.UInt32)).all()
    assert (both["first"] == 0).all() and (both["last"] == both["n"] - 1).all()
    assert (both["won"] == both["tricks"].cast(pl.UInt32)).all()
    winners = moves.filter(pl.col("won_trick"))
    assert winners["trick_to"].null_count() == 0
    assert winners["type"].cast(pl.String).is_in(["set", "sequence", "bomb"]).all()


@pytest.mark.parametrize("which", ["2p", "3p", "replay2", "replay3"])
def test_round_and_game_scores_add_up(which: str, runs: dict[str, Path]) -> None:
    run_dir, n = runs[which], PLAYERS[which]
    rounds, games = table(run_dir, "rounds"), table(run_dir, "games")
    m = manifest(run_dir)
    for k in range(n):
        parts = sum(
            pl.col(f"{p}_{k}").cast(pl.Int64) for p in ("going_out", "cards", "bets", "bonus")
        )
        assert (rounds[f"total_{k}"].cast(pl.Int64) == rounds.select(parts).to_series()).all()
        assert rounds[f"total_{k}"].null_count() == 0
    for k in range(n, 3):
        assert rounds[f"total_{k}"].null_count() == rounds.height
        assert games[f"score_{k}"].null_count() == games.height
    sums = rounds.group_by("game_id").agg(
        pl.len().alias("n_rounds"),
        *(pl.col(f"total_{k}").cast(pl.Int64).sum().alias(f"sum_{k}") for k in range(n)),
    )
    joined = games.join(sums, on="game_id", how="left")
    assert joined.height == games.height == m["games"]
    assert joined["n_rounds"].null_count() == 0
    assert (joined["n_rounds"] == joined["rounds"].cast(pl.UInt32)).all()
    for k in range(n):
        assert (joined[f"sum_{k}"] == joined[f"score_{k}"].cast(pl.Int64)).all()
    target = m["rules"]["target_score"]
    for row in games.iter_rows(named=True):
        scores = [row[f"score_{k}"] for k in range(n)]
        assert scores.count(max(scores)) == 1
        assert row["winner"] == scores.index(max(scores))
        assert max(scores) >= target
        assert row["winner_entry"] == row[f"entry_{row['winner']}"]
        specs = [s["spec"] for s in m["strategies"]]
        for k in range(n):
            assert row[f"strategy_{k}"] == specs[row[f"entry_{k}"]]


def test_rotated_seats_replay_each_deal_with_seats_swapped(runs: dict[str, Path]) -> None:
    games = table(runs["2p"], "games")
    assert (games["deal_id"] == games["game_id"] // 2).all()
    even, odd = games[0::2], games[1::2]
    assert (even["deal_seed"] == odd["deal_seed"]).all()
    assert (even["entry_0"] == odd["entry_1"]).all() and (even["entry_1"] == odd["entry_0"]).all()
    assert set(even["entry_0"].to_list()) == {0}
    assert even["deal_seed"].n_unique() == even.height  # a new deal for every pair
    assert int(games["deal_seed"][6]) == game_seed(11, 3)  # what hs.Game(seed, deal id) deals

    games3 = table(runs["3p"], "games")
    assert (games3["deal_id"] == games3["game_id"] // 6).all()
    for _, group in games3.group_by("deal_id"):
        assert group["deal_seed"].n_unique() == 1
        orders = {tuple(r) for r in group.select("entry_0", "entry_1", "entry_2").rows()}
        assert len(orders) == group.height == 6  # every seat order once per deal
        assert all(sorted(o) == [0, 1, 2] for o in orders)


# --- bad input ---------------------------------------------------------------------------------

BAD_RUNS = {
    "unknown strategy": (["--strategies", "greedy,nosuch"], ["nosuch", "greedy", "random"]),
    "parameter out of range": (["--strategies", "random:bet=2"], ["bet"]),
    "unknown parameter": (["--strategies", "random:foo=1"], ["foo"]),
    "parameter not a number": (["--strategies", "random:bet=lots"], ["bet"]),
    "games 0": (["--games", "0"], ["--games"]),
    "games -5": (["--games", "-5"], ["--games"]),
    "games abc": (["--games", "abc"], ["--games"]),
    "games 1.5": (["--games", "1.5"], ["--games"]),
    "too many strategies": (["--strategies", "greedy,random,random"], ["at most 2"]),
    "too many strategies 3p": (
        ["--players", "3", "--strategies", "greedy,random,random,greedy"],
        ["at most 3"],
    ),
    "unknown rule flag": (["--rule", "foo=1"], ["foo", "bomb_capture"]),
    "bad rule value": (["--rule", "bomb_capture=sometimes"], ["bomb_capture"]),
    "rule value not a number": (["--rule", "target_score=high"], ["target_score"]),
    "unknown preset": (["--rules", "nosuch"], ["nosuch", "revised"]),
    "players 4": (["--players", "4"], ["players"]),
    "seats": (["--seats", "shuffled"], ["--seats"]),
    "backend": (["--backend", "spark"], ["--backend"]),
    "chunk size": (["--chunk-size", "-5"], ["--chunk-size"]),
    "seed beyond 64 bits": (["--seed", "99999999999999999999"], ["seed"]),
}


@pytest.mark.parametrize("case", list(BAD_RUNS))
def test_bad_run_input_is_one_line_and_status_2(case: str, tmp_path: Path) -> None:
    args, words = BAD_RUNS[case]
    out = tmp_path / "out"
    res = invoke("run", "--games", "10", *args, "--jobs", "1", "--out", str(out), "-q")
    one_line_error(res, *words)
    assert not out.exists() or not any(out.rglob("*.parquet"))


def test_existing_out_is_refused_and_left_alone(runs: dict[str, Path]) -> None:
    run_dir = runs["replay2"]
    before = {p: p.stat().st_mtime_ns for p in run_dir.rglob("*")}
    res = invoke("run", *REPLAY2, "--jobs", "1", "--out", str(run_dir), "-q")
    one_line_error(res, "--resume", str(run_dir))
    assert {p: p.stat().st_mtime_ns for p in run_dir.rglob("*")} == before


def test_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("not a folder")
    res = invoke("run", "--games", "10", "--jobs", "1", "--out", str(target), "-q")
    one_line_error(res, str(target))
    assert target.read_text() == "not a folder"


def test_resume_of_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    (tmp_path / "stuff.txt").write_text("x")
    for folder in (tmp_path, tmp_path / "missing"):
        one_line_error(invoke("run", "--resume", str(folder), "-q"), str(folder))


def test_bad_query_and_replay_input(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = runs["replay2"]
    one_line_error(invoke("query", str(run_dir), "SELEC count(*) FROM games"))
    one_line_error(invoke("query", str(run_dir), "SELECT nosuch FROM games"), "nosuch")
    one_line_error(invoke("query", str(run_dir), "SELECT * FROM nosuch"), "nosuch")
    one_line_error(invoke("query", str(tmp_path), "SELECT 1"), str(tmp_path))
    one_line_error(
        invoke("query", str(run_dir), "SELECT 1", "--to", str(tmp_path / "x.txt")), "--to"
    )
    one_line_error(invoke("replay", str(run_dir), "20"), "20")
    one_line_error(invoke("replay", str(run_dir), "4000000000"), "4000000000")
    one_line_error(invoke("replay", str(tmp_path), "0"), str(tmp_path))


def test_empty_query_is_an_error(runs: dict[str, Path]) -> None:
    one_line_error(invoke("query", str(runs["replay2"]), ""))


def test_bad_input_has_no_traceback_from_a_real_process(tmp_path: Path) -> None:
    res = cli(
        "run", "--strategies", "greedy,nosuch", "--games", "abc", "--out", str(tmp_path / "o")
    )
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")


# --- query --------------------------------------------------------------------------------------


def test_query_returns_the_numbers_of_the_logs(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = runs["2p"]
    games = table(run_dir, "games")
    shown = invoke("query", str(run_dir), "SELECT count(*) AS n_games FROM games")
    assert shown.exit_code == 0, shown.stderr
    assert "n_games" in shown.stdout and "600" in shown.stdout

    sql = (
        "SELECT CASE winner WHEN 0 THEN strategy_0 ELSE strategy_1 END::VARCHAR AS strategy, "
        "count(*) AS wins, avg(rounds) AS mean_rounds FROM games GROUP BY 1 ORDER BY 1"
    )
    csv = tmp_path / "wins.csv"
    res = invoke("query", str(run_dir), sql, "--to", str(csv))
    assert res.exit_code == 0, res.stderr
    got = pl.read_csv(csv)
    expected = (
        games.with_columns(
            pl.when(pl.col("winner") == 0)
            .then(pl.col("strategy_0").cast(pl.String))
            .otherwise(pl.col("strategy_1").cast(pl.String))
            .alias("strategy")
        )
        .group_by("strategy")
        .agg(pl.len().alias("wins"), pl.col("rounds").mean().alias("mean_rounds"))
        .sort("strategy")
    )
    assert got["strategy"].to_list() == expected["strategy"].to_list()
    assert got["wins"].to_list() == expected["wins"].to_list()
    assert np.allclose(got["mean_rounds"].to_numpy(), expected["mean_rounds"].to_numpy())
    assert got["wins"].sum() == 600

    moves = table(run_dir, "moves")
    pq = tmp_path / "bombs.parquet"
    res = invoke(
        "query",
        str(run_dir),
        "SELECT game_id, count(*) AS bombs FROM moves WHERE type = 'bomb' "
        "GROUP BY game_id ORDER BY game_id",
        "--to",
        str(pq),
    )
    assert res.exit_code == 0, res.stderr
    bombs = pl.read_parquet(pq)
    want = moves.filter(pl.col("type") == "bomb").group_by("game_id").len().sort("game_id")
    assert bombs["game_id"].to_list() == want["game_id"].to_list()
    assert bombs["bombs"].to_list() == want["len"].to_list()
    assert bombs.height > 0

    rounds = table(run_dir, "rounds")
    res = invoke(
        "query", str(run_dir), "SELECT sum(actions) AS a, count(*) AS r FROM rounds",
        "--to", str(tmp_path / "r.csv"),
    )  # fmt: skip
    assert res.exit_code == 0
    row = pl.read_csv(tmp_path / "r.csv").row(0, named=True)
    assert row == {"a": moves.height, "r": rounds.height}


# --- a strategy written in Python, found through an entry point ----------------------------------

PLUGIN = """
import os

from strategies import Strategy

_calls = 0


class Lowest(Strategy):
    name = "lowest"
    description = "the lowest-ranked legal play; passes when it can; gives to the first choice"

    def act(self, observation, legal, rng):
        global _calls
        _calls += 1
        limit = os.environ.get("HAGGIS_TEST_CRASH_AFTER")
        if limit and _calls > int(limit):
            os._exit(3)  # a worker crash (tests only)
        assert observation.seat == observation.to_act
        for a in legal:
            if a.type == "pass":
                return a
        plays = [a for a in legal if a.type == "play"]
        if plays:
            return min(plays, key=lambda a: (a.combo.rank, a.code))
        gives = [a for a in legal if a.type == "give"]
        return gives[0]


class Cheat(Strategy):
    name = "cheat"
    description = "returns an action that is never legal"

    def act(self, observation, legal, rng):
        return 123456789
"""
PLUGIN_RUN = [
    "--strategies", "lowest,greedy", "--games", "20", "--chunk-size", "4", "--seed", "3",
    "--jobs", "2",
]  # fmt: skip


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A plug-in package on PYTHONPATH: a module and a dist-info with the entry points."""
    site = tmp_path_factory.mktemp("plugin")
    (site / "mymod_haggis_test.py").write_text(PLUGIN)
    info = site / "mypkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[haggis_sim.strategies]\n"
        "lowest = mymod_haggis_test:Lowest\n"
        "cheat = mymod_haggis_test:Cheat\n"
    )
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return cli_env(PYTHONPATH=path)


@pytest.fixture(scope="module")
def plugin_run(plugin_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Any:
    """lowest against greedy on two workers (both must find the plug-in)."""
    out = tmp_path_factory.mktemp("plugin-run") / "run"
    res = cli("run", *PLUGIN_RUN, "--out", str(out), "-q", env=plugin_env)
    return res, out


def test_python_strategy_plugin_is_listed_runs_and_replays(
    plugin_env: dict[str, str], plugin_run: Any
) -> None:
    listed = cli("strategies", env=plugin_env)
    assert listed.returncode == 0, listed.stderr
    names = [line.split(":")[0] for line in listed.stdout.splitlines() if not line[:1].isspace()]
    assert names == sorted(names) and {"lowest", "greedy", "random"} <= set(names)
    assert "the lowest-ranked legal play" in listed.stdout

    res, out = plugin_run
    assert res.returncode == 0, res.stderr
    assert "lowest" in res.stdout and "greedy" in res.stdout
    games = table(out, "games")
    assert games["game_id"].to_list() == list(range(20))
    assert set(games["strategy_0"].cast(pl.String)) == {"lowest", "greedy"}
    moves = table(out, "moves").join(games.select("game_id", "entry_0", "entry_1"), on="game_id")
    lowest = moves.filter(
        pl.when(pl.col("seat") == 0).then(pl.col("entry_0")).otherwise(pl.col("entry_1")) == 0
    )
    assert lowest.height > 0
    assert (lowest["type"] != "bet").all()  # it never bets
    # it passes whenever it may: every play it makes opens a trick
    first_of_trick = moves.group_by("game_id", "round", "trick").agg(pl.col("turn").min())
    lowest_plays = lowest.filter(pl.col("n_cards") > 0).select("game_id", "round", "trick", "turn")
    assert lowest_plays.height > 0
    opened = lowest_plays.join(first_of_trick, on=["game_id", "round", "trick", "turn"])
    assert opened.height == lowest_plays.height
    for gid in range(20):
        assert list(replay(out, gid))[-1].startswith("Game over")


def test_worker_crash_then_resume_equals_uninterrupted_run(
    plugin_env: dict[str, str], plugin_run: Any, tmp_path: Path
) -> None:
    res, ref = plugin_run
    assert res.returncode == 0, res.stderr
    out = tmp_path / "crash"
    crashed = cli(
        "run", *PLUGIN_RUN, "--out", str(out), "-q",
        env={**plugin_env, "HAGGIS_TEST_CRASH_AFTER": "200"}, timeout=90,
    )  # fmt: skip
    assert crashed.returncode != 0
    assert manifest(out)["status"] == "running"
    assert len(list((out / "games").glob("part-*.parquet"))) < 5
    resumed = cli("run", "--resume", str(out), "--jobs", "2", "-q", env=plugin_env)
    assert resumed.returncode == 0, resumed.stderr
    assert manifest(out)["status"] == "complete"
    assert temporaries(out) == []
    assert_same_logs(ref, out)


@pytest.fixture(scope="module")
def cheat_run(
    plugin_env: dict[str, str], plugin_run: Any, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    # after plugin_run the cache holds the step-by-step engine: no compile note on stderr
    out = tmp_path_factory.mktemp("cheat") / "run"
    return cli(
        "run", "--strategies", "cheat,greedy", "--games", "4", "--jobs", "1",
        "--out", str(out), "-q", env=plugin_env, timeout=60,
    )  # fmt: skip


def test_python_strategy_with_an_illegal_action_fails_clearly(cheat_run: Any) -> None:
    assert cheat_run.returncode != 0
    assert "cheat" in cheat_run.stderr and "illegal action" in cheat_run.stderr


def test_python_strategy_with_an_illegal_action_gives_a_one_line_error(cheat_run: Any) -> None:
    """Like every other failure the user can fix: one ``error:`` line, no traceback."""
    assert cheat_run.returncode != 0
    assert "Traceback" not in cheat_run.stderr, cheat_run.stderr[-300:]
    lines = cheat_run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "cheat" in lines[0]


# --- progress, summary and manifest --------------------------------------------------------------


def test_run_prints_progress_summary_and_writes_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "summary"
    args = [
        "run", "--strategies", "greedy,random:bet=0.25", "--players", "3", "--games", "120",
        "--chunk-size", "50", "--rules", "classic", "--rule", "target_score=200", "--seed", "9",
        "--jobs", "1", "--out", str(out),
    ]  # fmt: skip
    master, slave = pty.openpty()  # stderr on a terminal: the progress bar is drawn there
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    env = cli_env(COLUMNS="120", TERM="xterm")
    proc = subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", *args],
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
        timeout=120,
    )
    os.close(slave)
    reader.join(timeout=10)
    os.close(master)
    err = b"".join(chunks).decode(errors="replace")
    stdout = proc.stdout.decode()
    assert proc.returncode == 0, err
    assert "games" in err and "120/120" in err  # the progress bar reached the end

    games = table(out, "games")
    wins = games.group_by("winner_entry").len()
    wins_of = dict(zip(wins["winner_entry"].to_list(), wins["len"].to_list(), strict=True))
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) > 4 and cells[1].isdigit():
            rows[int(cells[1])] = cells
    assert sorted(rows) == [0, 1]
    assert rows[0][2] == "greedy" and rows[1][2] == "random:bet=0.25"
    # an entry in several seats of a game: it wins when any of them wins, scores their mean
    seats = pl.concat(
        games.select(
            pl.col("game_id"), pl.col(f"entry_{k}").alias("e"), pl.col(f"score_{k}")
        ).rename({f"score_{k}": "score"})
        for k in range(3)
    )
    means = (
        seats.group_by("game_id", "e")
        .agg(pl.col("score").mean())
        .group_by("e")
        .agg(pl.col("score").mean())
    )
    mean_of = dict(zip(means["e"].to_list(), means["score"].to_list(), strict=True))
    for entry, cells in rows.items():
        assert cells[3] == "120"  # every game has both entries in it
        assert int(cells[4].replace(",", "")) == wins_of.get(entry, 0)
        assert cells[7] == f"{mean_of[entry]:.1f}"
    assert f"logs: {out}/" in stdout
    assert "120 games in" in stdout

    m = manifest(out)
    assert m["command"].startswith("haggis-sim run ") and "--strategies" in m["command"]
    assert "greedy,random:bet=0.25" in m["command"]
    assert m["version"] == haggis_sim.__version__ and m["seed"] == 9 and m["games"] == 120
    assert m["players"] == 3 and m["status"] == "complete"
    assert m["rules"]["preset_name"] == "classic" and m["rules"]["target_score"] == 200
    assert m["rules"]["first_out_bonus"] == 5
    assert m["strategies"] == [
        {"spec": "greedy", "name": "greedy", "params": {}},
        {"spec": "random:bet=0.25", "name": "random", "params": {"bet": 0.25}},
    ]
    assert m["format"] == 3 and m["seating"] == "distinct" and len(m["config_digest"]) == 64
    assert ledger_ranges(out) == [(0, 50), (50, 100), (100, 120)]
    assert m["config"]["seats"] == "rotate" and m["config"]["chunk_size"] == 50
    assert set(m["schema"]) == {"games", "rounds", "moves"}
    assert temporaries(out) == []
