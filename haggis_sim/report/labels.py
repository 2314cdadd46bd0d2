"""Short labels for the report: strategy specs told apart by what differs, wrapped text.

A spec like ``heuristic:bet=0.55,big=0.6,...`` is too long for an axis or a table cell;
:func:`short_specs` keeps only what tells the specs of one report apart (the full specs
stay in the page's legend table, the run list and the CSV files).
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterator

from ..strategy_spec import StrategySpec

MAX_LABEL = 36
"""Characters a short label may have; a longer one is replaced by a letter (A, B, ...)."""

PINS = {"sha": "model", "vsha": "vmodel"}
"""A model file's SHA-256 pin and the parameter naming the file: the pin is filled in
from the file, so it tells specs apart only between files of the same name."""


def _label(name: str, params: dict[str, str], keys: list[str]) -> str:
    return StrategySpec(name, tuple((k, params[k]) for k in keys)).text


def _usual(values: list[str | None]) -> str | None:
    """The value more of the specs hold than any other (None on a tie, and when they all
    hold it: then the key tells nothing apart)."""
    top = Counter(values).most_common(2)
    return top[0][0] if len(top) > 1 and top[0][1] > top[1][1] else None


def _by_what_differs(parsed: dict[str, tuple[str, dict[str, str]]]) -> dict[str, str]:
    """Each spec's name plus the parameters where it differs from the other specs of that
    name: from the value most of them hold, or every value of a key where values tie. A
    model pin (:data:`PINS`) is named only where specs of one model name differ in it (an
    empty pin: the model is not used)."""
    out = {}
    for spec, (name, params) in parsed.items():
        same = [p for n, p in parsed.values() if n == name]
        keys = []
        for k in params:
            if k in PINS:  # filled-in pins of the same model name only
                model = params.get(PINS[k])
                values = [p.get(k) for p in same if p.get(k) and p.get(PINS[k]) == model]
            else:
                values = [p.get(k) for p in same]
            if len(set(values)) > 1 and params[k] != _usual(values):
                keys.append(k)
        out[spec] = _label(name, params, keys)
    return out


def _letters() -> Iterator[str]:
    """A, B, ..., Z, then AA, AB, ...: as many labels as needed."""
    alphabet = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    yield from alphabet
    for first in alphabet:
        for second in alphabet:
            yield first + second


def short_specs(specs: list[str]) -> dict[str, str]:
    """A short, distinct label per strategy spec, in the order given.

    The label is the spec's name plus only the parameters that tell it apart from the
    other specs of that name: with ``bomb=late`` in more of them than any other value,
    ``heuristic:bomb=early`` names the one that bombs early and plain ``heuristic`` the
    usual one; a key whose most common values tie is shown in every spec. Where that
    would not be distinct (specs written differently but parsed alike), the full specs
    are the labels. Any label still
    longer than :data:`MAX_LABEL` characters becomes a letter (A, B, ... in the order
    given), so an axis never holds a wall of parameters; the page's legend table maps
    each label to its full spec.
    """
    records = {s: StrategySpec.parse(s) for s in dict.fromkeys(specs)}
    parsed = {s: (r.name, r.values()) for s, r in records.items()}
    out = _by_what_differs(parsed)
    if len(set(out.values())) < len(out):
        out = {s: s for s in parsed}
    taken = set(out.values())
    letters = (x for x in _letters() if x not in taken)
    return {s: label if len(label) <= MAX_LABEL else next(letters) for s, label in out.items()}


def wrap(text: str, width: int = 30) -> str:
    """``text`` broken into lines of at most ``width`` characters at spaces (never inside a
    word or at a hyphen, so a spec stays readable); the text itself if it has no words."""
    return (
        "\n".join(textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False))
        or text
    )
