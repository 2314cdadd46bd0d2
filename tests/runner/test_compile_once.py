"""Compile once, say so (haggis_sim/runner/warmup.py).

The parent compiles (or loads) everything a run's workers call before they start, and
says so when the cache lacks it; the workers then only load from the cache, and the
games/s a run reports leaves the compile out.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from haggis_sim import _cache
from haggis_sim.cli import run as cli_run
from haggis_sim.cli.app import main
from haggis_sim.cli.run import RunProgress
from haggis_sim.runner import run as run_module
from haggis_sim.runner import warmup
from haggis_sim.runner.run import RunConfig, execute
from haggis_sim.runner.tournament import tournament
from strategies import Strategy, make

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
        (["learned", "heuristic"], 2, "rotate", True, True),
        (["test-last-play", "mcts:iters=8"], 2, "fixed", True, True),
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

    def spy(config: RunConfig, say: Any, watch: Any) -> float | None:
        events.append("warm-up")
        return warmup.warm_up(config, say, watch)

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
        "compiled": [False, False, False, True],
        # greedy's dispatcher is in both lists: "compiled" left its index file
        "mixed": [False, False, False, True, True],
    }
    assert not list(tmp_path.rglob("*.nbc"))  # nothing was compiled


def _measured(tmp_path: Path, *entries: tuple[str, str, object]) -> None:
    """Write a timing file holding ``entries`` (installation, version, seconds)."""
    rows = [{"installation": i, "version": v, "seconds": s} for i, v, s in entries]
    (tmp_path / warmup.TIMING_FILE).write_text(json.dumps({"measured": rows}))


def test_the_estimate_is_this_installations_own_for_this_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimate is this installation's measurement of this code version, else its
    latest of another version, else the default: never another installation's figure
    (another checkout sharing the cache folder), whatever order the file lists them."""
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "this_code", lambda unit="": ("/here", "v2"))
    assert warmup.estimate() == warmup.default_seconds()  # no file
    _measured(tmp_path, ("/elsewhere", "v2", 11.0))
    assert warmup.estimate() == warmup.default_seconds()  # only another installation's
    _measured(tmp_path, ("/here", "v0", 30.0), ("/here", "v1", 40.0), ("/elsewhere", "v2", 11))
    assert warmup.estimate() == 40.0  # this installation's latest, of another version
    _measured(tmp_path, ("/here", "v2", 55.5), ("/here", "v1", 40.0), ("/elsewhere", "v2", 11))
    assert warmup.estimate() == 55.5  # this installation and version, though older


def test_the_estimate_is_of_what_the_run_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of the simple kernels compiles a fraction of one with the search: each has
    its own figure, another version's figure of the same unit comes next, and a unit this
    installation has not measured gets its own default, not another unit's figure."""
    from strategies import make

    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "source_hash", lambda: "v2")
    small = warmup.compile_unit([make("greedy"), make("heuristic")])
    big = warmup.compile_unit([make("greedy"), make("mcts")])
    assert small != big
    here = str(_cache.ROOT)
    _measured(tmp_path, (here, f"v1/{small}", 30.0), (here, f"v1/{big}", 90.0))
    assert warmup.estimate(small) == 30.0 and warmup.estimate(big) == 90.0
    warmup._record(28.0, small)
    assert warmup.estimate(small) == 28.0 and warmup.estimate(big) == 90.0
    learned = warmup.compile_unit([make("learned"), make("heuristic")])
    assert warmup.estimate(learned) == warmup.DEFAULT_SECONDS["act_learned"]  # none of its own


def test_the_default_estimate_is_of_the_largest_kernel_family_a_run_compiles() -> None:
    """Before any measurement: the search's figure for a run with mcts (even beside a
    plain-Python player), learned's without it, the simple kernels' otherwise."""
    from strategies import make

    family = warmup.DEFAULT_SECONDS
    assert family["act_simple"] < family["act_learned"] < family["act"]
    cases = [
        ([make("greedy"), make("heuristic")], "act_simple"),
        ([make("random"), make("greedy")], "act_simple"),
        ([make("learned"), make("heuristic")], "act_learned"),
        ([make("greedy"), make("mcts")], "act"),
        ([make("learned"), make("mcts")], "act"),
        ([_Python(), make("mcts")], "act"),
        ([_Python(), make("learned")], "act_learned"),
        ([_Python(), _Python()], "act_simple"),
    ]
    for strategies, expected in cases:
        assert warmup.default_seconds(warmup.compile_unit(strategies)) == family[expected]


def test_a_measured_compile_is_kept_per_installation_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recording replaces this installation and version's entry (moved last, the latest),
    keeps every other installation's, and writes the file whole (no temporary left)."""
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "this_code", lambda unit="": ("/here", "v1"))
    _measured(tmp_path, ("/here", "v1", 40.0), ("/elsewhere", "v1", 11.0))
    warmup._record(42.25)
    assert warmup.measured() == [("/elsewhere", "v1", 11.0), ("/here", "v1", 42.2)]
    monkeypatch.setattr(warmup, "this_code", lambda unit="": ("/here", "v2"))
    assert warmup.estimate() == 42.2  # the new version: this installation's latest
    warmup._record(60)
    assert [e.version for e in warmup.measured()] == ["v1", "v1", "v2"]
    assert warmup.estimate() == 60.0
    assert [p.name for p in tmp_path.iterdir()] == [warmup.TIMING_FILE]
    monkeypatch.setattr(warmup, "MAX_MEASURED", 2)
    warmup._record(61)
    assert [e.seconds for e in warmup.measured()] == [42.2, 61.0]  # the oldest went first


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "\xff\xfe",
        "[" * 100_000 + "]" * 100_000,
        "[]",
        '{"seconds": 42}',  # a single figure for the whole machine: not this installation's
        '{"measured": 3}',
        '{"measured": [3, null, "x", {"installation": "/here", "version": "v1"}]}',
        '{"measured": [{"installation": "/here", "version": "v1", "seconds": -4}]}',
        '{"measured": [{"installation": "/here", "version": "v1", "seconds": true}]}',
        '{"measured": [{"installation": "/here", "version": "v1", "seconds": "40"}]}',
        '{"measured": [{"installation": "/here", "version": "v1", "seconds": NaN}]}',
        '{"measured": [{"installation": "/here", "version": "v1", "seconds": Infinity}]}',
        '{"measured": [{"installation": 1, "version": "v1", "seconds": 40}]}',
    ],
)
def test_a_damaged_or_edited_timing_file_gives_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Whatever the file holds, the estimate is a positive number of seconds (the
    default when nothing in it is a measurement of this installation), and a new
    measurement replaces the damage."""
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "this_code", lambda unit="": ("/here", "v1"))
    (tmp_path / warmup.TIMING_FILE).write_bytes(text.encode("latin-1"))
    assert warmup.estimate() == warmup.default_seconds()
    warmup._record(33)
    assert warmup.estimate() == 33.0


def test_a_timing_file_that_cannot_be_written_loses_only_the_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache folder where no file can be made: recording says nothing and leaves
    nothing (the estimate stays the default)."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(blocked / "cache"))
    warmup._record(12)
    assert warmup.estimate() == warmup.default_seconds()
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


class _Python(Strategy):
    name = "test-python"


def test_the_compile_line_names_what_compiles() -> None:
    """The engine, plus the strategy kernels named by the compiled strategies (each once,
    in seat order); a plain-Python strategy adds nothing to compile."""
    greedy, heuristic, mcts = make("greedy"), make("heuristic"), make("mcts:iters=8")
    assert warmup.what_compiles([greedy, heuristic, greedy]) == (
        "the engine and the strategy kernels for greedy, heuristic"
    )
    assert warmup.what_compiles([_Python(), mcts]) == "the engine and the strategy kernels for mcts"
    assert warmup.what_compiles([_Python(), _Python()]) == "the engine"
    assert warmup.compiling_line("the engine", 91.6) == (
        "compiling the engine (not yet cached for this version, about 92 s)…"
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
    what = "the engine and the strategy kernels for greedy, heuristic"
    unit = warmup.compile_unit([make("greedy"), make("heuristic")])
    assert said[0] == "note: " + warmup.compiling_line(what, warmup.default_seconds(unit)), said
    assert sum("compiling the engine" in s for s in said) == 1, said
    compiled = [i for i, s in enumerate(said) if re.fullmatch(r"note: compiled in \d+ s", s)]
    assert len(compiled) == 1, said
    files = [p for p in cache.glob("numba-*/**/*") if p.is_file()]
    assert files
    # only what greedy and heuristic need: neither the search, nor the network, nor the
    # dispatcher that holds them
    names = {p.name for p in files}
    assert any(".act_simple-" in n for n in names), sorted(names)
    for unused in (".act-", ".act_learned-", ".mcts_act-", ".learned_act-"):
        assert not any(unused in n for n in names), (unused, sorted(names))
    mtimes = [p.stat().st_mtime for p in files]
    assert min(mtimes) > lines[0][0] - 0.5, "the cache was written before the line"
    assert max(mtimes) <= lines[compiled[0]][0], "a worker compiled after the warm-up"
    (entry,) = json.loads((cache / warmup.TIMING_FILE).read_text())["measured"]
    unit = warmup.compile_unit([make("greedy"), make("heuristic")])
    assert entry["installation"] == str(_cache.ROOT)
    assert entry["version"] == f"{_cache.source_hash()}/{unit}"
    seconds = entry["seconds"]
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


@pytest.fixture
def fresh_notes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This process's compile notes as in a new process, on by default, and the timing
    file in a folder of the test's own."""
    monkeypatch.setattr(_cache, "_NOTES", _cache._Notes())
    monkeypatch.setenv(_cache.NOTES_VARIABLE, "1")
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path / "cache-base"))


class _Watch:
    """A ``watch`` for warm_up that records when it is shown and removed."""

    def __init__(self) -> None:
        self.events: list[str] = []

    @contextlib.contextmanager
    def __call__(self, what: str, estimate: float) -> Iterator[None]:
        self.events.append(f"shown: {what}, {estimate:.0f}")
        try:
            yield
        finally:
            self.events.append("removed")


def _uncompiled(monkeypatch: pytest.MonkeyPatch, compile_engine: Any = None) -> list[str]:
    """Make warm_up find the cache empty and compile with ``compile_engine`` (nothing by
    default); the returned list records what happened when."""
    events: list[str] = []
    monkeypatch.setattr(warmup, "is_cached", lambda _s: False)
    monkeypatch.setattr(
        warmup, "compile_engine", compile_engine or (lambda _c: events.append("compiled"))
    )
    return events


@pytest.mark.usefixtures("fresh_notes")
@pytest.mark.parametrize("notes", [True, False], ids=["api-notes-on", "api-notes-off"])
def test_the_warm_up_says_what_compiles_and_shows_it_while_compiling(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], notes: bool
) -> None:
    """The run's two lines go to ``say``; ``watch`` is shown around the compile (with
    what compiles and the estimate) and removed after it; the same two lines go to
    standard error when the Python API's notes are on, and nothing does when they are off."""
    _cache.compile_notes(notes)
    events = _uncompiled(monkeypatch)
    watch = _Watch()
    config = RunConfig(strategies=["greedy", "random"], games=4, rules=_rules())
    said: list[str] = []
    assert warmup.warm_up(config, said.append, watch) is not None
    what = "the engine and the strategy kernels for greedy, random"
    seconds = warmup.DEFAULT_SECONDS["act_simple"]
    first = warmup.compiling_line(what, seconds)
    assert said == [first, "compiled in 0 s"]
    assert watch.events == [f"shown: {what}, {seconds:.0f}", "removed"] and events == ["compiled"]
    err = capsys.readouterr().err.splitlines()
    assert err == ([f"note: {first}", "note: compiled in 0 s"] if notes else [])


@pytest.mark.usefixtures("fresh_notes")
def test_ctrl_c_in_a_watched_compile_removes_the_line_and_says_no_compiled_in(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A compile cut short: the live line is removed, KeyboardInterrupt leaves the
    warm-up, no ``compiled in`` is said and no time is recorded for the estimate."""

    def interrupted(_config: Any) -> None:
        watch.events.append("compiling")
        raise KeyboardInterrupt

    _uncompiled(monkeypatch, interrupted)
    watch = _Watch()
    said: list[str] = []
    config = RunConfig(strategies=["greedy"], games=4, rules=_rules())
    with pytest.raises(KeyboardInterrupt):
        warmup.warm_up(config, said.append, watch)
    assert [e.split(":")[0] for e in watch.events] == ["shown", "compiling", "removed"]
    assert len(said) == 1 and said[0].startswith("compiling the engine")
    assert not (tmp_path / "cache-base" / warmup.TIMING_FILE).exists()
    assert "compiled in" not in capsys.readouterr().err


def test_the_live_compile_line_counts_the_seconds_then_gives_way_to_the_bar() -> None:
    """In a terminal, :meth:`RunProgress.compiling` shows what compiles and the seconds
    against the estimate, refreshed by a thread of its own while the main thread is
    busy, alone (the games bar is not shown yet); the bar starts at the first update,
    its elapsed time counted from there (not from the compile)."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=200)
    with RunProgress(console) as progress:
        with progress.compiling("the engine", 70.4):
            time.sleep(1.6)  # as a compile: the main thread does not refresh the line
            during = out.getvalue()
        assert "compiling the engine: 0 s of about 70 s" in during
        assert re.search(r"compiling the engine: [1-9] s of about 70 s", during), during
        assert "games" not in out.getvalue()
        progress.update(0, 10)
        progress.update(5, 10)
    bar = out.getvalue()[len(during) :]
    assert "5/10" in bar and "0:00:00" in bar and "0:00:01" not in bar


def test_the_command_shows_the_live_line_while_it_compiles_with_a_progress_bar(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``haggis-sim run`` with its progress bar (a terminal, not --quiet) has the warm-up
    show its compile with :meth:`RunProgress.compiling`."""
    events = _uncompiled(monkeypatch)

    @contextlib.contextmanager
    def compiling(_self: RunProgress, what: str, estimate: float) -> Iterator[None]:
        events.append(f"shown: {what}")
        yield
        events.append("removed")

    monkeypatch.setattr(RunProgress, "compiling", compiling)
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(tmp_path / "cache-base"))
    config = RunConfig(strategies=["greedy", "random"], games=4, rules=_rules(), jobs=1)
    cli_run._play_and_summarize(config, tmp_path / "r", resume=False, show=True)
    what = "the engine and the strategy kernels for greedy, random"
    assert events == [f"shown: {what}", "compiled", "removed"]


@pytest.mark.usefixtures("fresh_notes")
def test_the_command_says_each_compile_line_once_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``haggis-sim run`` with output redirected: its first line on standard error is the
    compile note, and it and ``compiled in`` are said once each (the Python API's notes,
    on in this environment, are not said besides), with no live line."""
    _uncompiled(monkeypatch)
    monkeypatch.setenv("PYTHONWARNINGS", "")  # main() adds a filter for loky's tracker
    args = ["run", "-s", "greedy,random", "-n", "4", "-j", "1", "--out", str(tmp_path / "r")]
    with pytest.raises(SystemExit) as done:
        main(args)
    err = capsys.readouterr().err.splitlines()
    assert done.value.code == 0, err
    what = "the engine and the strategy kernels for greedy, random"
    seconds = warmup.DEFAULT_SECONDS["act_simple"]
    assert err[0] == "note: " + warmup.compiling_line(what, seconds), err
    assert [line.split(" (")[0] for line in err if "compil" in line] == [
        f"note: compiling {what}",
        "note: compiled in 0 s",
    ], err


@pytest.mark.usefixtures("fresh_notes")
def test_a_tournament_that_compiles_says_so_once_on_stderr_and_in_its_notes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """From Python, a tournament's compile is said once on standard error (the run's own
    two lines, not the first-use note besides), kept in the result's notes, and no later
    compile of the process is announced again."""
    _uncompiled(monkeypatch)
    result = tournament(["greedy", "random"], games=4, jobs=1, out=tmp_path / "t")
    first = warmup.compiling_line(
        "the engine and the strategy kernels for greedy, random",
        warmup.DEFAULT_SECONDS["act_simple"],
    )
    assert result.notes[:2] == (first, "compiled in 0 s")
    assert capsys.readouterr().err.splitlines() == [f"note: {first}", "note: compiled in 0 s"]
    ours = next(iter(_cache._OURS))
    _cache._NOTES.start(ours)  # as numba reports a compile of the engine's
    _cache._NOTES.end()
    _cache._NOTES.finish()
    assert capsys.readouterr().err == ""


@pytest.mark.usefixtures("fresh_notes")
def test_a_runs_chunk_leaves_compile_notes_to_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A worker that compiles while it plays a chunk (say a plug-in's own compiled code)
    says nothing of it: its process's output is the run's terminal, and the run said
    what it compiles."""
    real = run_module.play_chunk
    ours = next(iter(_cache._OURS))

    def compiling_chunk(*args: Any) -> Any:
        _cache._NOTES.start(ours)  # as numba reports a compile of one of the engine's
        _cache._NOTES.end()
        return real(*args)

    monkeypatch.setattr(run_module, "play_chunk", compiling_chunk)
    config = RunConfig(strategies=["greedy", "random"], games=4, rules=_rules())
    run_module.run_chunk(config.as_dict(), None, 0, 4)
    _cache._NOTES.finish()
    assert capsys.readouterr().err == ""


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
