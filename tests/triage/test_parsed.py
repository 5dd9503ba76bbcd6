"""A jobs page read again unchanged keeps the jobs parsed before (no new objects a round)."""

from __future__ import annotations

import json

from labdeck.sim.server import SimServer
from labdeck.triage.parsed import ParsedPages
from labdeck.ui.triaging import REUSE_PAGE, Triaging
from tests.support.fake_time import FakeTime
from tests.watch.helpers import api_client, fake_clock

FAILING = (15, 16, 27, 33)
"""Demo projects whose newest pipeline is broken."""


def _body(*job_ids: int) -> bytes:
    return json.dumps([{"id": job_id, "name": f"unit-{job_id}", "status": "failed", "stage": "test"}
                       for job_id in job_ids]).encode()


def test_the_same_body_gives_the_same_jobs_and_a_changed_one_new_jobs() -> None:
    parsed = ParsedPages()
    first = parsed.parse(7, _body(1, 2))
    assert first is not None and [job.id for job in first] == [1, 2]
    assert parsed.parse(7, _body(1, 2)) is first
    changed = parsed.parse(7, _body(3, 1, 2))
    assert changed is not None and [job.id for job in changed] == [3, 1, 2]
    assert parsed.parse(8, _body(3, 1, 2)) is not changed  # another project's page is its own
    assert parsed.parse(7, b"<html>") is None


def test_only_the_projects_still_held_are_remembered() -> None:
    parsed = ParsedPages()
    for project_id in (1, 2, 3):
        parsed.parse(project_id, _body(project_id))
    parsed.keep_only([2])
    assert len(parsed) == 1
    kept = parsed.parse(2, _body(2))
    assert kept is not None and parsed.parse(2, _body(2)) is kept


async def test_a_round_reading_unchanged_pages_keeps_their_jobs(sim: SimServer) -> None:
    fake: FakeTime = fake_clock()
    async with api_client(sim, "user") as client:
        projects = [(pid, sim.state.project_full_path(sim.state.projects[pid])) for pid in FAILING]
        state = Triaging(clock=fake.clock)
        await state.round(client, projects)
        before = {project_id: state.pages[project_id] for project_id in FAILING}
        fake.now += REUSE_PAGE  # old enough: every page is read from the server again
        await state.round(client, projects)
        # Byte for byte the same pages: the same jobs, not a new copy of each (the old copies
        # freed while the new ones are kept scattered the console's memory, round after round).
        assert all(len(state.pages[project_id]) == len(before[project_id]) > 0 for project_id in FAILING)
        assert all(job is old for project_id in FAILING
                   for job, old in zip(state.pages[project_id], before[project_id], strict=True))
