"""The typed run manifest: one loader, one-line errors for damaged manifests everywhere.

A run's ``manifest.json`` is read by one loader (:func:`load_manifest`) into a frozen
:class:`Manifest`; anything wrong with the file (not JSON, not UTF-8, not an object, a
field missing or of the wrong type) is a :class:`ManifestError` naming the file and the
field. Every command that reads a run turns that into one ``error:`` line with status 2.
The record writes back byte for byte what it read, and the run configuration keeps the
digest it always had (resumes of existing runs depend on both).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim import SPEC_VERSION, StrategySpec
from haggis_sim.logs.manifest import MANIFEST, ManifestError, load_manifest
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished run with move logs (never changed: cases damage copies)."""
    out = tmp_path_factory.mktemp("manifest") / "ref"
    res = invoke("run", "--strategies", "greedy,random:bet=0.3", "--players", "2",
                 "--games", "6", "--seed", "3", "--jobs", "1", "--out", str(out), "-q")  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr)
    return out


def _edited(edit: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], bytes]:
    """A damage that edits the real manifest (status set to running, so it may resume)."""

    def damage(m: dict[str, Any]) -> bytes:
        m["status"] = "running"
        edit(m)
        return json.dumps(m).encode()

    return damage


# each damage: the bytes to write given the real manifest, and words the error must hold
DAMAGES: dict[str, tuple[Callable[[dict[str, Any]], bytes], tuple[str, ...]]] = {
    "empty object": (lambda m: b"{}", ()),
    "array": (lambda m: b"[]", ("not a JSON object",)),
    "players only": (lambda m: b'{"players": "x"}', ()),
    "players not a number": (_edited(lambda m: m.update(players="x")), ("'players'",)),
    "seed missing": (_edited(lambda m: m.pop("seed")), ("'seed'",)),
    "strategies not a list": (_edited(lambda m: m.update(strategies=5)), ("'strategies'",)),
    "config games not a number": (
        _edited(lambda m: m["config"].update(games="6")),
        ("'config.games'",),
    ),
    "not utf-8": (lambda m: b'{"players": "\xff\xfe"}', ("cannot be read",)),
    "truncated": (lambda m: json.dumps(m, indent=2).encode()[:200], ("cannot be read",)),
}


def _damaged(reference: Path, tmp: Path, damage: str) -> tuple[Path, tuple[str, ...]]:
    """A copy of the reference run whose manifest carries ``damage``."""
    run = tmp / "run"
    shutil.copytree(reference, run)
    path = run / MANIFEST
    make, words = DAMAGES[damage]
    path.write_bytes(make(json.loads(path.read_text())))
    return run, (MANIFEST, *words)


def _snapshot(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


COMMANDS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "replay": lambda run, ref, tmp: ["replay", str(run), "0"],
    "show": lambda run, ref, tmp: ["show", str(run), "0", "--out", str(tmp / "g.html")],
    "compare": lambda run, ref, tmp: ["compare", str(ref), str(run)],
    "study": lambda run, ref, tmp: ["study", "bets", str(run), "--positions", "2"],
    "query": lambda run, ref, tmp: ["query", str(run), "SELECT count(*) AS n FROM games"],
    "run --resume": lambda run, ref, tmp: ["run", "--resume", str(run), "--jobs", "1", "-q"],
    "report": lambda run, ref, tmp: ["report", str(run), "--out", str(tmp / "rep")],
}


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_damaged_manifest_is_one_error_line(
    reference: Path, tmp_path: Path, command: str, damage: str
) -> None:
    """Every reader of a run refuses a damaged manifest with one line naming the file
    (and the field, where one is at fault), status 2, and changes nothing."""
    run, words = _damaged(reference, tmp_path, damage)
    before = _snapshot(run)
    one_line_error(invoke(*COMMANDS[command](run, reference, tmp_path)), *words)
    assert _snapshot(run) == before
    assert not (tmp_path / "g.html").exists() and not (tmp_path / "rep").exists()


def test_the_loader_names_the_file_and_the_field(reference: Path, tmp_path: Path) -> None:
    for damage in DAMAGES:
        run, words = _damaged(reference, tmp_path / damage, damage)
        with pytest.raises(ManifestError) as info:
            load_manifest(run)
        message = str(info.value)
        assert "\n" not in message and str(run / MANIFEST) in message, message
        for word in words:
            assert word in message, (damage, word, message)


def test_the_record_is_typed_and_frozen(reference: Path) -> None:
    m = load_manifest(reference)
    assert m.players == 2 and m.seed == 3 and m.games == 6 and m.status == "complete"
    assert m.rules == Rules.preset("revised", players=2)
    assert [s.text for s in m.config.records] == ["greedy", "random:bet=0.3"] and m.config.log_moves
    assert m.config.records[1] == StrategySpec("random", (("bet", "0.3"),), SPEC_VERSION)
    assert m.spec_version == SPEC_VERSION
    assert [s.spec for s in m.strategies] == ["greedy", "random:bet=0.3"]
    assert isinstance(m.strategies, tuple) and m.strategies[1].params == {"bet": 0.3}
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.players = 3  # type: ignore[misc]


def test_the_record_writes_back_the_bytes_it_read(reference: Path) -> None:
    """Resume rewrites the manifest from the record: nothing else may change."""
    text = (reference / MANIFEST).read_text()
    assert json.dumps(load_manifest(reference).to_dict(), indent=2) == text


def test_run_config_keeps_its_digest_and_holds_records() -> None:
    """The digests of two fixed configurations, as computed before the record was typed:
    a run started by an earlier version must resume under this one."""
    a = RunConfig(strategies=["greedy", "random:bet=0.3"], games=60, seed=7, command="x",
                  rules=Rules.preset("revised", players=2).as_dict())  # fmt: skip
    b = RunConfig(strategies=["heuristic"], games=5, seed=-3, seats="fixed", log_moves=False,
                  rules=Rules.preset("classic", players=3, bet_values=(5,)).as_dict(),
                  command="y")  # fmt: skip
    assert a.digest() == "d2a96e1923efc00c2d690866c88f6d65079fdb5e0a3e292c02c9aa2497350fd8"
    assert b.digest() == "9e1a835422bb6d420d5fc7a45eee07ca88556d69058288bfa8e8f978445fe948"
    assert a.strategies == (StrategySpec("greedy"), StrategySpec("random", (("bet", "0.3"),)))
    assert a.as_dict()["strategies"] == ["greedy", "random:bet=0.3"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.games = 1  # type: ignore[misc]
