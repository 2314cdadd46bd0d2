"""The ``learned`` strategy's model file: an ``.npz`` of weights over named features.

Keys: ``format_version`` (int, :data:`FORMAT_VERSION`), ``features`` (the feature names,
which must equal :data:`strategies.learned_features.FEATURES` in order: weights over
other features would be read against the wrong numbers), ``weights`` (float64, one per
feature) and ``provenance`` (a JSON object as text: the training command, seed, games,
presets, players, accuracy, date, git commit). Loading checks all of it and refuses a
bad file with one-line :class:`~strategies.base.StrategyError`.
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

FORMAT_VERSION = 1
KEYS = ("format_version", "features", "weights", "provenance")
#: the model shipped in the package (``learned`` with ``model=default``)
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "learned-default.npz"
SHA_PREFIX = 16  # hex digits of the file's SHA-256 kept in the strategy's spec


@dataclass(frozen=True)
class LearnedModel:
    """A validated model: its weights, provenance and the SHA-256 of the file's bytes."""

    weights: np.ndarray
    provenance: dict[str, Any]
    sha256: str

    def param_array(self) -> np.ndarray:
        """The kernel's parameter array: the feature count, then the weights."""
        return np.concatenate(([float(N_FEATURES)], self.weights)).astype(np.float64)


def model_path(name: str) -> Path:
    """The file that a ``model=`` value names: ``default`` is the shipped model."""
    return DEFAULT_MODEL if name == "default" else Path(name).expanduser()


def load_model(path: Path) -> LearnedModel:
    """Read and validate a model file; StrategyError (one line) when it is not usable."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StrategyError(
            f"learned: cannot read model file {path}: {exc.strerror or exc}"
        ) from None
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            missing = [k for k in KEYS if k not in npz.files]
            if missing:
                raise StrategyError(
                    f"learned: model file {path} lacks {', '.join(missing)} "
                    f"(a model has {', '.join(KEYS)})"
                )
            arrays = {k: npz[k] for k in KEYS}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, StrategyError):
            raise
        raise StrategyError(f"learned: {path} is not a model file (.npz): {exc}") from None
    version = arrays["format_version"]
    if version.shape != () or version.dtype.kind not in "iu" or int(version) != FORMAT_VERSION:
        raise StrategyError(
            f"learned: model file {path} has format_version {version.tolist()!r}; this "
            f"haggis-sim reads version {FORMAT_VERSION} (train a new model)"
        )
    names = tuple(str(x) for x in np.atleast_1d(arrays["features"]).tolist())
    if names != FEATURES:
        raise StrategyError(
            f"learned: model file {path} was trained on other features ({len(names)} names, "
            f"this haggis-sim computes {N_FEATURES}); train a new model"
        )
    w = arrays["weights"]
    if w.shape != (N_FEATURES,) or w.dtype.kind != "f" or not np.all(np.isfinite(w)):
        raise StrategyError(
            f"learned: model file {path}: weights must be {N_FEATURES} finite floats, "
            f"got shape {w.shape} of {w.dtype}"
        )
    try:
        provenance = json.loads(str(arrays["provenance"]))
    except ValueError:
        raise StrategyError(f"learned: model file {path}: provenance is not JSON") from None
    if not isinstance(provenance, dict):
        raise StrategyError(f"learned: model file {path}: provenance is not a JSON object")
    sha = hashlib.sha256(data).hexdigest()
    return LearnedModel(w.astype(np.float64), provenance, sha)


def model_bytes(weights: np.ndarray, provenance: dict[str, Any]) -> bytes:
    """The ``.npz`` bytes of a model (what :func:`save_model` writes)."""
    buf = io.BytesIO()
    np.savez(
        buf,
        format_version=np.int64(FORMAT_VERSION),
        features=np.array(FEATURES),
        weights=np.asarray(weights, dtype=np.float64),
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
