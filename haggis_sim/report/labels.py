"""Short labels for the report: strategy specs told apart by what differs, wrapped text.

A spec like ``heuristic:bet=0.55,big=0.6,...`` is too long for an axis or a table cell;
:func:`short_specs` keeps only what tells the specs of one report apart (the full specs
stay in the run list and the CSV files).
"""

from __future__ import annotations

import textwrap


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``name:k=v,k=v`` as the name and its parameters (texts as written in the spec)."""
    name, _, rest = spec.partition(":")
    params = dict(item.partition("=")[::2] for item in rest.split(",") if "=" in item)
    return name, params


def short_specs(specs: list[str]) -> dict[str, str]:
    """A short, distinct label per strategy spec: its name plus only the parameters that
    differ between the specs of that name (``heuristic:bomb=early`` rather than the full
    ``heuristic:bet=0.55,big=0.6,...``); the full spec where that would not be distinct."""
    parsed = {s: split_spec(s) for s in dict.fromkeys(specs)}
    out: dict[str, str] = {}
    for spec, (name, params) in parsed.items():
        same = [p for n, p in parsed.values() if n == name]
        keys = [k for k in params if len({p.get(k) for p in same}) > 1]
        out[spec] = name + (":" + ",".join(f"{k}={params[k]}" for k in keys) if keys else "")
    if len(set(out.values())) < len(out):
        return {s: s for s in out}
    return out


def wrap(text: str, width: int = 30) -> str:
    """``text`` broken into lines of at most ``width`` characters at spaces (never inside a
    word or at a hyphen, so a spec stays readable); the text itself if it has no words."""
    return (
        "\n".join(textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False))
        or text
    )
