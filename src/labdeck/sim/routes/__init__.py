"""Route tables of the simulator, one module per endpoint family.

Each module in this package exposes ``routes() -> list[starlette.routing.BaseRoute]`` with paths
relative to ``/api/v4``; they are discovered automatically, in alphabetical order. Inside a module,
list more specific paths first.
"""

from __future__ import annotations

import importlib
import pkgutil

from starlette.routing import BaseRoute


def all_routes() -> list[BaseRoute]:
    """Collect the routes of every family module."""
    collected: list[BaseRoute] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda item: item.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "routes"):
            collected.extend(module.routes())
    return collected
