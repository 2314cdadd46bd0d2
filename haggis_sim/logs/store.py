"""Where a run lives: a local folder, or a prefix in an object store (``s3://bucket/run``).

A run location given on the command line is a local path, or a URL (text with ``://``).
``file://`` URLs are local paths and go through the local code unchanged; an object
store URL (``s3://``, :data:`STORE_SCHEMES`) is opened with fsspec (it needs the ``s3``
extra: s3fs); any other scheme is refused, since a run must outlive the process.
Credentials come from the environment only (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_ENDPOINT_URL``, ...): a URL carrying a user, password or query string is refused,
so no secret can reach a manifest, a log line or an error message.

:class:`RunStore` is the small set of operations a run needs there: read and write one
object (a write is one PUT, atomic in an object store: a reader sees the old object or
the new one, never half), list the run's objects with their sizes, remove some. Readers
that need local files (polars scans, DuckDB's sandbox) use :func:`local_copy`: the run's
manifest, ledger and ledger-recorded parts downloaded once into the cache (keyed by the
URL) and checked against the ledger's digests.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._cache import cache_dir
from ..errors import InputError
from .ledger import LEDGER, PART_NAME, Entry, digest, read_entries
from .manifest import MANIFEST
from .schema import TABLES, DamagedLogError, write_bytes_atomic

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):/+(.*)$")
# bounded waits: an unreachable endpoint is one error line in seconds, not minutes
_S3_OPTIONS: dict[str, Any] = {
    "config_kwargs": {"connect_timeout": 5, "read_timeout": 30, "retries": {"max_attempts": 2}},
}


class StoreError(InputError):
    """A run location in an object store cannot be used: a bad URL, a missing bucket, an
    unreachable endpoint, refused credentials."""


#: the object stores a run may live in: storage that outlives the process (``memory://``
#: dies with it; ``ftp://``, ``zip://`` and the like are not stores a run is kept in)
STORE_SCHEMES = ("s3", "s3a")
_BARE_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):/*$")


def location(value: str | Path) -> str | Path:
    """A run location as given: a URL (normalized text) or a local Path.

    A command-line argument may arrive as a Path, which folds ``s3://b/p`` into
    ``s3:/b/p`` (and ``s3://`` into ``s3:``); the scheme is recognized either way.
    ``file://`` gives the local Path. StoreError (one line) for a scheme other than
    :data:`STORE_SCHEMES` and for a store URL without a bucket, so nothing is ever
    written to a folder named like a URL.
    """
    text = str(value)
    bare = _BARE_SCHEME.match(text)
    if bare is not None and bare.group(1).lower() in (*STORE_SCHEMES, "file"):
        raise StoreError(
            f"{bare.group(1)}://: a run URL needs a bucket and a prefix (s3://bucket/run)"
        )
    if bare is not None:  # gcs://, memory:// ...: a scheme with nothing after it
        raise StoreError(
            f"{bare.group(1)}://: runs are kept in a local folder or an object store "
            f"({', '.join(s + '://' for s in STORE_SCHEMES)}, with a bucket); for a local "
            f"folder named {bare.group(1)}: give its absolute path"
        )
    match = _URL.match(text)
    if match is None or len(match.group(1)) < 2:  # "c:/..." is not a URL scheme
        return Path(value)
    scheme, rest = match.group(1).lower(), match.group(2).rstrip("/")
    if scheme == "file":
        return Path("/" + rest)
    if scheme not in STORE_SCHEMES:
        raise StoreError(
            f"{scheme}://{rest}: runs are kept in a local folder or an object store "
            f"({', '.join(s + '://' for s in STORE_SCHEMES)}); {scheme}:// is not one"
        )
    return f"{scheme}://{rest}"


def is_url(value: str | Path) -> bool:
    """Whether a run location names an object store (not a local folder)."""
    return isinstance(location(value), str)


class RunStore:
    """One run's objects under a URL prefix; every failure is a one-line StoreError."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.username or parts.password or parts.query or parts.fragment:
            raise StoreError(
                f"{parts.scheme}://{parts.hostname or ''}/...: a run URL may not carry a "
                "user, password or query; give credentials in the environment (AWS_*)"
            )
        if not parts.netloc or not parts.path.strip("/"):
            raise StoreError(f"{url}: a run URL needs a bucket and a prefix (s3://bucket/run)")
        self.url = url.rstrip("/")
        try:
            import fsspec

            options = _S3_OPTIONS if parts.scheme in ("s3", "s3a") else {}
            self.fs, self.root = fsspec.core.url_to_fs(self.url, **options)
        except ImportError as exc:
            raise StoreError(
                f"{url}: {parts.scheme}:// needs a package that is not installed ({exc.name}); "
                "for s3:// install haggis-sim[s3]"
            ) from None
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{url}: not a usable object-store URL ({exc})") from None
        self.root = self.root.rstrip("/")

    def key(self, *names: str) -> str:
        """The store path of a run object (``games/part-....parquet``, ``manifest.json``)."""
        return "/".join((self.root, *names))

    def object_url(self, *names: str) -> str:
        return "/".join((self.url, *names))

    def _fail(self, what: str, exc: BaseException) -> StoreError:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return StoreError(f"{what} {self.url} failed: {why}")

    def check(self) -> None:
        """StoreError unless the bucket exists and answers (credentials accepted)."""
        bucket = self.root.split("/", 1)[0]
        try:
            self.fs.ls(bucket, refresh=True)
        except FileNotFoundError:
            raise StoreError(
                f"{self.url}: the bucket {bucket} does not exist (or is not visible)"
            ) from None
        except Exception as exc:  # network, credentials: the store's own error types
            raise self._fail("reaching", exc) from None

    def listing(self) -> dict[str, int]:
        """Every object under the run's prefix: its name below the prefix, and its size."""
        try:
            self.fs.invalidate_cache()
            found = self.fs.find(self.root, detail=True)
        except FileNotFoundError:
            return {}
        except Exception as exc:
            raise self._fail("listing", exc) from None
        cut = len(self.root) + 1
        return {
            path[cut:]: int(info.get("size") or 0)
            for path, info in found.items()
            if path.startswith(self.root + "/")
        }

    def read(self, *names: str) -> bytes:
        try:
            data: bytes = self.fs.cat_file(self.key(*names))
        except FileNotFoundError:
            raise StoreError(f"{self.object_url(*names)} does not exist") from None
        except Exception as exc:
            raise self._fail("reading", exc) from None
        return data

    def size(self, *names: str) -> int | None:
        """The size of one object (a HEAD request, not cached), None if it is absent."""
        try:
            self.fs.invalidate_cache(self.key(*names))
            return int(self.fs.info(self.key(*names))["size"])
        except FileNotFoundError:
            return None
        except Exception as exc:
            raise self._fail("reading", exc) from None

    def write(self, data: bytes, *names: str) -> None:
        """Put one object (a single PUT: it appears whole or not at all)."""
        try:
            self.fs.pipe_file(self.key(*names), data)
        except Exception as exc:
            raise self._fail("writing", exc) from None

    def remove(self, names: list[str]) -> None:
        if not names:
            return
        try:
            self.fs.rm([self.key(n) for n in names])
        except FileNotFoundError:
            pass
        except Exception as exc:
            raise self._fail("removing from", exc) from None


def url_folder(url: str, kind: str) -> Path:
    """A local folder for the run at ``url`` under the cache (``kind``: ``work`` for a
    writer's working folder, ``copy`` for readers' verified copy), keyed by the URL."""
    key = hashlib.sha256(url.encode()).hexdigest()[:16]
    return cache_dir().parent / "object-store" / kind / key


def part_objects(listing: dict[str, int]) -> list[str]:
    """The names in a listing that are parts of a table (``games/part-...parquet``)."""
    out = []
    for name in listing:
        table, _, file = name.partition("/")
        if table in TABLES and PART_NAME.fullmatch(file):
            out.append(name)
    return sorted(out)


def local_copy(url: str) -> Path:
    """A local, verified copy of the run at ``url`` for readers; its folder.

    The manifest and ledger are downloaded each time; a part is downloaded only if the
    copy lacks it or differs from the ledger (digests are compared for every part, so a
    copy is never trusted blindly), and checked against the ledger's digest: a remote
    part that differs is a DamagedLogError naming it. Files the ledger no longer records
    are removed from the copy. StoreError if the URL holds no run.
    """
    store = RunStore(url)
    store.check()
    folder = url_folder(store.url, "copy")
    try:
        manifest = store.read(MANIFEST)
    except StoreError:
        raise StoreError(f"{store.url} is not a haggis-sim run (no manifest.json)") from None
    try:
        ledger_bytes = store.read(LEDGER)
    except StoreError:
        ledger_bytes = b""
    for table in TABLES:
        (folder / table).mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(manifest, folder / MANIFEST)
    write_bytes_atomic(ledger_bytes, folder / LEDGER)
    entries, _ = read_entries(folder)
    wanted: set[str] = set()
    for entry in entries:
        wanted.update(f"{table}/{entry.name}" for table in TABLES)
        if entry.problem(folder, full=True) is not None:  # the copy lacks it or differs
            for table in TABLES:
                _fetch_part(store, folder, entry, table)
    for table in TABLES:
        for path in (folder / table).iterdir():
            if f"{table}/{path.name}" not in wanted:
                path.unlink(missing_ok=True)
    return folder


def _fetch_part(store: RunStore, folder: Path, entry: Entry, table: str) -> None:
    """Download the part of ``entry`` in ``table`` into the copy, checked against the
    ledger."""
    path = entry.path(folder, table)
    want = entry.files[table]
    try:
        data = store.read(table, entry.name)
    except StoreError:
        raise DamagedLogError(
            f"damaged run: {store.object_url(table, entry.name)} is missing; re-play it with "
            f"haggis-sim run --resume {store.url}"
        ) from None
    if len(data) != want.size or digest(data) != want.digest:
        raise DamagedLogError(
            f"damaged log file {store.object_url(table, entry.name)}: it is not the part the "
            f"run wrote (size or digest differs); re-play it with haggis-sim run --resume "
            f"{store.url}"
        )
    write_bytes_atomic(data, path)
