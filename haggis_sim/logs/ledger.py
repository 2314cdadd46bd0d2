"""The ledger of a run's finished parts: which games are logged, in which files, verified.

A chunk of games ``[start, stop)`` is written as three Parquet parts (one per table),
named by its game range. When all three are in place the main process appends one line
to ``parts.jsonl`` with each part's row count, size and BLAKE2b digest. The ledger, not
the presence of files, says what is finished:

- a part without a ledger line (a run killed between the rename and the append) is not
  trusted and is re-played;
- a part whose size or digest differs from its line (truncated, edited) is re-played by
  ``run --resume`` and named as damaged by every reader;
- a torn last line (a kill during the append) is dropped when the run resumes.

The ledger is append-only while a run plays (one short line per chunk, never rewritten),
so the manifest stays small however many games a run has. Runs written before the ledger
existed (manifest format 1) are read by listing their part files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..inputs import json_value, read_regular
from .manifest import ManifestError, read_manifest
from .schema import TABLES, DamagedLogError

GAME_IDS = 2**32  # game ids are logged as UInt32: a range ends at most here

LEDGER = "parts.jsonl"
MAX_LEDGER_BYTES = 256 * 2**20  # a line per chunk: a billion games hold far less
PART_GLOB = "part-*.parquet"
PART_NAME = re.compile(r"part-\d{10}-\d{10}\.parquet")
"""Exactly the names :func:`part_name` gives: any other file in a table folder (a user's
``part-notes.parquet``) is neither read as a part nor removed by ``run --resume``."""


def part_name(start: int, stop: int) -> str:
    """File name of the part holding games ``start .. stop - 1`` (same in every table)."""
    return f"part-{start:010d}-{stop:010d}.parquet"


def part_range(path: Path) -> tuple[int, int]:
    """The games ``(start, stop)`` of a part, read from its name (:func:`part_name`).

    >>> part_range(Path("moves") / part_name(500, 1000))
    (500, 1000)
    """
    if not PART_NAME.fullmatch(path.name):
        raise ValueError(f"{path.name!r} is not a part name like {part_name(0, 1)!r}")
    _, start, stop = path.stem.split("-")
    return int(start), int(stop)


def part_files(folder: Path) -> list[Path]:
    """The files in a table folder named as parts (:data:`PART_NAME`), sorted."""
    return sorted(p for p in folder.glob(PART_GLOB) if PART_NAME.fullmatch(p.name))


def digest(data: bytes) -> str:
    """The content digest recorded for a part (BLAKE2b, 128 bits, hex)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class PartFile:
    """What one written part must be: its rows, bytes and digest."""

    rows: int
    size: int
    digest: str


@dataclass(frozen=True)
class Entry:
    """One finished chunk: games ``start .. stop - 1`` in one part per table."""

    start: int
    stop: int
    files: dict[str, PartFile]

    @property
    def name(self) -> str:
        return part_name(self.start, self.stop)

    def path(self, run_dir: Path, table: str) -> Path:
        return run_dir / table / self.name

    def to_line(self) -> str:
        record: dict[str, object] = {"start": self.start, "stop": self.stop}
        for t in TABLES:
            f = self.files[t]
            record[t] = [f.rows, f.size, f.digest]
        return json.dumps(record, separators=(",", ":")) + "\n"

    @classmethod
    def from_line(cls, line: str) -> Entry:
        """Parse one ledger line; ValueError if it is not a complete, well-formed line."""
        try:
            rec = json_value(line)
            start, stop = int(rec["start"]), int(rec["stop"])
            files = {t: PartFile(int(rec[t][0]), int(rec[t][1]), str(rec[t][2])) for t in TABLES}
        except (ValueError, KeyError, TypeError, IndexError, OverflowError) as exc:
            raise ValueError(f"bad ledger line: {exc}") from None
        if not 0 <= start < stop <= GAME_IDS:
            raise ValueError(f"bad ledger line: game range {start}..{stop}")
        return cls(start, stop, files)

    def problem(self, run_dir: Path, full: bool) -> str | None:
        """Why this entry's files cannot be trusted, or None if they match the ledger.

        ``full`` also compares digests (reads every byte); otherwise sizes only.
        """
        for t in TABLES:
            path = self.path(run_dir, t)
            want = self.files[t]
            try:
                size = path.stat().st_size
            except OSError:
                return f"{path} is missing"
            if size != want.size:
                return f"{path} has {size:,} bytes, the run wrote {want.size:,}"
            if full and file_digest(path) != want.digest:
                return f"{path} was altered after the run wrote it (digest differs)"
        return None


def ledger_path(run_dir: Path) -> Path:
    return run_dir / LEDGER


def has_ledger(run_dir: Path) -> bool:
    return ledger_path(run_dir).exists()


def read_entries(run_dir: Path) -> tuple[list[Entry], int]:
    """Every well-formed ledger line, and how many lines were not (torn or edited)."""
    entries: list[Entry] = []
    bad = 0
    try:
        text = read_regular(ledger_path(run_dir), MAX_LEDGER_BYTES).decode("utf-8")
    except FileNotFoundError:
        return [], 0
    except (OSError, UnicodeDecodeError) as exc:
        raise DamagedLogError(f"{ledger_path(run_dir)} cannot be read: {exc}") from None
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            entries.append(Entry.from_line(line))
        except ValueError:
            bad += 1
    return entries, bad


def append(run_dir: Path, entry: Entry) -> None:
    """Record a finished chunk, after its three parts are in place.

    One short line per chunk, appended (no fsync: a line lost or torn by a crash only
    makes its chunk be played again on resume).
    """
    with ledger_path(run_dir).open("a") as f:
        f.write(entry.to_line())


def rewrite(run_dir: Path, entries: Iterable[Entry]) -> None:
    """Replace the ledger by ``entries`` atomically (used when a run resumes)."""
    path = ledger_path(run_dir)
    tmp = path.with_name(f".{LEDGER}.tmp")
    with tmp.open("w") as f:
        f.writelines(e.to_line() for e in sorted(entries, key=lambda e: e.start))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@dataclass
class Verified:
    """The outcome of checking a run's files against its ledger."""

    good: list[Entry]
    damaged: list[tuple[Entry, str]]  # entry and why
    overlapping: list[Entry]
    torn_lines: int
    strays: list[Path]  # part files no good entry accounts for


def verify(run_dir: Path, full: bool = True) -> Verified:
    """Check every ledger entry's files; list what is good, damaged and unaccounted for."""
    entries, torn = read_entries(run_dir)
    good: list[Entry] = []
    damaged: list[tuple[Entry, str]] = []
    overlapping: list[Entry] = []
    covered_until = -1
    for e in sorted(entries, key=lambda e: (e.start, e.stop)):
        if e.start < covered_until:
            overlapping.append(e)
            continue
        why = e.problem(run_dir, full)
        if why is None:
            good.append(e)
            covered_until = e.stop
        else:
            damaged.append((e, why))
    names = {e.name for e in good}
    strays = [p for t in TABLES for p in part_files(run_dir / t) if p.name not in names]
    return Verified(good, damaged, overlapping, torn, strays)


def pending_ranges(entries: Iterable[Entry], games: int) -> list[tuple[int, int]]:
    """The game ranges in ``[0, games)`` that no entry covers, in order."""
    out: list[tuple[int, int]] = []
    at = 0
    for e in sorted(entries, key=lambda e: e.start):
        if e.start > at:
            out.append((at, min(e.start, games)))
        at = max(at, e.stop)
    if at < games:
        out.append((at, games))
    return [(a, b) for a, b in out if a < b]


def games_logged(run_dir: Path) -> int:
    """How many games the run's ledger records as finished (0 without a ledger)."""
    entries, _ = read_entries(run_dir)
    return sum(e.stop - e.start for e in entries)


def _finished_games(run_dir: Path) -> int | None:
    """The games of a run whose manifest says it finished, else None (a run still
    playing, or a manifest that cannot be read: its readers say so themselves)."""
    try:
        data = read_manifest(run_dir)
    except ManifestError:
        return None
    if data.get("status") != "complete":
        return None
    games = data.get("games")
    return games if isinstance(games, int) and not isinstance(games, bool) else None


def _check_finished_cover(run_dir: Path, entries: list[Entry]) -> None:
    """DamagedLogError unless the ledger of a finished run covers each of its games once:
    a ledger line edited away or made unreadable would leave readers answering from
    part of the run without a word."""
    games = _finished_games(run_dir)
    if games is None:
        return
    covered, end = 0, 0
    for e in sorted(entries, key=lambda e: e.start):
        if e.start != end:
            break
        covered, end = covered + e.stop - e.start, e.stop
    if end != games or covered != sum(e.stop - e.start for e in entries):
        raise DamagedLogError(
            f"damaged run: {run_dir / LEDGER} records {min(end, games):,} of the "
            f"{games:,} games of this finished run in order (a line was edited or removed); "
            f"re-play the rest with haggis-sim run --resume {run_dir}"
        )


def table_files(run_dir: Path, table: str) -> list[Path]:
    """The parts of ``table`` a reader may trust, in game order.

    With a ledger: exactly the ledger's parts, each checked for presence and size;
    DamagedLogError names the first that is missing or cut short. Without one (a run of
    an older version): the part files found.
    """
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
    if not has_ledger(run_dir):
        return part_files(run_dir / table)
    entries, _ = read_entries(run_dir)
    _check_finished_cover(run_dir, entries)
    out = []
    for e in sorted(entries, key=lambda e: e.start):
        path = e.path(run_dir, table)
        want = e.files[table].size
        try:
            size = path.stat().st_size
        except OSError:
            raise DamagedLogError(
                f"damaged run: log file {path} is missing; re-play it with "
                f"haggis-sim run --resume {run_dir}"
            ) from None
        if size != want:
            raise DamagedLogError(
                f"damaged log file {path}: {size:,} bytes, the run wrote {want:,}; re-play it "
                f"with haggis-sim run --resume {run_dir}"
            )
        out.append(path)
    return out


def read_table(run_dir: Path, table: str) -> pl.LazyFrame:
    """A lazy scan of one table over the parts a reader may trust (:func:`table_files`)."""
    files = table_files(run_dir, table)
    if not files:
        raise FileNotFoundError(f"{run_dir / table} has no finished parts yet")
    return pl.scan_parquet(files, glob=False)  # a path is a name, never a pattern
