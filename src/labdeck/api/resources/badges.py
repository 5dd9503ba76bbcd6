"""Group badges (spec 000 §Group badges)."""

from __future__ import annotations

from labdeck.api.models import Badge, BadgePreview
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref


class BadgesResource(Resource):
    """``/groups/:id/badges``."""

    def list(self, group: ProjectRef, *, per_page: int = 100) -> Paginator[Badge]:
        """``GET /groups/:id/badges``."""
        return Paginator(self._engine, f"groups/{ref(group)}/badges", Badge, per_page=per_page)

    async def get(self, group: ProjectRef, badge_id: int) -> Badge:
        """``GET /groups/:id/badges/:badge_id``."""
        badge: Badge = await self._engine.get(f"groups/{ref(group)}/badges/{int(badge_id)}", Badge)
        return badge

    async def create(self, group: ProjectRef, link_url: str, image_url: str) -> Badge:
        """``POST /groups/:id/badges`` (URLs may contain ``%{project_path}``-style variables)."""
        badge: Badge = await self._engine.call("POST", f"groups/{ref(group)}/badges", Badge,
                                               data=encode({"link_url": link_url, "image_url": image_url}))
        return badge

    async def update(self, group: ProjectRef, badge_id: int, *, link_url: str | None = None,
                     image_url: str | None = None) -> Badge:
        """``PUT /groups/:id/badges/:badge_id``."""
        badge: Badge = await self._engine.call("PUT", f"groups/{ref(group)}/badges/{int(badge_id)}", Badge,
                                               data=encode({"link_url": link_url, "image_url": image_url}))
        return badge

    async def delete(self, group: ProjectRef, badge_id: int) -> None:
        """``DELETE /groups/:id/badges/:badge_id``."""
        await self._engine.call("DELETE", f"groups/{ref(group)}/badges/{int(badge_id)}")

    async def render(self, group: ProjectRef, link_url: str, image_url: str) -> BadgePreview:
        """Preview the URLs with ``%{…}`` variables substituted. ``GET /groups/:id/badges/render``."""
        preview: BadgePreview = await self._engine.get(
            f"groups/{ref(group)}/badges/render", BadgePreview,
            encode({"link_url": link_url, "image_url": image_url}))
        return preview
