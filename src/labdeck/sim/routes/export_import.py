"""Project export and import (10.6+, upload target 10.7).

Export: POST answers 202 and the status moves ``none`` → ``started`` → ``after_export_action`` →
``finished`` over simulated time; the download is a real ``.tar.gz`` holding ``VERSION`` and
``project.json``. Import: POST (multipart ``file`` + ``path``) answers 201 with ``scheduled``; the
import then goes ``started`` → ``finished``, or ``failed`` with ``import_error`` for a bad archive.
An exported archive imports back into a new project.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import ApiError, Params, bad_request, forbidden, invalid, not_found
from labdeck.sim.core.state import OWNER, Project, SimState
from labdeck.sim.projects import tasks
from labdeck.sim.projects.archive import build_archive, export_filename, read_archive
from labdeck.sim.projects.ops import can_create_in, new_project, touch, validation_errors
from labdeck.sim.projects.records import ExportRecord
from labdeck.sim.projects.views import ProjectPresenter, apply_write_params, projects_changed


def _admin_project(ctx: Ctx) -> Project:
    project = ctx.project()
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    return project


@endpoint(auth=True)
async def start_export(ctx: Ctx) -> Any:
    """POST /projects/:id/export: 202 ``{"message": "202 Accepted"}``."""
    project = _admin_project(ctx)
    upload = ctx.params.hash("upload")
    upload_url: str | None = None
    upload_method: str | None = None
    if ctx.params.has("upload"):
        upload_url = str(upload.get("url") or "")
        if not upload_url:
            raise ApiError(400, {"error": "upload[url] is missing"})
        upload_method = str(upload.get("http_method") or "PUT")
        if upload_method not in ("PUT", "POST"):
            raise invalid("upload[http_method]")
    state = ctx.state
    record = ExportRecord(project.id, "started", state.now(), ctx.params.str("description"),
                          upload_url, upload_method)
    state.exports[project.id] = record

    def after_action() -> None:
        if state.exports.get(project.id) is record:
            record.archive = build_archive(project, record.description)
            record.filename = export_filename(state, project, state.now())
            record.status = "after_export_action"

    def finish() -> None:
        if state.exports.get(project.id) is record and record.status == "after_export_action":
            record.uploaded = record.upload_url is not None
            record.status = "finished"

    tasks.after(state, tasks.EXPORT_AFTER_ACTION_AFTER, after_action)
    tasks.after(state, tasks.EXPORT_FINISH_AFTER, finish)
    return {"message": "202 Accepted"}, 202


@endpoint(auth=True)
async def export_status(ctx: Ctx) -> Any:
    """GET /projects/:id/export: identity + ``export_status`` (+ ``_links`` once finished)."""
    project = _admin_project(ctx)
    record = ctx.state.exports.get(project.id)
    body = ProjectPresenter(ctx.state, ctx.user, ctx.base_url).identity(project)
    body["export_status"] = record.status if record else "none"
    if record is not None and record.status == "finished":
        body["_links"] = {
            "api_url": f"{ctx.api_url}/projects/{project.id}/export/download",
            "web_url": f"{ctx.base_url}/{ctx.state.project_full_path(project)}/download_export",
        }
    return body


@endpoint(auth=True)
async def download_export(ctx: Ctx) -> Any:
    """GET /projects/:id/export/download: the archive; 404 ``Not found or has expired`` before."""
    project = _admin_project(ctx)
    record = ctx.state.exports.get(project.id)
    if record is None or record.status != "finished" or record.archive is None:
        raise ApiError(404, {"message": "404 Not found or has expired"})
    return Response(
        record.archive,
        media_type="application/gzip",
        headers={"Content-Disposition": f'attachment; filename="{record.filename}"'},
    )


def _import_target(ctx: Ctx) -> tuple[str, int]:
    user = ctx.require_user()
    ref = ctx.params.str("namespace")
    if not ref:
        return "user", user.id
    namespace = ctx.state.namespace_by_ref(ref)
    if namespace is None:
        raise not_found("Namespace")
    if not can_create_in(ctx.state, user, *namespace):
        raise forbidden()
    return namespace


@endpoint(auth=True)
async def start_import(ctx: Ctx) -> Any:
    """POST /projects/import: 201 with the new project's import status (``scheduled``)."""
    user = ctx.require_user()
    path = ctx.params.str("path")
    file = ctx.params.file("file")
    if not path and file is None:
        raise ApiError(400, {"error": "path is missing, file is missing"})
    if not path:
        raise ApiError(400, {"error": "path is missing"})
    if file is None:
        raise ApiError(400, {"error": "file is missing"})
    kind, namespace_id = _import_target(ctx)
    overrides = Params(values=dict(ctx.params.hash("override_params")))
    # ``name`` arrived as a top-level parameter in later releases; python-gitlab sends it there.
    name = overrides.str("name") or ctx.params.str("name") or path
    state = ctx.state
    errors = validation_errors(state, name, path, kind, namespace_id)
    if errors and ctx.params.bool("overwrite"):
        for other in state.projects.values():
            if not other.deleted and other.namespace_kind == kind and other.namespace_id == namespace_id and \
                    other.path.lower() == path.lower():
                if not state.is_owner(user, other):
                    raise forbidden()
                other.deleted = True
                projects_changed(state)
        errors = validation_errors(state, name, path, kind, namespace_id)
    if errors:
        field, messages = next(iter(errors.items()))
        raise bad_request(f"{field.capitalize()} {messages[0]}")
    probe = Project(0, name, path, kind, namespace_id, user.id, state.now(), state.now())
    apply_write_params(probe, overrides, creating=True)
    content = await file.read()
    project = new_project(state, name=name, path=path, kind=kind, namespace_id=namespace_id, creator=user)
    if kind == "user":
        project.members[namespace_id] = OWNER
    project.import_status = "scheduled"
    _schedule_import(state, project, content, overrides)
    body = ProjectPresenter(state, ctx.user, ctx.base_url).identity(project)
    body["import_status"] = project.import_status
    return body, 201


def _schedule_import(state: SimState, project: Project, content: bytes, overrides: Params) -> None:
    def start() -> None:
        if project.import_status == "scheduled":
            project.import_status = "started"

    def finish() -> None:
        if project.import_status != "started":
            return
        try:
            snapshot = read_archive(content)
        except ValueError as error:
            project.import_status = "failed"
            project.import_error = str(error)
            return
        for name in ("description", "visibility", "default_branch", "ci_config_path", "commit_sha"):
            if snapshot.get(name) is not None:
                setattr(project, name, snapshot[name])
        project.tag_list = [str(tag) for tag in snapshot.get("tag_list") or []]
        project.settings.update({k: v for k, v in (snapshot.get("settings") or {}).items() if isinstance(k, str)})
        project.statistics.update({k: int(v) for k, v in (snapshot.get("statistics") or {}).items()})
        apply_write_params(project, overrides, creating=True)
        touch(state, project)
        project.import_status = "finished"

    tasks.after(state, tasks.IMPORT_START_AFTER, start)
    tasks.after(state, tasks.IMPORT_FINISH_AFTER, finish)


@endpoint(auth=True)
async def import_status(ctx: Ctx) -> Any:
    """GET /projects/:id/import: identity + ``import_status`` (+ ``import_error`` when failed)."""
    project = ctx.project()
    body = ProjectPresenter(ctx.state, ctx.user, ctx.base_url).identity(project)
    body["import_status"] = project.import_status
    if project.import_error:
        body["import_error"] = project.import_error
    return body


def routes() -> list[BaseRoute]:
    return [
        Route("/projects/import", start_import, methods=["POST"]),
        Route("/projects/{id}/export", start_export, methods=["POST"]),
        Route("/projects/{id}/export", export_status, methods=["GET"]),
        Route("/projects/{id}/export/download", download_export, methods=["GET"]),
        Route("/projects/{id}/import", import_status, methods=["GET"]),
    ]
