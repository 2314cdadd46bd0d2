"""Strategy plug-ins for haggis-sim.

This package will hold the built-in players (random, greedy, heuristic, ISMCTS) and the
plug-in interface of the strategies issue; it is empty until then. Strategies here use
only the public API of :mod:`haggis_sim`.
"""
