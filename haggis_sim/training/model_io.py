"""Writing the ``learned`` strategy's model file (the format:
:mod:`strategies.learned_model`, which reads it)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from strategies import StrategyError
from strategies.learned_features import FEATURES
from strategies.learned_model import FORMAT_VERSION, Hidden, per_player_count

from ..outputs import check_outside, reserve_file, write_file_atomically


def model_bytes(
    weights: np.ndarray,
    provenance: dict[str, Any],
    hidden: Hidden | None = None,
    features: tuple[str, ...] = FEATURES,
) -> bytes:
    """The ``.npz`` bytes of a model (what :func:`save_model` writes): ``weights`` of
    shape (2, features), or (features,) for both player counts, and the hidden layer
    (none: H = 0, a linear model); ``features``: their names (a value model's are
    :data:`~strategies.value_features.VALUE_FEATURES`)."""
    if hidden is None:
        hidden = Hidden(np.zeros((2, len(features), 0)), np.zeros((2, 0)), np.zeros((2, 0)))
    buf = io.BytesIO()
    np.savez(
        buf,
        format_version=np.int64(FORMAT_VERSION),
        features=np.array(features),
        weights=per_player_count(weights),
        hidden_weights=hidden.weights,
        hidden_bias=hidden.bias,
        output=hidden.output,
        provenance=np.array(json.dumps(provenance, sort_keys=True)),
    )
    return buf.getvalue()


def check_output(path: Path, option: str, force: bool) -> None:
    """StrategyError, before any work, unless a file may be written to ``path`` (given
    as ``option``): not an existing file without ``force``, in a folder that exists and
    takes a new file (tried with the temporary file the write will use, removed again),
    not inside a run, report or experiment folder."""
    if path.exists() and not force:
        raise StrategyError(f"{path} exists; pass --force to overwrite it")
    if not path.parent.is_dir():
        raise StrategyError(f"folder {path.parent} does not exist")
    check_outside(path, option, StrategyError)
    reserve_file(path, StrategyError, option).unlink()


def save_model(
    path: Path,
    weights: np.ndarray,
    provenance: dict[str, Any],
    force: bool = False,
    hidden: Hidden | None = None,
    features: tuple[str, ...] = FEATURES,
) -> None:
    """Write a model atomically (temporary file, then rename); refuse to overwrite
    an existing file unless ``force`` (StrategyError)."""
    if path.exists() and not force:
        raise StrategyError(f"{path} exists; pass --force to overwrite it")
    data = model_bytes(weights, provenance, hidden, features)
    write_file_atomically(path, data, StrategyError, "")
