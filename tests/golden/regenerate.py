"""Golden reference runs and playthroughs: how they are built, compared and regenerated.

``tests/golden/runs.json`` pins a small reference run per rules preset and player count
(plus one run played by the step-by-step Python driver): for each table of its logs the
row count, the column types, a SHA-256 of the whole table and a short SHA-256 of each
column, all computed from the content (rows sorted by the table's key, a fixed text
serialization), never from Parquet bytes. ``tests/golden/playthroughs/*.txt`` are full
transcripts of a few of those logged games, replayed through the engine.

``tests/test_golden.py`` recomputes everything and fails on any difference; it never
writes here. Change the goldens only on purpose, from the repository root::

    python tests/golden/regenerate.py           # rewrite the files, print what changed
    python tests/golden/regenerate.py --check   # only print what would change (exit 1 if any)

A change here means every logged game changed: ``reports/`` and the README's figures
were computed from the old games and may need re-running.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if sys.path[0] != str(ROOT):  # this checkout's code, not whatever is installed
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import haggis_sim as hs  # noqa: E402
from haggis_sim.analytics.replay import replay  # noqa: E402
from haggis_sim.logs import ledger  # noqa: E402
from haggis_sim.logs import schema as logs  # noqa: E402
from haggis_sim.runner.run import RunConfig, execute  # noqa: E402
from strategies import Strategy, registry  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS_FILE = HERE / "runs.json"
PLAYTHROUGHS = HERE / "playthroughs"
REGENERATE = "python tests/golden/regenerate.py"

#: rows of each table are unique by these columns; the digest sorts by them
KEYS = {
    "games": ("game_id",),
    "rounds": ("game_id", "round"),
    "moves": ("game_id", "round", "turn"),
}

MCTS = "mcts:iters=20,value=game,model=gen2"  # the search as of the goldens (before 2026-12)
RANDOM = "random:bet=0.3"  # bets often, so bet settlement is exercised


class GoldenPyRandom(Strategy):
    """A plain-Python strategy, so one golden run goes through the step-by-step driver
    (and :func:`haggis_sim.runner.seating.strategy_seed`) rather than the compiled loop."""

    name = "golden-pyrandom"
    description = "uniform over legal actions (golden run of the Python driver)"

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        return legal[int(rng.integers(len(legal)))]


@dataclass(frozen=True)
class Case:
    """One reference run: a rules preset, a player count and strategies, a few games."""

    name: str
    preset: str
    players: int
    strategies: tuple[str, ...]
    games: int
    seed: int
    chunk_size: int = 4  # several parts per table, so reading and sorting them matters

    def config(self) -> RunConfig:
        """The runner configuration of this case (one process, deterministic)."""
        rules = hs.Rules.preset(self.preset, players=self.players).as_dict()
        return RunConfig(
            strategies=list(self.strategies),
            games=self.games,
            rules=rules,
            seed=self.seed,
            seats="rotate",
            chunk_size=self.chunk_size,
            log_moves=True,
            jobs=1,
            command="",
        )

    def stored(self) -> dict[str, Any]:
        """What runs.json records about the case: its definition and the exact config."""
        cfg = self.config().as_dict()  # strategies as the list the JSON holds
        del cfg["command"]
        return {**asdict(self), "strategies": list(self.strategies), "config": cfg}


# 2 players: 2 games per deal (seats rotated); 3 players: 6 games per deal.
CASES = (
    Case("classic-2p", "classic", 2, ("greedy", RANDOM), 8, 101),
    Case("revised-2p", "revised", 2, ("heuristic", RANDOM), 8, 102),
    Case("deluxe-2p", "deluxe", 2, (MCTS, "greedy"), 6, 103),
    Case("aid-2p", "aid", 2, (RANDOM, "heuristic"), 8, 104),
    Case("haggish-2p", "haggish", 2, ("greedy", "heuristic"), 8, 105),
    Case("classic-3p", "classic", 3, ("heuristic", MCTS, RANDOM), 6, 201),
    Case("revised-3p", "revised", 3, ("greedy", "heuristic", RANDOM), 6, 202),
    Case("revised-split-3p", "revised-split", 3, (RANDOM, "greedy", "heuristic"), 6, 203),
    Case("deluxe-3p", "deluxe", 3, ("heuristic", RANDOM, "greedy"), 6, 204),
    Case("aid-3p", "aid", 3, (MCTS, "heuristic", RANDOM), 6, 205),
    Case("python-driver-3p", "revised", 3, (GoldenPyRandom.name, RANDOM, "heuristic"), 6, 301),
)

#: playthrough file stem -> (case, game id): replays of logged games
PLAYTHROUGH_GAMES = {
    "revised-2p-game1": ("revised-2p", 1),
    "classic-3p-game2": ("classic-3p", 2),
    "deluxe-3p-game4": ("deluxe-3p", 4),
    "aid-2p-game3": ("aid-2p", 3),
}


@contextmanager
def golden_strategies() -> Iterator[None]:
    """Make :class:`GoldenPyRandom` known to ``strategies.make`` for the duration only."""
    had = registry._extra.get(GoldenPyRandom.name)
    registry.register(GoldenPyRandom)
    try:
        yield
    finally:
        if had is None:
            registry._extra.pop(GoldenPyRandom.name, None)
        else:
            registry._extra[GoldenPyRandom.name] = had


def _csv(frame: pl.DataFrame) -> bytes:
    """A stable text form: floats as their IEEE bit patterns, enums as plain strings."""
    cols = []
    for name, dtype in frame.schema.items():
        s = frame[name]
        if dtype.is_float():
            s = pl.Series(name, s.cast(pl.Float64).to_numpy().view(np.int64))
        elif isinstance(dtype, pl.Categorical | pl.Enum):
            s = s.cast(pl.String)
        cols.append(s)
    return pl.DataFrame(cols).write_csv(null_value="<null>", line_terminator="\n").encode()


def table_digest(run_dir: Path, table: str) -> dict[str, Any]:
    """Row count, column types, whole-table SHA-256 and per-column short SHA-256 of a table."""
    frame = ledger.read_table(run_dir, table).collect()
    keys = list(KEYS[table])
    if frame.select(keys).is_duplicated().any():
        raise ValueError(f"{run_dir.name}/{table}: rows are not unique by {keys}")
    frame = frame.sort(keys)
    return {
        "rows": frame.height,
        "sha256": hashlib.sha256(_csv(frame)).hexdigest(),
        "columns": {
            name: {
                "dtype": dtype.base_type().__name__,  # no parameters: stable across polars
                "sha256": hashlib.sha256(_csv(frame.select(name))).hexdigest()[:16],
            }
            for name, dtype in frame.schema.items()
        },
    }


def run_case(case: Case, run_dir: Path) -> dict[str, Any]:
    """Play the case through the runner into ``run_dir``; the digest of each table."""
    with golden_strategies():
        execute(case.config(), run_dir)
    return {table: table_digest(run_dir, table) for table in logs.TABLES}


def playthrough(run_dir: Path, case: str, game_id: int) -> str:
    """The replay transcript of a logged game, with the temporary run folder named by case."""
    lines = [
        line.replace(str(run_dir), f"<golden run {case}>") for line in replay(run_dir, game_id)
    ]
    head = f"# golden playthrough: case {case}, game {game_id} (regenerate: {REGENERATE})"
    return "\n".join([head, *lines]) + "\n"


def compute(work: Path, cases: tuple[Case, ...] = CASES) -> dict[str, Any]:
    """Everything golden, freshly computed under ``work``: runs.json content and transcripts."""
    runs = {}
    for case in cases:
        runs[case.name] = {**case.stored(), "tables": run_case(case, work / case.name)}
    texts = {
        stem: playthrough(work / case, case, gid) for stem, (case, gid) in PLAYTHROUGH_GAMES.items()
    }
    return {"runs": runs, "playthroughs": texts}


def load_stored() -> dict[str, Any]:
    """The checked-in goldens (empty parts where files are missing)."""
    runs = json.loads(RUNS_FILE.read_text())["runs"] if RUNS_FILE.exists() else {}
    texts = {p.stem: p.read_text() for p in sorted(PLAYTHROUGHS.glob("*.txt"))}
    return {"runs": runs, "playthroughs": texts}


def table_changes(table: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two digests of one table, in words (empty: nothing)."""
    if old == new:
        return []
    out = []
    if old["rows"] != new["rows"]:
        out.append(f"{table}: {old['rows']} rows stored, {new['rows']} now")
    oc, nc = old["columns"], new["columns"]
    if list(oc) != list(nc):
        gone = [c for c in oc if c not in nc]
        added = [c for c in nc if c not in oc]
        out.append(
            f"{table}: columns changed (removed {gone or 'none'}, added {added or 'none'}"
            + (", order changed" if not gone and not added else "")
            + ")"
        )
    both = [c for c in oc if c in nc]
    retyped = [c for c in both if oc[c]["dtype"] != nc[c]["dtype"]]
    if retyped:
        types = ", ".join(f"{c} {oc[c]['dtype']}->{nc[c]['dtype']}" for c in retyped)
        out.append(f"{table}: column types changed: {types}")
    differ = [c for c in both if oc[c]["sha256"] != nc[c]["sha256"]]
    if differ and len(differ) == len(nc) > 1:
        out.append(f"{table}: content differs in every column")
    elif differ:
        out.append(f"{table}: content differs in columns {', '.join(differ)}")
    if not out:
        out.append(
            f"{table}: content differs (sha256 {old['sha256'][:16]} -> {new['sha256'][:16]})"
        )
    return out


def case_changes(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[str]:
    """What differs between the stored and a fresh record of one case, in words."""
    if old is None:
        return ["new case (not in runs.json)"]
    if new is None:
        return ["case no longer defined in regenerate.py"]
    out = []
    for key in ("preset", "players", "strategies", "games", "seed", "chunk_size", "config"):
        if old.get(key) != new.get(key):
            out.append(f"definition changed: {key} {old.get(key)!r} -> {new.get(key)!r}")
    for table in logs.TABLES:
        out.extend(table_changes(table, old["tables"][table], new["tables"][table]))
    return out


def text_changes(old: str | None, new: str | None) -> list[str]:
    """Where two transcripts first differ, in words."""
    if old == new:
        return []
    if old is None:
        return ["new playthrough"]
    if new is None:
        return ["playthrough no longer defined in regenerate.py"]
    a, b = old.splitlines(), new.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return [f"first difference at line {i + 1}:", f"  stored: {x}", f"  now:    {y}"]
    return [f"stored has {len(a)} lines, now {len(b)} (one is a prefix of the other)"]


def all_changes(stored: dict[str, Any], fresh: dict[str, Any]) -> dict[str, list[str]]:
    """Every changed case and playthrough, with what changed."""
    found = {}
    for name in dict.fromkeys([*stored["runs"], *fresh["runs"]]):
        ch = case_changes(stored["runs"].get(name), fresh["runs"].get(name))
        if ch:
            found[f"run {name}"] = ch
    for stem in dict.fromkeys([*stored["playthroughs"], *fresh["playthroughs"]]):
        ch = text_changes(stored["playthroughs"].get(stem), fresh["playthroughs"].get(stem))
        if ch:
            found[f"playthrough {stem}"] = ch
    return found


def write(fresh: dict[str, Any]) -> None:
    """Replace the checked-in goldens by ``fresh``."""
    doc = {
        "about": "Golden digests of reference runs; see tests/golden/regenerate.py. "
        f"Regenerate deliberately with: {REGENERATE}",
        "runs": fresh["runs"],
    }
    text = json.dumps(doc, indent=1)
    # one line per column, so a regenerated file's diff shows which columns changed
    text = re.sub(r'\{\n\s*("dtype": "[^"]*"),\n\s*("sha256": "[^"]*")\n\s*\}', r"{\1, \2}", text)
    RUNS_FILE.write_text(text + "\n")
    PLAYTHROUGHS.mkdir(exist_ok=True)
    for old in PLAYTHROUGHS.glob("*.txt"):
        if old.stem not in fresh["playthroughs"]:
            old.unlink()
    for stem, text in fresh["playthroughs"].items():
        (PLAYTHROUGHS / f"{stem}.txt").write_text(text)


def main(argv: list[str]) -> int:
    """Recompute the goldens; print what changed; write them unless ``--check``."""
    check = argv == ["--check"]
    if argv and not check:
        print("usage: python tests/golden/regenerate.py [--check]", file=sys.stderr)
        return 2
    if not Path(hs.__file__).resolve().is_relative_to(ROOT):
        print(f"error: haggis_sim imported from {hs.__file__}, not {ROOT}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="haggis-golden-") as tmp:
        fresh = compute(Path(tmp))
    changes = all_changes(load_stored(), fresh)
    for what, lines in changes.items():
        print(f"{what}:")
        for line in lines:
            print(f"  {line}")
    if not changes:
        print("goldens unchanged")
        return 0
    if check:
        print(f"{len(changes)} golden item(s) differ; nothing written (--check)")
        return 1
    write(fresh)
    print(f"{len(changes)} golden item(s) rewritten in {HERE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
