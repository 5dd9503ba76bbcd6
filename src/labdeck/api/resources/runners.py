"""Runners (spec 000 §Runners)."""

from __future__ import annotations

import builtins

from labdeck.api.models import Runner, RunnerDetail, RunnerJob
from labdeck.api.models.params import RunnerAccessLevel, RunnerAllScope, RunnerJobStatus, RunnerScope
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref


class RunnersResource(Resource):
    """``/runners`` and ``/projects/:id/runners``."""

    def list(self, *, scope: RunnerScope | None = None, per_page: int = 100,
             conditional: bool = False, since: str | None = None) -> Paginator[Runner]:
        """Specific runners available to the caller. ``GET /runners``. ``since``: see :class:`Paginator`."""
        return Paginator(self._engine, "runners", Runner, encode({"scope": scope}), per_page=per_page,
                         conditional=conditional, since=since)

    def list_all(self, *, scope: RunnerAllScope | None = None, per_page: int = 100,
                 conditional: bool = False, since: str | None = None) -> Paginator[Runner]:
        """Every runner, shared included (admin). ``GET /runners/all``. ``since``: see :class:`Paginator`."""
        return Paginator(self._engine, "runners/all", Runner, encode({"scope": scope}), per_page=per_page,
                         conditional=conditional, since=since)

    async def get(self, runner_id: int) -> RunnerDetail:
        """``GET /runners/:id``."""
        runner: RunnerDetail = await self._engine.get(f"runners/{int(runner_id)}", RunnerDetail)
        return runner

    async def update(self, runner_id: int, *, description: str | None = None, active: bool | None = None,
                     tag_list: builtins.list[str] | None = None, run_untagged: bool | None = None,
                     locked: bool | None = None, access_level: RunnerAccessLevel | None = None,
                     maximum_timeout: int | None = None, paused: bool | None = None,
                     maintenance_note: str | None = None) -> RunnerDetail:
        """Change settings; ``tag_list`` is the full list to end up with. ``PUT /runners/:id``.

        Pause with ``paused=True`` or ``active=False`` (either works): servers from 14.8 are sent
        ``paused``, older ones (and the spec) ``active``.
        """
        if paused is not None and active is not None and paused == active:
            raise ValueError("paused and active contradict each other; give one of them")
        pause = paused if paused is not None else (None if active is None else not active)
        state: dict[str, bool | None] = {}
        if pause is not None:
            if (await self._dialect()).runner_pause_param == "paused":
                state["paused"] = pause
            else:
                state["active"] = not pause
        data = encode({"description": description, **state, "tag_list": tag_list,
                       "run_untagged": run_untagged, "locked": locked, "access_level": access_level,
                       "maximum_timeout": maximum_timeout, "maintenance_note": maintenance_note})
        runner: RunnerDetail = await self._engine.call("PUT", f"runners/{int(runner_id)}", RunnerDetail, data=data)
        return runner

    async def delete(self, runner_id: int) -> None:
        """Remove a runner. ``DELETE /runners/:id``."""
        await self._engine.call("DELETE", f"runners/{int(runner_id)}")

    def jobs(self, runner_id: int, *, status: RunnerJobStatus | None = None,
             per_page: int = 100) -> Paginator[RunnerJob]:
        """Jobs processed by a runner. ``GET /runners/:id/jobs``."""
        return Paginator(self._engine, f"runners/{int(runner_id)}/jobs", RunnerJob, encode({"status": status}),
                         per_page=per_page)

    def project_runners(self, pid: ProjectRef, *, per_page: int = 100) -> Paginator[Runner]:
        """Specific and shared runners of a project. ``GET /projects/:id/runners``."""
        return Paginator(self._engine, f"projects/{ref(pid)}/runners", Runner, per_page=per_page)

    async def enable(self, pid: ProjectRef, runner_id: int) -> Runner:
        """Enable a specific runner in a project. ``POST /projects/:id/runners``."""
        runner: Runner = await self._engine.call("POST", f"projects/{ref(pid)}/runners", Runner,
                                                 data=encode({"runner_id": runner_id}))
        return runner

    async def disable(self, pid: ProjectRef, runner_id: int) -> None:
        """Disable a runner in a project; refused (403) for the runner's only project.
        ``DELETE /projects/:id/runners/:runner_id``."""
        await self._engine.call("DELETE", f"projects/{ref(pid)}/runners/{int(runner_id)}")
