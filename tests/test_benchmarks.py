"""The benchmark scripts' results files: written whole, with how they were made, or not
at all (``benchmarks/_results.py``; the docs' Performance page includes these files)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _results() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_results", ROOT / "benchmarks" / "_results.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import does (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _script(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The benchmark script ``benchmarks/NAME.py`` as a module, its folder on the path
    (the scripts import their helpers, ``_results`` and ``_trees``, from there)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recorded_writes_what_was_printed_under_its_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = _results()
    monkeypatch.setattr(sys, "argv", [str(ROOT / "benchmarks" / "bench_x.py"), "--games", "9"])
    out = tmp_path / "results" / "bench_x.md"
    with results.recorded(out):
        print("| a | b |\n|---|---|\n| 1 | 2 |")
    assert "| 1 | 2 |" in capsys.readouterr().out  # the terminal still sees it
    text = out.read_text()
    assert text.startswith("<!-- written by bench_x.py")
    assert "with `python benchmarks/bench_x.py --games 9`" in text
    assert "numba " in text and "load average" in text and " at " in text
    # the target numba compiles for: one CPU model name covers machines with and without
    # AVX-512, and the compiled players' speed differs between them
    from llvmlite import binding as llvm

    assert f"compiled for {llvm.get_host_cpu_name()})" in text
    assert text.rstrip().endswith("| 1 | 2 |")
    assert sorted(p.name for p in out.parent.iterdir()) == ["bench_x.md"]  # no temporary


def test_a_failed_benchmark_leaves_the_old_results_file(tmp_path: Path) -> None:
    results = _results()
    out = tmp_path / "bench_x.md"
    out.write_text("old\n")
    with pytest.raises(RuntimeError), results.recorded(out):
        print("half a table")
        raise RuntimeError("interrupted")
    assert out.read_text() == "old\n"
    assert sys.stdout is not None and "Tee" not in type(sys.stdout).__name__


def test_the_profile_names_numbas_functions_by_module_and_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``benchmarks/profile_compiled.py`` sums perf's samples by the function numba's
    mangled symbol names (its specialisations, which differ only after the name, count
    as one); names that are not numba's stay as they are."""
    readable = _script("profile_compiled", monkeypatch).readable
    first = "_ZN10strategies7network10layer_sumsB4v299B38c8tJTIeFIjxB2IKSgI4CrvQ_3dE5ArrayIdLi1E"
    other = "_ZN10strategies7network10layer_sumsB4v17B40c8tJTIeFIjxB2IKSgI4CrvSCKg1MMfAwK4LIaQ"
    assert readable(first) == readable(other) == "strategies.network.layer_sums"
    local = "_ZN5numba4misc9quicksort19make_quicksort_impl12_3clocals_3e9partitionB4v330B42"
    assert readable(local) == "numba.misc.quicksort.make_quicksort_impl._3clocals_3e.partition"
    assert readable("NRT_incref") == "NRT_incref"
    assert readable("_ZN") == "_ZN"


@pytest.mark.parametrize("repeats", [3, 5, 7, 9, 11, 15])
def test_the_speed_ratios_range_holds_the_median_as_often_as_it_says(
    repeats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bench_speedup.median_rank``'s k and coverage, against a count over every way the
    repeats can fall on either side of the median (each side with probability 1/2): the
    k-th smallest and k-th largest miss the median exactly when fewer than k fall on one
    side; the coverage is at least 93% where that is possible, and k is the largest such."""
    from itertools import product

    module = _script("bench_speedup", monkeypatch)

    def coverage(k: int) -> float:
        held = sum(min(sum(s), repeats - sum(s)) >= k for s in product((0, 1), repeat=repeats))
        return float(held) / 2**repeats

    k, cover = module.median_rank(repeats)
    assert cover == pytest.approx(coverage(k))
    assert cover >= 0.93 or k == 1
    assert k + 1 > repeats // 2 or coverage(k + 1) < 0.93
    assert module.median_range([float(x) for x in range(repeats)]) == (k - 1, repeats - k)
