"""Shared model base: tolerant parsing (unknown fields ignored) and aware timestamps."""

from __future__ import annotations

import typing
from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticUseDefault


def _aware(value: Any) -> Any:
    """Parse ISO text and attach UTC to naive values; empty strings become None."""
    if value.__class__ is str and value:
        # What servers send (``…Z``, ``…+00:00``), in one call: a page of jobs holds hundreds.
        # Python 3.11 reads ``Z`` as ``+00:00``; anything else takes the careful way below.
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
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


_COLLECTIONS = (list, tuple, set, frozenset, dict)


def _null_is_default(value: Any) -> Any:
    """A ``null`` where a collection is expected means "none": the field takes its empty default."""
    if value is None:
        raise PydanticUseDefault
    return value


_NULL_IS_DEFAULT = BeforeValidator(_null_is_default)


def _is_collection(annotation: Any) -> bool:
    """A plain collection type (``list[str]``, ``dict``), not ``… | None``."""
    return typing.get_origin(annotation) in _COLLECTIONS or annotation in _COLLECTIONS


class Model(BaseModel):
    """Base of every response model: extra fields ignored, missing optional fields allowed, and a
    ``null`` where a collection is expected (``"tag_list": null``, ``"artifacts": null``, which
    servers send for "none") read as the field's empty default instead of a validation error."""

    # defer_build: a model's validator is built when it first parses something, not when its
    # module is imported; start-up then pays only for the few models the first screen uses.
    # cache_strings off: a parsed page keeps no string of it in pydantic-core's cache (memory).
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True, cache_strings=False)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        # The null rule is a validator on the collection fields alone, added before the (deferred)
        # validator is built: a whole-record validator in Python ran once per record parsed (6,000
        # times in a warm triage round) to find, nearly always, no null collection.
        super().__pydantic_init_subclass__(**kwargs)
        for info in cls.model_fields.values():
            if _is_collection(info.annotation) and _NULL_IS_DEFAULT not in info.metadata:
                info.metadata.append(_NULL_IS_DEFAULT)


class Message(Model):
    """Bodies such as ``{"message": "202 Accepted"}``."""

    message: Any = None


class WithEventFlags(Model):
    """A record with ``*_events`` flags (hooks, integrations): servers keep adding event kinds
    (``releases_events``, ``emoji_events`` …), so flags this model does not name are kept in
    ``other_events`` and :attr:`events` lists them all."""

    other_events: dict[str, bool] = Field(default_factory=dict, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _collect_unknown_events(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        unknown = {key: value for key, value in data.items()
                   if key.endswith("_events") and isinstance(value, bool) and key not in cls.model_fields}
        return {**data, "other_events": unknown} if unknown else data

    @property
    def events(self) -> dict[str, bool]:
        """Every ``*_events`` flag the server sent (known or not), name → enabled."""
        flags = {name: value for name, value in self.__dict__.items()
                 if name.endswith("_events") and isinstance(value, bool)}
        flags.update(self.other_events)
        return flags
