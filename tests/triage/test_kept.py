"""When a kept jobs page may stand for a project (:mod:`labdeck.triage.kept`): only when the check
leaves no way for the page to have changed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.triage import kept
from labdeck.triage.collect import Triager
from labdeck.triage.kept import MARGIN, MAX_AGE, Checked, KeptPage, ProjectCheck
from labdeck.triage.logcache import LogCache

READ = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
PAGE = KeptPage(b"[]", READ, pipelines=12, settled=True)


def _check(*, pipelines: int = 12, moved: tuple[datetime | None, ...] = (), count: int | None = None,
           active: int = 0, now: datetime = READ + timedelta(minutes=10)) -> Checked:
    found = ProjectCheck(pipelines, len(moved) if count is None else count, moved, active)
    return Checked(now, READ - MARGIN, {7: found})


def test_a_quiet_project_keeps_its_page() -> None:
    assert PAGE.unchanged(_check(), 7)
    assert PAGE.unchanged(_check(moved=(READ - MARGIN - timedelta(seconds=1),)), 7)  # moved before the read


@pytest.mark.parametrize("check", [
    _check(pipelines=11),  # a pipeline deleted
    _check(pipelines=13),
    _check(moved=(READ,)),  # retried, played, or a new one
    _check(moved=(READ - MARGIN + timedelta(seconds=1),)),  # within the clocks' margin of the read
    _check(moved=(None,)),
    _check(moved=(READ - timedelta(hours=1),) * 10, count=11),  # more moved than listed
    _check(active=1),  # a pipeline at work moves only when its status does
    _check(now=READ + MAX_AGE + timedelta(seconds=1)),
    _check(now=READ - timedelta(seconds=1)),  # a server clock gone back
])
def test_any_sign_of_change_reads_the_page_again(check: Checked) -> None:
    assert not PAGE.unchanged(check, 7)


def test_a_page_at_work_a_missing_answer_or_an_uncounted_page_is_read_again() -> None:
    assert not KeptPage(b"[]", READ, 12, settled=False).unchanged(_check(), 7)
    assert not PAGE.unchanged(_check(), 8)
    assert not KeptPage(b"[]", READ, kept.UNCOUNTED, settled=True).unchanged(_check(pipelines=kept.UNCOUNTED), 7)
    assert not PAGE.unchanged(Checked(READ + timedelta(minutes=1), READ, _check().projects), 7)  # asked too late


def test_pages_and_the_refusal_are_kept_per_instance(tmp_path: Path) -> None:
    cache = LogCache(tmp_path)
    kept.keep(cache, "https://a.example", 7, PAGE)
    assert kept.load(cache, "https://a.example", [7, 8]) == {7: PAGE}
    assert kept.load(cache, "https://b.example", [7]) == {}
    assert not kept.refused(cache, "https://a.example")
    kept.remember_refusal(cache, "https://a.example")
    assert kept.refused(cache, "https://a.example") and not kept.refused(cache, "https://b.example")
    assert not kept.refused(cache, "https://a.example", wall=2e10)  # asked again a day later
    assert KeptPage.from_bytes(b'{"v": 1}\n[]') is None and KeptPage.from_bytes(b"junk") is None


def _server(graphql: httpx.Response, asked: list[str]) -> httpx.MockTransport:
    """A server with one project and no failure, whose GraphQL answers ``graphql``."""

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        if request.url.path == "/api/graphql":
            return graphql
        return httpx.Response(200, json=[], headers={"Date": "Tue, 03 Nov 2026 10:00:00 GMT"})

    return httpx.MockTransport(handler)


@pytest.mark.parametrize(("answer", "remembered"), [
    (httpx.Response(404, json={"error": "404 Not Found"}), True),  # 10.x: no GraphQL
    (httpx.Response(200, json={"errors": [{"message": "Field 'pipelines' doesn't accept argument 'updatedAfter'"}]}),
     True),
    (httpx.Response(200, json={"errors": [{"message": "Query has complexity of 301, which exceeds max complexity of 300"}]}),
     False),
    (httpx.Response(200, json={"errors": [{"message": "Timeout on validation of query"}]}), False),
])
async def test_a_refusal_is_remembered_and_a_passing_error_is_not(answer: httpx.Response, remembered: bool,
                                                                    tmp_path: Path) -> None:
    asked: list[str] = []
    cache = LogCache(tmp_path)
    for _ in range(2):
        async with ApiClient("https://gitlab.example.com", Secret("glpat-x"), read_only=True,
                             transport=_server(answer, asked)) as client:
            report = await Triager(client, cache).round([(7, "web/app")])
        assert report.pages_read == 1 and report.problems == ()
    assert asked.count("/api/graphql") == (1 if remembered else 2)
    assert kept.refused(cache, "https://gitlab.example.com") is remembered


async def test_a_watched_set_over_100_projects_is_checked_in_requests_of_100(tmp_path: Path) -> None:
    asked: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        date = {"Date": "Tue, 03 Nov 2026 10:00:00 GMT"}
        if request.url.path != "/api/graphql":
            return httpx.Response(200, json=[], headers=date)
        ids = json.loads(request.content)["variables"]["ids"]
        asked.append(len(ids))
        nodes = [{"id": gid, "all": {"count": 3}, "moved": {"count": 0, "nodes": []}, "running": {"count": 0},
                  "pending": {"count": 0}} for gid in ids]
        return httpx.Response(200, json={"data": {"projects": {"pageInfo": {"hasNextPage": False}, "nodes": nodes}}},
                              headers=date)

    projects = [(pid, f"group/p{pid}") for pid in range(1, 151)]
    cache = LogCache(tmp_path)
    reports = []
    for _ in range(2):
        async with ApiClient("https://gitlab.example.com", Secret("glpat-x"), read_only=True,
                             transport=httpx.MockTransport(handler)) as client:
            reports.append(await Triager(client, cache).round(projects))
    assert sorted(asked) == [50, 50, 100, 100]
    assert [(r.pages_read, r.pages_unchanged) for r in reports] == [(150, 0), (0, 150)]
