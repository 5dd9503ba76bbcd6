"""A board left open for days keeps the verdicts it can still show, not every one it ever worked
out (issue 29, point 6: RSS kept growing on a board left open a simulated day and more)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from labdeck.triage.report import TriageReport
from labdeck.ui.triaging import Triaging


class _Fake:
    """What :class:`Triaging` asks of a triager besides its rounds: no pages read, none reused."""

    pages_from_server: dict[int, Any] = {}

    def use_pages(self, pages: Any) -> None:
        pass


class _Rounds(_Fake):
    """A triager whose every round finds ten new failed jobs in project 1 (their page replaces
    the last): the simulator's CI failing on, hour after hour."""

    def __init__(self) -> None:
        self.next_id = 1

    async def round(self, projects: Any, since: Any, **_: Any) -> TriageReport:
        jobs = tuple(SimpleNamespace(id=job_id, status="failed") for job_id in range(self.next_id, self.next_id + 10))
        self.next_id += 10
        failures = tuple(SimpleNamespace(job=job) for job in jobs)
        return TriageReport(failures=failures, clusters=(), runners={}, pages={1: jobs})  # type: ignore[arg-type]


async def test_verdicts_of_jobs_gone_from_every_page_and_round_are_not_kept(tmp_path: Any) -> None:
    from labdeck.triage.logcache import LogCache

    rounds = _Rounds()
    triaging = Triaging(LogCache(tmp_path))
    triaging.triager = lambda client: rounds  # type: ignore[assignment,method-assign,return-value]
    for _ in range(50):
        await triaging.round(None, [(1, "group/one")])  # type: ignore[arg-type]
    assert sorted(triaging.failures) == list(range(491, 501))  # the last round's, on its page
    assert triaging.failure(500) is not None and triaging.failure(1) is None


class _Wandering(_Fake):
    """A triager whose every round is over one project the last did not read: a board of many
    projects where each fails once, then is green again."""

    async def round(self, projects: Any, since: Any, **_: Any) -> TriageReport:
        ((project_id, _path),) = projects
        jobs = tuple(SimpleNamespace(id=project_id * 1000 + n, status="success") for n in range(100))
        return TriageReport(failures=(), clusters=(), runners={}, pages={project_id: jobs})  # type: ignore[arg-type]


async def test_jobs_pages_of_projects_no_round_reads_and_no_screen_uses_are_not_kept(tmp_path: Any) -> None:
    from labdeck.triage.logcache import LogCache

    triaging = Triaging(LogCache(tmp_path))
    triaging.triager = lambda client: _Wandering()  # type: ignore[assignment,method-assign,return-value]
    await triaging.round(None, [(1, "group/p1")])  # type: ignore[arg-type]
    assert triaging.page(1) is not None  # a screen (the job detail of project 1) uses its page
    for project_id in range(2, 300):
        await triaging.round(None, [(project_id, f"group/p{project_id}")])  # type: ignore[arg-type]
    assert sorted(triaging.pages) == [299]  # not 299 pages of a hundred jobs each
    await triaging.round(None, [(5, "group/p5")])  # type: ignore[arg-type]
    assert triaging.page(5) is not None and triaging.page(299) is None
