"""Where numba keeps one compiled function of this project inside the cache folder.

numba names a function's cache subfolder by a hash of its source folder's absolute path,
so two checkouts or installations of the same code (a clone beside another, CI's fresh
clone, a reinstall) never find each other's compiled code and each compiles it all. This
project's cache folder is already keyed by the code itself (:func:`haggis_sim._cache.
cache_dir`: a hash of every compiled source and numba's version) and numba checks each
file's content before it loads, so the subfolder is named by the source folder's path
inside the project instead: every copy of one version shares what any of them compiled.
numba imports this module by name (``numba.config.CACHE_LOCATOR_CLASSES``, set while the
project's functions are decorated: :func:`haggis_sim._cache.compiled_cache`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from numba.core.caching import UserProvidedCacheLocator

from ._cache import ROOT


class ProjectCacheLocator(UserProvidedCacheLocator):
    """numba's user-folder locator, for the project's own source files, with the subfolder
    named by the source folder's path inside the project (``haggis_sim_runner``)."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file: str) -> str:
        return "_".join(Path(py_file).resolve().parent.relative_to(ROOT).parts)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if not Path(py_file).resolve().is_relative_to(ROOT):
            return None  # not the project's: numba's own locators take it
        return super().from_function(py_func, py_file)  # type: ignore[no-untyped-call]
