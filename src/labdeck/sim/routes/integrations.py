"""Project integrations (spec document 001, "Project integrations").

Served under both ``/projects/:id/services/<slug>`` (10.x) and ``/projects/:id/integrations/<slug>``
(14.4+). Checks run in GitLab's order: authentication, project visibility (404), maintainer or
owner (403), then the slug (400 ``service_slug does not have a valid value``).

Every record carries the dialect's canonical ``slug`` whichever alias addressed it (neutral in the
spec dialect, real in the gitlab dialect), and no GET ever returns a password-, token- or key-type
property (in the gitlab dialect not the chat ``webhook`` either), as real servers hide them; PUT
still stores them. In the gitlab dialect records use the real parameter names, the list has the
shape of current GitLab's ``IntegrationBasic`` (no ``properties``) and removed integrations answer
400 like unknown slugs.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.clock import iso
from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import ApiError, bad_request, forbidden, invalid
from labdeck.sim.core.state import Project
from labdeck.sim.integrations.catalog import (
    EVENT_FLAGS,
    GITLAB_EXTRA_FLAGS,
    IntegrationKind,
    IntegrationRecord,
    canonical_slug,
    is_hidden,
    lookup,
)

DEVELOPMENT_FLAG = "development_environment"


def _authorised_project(ctx: Ctx) -> Project:
    project = ctx.project()
    if not ctx.state.can_maintain(ctx.require_user(), project):
        raise forbidden()
    return project


def _lookup(ctx: Ctx, slug: str) -> IntegrationKind | None:
    return lookup(slug, development=bool(ctx.state.extra.get(DEVELOPMENT_FLAG, False)),
                  gitlab=is_gitlab(ctx.state))


def _kind(ctx: Ctx) -> tuple[str, IntegrationKind]:
    slug = ctx.path("slug")
    kind = _lookup(ctx, slug)
    if kind is None:
        raise invalid("service_slug")
    return slug, kind


def _record(ctx: Ctx, project: Project, kind: IntegrationKind) -> IntegrationRecord | None:
    record: IntegrationRecord | None = ctx.state.integrations.get((project.id, kind.slug))
    return record


def _deprecated_guard(kind: IntegrationKind, record: IntegrationRecord | None) -> None:
    """The deprecated cluster integration answers 400 to every call while it is inactive."""
    if kind.deprecated and (record is None or not record.active):
        raise bad_request("400 Bad Request")


def _properties(ctx: Ctx, kind: IntegrationKind, record: IntegrationRecord | None, slug: str) -> dict[str, Any]:
    """The visible properties, under the real parameter names in the gitlab dialect or when the
    spec dialect was addressed by the real slug."""
    gitlab = is_gitlab(ctx.state)
    real_names = {spec_name: real_name for real_name, spec_name in kind.param_aliases.items()}
    use_real_names = gitlab or (slug == kind.real_slug and slug != kind.slug)
    properties: dict[str, Any] = {}
    if record is not None:
        for name, value in record.properties.items():
            if is_hidden(name, gitlab=gitlab):
                continue
            properties[real_names.get(name, name) if use_real_names else name] = value
    return properties


def view(
    ctx: Ctx, kind: IntegrationKind, record: IntegrationRecord | None, slug: str, project_id: int,
    *, with_properties: bool = True,
) -> dict[str, Any]:
    """The integration settings record (without secrets)."""
    gitlab = is_gitlab(ctx.state)
    events = record.events if record is not None else dict.fromkeys(EVENT_FLAGS, True)
    result: dict[str, Any] = {
        "id": record.id if record is not None else None,
        "title": kind.title,
        "slug": canonical_slug(kind, gitlab=gitlab),
        "created_at": iso(record.created_at) if record is not None else None,
        "updated_at": iso(record.updated_at) if record is not None else None,
        "active": bool(record is not None and record.active),
        "project_id": project_id,
    }
    for flag in EVENT_FLAGS:
        result[flag] = events.get(flag, True)
    if gitlab:
        for flag, default in GITLAB_EXTRA_FLAGS.items():
            result[flag] = events.get(flag, default)
        result["inherited"] = False
    if with_properties:
        result["properties"] = _properties(ctx, kind, record, slug)
    return result


@endpoint(auth=True)
async def get_integration(ctx: Ctx) -> Any:
    """GET → the settings record (unsaved and inactive when never configured)."""
    project = _authorised_project(ctx)
    slug, kind = _kind(ctx)
    record = _record(ctx, project, kind)
    _deprecated_guard(kind, record)
    return view(ctx, kind, record, slug, project.id)


def _read_settings(ctx: Ctx, kind: IntegrationKind) -> tuple[dict[str, Any], dict[str, bool]]:
    """Validate the PUT parameters: required ones (real names accepted), typed optional ones."""
    params = ctx.params
    gitlab = is_gitlab(ctx.state)
    for real_name, spec_name in kind.param_aliases.items():
        if params.has(real_name) and not params.has(spec_name):
            params.values[spec_name] = params.values[real_name]
    required = [name for name in kind.required if not (gitlab and name in kind.optional_in_gitlab)]
    absent = [name for name in required if not params.has(name) or params.raw(name) is None]
    if absent:
        raise ApiError(400, {"error": ", ".join(f"{name} is missing" for name in absent)})
    properties: dict[str, Any] = {}
    for name in kind.required:
        if name not in required and not params.has(name):
            continue
        value = params.str(name)
        if value is None or value.strip() == "":
            raise bad_request("400 Bad Request")
        properties[name] = value
    for name, kind_of in kind.optional.items():
        if name in EVENT_FLAGS or not params.has(name):
            continue
        if kind_of == "int":
            properties[name] = params.int(name)
        elif kind_of == "bool":
            properties[name] = params.bool(name)
        else:
            properties[name] = params.str(name)
    events: dict[str, bool] = {}
    for flag in (*EVENT_FLAGS, *(GITLAB_EXTRA_FLAGS if gitlab else ())):
        enabled = params.bool(flag)
        if enabled is not None:
            events[flag] = enabled
    return properties, events


@endpoint(auth=True)
async def put_integration(ctx: Ctx) -> Any:
    """PUT → 200 with the saved, active record."""
    project = _authorised_project(ctx)
    slug, kind = _kind(ctx)
    record = _record(ctx, project, kind)
    _deprecated_guard(kind, record)
    properties, events = _read_settings(ctx, kind)
    state = ctx.state
    now = state.now()
    if record is None:
        record = IntegrationRecord(
            id=state.next_id("integration"), project_id=project.id, slug=kind.slug, created_at=now, updated_at=now
        )
        state.integrations[(project.id, kind.slug)] = record
    record.properties.update(properties)
    record.events.update(events)
    record.active = True
    record.updated_at = now
    return view(ctx, kind, record, slug, project.id), 200


@endpoint(auth=True)
async def delete_integration(ctx: Ctx) -> Any:
    """DELETE → 204; the settings are cleared and the integration becomes inactive."""
    project = _authorised_project(ctx)
    _, kind = _kind(ctx)
    record = _record(ctx, project, kind)
    _deprecated_guard(kind, record)
    if record is not None:
        record.properties = {}
        record.active = False
        record.updated_at = ctx.state.now()
    return None, 204


@endpoint(auth=True)
async def list_integrations(ctx: Ctx) -> Any:
    """The project's active integrations (a later GitLab addition, served by current servers);
    in the gitlab dialect without ``properties``, as current GitLab's IntegrationBasic."""
    project = _authorised_project(ctx)
    with_properties = not is_gitlab(ctx.state)
    result = []
    for (project_id, slug), record in sorted(ctx.state.integrations.items(), key=lambda item: item[0][1]):
        kind = _lookup(ctx, slug)
        if project_id != project.id or not record.active or kind is None:
            continue
        result.append(view(ctx, kind, record, slug, project.id, with_properties=with_properties))
    if not with_properties:
        result.sort(key=lambda item: str(item["slug"]))
    return result


def routes() -> list[BaseRoute]:
    """Both the ``services`` and ``integrations`` spellings."""
    collected: list[BaseRoute] = []
    for prefix in ("/projects/{id}/services", "/projects/{id}/integrations"):
        collected += [
            Route(prefix, list_integrations, methods=["GET"]),
            Route(prefix + "/{slug}", get_integration, methods=["GET"]),
            Route(prefix + "/{slug}", put_integration, methods=["PUT"]),
            Route(prefix + "/{slug}", delete_integration, methods=["DELETE"]),
        ]
    return collected
