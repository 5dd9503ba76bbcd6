"""What the watch layer remembers stays bounded however long the console stays open (issue 24's
soak: a board left open for a week must not grow): each structure is driven through many rounds
and must stay within its limit, while what it is for still works."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from labdeck.sim.server import SimServer
from labdeck.watch import activity
from labdeck.watch.activity import ActivityCheck
from tests.watch.helpers import advance, api_client, push_pipeline

ONE_JOB = [{"name": "unit-tests", "duration": 30}]


async def test_the_activity_check_keeps_one_etag_per_page_while_its_watermark_moves(
        sim_factory: Callable[..., SimServer]) -> None:
    # Current GitLab: every move of the watermark changes the URL (last_activity_after=…).
    server = sim_factory(dialect="gitlab", projects=40)
    pids = sorted(pid for pid, project in server.state.projects.items() if not project.archived)
    async with api_client(server) as client:
        check = ActivityCheck(client, per_page=20, max_pages=3)
        await check.run(None, since=True)
        for round_ in range(25):
            advance(server, 3700)  # past GitLab's one-hour activity gap: every push moves the project
            pid = pids[round_ % len(pids)]
            push_pipeline(server, pid, ONE_JOB)
            moved = await check.run(None, since=True)
            assert pid in moved.moved
            unchanged = await check.run(None, since=True)
            assert unchanged.moved == set()
        assert len(check._etags) <= check.max_pages


async def test_the_activity_check_forgets_the_longest_quiet_projects_past_its_limit(
        sim_factory: Callable[..., SimServer], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(activity, "KNOWN_LIMIT", 5)
    server = sim_factory(projects=60)
    pids = sorted(pid for pid, project in server.state.projects.items()
                  if not project.archived and project.last_activity_at < server.state.now() - timedelta(hours=2))
    async with api_client(server) as client:
        check = ActivityCheck(client, per_page=20, max_pages=3)
        await check.run(None)
        assert len(check.known) <= 5
        for pid in pids[:12]:
            advance(server, 3700)
            push_pipeline(server, pid, ONE_JOB)
            moved = await check.run(None)
            assert pid in moved.moved
            assert len(check.known) <= 5
        # One forgotten long ago moves again: still seen as moved (it is newer than the watermark).
        assert pids[0] not in check.known
        advance(server, 3700)
        push_pipeline(server, pids[0], ONE_JOB)
        assert pids[0] in (await check.run(None)).moved
