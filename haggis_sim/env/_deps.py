"""The optional packages of the environments (the ``[rl]`` extra), or one clear error."""

from __future__ import annotations

from ..errors import InputError


class MissingExtraError(InputError, ImportError):
    """PettingZoo or Gymnasium is not installed."""


try:
    import gymnasium
    import pettingzoo
except ImportError as exc:  # pragma: no cover - exercised by tests/env/test_missing_extra.py
    raise MissingExtraError(
        f"haggis_sim.env needs the [rl] extra ({exc.name} is not installed): "
        "from a clone of the repository, pip install -e '.[rl]'"
    ) from None

__all__ = ["MissingExtraError", "gymnasium", "pettingzoo"]
