"""The authenticated user and the server version."""

from __future__ import annotations

from labdeck.api.models import User, Version
from labdeck.api.resources.base import Resource


class UsersResource(Resource):
    """``/user``."""

    async def current(self) -> User:
        """The account behind the token (``is_admin`` set for admins). ``GET /user``."""
        user: User = await self._engine.get("user", User)
        return user

    async def version(self) -> Version:
        """``GET /version``."""
        version: Version = await self._engine.get("version", Version)
        return version
