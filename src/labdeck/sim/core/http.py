"""Wire helpers for the simulator: parameter parsing, GitLab-shaped errors, pagination headers.

Real GitLab accepts parameters in the query string, as form fields, multipart or JSON, and
encodes arrays as ``name[]`` and hashes as ``name[key]``. Everything is folded into one
:class:`Params` so that route handlers never care how a client sent them.
"""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response


class ApiError(Exception):
    """An error answered to the client with GitLab's body shape."""

    def __init__(self, status: int, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None):
        super().__init__(status, body)
        self.status = status
        self.body = body
        self.headers = headers or {}

    def to_response(self) -> Response:
        """Render as a Starlette response (no body for 304 and 204)."""
        if self.status in (204, 304) or self.body is None:
            return Response(status_code=self.status, headers=self.headers)
        return JSONResponse(self.body, status_code=self.status, headers=self.headers)


# --- GitLab error helpers (strings copied from lib/api/helpers.rb, see docs/wire-facts.md §2) -------------


def not_found(resource: str | None = None) -> ApiError:
    """``404 <Resource> Not Found`` as raised by ``not_found!``."""
    text = f"404 {resource} Not Found" if resource else "404 Not Found"
    return ApiError(404, {"message": text})


def record_not_found() -> ApiError:
    """``404 Not found`` (lower-case) as raised by ``ActiveRecord::RecordNotFound``."""
    return ApiError(404, {"message": "404 Not found"})


def unauthorized() -> ApiError:
    return ApiError(401, {"message": "401 Unauthorized"})


def forbidden(reason: str | None = None) -> ApiError:
    text = f"403 Forbidden - {reason}" if reason else "403 Forbidden"
    return ApiError(403, {"message": text})


def insufficient_scope() -> ApiError:
    return ApiError(
        403,
        {
            "error": "insufficient_scope",
            "error_description": "The request requires higher privileges than provided by the access token.",
            "scope": "api",
        },
    )


def missing(*names: str) -> ApiError:
    """Grape's ``requires`` failure: ``{"error": "title is missing"}``."""
    return ApiError(400, {"error": ", ".join(names) + (" is missing" if len(names) == 1 else " are missing")})


def invalid(name: str) -> ApiError:
    """Grape's ``values:`` failure."""
    return ApiError(400, {"error": f"{name} does not have a valid value"})


def bad_request(message: Any) -> ApiError:
    return ApiError(400, {"message": message})


def conflict(message: Any = "409 Conflict") -> ApiError:
    return ApiError(409, {"message": message})


def not_modified() -> ApiError:
    return ApiError(304, None)


# --- parameters ------------------------------------------------------------------------------------

_TRUE = {"true", "1", "yes", "t", "on"}
_FALSE = {"false", "0", "no", "f", "off", ""}


@dataclass
class Params:
    """All request parameters, whatever encoding they arrived in.

    ``values`` maps a base name to a scalar (str, int, bool, UploadFile), a list (``name[]``)
    or a dict (``name[key]``).
    """

    values: dict[str, Any] = field(default_factory=dict)

    def add(self, key: str, value: Any) -> None:
        """Add one key as it appears on the wire (``a``, ``a[]``, ``a[b]``, ``a[b][]``)."""
        if key.endswith("[]"):
            base = key[:-2]
            if "[" in base and base.endswith("]"):
                outer, inner = base[:-1].split("[", 1)
                bucket = self.values.setdefault(outer, {})
                if isinstance(bucket, dict):
                    bucket.setdefault(inner, []).append(value)
                return
            existing = self.values.get(base)
            if isinstance(existing, list):
                existing.append(value)
            else:
                self.values[base] = [value]
            return
        if "[" in key and key.endswith("]"):
            outer, inner = key[:-1].split("[", 1)
            bucket = self.values.setdefault(outer, {})
            if isinstance(bucket, dict):
                bucket[inner] = value
            return
        self.values[key] = value

    def merge_json(self, data: Any) -> None:
        """Merge a JSON object body."""
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, list | dict) and not key.endswith("]"):
                    self.values[key] = value
                else:
                    self.add(str(key), value)

    def has(self, name: str) -> bool:
        return name in self.values

    def raw(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def str(self, name: builtins.str, *, required: builtins.bool = False, default: builtins.str | None = None) -> builtins.str | None:
        """A string parameter; ``required`` raises Grape's ``name is missing``."""
        if name not in self.values or self.values[name] is None:
            if required:
                raise missing(name)
            return default
        value = self.values[name]
        if isinstance(value, list):
            value = value[-1] if value else ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, UploadFile):
            return value.filename or ""
        return str(value)

    def req(self, name: builtins.str) -> builtins.str:
        """A required string parameter (non-empty)."""
        value = self.str(name, required=True)
        assert value is not None
        if value == "":
            raise ApiError(400, {"error": f"{name} is empty"})
        return value

    def int(self, name: builtins.str, *, required: builtins.bool = False, default: builtins.int | None = None) -> builtins.int | None:
        text = self.str(name, required=required)
        if text is None or text == "":
            return default
        try:
            return int(text)
        except ValueError:
            raise ApiError(400, {"error": f"{name} is invalid"}) from None

    def bool(self, name: builtins.str, default: builtins.bool | None = None) -> builtins.bool | None:
        if name not in self.values or self.values[name] is None:
            return default
        value = self.values[name]
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ApiError(400, {"error": f"{name} is invalid"})

    def list(self, name: builtins.str) -> builtins.list[Any]:
        """An array parameter given as ``name[]``, a JSON array, or a comma-separated scalar."""
        value = self.values.get(name)
        if value is None:
            return []
        if isinstance(value, list):
            return value
        if isinstance(value, str):
            return [item for item in value.split(",") if item != ""] if value else []
        return [value]

    def hash(self, name: builtins.str) -> dict[builtins.str, Any]:
        value = self.values.get(name)
        return value if isinstance(value, dict) else {}

    def file(self, name: builtins.str) -> UploadFile | None:
        value = self.values.get(name)
        return value if isinstance(value, UploadFile) else None

    def choice(self, name: builtins.str, allowed: Iterable[builtins.str], default: builtins.str | None = None) -> builtins.str | None:
        value = self.str(name, default=default)
        if value is not None and value not in set(allowed):
            raise invalid(name)
        return value


async def parse_params(request: Request) -> Params:
    """Fold query string and body (form, multipart or JSON) into one :class:`Params`."""
    params = Params()
    for key, value in request.query_params.multi_items():
        params.add(key, value)
    if request.method in ("POST", "PUT", "PATCH", "DELETE"):
        ctype = request.headers.get("content-type", "")
        if ctype.startswith("application/json"):
            body = await request.body()
            if body.strip():
                try:
                    params.merge_json(json.loads(body))
                except ValueError:
                    raise ApiError(400, {"error": "body is not valid JSON"}) from None
        elif ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form(max_part_size=512 * 1024 * 1024)
            for field_name, field_value in form.multi_items():
                params.add(field_name, field_value)
    return params


# --- responses -------------------------------------------------------------------------------------


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """Compact JSON, as Rails sends it."""
    body = json.dumps(data, separators=(",", ":"), default=str)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def paginate(
    request: Request,
    params: Params,
    items: Sequence[Any],
    *,
    default_per_page: int = 20,
    with_counts: bool = True,
    link_defaults: dict[str, str] | None = None,
) -> tuple[list[Any], dict[str, str]]:
    """Slice ``items`` for ``page``/``per_page`` and build GitLab's pagination headers.

    Returns the page's items and the headers (``X-Page``, ``X-Per-Page``, ``X-Next-Page`` and
    ``X-Prev-Page`` empty when absent, ``X-Total``, ``X-Total-Pages`` >= 1, ``Link``).
    Past the end the page is empty with a 200, as Kaminari does. ``link_defaults`` are the
    endpoint's defaulted parameters (``order_by``, ``sort`` …): Grape merges them into the params
    the links are built from, so they appear in every link unless the request set them.
    """
    page = params.int("page", default=1) or 1
    per_page = params.int("per_page", default=default_per_page) or default_per_page
    page = max(page, 1)
    per_page = max(1, min(per_page, 100))
    total = len(items)
    total_pages = max(math.ceil(total / per_page), 1)
    start = (page - 1) * per_page
    chunk = list(items[start : start + per_page])
    next_page = page + 1 if page < total_pages else None
    prev_page = page - 1 if page > 1 else None
    headers = {
        "X-Page": str(page),
        "X-Per-Page": str(per_page),
        "X-Next-Page": str(next_page) if next_page else "",
        "X-Prev-Page": str(prev_page) if prev_page else "",
    }
    base = str(request.url.replace(query=""))
    # The token never travels back in a Link, even when the client sent it as ``private_token``.
    query = [(k, v) for k, v in request.query_params.multi_items() if k not in ("page", "per_page", "private_token")]
    given = {k for k, _ in query}
    query += [(k, v) for k, v in (link_defaults or {}).items() if k not in given]

    def link(target: int) -> str:
        pairs = sorted([*query, ("page", str(target)), ("per_page", str(per_page))])
        return f"<{base}?{urlencode(pairs)}>"

    links = []
    if prev_page:
        links.append(f'{link(prev_page)}; rel="prev"')
    if next_page:
        links.append(f'{link(next_page)}; rel="next"')
    links.append(f'{link(1)}; rel="first"')
    if with_counts:
        links.append(f'{link(total_pages)}; rel="last"')
        headers["X-Total"] = str(total)
        headers["X-Total-Pages"] = str(total_pages)
    headers["Link"] = ", ".join(links)
    return chunk, headers
