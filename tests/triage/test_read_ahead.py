"""Pages read ahead (``labdeck triage`` starts the ``w``-added projects' pages while it lists the
starred ones): the round uses them, reads no page twice, and answers as a round without them."""

from __future__ import annotations

import asyncio

import httpx

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.triage.collect import ProjectJobs, Triager

ADMIN = DEMO_TOKENS["admin"]


class CountingTriager(Triager):
    """A triager that counts the jobs pages it asks the server for."""

    pages_read: list[int]

    async def page(self, project_id: int, path: str) -> ProjectJobs:
        self.pages_read.append(project_id)
        return await super().page(project_id, path)


async def _projects(client: ApiClient) -> list[tuple[int, str]]:
    listed = await client.projects.list(simple=True, per_page=5).first_page()
    return [(project.id, project.path_with_namespace or str(project.id)) for project in listed][:3]


async def test_a_round_uses_the_pages_read_ahead_once_and_answers_the_same(sim: SimServer) -> None:
    async with ApiClient(sim.base_url, Secret(ADMIN)) as client:
        projects = await _projects(client)
        plain = CountingTriager(client)
        plain.pages_read = []
        expected = await plain.round(projects)

        ahead = CountingTriager(client)
        ahead.pages_read = []
        # Two read ahead under an old path: the round's path is the one reported.
        ahead.read_ahead([(pid, f"old/{path}") for pid, path in projects[:2]])
        await asyncio.sleep(0)
        report = await ahead.round(projects)
        ahead.drop_read_ahead()

    assert sorted(ahead.pages_read) == sorted(pid for pid, _ in projects)
    assert report.as_json() == expected.as_json()
    assert report.pages.keys() == expected.pages.keys()


async def test_pages_read_ahead_that_no_round_uses_are_dropped(sim: SimServer) -> None:
    async with ApiClient(sim.base_url, Secret(ADMIN)) as client:
        projects = await _projects(client)
        triager = Triager(client)
        triager.read_ahead(projects)
        triager.read_ahead([(999_999, "gone/missing")])  # a 404: its error is dropped with it
        await asyncio.sleep(0.3)
        triager.drop_read_ahead()
        pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    assert not [task for task in pending if not task.done()]


async def test_a_log_asked_for_twice_while_it_is_read_is_read_once(sim: SimServer) -> None:
    # The green run two failures of a round compare with: each asked for its log at once.
    reads: list[str] = []

    async def note(request: httpx.Request) -> None:
        if request.url.path.endswith("/trace"):
            reads.append(request.url.path)

    async with ApiClient(sim.base_url, Secret(ADMIN)) as client:
        client.http.event_hooks["request"].append(note)
        finished = next(job for job in sim.state.jobs.values() if job.status == "success")
        listed = await client.jobs.get(finished.project_id, finished.id)
        triager = Triager(client)
        first, second = await asyncio.gather(triager.log_bytes(finished.project_id, listed),
                                             triager.log_bytes(finished.project_id, listed))
        assert first == second and first
        assert len(reads) == 1


async def test_a_log_read_stops_when_every_round_that_wanted_it_is_cancelled(sim: SimServer) -> None:
    # A shared read went on after its rounds were cancelled: a token of the budget and a cache
    # write for a log nobody would look at. One caller left keeps it going.
    go = asyncio.Event()
    sent: list[str] = []

    async def hold(request: httpx.Request) -> None:
        if request.url.path.endswith("/trace"):
            await go.wait()
            sent.append(request.url.path)

    async with ApiClient(sim.base_url, Secret(ADMIN)) as client:
        client.http.event_hooks["request"].append(hold)
        finished = [job for job in sim.state.jobs.values() if job.status == "success"][:2]
        listed = [await client.jobs.get(job.project_id, job.id) for job in finished]
        triager = Triager(client)
        kept_one = [asyncio.ensure_future(triager.log_bytes(finished[0].project_id, listed[0])) for _ in range(2)]
        dropped = [asyncio.ensure_future(triager.log_bytes(finished[1].project_id, listed[1])) for _ in range(2)]
        await asyncio.sleep(0.05)
        for caller in (kept_one[0], *dropped):
            caller.cancel()
        go.set()
        assert await kept_one[1]
        await asyncio.sleep(0.1)
        assert sent == [f"/api/v4/projects/{finished[0].project_id}/jobs/{finished[0].id}/trace"]
        assert triager.logs_read == 1


async def test_a_log_asked_for_while_its_read_is_being_stopped_is_read_again(sim: SimServer) -> None:
    # The last round that wanted a log was cancelled, and the next one asks for it before the
    # stopped read has ended: it must get the log, not the other round's cancellation.
    go = asyncio.Event()

    async def hold(request: httpx.Request) -> None:
        if request.url.path.endswith("/trace"):
            await go.wait()

    async with ApiClient(sim.base_url, Secret(ADMIN)) as client:
        client.http.event_hooks["request"].append(hold)
        finished = next(job for job in sim.state.jobs.values() if job.status == "success")
        listed = await client.jobs.get(finished.project_id, finished.id)
        triager = Triager(client)
        first = asyncio.ensure_future(triager.log_bytes(finished.project_id, listed))
        await asyncio.sleep(0.05)
        first.cancel()
        await asyncio.sleep(0)  # the first caller has gone: its read is being stopped
        second = asyncio.ensure_future(triager.log_bytes(finished.project_id, listed))
        go.set()
        assert await second
