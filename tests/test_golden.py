"""Golden runs and playthroughs: a change to dealing, the RNGs or move order must show here.

Fresh reference runs (one per rules preset and player count, played through the runner
and read back from their Parquet logs) are compared with the digests in
``tests/golden/runs.json``, and replays of a few logged games with the transcripts in
``tests/golden/playthroughs/``. This test only reads those files; they change only through
``python tests/golden/regenerate.py`` (see that script).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from run_helpers import GOLDEN, golden

G = golden()
STORED: dict[str, Any] = G.load_stored()
RUN_NAMES = list(dict.fromkeys([*STORED["runs"], *(c.name for c in G.CASES)]))
PLAYTHROUGH_NAMES = list(dict.fromkeys([*STORED["playthroughs"], *G.PLAYTHROUGH_GAMES]))

HOW_TO_REGENERATE = (
    "If this change is deliberate (dealing, an RNG, move order, a strategy, a preset or the "
    f"log schema changed on purpose), run `{G.REGENERATE}` from the repository root, read "
    "its summary, and commit tests/golden/ with the change that caused it: reports/ and the "
    "README's figures were computed from the old games and may need re-running."
)


def _golden_files() -> dict[str, str]:
    return {
        str(p.relative_to(GOLDEN)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(GOLDEN.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every golden item recomputed once, in a temporary folder (the goldens are not touched)."""
    before = _golden_files()
    result: dict[str, Any] = G.compute(tmp_path_factory.mktemp("golden"))
    result["files_before"] = before
    return result


def test_goldens_are_checked_in() -> None:
    assert G.RUNS_FILE.exists(), f"{G.RUNS_FILE} is missing. {HOW_TO_REGENERATE}"
    assert STORED["runs"], f"{G.RUNS_FILE} holds no runs. {HOW_TO_REGENERATE}"
    assert STORED["playthroughs"], f"no transcripts in {G.PLAYTHROUGHS}. {HOW_TO_REGENERATE}"


def test_every_preset_and_player_count_has_a_golden_run() -> None:
    import haggis_sim as hs

    covered = {(r["preset"], r["players"]) for r in STORED["runs"].values()}
    wanted = set()
    for preset in hs.PRESETS:
        for players in (2, 3):
            try:
                hs.Rules.preset(preset, players=players)
            except ValueError:  # a preset for the other player count only
                continue
            wanted.add((preset, players))
    assert wanted <= covered, f"no golden run for {sorted(wanted - covered)}. {HOW_TO_REGENERATE}"
    specs = {s.split(":")[0] for r in STORED["runs"].values() for s in r["strategies"]}
    assert {"greedy", "random", "heuristic", "mcts"} <= specs


@pytest.mark.parametrize("name", RUN_NAMES)
def test_golden_run(fresh: dict[str, Any], name: str) -> None:
    """The run's configuration and every table's rows, types and content are as stored."""
    changes = G.case_changes(STORED["runs"].get(name), fresh["runs"].get(name))
    if changes:
        pytest.fail(
            f"golden run {name!r} changed:\n  " + "\n  ".join(changes) + f"\n{HOW_TO_REGENERATE}",
            pytrace=False,
        )


@pytest.mark.parametrize("name", PLAYTHROUGH_NAMES)
def test_golden_playthrough(fresh: dict[str, Any], name: str) -> None:
    """The replayed transcript of the logged game is as stored, line for line."""
    changes = G.text_changes(STORED["playthroughs"].get(name), fresh["playthroughs"].get(name))
    if changes:
        pytest.fail(
            f"golden playthrough {name!r} ({G.PLAYTHROUGHS.name}/{name}.txt) changed:\n  "
            + "\n  ".join(changes)
            + f"\n{HOW_TO_REGENERATE}",
            pytrace=False,
        )


def test_checking_never_writes_the_goldens(fresh: dict[str, Any]) -> None:
    assert _golden_files() == fresh["files_before"]


def test_a_changed_digest_is_described(fresh: dict[str, Any]) -> None:
    """The failure message tells counts, types and content changes apart, by column."""
    old = fresh["runs"]["revised-2p"]["tables"]["moves"]
    new = {
        **old,
        "rows": old["rows"] + 1,
        "sha256": "0" * 64,
        "columns": {**old["columns"], "cards": {**old["columns"]["cards"], "sha256": "x"}},
    }
    assert G.table_changes("moves", old, new) == [
        f"moves: {old['rows']} rows stored, {old['rows'] + 1} now",
        "moves: content differs in columns cards",
    ]
    retyped = {**old, "columns": {**old["columns"], "cards": {"dtype": "Int32", "sha256": "x"}}}
    assert "moves: column types changed: cards Int64->Int32" in G.table_changes(
        "moves", old, retyped
    )
    reshuffled = {**old, "columns": {c: {**v, "sha256": "x"} for c, v in old["columns"].items()}}
    assert G.table_changes("moves", old, reshuffled) == ["moves: content differs in every column"]
    assert G.text_changes("a\nb\n", "a\nc\n") == [
        "first difference at line 2:",
        "  stored: b",
        "  now:    c",
    ]
