"""The compiled-code cache's settings and the Python API's compile notes (haggis_sim/_cache.py).

Where the cache lives (``HAGGIS_SIM_CACHE_DIR``, then ``NUMBA_CACHE_DIR``, then the XDG
cache folder), and the note a process says on standard error when it first compiles the
engine: once, ``compiled in N s`` after, off with ``HAGGIS_SIM_COMPILE_NOTES=0`` or
``haggis_sim.compile_notes(False)``. A run's own compile notes are tested with the
warm-up (tests/runner/test_compile_once.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import haggis_sim as hs
from haggis_sim import _cache

ROOT = Path(__file__).resolve().parent.parent
CACHE_VARIABLES = ("HAGGIS_SIM_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME")


def _clean_env(**values: str) -> dict[str, str]:
    """This environment without the cache variables and the notes' switch, plus ``values``."""
    env = {k: v for k, v in os.environ.items() if k not in (*CACHE_VARIABLES, "HOME")}
    env.pop(_cache.NOTES_VARIABLE, None)
    return {**env, **values}


@pytest.mark.parametrize(
    ("set_", "expected"),
    [
        ({"HAGGIS_SIM_CACHE_DIR": "/h", "NUMBA_CACHE_DIR": "/n", "XDG_CACHE_HOME": "/x"}, "/h"),
        ({"NUMBA_CACHE_DIR": "/n", "XDG_CACHE_HOME": "/x"}, "/n"),
        ({"HAGGIS_SIM_CACHE_DIR": "", "NUMBA_CACHE_DIR": "/n"}, "/n"),
        ({"XDG_CACHE_HOME": "/x"}, "/x/haggis-sim"),
        ({"NUMBA_CACHE_DIR": "", "XDG_CACHE_HOME": ""}, "/home/u/.cache/haggis-sim"),
    ],
    ids=["haggis-first", "then-numba", "empty-is-unset", "then-xdg", "then-home"],
)
def test_the_cache_folder_follows_the_variables_in_order(
    monkeypatch: pytest.MonkeyPatch, set_: dict[str, str], expected: str
) -> None:
    """``HAGGIS_SIM_CACHE_DIR``, else ``NUMBA_CACHE_DIR``, else ``$XDG_CACHE_HOME/
    haggis-sim``, else ``~/.cache/haggis-sim``; the compiled code is in its
    ``numba-<source hash>`` folder whichever it is."""
    for name in CACHE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/home/u")
    for name, value in set_.items():
        monkeypatch.setenv(name, value)
    assert _cache.cache_base() == Path(expected)
    assert _cache.cache_dir() == Path(expected) / f"numba-{_cache.source_hash()}"


PROBE_FOLDER = """
import json, numba
from haggis_sim import _cache
from haggis_sim.engine.rng import derive
print(json.dumps([derive.stats.cache_path, numba.config.CACHE_DIR]))
"""


@pytest.mark.parametrize("haggis_too", [False, True], ids=["numba-only", "both-set"])
def test_numba_cache_dir_is_where_a_new_process_caches_the_engine(
    tmp_path: Path, haggis_too: bool
) -> None:
    """A process started with ``NUMBA_CACHE_DIR`` caches the engine in that folder's
    ``numba-<hash>`` folder (``HAGGIS_SIM_CACHE_DIR``, if set too, wins), and numba's own
    setting is as it was outside the decoration."""
    numba_dir, haggis_dir = tmp_path / "numba", tmp_path / "haggis"
    env = _clean_env(NUMBA_CACHE_DIR=str(numba_dir), HOME=str(tmp_path / "home"))
    if haggis_too:
        env["HAGGIS_SIM_CACHE_DIR"] = str(haggis_dir)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE_FOLDER], capture_output=True, text=True, env=env,
        cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    cache_path, numba_setting = json.loads(proc.stdout)
    base = haggis_dir if haggis_too else numba_dir
    assert Path(cache_path).parent == base / f"numba-{_cache.source_hash()}"
    assert numba_setting == str(numba_dir)


@pytest.mark.parametrize(
    ("value", "on"),
    [(None, True), ("", True), ("1", True), ("0", False), (" Off ", False), ("false", False)],
)
def test_the_notes_switch_reads_the_environment_unless_set(
    monkeypatch: pytest.MonkeyPatch, value: str | None, on: bool
) -> None:
    monkeypatch.setattr(_cache, "_NOTES", _cache._Notes())
    if value is None:
        monkeypatch.delenv(_cache.NOTES_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(_cache.NOTES_VARIABLE, value)
    assert hs.compile_notes() is on
    assert hs.compile_notes(not on) is (not on)  # the call wins over the environment
    assert hs.compile_notes() is (not on)


class _Dispatcher:
    """Stands for a numba dispatcher in the notes' state machine."""


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> _cache._Notes:
    """Fresh notes, on, with a short pause."""
    fresh = _cache._Notes()
    monkeypatch.setattr(_cache, "_NOTES", fresh)
    monkeypatch.setattr(_cache, "PAUSE", 0.05)
    monkeypatch.setenv(_cache.NOTES_VARIABLE, "1")
    return fresh


def _compile(notes: _cache._Notes, dispatcher: object, failed: bool = False) -> None:
    """What numba reports of one compile of ``dispatcher`` and one callee of it."""
    notes.start(dispatcher)
    notes.start(_Dispatcher())  # a nested compile of a callee
    notes.end()
    notes.end(failed)


def test_the_first_compile_is_announced_once_and_its_end_after_a_pause(
    notes: _cache._Notes, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first note comes as the first of the engine's functions starts compiling;
    compiles that follow within the pause (nested ones, or the next call's) are the same
    burst; ``compiled in`` comes once the pause passes without one; a later burst says
    nothing. Another library's compile (not made by ``_cache.njit``) says nothing."""
    monkeypatch.setattr(_cache, "PAUSE", 0.2)
    ours = _Dispatcher()
    _cache._OURS.add(ours)
    _compile(notes, _Dispatcher())
    assert capsys.readouterr().err == ""
    _compile(notes, ours)
    assert capsys.readouterr().err == f"note: {_cache.FIRST_USE}\n"
    for _ in range(6):  # within the pause each: the burst goes on, longer than a pause
        time.sleep(0.05)
        _compile(notes, ours)
    assert capsys.readouterr().err == ""
    time.sleep(0.5)
    assert re.fullmatch(r"note: compiled in \d+ s\n", capsys.readouterr().err)
    _compile(notes, ours)
    time.sleep(0.5)
    notes.finish()  # as at exit
    assert capsys.readouterr().err == ""


def test_compile_notes_not_said_when_off_silenced_or_failed(
    notes: _cache._Notes, capsys: pytest.CaptureFixture[str]
) -> None:
    """Off, nothing is said; within ``unannounced()`` nothing is said (and the first
    compile after it is still announced); a compile that fails (an error, Ctrl-C)
    ends the burst without ``compiled in``; the process's exit says a ``compiled in``
    the pause has not said yet."""
    ours = _Dispatcher()
    _cache._OURS.add(ours)
    hs.compile_notes(False)
    _compile(notes, ours)
    hs.compile_notes(True)
    with _cache.unannounced():
        _compile(notes, ours)
    assert capsys.readouterr().err == ""
    _compile(notes, ours, failed=True)
    time.sleep(0.3)
    assert capsys.readouterr().err == f"note: {_cache.FIRST_USE}\n"

    again = _cache._Notes()
    again.start(ours)
    again.end()
    again.finish()  # at exit, before the pause ends
    again.finish()
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"note: {_cache.FIRST_USE}" and len(err) == 2
    assert re.fullmatch(r"note: compiled in \d+ s", err[1])


PLUG_IN = """
import numba
from haggis_sim._cache import njit


@njit
def add_one(x):
    return x + 1


@numba.njit
def double(x):  # another library's compiled function
    return x * 2
"""

API_USE = """
import sys
import haggis_sim as hs
import plug_in

if sys.argv[1] == "off-by-call":
    hs.compile_notes(False)
plug_in.double(2)
print("before", flush=True)
plug_in.add_one(1)
print("between", flush=True)
plug_in.add_one(1.5)  # a second compile, within the pause: the same burst
"""


@pytest.mark.slow  # four fresh processes compiling; the notes' rules have fast tests above
def test_a_process_that_compiles_the_engine_says_so_once(tmp_path: Path) -> None:
    """Real compiles in fresh processes: the note comes as the engine's function starts
    compiling (not for another library's), ``compiled in`` after the last compile (at
    exit here); a process that finds them cached says nothing; the variable and the call
    turn the notes off."""
    (tmp_path / "plug_in.py").write_text(textwrap.dedent(PLUG_IN))

    def use(mode: str, cache: str, **env: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-c", API_USE, mode], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, cwd=ROOT, timeout=300,
            env=_clean_env(HAGGIS_SIM_CACHE_DIR=str(tmp_path / cache), PYTHONPATH=str(tmp_path),
                           HOME=str(tmp_path), **env),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout[-2000:]
        return proc.stdout.splitlines()

    said = use("on", "a")
    assert said[:3] == ["before", f"note: {_cache.FIRST_USE}", "between"], said
    assert len(said) == 4 and re.fullmatch(r"note: compiled in \d+ s", said[3]), said
    assert use("on", "a") == ["before", "between"]  # loaded from the cache: nothing to say
    assert use("on", "b", HAGGIS_SIM_COMPILE_NOTES="0") == ["before", "between"]
    assert use("off-by-call", "c") == ["before", "between"]


PROBE_SHARED = """
import json
import numpy as np
from haggis_sim.engine.rng import derive
derive(np.int64(3), np.int64(4))
stats = derive.stats
print(json.dumps([stats.cache_path, sum(stats.cache_hits.values()),
                  sum(stats.cache_misses.values())]))
"""


def test_two_copies_of_one_version_share_what_either_compiled(tmp_path: Path) -> None:
    """A fresh clone (CI's, a second checkout) of the same code finds the functions the
    other copy compiled in the same cache folder and loads them; numba's own naming would
    give each copy a folder of its own and compile everything again."""
    copies = [tmp_path / "one" / "haggis-sim", tmp_path / "two" / "checkout"]
    for copy in copies:
        for package in ("haggis_sim", "strategies"):
            shutil.copytree(
                ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__")
            )
    env = _clean_env(HAGGIS_SIM_CACHE_DIR=str(tmp_path / "cache"), HOME=str(tmp_path))
    said = []
    for copy in copies:
        proc = subprocess.run(
            [sys.executable, "-c", PROBE_SHARED], capture_output=True, text=True,
            env={**env, "PYTHONPATH": str(copy)}, cwd=copy, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
        said.append(json.loads(proc.stdout))
    (path_one, hits_one, misses_one), (path_two, hits_two, misses_two) = said
    assert (
        path_one
        == path_two
        == str(tmp_path / "cache" / f"numba-{_cache.source_hash()}" / "haggis_sim_engine")
    )
    assert (hits_one, misses_one) == (0, 1)  # the first copy compiles
    assert (hits_two, misses_two) == (1, 0)  # the second loads it


def test_a_cache_folder_that_cannot_be_written_falls_back_to_numbas_own(
    tmp_path: Path,
) -> None:
    """``HAGGIS_SIM_CACHE_DIR`` naming a file: the engine still compiles and runs, cached
    where numba would put it without the project's folder (beside a copy of the source
    here, so the test writes nothing in the repository)."""
    copy = tmp_path / "copy"
    for package in ("haggis_sim", "strategies"):
        shutil.copytree(
            ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    (tmp_path / "a-file").write_text("")
    env = _clean_env(HAGGIS_SIM_CACHE_DIR=str(tmp_path / "a-file"), HOME=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", PROBE_SHARED], capture_output=True, text=True,
        env={**env, "PYTHONPATH": str(copy)}, cwd=copy, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    cache_path, _, misses = json.loads(proc.stdout)
    assert cache_path == str(copy / "haggis_sim" / "engine" / "__pycache__") and misses == 1
