"""Exceptions of the public API."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the state is left unchanged."""
