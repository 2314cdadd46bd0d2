"""A run folder's ``manifest.json``: what the run is, written once, verified on resume.

The manifest records the command (the ``haggis-sim`` command line, or the Python call
that started the run), version, rules, strategies and the full configuration, with a
SHA-256 digest of the settings that decide the games (:data:`GAME_KEYS`), so an edited
manifest is noticed. It is written when the run starts and rewritten once when the
run is complete; which games are finished lives in the ledger (:mod:`.ledger`), so the
manifest stays small however many games the run has.

Readers get it as a frozen, typed :class:`Manifest` from the one loader
:func:`load_manifest`, which checks every field's presence and type: a damaged manifest
is one :class:`ManifestError` naming the file and the field, never a ``KeyError`` deep in
a reader. :meth:`Manifest.to_dict` gives back exactly the JSON object it was read from
(field order included), so rewriting a manifest changes only what was changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputs import json_value, read_regular
from ..rules import LISTED_FLAGS, Rules
from ..strategy_spec import SPEC_VERSION, UNVERSIONED, StrategySpec

MAX_MANIFEST_BYTES = 16 * 2**20  # a manifest is a few kilobytes

MANIFEST = "manifest.json"
#: 3: rotated seats play each distinct seating once per deal (``seating`` records the
#: scheme); format 2 replayed every seat permutation, repeated seatings included
MANIFEST_FORMAT = 3
#: earlier formats a run can still be resumed from when their games mean the same now
RESUMABLE_FORMATS = (2, 3)
#: the settings that decide a run's games: the digest covers exactly these
GAME_KEYS = ("strategies", "games", "rules", "seed", "seats", "log_moves")


class ManifestError(InputError):
    """A folder without a readable manifest, or a manifest that is not a run's."""


def config_digest(config: Mapping[str, Any]) -> str:
    """SHA-256 over the game-deciding keys of a config dict (canonical JSON)."""
    try:
        chosen = {k: config[k] for k in GAME_KEYS}
    except KeyError as exc:
        raise ManifestError(f"the run configuration lacks {exc.args[0]!r}") from None
    text = json.dumps(chosen, sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(text.encode()).hexdigest()


def _command_line() -> str:
    """The ``command`` of a run started from the command line: its argv, shell-quoted."""
    return shlex.join(["haggis-sim", *sys.argv[1:]])


def python_call(function: str, arguments: Sequence[tuple[str, str]]) -> str:
    """The ``command`` of a run started from Python: the call as it could be typed,
    ``haggis_sim.runner.tournament.tournament(strategies=['greedy', 'random'], seed=7)``.

    ``arguments`` are ``(name, source text)`` pairs in the order to show them; the caller
    writes each value as Python source (``repr`` for plain values).
    """
    return f"{function}({', '.join(f'{name}={text}' for name, text in arguments)})"


@dataclass(frozen=True)
class RunSettings:
    """A run's configuration as the manifest's ``config`` records it.

    The fields of :class:`~haggis_sim.runner.run.RunConfig` (which adds the checks and
    the digest): what decides the games (:data:`GAME_KEYS`) and how they are executed.
    ``strategies`` may be given as any sequence of spec texts (typed today) or
    :class:`~haggis_sim.StrategySpec` records; it is held as a tuple of records.
    """

    strategies: Sequence[str | StrategySpec]
    games: int
    rules: dict[str, Any]
    seed: int = 0
    seats: str = "rotate"
    chunk_size: int = 0  # 0: sized automatically from measured speed
    log_moves: bool = True
    jobs: int = 0  # 0: all cores
    backend: str = "loky"
    scheduler: str | None = None
    # ``run --precision``: the 95% half-width of the headline win rate that stops the run
    # early (:mod:`haggis_sim.runner.precision`); None: ``games`` is fixed. How many games
    # are played, not which: outside the digest, and left out of the JSON when None, so a
    # manifest without it (every run before it existed) reads and digests as before
    precision: float | None = None
    # how the run was started: ``haggis-sim run ...`` (argv) or a Python call
    # (:func:`python_call`); not a game-deciding setting, so outside the digest
    command: str = field(default_factory=_command_line)

    def __post_init__(self) -> None:
        specs = tuple(StrategySpec.of(s) for s in self.strategies)
        object.__setattr__(self, "strategies", specs)

    @property
    def records(self) -> tuple[StrategySpec, ...]:
        """The strategies as records (what ``strategies`` holds, typed for readers; the
        manifest's ``specs`` are the texts)."""
        return tuple(StrategySpec.of(s) for s in self.strategies)

    def field_values(self) -> dict[str, Any]:
        """Every field by name, values as held (for a copy with some fields changed)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def as_dict(self) -> dict[str, Any]:
        """The ``config`` object of the manifest (the digest is taken over it)."""
        out = asdict(self)
        out["strategies"] = [s.text for s in self.records]
        if self.precision is None:
            del out["precision"]
        return out


@dataclass(frozen=True)
class StrategyEntry:
    """One entry of the manifest's ``strategies``: its spec, name and parameter values."""

    spec: str
    name: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Manifest:
    """A run's manifest, typed; fields in the order the JSON object has them.

    ``format`` is None for a manifest from before formats were numbered (format 1, which
    also lacks ``config_digest`` and ``ledger``); ``seating`` is None before format 3;
    ``finished`` is None until the run is complete. ``spec_version`` is the version of
    the strategy specs it records (:data:`~haggis_sim.SPEC_VERSION`; None: a manifest
    that names no version, read as :data:`~haggis_sim.UNVERSIONED`).
    """

    format: int | None
    seating: str | None
    command: str
    version: str
    created: str
    config: RunSettings
    config_digest: str | None
    rules: Rules
    strategies: tuple[StrategyEntry, ...]
    players: int
    seed: int
    games: int
    ledger: str | None
    schema: Mapping[str, Any]
    status: str
    finished: str | None = None
    spec_version: int | None = None

    @property
    def specs(self) -> list[str]:
        """The strategy spec of each entry, in entry order."""
        return [s.spec for s in self.strategies]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this manifest, exactly as it is (or was) on disk."""
        out: dict[str, Any] = {}
        for name, value in (("format", self.format), ("seating", self.seating)):
            if value is not None:
                out[name] = value
        out.update(command=self.command, version=self.version, created=self.created)
        out["config"] = self.config.as_dict()
        if self.config_digest is not None:
            out["config_digest"] = self.config_digest
        out["rules"] = self.rules.as_dict()
        out["strategies"] = [
            {"spec": s.spec, "name": s.name, "params": dict(s.params)} for s in self.strategies
        ]
        if self.spec_version is not None:
            out["spec_version"] = self.spec_version
        out.update(players=self.players, seed=self.seed, games=self.games)
        if self.ledger is not None:
            out["ledger"] = self.ledger
        out.update(schema=dict(self.schema), status=self.status)
        if self.finished is not None:
            out["finished"] = self.finished
        return out


def write_manifest(run_dir: Path, manifest: Manifest) -> None:
    """Write the manifest atomically (a temporary file renamed into place)."""
    tmp = run_dir / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest.to_dict(), indent=2))
    os.replace(tmp, run_dir / MANIFEST)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of a run folder as a plain JSON object, unchecked beyond that.

    ManifestError (one line) if it is missing or unreadable. For readers not yet on the
    typed record; everything else uses :func:`load_manifest`.
    """
    path = run_dir / MANIFEST
    if not path.is_file():
        if os.path.lexists(path):  # a FIFO, a folder, a device: never opened
            raise ManifestError(f"{path} cannot be read: it is not a regular file")
        raise ManifestError(f"{run_dir} is not a haggis-sim run (no {MANIFEST})")
    try:
        data = json_value(read_regular(path, MAX_MANIFEST_BYTES).decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path} is not a haggis-sim manifest (not a JSON object)")
    return data


def load_manifest(run_dir: Path) -> Manifest:
    """The typed manifest of a run folder; ManifestError (one line naming the file and
    the field) if it is missing, unreadable, or a field is missing or of the wrong type."""
    path = run_dir / MANIFEST
    return parse_manifest(read_manifest(run_dir), str(path))


def parse_manifest(data: Mapping[str, Any], where: str) -> Manifest:
    """The typed manifest of the JSON object ``data`` read from ``where`` (for messages)."""
    top = _Fields(data, where, "")
    fmt = top.optional("format", int)
    if fmt is not None and fmt < 1:
        raise top.bad("format", "a format number (1 or more)")
    since = fmt or 1  # before formats were numbered: format 1
    spec_version = top.optional("spec_version", int)
    if spec_version is not None and not 1 <= spec_version <= SPEC_VERSION:
        raise top.bad("spec_version", f"a spec version from 1 to {SPEC_VERSION}")
    return Manifest(
        format=fmt,
        seating=top.need("seating", str) if since >= 3 else top.optional("seating", str),
        command=top.need("command", str),
        version=top.need("version", str),
        created=top.need("created", str),
        config=_settings(top.need("config", dict), where, spec_version or UNVERSIONED),
        config_digest=top.need("config_digest", str) if since >= 2 else None,
        rules=_rules(top, "rules"),
        strategies=tuple(_entry(e, where, i) for i, e in enumerate(top.need("strategies", list))),
        players=top.positive("players"),
        seed=top.need("seed", int),
        games=top.positive("games"),
        ledger=top.need("ledger", str) if since >= 2 else None,
        schema=top.need("schema", dict),
        status=top.need("status", str),
        finished=top.optional("finished", str),
        spec_version=spec_version,
    )


_KINDS: dict[type, str] = {
    int: "a whole number",
    float: "a number",
    str: "a string",
    bool: "true or false",
    dict: "an object",
    list: "a list",
}


class _Fields:
    """Typed look-ups in one JSON object of a manifest, each failing with one line."""

    def __init__(self, data: Mapping[str, Any], where: str, prefix: str) -> None:
        self.data, self.where, self.prefix = data, where, prefix

    def bad(self, key: str, what: str) -> ManifestError:
        """The error for field ``key``: it is not ``what``."""
        value = repr(self.data[key])
        shown = value if len(value) <= 40 else value[:37] + "..."
        return ManifestError(
            f"{self.where} is damaged: '{self.prefix}{key}' is {shown}, not {what}"
        )

    def lacks(self, key: str) -> ManifestError:
        """The error for field ``key``: it is missing."""
        return ManifestError(f"{self.where} is damaged: it lacks '{self.prefix}{key}'")

    def optional(self, key: str, kind: type) -> Any:
        """The value of ``key`` if present and of ``kind`` (None if absent)."""
        if key not in self.data:
            return None
        value = self.data[key]
        # JSON true/false are not numbers here
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.bad(key, _KINDS[kind])
        return value

    def need(self, key: str, kind: type) -> Any:
        """The value of ``key``, which must be present and of ``kind``."""
        if key not in self.data:
            raise self.lacks(key)
        return self.optional(key, kind)

    def nullable(self, key: str, kind: type) -> Any:
        """The value of ``key``, which must be present: null or of ``kind``."""
        if key not in self.data:
            raise self.lacks(key)
        return None if self.data[key] is None else self.optional(key, kind)

    def positive(self, key: str) -> int:
        """The value of ``key``, a whole number of at least 1."""
        value: int = self.need(key, int)
        if value < 1:
            raise self.bad(key, "a positive whole number")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        """The value of ``key``, a list of strings, as a tuple."""
        items: list[Any] = self.need(key, list)
        if not all(isinstance(s, str) for s in items):
            raise self.bad(key, "a list of strings")
        return tuple(items)


def _settings(cfg: dict[str, Any], where: str, spec_version: int) -> RunSettings:
    """The ``config`` object: every RunSettings field, of its type, and nothing else;
    its strategy specs read as recorded at ``spec_version``."""
    f = _Fields(cfg, where, "config.")
    unknown = sorted(set(cfg) - set(RunSettings.__dataclass_fields__))
    if unknown:
        raise ManifestError(f"{where} is damaged: 'config' has an unknown field {unknown[0]!r}")
    return RunSettings(
        strategies=_specs(f, "strategies", spec_version),
        games=f.need("games", int),
        rules=f.need("rules", dict),
        seed=f.need("seed", int),
        seats=f.need("seats", str),
        chunk_size=f.need("chunk_size", int),
        log_moves=f.need("log_moves", bool),
        jobs=f.need("jobs", int),
        backend=f.need("backend", str),
        scheduler=f.nullable("scheduler", str),
        precision=f.optional("precision", float),
        command=f.need("command", str),
    )


def _specs(f: _Fields, key: str, version: int) -> tuple[StrategySpec, ...]:
    """The list of spec texts at ``key`` as records of ``version``."""
    try:
        return tuple(StrategySpec.parse(text, version) for text in f.strings(key))
    except InputError as exc:
        raise ManifestError(f"{f.where} is damaged: '{f.prefix}{key}': {exc}") from None


def _rules(top: _Fields, key: str) -> Rules:
    """The rules object as typed :class:`Rules`; ManifestError if they are not rules."""
    flags = dict(top.need(key, dict))
    for name in LISTED_FLAGS:
        if name in flags:
            values = flags[name]
            if not isinstance(values, list):
                raise ManifestError(f"{top.where} is damaged: 'rules.{name}' is not a list")
            flags[name] = tuple(values)
    if not isinstance(flags.get("preset_name", ""), str):
        raise ManifestError(f"{top.where} is damaged: 'rules.preset_name' is not a string")
    try:
        return Rules(**flags)
    except TypeError as exc:  # an unknown flag
        raise ManifestError(f"{top.where} is damaged: 'rules' are not rules ({exc})") from None
    except InputError as exc:
        raise ManifestError(f"{top.where} is damaged: 'rules': {exc}") from None


def _entry(item: Any, where: str, i: int) -> StrategyEntry:
    """Entry ``i`` of ``strategies``: an object with a spec, a name and its parameters."""
    if not isinstance(item, dict):
        raise ManifestError(f"{where} is damaged: 'strategies[{i}]' is not an object")
    f = _Fields(item, where, f"strategies[{i}].")
    return StrategyEntry(f.need("spec", str), f.need("name", str), f.need("params", dict))
