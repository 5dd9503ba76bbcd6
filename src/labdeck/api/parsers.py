"""One validator per parsed type, shared by everything that reads that type."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pydantic


@lru_cache(maxsize=256)
def parser_for(kind: Any) -> pydantic.TypeAdapter[Any]:
    """The validator of ``kind`` (a model, or a type such as ``list[Job]``), built the first time
    something parses it (5-30 ms, so never at import) and shared from then on."""
    return pydantic.TypeAdapter(kind)


def list_parser(model: Any) -> pydantic.TypeAdapter[Any]:
    """:func:`parser_for` ``list[model]``: a page of a listing."""
    return parser_for(list[model])
