"""Network faults on real loopback sockets: resets before/after sending, latency, slow drip,
blackhole, refused connections, env proxies. A POST is never sent twice for one call; every call
ends within its budget."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest

from labdeck.api import ApiClient, errors
from labdeck.base.secret import Secret
from tests.support.fake_time import FakeTime
from tests.support.fault_proxy import FaultProxy, StubUpstream
from tests.support.mock_api import TOKEN, policy

JOB = {"id": 5, "status": "running", "name": "build"}


@pytest.fixture
async def upstream() -> AsyncIterator[StubUpstream]:
    server = await StubUpstream().start()
    server.responses["/api/v4/projects/1/jobs/5"] = (200, JOB, {})
    server.responses["/api/v4/projects/1/jobs/5/cancel"] = (201, {**JOB, "status": "canceled"}, {})
    yield server
    await server.stop()


@pytest.fixture
async def proxy(upstream: StubUpstream) -> AsyncIterator[FaultProxy]:
    async with FaultProxy("127.0.0.1", upstream.port) as fault_proxy:
        yield fault_proxy


def _client(url: str, fake: FakeTime | None = None, **overrides: Any) -> ApiClient:
    return ApiClient(url, Secret(TOKEN), retry=policy(fake or FakeTime(), **overrides))


def _posts(upstream: StubUpstream) -> int:
    return sum(1 for method, _ in upstream.seen if method == "POST")


async def test_get_survives_reset_before_and_after_sending(proxy: FaultProxy, upstream: StubUpstream) -> None:
    proxy.modes.extend(["reset_before", "reset_after"])
    async with _client(proxy.url) as client:
        job = await client.jobs.get(1, 5)
    assert job.status == "running"
    assert [m for m, _ in upstream.seen] == ["GET", "GET"]  # reset_after reached it, then the retry
    assert client.health.state == "ok"


@pytest.mark.parametrize("mode", ["reset_before", "reset_after", "blackhole"])
async def test_post_after_ambiguous_failure_is_outcome_unknown_and_sent_once(
        mode: str, proxy: FaultProxy, upstream: StubUpstream) -> None:
    proxy.default = mode
    async with _client(proxy.url, budget=0.3) as client:
        async with asyncio.timeout(10):
            with pytest.raises(errors.OutcomeUnknown) as caught:
                await client.jobs.cancel(1, 5)
    assert proxy.count("POST", "received") <= 1
    assert _posts(upstream) == (1 if mode == "reset_after" else 0)
    assert caught.value.method == "POST" and TOKEN not in str(caught.value)


@pytest.mark.parametrize("mode", ["pass", "latency", "drip", "reset_before", "reset_after", "blackhole"])
async def test_no_post_is_ever_sent_twice(mode: str, proxy: FaultProxy, upstream: StubUpstream) -> None:
    proxy.default = mode
    proxy.latency = 0.05
    async with _client(proxy.url, budget=0.3) as client:
        for _ in range(3):
            before = _posts(upstream)
            try:
                async with asyncio.timeout(10):
                    job = await client.jobs.cancel(1, 5)
                assert job.status == "canceled"
            except errors.OutcomeUnknown:
                pass
            assert _posts(upstream) - before <= 1


async def test_latency_and_slow_drip_deliver_intact_answers(proxy: FaultProxy, upstream: StubUpstream) -> None:
    big = [{"id": i, "name": f"project-{i}" * 5} for i in range(200)]
    upstream.responses["/api/v4/projects"] = (200, big, {"X-Next-Page": ""})
    proxy.modes.extend(["latency", "drip"])
    proxy.latency = 0.05
    proxy.drip_size = 1024
    async with _client(proxy.url) as client:
        assert (await client.jobs.get(1, 5)).id == 5
        projects = await client.projects.list().all()
    assert [p.id for p in projects] == list(range(200))


async def test_blackholed_get_ends_within_its_budget(proxy: FaultProxy, upstream: StubUpstream) -> None:
    proxy.default = "blackhole"
    async with _client(proxy.url, budget=0.5) as client:
        async with asyncio.timeout(5):
            with pytest.raises(errors.TransportError) as caught:
                await client.jobs.get(1, 5)
    assert "0.5" in caught.value.message and client.health.state == "error"


async def test_drip_slower_than_budget_is_cut_off(proxy: FaultProxy, upstream: StubUpstream) -> None:
    proxy.default = "drip"
    proxy.drip_size = 1
    proxy.drip_delay = 0.05
    async with _client(proxy.url, budget=0.3) as client:
        async with asyncio.timeout(5):
            with pytest.raises(errors.TransportError):
                await client.jobs.get(1, 5)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_refused_connection_retries_even_posts_and_never_delivers() -> None:
    fake = FakeTime()
    async with _client(f"http://127.0.0.1:{_closed_port()}", fake) as client:
        with pytest.raises(errors.TransportError) as caught:
            await client.jobs.cancel(1, 5)
    assert len(fake.sleeps) == 3  # the request never left, so retrying a POST is safe
    assert "Cannot reach the server" in caught.value.user_message()


async def test_env_proxy_is_used_and_no_proxy_bypasses_it(proxy: FaultProxy, upstream: StubUpstream,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    async with ApiClient("http://gitlab.proxied.test", Secret(TOKEN)) as client:
        assert (await client.jobs.get(1, 5)).id == 5
    assert proxy.received == [("GET", "/api/v4/projects/1/jobs/5")]
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with ApiClient(f"http://127.0.0.1:{upstream.port}", Secret(TOKEN)) as client:
        assert (await client.jobs.get(1, 5)).id == 5
    assert len(proxy.received) == 1 and len(upstream.seen) == 2


async def test_simulator_rate_limit_waits_at_least_retry_after(sim_factory: Any, tokens: dict[str, str]) -> None:
    from labdeck.sim.core.faults import FaultConfig

    server = sim_factory()
    server.state.extra["faults"] = FaultConfig(rate_limit=1.0, retry_after=3, path_prefix="/projects")
    fake = FakeTime()
    async with ApiClient(server.base_url, Secret(tokens["admin"]), retry=policy(fake)) as client:
        with pytest.raises(errors.RateLimited) as caught:
            await client.projects.get(1)
        assert (await client.users.current()).username == "root"
    # Three waits before the retries of the throttled read, then one before the next read: a 429
    # holds the whole client back (GitLab throttles the account, not one path), never less than asked.
    assert fake.sleeps == [3, 3, 3, 3]
    assert caught.value.retry_after == 3 and client.rate_limit is not None and client.rate_limit.limit == 600
