"""A run folder's ``manifest.json``: what the run is, written once, verified on resume.

The manifest records the command, version, rules, strategies and the full configuration,
with a SHA-256 digest of the settings that decide the games (:data:`GAME_KEYS`), so an
edited manifest is noticed. It is written when the run starts and rewritten once when the
run is complete; which games are finished lives in the ledger (:mod:`.ledger`), so the
manifest stays small however many games the run has.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..errors import InputError

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


def config_digest(config: dict[str, Any]) -> str:
    """SHA-256 over the game-deciding keys of a config dict (canonical JSON)."""
    try:
        chosen = {k: config[k] for k in GAME_KEYS}
    except KeyError as exc:
        raise ManifestError(f"the run configuration lacks {exc.args[0]!r}") from None
    text = json.dumps(chosen, sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(text.encode()).hexdigest()


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    tmp = run_dir / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2))
    os.replace(tmp, run_dir / MANIFEST)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of a run folder; RunError (one line) if it is missing or unreadable."""
    path = run_dir / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{run_dir} is not a haggis-sim run (no {MANIFEST})")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path} is not a haggis-sim manifest (not a JSON object)")
    return data
