"""The report's style: colour-blind-safe palette, series styles, verdict colours.

The one definition of the colours: shared by every figure of the report, by the
experiment pages' forest plots and by the pages' style sheets (:data:`COLOURS` is passed
to the templates), so a series or a verdict looks the same wherever it is drawn.
"""

from __future__ import annotations

from typing import Any

# Okabe & Ito's colour-blind-safe palette, by name (the pages' style sheets use the names)
COLOURS = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "yellow": "#F0E442",
    "grey": "#777",  # not a series colour: a verdict that is not separable
}
# the series colours in order (the figures' colour cycle)
PALETTE = [COLOURS[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "yellow")]
# past seven series the colours repeat, so each further block of seven changes marker and
# line style too: series i and j always differ in colour, marker or line
SERIES_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SERIES_LINES = ("-", "--", ":", "-.")


def series_style(i: int) -> dict[str, str]:
    """Colour, marker and line style of the ``i``-th series of a figure, distinct for
    the first 7 x 4 series (colour-blind-safe colours first, then marker and line).

    >>> series_style(0) == series_style(7)
    False
    """
    block = i // len(PALETTE)
    return {
        "color": PALETTE[i % len(PALETTE)],
        "marker": SERIES_MARKERS[block % len(SERIES_MARKERS)],
        "linestyle": SERIES_LINES[block % len(SERIES_LINES)],
    }


ABOVE, BELOW, UNCLEAR, REFERENCE = (
    COLOURS["blue"],
    COLOURS["vermillion"],
    COLOURS["grey"],
    "#555555",
)
# a cross-population verdict's colour on the experiment page
VERDICT_COLOURS = {"holds": ABOVE, "disagrees": BELOW, "not separable": UNCLEAR}
STRENGTH_ORDER = ["<45", "45-49", "50-54", "55-59", "60-64", "65+", "unknown"]


def verdict_color(low: float, high: float) -> str:
    """Blue for an interval above zero, vermillion below, grey when it holds zero (or NaN)."""
    if low == low and low > 0:
        return ABOVE
    if high == high and high < 0:
        return BELOW
    return UNCLEAR


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display), set to the report's style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from cycler import cycler

    plt.rcParams.update(
        {
            "axes.prop_cycle": cycler(color=PALETTE),
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return plt
