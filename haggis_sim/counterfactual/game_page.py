"""The game viewer's HTML page: one self-contained file (inline CSS and JS, the data as JSON).

:func:`render_page` renders the template ``game.html.j2``: the frames of
:func:`.game_view.build_view` as a JSON script block (through the ``script_json`` filter,
which keeps any value from ending the block) and a small script that draws one frame at a
time. Nothing is fetched: no external script, style sheet, font or image, so the page
works offline and from any folder. The script writes page text only through
``textContent`` (strategy names come from plug-ins and are never read as HTML).
"""

from __future__ import annotations

from typing import Any

from ..pages import render
from .game_view import seat_labels


def render_page(view: dict[str, Any]) -> str:
    """The self-contained HTML page of one game (:func:`.game_view.build_view`'s data)."""
    return render(
        "game.html.j2",
        view=view,
        alternatives=view.get("alternatives"),
        labels=seat_labels(view["strategies"]),  # the header's: short, the full spec on hover
        final=" – ".join(str(x) for x in view["final"]),
    )
