"""The ``haggis-sim experiment`` and ``haggis-sim compare`` commands (registered on the app)."""

from __future__ import annotations
