"""Shared model base: tolerant parsing (unknown fields ignored) and aware timestamps."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict


def _aware(value: Any) -> Any:
    """Parse ISO text and attach UTC to naive values; empty strings become None."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            try:
                value = datetime.combine(date.fromisoformat(text[:10]), datetime.min.time())
            except ValueError:
                return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _day(value: Any) -> Any:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return value


Timestamp = Annotated[datetime | None, BeforeValidator(_aware)]
"""An aware datetime (naive server values are taken as UTC); unparsable text becomes None."""

Day = Annotated[date | None, BeforeValidator(_day)]
"""A calendar date (``YYYY-MM-DD``)."""


def _text(value: Any) -> Any:
    return "" if value is None else value


Status = Annotated[str, BeforeValidator(_text)]
"""A status string; null becomes ``""`` and unknown values are kept as they are."""


class Model(BaseModel):
    """Base of every response model: extra fields ignored, missing optional fields allowed."""

    # defer_build: a model's validator is built when it first parses something, not when its
    # module is imported; start-up then pays only for the few models the first screen uses.
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)


class Message(Model):
    """Bodies such as ``{"message": "202 Accepted"}``."""

    message: Any = None
