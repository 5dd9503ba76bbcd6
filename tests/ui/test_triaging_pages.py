"""Triage's rounds do not read a jobs page again within seconds: the board asks for a round
whenever its failures change (2 s after the last while it loads), and each round read every
project's page again (seen through a request-counting proxy: the same pages twice within 3 s). A
page is read again once the board's failed jobs in its project changed, or once it is old."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx

from labdeck.api import ApiClient
from labdeck.api.models import Job
from labdeck.sim.server import SimServer
from labdeck.ui.triaging import REUSE_PAGE, Triaging
from tests.support.fake_time import FakeTime
from tests.watch.helpers import api_client, fake_clock, job

FAILING = (15, 16, 27, 33)
"""Demo projects whose newest pipeline is broken."""


@dataclass
class _Watched:
    client: ApiClient
    fake: FakeTime
    projects: list[tuple[int, str]]
    shown: list[tuple[int, str, Job]]
    """The failed jobs the board shows (as another console would work them out)."""
    pages: list[str] = field(default_factory=list)
    """Jobs pages read since the shown failures were worked out."""


@asynccontextmanager
async def _watched(sim: SimServer) -> AsyncIterator[_Watched]:
    """The failing demo projects, their failures, and the jobs pages read from then on."""
    fake: FakeTime = fake_clock()
    async with api_client(sim, "user") as client:
        projects = [(pid, sim.state.project_full_path(sim.state.projects[pid])) for pid in FAILING]
        report = await Triaging(clock=fake.clock).round(client, projects)
        watched = _Watched(client, fake, projects,
                           [(failure.project_id, failure.project, failure.job) for failure in report.failures])

        async def note(request: httpx.Request) -> None:
            if request.url.path.endswith("/jobs"):
                watched.pages.append(request.url.path)

        client.http.event_hooks["request"].append(note)
        yield watched


async def test_a_round_soon_after_the_last_reads_only_the_pages_that_changed(sim: SimServer) -> None:
    async with _watched(sim) as watched:
        client, fake, projects, shown, pages = (watched.client, watched.fake, watched.projects, watched.shown,
                                                watched.pages)
        assert {project_id for project_id, _, _ in shown} == set(FAILING)
        state = Triaging(clock=fake.clock)
        await state.round(client, projects, shown)
        assert len(pages) == len(FAILING)

        fake.now += 2  # the board's next snapshot: one more failure, in one project
        newest = max(job.id for job in sim.state.jobs.values()) + 1
        other = job(newest, "new-one", "failed")
        await state.round(client, projects, [*shown, (FAILING[0], projects[0][1], other)])
        assert pages[len(FAILING):] == [f"/api/v4/projects/{FAILING[0]}/jobs"]

        asked = [*shown, (FAILING[0], projects[0][1], other)]
        fake.now += 2  # a failure gone from the board (retried, passed): its project is read again
        await state.round(client, projects, [item for item in asked if item[0] != FAILING[1]])
        assert pages[len(FAILING) + 1:] == [f"/api/v4/projects/{FAILING[1]}/jobs"]

        fake.now += REUSE_PAGE  # old enough: every page read again
        await state.round(client, projects, asked)
        assert len(pages) == 2 * len(FAILING) + 2


async def test_a_page_that_holds_the_new_failure_still_running_is_read_again(sim: SimServer) -> None:
    async with _watched(sim) as watched:
        client, fake, projects, shown, pages = (watched.client, watched.fake, watched.projects, watched.shown,
                                                watched.pages)
        state = Triaging(clock=fake.clock)
        await state.round(client, projects, shown)
        page = state.pages[FAILING[0]]
        pages.clear()

        fake.now += 2  # a job the page holds, not failed when it was read, has failed since
        held = next(known for known in page if known.status != "failed")
        now_failed = held.model_copy(update={"status": "failed"})
        await state.round(client, projects, [*shown, (FAILING[0], projects[0][1], now_failed)])
        assert pages == [f"/api/v4/projects/{FAILING[0]}/jobs"]
