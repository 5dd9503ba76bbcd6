"""Packages whose names are read from their modules when first asked for (PEP 562): importing the
package does not import every module behind it (a one-shot command loads only what it uses)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name in ``homes`` (name → submodule) is imported
    from ``package.<submodule>`` on first use and kept in ``namespace`` (the package's globals),
    so that later reads find it there."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
