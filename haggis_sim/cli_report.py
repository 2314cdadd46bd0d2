"""The ``haggis-sim report`` command (registered on :data:`haggis_sim.cli.app`)."""

from __future__ import annotations
