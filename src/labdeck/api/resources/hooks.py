"""Project hooks (spec 000 §Projects, hooks rows)."""

from __future__ import annotations

from typing import TypedDict, Unpack

from labdeck.api.models import ProjectHook
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref


class HookSettings(TypedDict, total=False):
    """Event flags and delivery options of a hook."""

    push_events: bool
    issues_events: bool
    confidential_issues_events: bool
    merge_requests_events: bool
    tag_push_events: bool
    note_events: bool
    job_events: bool
    pipeline_events: bool
    wiki_page_events: bool
    enable_ssl_verification: bool
    token: str
    name: str
    """17.1+ (older servers ignore it)."""
    description: str


class HooksResource(Resource):
    """``/projects/:id/hooks``."""

    def list(self, pid: ProjectRef, *, per_page: int = 100) -> Paginator[ProjectHook]:
        """``GET /projects/:id/hooks``."""
        return Paginator(self._engine, f"projects/{ref(pid)}/hooks", ProjectHook, per_page=per_page)

    async def get(self, pid: ProjectRef, hook_id: int) -> ProjectHook:
        """``GET /projects/:id/hooks/:hook_id``."""
        hook: ProjectHook = await self._engine.get(f"projects/{ref(pid)}/hooks/{int(hook_id)}", ProjectHook)
        return hook

    async def create(self, pid: ProjectRef, url: str, **settings: Unpack[HookSettings]) -> ProjectHook:
        """Add a hook; ``token`` is a secret never returned. ``POST /projects/:id/hooks``."""
        hook: ProjectHook = await self._engine.call("POST", f"projects/{ref(pid)}/hooks", ProjectHook,
                                                    data=encode({"url": url, **settings}))
        return hook

    async def update(self, pid: ProjectRef, hook_id: int, *, url: str | None = None,
                     **settings: Unpack[HookSettings]) -> ProjectHook:
        """Edit a hook (parameters as for create). ``PUT /projects/:id/hooks/:hook_id``."""
        hook: ProjectHook = await self._engine.call("PUT", f"projects/{ref(pid)}/hooks/{int(hook_id)}",
                                                    ProjectHook, data=encode({"url": url, **settings}))
        return hook

    async def delete(self, pid: ProjectRef, hook_id: int) -> None:
        """Remove a hook. ``DELETE /projects/:id/hooks/:hook_id``."""
        await self._engine.call("DELETE", f"projects/{ref(pid)}/hooks/{int(hook_id)}")
