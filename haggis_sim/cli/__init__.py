"""The ``haggis-sim`` command line (typer): :data:`app` holds every command."""

from __future__ import annotations

from .app import app, main

__all__ = ["app", "main"]
