"""Protected branches (spec 000 §Protected branches)."""

from __future__ import annotations

from labdeck.api.models import ProtectedBranch
from labdeck.api.models.params import BranchAccessLevel
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref


class ProtectedBranchesResource(Resource):
    """``/projects/:id/protected_branches``."""

    def list(self, pid: ProjectRef, *, per_page: int = 100) -> Paginator[ProtectedBranch]:
        """``GET /projects/:id/protected_branches``."""
        return Paginator(self._engine, f"projects/{ref(pid)}/protected_branches", ProtectedBranch,
                         per_page=per_page)

    async def get(self, pid: ProjectRef, name: str) -> ProtectedBranch:
        """A branch or wildcard. ``GET /projects/:id/protected_branches/:name``."""
        branch: ProtectedBranch = await self._engine.get(
            f"projects/{ref(pid)}/protected_branches/{ref(name)}", ProtectedBranch)
        return branch

    async def protect(self, pid: ProjectRef, name: str, *, push_access_level: BranchAccessLevel | None = None,
                      merge_access_level: BranchAccessLevel | None = None,
                      allow_force_push: bool | None = None) -> ProtectedBranch:
        """Protect a branch or wildcard (levels default to 40 on the server; ``allow_force_push``
        is understood from 13.10). ``POST /projects/:id/protected_branches``."""
        data = encode({"name": name, "push_access_level": push_access_level,
                       "merge_access_level": merge_access_level, "allow_force_push": allow_force_push})
        branch: ProtectedBranch = await self._engine.call("POST", f"projects/{ref(pid)}/protected_branches",
                                                          ProtectedBranch, data=data)
        return branch

    async def unprotect(self, pid: ProjectRef, name: str) -> None:
        """``DELETE /projects/:id/protected_branches/:name``."""
        await self._engine.call("DELETE", f"projects/{ref(pid)}/protected_branches/{ref(name)}")

    create = protect
    delete = unprotect
