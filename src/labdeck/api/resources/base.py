"""Shared helpers for resource modules: path quoting and GitLab parameter encoding."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from labdeck.api.core import HttpEngine
    from labdeck.api.dialect import Dialect, DialectDiscovery

ProjectRef = int | str
"""A project (or group) ID, or its full path such as ``group/project`` (quoted on the wire)."""


def ref(value: int | str) -> str:
    """A path segment: numeric IDs as-is, paths URL-encoded (``group%2Fproject``)."""
    return quote(str(value), safe="")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def encode(params: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """Encode parameters the GitLab way: None skipped, booleans as ``true``/``false``, arrays as
    repeated ``name[]``, hashes as ``name[key]``. An empty array is sent as ``name=`` (clear)."""
    out: dict[str, str | list[str]] = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, list | tuple | set | frozenset):
            if value:
                out[f"{key}[]"] = [_scalar(item) for item in value]
            else:
                out[key] = ""
        elif isinstance(value, Mapping):
            for inner, item in value.items():
                if item is not None:
                    out[f"{key}[{inner}]"] = _scalar(item)
        else:
            out[key] = _scalar(value)
    return out


class Resource:
    """Base of the endpoint families; holds the engine and (optionally) the dialect discovery."""

    def __init__(self, engine: HttpEngine, dialects: DialectDiscovery | None = None) -> None:
        self._engine = engine
        self._dialects = dialects

    async def _dialect(self) -> Dialect:
        """The server's dialect (discovered on first use; the spec's when unknown)."""
        from labdeck.api.dialect import SPEC

        if self._dialects is None:
            return SPEC
        if self._engine.read_only:
            # The write this is for will be refused before sending: no need to ask the server.
            return self._dialects.current
        return await self._dialects.discover()
