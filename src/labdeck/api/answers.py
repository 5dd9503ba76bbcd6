"""Is this answer what the API returns? Checked before anything believes or caches it (issue 32).

A proxy or an SSO gateway in front of the server may answer ``200`` with its own HTML page (``Sign
in · GitLab``); a broken proxy may send another JSON shape (``{"data": […]}`` where a list is
expected) or cut the body short. Each of these is a failed read with a reason a user understands,
never data: it is not stored in the ETag cache (:mod:`labdeck.api.cache`), so the next read after
the fault asks the server afresh instead of being answered 304 from a poisoned copy.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from typing import Any, Literal

import httpx
import pydantic
import pydantic_core

from labdeck.api import errors
from labdeck.api.parsers import parser_for

Shape = Literal["list", "object"]

WEB_PAGE = "the server answered a web page, not the API: a sign-in or proxy page?"
CUT_OFF = "the answer was cut off"
NOT_JSON = "the server's answer was not JSON"
_SHAPE_WORDS: dict[Shape, str] = {"list": "a list", "object": "an object"}
_HTML_START = re.compile(rb"^\s*(<!doctype html|<html|<head|<body)", re.IGNORECASE)


def wrong_shape(expected: str) -> str:
    """``the server's answer was not what the API returns (expected a list)``."""
    return f"the server's answer was not what the API returns (expected {expected})"


def is_web_page(content_type: str | None, content: bytes | None = None) -> bool:
    """True for an HTML page: by its ``Content-Type``, or (when the body is at hand) by how it
    starts. The API answers JSON, text (traces) or files, never HTML."""
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        return True
    return content is not None and _HTML_START.match(content[:512]) is not None


def shape_of(model: Any) -> Shape | None:
    """The top-level JSON shape ``model`` parses: ``list`` for ``list[Job]``, ``object`` for a
    pydantic model, None when it is something else (a dict, a union …)."""
    if typing.get_origin(model) in (list, tuple) or model in (list, tuple):
        return "list"
    if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
        return "object"
    return None


def problem(content: bytes, headers: Mapping[str, str], expect: Shape | None) -> str | None:
    """Why a ``200`` body is not a believable answer (None: it is): a web page, cut-off or
    non-JSON text, or a JSON value of another shape than ``expect``."""
    if is_web_page(headers.get("content-type"), content):
        return WEB_PAGE
    if not content.strip():
        return None if expect is None else CUT_OFF
    try:
        # No string cache: the parser would keep up to 16,384 of the body's strings process-wide
        # (a big pipeline's job names and dates), each pinning an arena of the allocator.
        value = pydantic_core.from_json(content, cache_strings=False)
    except ValueError as exc:
        return CUT_OFF if str(exc).startswith("EOF while parsing") else NOT_JSON
    if expect == "list" and not isinstance(value, list):
        return wrong_shape(_SHAPE_WORDS["list"])
    if expect == "object" and not isinstance(value, dict):
        return wrong_shape(_SHAPE_WORDS["object"])
    return None


def diagnose(content: bytes, headers: Mapping[str, str], model: Any) -> str:
    """Why a body failed to parse as ``model``, said for a user (after pydantic refused it)."""
    shape = shape_of(model)
    found = problem(content, headers, shape)
    if found is not None:
        return found
    name = getattr(model, "__name__", None) or str(model)
    if shape == "list":
        inner = typing.get_args(model)
        name = f"a list of {getattr(inner[0], '__name__', inner[0])}" if inner else "a list"
    return wrong_shape(name)


def validate(content: bytes, headers: Mapping[str, str], model: Any, method: str, url: str) -> Any:
    """``content`` parsed as ``model``, or :class:`errors.WrongAnswer` with the reason."""
    try:
        return parser_for(model).validate_json(content or b"null")
    except pydantic.ValidationError:
        reason = diagnose(content, headers, model)
        raise errors.WrongAnswer(reason, method=method, url=url) from None


class Checked:
    """The check of one read's ``200`` (``send``'s ``believe``) and, once it passed, the body parsed.

    The answer must be JSON, whole, of the ``expect``-ed shape (a listing, asked with ``per_page``,
    is a list when the caller does not say) and, with ``model``, parse as it (:attr:`value`).
    ``allow_empty``: an empty body is believed as nothing (a listing's last page may be one)."""

    def __init__(self, model: Any = None, expect: Shape | None = None, *, allow_empty: bool = False) -> None:
        self.model = model
        self.expect = expect
        self._model_shape = None if model is None else shape_of(model)
        self.allow_empty = allow_empty
        self.value: Any = None

    def __call__(self, response: httpx.Response) -> None:
        content, url = response.content, str(response.request.url)
        if self.allow_empty and not content.strip():
            return
        expect = self.expect
        if expect is None and "per_page" in response.request.url.params:
            expect = "list"
        model = self.model
        # A model of the expected shape refuses every other body itself (and :func:`validate` says
        # why): parsing the JSON twice would double the CPU of every big page read.
        if self._model_shape is None or expect not in (None, self._model_shape) \
                or is_web_page(response.headers.get("content-type")):
            found = problem(content, response.headers, expect)
            if found is not None:
                raise errors.WrongAnswer(found, method=response.request.method, url=url)
        if model is not None:
            self.value = validate(content, response.headers, model, response.request.method, url)
