"""Projects: list, read, create, change, fork, star, archive, upload, share (spec 000 §Projects)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any, TypedDict, Unpack

from labdeck.api.models import Message, Project, ProjectGroupLink, ProjectMember, UploadedFile
from labdeck.api.models.params import MergeMethod, ProjectOrderBy, SortOrder, Visibility
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref
from labdeck.api.results import ActionResult


class ProjectFilters(TypedDict, total=False):
    """Filters shared by ``GET /projects``, ``/users/:id/projects`` and ``/projects/:id/forks``."""

    search: str
    owned: bool
    membership: bool
    starred: bool
    archived: bool
    visibility: Visibility
    order_by: ProjectOrderBy
    sort: SortOrder
    simple: bool
    statistics: bool
    with_custom_attributes: bool
    with_issues_enabled: bool
    with_merge_requests_enabled: bool


class ProjectSettings(TypedDict, total=False):
    """The optional write parameters (set W of the spec)."""

    description: str
    issues_enabled: bool
    merge_requests_enabled: bool
    jobs_enabled: bool
    wiki_enabled: bool
    snippets_enabled: bool
    resolve_outdated_diff_discussions: bool
    container_registry_enabled: bool
    shared_runners_enabled: bool
    visibility: Visibility
    import_url: str
    public_jobs: bool
    only_allow_merge_if_pipeline_succeeds: bool
    only_allow_merge_if_all_discussions_are_resolved: bool
    merge_method: MergeMethod
    lfs_enabled: bool
    request_access_enabled: bool
    tag_list: list[str]
    avatar: Path
    ci_config_path: str
    printing_merge_request_link_enabled: bool


def _write(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Split an avatar file out of the form fields (multipart when present)."""
    data = dict(fields)
    avatar = data.pop("avatar", None)
    result: dict[str, Any] = {"data": encode(data)}
    if avatar is not None:
        path = Path(avatar)
        result["files"] = lambda: {"avatar": (path.name, path.open("rb"))}
    return result


class ProjectsResource(Resource):
    """``/projects`` and ``/users/:user_id/projects``."""

    def list(self, *, per_page: int = 100, conditional: bool = False, concurrency: int = 8,
             custom_attributes: Mapping[str, str] | None = None, since: str | None = None,
             keyset: bool = False, **filters: Unpack[ProjectFilters]) -> Paginator[Project]:
        """Projects visible to the caller (public only without a token). ``GET /projects``.

        ``keyset=True`` asks for keyset pagination ordered by id (``sort`` asc by default), which
        servers from ~12.7 offer for projects and which stays fast past 50,000 projects; a server
        that ignores or refuses it is paginated by offset. It is not used with another
        ``order_by`` (GitLab's keyset for projects orders by id only). ``since``: see :class:`Paginator`.
        """
        use_keyset = keyset and filters.get("order_by", "id") == "id"
        sort = filters.get("sort") or "asc"
        if use_keyset:
            filters.pop("order_by", None)
            filters.pop("sort", None)
        params = encode({**filters, "custom_attributes": custom_attributes})
        return Paginator(self._engine, "projects", Project, params, per_page=per_page,
                         conditional=conditional, concurrency=concurrency, since=since, keyset=use_keyset,
                         sort=sort)

    def user_projects(self, user_id: int | str, *, per_page: int = 100,
                      **filters: Unpack[ProjectFilters]) -> Paginator[Project]:
        """Projects owned by a user (ID or username). ``GET /users/:user_id/projects``."""
        return Paginator(self._engine, f"users/{ref(user_id)}/projects", Project, encode(dict(filters)),
                         per_page=per_page)

    def forks(self, pid: ProjectRef, *, per_page: int = 100, **filters: Unpack[ProjectFilters]) -> Paginator[Project]:
        """Forks of a project visible to the caller. ``GET /projects/:id/forks``."""
        return Paginator(self._engine, f"projects/{ref(pid)}/forks", Project, encode(dict(filters)),
                         per_page=per_page)

    async def get(self, pid: ProjectRef, statistics: bool = False, *,
                  with_custom_attributes: bool | None = None) -> Project:
        """One project. ``GET /projects/:id``."""
        params = encode({"statistics": statistics or None, "with_custom_attributes": with_custom_attributes})
        project: Project = await self._engine.get(f"projects/{ref(pid)}", Project, params)
        return project

    async def poll(self, pid: ProjectRef, statistics: bool = False, *,
                   since: str | None = None) -> ActionResult[Project]:
        """Conditional read of one project. ``since``: the ``etag`` of the result the caller holds;
        only then can the answer be ``changed`` False (``value`` None)."""
        params = encode({"statistics": statistics or None})
        return await self._engine.poll(f"projects/{ref(pid)}", Project, params, since=since)

    def users(self, pid: ProjectRef, *, search: str | None = None, per_page: int = 100) -> Paginator[ProjectMember]:
        """Users of a project. ``GET /projects/:id/users``."""
        return Paginator(self._engine, f"projects/{ref(pid)}/users", ProjectMember, encode({"search": search}),
                         per_page=per_page)

    async def _topics(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Servers from 14.0 take project tags as ``topics`` (``tag_list`` is deprecated there)."""
        if "tag_list" in fields and (await self._dialect()).project_topics_param == "topics":
            fields["topics"] = fields.pop("tag_list")
        return fields

    async def create(self, *, name: str | None = None, path: str | None = None, namespace_id: int | None = None,
                     **settings: Unpack[ProjectSettings]) -> Project:
        """Create a project (``name`` or ``path`` required). ``POST /projects``."""
        if not name and not path:
            raise ValueError("name or path is required")
        fields = await self._topics({"name": name, "path": path, "namespace_id": namespace_id, **settings})
        project: Project = await self._engine.call("POST", "projects", Project, **_write(fields))
        return project

    async def create_for_user(self, user_id: int, *, name: str, path: str | None = None,
                              default_branch: str | None = None, namespace_id: int | None = None,
                              **settings: Unpack[ProjectSettings]) -> Project:
        """Create a project owned by another user (admin). ``POST /projects/user/:user_id``."""
        fields = await self._topics({"name": name, "path": path, "default_branch": default_branch,
                                     "namespace_id": namespace_id, **settings})
        project: Project = await self._engine.call("POST", f"projects/user/{int(user_id)}", Project, **_write(fields))
        return project

    async def update(self, pid: ProjectRef, *, name: str, path: str | None = None,
                     default_branch: str | None = None, **settings: Unpack[ProjectSettings]) -> Project:
        """Edit a project (``tag_list`` goes as ``topics`` to servers from 14.0). ``PUT /projects/:id``."""
        fields = await self._topics({"name": name, "path": path, "default_branch": default_branch, **settings})
        project: Project = await self._engine.call("PUT", f"projects/{ref(pid)}", Project, **_write(fields))
        return project

    async def delete(self, pid: ProjectRef) -> Message | None:
        """Remove a project and everything in it (202 Accepted). ``DELETE /projects/:id``."""
        message: Message | None = await self._engine.call("DELETE", f"projects/{ref(pid)}", Message)
        return message

    async def fork(self, pid: ProjectRef, namespace: int | str) -> Project:
        """Fork into a namespace (asynchronous: watch ``import_status``). ``POST /projects/:id/fork``."""
        project: Project = await self._engine.call("POST", f"projects/{ref(pid)}/fork", Project,
                                                   data=encode({"namespace": namespace}))
        return project

    async def star(self, pid: ProjectRef) -> ActionResult[Project]:
        """Star; ``changed`` is False (304) when already starred. ``POST /projects/:id/star``."""
        return await self._engine.action("POST", f"projects/{ref(pid)}/star", Project)

    async def unstar(self, pid: ProjectRef) -> ActionResult[Project]:
        """Unstar; ``changed`` is False (304) when not starred. ``POST /projects/:id/unstar``."""
        return await self._engine.action("POST", f"projects/{ref(pid)}/unstar", Project)

    async def archive(self, pid: ProjectRef) -> Project:
        """Archive (idempotent; admin or owner). ``POST /projects/:id/archive``."""
        project: Project = await self._engine.call("POST", f"projects/{ref(pid)}/archive", Project)
        return project

    async def unarchive(self, pid: ProjectRef) -> Project:
        """Unarchive (idempotent; admin or owner). ``POST /projects/:id/unarchive``."""
        project: Project = await self._engine.call("POST", f"projects/{ref(pid)}/unarchive", Project)
        return project

    async def upload(self, pid: ProjectRef, file: Path, *, filename: str | None = None) -> UploadedFile:
        """Upload a file for use in descriptions or comments (multipart). ``POST /projects/:id/uploads``."""
        path = Path(file)
        name = filename or path.name
        result: UploadedFile = await self._engine.call(
            "POST", f"projects/{ref(pid)}/uploads", UploadedFile,
            files=lambda: {"file": (name, path.open("rb"))})
        return result

    async def share(self, pid: ProjectRef, group_id: int, group_access: int, *,
                    expires_at: date | str | None = None) -> ProjectGroupLink | None:
        """Share with a group at an access level. ``POST /projects/:id/share``."""
        data = encode({"group_id": group_id, "group_access": group_access, "expires_at": expires_at})
        link: ProjectGroupLink | None = await self._engine.call("POST", f"projects/{ref(pid)}/share",
                                                                ProjectGroupLink, data=data)
        return link

    async def unshare(self, pid: ProjectRef, group_id: int) -> None:
        """Stop sharing with a group (204). ``DELETE /projects/:id/share/:group_id``."""
        await self._engine.call("DELETE", f"projects/{ref(pid)}/share/{int(group_id)}")
