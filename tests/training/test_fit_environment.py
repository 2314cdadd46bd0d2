"""The numerical environment recorded in a trained model's provenance: what a bit-for-bit
reproduction of its weights has to match."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
import scipy

from haggis_sim.training.environment import FIT_BLAS_THREADS, cpu_model, numeric_environment


def test_the_environment_names_the_libraries_and_the_kernels_they_chose() -> None:
    env = numeric_environment()
    assert (env["numpy"], env["scipy"], env["numba"]) == (
        np.__version__,
        scipy.__version__,
        numba.__version__,
    )
    assert env["cpu"] == cpu_model() and env["cpu"]
    # numpy's BLAS and scipy's (the fit's matrix products and its optimizer) are both there
    files = [b["file"] for b in env["blas"]]
    assert len(files) >= 2 and files == sorted(files)
    for blas in env["blas"]:
        assert blas["library"] and blas["version"] and isinstance(blas["threads"], int)
        assert blas["architecture"]  # the kernels chosen for this CPU
    assert set(env["numpy_simd"]) <= set(np._core._multiarray_umath.__cpu_dispatch__)
    json.dumps(env)  # it goes into the model file's JSON provenance as it is


FIT_SCRIPT = """
import contextlib, hashlib, sys
import numpy as np
import haggis_sim.training.fit as F
if sys.argv[1] == "unpinned":
    F.fit_threads = contextlib.nullcontext
rng = np.random.default_rng(1)
n = 20000
x = rng.standard_normal((n, 30)).astype(np.float32)
decision = np.repeat(np.arange(n // 10), 10)
players = np.where(decision % 2 == 0, 2, 3)
linear, hidden, _ = F.fit_hidden(x, decision, rng.random(n), players, 8, 1, maxiter=5)
print(hashlib.sha256(linear.tobytes() + hidden.weights.tobytes()).hexdigest())
"""


def _fit_digest(threads: int, mode: str) -> str:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads)}
    out = subprocess.run([sys.executable, "-c", FIT_SCRIPT, mode], env=env,
                         capture_output=True, text=True, timeout=300, check=True)  # fmt: skip
    return out.stdout.strip()


@pytest.mark.slow  # fits in subprocesses with other BLAS thread counts
def test_a_fit_gives_the_same_weights_whatever_blas_threads_the_process_has() -> None:
    """The fit runs with FIT_BLAS_THREADS BLAS threads, so a process started with one
    thread (a 1-core machine, OPENBLAS_NUM_THREADS=1) fits the weights a 2-core one does.
    The control shows this data is large enough for the threads to change the rounding."""
    assert FIT_BLAS_THREADS == 2
    assert _fit_digest(1, "pinned") == _fit_digest(2, "pinned")
    assert _fit_digest(1, "unpinned") != _fit_digest(2, "unpinned")
