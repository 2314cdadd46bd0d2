"""Whether a ladder still reaches today's players: a shipped report names its players by
full spec, so it replays as measured; when a strategy's default moves (a new model, a
new search budget), no rung of the old ladder plays the new default, and its answer no
longer speaks for the players a user gets by name."""

from __future__ import annotations

from strategies import make, parse_spec

from .spec import Experiment


def stale_defaults(exp: Experiment) -> list[str]:
    """One warning per strategy a ladder's populations bring in (by swap or in place of
    the arms' own) whose default, as the bare name plays today, no rung plays; none
    for an experiment without a ladder."""
    if not exp.ladder or not exp.populations:
        return []
    played: dict[str, set[str]] = {}
    for pop in exp.populations:
        for arm in exp.arms:
            for spec in pop.apply(arm).strategies:
                played.setdefault(parse_spec(spec)[0], set()).add(spec)
    brought = {
        parse_spec(spec)[0]
        for pop in exp.populations
        for spec in (pop.strategies if pop.strategies is not None else pop.swap.values())
    }
    warnings = []
    for name in sorted(brought):
        default = make(name).spec
        if default not in played.get(name, set()):
            top = exp.populations[-1].name
            warnings.append(
                f"warning: no rung of this ladder plays today's default {name} ({default}), "
                f"so its answer at the top ({top}) is not measured with the players "
                f"'{name}' names today; add a rung with that spec to bring it up to date"
            )
    return warnings
