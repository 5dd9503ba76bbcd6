"""A warm round reads only the jobs pages that may have changed: the change check, and the pages kept.

Each jobs page a round reads is kept in the log cache (:meth:`LogCache.put_blob`) with the server's
time of the read and the project's pipeline count from a check made *before* the read. The next
round asks GitLab's GraphQL API about every project in one request per 100 (:data:`CHECK`):

- ``all``: the project's pipelines (a pipeline deleted, or a new one, changes the count);
- ``moved``: pipelines updated after the kept page's read, less :data:`MARGIN` (GitLab saves a
  pipeline, moving its ``updatedAt``, whenever its status changes, and when it is retried or
  canceled: a job retried or played in a finished pipeline moves it). One request asks from the
  oldest kept page's read on, with the times of the first 10 that moved, so that each project is
  judged from its own page's read (more than 10: read again);
- ``running`` and ``pending``: pipelines at work, whose jobs change without moving them (current
  GitLab saves a pipeline only when its own status changes).

A kept page is used as it is only when the project's count is the kept one, nothing moved, nothing
runs or waits, the page itself held no job still at work (:func:`settled`) and it was read less than
:data:`MAX_AGE` ago (what no pipeline records, such as a runner renamed, is read again at least that
often). Anything else reads the page again, so a round with a change answers as a full round.

Servers without this GraphQL refuse the query (GitLab before ``updatedAfter`` on
``Project.pipelines``, added in early 2022 by gitlab-org/gitlab!77396, around 14.8: the release is
not confirmed; 10.x and the spec have no GraphQL): the round reads every page, and the refusal is
kept for :data:`REFUSAL_KEPT` so that later rounds do not ask again.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pydantic

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.api.parsers import build_in_background, parser_for
from labdeck.api.resources.graphql import MAX_FIRST, global_id, graphql_url, number_of
from labdeck.base.when import server_time

if TYPE_CHECKING:
    from labdeck.api.client import ApiClient
    from labdeck.triage.logcache import LogCache
    from labdeck.triage.parsed import ParsedPages

CHECK = """
query($ids: [ID!], $first: Int, $after: String, $since: Time) {
  projects(ids: $ids, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id
      all: pipelines { count }
      moved: pipelines(updatedAfter: $since, first: 10) { count nodes { updatedAt } }
      running: pipelines(status: RUNNING) { count }
      pending: pipelines(status: PENDING) { count } } } }
""".strip()
MARGIN = timedelta(minutes=5)
"""Pipelines updated this long before a kept page was read count as moved since: the servers that
save pipelines (Sidekiq) and the one that dated the page need not share a clock to the second."""
MAX_AGE = timedelta(hours=1)
"""A kept page older than this (server time) is read again whatever the check says."""
REFUSAL_KEPT = 24 * 3600.0
"""Seconds a server's refusal of the check is remembered (it is asked again after a day: an upgrade)."""
SETTLED = frozenset({"success", "failed", "canceled", "skipped", "manual"})
"""Job statuses that change only through something that moves the pipeline (a retry, a play)."""
_PASSING = re.compile(r"complexity|time ?out|timed out|internal server error|try again", re.IGNORECASE)
"""GraphQL errors that say nothing about what the server offers (never remembered as a refusal)."""
CHECKS_AT_ONCE = 4
"""Check requests in flight (a watched set of 2,000 projects is 20 of them)."""
_FORMAT = 1
_PAGE_KEY = "jobs-page-100"
_REFUSED_KEY = "no-pipeline-check"
_PROJECTS_KEY = "watched-projects"


@dataclass(frozen=True)
class ProjectCheck:
    """What the check said about one project."""

    pipelines: int
    moved: int
    """Pipelines updated after the check's ``since``."""
    moved_at: tuple[datetime | None, ...]
    """The ``updatedAt`` of the first of them (up to 10)."""
    active: int
    """Pipelines running or pending."""

    def moved_after(self, when: datetime) -> bool:
        """Whether a pipeline moved after ``when`` (not all of them known: yes)."""
        if self.moved > len(self.moved_at):
            return True
        return any(at is None or at > when for at in self.moved_at)


@dataclass(frozen=True)
class Checked:
    """One check over a set of projects: ``now`` is the server's clock when it answered."""

    now: datetime
    since: datetime | None
    """What ``moved`` counts from (None: every pipeline, when no page was kept)."""
    projects: Mapping[int, ProjectCheck]


@dataclass(frozen=True)
class KeptPage:
    """A jobs page as a round read it (``body``: the server's JSON, parsed only when used)."""

    body: bytes
    read_at: datetime
    pipelines: int
    settled: bool

    def to_bytes(self) -> bytes:
        """The file's content: one line of JSON, then the body."""
        meta = {"v": _FORMAT, "read_at": self.read_at.isoformat(), "pipelines": self.pipelines,
                "settled": self.settled}
        return json.dumps(meta).encode() + b"\n" + self.body

    @classmethod
    def from_bytes(cls, data: bytes | None) -> KeptPage | None:
        """The page in a file written by :meth:`to_bytes` (None when there is none or it is damaged)."""
        if not data:
            return None
        head, _, body = data.partition(b"\n")
        try:
            meta = json.loads(head)
            if meta.get("v") != _FORMAT:
                return None
            read_at = datetime.fromisoformat(str(meta["read_at"]))
            return cls(body, read_at if read_at.tzinfo else read_at.replace(tzinfo=UTC), int(meta["pipelines"]),
                       bool(meta["settled"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def usable(self, now: datetime) -> bool:
        """Whether a check may let this page stand for the project (settled, young enough)."""
        return self.settled and timedelta(0) <= now - self.read_at <= MAX_AGE

    def unchanged(self, check: Checked, project_id: int) -> bool:
        """Whether ``check`` says nothing on this page can have changed since it was read."""
        found = check.projects.get(project_id)
        return (found is not None and self.usable(check.now) and check.since is not None
                and check.since <= self.read_at - MARGIN and found.pipelines == self.pipelines != UNCOUNTED
                and not found.moved_after(self.read_at - MARGIN) and found.active == 0)

    def jobs(self) -> tuple[Job, ...] | None:
        """The page's jobs (None when the body no longer parses: read it again)."""
        try:
            return tuple(parser_for(list[Job]).validate_json(self.body))
        except (pydantic.ValidationError, ValueError):
            return None


UNCOUNTED = -1
"""The pipeline count of a page read before the check answered: never taken as unchanged."""


def settled(jobs: Iterable[Job]) -> bool:
    """Whether no job on the page is still at work (see :data:`SETTLED`)."""
    return all(job.status in SETTLED for job in jobs)


def load(cache: LogCache, instance: str, project_ids: Sequence[int]) -> dict[int, KeptPage]:
    """The kept pages of these projects (blocking file reads: call it in a thread)."""
    found: dict[int, KeptPage] = {}
    for project_id in project_ids:
        page = KeptPage.from_bytes(cache.get_blob(instance, f"{int(project_id)}\0{_PAGE_KEY}"))
        if page is not None:
            found[project_id] = page
    return found


def keep(cache: LogCache, instance: str, project_id: int, page: KeptPage) -> None:
    """Keep a page a round read (blocking: call it in a thread)."""
    cache.put_blob(instance, f"{int(project_id)}\0{_PAGE_KEY}", page.to_bytes())


def refused(cache: LogCache, instance: str, *, wall: float | None = None) -> bool:
    """Whether this server refused the check less than :data:`REFUSAL_KEPT` ago (blocking)."""
    data = cache.get_blob(instance, _REFUSED_KEY)
    try:
        since = float(data or b"")
    except ValueError:
        return False
    return 0 <= (wall if wall is not None else time.time()) - since < REFUSAL_KEPT


def remember_projects(cache: LogCache, instance: str, projects: Sequence[tuple[int, str]]) -> None:
    """Keep the projects a round covered (blocking): the next round starts its check with them
    while it lists the watched set again."""
    cache.put_blob(instance, _PROJECTS_KEY, json.dumps([[int(pid), str(path)] for pid, path in projects]).encode())


def remembered_projects(cache: LogCache, instance: str) -> list[tuple[int, str]]:
    """The projects :func:`remember_projects` kept ([] when none, or unreadable)."""
    try:
        items = json.loads(cache.get_blob(instance, _PROJECTS_KEY) or b"[]")
        return [(int(pid), str(path)) for pid, path in items]
    except (ValueError, TypeError):
        return []


def remember_refusal(cache: LogCache, instance: str) -> None:
    """Remember that this server refused the check (blocking)."""
    cache.put_blob(instance, _REFUSED_KEY, str(time.time()).encode())


class CheckRefused(errors.ApiError):
    """The server has no usable pipeline check (no GraphQL, or one without these arguments)."""


def _times(node: Any) -> tuple[datetime | None, ...]:
    """The ``updatedAt`` of each node of a connection (None for one that does not parse)."""
    nodes = node.get("nodes") if isinstance(node, dict) else None
    found: list[datetime | None] = []
    for item in nodes if isinstance(nodes, list) else []:
        stamp = item.get("updatedAt") if isinstance(item, dict) else None
        try:
            at = datetime.fromisoformat(str(stamp).replace("Z", "+00:00")) if stamp else None
        except ValueError:
            at = None
        found.append(at if at is None or at.tzinfo else at.replace(tzinfo=UTC))
    return tuple(found)


def _count(node: Any, name: str) -> int | None:
    value = node.get(name) if isinstance(node, dict) else None
    count = value.get("count") if isinstance(value, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


async def check(client: ApiClient, project_ids: Sequence[int], since: datetime | None) -> Checked:
    """Ask about ``project_ids`` (see the module docstring), :data:`CHECKS_AT_ONCE` requests of 100
    at a time. Raises :class:`CheckRefused` when the server has no such check to offer, and the
    client's errors for the rest (a server down …)."""
    stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if since is not None else None
    gate = asyncio.Semaphore(CHECKS_AT_ONCE)

    async def chunk(ids: list[str]) -> tuple[datetime, dict[int, ProjectCheck]]:
        async with gate:
            return await _check_chunk(client, ids, stamp)

    chunks = [[global_id("Project", pid) for pid in project_ids[start:start + MAX_FIRST]]
              for start in range(0, len(project_ids), MAX_FIRST)]
    answers = await asyncio.gather(*(chunk(ids) for ids in chunks))
    projects = {pid: found for _, part in answers for pid, found in part.items()}
    return Checked(min((now for now, _ in answers), default=datetime.now(UTC)), since, projects)


async def _check_chunk(client: ApiClient, ids: list[str], stamp: str | None) -> tuple[datetime, dict[int, ProjectCheck]]:
    """One request (more when the server pages smaller) about up to 100 projects: the server's
    clock when it answered, and what it said of each project."""
    url = graphql_url(client)
    projects: dict[int, ProjectCheck] = {}
    now: datetime | None = None
    after: str | None = None
    for _ in range(len(ids) + 1):
        variables = {"ids": ids, "first": len(ids), "after": after, "since": stamp}
        try:
            response = await client.request("POST", url, json={"query": CHECK, "variables": variables})
        except (errors.Unauthorized, errors.Forbidden, errors.NotFound) as exc:
            raise CheckRefused(exc.user_message(), method="POST", url=url) from None
        answered = server_time(response.headers.get("date"))
        now = answered if now is None else min(now, answered)
        try:
            body = response.json()
        except ValueError:
            raise CheckRefused("the GraphQL answer was not JSON", method="POST", url=url) from None
        if not isinstance(body, dict) or body.get("errors") or not isinstance(body.get("data"), dict):
            problems = str(body.get("errors") if isinstance(body, dict) else body)[:160]
            if _PASSING.search(problems):
                # Not a missing field or argument: this round reads every page, the next asks again.
                raise errors.ApiError(f"GraphQL: {problems}", method="POST", url=url)
            raise CheckRefused(f"GraphQL: {problems}", method="POST", url=url)
        listing = body["data"].get("projects") or {}
        for node in listing.get("nodes") or []:
            pid = number_of(node.get("id")) if isinstance(node, dict) else None
            counts = [_count(node, name) for name in ("all", "moved", "running", "pending")]
            if pid is not None and all(count is not None for count in counts):
                total, moved, running, pending = (int(count or 0) for count in counts)
                projects[pid] = ProjectCheck(total, moved, _times(node.get("moved")), running + pending)
        info = listing.get("pageInfo") or {}
        if not info.get("hasNextPage") or not info.get("endCursor"):
            break
        after = str(info["endCursor"])
    return now or datetime.now(UTC), projects


def since_for(kept: Mapping[int, KeptPage]) -> datetime | None:
    """What the check's ``moved`` counts from: the oldest read among the settled kept pages (those
    within :data:`MAX_AGE` of the newest: older ones are read again anyway), less :data:`MARGIN`."""
    reads = [page.read_at for page in kept.values() if page.settled]
    if not reads:
        return None
    newest = max(reads)
    return min(read for read in reads if newest - read <= MAX_AGE) - MARGIN


class Look:
    """One change check under way over a set of projects (see the module docstring): the pages kept
    for them (:attr:`loaded`, read from the cache first), then the server's answer (:attr:`answer`,
    None without one). The settled pages are parsed while the check is on its way."""

    def __init__(self, client: ApiClient, cache: LogCache | None, project_ids: Sequence[int],
                 parsed: ParsedPages | None = None) -> None:
        loop = asyncio.get_running_loop()
        self._parsed = parsed
        """Pages parsed before: a kept page whose body is unchanged is not parsed again."""
        self.loaded: asyncio.Future[dict[int, KeptPage]] = loop.create_future()
        self.answer: asyncio.Future[Checked | None] = loop.create_future()
        self._jobs: dict[int, tuple[Job, ...]] = {}
        self.task = asyncio.ensure_future(self._run(client, cache, list(project_ids)))

    async def _run(self, client: ApiClient, cache: LogCache | None, project_ids: list[int]) -> None:
        request: asyncio.Future[Checked] | None = None
        try:
            if cache is None:
                return  # the caller builds the validator
            instance = client.base_url

            def look() -> dict[int, KeptPage] | None:
                return None if refused(cache, instance) else load(cache, instance, project_ids)

            found = await asyncio.to_thread(look)
            if found is None:
                build_in_background(list[Job])
                return
            self.loaded.set_result(found)
            request = asyncio.ensure_future(check(client, project_ids, since_for(found)))
            # While the check is on its way: the validator in a thread (once per process), then
            # the pages one at a time on the loop, which answers between two (a parsing thread
            # and the loop would only take turns at the GIL, 5 ms at a time).
            await asyncio.to_thread(parser_for, list[Job])
            for project_id, page in found.items():
                jobs = None
                if page.settled:
                    jobs = self._parsed.parse(project_id, page.body) if self._parsed is not None else page.jobs()
                if jobs is not None:
                    self._jobs[project_id] = jobs
                await asyncio.sleep(0)
            try:
                self.answer.set_result(await request)
            except CheckRefused:
                await asyncio.to_thread(remember_refusal, cache, instance)
            except errors.ApiError:
                pass  # the reads say what is wrong
        finally:
            if request is not None and not request.done():
                request.cancel()
            if not self.loaded.done():
                self.loaded.set_result({})
            if not self.answer.done():
                self.answer.set_result(None)

    def unchanged(self, project_id: int) -> tuple[Job, ...] | None:
        """The kept page's jobs when the answer (which must be in) shows the project unchanged."""
        checked = self.answer.result()
        held = self.loaded.result().get(project_id)
        if checked is None or held is None or not held.unchanged(checked, project_id):
            return None
        return self._jobs.get(project_id)

    def cancel(self) -> None:
        """Stop the check (its futures answer "nothing kept", "no answer")."""
        if not self.task.done():
            self.task.cancel()
        elif not self.task.cancelled():
            self.task.exception()  # retrieved: no "never retrieved" warning at exit
