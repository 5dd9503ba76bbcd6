"""The shared poller keeps at most ``max_in_flight`` requests on the wire at once, against a slow
simulator over real HTTP, and still reads every watched project."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from labdeck.api import ApiClient, RetryPolicy
from labdeck.api.transport import DEFAULT_LIMITS
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from tests.support.sim_control import set_faults
from tests.watch.helpers import fake_clock, make_poller, run_until


class CountingTransport(httpx.AsyncBaseTransport):
    """The real transport, counting the requests that are sent and not yet answered."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(limits=DEFAULT_LIMITS)
        self.in_flight = 0
        self.peak = 0
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self.sent.append(request.url.path)
        try:
            response = await self.inner.handle_async_request(request)
            await response.aread()  # the answer has fully arrived before the request counts as done
            return response
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_never_more_than_max_in_flight_and_every_project_is_read(
        sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    ids = sorted(pid for pid, project in server.state.projects.items() if not project.archived)[:18]
    assert len(ids) == 18
    set_faults(server, {"latency": 60})  # every answer takes a while: requests overlap if allowed to
    transport = CountingTransport()
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with ApiClient(server.base_url, Secret(DEMO_TOKENS["admin"]), retry=RetryPolicy(),
                         transport=transport) as client:
        poller = make_poller(client, server, fake, max_in_flight=3)
        poller.subscribe_board(board.append,
                               watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        poller.close()

    assert transport.in_flight == 0
    assert transport.peak <= 3, f"{transport.peak} requests in flight at once"
    assert transport.peak == 3  # it did read in parallel (else this test would prove nothing)
    snapshot = board[-1]
    assert set(snapshot.projects) == set(ids)
    assert all(status.error is None for status in snapshot.projects.values())
    assert all(poller.tracks[pid].loaded for pid in ids)
    read = {path for path in transport.sent if path.endswith("/jobs")}
    assert read == {f"/api/v4/projects/{pid}/jobs" for pid in ids}
