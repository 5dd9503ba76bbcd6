"""Project integrations ("services"; spec 001 §Project integrations), in the server's own dialect.

Callers name an integration by the spec's neutral slug (``chat-d``) or by GitLab's (``slack``):
the request carries the slug the server knows (:mod:`integration_kinds`, chosen from the
discovered :class:`~labdeck.api.dialect.Dialect`), under ``/integrations`` (14.4+) or ``/services``.
Parameters the spec names differently are renamed both ways, so a form built from
:data:`INTEGRATIONS` works against either server. A server that refuses a slug as unknown is
asked once with the other spelling, and the dialect remembers which one worked.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from labdeck.api import errors
from labdeck.api.dialect import Dialect
from labdeck.api.models import Integration
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref
from labdeck.api.resources.integration_kinds import (
    INTEGRATIONS,
    IntegrationSpec,
    ParamType,
    SlugStyle,
    integration_title,
    missing_required,
    neutral_slug,
    slug_for_title,
    spec_for,
    style_of_slugs,
    to_real_params,
    to_spec_params,
    wire_slug,
)

__all__ = ["INTEGRATIONS", "IntegrationInfo", "IntegrationSpec", "IntegrationsResource", "ParamType",
           "integration_title", "missing_required"]

T = TypeVar("T")
_OTHER: dict[SlugStyle, SlugStyle] = {"spec": "gitlab", "gitlab": "spec"}


@dataclass(frozen=True)
class IntegrationInfo:
    """One row of :meth:`IntegrationsResource.catalog`: what the console can offer for a server."""

    slug: str
    """The spec's neutral slug (the key of :data:`INTEGRATIONS`)."""
    server_slug: str
    """The slug this server knows (what goes on the wire)."""
    title: str
    """The human name ("Slack notifications")."""
    kind: str
    spec: IntegrationSpec


def _slug_refused(exc: errors.HttpError) -> bool:
    """True when the server refused the *slug* (not the project or the settings).

    10.x answers an unknown slug with Grape's 400 ``{"error": "service_slug does not have a valid
    value"}``; 14.4+ routes each slug separately, so an unknown one is an unrouted 404
    ``{"error": "404 Not Found"}`` (a missing project says ``{"message": "404 Project Not Found"}``).
    """
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error")
    if not isinstance(error, str):
        return False
    if exc.status == 400:
        return "slug" in error
    return exc.status == 404


class IntegrationsResource(Resource):
    """``/projects/:id/integrations/:slug`` (14.4+) or ``/projects/:id/services/:slug``."""

    def _learn(self, **changes: Any) -> None:
        if self._dialects is not None:
            self._dialects.learn(**changes)

    @staticmethod
    def _path(pid: ProjectRef, dialect: Dialect, slug: str | None = None) -> str:
        base = f"projects/{ref(pid)}/{dialect.integrations_path}"
        return base if slug is None else f"{base}/{ref(slug)}"

    async def _with_slug(self, pid: ProjectRef, slug: str,
                         send: Callable[[str, SlugStyle], Awaitable[T]]) -> tuple[T, str, SlugStyle]:
        """Call ``send(path, style)`` with the slug the server should know; on a refused slug, once
        more with the other spelling (a refused slug changed nothing, so asking again is safe)."""
        dialect = await self._dialect()
        style: SlugStyle = dialect.flavour
        first = wire_slug(slug, style)
        try:
            return await send(self._path(pid, dialect, first), style), first, style
        except errors.HttpError as exc:
            other = _OTHER[style]
            second = wire_slug(slug, other)
            if second == first or not _slug_refused(exc):
                raise
            try:
                result = await send(self._path(pid, dialect, second), other)
            except errors.HttpError:
                raise exc from None
            self._learn(flavour=other)
            return result, second, other

    @staticmethod
    def _complete(item: Integration, asked: str | None, sent: str | None) -> Integration:
        """Fill ``slug``/``title`` the server left out, and give properties the spec's names when
        the caller used a neutral slug."""
        server_slug = item.slug or sent or slug_for_title(item.title)
        update: dict[str, Any] = {"slug": server_slug}
        if not item.title and server_slug:
            update["title"] = integration_title(server_slug)
        if item.properties and asked is not None and asked in INTEGRATIONS:
            update["properties"] = to_spec_params(asked, item.properties)
        return item.model_copy(update=update)

    async def get(self, pid: ProjectRef, slug: IntegrationSlugLike) -> Integration:
        """Settings of one integration (an unconfigured one has ``active`` False).
        ``GET /projects/:id/integrations/:slug`` (``/services/`` before 14.4)."""

        async def send(path: str, _style: SlugStyle) -> Integration:
            value: Integration = await self._engine.get(path, Integration)
            return value

        item, sent, _ = await self._with_slug(pid, slug, send)
        return self._complete(item, slug, sent)

    async def update(self, pid: ProjectRef, slug: IntegrationSlugLike,
                     settings: Mapping[str, str | bool | int | None]) -> Integration | None:
        """Create or edit an integration (parameters: :data:`INTEGRATIONS`, spec names accepted
        for either server). ``PUT /projects/:id/integrations/:slug``."""

        async def send(path: str, style: SlugStyle) -> Integration | None:
            data = to_real_params(slug, settings) if style == "gitlab" else dict(settings)
            value: Integration | None = await self._engine.call("PUT", path, Integration, data=encode(data))
            return value

        item, sent, _ = await self._with_slug(pid, slug, send)
        return None if item is None else self._complete(item, slug, sent)

    async def delete(self, pid: ProjectRef, slug: IntegrationSlugLike) -> None:
        """Remove (14.4+: disable) the integration's settings. ``DELETE /projects/:id/integrations/:slug``."""

        async def send(path: str, _style: SlugStyle) -> None:
            await self._engine.call("DELETE", path)

        await self._with_slug(pid, slug, send)

    async def list(self, pid: ProjectRef, *, concurrency: int = 8) -> builtins.list[Integration]:
        """The project's active integrations, as the server lists them (``slug`` and ``title``
        always set). ``GET /projects/:id/integrations`` (12.7+); a server without that endpoint
        (10.x) is asked for each integration of :data:`INTEGRATIONS` instead."""
        dialect = await self._dialect()
        if dialect.lists_integrations is not False:
            try:
                items: builtins.list[Integration] = await self._engine.get(
                    self._path(pid, dialect), builtins.list[Integration])
            except errors.HttpError as exc:
                if not (exc.status == 405 or (exc.status == 404 and _slug_refused(exc))):
                    raise
                self._learn(lists_integrations=False)
            else:
                self._learn(lists_integrations=True)
                completed = [self._complete(item, None, None) for item in items]
                style = style_of_slugs([item.slug for item in completed if item.slug])
                if style is not None and style != dialect.flavour:
                    self._learn(flavour=style)
                return completed
        return await self._probe_each(pid, concurrency)

    async def _probe_each(self, pid: ProjectRef, concurrency: int) -> builtins.list[Integration]:
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(slug: str) -> Integration | None:
            async with gate:
                try:
                    return await self.get(pid, slug)
                except (errors.ValidationError, errors.NotFound):
                    return None  # not offered by this server (removed, or deprecated and inactive)

        found = await asyncio.gather(*(one(slug) for slug in INTEGRATIONS))
        return [item for item in found if item is not None and item.active]

    async def catalog(self) -> builtins.list[IntegrationInfo]:
        """Every integration of :data:`INTEGRATIONS` with the slug and title for this server."""
        dialect = await self._dialect()
        return [IntegrationInfo(slug, wire_slug(slug, dialect.flavour), spec.title, spec.kind, spec)
                for slug, spec in INTEGRATIONS.items()]

    @staticmethod
    def title(slug: str) -> str:
        """The human name for a neutral or real slug ("Slack notifications" for ``chat-d`` or ``slack``)."""
        return integration_title(slug)

    @staticmethod
    def neutral_slug(slug: str) -> str:
        """The spec's slug for a server's slug (``slack`` → ``chat-d``; unknown ones unchanged)."""
        return neutral_slug(slug)

    @staticmethod
    def spec(slug: str) -> IntegrationSpec | None:
        """The parameter table entry for a neutral or real slug."""
        return spec_for(slug)


IntegrationSlugLike = str
"""A neutral slug (:data:`labdeck.api.models.params.IntegrationSlug`) or a server's own slug."""
