"""Write a user-visible output safely: never over, nor inside, what the tool did not write.

Two shapes of output:

- **an owned folder** (a report, an experiment): a marker file in it names the tool and
  lists every file and folder the tool wrote. :func:`check_folder` says whether ``out``
  may be written — new, an empty folder, or (with ``force``) an earlier output of the
  same kind holding nothing but its own files — and refuses everything else;
  :func:`write_folder` builds the output in a temporary folder beside ``out`` and renames
  it into place, so ``out`` is the whole new output or unchanged.
- **a single file** (a page, a table): :func:`write_file_atomically` writes a temporary
  file beside it and renames it into place, so the file is whole or untouched.

Nothing here knows what a run or a report is: the marker file names, the words used in
the messages and the error raised for a refusal are the caller's (see
:class:`OwnedFolder`), so each command keeps its own error type and messages. Only the
standard library is used, so any layer from the typed API up may write through this.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .inputs import json_value, read_text_regular

OutState = Literal["new", "empty", "replace"]
"""How an owned folder may be written: ``new`` (no such path), ``empty`` (an empty folder)
or ``replace`` (an earlier output of the same kind, replaced with ``force``)."""

Refuse = Callable[[str], BaseException]
"""Makes the error raised for a refusal from its message (an exception class will do)."""

Writer = Callable[[Path], None]
"""Writes a whole file at the path it is given."""


@dataclass(frozen=True)
class OwnedFolder:
    """A kind of output folder the tool owns: its marker and how to talk about it.

    ``kind`` is the word used in messages (``"report"``), ``marker`` the marker's file
    name, ``refuse`` makes the error raised for a refusal, ``option`` is the command-line
    option named in messages, and ``guarded`` lists ``(marker file name, kind)`` of every
    kind of folder that keeps only its own files — no output may go inside one, and one of
    another kind is never taken as ``out``. List this kind itself there too.
    """

    kind: str
    marker: str
    refuse: Refuse
    option: str = "--out"
    guarded: tuple[tuple[str, str], ...] = ()


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file; False also when it cannot be looked at."""
    try:
        return path.is_file()
    except OSError:
        return False


def tree(folder: Path) -> tuple[list[str], list[str]]:
    """Every file and every folder under ``folder`` (relative POSIX paths, sorted).

    Symbolic links are not followed: a link counts as a file.
    """
    files: list[str] = []
    folders: list[str] = []

    def walk(d: Path, prefix: str) -> None:
        with os.scandir(d) as entries:
            for e in entries:
                rel = prefix + e.name
                if e.is_dir(follow_symlinks=False):
                    folders.append(rel)
                    walk(Path(e.path), rel + "/")
                else:
                    files.append(rel)

    walk(folder, "")
    return sorted(files), sorted(folders)


def check_parents(
    out: Path, option: str, refuse: Refuse, guarded: tuple[tuple[str, str], ...]
) -> None:
    """Refuse (``refuse``) an ``out`` under a file, or inside a folder that keeps only its
    own files: one holding any marker named in ``guarded`` (``(file name, kind)`` pairs).

    Such a folder must hold only what its owner wrote (so ``--force`` can replace it, and
    so a run stays a run), so no tool output goes inside one.
    """
    for p in out.parents:
        if p.exists() or p.is_symlink():
            if not p.is_dir():
                raise refuse(f"{option} {out}: {p} is a file, not a folder")
            break
    for p in out.parents:
        for name, kind in guarded:
            if is_file(p / name):
                raise refuse(
                    f"{option} {out} is inside the {kind} folder {p}; {_a(kind)} folder keeps "
                    f"only the {kind}'s own files: choose a path outside it"
                )


# --- the path rule: where any output may go ----------------------------------------------------

RUN_MANIFEST = "manifest.json"
"""A run folder's manifest (= ``haggis_sim.logs.manifest.MANIFEST``; a test checks)."""
REPORT_MARKER = ".haggis-sim-report.json"
"""A report folder's marker (= ``haggis_sim.report.MARKER``; a test checks)."""
EXPERIMENT_MARKER = ".haggis-sim-experiment.json"
"""An experiment folder's marker (= ``haggis_sim.experiment.schema.MARKER``; a test checks)."""

OWNED: tuple[tuple[str, str], ...] = (
    (RUN_MANIFEST, "run"),
    (REPORT_MARKER, "report"),
    (EXPERIMENT_MARKER, "experiment"),
)
"""Every kind of folder the tool owns, as ``(marker file name, kind)``: each keeps only
what its owner wrote (a run its logs, a report and an experiment the files their marker
lists), so no other output may go inside one."""


#: a path whose first part is a URL scheme (``gcs:``, ``memory:``; one letter is a drive)
_URL_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:(/|$)")


def check_outside(out: Path, option: str, refuse: Refuse) -> None:
    """The path rule every writing command follows: refuse (``refuse``) an ``out`` under
    a file or inside a run, report or experiment folder (:data:`OWNED`).

    Only a folder's owner writes into it (the runner its logs, an experiment its arms'
    runs and its report), and never through this check. Changes nothing.
    """
    if _URL_LIKE.match(str(out)):  # gcs://b/x arrives as the Path gcs:/b/x
        raise refuse(
            f"{option} {out} looks like a URL: this command writes a local folder (for a "
            "folder named so, give its absolute path)"
        )
    path = Path(os.path.abspath(out))
    try:
        check_parents(path, option, refuse, OWNED)
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise refuse(f"cannot look at {exc.filename or path}: {exc.strerror or exc}") from None


def some(folder: Path) -> str:
    """A few of the names in ``folder``, for a message (``a, b, c and 4 more``)."""
    names = sorted(os.listdir(folder))
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def marker_data(path: Path) -> dict[str, Any]:
    """A marker file's contents; OSError/ValueError if it cannot be trusted."""
    data = json_value(read_text_regular(path))  # a FIFO or a huge file: OSError
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise ValueError("no list of files")
    return data


def read_marker(
    folder: Path, spec: OwnedFolder, consequence: str = ", so nothing is replaced"
) -> dict[str, Any]:
    """The marker of the owned folder ``folder``; ``spec.refuse`` when it cannot be read
    (its message says the marker is damaged, then ``consequence``)."""
    path = folder / spec.marker
    try:
        return marker_data(path)
    except (OSError, ValueError) as exc:
        raise spec.refuse(
            f"{path} is damaged ({exc}); cannot tell what the {spec.kind} wrote{consequence}: "
            f"choose another {spec.option}"
        ) from None


def write_marker(folder: Path, marker: str, fields: dict[str, Any]) -> None:
    """Write the marker ``marker`` in ``folder``: ``fields`` plus every file and folder
    already in ``folder`` (``files``, ``folders``), which are the output's own."""
    files, folders = tree(folder)
    data = {**fields, "files": files, "folders": folders}
    (folder / marker).write_text(json.dumps(data, indent=2) + "\n")


def foreign(folder: Path, marker: dict[str, Any], marker_name: str) -> list[str]:
    """Files and folders in an owned folder that its owner did not write (per ``marker``,
    its marker's contents; ``marker_name`` is the marker file's own name)."""
    files, folders = tree(folder)
    own_files = {str(f) for f in marker.get("files", [])} | {marker_name}
    own_folders = {str(f) for f in marker.get("folders", [])}
    extra = [f for f in files if f not in own_files]
    extra += [d for d in folders if d not in own_folders]
    return sorted(extra)


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def check_folder(out: Path, spec: OwnedFolder, force: bool = False) -> OutState:
    """How an output of kind ``spec`` may be written at ``out`` (see :data:`OutState`).

    Refuses (``spec.refuse``) every other ``out``: a file or symbolic link, a path under
    a file or inside a guarded folder, a guarded folder of another kind, a non-empty
    folder without this kind's marker, an earlier output without ``force``, and (with
    ``force``) one holding anything its marker does not list. Changes nothing.
    """
    out = Path(os.path.abspath(out))
    try:
        return _check_folder(out, spec, force)
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise spec.refuse(f"cannot look at {exc.filename or out}: {exc.strerror or exc}") from None


def _check_folder(out: Path, spec: OwnedFolder, force: bool) -> OutState:
    opt, kind, refuse = spec.option, spec.kind, spec.refuse
    if out.is_symlink():
        raise refuse(f"{opt} {out} is a symbolic link; give the {kind} a real folder")
    if out.exists() and not out.is_dir():
        raise refuse(f"{opt} {out} is a file, not a folder")
    check_parents(out, opt, refuse, spec.guarded)
    if not out.exists():
        return "new"
    for name, other in spec.guarded:
        if name != spec.marker and is_file(out / name):
            raise refuse(
                f"{opt} {out} is a haggis-sim {other} folder; the {kind} needs a folder of its own"
            )
    if not any(out.iterdir()):
        return "empty"
    if not (out / spec.marker).exists():
        raise refuse(
            f"{opt} {out} already exists and is not {_a(kind)} folder (it holds {some(out)}); "
            "choose a new or empty folder"
        )
    if not force:
        raise refuse(f"{opt} {out} holds an earlier {kind}; add --force to replace it")
    extra = foreign(out, read_marker(out, spec), spec.marker)
    if extra:
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        raise refuse(
            f"{opt} {out} holds {out / extra[0]}{more}, which the {kind} did not write; "
            f"--force replaces only {_a(kind)}'s own files: move it away or choose another {opt}"
        )
    return "replace"


def make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the folders created, outermost first."""
    missing = []
    for p in [folder, *folder.parents]:
        if p.exists():
            break
        missing.append(p)
    created: list[Path] = []
    for p in reversed(missing):
        p.mkdir()
        created.append(p)
    return created


def sibling(out: Path, kind: str) -> Path:
    """A hidden, unique path beside ``out`` for a temporary (``kind``) copy of it."""
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


def remove_own(folder: Path, marker: str) -> bool:
    """Delete a replaced output: only the files and folders its marker lists, then the folder.

    Anything else found there is left in place (with the folder); returns False then.
    """
    try:
        data = marker_data(folder / marker)
        for name in data["files"]:
            (folder / name).unlink(missing_ok=True)
        for name in sorted(data.get("folders", []), key=lambda n: -n.count("/")):
            if (folder / name).is_dir():
                (folder / name).rmdir()
        (folder / marker).unlink()
        folder.rmdir()
    except (OSError, ValueError):
        return False
    return True


def swap(tmp: Path, out: Path, state: OutState, marker: str) -> None:
    """Move the finished output ``tmp`` to ``out`` (replacing an earlier one in ``replace``)."""
    if state != "replace":
        os.rename(tmp, out)  # fails, changing nothing, if out is no longer missing or empty
        return
    old = sibling(out, "old")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        raise
    if not remove_own(old, marker):  # someone added a file in the last instant: keep it, visibly
        os.rename(old, out.parent / f"{out.name}.old-{os.getpid()}")


def write_folder(out: Path, spec: OwnedFolder, force: bool, fill: Writer) -> Path:
    """Write an owned folder at ``out`` with ``fill`` and return ``out`` (made absolute).

    ``out`` is checked first (:func:`check_folder`); ``fill`` then writes every file into
    a temporary folder beside ``out`` (its marker too, see :func:`write_marker`), ``out``
    is checked again (it may have changed meanwhile) and the folder is renamed into
    place. On any failure or interruption the temporary folder and any parent folder this
    call created are removed and ``out`` is unchanged; an OSError becomes one
    ``spec.refuse`` saying what could not be done and where.
    """
    out = Path(os.path.abspath(out))
    check_folder(out, spec, force)
    created: list[Path] = []
    tmp: Path | None = None
    doing = f"create the folder {out.parent}"
    try:
        created = make_parents(out.parent)
        doing = f"create a folder in {out.parent}"
        tmp = sibling(out, "tmp")
        tmp.mkdir()
        doing = f"write the {spec.kind} files into {tmp}"
        fill(tmp)
        state = check_folder(out, spec, force)  # again: out may have changed during the build
        doing = f"move the {spec.kind} into place at {out}"
        swap(tmp, out, state, spec.marker)
    except BaseException as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for p in reversed(created):
            with contextlib.suppress(OSError):
                p.rmdir()
        if isinstance(exc, OSError):
            where = f" ({exc.filename})" if exc.filename and doing.startswith("write") else ""
            raise spec.refuse(f"cannot {doing}: {exc.strerror or exc}{where}") from None
        raise
    return out


# --- single files ------------------------------------------------------------------------------


def temp_file(out: Path) -> Path:
    """The temporary file beside ``out`` that is renamed to ``out`` once whole."""
    return out.with_name(f".{out.name}.tmp-{os.getpid()}")


def _cannot_write(option: str, out: Path, exc: OSError) -> str:
    return f"cannot write {option + ' ' if option else ''}{out}: {exc.strerror or exc}"


def reserve_file(out: Path, refuse: Refuse, option: str = "--out") -> Path:
    """Create the (empty) temporary file for ``out`` now, before a long computation, so a
    folder that refuses writing is reported at once; pass it to
    :func:`write_file_atomically` later, and remove it yourself if that never happens."""
    tmp = temp_file(out)
    try:
        tmp.open("xb").close()
    except OSError as exc:
        raise refuse(_cannot_write(option, out, exc)) from None
    return tmp


def write_file_atomically(
    out: Path,
    data: str | bytes | Writer,
    refuse: Refuse,
    option: str = "--out",
    reserved: Path | None = None,
) -> None:
    """Write ``data`` (text as UTF-8, bytes, or a writer called with the temporary path)
    to a temporary file beside ``out`` and rename it over ``out``: ``out`` is either the
    whole new file or untouched. The temporary file is ``reserved`` when given (see
    :func:`reserve_file`), else created here and refused if it already exists; it is
    removed in any case. ``refuse`` makes the error for a write the system refuses.

    Whether ``out`` may be replaced at all (``--force``) is the caller's check, made
    before: this replaces whatever is at ``out``.
    """
    try:
        replace_file(out, data, reserved)
    except OSError as exc:
        raise refuse(_cannot_write(option, out, exc)) from None


def replace_file(out: Path, data: str | bytes | Writer, reserved: Path | None = None) -> None:
    """:func:`write_file_atomically` for a caller that handles the OSError itself: ``out``
    is the whole new file or untouched, the temporary file is removed in any case."""
    tmp = reserved or temp_file(out)
    try:
        if callable(data):
            if reserved is None:
                tmp.open("xb").close()
            data(tmp)
        elif isinstance(data, str):
            with tmp.open("x" if reserved is None else "w", encoding="utf-8") as fh:
                fh.write(data)
        else:
            with tmp.open("xb" if reserved is None else "wb") as fb:
                fb.write(data)
        os.replace(tmp, out)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
