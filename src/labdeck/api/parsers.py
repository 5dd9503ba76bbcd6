"""One validator per parsed type, shared by everything that reads that type."""

from __future__ import annotations

import threading
import typing
from typing import Any

import pydantic

from labdeck.api.shared_parts import share_parts

_parsers: dict[Any, pydantic.TypeAdapter[Any]] = {}
_building = threading.Lock()
"""Held while a validator is built: pydantic builds a model's schema on first use and caches it on
the class, so two threads must not build at once (:func:`build_in_background`)."""


def parser_for(kind: Any) -> pydantic.TypeAdapter[Any]:
    """The validator of ``kind`` (a model, or a type such as ``list[Job]``), built the first time
    something parses it (5-30 ms, so never at import) and shared from then on. Safe from any thread;
    a caller that needs one being built waits for it."""
    parser = _parsers.get(kind)
    if parser is None:
        with _building:
            parser = _parsers.get(kind)
            if parser is None:
                parser = _parsers[kind] = _adapter(kind)
    return parser


def _adapter(kind: Any) -> pydantic.TypeAdapter[Any]:
    # No string cache: pydantic-core would otherwise keep strings of every page it read. A model
    # carries that setting in its own config (which a TypeAdapter of it may not override).
    if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
        return pydantic.TypeAdapter(kind)
    adapter = pydantic.TypeAdapter(kind, config=pydantic.ConfigDict(cache_strings=False))
    if _lists_jobs(kind):
        _share_parts_of(adapter)
    return adapter


def _share_parts_of(adapter: pydantic.TypeAdapter[Any]) -> None:
    """Make ``adapter`` (a jobs list's) share the jobs' equal parts (:mod:`labdeck.api.shared_parts`)
    after each parse: its own methods, wrapped on the instance (every caller holds the adapter)."""
    parse_json, parse_python = adapter.validate_json, adapter.validate_python

    def validate_json(*args: Any, **kwargs: Any) -> Any:
        return share_parts(parse_json(*args, **kwargs))

    def validate_python(*args: Any, **kwargs: Any) -> Any:
        return share_parts(parse_python(*args, **kwargs))

    setattr(adapter, "validate_json", validate_json)  # noqa: B010 - mypy refuses assigning to a method
    setattr(adapter, "validate_python", validate_python)  # noqa: B010


def _lists_jobs(kind: Any) -> bool:
    if typing.get_origin(kind) not in (list, tuple):
        return False
    items = typing.get_args(kind)
    return bool(items) and isinstance(items[0], type) and any(
        base.__name__ == "Job" and base.__module__ == "labdeck.api.models.ci" for base in items[0].__mro__)


def list_parser(model: Any) -> pydantic.TypeAdapter[Any]:
    """:func:`parser_for` ``list[model]``: a page of a listing."""
    return parser_for(list[model])


def build_in_background(kind: Any) -> None:
    """Start building ``kind``'s validator in a worker thread, unless it is built: a caller about to
    wait on the network (``labdeck triage``'s jobs pages: 40-80 ms for ``list[Job]``) has it ready
    when the first answer comes instead of building it then. Returns at once."""
    if kind not in _parsers:
        threading.Thread(target=parser_for, args=(kind,), name="labdeck-parser", daemon=True).start()
