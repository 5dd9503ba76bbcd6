"""The failures a screen shows are worked out first (issue 29, point 4): where the budget lets triage
read a log every few seconds, a round read the window's older failures' logs (and their green runs')
in page order, and the board's ``Why`` cells stayed ``…`` for minutes while ``labdeck triage``
answered at once."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from labdeck.sim.server import SimServer
from labdeck.triage.logcache import LogCache
from labdeck.ui import triaging
from labdeck.ui.triaging import WHOLE_EVERY, Triaging
from tests.support.fake_time import FakeTime
from tests.watch.helpers import api_client, fake_clock

FAILING = (15, 16, 27, 33)
"""Demo projects whose newest pipeline is broken."""


async def test_the_shown_failure_is_told_before_the_older_failures_logs_are_read(sim: SimServer, tmp_path: Path) -> None:
    fake: FakeTime = fake_clock()
    logs: list[int] = []

    async def note(request: httpx.Request) -> None:
        if request.url.path.endswith("/trace"):
            logs.append(int(request.url.path.split("/")[-2]))

    async with api_client(sim, "user") as client:
        client.http.event_hooks["request"].append(note)
        projects = [(pid, sim.state.project_full_path(sim.state.projects[pid])) for pid in FAILING]
        every = await Triaging(LogCache(tmp_path / "first"), clock=fake.clock).round(client, projects)
        needing_logs = [failure for failure in every.failures if failure.log_read]
        assert len(needing_logs) >= 2  # else there is no order to check
        shown = needing_logs[-1]  # one the round would not come to first on its own
        logs.clear()

        state = Triaging(LogCache(tmp_path / "second"), clock=fake.clock)  # reads every log again
        heard: list[tuple[bool, list[int]]] = []
        state.subscribe(lambda: heard.append((state.failure(shown.job.id) is not None, list(logs))))
        await state.round(client, projects, [(shown.project_id, shown.project, shown.job)])

        told, read_by_then = heard[0]
        assert told
        others = {failure.job.id for failure in needing_logs if failure is not shown}
        assert shown.job.id in read_by_then and not others & set(read_by_then)
        assert others <= set(logs)  # the round went on to the rest (the clusters need them)
        assert state.report is not None and len(state.report.failures) == len(every.failures)


async def test_a_round_cut_short_keeps_the_shown_verdicts_and_the_last_whole_report(sim: SimServer, tmp_path: Path) -> None:
    fake: FakeTime = fake_clock()
    async with api_client(sim, "user") as client:
        projects = [(pid, sim.state.project_full_path(sim.state.projects[pid])) for pid in FAILING]
        every = await Triaging(LogCache(tmp_path / "first"), clock=fake.clock).round(client, projects)
        shown = [failure for failure in every.failures if failure.log_read][-1]

        state = Triaging(LogCache(tmp_path / "second"), clock=fake.clock)
        # A newer round is waiting from the start: only what is shown is worked out.
        cut = await state.round(client, projects, [(shown.project_id, shown.project, shown.job)],
                                cut_short=lambda: True)
        assert not cut.complete and len(cut.failures) < len(every.failures)
        assert state.failure(shown.job.id) is not None
        assert state.report is None and state.rounds == 0  # no clusters from a part of the failures
        assert state.missing  # the caller asks again

        whole = await state.round(client, projects, [(shown.project_id, shown.project, shown.job)])
        assert whole.complete and state.report is whole and not state.missing
        assert {failure.job.id for failure in whole.failures} == {failure.job.id for failure in every.failures}


async def test_rounds_are_not_cut_short_for_good_where_the_failures_keep_changing(sim: SimServer, tmp_path: Path) -> None:
    fake: FakeTime = fake_clock()
    async with api_client(sim, "user") as client:
        projects = [(pid, sim.state.project_full_path(sim.state.projects[pid])) for pid in FAILING]
        state = Triaging(LogCache(tmp_path), clock=fake.clock)
        assert not (await state.round(client, projects, cut_short=lambda: True)).complete
        fake.now += WHOLE_EVERY  # a newer round waiting every time, a minute long
        whole = await state.round(client, projects, cut_short=lambda: True)
        assert whole.complete and state.report is whole


async def test_an_older_shown_failure_is_worked_out_in_the_first_round_however_many_the_round_lists(
        sim: SimServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The per-round allowance for failures the round does not list was spent on those it lists
    # anyway: with more listed unknown failures than the allowance, an older failed pipeline's cell
    # waited another round.
    monkeypatch.setattr(triaging, "AT_ONCE", 1)
    fake: FakeTime = fake_clock()
    async with api_client(sim, "user") as client:
        projects = [(pid, sim.state.project_full_path(sim.state.projects[pid])) for pid in FAILING]
        every = await Triaging(LogCache(tmp_path / "first"), clock=fake.clock).round(client, projects)
        listed = {failure.job.id for failure in every.failures}
        older = None
        for project_id, path in projects:
            for job in await client.jobs.list(project_id, scope="failed").all():
                if job.id not in listed:
                    older = (project_id, path, job)
                    break
            if older:
                break
        assert older is not None  # else there is nothing the round does not list
        shown = [(failure.project_id, failure.project, failure.job) for failure in every.failures[:2]]

        state = Triaging(LogCache(tmp_path / "second"), clock=fake.clock)
        await state.round(client, projects, [*shown, older])
        assert state.failure(older[2].id) is not None
