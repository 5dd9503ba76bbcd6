"""The projects resource: list, single, create, edit, fork, star, archive, delete, users, uploads, share.

Shapes and statuses follow the 10.x ``lib/api/projects.rb`` (docs/wire-facts.md §2, §6): POST answers 201,
star/unstar answer 304 (empty body) when nothing changes, DELETE answers 202 ``202 Accepted``,
validation failures are 400 with a ``{"message": {field: [...]}}`` hash.
"""

from __future__ import annotations

import hashlib
import os
from datetime import date
from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import (
    ApiError,
    bad_request,
    conflict,
    forbidden,
    invalid,
    not_found,
    not_modified,
    paginate,
)
from labdeck.sim.core.state import GUEST, OWNER, Project, User
from labdeck.sim.projects.filters import visible_projects
from labdeck.sim.projects.listing import project_list
from labdeck.sim.projects.ops import (
    can_create_in,
    fork_project,
    new_project,
    path_from_name,
    touch,
    validation_errors,
)
from labdeck.sim.projects.views import (
    BOOL_SETTINGS,
    ProjectPresenter,
    apply_write_params,
    projects_changed,
)

GROUP_ACCESS_LEVELS = (10, 20, 30, 40)
_EDIT_PARAMS = ("name", "path", "default_branch", "description", "visibility", "merge_method", "tag_list",
                "import_url", "avatar", "ci_config_path", *BOOL_SETTINGS)


def _presenter(ctx: Ctx) -> ProjectPresenter:
    return ProjectPresenter(ctx.state, ctx.user, ctx.base_url)


def _entity(ctx: Ctx, project: Project, **options: Any) -> dict[str, Any]:
    """Entities::Project as returned by the write endpoints."""
    return _presenter(ctx).full(project, with_access=False, **options)


# --- reading -------------------------------------------------------------------------------------------


@endpoint()
async def list_projects(ctx: Ctx) -> Any:
    """GET /projects: visible projects; anonymous callers get public ones only, in the basic shape."""
    return project_list(ctx, visible_projects(ctx.state, ctx.user))


@endpoint()
async def get_project(ctx: Ctx) -> Any:
    """GET /projects/:id (ProjectWithAccess when authenticated)."""
    project = ctx.project()
    return _presenter(ctx).full(
        project,
        statistics=bool(ctx.params.bool("statistics")),
        custom_attributes=bool(ctx.params.bool("with_custom_attributes")),
    )


@endpoint()
async def project_users(ctx: Ctx) -> Any:
    """GET /projects/:id/users: members (direct, namespace and shared groups), ``search`` on name."""
    project = ctx.project()
    state = ctx.state
    search = (ctx.params.str("search") or "").lower()
    users = [
        user for user in sorted(state.users.values(), key=lambda u: u.id)
        if state.access_level(user, project) >= GUEST
        and (not search or search in user.username.lower() or search in user.name.lower())
    ]
    page, headers = paginate(ctx.request, ctx.params, users)
    return [user.brief(ctx.base_url) for user in page], 200, headers


@endpoint()
async def list_forks(ctx: Ctx) -> Any:
    """GET /projects/:id/forks: visible forks of the project."""
    project = ctx.project()
    forks = [p for p in visible_projects(ctx.state, ctx.user) if p.forked_from_id == project.id]
    return project_list(ctx, forks)


# --- creating and editing -------------------------------------------------------------------------------


def _name_and_path(ctx: Ctx, *, name_required: bool = False) -> tuple[str, str]:
    name = ctx.params.str("name")
    path = ctx.params.str("path")
    if name_required and not name:
        raise ApiError(400, {"error": "name is missing"})
    if not name and not path:
        raise ApiError(400, {"error": "name, path are missing, at least one parameter must be provided"})
    if not path:
        path = path_from_name(name or "")
    if not name:
        name = path
    return name, path


def _target_namespace(ctx: Ctx, user: User, default_user: User) -> tuple[str, int]:
    ref = ctx.params.str("namespace_id")
    if not ref:
        return "user", default_user.id
    namespace = ctx.state.namespace_by_ref(ref)
    if namespace is None or not can_create_in(ctx.state, user, *namespace):
        raise bad_request({"namespace": ["is not valid"]})
    return namespace


def _create(ctx: Ctx, user: User, owner: User) -> Any:
    name, path = _name_and_path(ctx)
    kind, namespace_id = _target_namespace(ctx, user, owner)
    errors = validation_errors(ctx.state, name, path, kind, namespace_id)
    if errors:
        raise bad_request(errors)
    # Validate every write parameter before anything is stored.
    probe = Project(0, name, path, kind, namespace_id, user.id, ctx.state.now(), ctx.state.now())
    gitlab = is_gitlab(ctx.state)
    apply_write_params(probe, ctx.params, creating=True, gitlab=gitlab)
    project = new_project(
        ctx.state, name=name, path=path, kind=kind, namespace_id=namespace_id, creator=user,
        default_branch=ctx.params.str("default_branch") or "master",
    )
    apply_write_params(project, ctx.params, creating=True, gitlab=gitlab)
    if kind == "user":
        project.members[namespace_id] = OWNER
    return _entity(ctx, project), 201


@endpoint(auth=True)
async def create_project(ctx: Ctx) -> Any:
    """POST /projects: ``name`` and/or ``path``; ``namespace_id`` defaults to the caller's."""
    user = ctx.require_user()
    return _create(ctx, user, user)


@endpoint(auth=True)
async def create_project_for_user(ctx: Ctx) -> Any:
    """POST /projects/user/:user_id (admin only): a project owned by that user."""
    admin = ctx.require_admin()
    owner = ctx.state.user_by_ref(ctx.path("user_id"))
    if owner is None:
        raise not_found("User")
    if not ctx.params.str("name"):
        raise ApiError(400, {"error": "name is missing"})
    return _create(ctx, admin, owner)


@endpoint(auth=True)
async def edit_project(ctx: Ctx) -> Any:
    """PUT /projects/:id: maintainers; at least one parameter; 400 hash on a taken name or path."""
    project = ctx.project()
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    gitlab = is_gitlab(ctx.state)
    edit_params = (*_EDIT_PARAMS, "topics") if gitlab else _EDIT_PARAMS
    if not any(ctx.params.has(name) for name in edit_params if name != "printing_merge_request_link_enabled"):
        names = ", ".join(name for name in edit_params if name != "printing_merge_request_link_enabled")
        raise ApiError(400, {"error": f"{names} are missing, at least one parameter must be provided"})
    name = ctx.params.str("name") or project.name
    path = ctx.params.str("path") or project.path
    errors = validation_errors(ctx.state, name, path, project.namespace_kind, project.namespace_id, ignore=project)
    if errors:
        raise bad_request(errors)
    probe = Project(0, name, path, project.namespace_kind, project.namespace_id, 0, project.created_at,
                    project.created_at, settings=dict(project.settings))
    apply_write_params(probe, ctx.params, creating=False, gitlab=gitlab)
    if (project.name, project.path) != (name, path):
        project.name, project.path = name, path
        projects_changed(ctx.state)
    if ctx.params.str("default_branch"):
        project.default_branch = ctx.params.str("default_branch") or project.default_branch
    apply_write_params(project, ctx.params, creating=False, gitlab=gitlab)
    touch(ctx.state, project)
    return _entity(ctx, project), 200


@endpoint(auth=True)
async def fork(ctx: Ctx) -> Any:
    """POST /projects/:id/fork: asynchronous; the new project starts with import_status ``scheduled``."""
    source = ctx.project()
    user = ctx.require_user()
    ref = ctx.params.str("namespace")
    if ref:
        namespace = ctx.state.namespace_by_ref(ref)
        if namespace is None or not can_create_in(ctx.state, user, *namespace):
            raise not_found("Target Namespace")
    else:
        namespace = ("user", user.id)
    created = fork_project(ctx.state, source, user, *namespace)
    return _entity(ctx, created), 201


# --- actions ---------------------------------------------------------------------------------------------


@endpoint(auth=True)
async def star(ctx: Ctx) -> Any:
    """POST /projects/:id/star: 201 with the project, 304 when already starred."""
    project = ctx.project()
    user = ctx.require_user()
    if user.id in project.starred_by:
        raise not_modified()
    project.starred_by.add(user.id)
    return _entity(ctx, project), 201


@endpoint(auth=True)
async def unstar(ctx: Ctx) -> Any:
    """POST /projects/:id/unstar: 201 with the project, 304 when not starred."""
    project = ctx.project()
    user = ctx.require_user()
    if user.id not in project.starred_by:
        raise not_modified()
    project.starred_by.discard(user.id)
    return _entity(ctx, project), 201


def _set_archived(ctx: Ctx, archived: bool) -> Any:
    project = ctx.project()
    if not ctx.state.is_owner(ctx.user, project):
        raise forbidden()
    if project.archived != archived:
        project.archived = archived
        touch(ctx.state, project)
    return _entity(ctx, project), 201


@endpoint(auth=True)
async def archive(ctx: Ctx) -> Any:
    """POST /projects/:id/archive: admin or owner; idempotent."""
    return _set_archived(ctx, True)


@endpoint(auth=True)
async def unarchive(ctx: Ctx) -> Any:
    """POST /projects/:id/unarchive: admin or owner; idempotent."""
    return _set_archived(ctx, False)


@endpoint(auth=True)
async def delete_project(ctx: Ctx) -> Any:
    """DELETE /projects/:id: admin or owner; 202 ``{"message": "202 Accepted"}``."""
    project = ctx.project()
    if not ctx.state.is_owner(ctx.user, project):
        raise forbidden()
    project.deleted = True
    projects_changed(ctx.state)
    for key in [key for key in ctx.state.protected_branches if key[0] == project.id]:
        del ctx.state.protected_branches[key]
    for hook_id in [hid for hid, hook in ctx.state.hooks.items() if hook.project_id == project.id]:
        del ctx.state.hooks[hook_id]
    return {"message": "202 Accepted"}, 202


_IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tiff", ".ico", ".svg", ".mp4", ".webm", ".mov")


@endpoint(auth=True)
async def upload(ctx: Ctx) -> Any:
    """POST /projects/:id/uploads (multipart ``file``): 201 ``{alt, url, markdown}``."""
    project = ctx.project()
    file = ctx.params.file("file")
    if file is None:
        raise ApiError(400, {"error": "file is missing"})
    content = await file.read()
    filename = os.path.basename(file.filename or "file") or "file"
    upload_id = ctx.state.next_id("upload")
    secret = hashlib.md5(f"{project.id}/{upload_id}/{filename}".encode(), usedforsecurity=False).hexdigest()
    url = f"/uploads/{secret}/{filename}"
    media = filename.lower().endswith(_IMAGE_EXTENSIONS)
    alt = os.path.splitext(filename)[0] if media else filename
    ctx.state.uploads[upload_id] = {"project_id": project.id, "url": url, "size": len(content)}
    return {"alt": alt, "url": url, "markdown": f"{'!' if media else ''}[{alt}]({url})"}, 201


@endpoint(auth=True)
async def share(ctx: Ctx) -> Any:
    """POST /projects/:id/share: ``group_id``, ``group_access`` (10–40), ``expires_at``; 201 link."""
    project = ctx.project()
    group_id = ctx.params.int("group_id", required=True)
    access = ctx.params.int("group_access", required=True)
    if access not in GROUP_ACCESS_LEVELS:
        raise invalid("group_access")
    expires = ctx.params.str("expires_at")
    if expires:
        try:
            date.fromisoformat(expires)
        except ValueError:
            raise ApiError(400, {"error": "expires_at is invalid"}) from None
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    group = ctx.state.groups.get(group_id or 0)
    if group is None:
        raise not_found("Group")
    if group_id in project.shared_with_groups:
        raise conflict("Group already shared with this group")
    if project.namespace_kind == "group":
        ancestor = ctx.state.groups.get(project.namespace_id)
        while ancestor is not None:
            if ancestor.id == group.id:
                raise conflict("Project cannot be shared with the group it is in or one of its ancestors.")
            ancestor = ctx.state.groups.get(ancestor.parent_id) if ancestor.parent_id else None
    link = {"id": ctx.state.next_id("group_link"), "group_access": access, "expires_at": expires or None}
    project.shared_with_groups[group.id] = link
    return {"id": link["id"], "project_id": project.id, "group_id": group.id, "group_access": access,
            "expires_at": link["expires_at"]}, 201


@endpoint(auth=True)
async def unshare(ctx: Ctx) -> Any:
    """DELETE /projects/:id/share/:group_id: 204; 404 ``Group Link Not Found``."""
    project = ctx.project()
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    group_id = ctx.path_int("group_id")
    if group_id not in project.shared_with_groups:
        raise not_found("Group Link")
    del project.shared_with_groups[group_id]
    return None, 204


def routes() -> list[BaseRoute]:
    return [
        Route("/projects", list_projects, methods=["GET"]),
        Route("/projects", create_project, methods=["POST"]),
        Route("/projects/user/{user_id}", create_project_for_user, methods=["POST"]),
        Route("/projects/{id}", get_project, methods=["GET"]),
        Route("/projects/{id}", edit_project, methods=["PUT"]),
        Route("/projects/{id}", delete_project, methods=["DELETE"]),
        Route("/projects/{id}/users", project_users, methods=["GET"]),
        Route("/projects/{id}/fork", fork, methods=["POST"]),
        Route("/projects/{id}/forks", list_forks, methods=["GET"]),
        Route("/projects/{id}/star", star, methods=["POST"]),
        Route("/projects/{id}/unstar", unstar, methods=["POST"]),
        Route("/projects/{id}/archive", archive, methods=["POST"]),
        Route("/projects/{id}/unarchive", unarchive, methods=["POST"]),
        Route("/projects/{id}/uploads", upload, methods=["POST"]),
        Route("/projects/{id}/share", share, methods=["POST"]),
        Route("/projects/{id}/share/{group_id}", unshare, methods=["DELETE"]),
    ]
