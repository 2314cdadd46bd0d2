"""Public names imported on first use: a package's ``__getattr__`` and ``__dir__``
(PEP 562), so that importing the package imports none of the modules behind its names."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, api: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose public names ``api`` maps to
    the module defining each (a name mapped to ``package.name`` is that submodule itself);
    a name, once imported, is kept in ``namespace`` (the package's globals)."""

    def getattr_(name: str) -> Any:
        module = api.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module)
        value = loaded if module == f"{package}.{name}" else getattr(loaded, name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted([*namespace, *api])

    return getattr_, dir_
