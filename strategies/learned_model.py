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
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npformat

from haggis_sim.inputs import UnreadableFile, read_regular

from .base import StrategyError
from .learned_features import FEATURES
from .model_index import shipped_files
from .value_features import VALUE_FEATURES

FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)  # 1: weights of shape (features,), for both player counts
KEYS = ("format_version", "features", "weights", "provenance")
#: version 3: a hidden layer per player count (H units; H = 0 for a linear model)
HIDDEN_KEYS = ("hidden_weights", "hidden_bias", "output")
MODELS_DIR = Path(__file__).resolve().parent / "models"
#: the models shipped in the package, by every name a ``model=`` value may give (the
#: model index, ``strategies/models/index.toml``: each file's lineage and strength)
SHIPPED_MODELS = shipped_files("policy")
#: the model ``learned`` plays when none is named (the evidence in docs/models.md:
#: 61.5% [60.6%, 62.5%] of 9,996 2-player games against gen3)
DEFAULT_LEARNED_MODEL = "mix6"
#: mcts's prior, pinned to one generation rather than following ``learned``'s default,
#: so a newly shipped ``learned`` model does not silently change the search and every
#: figure of it (mix5, with the defaults of the search it is the prior of)
MCTS_PRIOR_MODEL = "mix5"
DEFAULT_MODEL = MODELS_DIR / SHIPPED_MODELS[DEFAULT_LEARNED_MODEL]
#: the value models shipped in the package (``mcts:value=net,vmodel=NAME``): the same
#: format over :data:`~strategies.value_features.VALUE_FEATURES`, whose score is the
#: logit of a seat's reward at the end of the round (``haggis-sim train-value``)
SHIPPED_VALUE_MODELS = shipped_files("value")
DEFAULT_VALUE_MODEL = "vgen1"
SHA_PREFIX = 16  # hex digits of the file's SHA-256 kept in the strategy's spec
#: the largest model file read (the shipped ones are about 35 kB; one with the widest hidden
#: layer train makes, 256 units, about 2 * 256 * features * 8 bytes, well under 1 MB)
MAX_MODEL_BYTES = 64 * 2**20
MAX_HIDDEN_UNITS = 256  # as haggis_sim.training.train.MAX_HIDDEN: the widest layer trained
MAX_FEATURE_NAMES = 1024  # far above N_FEATURES: a newer file is still told "other features"
MAX_NAME_BYTES = 4 * 256  # a feature name of at most 256 characters (numpy's UTF-32)
MAX_PROVENANCE_BYTES = 4 * 2**20  # provenance: at most 1 Mi characters of JSON
MAX_ARRAY_ITEMS = 2 * MAX_FEATURE_NAMES * MAX_HIDDEN_UNITS  # numbers in any one array (4 MB)
_NUMBER = "biuf"
_UNITS = f"floats of shape (2, H), H <= {MAX_HIDDEN_UNITS}"
#: per key what its .npy header may promise: dimensions, bound of each, dtype kinds, wording
HEADER_LIMITS: dict[str, tuple[int, int, str, str]] = {
    "format_version": (1, 8, _NUMBER, "one integer"),
    "features": (1, MAX_FEATURE_NAMES, "U", f"a list of at most {MAX_FEATURE_NAMES} names"),
    "weights": (2, MAX_FEATURE_NAMES, _NUMBER, "floats of shape (2, features)"),
    "provenance": (0, 0, "U", "one JSON text of at most 1 Mi characters"),
    "hidden_weights": (3, MAX_FEATURE_NAMES, _NUMBER,
                       f"floats of shape (2, features, H), H <= {MAX_HIDDEN_UNITS}"),
    "hidden_bias": (2, MAX_HIDDEN_UNITS, _NUMBER, _UNITS),
    "output": (2, MAX_HIDDEN_UNITS, _NUMBER, _UNITS),
}  # fmt: skip


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
    output weights: the layout :mod:`strategies.network` reads, for a policy model
    (:func:`strategies.learned_features.score_actions`) and a value model
    (:func:`strategies.value_features.value_logit`) alike."""
    w = per_player_count(weights)
    parts = [np.array([float(w.shape[1])]), w[0], w[1]]
    if hidden is not None and hidden.units > 0:
        parts.append(np.array([float(hidden.units)]))
        for r in range(2):
            parts += [hidden.weights[r].ravel(), hidden.bias[r], hidden.output[r]]
    return np.concatenate(parts).astype(np.float64)


def model_path(name: str, shipped: dict[str, str] = SHIPPED_MODELS) -> Path:
    """The file that a ``model=`` value names: a shipped model's name, or a path
    (``shipped``: :data:`SHIPPED_VALUE_MODELS` for a ``vmodel=`` value)."""
    if name in shipped:
        return MODELS_DIR / shipped[name]
    return Path(name).expanduser()


def load_value_model(path: Path, who: str = "mcts") -> LearnedModel:
    """Read and validate a value model file: :func:`load_model` over
    :data:`~strategies.value_features.VALUE_FEATURES` (a policy model's features differ,
    so one given as a value model is refused, and vice versa)."""
    return load_model(path, who, VALUE_FEATURES)


def load_model(
    path: Path, who: str = "learned", features: tuple[str, ...] = FEATURES
) -> LearnedModel:
    """Read and validate a model file over ``features``; StrategyError (one line, naming
    the strategy ``who`` that reads it) when it is not usable.

    Nothing is allocated from the file's say-so: it must be a regular file of at most
    :data:`MAX_MODEL_BYTES` (a FIFO or a device is refused before it is opened), and
    every array's shape and dtype are read from its ``.npy`` header inside the zip and
    checked (:func:`_check_header`) before the array itself is read."""
    data = _read_capped(path, who)
    arrays = _read_arrays(data, path, who)
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
    if not names or names != features[: len(names)]:
        raise StrategyError(
            f"{who}: model file {path} was trained on other features ({len(names)} names, "
            f"this haggis-sim computes {len(features)}); train a new model"
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
    missing_features = len(features) - len(names)
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
    forms = {"hidden_weights": (3, (2, nf)), "hidden_bias": (2, (2,)), "output": (2, (2,))}
    for key, a in zip(HIDDEN_KEYS, (wh, bh, out), strict=True):
        ndim, head = forms[key]
        if (
            a.ndim != ndim
            or a.shape[:-1] != head
            or a.dtype.kind != "f"
            or not np.all(np.isfinite(a))
        ):
            raise StrategyError(
                f"{who}: model file {path}: {key} must be finite floats of shape "
                f"{_form(head)}; got {a.shape} of {a.dtype}"
            )
    units = [a.shape[-1] for a in (wh, bh, out)]
    if len(set(units)) == 3:
        raise StrategyError(
            f"{who}: model file {path}: {', '.join(HIDDEN_KEYS)} must share H, the hidden "
            f"units; got {', '.join(map(str, units))}"
        )
    if len(set(units)) == 2:  # name the array whose H differs from the other two's
        i = next(i for i, u in enumerate(units) if units.count(u) == 1)
        odd, others = HIDDEN_KEYS[i], [k for k in HIDDEN_KEYS if k != HIDDEN_KEYS[i]]
        raise StrategyError(
            f"{who}: model file {path}: {odd} must be finite floats of shape "
            f"{_form(forms[odd][1])} with H = {units[i - 1]} hidden units like "
            f"{' and '.join(others)}; got {arrays[odd].shape}"
        )
    return Hidden(wh.astype(np.float64), bh.astype(np.float64), out.astype(np.float64))


def _form(head: tuple[int, ...]) -> str:
    """A hidden array's shape as text, its last dimension the hidden units H."""
    return "(" + ", ".join([*map(str, head), "H"]) + ")"


def _read_capped(path: Path, who: str) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_MODEL_BYTES`; StrategyError for
    anything else (:func:`haggis_sim.inputs.read_regular`: a FIFO is never opened, nor can
    one swapped in meanwhile hang the read)."""
    try:
        return read_regular(path, MAX_MODEL_BYTES)
    except UnreadableFile as exc:
        if exc.limit is not None:
            raise StrategyError(
                f"{who}: model file {path} is larger than {MAX_MODEL_BYTES // 2**20} MB; "
                "a model file is far smaller (not a model file?)"
            ) from None
        raise StrategyError(f"{who}: model file {path} is not a regular file") from None
    except OSError as exc:
        raise StrategyError(
            f"{who}: cannot read model file {path}: {exc.strerror or exc}"
        ) from None


def _read_arrays(data: bytes, path: Path, who: str) -> dict[str, np.ndarray]:
    """The model's arrays (:data:`KEYS`, and :data:`HIDDEN_KEYS` where present) from the
    ``.npz`` bytes, each read only after its header passed :func:`_check_header`; other
    members are not read. StrategyError for a missing key or a file that is not a model."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = {n[: -len(".npy")]: n for n in zf.namelist() if n.endswith(".npy")}
            missing = [k for k in KEYS if k not in names]
            if missing:
                raise StrategyError(
                    f"{who}: model file {path} lacks {', '.join(missing)} "
                    f"(a model has {', '.join(KEYS)})"
                )
            arrays = {}
            for key in (*KEYS, *HIDDEN_KEYS):
                if key in names:
                    arrays[key] = _read_member(zf, names[key], key, path, who)
            return arrays
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, RuntimeError) as exc:
        if isinstance(exc, StrategyError):
            raise
        why = str(exc)
        if "pickle" in why:  # numpy's advice to load unsafely is never passed on
            why = "it holds Python objects, which a model file never does"
        raise StrategyError(f"{who}: {path} is not a model file (.npz): {why}") from None


def _read_member(zf: zipfile.ZipFile, name: str, key: str, path: Path, who: str) -> np.ndarray:
    """One ``.npy`` member: its header checked first, then the array (never pickled)."""
    if zf.getinfo(name).file_size > MAX_MODEL_BYTES:
        raise StrategyError(
            f"{who}: model file {path}: {key} unpacks to more than "
            f"{MAX_MODEL_BYTES // 2**20} MB; no model array is that large"
        )
    with zf.open(name) as f:
        version = npformat.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = npformat.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = npformat.read_array_header_2_0(f)
        else:
            raise ValueError(f"{key}: .npy format version {version} is not read")
    _check_header(key, shape, dtype, path, who)
    with zf.open(name) as f:
        return np.asarray(npformat.read_array(f, allow_pickle=False))


def _check_header(key: str, shape: tuple[int, ...], dtype: np.dtype, path: Path, who: str) -> None:
    """StrategyError unless array ``key``'s header promises what a model can hold: plain
    numbers (text for features and provenance), at most as many dimensions as the key
    has, each at most :data:`HEADER_LIMITS`' bound, so a few bytes of zip cannot ask for
    gigabytes (nor more than :data:`MAX_ARRAY_ITEMS` in all). The exact shapes and
    values are checked once the arrays are read."""
    ndim, bound, kinds, what = HEADER_LIMITS[key]
    text_key = kinds == "U"
    too_wide = text_key and dtype.itemsize > (MAX_PROVENANCE_BYTES if key == "provenance"
                                               else MAX_NAME_BYTES)  # fmt: skip
    if (
        dtype.hasobject
        or dtype.kind not in kinds
        or len(shape) > ndim
        or any(d > bound for d in shape)
        or math.prod(shape) > MAX_ARRAY_ITEMS
        or too_wide
    ):
        raise StrategyError(
            f"{who}: model file {path}: {key} has shape {shape} of {dtype}; a model's {key} "
            f"is {what}"
        )
