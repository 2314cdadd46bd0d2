"""The compiled core of haggis-sim: one implementation of the rules, in numba.

Everything in this package is ``@njit(cache=True)`` code working on plain integers and
``int64`` arrays: hands are bitmasks, moves are packed integers, a game is one state
array (see :mod:`haggis_sim.engine.layout`). The public Python API in :mod:`haggis_sim`
is a thin typed layer over these functions.
"""
