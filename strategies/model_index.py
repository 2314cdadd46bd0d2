"""The index of the shipped models, as data: ``strategies/models/index.toml``.

One entry per model file (its name and the names runs recorded for it, its SHA-256
prefix, the search that taught it, the command and games that made it, the day, and its
measured strength with the benchmark row that holds the figure). The loader finds shipped
models by it, the ``model=`` parameters' help names each model's teacher from it, the
Model history page prints it as a table, and the tests check it against the files and
the benchmark tables, so a new model is one entry here and one file beside it.

>>> [e.name for e in MODEL_INDEX if e.kind == "value"]
['vgen1']
>>> shipped_files("policy")["default"]
'learned-default.npz'
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .base import StrategyError

INDEX_PATH = Path(__file__).resolve().parent / "models" / "index.toml"
KINDS = ("policy", "value")


@dataclass(frozen=True)
class Strength:
    """A measured win rate: ``rate`` (with its 95% interval) of ``games`` games against
    ``against``, printed in the row of ``benchmark`` whose pairing is ``row``."""

    against: str
    rate: str
    games: str
    benchmark: str
    row: str


@dataclass(frozen=True)
class ModelEntry:
    """One shipped model file and where it came from."""

    name: str
    file: str
    kind: str
    sha: str
    teacher: str
    recipe: str
    games: int
    seed: int
    date: str
    aliases: tuple[str, ...] = ()
    strength: Strength | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Every name a ``model=`` value may give for this file."""
        return (self.name, *self.aliases)


_FIELDS = {"name": str, "file": str, "kind": str, "sha": str, "teacher": str,
           "recipe": str, "games": int, "seed": int, "date": str}  # fmt: skip


def _entry(item: Any, i: int) -> ModelEntry:
    """Entry ``i`` of the index, checked: StrategyError naming the entry and field."""
    where = f"{INDEX_PATH}: model {i + 1}"
    if not isinstance(item, dict):
        raise StrategyError(f"{where} is not a table")
    unknown = sorted(set(item) - {*_FIELDS, "aliases", "strength"})
    if unknown:
        raise StrategyError(f"{where} has an unknown field {unknown[0]!r}")
    for key, kind in _FIELDS.items():
        if not isinstance(item.get(key), kind):
            raise StrategyError(f"{where} needs {key!r} as a {kind.__name__}")
    if item["kind"] not in KINDS:
        raise StrategyError(f"{where}: kind must be one of {', '.join(KINDS)}")
    aliases = item.get("aliases", [])
    if not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
        raise StrategyError(f"{where}: aliases must be a list of names")
    strength = None
    if "strength" in item:
        s = item["strength"]
        keys = Strength.__dataclass_fields__
        if not (isinstance(s, dict) and set(s) == set(keys)):
            raise StrategyError(f"{where}: strength needs exactly {', '.join(keys)}")
        if not all(isinstance(v, str) for v in s.values()):
            raise StrategyError(f"{where}: strength's fields are texts")
        strength = Strength(**s)
    fields = {k: item[k] for k in _FIELDS}
    return ModelEntry(**fields, aliases=tuple(aliases), strength=strength)


@cache
def load_index(path: Path = INDEX_PATH) -> tuple[ModelEntry, ...]:
    """The entries of the index, in its order; StrategyError if it is damaged or names
    one model twice."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise StrategyError(f"the model index {path} cannot be read: {exc}") from None
    items = data.get("model")
    if not isinstance(items, list) or not items:
        raise StrategyError(f"the model index {path} lists no [[model]]")
    entries = tuple(_entry(item, i) for i, item in enumerate(items))
    names = [n for e in entries for n in e.names]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise StrategyError(f"the model index {path} names {twice[0]!r} twice")
    return entries


MODEL_INDEX = load_index()


def shipped_files(kind: str) -> dict[str, str]:
    """The shipped files of ``kind`` by every name a ``model=`` value may give."""
    return {n: e.file for e in MODEL_INDEX if e.kind == kind for n in e.names}


def lineage_help(prefix: str) -> str:
    """``NAME: taught by TEACHER`` for each policy model whose name starts with ``prefix``
    (the help of the ``model=`` parameters)."""
    line = [e for e in MODEL_INDEX if e.kind == "policy" and e.name.startswith(prefix)]
    return "; ".join(f"{e.name}: taught by {e.teacher}" for e in line)
