"""Strategy specs as a person writes them: :func:`short_spec` and the label of an arm
whose strategies a population swaps (:func:`swap_label`)."""

from __future__ import annotations

import functools
import re

from strategies import StrategyError, make, parse_spec

from ..report.labels import PINS
from ..strategy_spec import UNVERSIONED, StrategySpec


@functools.lru_cache(maxsize=256)
def short_spec(spec: str) -> str:
    """A recorded spec (read as :data:`~haggis_sim.UNVERSIONED` when it names no version)
    as a person would write it today: its name and only the parameters
    without which it would be another strategy, leaving out the model files' SHA-256
    pins (``sha``, ``vsha``), which the spec fills in from the named file.

    A parameter goes when the spec without it is the same strategy: at its default, or
    inert and at the neutral value an inert parameter takes (mcts's ``mix=1.0`` with
    ``value=game``), so one strategy has one short spec whatever defaults it was
    recorded under.

    >>> short_spec(make("mcts").spec), short_spec(make("mcts:iters=400").spec)
    ('mcts', 'mcts:iters=400')
    >>> short_spec(make("mcts:model=mix2,value=net,mix=0.5").spec)
    'mcts:model=mix2'
    >>> short_spec(make("mcts:iters=64,value=game,model=gen2").spec)
    'mcts:iters=64,value=game,model=gen2'
    >>> short_spec("mcts:iters=64,value=net,prior=learned,model=mix2,mix=0.5,sha=2fbd21250aa9e580")
    'mcts:iters=64,model=mix2,qinit=0.0'
    """
    name, params = parse_spec(spec)
    try:
        whole = _unpinned(make(StrategySpec.parse(spec, UNVERSIONED)).spec)
    except StrategyError:  # a model file gone or changed since: what differs from defaults
        defaults = _unpinned(make(name).spec)
        return _join(
            name, {k: v for k, v in params.items() if k not in PINS and defaults.get(k) != v}
        )
    own = dict(whole)  # every parameter explicit, as the spec plays (a recorded one too)
    for key in list(own):
        rest = {k: v for k, v in own.items() if k != key}
        if _unpinned(make(_join(name, rest)).spec) == whole:
            own = rest
    return _join(name, own)


def _unpinned(spec: str) -> dict[str, str]:
    """A spec's parameters without the SHA-256 pins."""
    return {k: v for k, v in parse_spec(spec)[1].items() if k not in PINS}


def _join(name: str, params: dict[str, str]) -> str:
    return StrategySpec(name, tuple(params.items())).text


def swap_label(label: str, swap: dict[str, str]) -> str:
    """``label`` with every swapped strategy (a canonical spec) it names as a whole word
    replaced by its swap, written short (:func:`short_spec`).

    >>> swap_label("heuristic–greedy 3p", {"greedy": make("mcts").spec})
    'heuristic–mcts 3p'
    >>> swap_label("early-vs-greedy", {"greedy": make("mcts:iters=400").spec})
    'early-vs-mcts:iters=400'
    >>> swap_label("greedyish vs heuristic", {"greedy": "learned"})
    'greedyish vs heuristic'
    >>> swap_label("heuristic vs greedy", {"greedy": "heuristic", "heuristic": "greedy"})
    'greedy vs heuristic'
    """
    if not swap:
        return label
    words = {short_spec(old): short_spec(new) for old, new in swap.items()}
    names = "|".join(re.escape(old) for old in sorted(words, key=len, reverse=True))
    return re.sub(rf"(?<!\w)({names})(?!\w)", lambda m: words[m.group(1)], label)
