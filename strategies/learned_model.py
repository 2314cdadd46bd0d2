"""The ``learned`` strategy's model file: an ``.npz`` of weights over named features.

Keys: ``format_version`` (int, :data:`FORMAT_VERSION`), ``features`` (the feature names,
which must equal :data:`strategies.learned_features.FEATURES` in order: weights over
other features would be read against the wrong numbers; a *prefix* of it is read too,
the later features weighted 0, so a model trained before features were appended scores
every action exactly as it did), ``weights`` (float64, shape (2, features): the linear
weights, row 0 for 2-player games, row 1 for 3-player games, which are different enough
games to want their own), from version 3 the hidden layer ``hidden_weights`` (2,
features, H), ``hidden_bias`` (2, H) and ``output`` (2, H) (H = 0: a linear model), and
``provenance`` (a JSON object as text: the training command, seed, games, presets,
players, accuracy, date, git commit; written by
:mod:`haggis_sim.training.model_io`). Loading checks all of it and refuses a bad file
with one-line :class:`~strategies.base.StrategyError`. Version 1 files (one weight per
feature, for every player count) and version 2 files (linear) are still read.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .base import StrategyError
from .learned_features import FEATURES, N_FEATURES

FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)  # 1: weights of shape (features,), for both player counts
KEYS = ("format_version", "features", "weights", "provenance")
#: version 3: a hidden layer per player count (H units; H = 0 for a linear model)
HIDDEN_KEYS = ("hidden_weights", "hidden_bias", "output")
MODELS_DIR = Path(__file__).resolve().parent / "models"
#: the models shipped in the package, by the name a ``model=`` value may give: ``default``
#: is the one ``learned`` plays; ``gen1`` the first-generation model, taught by the search
#: without a prior; ``gen2`` the second, taught by the search with ``gen1`` as its prior,
#: and the prior ``mcts`` searches with (:data:`MCTS_PRIOR_MODEL`)
SHIPPED_MODELS = {"default": "learned-default.npz", "gen1": "learned-gen1.npz",
                  "gen2": "learned-gen2.npz"}  # fmt: skip
#: mcts's prior is pinned to one generation rather than following ``default``, so a newly
#: shipped ``learned`` model does not silently change the search and every figure of it
MCTS_PRIOR_MODEL = "gen2"
DEFAULT_MODEL = MODELS_DIR / SHIPPED_MODELS["default"]
SHA_PREFIX = 16  # hex digits of the file's SHA-256 kept in the strategy's spec


@dataclass(frozen=True)
class LearnedModel:
    """A validated model: its linear weights (2, features): row 0 for 2 players, row 1
    for 3), its hidden layer (:class:`Hidden`; ``None`` for a linear model), provenance
    and the SHA-256 of the file's bytes."""

    weights: np.ndarray
    provenance: dict[str, Any]
    sha256: str
    hidden: Hidden | None = None

    def param_array(self) -> np.ndarray:
        """The kernel's parameter array (:func:`param_row`)."""
        return param_row(self.weights, self.hidden)


@dataclass(frozen=True)
class Hidden:
    """A model's hidden layer per player count (row 0: 2 players, row 1: 3): ``weights``
    (2, features, H), ``bias`` (2, H) and ``output`` (2, H) weights. A player count's
    score adds ``output . tanh(features @ weights + bias)`` to its linear score."""

    weights: np.ndarray
    bias: np.ndarray
    output: np.ndarray

    @property
    def units(self) -> int:
        return int(self.weights.shape[2])


def per_player_count(weights: np.ndarray) -> np.ndarray:
    """``weights`` as a (2, features) array: one row (features,) serves both counts."""
    w = np.asarray(weights, dtype=np.float64)
    return np.vstack([w, w]) if w.ndim == 1 else w


def param_row(weights: np.ndarray, hidden: Hidden | None = None) -> np.ndarray:
    """The learned kernel's parameter array: the feature count, then the 2-player weights,
    then the 3-player ones (``weights`` of shape (features,) serve both); with a hidden
    layer of H > 0 units, then H and per player count its weights (row by row), bias and
    output weights (:func:`strategies.learned_features.score_actions`)."""
    w = per_player_count(weights)
    parts = [np.array([float(N_FEATURES)]), w[0], w[1]]
    if hidden is not None and hidden.units > 0:
        parts.append(np.array([float(hidden.units)]))
        for r in range(2):
            parts += [hidden.weights[r].ravel(), hidden.bias[r], hidden.output[r]]
    return np.concatenate(parts).astype(np.float64)


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
            arrays = {k: npz[k] for k in npz.files}  # the hidden layer's too (version 3)
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
    if not names or names != FEATURES[: len(names)]:
        raise StrategyError(
            f"{who}: model file {path} was trained on other features ({len(names)} names, "
            f"this haggis-sim computes {N_FEATURES}); train a new model"
        )
    w = arrays["weights"]
    shape = (len(names),) if int(version) == 1 else (2, len(names))
    if w.shape != shape or w.dtype.kind != "f" or not np.all(np.isfinite(w)):
        raise StrategyError(
            f"{who}: model file {path}: weights must be finite floats of shape {shape} "
            f"(format_version {int(version)}), got shape {w.shape} of {w.dtype}"
        )
    # a model over an earlier, shorter feature list: the newer features get weight 0
    w = per_player_count(w)
    missing_features = N_FEATURES - len(names)
    w = np.hstack((w, np.zeros((2, missing_features))))
    hidden = None
    if int(version) >= 3:
        hidden = _read_hidden(arrays, path, who, len(names))
        if hidden.units == 0:
            hidden = None
        elif missing_features:
            pad = np.zeros((2, missing_features, hidden.units))
            hidden = Hidden(np.concatenate((hidden.weights, pad), axis=1), hidden.bias,
                            hidden.output)  # fmt: skip
    try:
        provenance = json.loads(str(arrays["provenance"]))
    except ValueError:
        raise StrategyError(f"{who}: model file {path}: provenance is not JSON") from None
    if not isinstance(provenance, dict):
        raise StrategyError(f"{who}: model file {path}: provenance is not a JSON object")
    sha = hashlib.sha256(data).hexdigest()
    return LearnedModel(w, provenance, sha, hidden)


def _read_hidden(arrays: dict[str, np.ndarray], path: Path, who: str, nf: int) -> Hidden:
    """A version 3 file's hidden layer, checked (StrategyError naming ``who``)."""
    missing = [k for k in HIDDEN_KEYS if k not in arrays]
    if missing:
        raise StrategyError(
            f"{who}: model file {path} lacks {', '.join(missing)} (format_version 3 has "
            f"{', '.join(HIDDEN_KEYS)})"
        )
    wh, bh, out = (arrays[k] for k in HIDDEN_KEYS)
    units = wh.shape[2] if wh.ndim == 3 else -1
    shapes = ((2, nf, units), (2, units), (2, units))
    for key, a, shape in zip(HIDDEN_KEYS, (wh, bh, out), shapes, strict=True):
        if units < 0 or a.shape != shape or a.dtype.kind != "f" or not np.all(np.isfinite(a)):
            raise StrategyError(
                f"{who}: model file {path}: {key} must be finite floats of shape "
                f"(2, {nf}, H), (2, H), (2, H) for hidden_weights, hidden_bias, output; "
                f"got {a.shape} of {a.dtype}"
            )
    return Hidden(wh.astype(np.float64), bh.astype(np.float64), out.astype(np.float64))
