"""Hostile input to ``haggis-sim run``: edited manifests, damaged parts, impossible options,
operating-system faults, absurd sizes, and interruptions of slow runs (issue #8).

Each case checks the one-line error (exit status 2) or the recovery, and that nothing the
user owns changed. Runs are tiny; the ones that need real signals run in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim.logs import ledger
from haggis_sim.logs.schema import DamagedLogError
from haggis_sim.runner.plan import FIRST_CHUNK, ChunkPlanner, RateMeter
from haggis_sim.runner.pool import local_workers

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

KEYS = {"games": ["game_id"], "rounds": ["game_id", "round"], "moves": ["game_id", "round", "turn"]}
SMALL = ["--strategies", "greedy,random:bet=0.3", "--games", "60", "--chunk-size", "20"]


def table(run_dir: Path, name: str) -> pl.DataFrame:
    return pl.read_parquet(run_dir / name / "part-*.parquet").sort(KEYS[name])


def same_logs(a: Path, b: Path) -> bool:
    return all(table(a, t).equals(table(b, t)) for t in KEYS)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "CI"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "run"
    res = invoke("run", *SMALL, "--jobs", "1", "--out", str(out), "-q")
    assert res.exit_code == 0, res.stderr
    return out


@pytest.fixture
def copy(reference: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(reference, out)
    return out


# --- 4: the manifest is verified, not trusted ---------------------------------------------------


@pytest.mark.parametrize(
    "edit",
    ["strategies", "seed", "games", "summary strategies", "drop config", "not json", "old format"],
)
def test_edited_manifest_is_refused_on_resume(copy: Path, edit: str) -> None:
    path = copy / "manifest.json"
    m = json.loads(path.read_text())
    m["status"] = "running"
    if edit == "strategies":
        m["config"]["strategies"] = ["mcts", "random:bet=0.3"]
    elif edit == "seed":
        m["config"]["seed"] = 99
    elif edit == "games":
        m["config"]["games"] = 80
    elif edit == "summary strategies":
        m["strategies"][0]["spec"] = "heuristic"
    elif edit == "drop config":
        del m["config"]
    elif edit == "old format":
        del m["format"]
    path.write_text("{ not json" if edit == "not json" else json.dumps(m))
    before = snapshot(copy)
    line = one_line_error(invoke("run", "--resume", str(copy), "--jobs", "1", "-q"))
    assert "manifest.json" in line
    assert snapshot(copy) == before


# --- 5: finished parts are verified against the ledger ---------------------------------------


def test_truncated_and_altered_parts_are_played_again(copy: Path, reference: Path) -> None:
    entries, _ = ledger.read_entries(copy)
    assert len(entries) == 3
    cut = entries[0].path(copy, "moves")
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])
    flipped = entries[1].path(copy, "rounds")
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other content: only the digest sees it
    flipped.write_bytes(bytes(data))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["status"] = "running"
    (copy / "manifest.json").write_text(json.dumps(manifest))

    res = invoke("run", "--resume", str(copy), "--jobs", "1", "-q")
    assert res.exit_code == 0, res.stderr
    assert res.stderr.count("damaged:") == 2 and str(cut) in res.stderr, res.stderr
    assert same_logs(copy, reference)
    lines = sorted((copy / "parts.jsonl").read_text().splitlines())
    assert lines == sorted((reference / "parts.jsonl").read_text().splitlines())


def test_readers_name_a_cut_part_and_a_missing_one(copy: Path) -> None:
    entries, _ = ledger.read_entries(copy)
    cut = entries[2].path(copy, "games")
    cut.write_bytes(cut.read_bytes()[:100])
    with pytest.raises(DamagedLogError, match=str(cut)):
        ledger.table_files(copy, "games")
    cut.unlink()
    with pytest.raises(DamagedLogError, match="missing"):
        ledger.table_files(copy, "games")
    one_line_error(invoke("replay", str(copy), "0"), str(cut))


def test_a_torn_ledger_line_and_stray_parts_are_dropped_on_resume(
    copy: Path, reference: Path
) -> None:
    text = (copy / "parts.jsonl").read_text().splitlines()
    # the last chunk's line was cut by a kill: its parts are strays until played again
    (copy / "parts.jsonl").write_text("\n".join(text[:2]) + "\n" + text[2][:30])
    m = json.loads((copy / "manifest.json").read_text())
    m["status"] = "running"
    (copy / "manifest.json").write_text(json.dumps(m))
    res = invoke("run", "--resume", str(copy), "--jobs", "1", "-q")
    assert res.exit_code == 0, res.stderr
    assert "unreadable ledger line" in res.stderr
    assert same_logs(copy, reference)
    assert len(ledger.read_entries(copy)[0]) == 3


# --- 6: resume takes only what it can honour -------------------------------------------------


def test_resume_refuses_options_that_would_change_the_games(copy: Path) -> None:
    before = snapshot(copy)
    line = one_line_error(
        invoke("run", "--resume", str(copy), "--games", "5", "--strategies", "mcts", "-q"),
        "--games",
        "--strategies",
    )
    assert "--jobs" in line  # says what may be given
    one_line_error(invoke("run", "--resume", str(copy), "--out", str(copy / "x")), "--out")
    one_line_error(invoke("run", "--resume", str(copy), "--seed", "0"), "--seed")
    assert snapshot(copy) == before
    res = invoke("run", "--resume", str(copy), "--jobs", "1", "--chunk-size", "7", "-q")
    assert res.exit_code == 0, res.stderr


# --- 7, 8: nothing is created until every check has passed -----------------------------------


def test_unwritable_out_is_one_line(tmp_path: Path) -> None:
    one_line_error(invoke("run", *SMALL, "--jobs", "1", "--out", "/proc/haggis-run", "-q"))
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    one_line_error(invoke("run", *SMALL, "--jobs", "1", "--out", str(blocker / "run"), "-q"))
    assert blocker.read_text() == "mine"


def test_missing_dask_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    out = tmp_path / "run"
    one_line_error(invoke("run", *SMALL, "--backend", "dask", "--out", str(out), "-q"), "dask")
    assert not out.exists()
    monkeypatch.undo()
    res = invoke("run", *SMALL, "--jobs", "1", "--out", str(out), "-q")
    assert res.exit_code == 0, res.stderr  # the same --out is free


def test_skeleton_of_a_killed_start_does_not_block_the_same_out(tmp_path: Path) -> None:
    out = tmp_path / "run"
    for t in KEYS:
        (out / t).mkdir(parents=True)
    (out / "parts.jsonl").write_text("")
    (out / ".manifest.json.tmp").write_text('{"half')
    res = invoke("run", *SMALL, "--jobs", "1", "--out", str(out), "-q")
    assert res.exit_code == 0, res.stderr
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    one_line_error(invoke("run", *SMALL, "--out", str(tmp_path / "other"), "-q"), "other")
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"


# --- 9: workers are capped -------------------------------------------------------------------


def test_absurd_jobs_are_capped_with_a_note(tmp_path: Path) -> None:
    one_line_error(invoke("run", *SMALL, "--jobs", "-1", "--out", str(tmp_path / "x")), "--jobs")
    assert not (tmp_path / "x").exists()
    n, note = local_workers(1000, 20)
    assert 1 <= n <= (os.cpu_count() or 1) and note is not None and "1000" in note
    assert local_workers(0, 3)[0] <= 3
    assert local_workers(1, 10**6) == (1, None)
    out = tmp_path / "run"
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", "run", "--strategies", "greedy,random",
         "--games", "20", "--jobs", "1000", "--out", str(out)],
        capture_output=True, text=True, env=env(), timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "--jobs 1000: using" in proc.stderr and "Traceback" not in proc.stderr
    assert time.monotonic() - t0 < 300
    assert table(out, "games").height == 20


# --- 10: a huge run has a small manifest and plans lazily ------------------------------------


def test_planner_is_lazy_and_bounded_for_huge_runs() -> None:
    planner = ChunkPlanner([(0, 4_000_000_000)], 4_000_000_000)
    first = planner.next_chunk()
    assert first == (0, FIRST_CHUNK)  # small at first, however big the run: progress at once
    planner.record(first[1] - first[0], 0.001)  # very fast games: chunks grow, within bounds
    sizes = []
    for _ in range(10):
        chunk = planner.next_chunk()
        assert chunk is not None
        sizes.append(chunk[1] - chunk[0])
    assert max(sizes) <= planner.max_size
    assert sizes == sorted(sizes)  # growing at most fourfold, or to the part-count floor
    pairs = zip([first[1] - first[0], *sizes], sizes, strict=False)
    assert all(b <= max(4 * a, planner.min_size) for a, b in pairs)
    assert planner.min_size * 20_000 >= 4_000_000_000 or planner.min_size == planner.max_size


def test_planner_aims_at_a_few_seconds_per_chunk() -> None:
    planner = ChunkPlanner([(0, 10_000)], 10_000, log_moves=True, target_seconds=3.0)
    assert planner.next_chunk() == (0, FIRST_CHUNK)
    for _ in range(20):  # a slow strategy: 5 games/s per worker
        chunk = planner.next_chunk()
        assert chunk is not None
        planner.record(chunk[1] - chunk[0], (chunk[1] - chunk[0]) / 5.0)
    chunk = planner.next_chunk()
    assert chunk is not None and chunk[1] - chunk[0] == 15
    fixed = ChunkPlanner([(0, 100), (150, 170)], 170, fixed_size=40)
    got = []
    while (c := fixed.next_chunk()) is not None:
        got.append(c)
    assert got == [(0, 40), (40, 80), (80, 100), (150, 170)]


def test_rate_meter_smooths_bursts() -> None:
    meter = RateMeter(window=30.0)
    meter.update(0.0, 0)
    for t in range(1, 61):  # 100 games/s on average, in bursts every 3 s
        meter.update(float(t), 300 * (t // 3))
    assert meter.rate is not None and 60 < meter.rate < 140
    eta = meter.eta(1000)
    assert eta is not None and 7 < eta < 17


def test_huge_run_starts_at_once_with_a_small_manifest(tmp_path: Path) -> None:
    out = tmp_path / "huge"
    proc = subprocess.Popen(
        [sys.executable, "-m", "haggis_sim.cli", "run", "--strategies", "greedy,random",
         "--games", "4e9", "--jobs", "1", "--no-log-moves", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(),
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "parts.jsonl").exists() and len(ledger.read_entries(out)[0]) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    assert (out / "manifest.json").stat().st_size < 16_000
    assert len(ledger.read_entries(out)[0]) >= 3


# --- 12: slow strategies show progress within seconds and lose little on Ctrl-C --------------


def test_slow_run_progresses_within_seconds_and_stops_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "slow"
    proc = subprocess.Popen(
        # a slow search (the search before its learned prior, about a quarter of the default speed)
        [sys.executable, "-m", "haggis_sim.cli", "run", "--strategies",
         "greedy,mcts:iters=200,prior=none", "--games", "1e6", "--jobs", "2", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(),
    )  # fmt: skip
    first = None
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        entries = ledger.read_entries(out)[0] if (out / "parts.jsonl").exists() else []
        if entries and first is None:
            first = time.monotonic()
        # the estimate is printed while the 5th finished chunk is recorded, right after its
        # ledger line: wait for a 6th line, so Ctrl-C cannot land between the two
        if first is not None and len(entries) >= 6:
            break
        time.sleep(0.05)
    assert first is not None, "no chunk finished"
    entries = ledger.read_entries(out)[0]
    # chunks are small for a slow strategy: each holds a few seconds of play at most
    assert max(e.stop - e.start for e in entries) < 200
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)  # a second Ctrl-C while stopping
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Warning" not in err, err
    assert "estimated time:" in err and "--backend dask" in err, err  # a 1e6 mcts run is long
    assert err.strip().splitlines()[-1].startswith("interrupted:"), err
