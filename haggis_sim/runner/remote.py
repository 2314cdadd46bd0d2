"""A run whose ``--out`` is an object store URL (``s3://bucket/prefix``).

The run is played by the ordinary machinery (:func:`.run.execute`) into a local working
folder under the cache, keyed by the URL; the folder's OS lock guards one writer per
machine (two machines writing one URL are not guarded). :class:`Uploader`, the run's
:class:`~.run.Sync`, puts every recorded chunk's parts to the URL (those its worker did
not put there) right after its ledger line is written locally, and removes the local
moves and rounds parts, so the client's disk holds only the chunks in flight plus the
games table (one row per game: the summary and ``--precision`` read it). An object store
cannot append: the ledger object is re-uploaded whole at most every :data:`LEDGER_EVERY`
seconds and at the end; the ledger and manifest go before the first chunk is played, the
manifest again at the end. A part put but not yet in the ledger object is a stray,
removed on resume and at the end, as locally.

Resume downloads the manifest and the ledger, checks every recorded part's size against
the object listing (digests are not re-read there: that would download the run; readers
check them, :func:`~haggis_sim.logs.store.local_copy`), removes strays, and plays on.
Who puts the parts: local workers (``--jobs``) write them in the working folder and the
client uploads them; Dask workers, which share nothing with the client, put their moves
and rounds parts in the store themselves (:func:`.parts.put_parts`, with the worker's
credentials) and send the games part to the client, which checks that the worker's
objects are there at the recorded sizes before it records the chunk. Only the client
writes the ledger and the manifest.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError
from ..logs import ledger
from ..logs.manifest import MANIFEST, Manifest
from ..logs.schema import TABLES, write_bytes_atomic
from ..logs.store import RunStore, StoreError, part_objects, url_folder
from . import lock
from .parts import ChunkResult
from .run import RunConfig, RunError, execute
from .warmup import CompileWatch

LEDGER_EVERY = 5.0  # seconds between uploads of the ledger object while a run plays


class Uploader:
    """Mirrors a run's working folder to its store as chunks are recorded."""

    def __init__(self, store: RunStore, work: Path) -> None:
        self.store = store
        self.direct: str | None = store.url  # Dask workers put their parts there
        self.work = work
        self.started = False  # the manifest is in the store
        self.dirty = False  # the local ledger has lines the ledger object lacks
        self.last = 0.0

    def upload_file(self, name: str) -> None:
        self.store.write((self.work / name).read_bytes(), name)

    def begin(self) -> None:
        """The ledger, then the manifest, before a worker may put a part: the URL holds a
        run (``--resume`` finds it) from the moment it holds anything."""
        self.upload_file(ledger.LEDGER)
        self.upload_file(MANIFEST)
        self.started = True

    def check(self, result: ChunkResult) -> None:
        """RunError unless every part the chunk's worker put in the store is there at the
        size it reported (its digest is checked by every reader, :func:`local_copy`)."""
        name = ledger.part_name(result.start, result.stop)
        for table in result.stored:
            size = self.store.size(table, name)
            want = result.files[table].size
            if size != want:
                have = "missing" if size is None else f"{size:,} bytes"
                raise RunError(
                    f"{self.store.object_url(table, name)} from worker {result.worker} is "
                    f"{have}, not the {want:,} bytes the worker sent; it is not recorded"
                )

    def recorded(self, entry: ledger.Entry, stored: tuple[str, ...] = ()) -> None:
        """Put the chunk's parts but those its worker put (``stored``), each checked
        against the ledger line first; drop the local moves and rounds parts; upload the
        ledger if the last upload is old enough."""
        for table in TABLES:
            if table in stored:
                continue
            path = entry.path(self.work, table)
            data = path.read_bytes()
            if ledger.digest(data) != entry.files[table].digest:
                raise RunError(f"{path} changed before it was uploaded; it is not recorded")
            self.store.write(data, table, entry.name)
            if table != "games":
                path.unlink()
        self.dirty = True
        if time.monotonic() - self.last >= LEDGER_EVERY:
            self.flush()

    def flush(self) -> None:
        """Upload the ledger object if it lacks recorded chunks."""
        if self.dirty:
            self.upload_file(ledger.LEDGER)
            self.dirty = False
            self.last = time.monotonic()

    def finish(self) -> None:
        """At the end: the ledger, no strays (parts past a precision stop), the manifest."""
        self.dirty = True
        self.flush()
        self.remove_strays(ledger.read_entries(self.work)[0])
        self.upload_file(MANIFEST)

    def remove_strays(self, good: list[ledger.Entry]) -> list[str]:
        names = {e.name for e in good}
        strays = [n for n in part_objects(self.store.listing()) if n.split("/")[1] not in names]
        self.store.remove(strays)
        return strays

    def reopen(self, run_dir: Path, say: Callable[[str], None]) -> list[ledger.Entry]:
        """The store's side of :func:`.run.reopen_run`, under the working folder's lock."""
        self.started = True
        try:
            data = self.store.read(ledger.LEDGER)
        except StoreError:
            data = b""  # killed before the first chunk: nothing recorded
        write_bytes_atomic(data, ledger.ledger_path(run_dir))
        entries, torn = ledger.read_entries(run_dir)
        sizes = self.store.listing()
        good: list[ledger.Entry] = []
        for e in sorted(entries, key=lambda e: (e.start, e.stop)):
            if good and e.start < good[-1].stop:
                continue  # overlaps a good entry: its parts are strays
            why = next(
                (
                    f"{self.store.object_url(t, e.name)} is missing or cut short"
                    for t in TABLES
                    if sizes.get(f"{t}/{e.name}") != e.files[t].size
                ),
                None,
            )
            if why:
                say(f"damaged: {why}; games {e.start}..{e.stop - 1} will be played again")
            else:
                good.append(e)
        if torn:
            say(f"{torn} unreadable ledger line(s) dropped (an interrupted write)")
        self.remove_strays(good)
        ledger.rewrite(run_dir, good)
        self.upload_file(ledger.LEDGER)
        for e in good:  # the games table stays local: the summary and --precision read it
            data = self.store.read("games", e.name)
            if ledger.digest(data) != e.files["games"].digest:
                raise RunError(f"{self.store.object_url('games', e.name)} was altered")
            write_bytes_atomic(data, e.path(run_dir, "games"))
        return good


def execute_remote(
    config: RunConfig,
    url: str,
    resume: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    on_compile: CompileWatch | None = None,
) -> tuple[Manifest, Path]:
    """:func:`.run.execute` for a run at ``url``; the final manifest and the working
    folder (which holds the games table). Errors and notes name the URL, not the working
    folder; ``on_compile`` is :func:`.run.execute`'s."""
    store = RunStore(url)
    store.check()
    work = url_folder(store.url, "work")
    uploader = Uploader(store, work)

    def note(text: str) -> None:
        if on_note is not None:
            on_note(text.replace(str(work), store.url))

    try:
        _prepare(store, work, resume)
        try:
            manifest = execute(
                config, work, resume, on_progress, note, sync=uploader, on_compile=on_compile
            )
        finally:
            if uploader.started:
                uploader.flush()
        uploader.finish()
    except InputError as exc:
        raise type(exc)(str(exc).replace(str(work), store.url)) from None
    return manifest, work


def _prepare(store: RunStore, work: Path, resume: bool) -> None:
    """Refuse a URL that holds objects (a new run) or no run (a resume); start the
    working folder afresh (another process on this machine writing it is refused)."""
    listing = store.listing()
    if resume and MANIFEST not in listing:
        raise RunError(f"{store.url} is not a haggis-sim run (no manifest.json)")
    if not resume and listing:
        hint = f"use --resume {store.url} to continue it" if MANIFEST in listing else "no run"
        raise RunError(f"--out {store.url} already holds objects ({hint}); choose another --out")
    if work.exists():
        lock.check_free(work)
        shutil.rmtree(work)
    if resume:
        work.mkdir(parents=True)
        for table in TABLES:
            (work / table).mkdir()
        write_bytes_atomic(store.read(MANIFEST), work / MANIFEST)
