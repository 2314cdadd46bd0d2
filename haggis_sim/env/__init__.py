"""Haggis for reinforcement learning: a PettingZoo AEC environment and a Gymnasium wrapper.

Needs the ``[rl]`` extra (from a clone, ``pip install -e '.[rl]'``: PettingZoo and Gymnasium).

- :func:`env` / :func:`raw_env` / :class:`HaggisEnv` (:mod:`.aec`): every seat an agent;
- :class:`HaggisGymEnv` (:mod:`.gym`): one learning seat, the others played by built-in
  or plug-in strategies (``opponents=["mcts", "heuristic"]``);
- :class:`HaggisVectorEnv` (:mod:`.vector`): many such games against compiled
  opponents, stepped together in one compiled call (a Gymnasium vector env);
- the default action representation, a slot among the legal actions of the moment
  (:mod:`.legal`: :data:`MAX_LEGAL`, the abstract action ids and per-action features);
- the fixed flat action space (``actions="flat"``; :mod:`.actions`:
  :func:`describe_action`, :func:`action_code`, :func:`action_index`,
  :func:`n_actions`) and the observation layout (:mod:`.encode`: ``FIELDS``) are
  importable without the extra.

Names are imported on first use, so the action table and the layout do not need
PettingZoo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

_API = {
    "HaggisEnv": "haggis_sim.env.aec",
    "EnvStateError": "haggis_sim.env.aec",
    "env": "haggis_sim.env.aec",
    "raw_env": "haggis_sim.env.aec",
    "HaggisGymEnv": "haggis_sim.env.gym",
    "HaggisVectorEnv": "haggis_sim.env.vector",
    "MAX_LEGAL": "haggis_sim.env.legal",
    "MissingExtraError": "haggis_sim.env._deps",
    "action_code": "haggis_sim.env.actions",
    "action_index": "haggis_sim.env.actions",
    "describe_action": "haggis_sim.env.actions",
    "n_actions": "haggis_sim.env.actions",
    "ActionTableError": "haggis_sim.env.actions",
}

if TYPE_CHECKING:
    from ._deps import MissingExtraError
    from .actions import ActionTableError, action_code, action_index, describe_action, n_actions
    from .aec import EnvStateError, HaggisEnv, env, raw_env
    from .gym import HaggisGymEnv
    from .legal import MAX_LEGAL
    from .vector import HaggisVectorEnv


__getattr__, __dir__ = lazy_names(__name__, _API, globals())


#: the id ``gymnasium.make`` knows :class:`HaggisGymEnv` by (its keyword arguments)
ENV_ID = "HaggisSim/Haggis-v0"


def _register() -> None:
    """Make ``gymnasium.make`` know :class:`HaggisGymEnv` as :data:`ENV_ID`,
    where Gymnasium is installed; the env's own module is imported only when made."""
    try:
        import gymnasium
    except ImportError:
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="haggis_sim.env.gym:HaggisGymEnv")


_register()


__all__ = [
    "ENV_ID",
    "ActionTableError",
    "EnvStateError",
    "HaggisEnv",
    "HaggisGymEnv",
    "HaggisVectorEnv",
    "MAX_LEGAL",
    "MissingExtraError",
    "action_code",
    "action_index",
    "describe_action",
    "env",
    "n_actions",
    "raw_env",
]
