"""A triage round with the API client: one jobs page per project, plus a log read only for the
failures ``failure_reason`` does not explain (finished logs come from :class:`LogCache` once kept).
With a cache, the pages a round read are kept too, and the next round reads again only those a
change check (one GraphQL request per 100 projects on GitLab) does not show unchanged
(:mod:`labdeck.triage.kept`).

:class:`Triager` is what the UI and ``labdeck triage`` use:

- :meth:`Triager.round`: failures with verdicts, clusters and runner shares for a set of projects;
- :meth:`Triager.failure`: the verdict for one job, given the project's jobs the caller holds;
- :meth:`Triager.log_facts`: a failed job's error, signature and platform pattern (cache first).

Which failures a round lists (:func:`newest_failures`): per project, ref and job name, the newest
pipeline in the window in which the job failed, unless a later pipeline's run of it passed;
failures allowed to fail are left out.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.api.parsers import build_in_background
from labdeck.api.resources.base import ref
from labdeck.base.when import server_time
from labdeck.triage import kept
from labdeck.triage.history import pipeline_id, runs, same_job
from labdeck.triage.logcache import LogCache
from labdeck.triage.owners import RunnerShare, owner, runner_shares
from labdeck.triage.parsed import ParsedPages, digest
from labdeck.triage.report import Failure, TriageReport, cluster
from labdeck.triage.signature import (
    LogFacts,
    facts_from_json,
    facts_json,
    platform_failure,
    read_log,
)
from labdeck.triage.verdict import decide

if TYPE_CHECKING:
    import httpx

    from labdeck.api.client import ApiClient

T = TypeVar("T")
CONCURRENCY = 8
"""Log reads in flight."""
PAGE_CONCURRENCY = 20
"""Jobs pages in flight: small JSON answers, where the round's time goes on a slow server."""
PAGE_SIZE = 100


@dataclass(frozen=True)
class ProjectJobs:
    """One project's jobs page (every attempt, newest first as the server lists them)."""

    project_id: int
    path: str
    jobs: tuple[Job, ...]
    now: datetime
    """The server's clock when it answered (its ``Date`` header): windows are measured from it."""


def in_window(jobs: Iterable[Job], since: datetime | None) -> list[Job]:
    """Jobs created at or after ``since`` (every job when None; a job without a time is kept)."""
    if since is None:
        return list(jobs)
    return [job for job in jobs if job.created_at is None or job.created_at >= since]


def newest_failures(jobs: Sequence[Job]) -> list[Job]:
    """The failures a round reports (see the module docstring), newest pipeline first."""
    chosen: list[Job] = []
    keys = {(job.ref, job.name) for job in jobs if job.status == "failed" and not job.allow_failure}
    for job_ref, name in keys:
        attempts = same_job(jobs, name, job_ref)
        history = runs(attempts)
        failed_pipelines = {pipeline_id(job) for job in attempts if job.status == "failed" and not job.allow_failure}
        newest = max(failed_pipelines)
        if any(run.pipeline_id > newest and run.status == "success" for run in history):
            continue
        in_pipeline = [job for job in attempts if pipeline_id(job) == newest and job.status == "failed"]
        chosen.append(in_pipeline[-1] if in_pipeline[-1:] else attempts[-1])
    return sorted(chosen, key=lambda job: (-pipeline_id(job), job.name or ""))


def with_job(jobs: tuple[Job, ...], job: Job) -> tuple[Job, ...]:
    """``jobs`` (a project's page), with ``job`` added when the page does not hold it (a failure
    older than the page's hundred jobs): its verdict reads its history from them."""
    return jobs if any(known.id == job.id for known in jobs) else (*jobs, job)


def last_green(jobs: Iterable[Job], job: Job) -> Job | None:
    """The newest attempt of ``job``'s name on its ref that passed before it (an earlier pipeline,
    or an earlier attempt in its own): the green run whose log is the baseline."""
    pid = pipeline_id(job)
    passed = [other for other in same_job(jobs, job.name, job.ref)
              if other.status == "success" and other.id != job.id
              and (pipeline_id(other) < pid or (pipeline_id(other) == pid and other.id < job.id))]
    return max(passed, key=lambda other: (pipeline_id(other), other.id), default=None)


def not_read(exc: errors.ApiError) -> str:
    """Why a log could not be read, short: ``500``, ``no answer within 30 s``."""
    if isinstance(exc, errors.HttpError):
        return str(exc.status)
    return exc.message or type(exc).__name__


async def _bounded(calls: Sequence[Callable[[], Awaitable[T]]], limit: int = CONCURRENCY, *,
                   stop: Callable[[], bool] | None = None) -> list[T]:
    """Run ``calls``, ``limit`` at a time, in order; once ``stop()`` says so, those not begun are
    left out (the answers of the others come back in their order)."""
    gate = asyncio.Semaphore(limit)
    skipped = object()

    async def one(call: Callable[[], Awaitable[T]]) -> T | object:
        async with gate:
            if stop is not None and stop():
                return skipped
            return await call()

    return [answer for answer in await asyncio.gather(*(one(call) for call in calls)) if answer is not skipped]  # type: ignore[misc]


class Triager:
    """Verdicts with the API client and a finished-log cache (``cache=None``: no cache)."""

    def __init__(self, client: ApiClient, cache: LogCache | None = None, *, parsed: ParsedPages | None = None) -> None:
        self.client = client
        self.cache = cache
        self.parsed = parsed
        """Pages parsed by earlier rounds (:mod:`labdeck.triage.parsed`): an unchanged body is not parsed again."""
        self.logs_read = 0
        """Logs fetched from the server by this triager (cache hits excluded)."""
        self._ahead: dict[int, asyncio.Future[ProjectJobs]] = {}
        self._kept: dict[tuple[int, int, str], object] = {}
        """Facts read from the cache for a round, in one thread hop (:meth:`_read_kept`)."""
        self.pages_from_server: dict[int, ProjectJobs] = {}
        """The jobs pages this triager read from the server, or found unchanged since a round kept
        them (not those handed to it), by project."""
        self.pages_fetched = 0
        """Jobs pages read from the server by this triager."""
        self.pages_unchanged = 0
        """Kept jobs pages the change check let stand (not read again)."""
        self._checks: list[kept.Look] = []
        self._gate: asyncio.Semaphore | None = None
        self._bodies: dict[int, bytes] = {}
        """Bodies of the pages read for :meth:`_kept_or_read` (to keep), until it takes them."""
        self._keeping: set[int] = set()
        self._reading: dict[tuple[int, int], asyncio.Task[bytes]] = {}
        """Logs being read now, by (project id, job id)."""
        self._waiting: dict[asyncio.Task[bytes], int] = {}
        """Callers awaiting each read of :attr:`_reading`."""

    def read_ahead(self, projects: Sequence[tuple[int, str]]) -> None:
        """Start reading these projects' jobs pages now (the change check, then :data:`PAGE_CONCURRENCY`
        reads at a time), while the caller is still listing the rest of the set; the next
        :meth:`round` over them uses the pages read (``labdeck triage``: the ``w``-added projects
        are known before the starred listing answers). :meth:`drop_read_ahead` cancels what no
        round used."""
        self._start([(project_id, path) for project_id, path in projects if project_id not in self._ahead])

    def _start(self, projects: Sequence[tuple[int, str]]) -> None:
        """One change check over ``projects``, then a read of each page it does not let stand."""
        if not projects:
            return
        if self.cache is None:
            # While the first answers are on the way (with a cache, the check builds it in a thread
            # while its request is on the way, before it parses the kept pages).
            build_in_background(list[Job])
        if self._gate is None:
            self._gate = asyncio.Semaphore(PAGE_CONCURRENCY)
        look = kept.Look(self.client, self.cache, [project_id for project_id, _ in projects], self.parsed)
        self._checks.append(look)
        for project_id, path in dict(projects).items():
            self._ahead[project_id] = asyncio.ensure_future(self._kept_or_read(project_id, path, look))

    async def _kept_or_read(self, project_id: int, path: str, look: kept.Look) -> ProjectJobs:
        """The kept page when the check shows it unchanged, else the page read (and kept)."""
        # shield: one project's read cancelled leaves the others' check alone.
        held = (await asyncio.shield(look.loaded)).get(project_id)
        if held is None or held.settled:
            # A page at work when it was kept is read without waiting for the check: it changes.
            checked = await asyncio.shield(look.answer)
            jobs = look.unchanged(project_id)
            if checked is not None and jobs is not None:
                self.pages_unchanged += 1
                page = self.pages_from_server[project_id] = ProjectJobs(project_id, path, jobs, checked.now)
                return page
        assert self._gate is not None
        async with self._gate:
            answered = look.answer.done()
            self._keeping.add(project_id)
            try:
                page = await self.page(project_id, path)
            finally:
                self._keeping.discard(project_id)
        body = self._bodies.pop(project_id, None)
        checked = await asyncio.shield(look.answer)
        counted = checked.projects.get(project_id) if checked is not None else None
        if self.cache is not None and counted is not None and body is not None:
            # Only a count from before the read lets the page stand next time (a pipeline deleted
            # between the read and the count would not show in the page).
            await asyncio.to_thread(kept.keep, self.cache, self.client.base_url, project_id,
                                    kept.KeptPage(body, page.now, counted.pipelines if answered else kept.UNCOUNTED,
                                                  kept.settled(page.jobs)))
        return page

    def use_pages(self, pages: Mapping[int, ProjectJobs]) -> None:
        """Let the next :meth:`round` take these projects' pages as they are (read a moment ago by
        another triager: reading them again within seconds tells nothing new)."""
        loop = asyncio.get_running_loop()
        for project_id, page in pages.items():
            if project_id not in self._ahead:
                held: asyncio.Future[ProjectJobs] = loop.create_future()
                held.set_result(page)
                self._ahead[project_id] = held

    def drop_read_ahead(self) -> None:
        """Cancel the pages read ahead that no round used (their errors are dropped with them)."""
        for ahead in self._ahead.values():
            if not ahead.done():
                ahead.cancel()
            elif not ahead.cancelled():
                ahead.exception()  # retrieved: no "never retrieved" warning at exit
        for look in self._checks:
            look.cancel()
        self._ahead.clear()
        self._checks.clear()

    def _jobs_of(self, project_id: int, response: httpx.Response) -> tuple[Job, ...]:
        if self.parsed is None:
            return tuple(self.client.parse(response, list[Job]))
        fingerprint = digest(response.content)
        jobs = self.parsed.get(project_id, fingerprint)
        if jobs is None:
            jobs = tuple(self.client.parse(response, list[Job]))
            self.parsed.put(project_id, fingerprint, jobs)
        return jobs

    async def _page_for_round(self, project_id: int, path: str) -> ProjectJobs:
        ahead = self._ahead.pop(project_id, None)
        if ahead is None:
            self._start([(project_id, path)])
            ahead = self._ahead.pop(project_id)
        page = await ahead
        # The round's path wins (a starred project's listing names it the same, or newer).
        return page if page.path == path else replace(page, path=path)

    async def page(self, project_id: int, path: str) -> ProjectJobs:
        """One jobs page of a project (``GET /projects/:id/jobs?per_page=100``; retried attempts included)."""
        response = await self.client.request("GET", f"projects/{ref(project_id)}/jobs", params={"per_page": PAGE_SIZE})
        jobs = self._jobs_of(project_id, response)
        page = self.pages_from_server[project_id] = ProjectJobs(project_id, path, jobs,
                                                          server_time(response.headers.get("date")))
        self.pages_fetched += 1
        if project_id in self._keeping:
            self._bodies[project_id] = response.content  # kept by the caller when the check counted it
        return page

    async def log_facts(self, project_id: int, job: Job, jobs: Sequence[Job] = ()) -> LogFacts:
        """What a finished job's log says (see :mod:`labdeck.triage.signature`): the facts kept in
        the cache, else the log (cache, else one read) read against the log of the job's last green
        run on the same ref among ``jobs`` (:func:`last_green`; cached like any finished log)."""
        instance = self.client.base_url
        passing = last_green(jobs, job)
        variant = str(passing.id) if passing is not None else ""
        if self.cache is not None:
            key = (project_id, job.id, variant)
            raw = (self._kept.pop(key) if key in self._kept
                   else await asyncio.to_thread(self.cache.get_facts, instance, project_id, job.id, variant))
            kept = facts_from_json(raw)
            if kept is not None:
                return kept
        data = await self.log_bytes(project_id, job)
        baseline: bytes | None = None
        if passing is not None:
            try:
                baseline = await self.log_bytes(project_id, passing)
            except errors.Unauthorized:
                raise
            except errors.ApiError:
                baseline = None  # no comparison with the green run, but still an answer
        facts = await asyncio.to_thread(read_log, data, baseline,
                                        passing_job=passing.id if passing is not None and baseline is not None else None)
        if self.cache is not None and job.finished_at is not None and (passing is None or baseline is not None):
            await asyncio.to_thread(self.cache.put_facts, instance, project_id, job.id, facts_json(facts), variant)
        return facts

    async def log_bytes(self, project_id: int, job: Job) -> bytes:
        """A job's log: from the cache, else read from the server (and kept once the job finished).
        Asked for again while it is being read (the green run two failures compare with), the
        same read answers both: a second read cost a second token of the budget."""
        key = (project_id, job.id)
        reading = self._reading.get(key)
        if reading is None or reading.cancelling():  # one being stopped (its last caller gone) is not joined
            reading = self._reading[key] = asyncio.ensure_future(self._log_bytes(project_id, job))
            reading.add_done_callback(functools.partial(self._read_done, key))
        self._waiting[reading] = self._waiting.get(reading, 0) + 1
        try:
            return await asyncio.shield(reading)
        except asyncio.CancelledError:
            # The last caller gone (its round cancelled): nobody wants the log, so its read
            # stops too instead of spending a token of the budget and a cache write.
            if self._waiting[reading] == 1:
                reading.cancel()
            raise
        finally:
            self._waiting[reading] -= 1
            if not self._waiting[reading]:
                del self._waiting[reading]

    def _read_done(self, key: tuple[int, int], reading: asyncio.Task[bytes]) -> None:
        if self._reading.get(key) is reading:
            del self._reading[key]
        if not reading.cancelled():
            reading.exception()  # retrieved: its callers, if any are left, get it too

    async def _log_bytes(self, project_id: int, job: Job) -> bytes:
        instance = self.client.base_url
        data = await asyncio.to_thread(self.cache.get, instance, project_id, job.id) if self.cache is not None else None
        if data is None:
            read = await self.client.jobs.trace(project_id, job.id)
            data = read.data
            self.logs_read += 1
            if self.cache is not None and job.finished_at is not None:
                await asyncio.to_thread(self.cache.put, instance, project_id, job.id, data)
        return data

    async def _read_kept(self, wanted: Sequence[tuple[int, Job, Sequence[Job]]]) -> None:
        """The cached facts of the round's failures, read in one thread hop (one hop per failure
        was most of a warm round's time after its pages); :meth:`log_facts` takes them from there."""
        cache = self.cache
        if cache is None or not wanted:
            return
        instance = self.client.base_url
        keys = []
        for project_id, job, jobs in wanted:
            passing = last_green(jobs, job)
            keys.append((project_id, job.id, str(passing.id) if passing is not None else ""))

        def read() -> dict[tuple[int, int, str], object]:
            return {key: cache.get_facts(instance, *key) for key in keys}

        self._kept.update(await asyncio.to_thread(read))

    def needs_log(self, job: Job) -> bool:
        """Whether ``failure_reason`` leaves the failure unexplained (so the log must decide)."""
        return not platform_failure(job.failure_reason)

    async def failure(self, project_id: int, path: str, job: Job, jobs: Sequence[Job], *,
                      shares: dict[int, RunnerShare] | None = None) -> Failure:
        """The verdict for failed ``job`` given ``jobs`` (its project's page, within the window).
        A log that was needed and could not be read makes the verdict ``unknown`` and says why
        (:attr:`Failure.problem`): never a silent change of verdict."""
        facts: LogFacts | None = None
        problem = ""
        if self.needs_log(job):
            try:
                facts = await self.log_facts(project_id, job, jobs)
            except errors.Unauthorized:
                raise  # the token, not this log: nothing else will read either
            except errors.ApiError as exc:
                problem = not_read(exc)
        verdict = decide(job, jobs, facts, log_problem=problem)
        if facts is not None:
            signature = facts.signature
        else:
            signature = "" if problem else (job.failure_reason or "")  # an identifier: nothing volatile
        return Failure(path, project_id, job, verdict, signature,
                       owner(verdict, job, path, shares if shares is not None else runner_shares(jobs)),
                       facts, facts is not None, problem)

    async def round(self, projects: Sequence[tuple[int, str]], *,
                    since: timedelta | datetime | None = None, first: Collection[int] = (),
                    also: Sequence[tuple[int, Job]] = (), also_at_most: int | None = None,
                    on_first: Callable[[list[Failure]], None] | None = None,
                    cut_short: Callable[[], bool] | None = None) -> TriageReport:
        """Triage ``projects`` (id, path): one jobs page each, logs only where needed. ``since``: the
        window's start, or its length before the server's clock.

        What the caller shows comes first: ``first``, ids of the failed jobs it shows (the board's
        failing pipelines), and ``also``, (project id, job) of shown failed jobs the round may not
        list (an older failed pipeline of the same ref). Their verdicts are worked out before the
        window's other failures (those feed the clusters) and handed to ``on_first`` as soon as
        known; those of ``also`` the round does not list go only there, at most ``also_at_most`` of
        them (counted after those it lists are set aside). Where the budget lets
        triage read a log every few seconds, the other failures' logs (and their green runs') came
        first in page order, and the board's ``Why`` cells waited a minute and more for verdicts
        ``labdeck triage`` gave at once. Once ``cut_short()`` says so (a newer round is waiting),
        the other failures not begun are left for it and the report is not
        :attr:`~TriageReport.complete`."""
        before, read_before, unchanged_before = self.logs_read, self.pages_fetched, self.pages_unchanged
        problems: list[str] = []

        async def read(project_id: int, path: str) -> ProjectJobs | None:
            try:
                return await self._page_for_round(project_id, path)
            except (errors.Unauthorized, errors.TransportError, errors.TlsConfigError):
                raise  # the token or the server, not the project: nothing else will read either
            except errors.ApiError as exc:
                problems.append(f"{path}: {exc.user_message()}")
                return None

        self._start([(project_id, path) for project_id, path in projects if project_id not in self._ahead])
        # Every read waits its turn at the triager's gate (PAGE_CONCURRENCY), the check first.
        pages = [page for page in await asyncio.gather(*(read(*p) for p in projects)) if page is not None]
        for look in self._checks:
            if look.task.done():
                look.cancel()  # retrieves what it raised, if anything
        self._checks = [look for look in self._checks if not look.task.done()]
        everything = [job for page in pages for job in page.jobs]
        shares = runner_shares(everything)
        calls: list[Callable[[], Awaitable[Failure]]] = []
        early: list[Callable[[], Awaitable[Failure]]] = []
        wanted: list[tuple[int, Job, Sequence[Job]]] = []
        windows: dict[int, tuple[Job, ...]] = {}
        listed: set[int] = set()
        for page in pages:
            window = in_window(page.jobs, page.now - since if isinstance(since, timedelta) else since)
            windows[page.project_id] = tuple(window)
            # The window picks which failures to report; their history and verdict read the whole
            # page, so a failure that began before the window still says since when it is broken.
            for job in newest_failures(window):
                listed.add(job.id)
                if self.needs_log(job):
                    wanted.append((page.project_id, job, page.jobs))
                work = functools.partial(self.failure, page.project_id, page.path, job, page.jobs, shares=shares)
                (early if job.id in first else calls).append(work)
        by_project = {page.project_id: page for page in pages}
        shown_only: list[Callable[[], Awaitable[Failure]]] = []
        for project_id, job in also:
            its = by_project.get(project_id)
            if also_at_most is not None and len(shown_only) >= also_at_most:
                break
            if its is not None and job.id not in listed:
                shown_only.append(functools.partial(self.failure, project_id, its.path, job, with_job(its.jobs, job),
                                                    shares=shares))
        await self._read_kept(wanted)
        try:
            answers = await _bounded([*early, *shown_only])
            if on_first is not None and answers:
                on_first(answers)
            failures = answers[:len(early)]
            rest = await _bounded(calls, stop=cut_short)
            complete = len(rest) == len(calls)
            failures += rest
        finally:
            self._kept.clear()
        failures.sort(key=lambda f: (f.project, f.job.ref or "", f.job.name or ""))
        problems += [f"{f.project}: job #{f.job.id} {f.job.name or ''}: log not read: {f.problem}"
                     for f in failures if f.problem]
        return TriageReport(tuple(failures), tuple(cluster(failures)), shares, tuple(problems),
                            projects=len(projects), logs_read=self.logs_read - before, pages=windows,
                            pages_read=self.pages_fetched - read_before,
                            pages_unchanged=self.pages_unchanged - unchanged_before, complete=complete)

