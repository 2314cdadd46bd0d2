"""Model files (``learned:model=``, ``mcts:model=``) are read with bounds: a regular file
of at most 64 MB, every array's .npy header checked before the array is read, never a
pickle and never numpy's advice to load one, one line naming the array that is wrong.

The device and FIFO cases run the loader in a child process with a timeout and a memory
limit: before the bounds, /dev/zero filled the memory and a FIFO blocked forever.
"""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_helpers import one_line_error
from numpy.lib import format as npformat
from typer.testing import CliRunner

import strategies
from haggis_sim.cli import app
from strategies.base import StrategyError
from strategies.learned_features import N_FEATURES
from strategies.learned_model import DEFAULT_MODEL, SHIPPED_MODELS, load_model

runner = CliRunner()
MAX_MODEL_BYTES = 64 * 2**20  # the documented cap (docs/models.md, model card)
ROOT = Path(__file__).resolve().parents[2]


def default_arrays() -> dict[str, np.ndarray]:
    with np.load(DEFAULT_MODEL) as npz:
        return {k: npz[k] for k in npz.files}


def write_model(path: Path, **override: Any) -> Path:
    """The default model with some arrays replaced (``np.savez``: object arrays pickled)."""
    arrays = {**default_arrays(), **override}
    np.savez(path, **arrays)
    return path


def load_in_child(spec: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """``strategies.make(spec)`` in a child process with 3 GB of address space at most;
    exit 2 and the message on stderr for a StrategyError."""
    code = (
        "import sys, strategies\n"
        "from strategies.base import StrategyError\n"
        "try:\n"
        f"    strategies.make({spec!r})\n"
        "except StrategyError as exc:\n"
        "    print(exc, file=sys.stderr); sys.exit(2)\n"
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    try:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
            preexec_fn=limit, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"loading {spec} did not finish within {timeout} s")


@pytest.mark.parametrize("who", ["learned", "mcts"])
def test_a_device_is_refused_before_it_is_read(who: str) -> None:
    res = load_in_child(f"{who}:model=/dev/zero")
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    assert res.stderr.strip() == f"{who}: model file /dev/zero is not a regular file"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    res = load_in_child(f"learned:model={fifo}", timeout=60)
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    assert "is not a regular file" in res.stderr and res.stderr.count("\n") == 1


def test_a_file_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.npz"
    with big.open("wb") as f:
        f.truncate(MAX_MODEL_BYTES + 1)  # sparse: no disk, and never read
    with pytest.raises(StrategyError, match=r"larger than 64 MB") as info:
        load_model(big)
    assert "\n" not in str(info.value)


def npy_header(shape: tuple[int, ...], dtype: str = "<f8") -> bytes:
    """A version 1.0 .npy header promising ``shape`` (no data follows)."""
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()  # the magic string and the header


def zip_with(path: Path, key: str, member: bytes) -> Path:
    """The default model's .npz with member ``key.npy`` replaced by ``member``."""
    arrays = default_arrays()
    with zipfile.ZipFile(path, "w") as zf:
        for k, a in arrays.items():
            data = io.BytesIO()
            np.save(data, a)
            zf.writestr(f"{k}.npy", member if k == key else data.getvalue())
    return path


@pytest.mark.parametrize(
    ("key", "shape"),
    [
        ("weights", (2**40,)),  # 8 TiB of float64 promised by a few bytes
        ("hidden_weights", (2, 1024, 1024)),  # each dimension plausible, the whole not
        ("output", (2, 100_000)),
    ],
)
def test_a_header_promising_too_much_is_refused_before_allocating(
    tmp_path: Path, key: str, shape: tuple[int, ...]
) -> None:
    path = zip_with(tmp_path / "bomb.npz", key, npy_header(shape))
    with pytest.raises(StrategyError) as info:
        load_model(path)
    msg = str(info.value)
    assert "\n" not in msg and f"{key} has shape {shape}" in msg, msg
    res = runner.invoke(app, ["run", "-s", f"learned:model={path},greedy", "-n", "4", "-q",
                              "--out", str(tmp_path / "run")])  # fmt: skip
    one_line_error(res, key, str(shape))
    assert not (tmp_path / "run").exists()


def test_a_text_file_never_suggests_loading_unsafely(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("these are not weights\n" * 10)
    with pytest.raises(StrategyError) as info:
        load_model(text)
    msg = str(info.value)
    assert "\n" not in msg and "is not a model file (.npz)" in msg
    assert "pickle" not in msg.lower(), msg


def test_an_object_array_is_refused_without_unpickling(tmp_path: Path) -> None:
    path = write_model(tmp_path / "obj.npz", provenance=np.array({"x": 1}, dtype=object))
    with pytest.raises(StrategyError) as info:
        load_model(path)
    msg = str(info.value)
    assert "\n" not in msg and "provenance has shape" in msg and "object" in msg, msg
    assert "allow_pickle" not in msg


def hidden_arrays(units: tuple[int, int, int]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {
        "format_version": np.int64(3),
        "hidden_weights": rng.standard_normal((2, N_FEATURES, units[0])),
        "hidden_bias": rng.standard_normal((2, units[1])),
        "output": rng.standard_normal((2, units[2])),
    }


@pytest.mark.parametrize(
    ("units", "odd"),
    [((6, 5, 5), "hidden_weights"), ((5, 6, 5), "hidden_bias"), ((5, 5, 6), "output")],
)
def test_a_hidden_size_mismatch_names_the_array_that_differs(
    tmp_path: Path, units: tuple[int, int, int], odd: str
) -> None:
    path = write_model(tmp_path / "h.npz", **hidden_arrays(units))
    with pytest.raises(StrategyError) as info:
        load_model(path)
    msg = str(info.value)
    assert f"{odd} must be" in msg and "H = 5" in msg, msg
    others = [k for k in ("hidden_weights", "hidden_bias", "output") if k != odd]
    assert f"like {' and '.join(others)}" in msg, msg


def test_three_different_hidden_sizes_are_all_named(tmp_path: Path) -> None:
    path = write_model(tmp_path / "h.npz", **hidden_arrays((4, 5, 6)))
    with pytest.raises(StrategyError, match="hidden_weights, hidden_bias, output must share H"):
        load_model(path)


def test_the_shipped_models_still_load() -> None:
    for name in SHIPPED_MODELS:
        assert strategies.make(f"learned:model={name}").model.weights.shape == (2, N_FEATURES)  # type: ignore[attr-defined]
