"""``python -m haggis_sim.cli``: the same commands as the ``haggis-sim`` script."""

from __future__ import annotations

from .app import main

main()
