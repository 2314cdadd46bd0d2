"""Shared fixtures: numba compiles (or loads from cache) once per session."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# The folders below tests/ mirror the packages. The strategies' tests live in
# tests/strategy/, not tests/strategies/: tests/ is on sys.path (the shared helpers), and
# a folder named like the top-level ``strategies`` package would shadow it as a namespace
# package wherever the repository root is not on sys.path (bare ``pytest``, helper scripts).
