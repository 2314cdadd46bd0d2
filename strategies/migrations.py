"""One table that turns a spec recorded at an older version into today's parameters.

A run records each strategy's spec with every parameter written out, and its manifest
names the spec version (:data:`haggis_sim.SPEC_VERSION`; a manifest without one recorded
version 1). A parameter a strategy gained later is absent from the older recordings
because it did not exist: there it takes the value that plays as the strategy played
then. :func:`migrate` applies the table step by step, so a recording of any version makes
the strategy it recorded; a spec typed today (a command line, an experiment file, the
Python API) is at today's version and is left as written.

>>> old = hs.StrategySpec.parse("mcts:iters=64,value=net,prior=learned", version=1)
>>> migrate(old).text
'mcts:iters=64,value=net,prior=learned,mix=1.0,qinit=0.0,horizon=0,sure=0.0'
>>> migrate(hs.StrategySpec.parse("mcts:iters=64")).text
'mcts:iters=64'
"""

from __future__ import annotations

from collections.abc import Mapping

import haggis_sim as hs

#: (strategy name, version) -> the parameters it gained after that version, each with the
#: value that replays a recording without it. Version 1 -> 2: mcts's prior (none:
#: UCB without a model), its leaf mix of value model and rollout (1.0: rollouts only), its
#: root's start from the value model (0.0: none) and its rollout horizon (0: to the end of
#: the round). Version 2 -> 3: mcts's skip of the decisions its prior is sure of (0.0:
#: every decision searched)
ADDED: Mapping[tuple[str, int], Mapping[str, str]] = {
    ("mcts", 1): {"prior": "none", "mix": "1.0", "qinit": "0.0", "horizon": "0"},
    ("mcts", 2): {"sure": "0.0"},
}


def migrate(spec: hs.StrategySpec) -> hs.StrategySpec:
    """``spec`` at today's version: each later parameter it leaves unsaid set as it played."""
    for version in range(spec.version, hs.SPEC_VERSION):
        added = ADDED.get((spec.name, version), {})
        spec = spec.with_params({k: v for k, v in added.items() if spec.get(k) is None})
    return hs.StrategySpec(spec.name, spec.params, hs.SPEC_VERSION)
