"""Generations of the leaf value (``train-value --generations``): the champion changes
only on a gate that shows the new search stronger, each generation learns from the
champion of its time, OUT is the last promoted generation, the chain is fixed by its
seed, and an interrupted chain resumes game for game."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from chain_helpers import TEACHER, planted
from cli_helpers import invoke, one_line_error

from haggis_sim.training import value_chain, value_train
from haggis_sim.training.chain import ChainHooks, Generation, generation_path, generation_seed
from haggis_sim.training.settings import TrainingRun, ValueFit
from haggis_sim.training.value_chain import train_value_chain
from haggis_sim.training.value_train import train_value
from strategies import StrategyError
from strategies.learned_model import load_value_model

pytestmark = pytest.mark.slow  # value chains train and gate real generations

TINY = ValueFit(games=10, seed=3, teacher=TEACHER, units=3, gate_games=6)


def test_the_champion_changes_only_when_the_gate_shows_the_new_search_stronger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = planted(monkeypatch, 3, {1: 520, 2: 600, 3: 510})  # only generation 2 separates
    out = tmp_path / "v.npz"
    seen: list[Generation] = []
    res = train_value_chain(out, TINY, generations=3, hooks=ChainHooks(on_generation=seen.append))
    assert [g.promoted for g in res.generations] == [False, True, False]
    assert [g.number for g in seen] == [1, 2, 3]
    root = res.generations[0].teacher
    assert root.startswith("mcts:iters=4,") and "value=game" in root
    # generation 2 still learned from (and was gated against) the teacher; 3 from gen 2
    assert res.generations[1].teacher == root
    third = res.generations[2].teacher
    gen2 = generation_path(out, 2)
    assert "value=net" in third and f"vmodel={gen2.resolve()}" in third
    assert [c[1] for c in calls] == [root] * 4 + [third] * 2
    assert res.champion == third and res.champion_number == 2
    # OUT is generation 2, byte for byte, so the champion's pinned SHA-256 holds for it
    assert out.read_bytes() == gen2.read_bytes()
    prov = load_value_model(gen2).provenance
    assert prov["chain"]["generation"] == 2 and prov["chain"]["teacher"] == root
    assert prov["promoted"] is True and prov["seed"] == generation_seed(3, 2)
    third_prov = load_value_model(generation_path(out, 3)).provenance
    assert third_prov["chain"]["teacher"] == third and third_prov["promoted"] is False


def test_a_chain_without_a_promotion_does_not_write_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted(monkeypatch, 3, {})  # every generation even with its champion
    out = tmp_path / "v.npz"
    args = ("-n", "10", "--teacher", TEACHER, "--hidden", "3", "--gate-games", "6",
            "--seed", "3")  # fmt: skip
    res = invoke("train-value", "--out", str(out), *args, "--generations", "2")
    assert res.exit_code == 1, (res.stdout, res.stderr)
    assert "no generation was shown stronger" in res.stderr and "not written" in res.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gen1.npz", "v.gen2.npz"]


def test_a_chain_is_fixed_by_its_seed_and_its_first_generation_is_train_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first generation is what train-value without --generations writes; an
    interrupted chain, run again, takes its finished generations from their files and
    plays the window's self-play again game for game, with the champion of its time
    (generation 2 is promoted: generation 3 learns from its search and from the
    teacher's self-play of generation 2): the last generation's weights are those of an
    uninterrupted chain."""
    planted(monkeypatch, 4, {2: 600})
    whole = tmp_path / "whole"
    cut = tmp_path / "cut"
    single = tmp_path / "single.npz"
    whole.mkdir()
    cut.mkdir()
    fit = replace(TINY, seed=4)
    full = train_value_chain(whole / "v.npz", fit, generations=3, window=2)
    train_value(single, fit)

    def stop_after_two(gen: Generation) -> None:
        if gen.number == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_value_chain(cut / "v.npz", fit, generations=3, window=2,
                          hooks=ChainHooks(on_generation=stop_after_two))  # fmt: skip
    assert sorted(p.name for p in cut.iterdir()) == ["v.gen1.npz", "v.gen2.npz"]
    again = train_value_chain(cut / "v.npz", fit, generations=3, window=2)
    assert [g.resumed for g in again.generations] == [True, True, False]
    assert [g.promoted for g in again.generations] == [g.promoted for g in full.generations]
    counts = [[[(m.players, m.games, m.wins) for m in g.gates] for g in r.generations]
              for r in (again, full)]  # fmt: skip
    assert counts[0] == counts[1]  # the resumed generations' gates, read back from their files
    for k in (1, 2, 3):
        a = load_value_model(generation_path(whole / "v.npz", k))
        b = load_value_model(generation_path(cut / "v.npz", k))
        assert a.hidden is not None and b.hidden is not None
        assert np.array_equal(a.weights, b.weights), k
        assert np.array_equal(a.hidden.weights, b.hidden.weights), k
        wins = [[g["wins"] for g in m.provenance["gate"]] for m in (a, b)]
        assert wins[0] == wins[1], k
    first = load_value_model(generation_path(whole / "v.npz", 1))
    assert np.array_equal(first.weights, load_value_model(single).weights)
    # generation 2 fitted on two generations' games of the teacher, generation 1 on one
    fits = [load_value_model(generation_path(whole / "v.npz", k)).provenance["fit"]
            for k in (1, 2)]  # fmt: skip
    for n in (2, 3):
        assert fits[1][f"train_rows_{n}p"] > 1.5 * fits[0][f"train_rows_{n}p"]


def test_generation_seeds_are_distinct_and_in_the_runners_range() -> None:
    seeds = [generation_seed(7, k) for k in range(1, 30)]
    assert seeds[0] == 7 and len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**63 for s in seeds)
    assert generation_seed(8, 2) != generation_seed(7, 2)


def test_chain_settings_that_cannot_run_are_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "v.npz"
    base = ("train-value", "--out", str(out), "-n", "10", "--teacher", TEACHER)
    gate = ("--gate-games", "6")
    for extra, words in (
        (("--generations", "0"), ["--generations"]),
        (("--window", "2"), ["--window", "--generations"]),
        (("--generations", "2"), ["--gate-games"]),
        ((*gate, "--generations", "2", "--window", "3"), ["--window"]),
        ((*gate, "--generations", "2", "--window", "0"), ["--window"]),
        ((*gate, "--generations", "2", "-n", "30000"), ["--window", "50,000"]),
        ((*gate, "--generations", "99"), ["--generations"]),
    ):
        one_line_error(invoke(*base, *extra), *words)
    assert not list(tmp_path.iterdir())


def test_a_file_of_other_settings_is_kept_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted(monkeypatch, 3, {1: 600})
    out = tmp_path / "v.npz"
    mine = generation_path(out, 2)
    mine.write_bytes(b"mine")
    with pytest.raises(StrategyError, match="--force"):
        train_value_chain(out, TINY, generations=2)
    assert mine.read_bytes() == b"mine" and not generation_path(out, 1).exists()
    # a generation of the same chain but another seed is not taken as done either
    other = tmp_path / "o.npz"
    train_value_chain(other, TINY, generations=2)
    moved = generation_path(out, 1)
    moved.write_bytes(generation_path(other, 1).read_bytes())
    mine.unlink()
    with pytest.raises(StrategyError, match="other settings"):
        train_value_chain(out, replace(TINY, seed=9), generations=2)
    res = train_value_chain(out, replace(TINY, seed=9), generations=2, run=TrainingRun(force=True))
    assert not res.generations[0].resumed
    assert load_value_model(moved).provenance["chain"]["seed"] == 9


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def test_ctrl_c_during_self_play_stops_the_workers_at_once(tmp_path: Path) -> None:
    """Ctrl-C while the workers play minutes of self-play: one line, status 130, nothing
    written, and the command gone within seconds (it used to wait for every game it had
    handed to the workers)."""
    out = tmp_path / "v.npz"
    proc = subprocess.Popen(
        [sys.executable, "-m", "haggis_sim.cli", "train-value", "--out", str(out),
         "--games", "4000", "--teacher", "mcts:iters=32,value=game,model=gen2",
         "--gate-games", "10",
         "--generations", "2", "--jobs", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(_children(proc.pid)) < 2:
        time.sleep(0.1)
    time.sleep(3)  # the workers are playing
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=300)
    stopped = time.monotonic() - t0
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception" not in err, err
    assert err.strip().splitlines()[-1].startswith("interrupted:"), err
    assert stopped < 15, f"{stopped:.0f} s to stop"
    assert not list(tmp_path.iterdir())


def test_an_unwritable_folder_is_refused_before_any_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder that takes no new file is reported at once, not after hours of play."""

    def no_play(*args: object, **kw: object) -> None:
        raise AssertionError("self-play started")

    monkeypatch.setattr(value_train, "generate_values", no_play)
    monkeypatch.setattr(value_chain, "generate_values", no_play)
    base = ("train-value", "--out", "/proc/haggis-v.npz", "-n", "10", "--teacher", TEACHER)
    for extra in ((), ("--gate-games", "6", "--generations", "2")):
        one_line_error(invoke(*base, *extra), "cannot write --out /proc/haggis-v.npz")
    one_line_error(
        invoke("train", "--out", "/proc/haggis-m.npz", "--games", "10"),
        "cannot write --out /proc/haggis-m.npz",
    )
