"""The numerical environment a model is fitted in, recorded in its provenance.

A fit's weights are reproducible bit for bit only where the floating-point arithmetic
is: the same numpy, scipy and BLAS builds, the BLAS kernels chosen for the CPU
("architecture") and its thread count, and numpy's own SIMD loops (``tanh``, ``exp``
and ``log`` of the loss). Each of these changes a full fit's weights (measured: see
docs/models.md, "Reproducing a model"). The thread count is fixed while a fit runs
(:func:`fit_threads`); the seeds and the data are recorded elsewhere in the provenance;
the rest is recorded here, as what a reproduction has to match.
"""

from __future__ import annotations

import importlib
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FIT_BLAS_THREADS = 2  # the threads every shipped model was fitted with (2-core machines)


@contextmanager
def fit_threads() -> Iterator[None]:
    """BLAS threads fixed at :data:`FIT_BLAS_THREADS` while a fit runs.

    OpenBLAS splits a large matrix product between its threads and the split changes the
    rounding, so a 400-iteration fit would otherwise give other weights on a machine with
    another number of cores (the default is one thread a core).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=FIT_BLAS_THREADS, user_api="blas"):
        yield


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (``/proc/cpuinfo``), else the
    platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numeric_environment() -> dict[str, Any]:
    """Versions of Python, numpy, scipy and numba, the CPU, the BLAS libraries loaded
    (with the kernels each chose and its threads) and the SIMD targets numpy dispatches
    to on this CPU."""
    import numba
    import numpy as np
    import scipy
    import scipy.optimize  # noqa: F401  (loads scipy's BLAS, which the fit uses)
    from threadpoolctl import threadpool_info

    blas = [
        {
            "library": info.get("internal_api"),
            "version": info.get("version"),
            "architecture": info.get("architecture"),
            "threads": info.get("num_threads"),
            "file": Path(str(info.get("filepath", ""))).name,
        }
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    ]
    try:  # numpy's own record of it (numpy.show_runtime prints the same)
        umath = importlib.import_module("numpy._core._multiarray_umath")
        dispatch = list(getattr(umath, "__cpu_dispatch__", []))
        features = getattr(umath, "__cpu_features__", {})
        simd = [target for target in dispatch if features.get(target)]
    except ImportError:  # numpy < 2: the module had another name
        simd = []
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "blas": sorted(blas, key=lambda b: str(b["file"])),
        "numpy_simd": simd,
    }
