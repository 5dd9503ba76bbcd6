"""What the watch layer remembers stays bounded however long the console stays open (issue 24's
soak: a board left open for a week must not grow): each structure is driven through many rounds
and must stay within its limit, while what it is for still works."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects, activity
from labdeck.watch.activity import ActivityCheck
from labdeck.watch.alerts import REMEMBERED_FAILURES, Alert, AlertEngine, AlertLog, WatchTarget
from labdeck.watch.deep_reads import LISTED
from labdeck.watch.pipelines import derive_pipelines
from tests.support.sim_control import advance, big_stages, push_pipeline, push_stages
from tests.watch.helpers import (
    T0,
    api_client,
    fake_clock,
    job,
    make_poller,
    one_project_board,
    run_for,
    run_until,
)
from tests.watch.test_big_pipelines import QUIET, newest

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
        # Nor does the client's shared ETag cache keep a body for each URL a watermark left behind.
        listings = [url for url in client.cache.urls() if "last_activity_after" in url]
        assert len(listings) <= check.max_pages, listings


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


def test_a_project_target_remembers_a_bounded_number_of_failed_pipelines() -> None:
    fired: list[Alert] = []
    alerts = AlertEngine(AlertLog(), on_alert=fired.append)
    target = WatchTarget.for_project(7, "platform/api")
    alerts.watch(target)
    page = 3  # pipelines on the first page of jobs at any time
    rounds = REMEMBERED_FAILURES * 3
    for pipeline in range(1, rounds + 1):  # a new failed pipeline each round, the oldest leaves the page
        shown = [job(pipeline * 10 + n, "unit-tests", "failed", pipeline=n, minutes=n)
                 for n in range(max(1, pipeline - page + 1), pipeline + 1)]
        alerts.observe(7, derive_pipelines(7, "platform/api", shown, now=T0 + timedelta(days=1)), T0)
    assert len(fired) == rounds - 1  # every new failure after the baseline, once
    state = alerts._targets[target]
    assert state.failed_pipelines is not None and len(state.failed_pipelines) <= REMEMBERED_FAILURES + page


async def test_the_pipelines_listing_keeps_one_cached_body_per_project_while_its_watermark_moves(
        sim_factory: Callable[..., SimServer]) -> None:
    # Current GitLab: the board's per-round listing asks ``updated_after=<newest seen>``, a new URL
    # each time the listing grows; the URLs left behind are never asked again.
    server = sim_factory(dialect="gitlab", projects=12)
    pid = sorted(pid for pid, project in server.state.projects.items() if not project.archived)[0]
    path = f"{server.state.namespace_path(server.state.projects[pid])}/{server.state.projects[pid].path}"
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects((WatchedProject(pid, path),)))
        await run_for(poller, fake, 60)
        for _ in range(6):
            for _ in range(LISTED):
                push_pipeline(server, pid, ONE_JOB)
            advance(server, 120)
            await run_for(poller, fake, 90)
        listings = [url for url in client.cache.urls() if f"/projects/{pid}/pipelines?" in url]
        assert len(listings) <= 1, listings
        poller.close()


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_the_scoped_reads_of_big_pipelines_gone_from_the_page_leave_no_cached_body(
        sim_factory: Callable[..., SimServer], dialect: str) -> None:
    # A project whose every pipeline is bigger than the page of newest jobs: each row is completed
    # by scoped reads (``pipelines/<id>/jobs?scope[]=…``), a URL per pipeline, never asked again
    # once the pipeline has left the page; the client's ETag cache kept each one's body and
    # headers until its limit of a thousand entries (a board left open for days).
    server = sim_factory(dialect=dialect)
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        pushed: list[int] = []
        for _ in range(5):
            pushed.append(push_stages(server, pid, big_stages(tests=60, deploys=50, fail=(1,)))["id"])
            advance(server, 600)
            await run_until(poller, fake, lambda: (row := newest(board, pushed[-1])) is not None
                            and row.partial and row.failed_known and row.failed_label == "unit-0001", limit=300)
        scoped = {url for url in client.cache.urls() if f"/projects/{pid}/pipelines/" in url}
        assert scoped  # the newest one's are kept (its next round is a 304)
        kept = set(poller.tracks[pid].deep)
        assert kept and pushed[0] not in kept
        assert {url.split("/pipelines/")[1].split("/")[0] for url in scoped} <= {str(pipeline) for pipeline in kept}, \
            sorted(scoped)
        # The project no longer watched (another one is): nothing of its big pipelines stays either.
        other = next(p for p, project in server.state.projects.items() if p != pid and not project.archived)
        poller.subscribe_board(board.append, watched=WatchedProjects((WatchedProject(other, str(other)),)))
        for subscription in [sub for sub in poller._subs if pid in sub.project_ids()]:
            subscription.close()
        await run_for(poller, fake, 30)
        assert pid not in poller.tracks
        assert not [url for url in client.cache.urls() if f"/projects/{pid}/pipelines/" in url]
        poller.close()
