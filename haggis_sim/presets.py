"""The names of the rules presets (RULES.md section 10), in the order the docs list them.

Kept apart from :mod:`haggis_sim.rules` so that the command line can name them in its
help without importing the engine; :meth:`haggis_sim.rules.Rules.preset` builds each.
"""

from __future__ import annotations

PRESETS = ("classic", "revised", "revised-split", "deluxe", "aid", "haggish")
