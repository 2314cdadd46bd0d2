"""Compile once, say so (haggis_sim/runner/warmup.py).

The parent compiles (or loads) everything a run's workers call before they start, and
says so when the cache lacks it; the workers then only load from the cache, and the
games/s a run reports leaves the compile out.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from haggis_sim.runner import run as run_module
from haggis_sim.runner import warmup
from haggis_sim.runner.run import RunConfig, execute

ROOT = Path(__file__).resolve().parents[2]
HAGGIS_SIM = str(Path(sys.executable).with_name("haggis-sim"))
RULES = {"preset": "revised", "players": 2}

# A worker after the parent's compile, in a fresh process: which compiled functions does
# playing a chunk add to those the warm-up's throw-away game compiled or loaded? (an
# overload from the cache or a new compile: either means the warm-up missed something a
# worker calls, which on an empty cache the worker would compile itself)
WORKER = """
import gc, json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from haggis_sim.cli.common import build_rules
from haggis_sim.runner.chunk import play_chunk
from haggis_sim.runner.run import RunConfig
from haggis_sim.runner.warmup import compile_engine
from strategies import Strategy
from strategies.registry import register

@register
class LastPlay(Strategy):
    name = "test-last-play"
    description = "the last legal action (tests)"
    def act(self, observation, legal, rng):
        return legal[-1]

def overloads():
    return {(d.py_func.__qualname__, str(sig)) for d in gc.get_objects()
            if isinstance(d, Dispatcher) for sig in d.overloads}

found = {}
for specs, players, seats, log_moves, warm in json.loads(sys.argv[1]):
    rules = build_rules("revised", players, [])
    config = RunConfig(strategies=specs, games=40, rules=rules.as_dict(), seed=7,
                       seats=seats, log_moves=log_moves)
    if warm:
        compile_engine(config)
    before = overloads()
    rules, strategies = config.validate()
    play_chunk(rules.to_array(), strategies, np.arange(8, 16, dtype=np.int64), 7, seats,
               log_moves)
    found[",".join(specs)] = sorted(map(list, overloads() - before))
print(json.dumps(found))
"""


def worker_adds(cases: list[tuple[Any, ...]]) -> dict[str, list[list[str]]]:
    """Run :data:`WORKER` over ``cases`` in one fresh process (this session's cache)."""
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(cases)],
        capture_output=True, text=True, cwd=ROOT, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # a fresh interpreter loads the compiled engine
def test_after_the_warm_up_playing_a_chunk_needs_no_compiled_function_it_lacks() -> None:
    """Every compiled function (and signature) a chunk calls is one the warm-up's
    throw-away game (stand-in strategies) already compiled or loaded, whether the run's
    strategies are compiled (a search and a model among them), mixed with a Python one,
    at 2 or 3 players, with fixed or rotated seats, with or without move logs."""
    cases = [
        (["greedy", "heuristic"], 2, "rotate", True, True),
        (["mcts:iters=8", "learned"], 3, "fixed", False, True),
        (["test-last-play", "greedy"], 2, "rotate", True, True),
    ]
    for case in cases:  # a process each: one case's loads must not hide another's misses
        assert worker_adds([case]) == {",".join(case[0]): []}


@pytest.mark.slow  # a fresh interpreter loads the compiled engine
def test_without_the_warm_up_a_chunk_loads_the_engine() -> None:
    """The check above can see a miss: a fresh process that skips the warm-up must load
    the game loop when it plays (so an empty list above means the warm-up had it)."""
    added = worker_adds([(["greedy", "heuristic"], 2, "rotate", True, False)])
    assert "_play_compiled" in {name for name, _ in added["greedy,heuristic"]}


def test_the_warm_up_comes_before_the_first_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``execute`` warms up before its first progress call (where the CLI starts the
    clock of its games/s and the progress bar its rate), once, and not when nothing is
    left to play."""
    events: list[str] = []

    def spy(config: RunConfig, say: Any) -> float | None:
        events.append("warm-up")
        return warmup.warm_up(config, say)

    monkeypatch.setattr(run_module, "warm_up", spy)
    config = RunConfig(strategies=["greedy", "random"], games=12, rules=_rules(), jobs=1)
    execute(config, tmp_path / "run", on_progress=lambda d, t: events.append(f"{d}/{t}"))
    assert events[:2] == ["warm-up", "0/12"] and events.count("warm-up") == 1, events
    events.clear()
    execute(config, tmp_path / "run", resume=True, on_progress=lambda d, t: events.append("p"))
    assert events == ["p"]


def _rules() -> dict[str, Any]:
    from haggis_sim.cli.common import build_rules

    return build_rules("revised", 2, []).as_dict()


CACHE_PROBE = """
import json
from pathlib import Path
from strategies import Strategy, make
from haggis_sim.runner.warmup import is_cached, key_functions

class Python(Strategy):
    name = "test-python"

out = {}
for label, strategies in (("compiled", [make("greedy")]), ("mixed", [Python(), make("greedy")])):
    said = [is_cached(strategies)]
    for d in key_functions(strategies):
        folder = Path(d.stats.cache_path)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "x.other_function-1.py311.nbi").touch()
        said.append(is_cached(strategies))
        (folder / f"x.{d.py_func.__qualname__}-1.py311.nbi").touch()
    said.append(is_cached(strategies))
    out[label] = said
print(json.dumps(out))
"""


def test_is_cached_looks_for_the_key_functions_index_files(tmp_path: Path) -> None:
    """An empty cache, one holding other functions only, or a part of the key functions
    (a compile cut short) is not the engine; the index files of all the key functions
    are (a look at the folder: nothing is compiled)."""
    env = {**os.environ, "HAGGIS_SIM_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", CACHE_PROBE], capture_output=True, text=True, env=env,
        cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == {
        "compiled": [False, False, True],
        "mixed": [False, False, False, False, True],
    }
    assert not list(tmp_path.rglob("*.nbc"))  # nothing was compiled


def test_the_estimate_is_the_last_measured_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path))
    assert warmup.estimate() == warmup.DEFAULT_SECONDS
    warmup._record(42.25)
    assert warmup.estimate() == 42.2 or warmup.estimate() == 42.3
    (tmp_path / warmup.TIMING_FILE).write_text("{not json")
    assert warmup.estimate() == warmup.DEFAULT_SECONDS
    assert warmup.compiling_line(91.6) == (
        "compiling the engine (first run on this machine, about 92 s)…"
    )


@pytest.mark.slow
def test_a_first_run_says_it_compiles_once_before_compiling_and_workers_only_load(
    tmp_path: Path,
) -> None:
    """A fresh cache, two loky workers, output redirected and --quiet: the compile line
    is the first thing said, before any file is in the cache; it is said once (not by
    each worker), and so is ``compiled in``; no worker adds to the cache after the
    parent's warm-up; the summary's seconds leave the compile out; a second run, on the
    cache the first left, says nothing about compiling."""
    cache = tmp_path / "cache"
    env = {**os.environ, "HAGGIS_SIM_CACHE_DIR": str(cache)}
    args = [HAGGIS_SIM, "run", "-s", "greedy,heuristic", "-n", "40", "-j", "2", "-q"]
    with (tmp_path / "stdout").open("w") as stdout:
        proc = subprocess.Popen(
            [*args, "--out", str(tmp_path / "first")], stdout=stdout,
            stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        assert proc.stderr is not None
        lines: list[tuple[float, str]] = [(time.time(), line) for line in proc.stderr]
        assert proc.wait(timeout=900) == 0, lines
    said = [line.rstrip("\n") for _, line in lines]
    expected = "note: " + warmup.compiling_line(warmup.DEFAULT_SECONDS)
    assert said[0] == expected, said
    assert sum("compiling the engine" in s for s in said) == 1, said
    compiled = [i for i, s in enumerate(said) if re.fullmatch(r"note: compiled in \d+ s", s)]
    assert len(compiled) == 1, said
    files = [p for p in cache.glob("numba-*/**/*") if p.is_file()]
    assert files
    mtimes = [p.stat().st_mtime for p in files]
    assert min(mtimes) > lines[0][0] - 0.5, "the cache was written before the line"
    assert max(mtimes) <= lines[compiled[0]][0], "a worker compiled after the warm-up"
    seconds = json.loads((cache / warmup.TIMING_FILE).read_text())["seconds"]
    summary = re.search(r"40 games in ([\d.]+) s", (tmp_path / "stdout").read_text())
    assert summary and float(summary.group(1)) < seconds
    again = subprocess.run(
        [*args, "--out", str(tmp_path / "second")], capture_output=True, text=True, env=env,
        timeout=300,
    )  # fmt: skip
    assert again.returncode == 0 and "compil" not in again.stderr, again.stderr


def test_with_the_engine_cached_the_warm_up_says_and_does_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once compiled (by the first call, if this session's cache was empty), a warm-up
    neither says anything nor plays its throw-away game."""
    config = RunConfig(strategies=["heuristic", "greedy"], games=10, rules=_rules())
    warmup.warm_up(config, lambda _m: None)

    def played(_config: Any) -> None:
        raise AssertionError("the throw-away game was played with the engine cached")

    monkeypatch.setattr(warmup, "compile_engine", played)
    said: list[str] = []
    assert warmup.warm_up(config, said.append) is None and said == []


# A ctypes callback, as LLVM makes while numba compiles: a SIGINT handled inside it
# raises KeyboardInterrupt there, which ctypes swallows (reported to sys.unraisablehook);
# numba then fails later with a RuntimeError of its own
_CALLBACK = ctypes.CFUNCTYPE(None)


def _interrupted_inside_a_callback() -> None:
    def body() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, inside the callback

    _CALLBACK(body)()


@pytest.mark.parametrize("then_fails", [True, False], ids=["then-numba-fails", "then-done"])
def test_ctrl_c_swallowed_inside_the_compile_leaves_it_as_keyboard_interrupt(
    monkeypatch: pytest.MonkeyPatch, then_fails: bool
) -> None:
    """Ctrl-C during the first compile: without :func:`warmup.interrupts_kept` the
    interrupt is swallowed (a report to ``sys.unraisablehook``) and numba's RuntimeError
    escapes as a traceback; with it, a KeyboardInterrupt leaves the block (also when the
    compile went on to finish), the swallowed one is not reported, and the SIGINT handler
    and the hook are Python's own again afterwards."""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    reports: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", reports.append)

    def compile_like_numba() -> None:
        _interrupted_inside_a_callback()
        if then_fails:
            raise RuntimeError("no compiled object yet for <Library 'act'>")

    if then_fails:  # the failure the context manager exists for, as it is without it
        with pytest.raises(RuntimeError, match="no compiled object yet"):
            compile_like_numba()
        assert [type(r.exc_value) for r in reports] == [KeyboardInterrupt]
        reports.clear()
    with pytest.raises(KeyboardInterrupt), warmup.interrupts_kept():
        compile_like_numba()
    assert reports == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert sys.unraisablehook == reports.append
    with warmup.interrupts_kept():  # no SIGINT: the block's own outcome, unchanged
        pass
    with pytest.raises(ValueError), warmup.interrupts_kept():
        raise ValueError("a plain error stays itself")


@pytest.mark.slow
def test_ctrl_c_during_the_first_compile_says_one_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """A SIGINT a few seconds into a fresh compile: exit 130, the compile note and one
    line that says nothing was written (no traceback, no advice to resume a run that has
    no manifest), and the run folder is not created."""
    env = {**os.environ, "HAGGIS_SIM_CACHE_DIR": str(tmp_path / "cache")}
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [HAGGIS_SIM, "run", "-s", "greedy,heuristic", "-n", "100", "-q", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert "compiling the engine" in first, first
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == [
        f"interrupted before the first game: nothing was written to {out}; "
        "run the same command again"
    ], stderr
    assert not out.exists()
