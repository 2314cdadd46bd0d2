"""The ``learned`` strategy's model file: an ``.npz`` of weights over named features.

Keys: ``format_version`` (int, :data:`FORMAT_VERSION`), ``features`` (the feature names,
which must equal :data:`strategies.learned_features.FEATURES` in order: weights over
other features would be read against the wrong numbers), ``weights`` (float64, shape
(2, features): row 0 plays 2-player games, row 1 3-player games, which are different
enough games to want their own weights) and ``provenance`` (a JSON object as text: the
training command, seed, games, presets, players, accuracy, date, git commit). Loading
checks all of it and refuses a bad file with one-line :class:`~strategies.base.StrategyError`.
Version 1 files (one weight per feature, for every player count) are still read: both
rows get those weights.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .base import StrategyError
from .learned_features import FEATURES, N_FEATURES

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1: weights of shape (features,), for both player counts
KEYS = ("format_version", "features", "weights", "provenance")
MODELS_DIR = Path(__file__).resolve().parent / "models"
#: the models shipped in the package, by the name a ``model=`` value may give: ``default``
#: is the one ``learned`` plays and ``mcts`` searches with; ``gen1`` the first-generation
#: model, taught by the search without a prior, that taught ``default``'s teacher (the
#: search with ``gen1`` as its prior)
SHIPPED_MODELS = {"default": "learned-default.npz", "gen1": "learned-gen1.npz"}
DEFAULT_MODEL = MODELS_DIR / SHIPPED_MODELS["default"]
SHA_PREFIX = 16  # hex digits of the file's SHA-256 kept in the strategy's spec


@dataclass(frozen=True)
class LearnedModel:
    """A validated model: its weights (2, features): row 0 for 2 players, row 1 for 3),
    provenance and the SHA-256 of the file's bytes."""

    weights: np.ndarray
    provenance: dict[str, Any]
    sha256: str

    def param_array(self) -> np.ndarray:
        """The kernel's parameter array (:func:`param_row`)."""
        return param_row(self.weights)


def per_player_count(weights: np.ndarray) -> np.ndarray:
    """``weights`` as a (2, features) array: one row (features,) serves both counts."""
    w = np.asarray(weights, dtype=np.float64)
    return np.vstack([w, w]) if w.ndim == 1 else w


def param_row(weights: np.ndarray) -> np.ndarray:
    """The learned kernel's parameter array: the feature count, then the 2-player weights,
    then the 3-player ones (``weights`` of shape (features,) serve both)."""
    w = per_player_count(weights)
    return np.concatenate(([float(N_FEATURES)], w[0], w[1])).astype(np.float64)


def model_path(name: str) -> Path:
    """The file that a ``model=`` value names: a shipped model's name, or a path."""
    if name in SHIPPED_MODELS:
        return MODELS_DIR / SHIPPED_MODELS[name]
    return Path(name).expanduser()


def load_model(path: Path, who: str = "learned") -> LearnedModel:
    """Read and validate a model file; StrategyError (one line, naming the strategy ``who``
    that reads it) when it is not usable."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StrategyError(
            f"{who}: cannot read model file {path}: {exc.strerror or exc}"
        ) from None
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            missing = [k for k in KEYS if k not in npz.files]
            if missing:
                raise StrategyError(
                    f"{who}: model file {path} lacks {', '.join(missing)} "
                    f"(a model has {', '.join(KEYS)})"
                )
            arrays = {k: npz[k] for k in KEYS}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, StrategyError):
            raise
        raise StrategyError(f"{who}: {path} is not a model file (.npz): {exc}") from None
    version = arrays["format_version"]
    if (
        version.shape != ()
        or version.dtype.kind not in "iu"
        or int(version) not in READABLE_VERSIONS
    ):
        raise StrategyError(
            f"{who}: model file {path} has format_version {version.tolist()!r}; this "
            f"haggis-sim reads versions {', '.join(map(str, READABLE_VERSIONS))} (train a "
            "new model)"
        )
    names = tuple(str(x) for x in np.atleast_1d(arrays["features"]).tolist())
    if names != FEATURES:
        raise StrategyError(
            f"{who}: model file {path} was trained on other features ({len(names)} names, "
            f"this haggis-sim computes {N_FEATURES}); train a new model"
        )
    w = arrays["weights"]
    shape = (N_FEATURES,) if int(version) == 1 else (2, N_FEATURES)
    if w.shape != shape or w.dtype.kind != "f" or not np.all(np.isfinite(w)):
        raise StrategyError(
            f"{who}: model file {path}: weights must be finite floats of shape {shape} "
            f"(format_version {int(version)}), got shape {w.shape} of {w.dtype}"
        )
    try:
        provenance = json.loads(str(arrays["provenance"]))
    except ValueError:
        raise StrategyError(f"{who}: model file {path}: provenance is not JSON") from None
    if not isinstance(provenance, dict):
        raise StrategyError(f"{who}: model file {path}: provenance is not a JSON object")
    sha = hashlib.sha256(data).hexdigest()
    return LearnedModel(per_player_count(w), provenance, sha)


def model_bytes(weights: np.ndarray, provenance: dict[str, Any]) -> bytes:
    """The ``.npz`` bytes of a model (what :func:`save_model` writes): ``weights`` of
    shape (2, features), or (features,) for both player counts."""
    buf = io.BytesIO()
    np.savez(
        buf,
        format_version=np.int64(FORMAT_VERSION),
        features=np.array(FEATURES),
        weights=per_player_count(weights),
        provenance=np.array(json.dumps(provenance, sort_keys=True)),
    )
    return buf.getvalue()


def save_model(
    path: Path, weights: np.ndarray, provenance: dict[str, Any], force: bool = False
) -> None:
    """Write a model atomically (temporary file, then rename); refuse to overwrite
    an existing file unless ``force`` (StrategyError)."""
    if path.exists() and not force:
        raise StrategyError(f"{path} exists; pass --force to overwrite it")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(model_bytes(weights, provenance))
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StrategyError(f"cannot write {path}: {exc.strerror or exc}") from None
