"""The console's side of triage (:mod:`labdeck.triage`): why the board's failures failed, whose they
are, which failures form clusters across projects, and which runners fail well above the fleet.

One :class:`Triaging` per app (:func:`triaging`), shared by the board, the pipeline view, the jobs
table, the job detail, the log viewer and the runners screen. It holds the latest round's report and
the verdicts worked out since, and a private cache of finished logs (a finished log is read once).
Every read happens in the calling screen's workers; nothing here blocks the event loop, and a
verdict that is not known yet is ``None`` (shown as ``…``), never a guess.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from labdeck.api import ApiClient
from labdeck.api.models import Job
from labdeck.triage.collect import ProjectJobs, Triager, with_job
from labdeck.triage.history import History, job_history
from labdeck.triage.logcache import LogCache
from labdeck.triage.owners import RunnerShare, runner_shares
from labdeck.triage.parsed import ParsedPages
from labdeck.triage.report import Failure, TriageReport

log = logging.getLogger("labdeck.triage")

REUSE_PAGE = 60.0
"""Seconds a jobs page a round read serves the next rounds (unless a failed job they ask about is
not on it, or one asked about before is gone): the board asks for a round again whenever its
failures change, 2 s after the last one while it loads, and each round read every page again (the
same pages twice within 3 s). Where the budget lets triage read one page or log every 6 s (the
console's first minute), pages kept 15 s were read again by every round, a token each, while the
board's ``Why`` cells waited for their logs."""
WINDOW = timedelta(hours=24)
"""How far back a round looks (``labdeck triage``'s default ``--since``)."""
WHOLE_EVERY = 60.0
"""Seconds a round may be cut short after the last whole one (see :meth:`Triaging.round`): where
the failures change at every snapshot, rounds cut short one after the other would leave the
clusters as they were for good."""
AT_ONCE = 30
"""Failed jobs of a jobs table worked out per look (a log read each, at most, when not cached)."""
PENDING = "…"
"""The ``Why`` cell while the verdict is not known yet."""


class Triaging:
    """The latest triage report and every verdict worked out since (see the module docstring)."""

    def __init__(self, cache: LogCache | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.cache = cache or LogCache()
        self._clock = clock
        self._fresh: dict[int, tuple[float, ProjectJobs, frozenset[int]]] = {}
        """Project id → the jobs page a round read, when, and the failed jobs that round was asked
        about there (kept :data:`REUSE_PAGE` seconds)."""
        self.report: TriageReport | None = None
        self.failures: dict[int, Failure] = {}
        """Job id → its failure entry (verdict, signature, owner): those of the latest round and of
        the failed jobs on the projects' latest pages (see :meth:`_forget_gone`)."""
        self.pages: dict[int, tuple[Job, ...]] = {}
        """Project id → its latest jobs page (histories come from it without a request)."""
        self.parsed = ParsedPages()
        """The bodies behind :attr:`pages`: a round reading a page unchanged keeps its jobs as they are."""
        self.rounds = 0
        self._whole_at = clock()
        """When the last whole round ended (when this began, before the first)."""
        self.missing = 0
        """Failed jobs the last round was asked about and left for the next (see :data:`AT_ONCE`)."""
        self._asked = 0
        self._stored = 0
        """Rounds run side by side (never cancelled half-way): an older one finishing last is not kept."""
        self._listeners: list[Callable[[], None]] = []
        self._shown: set[int] = set()
        """Jobs whose verdict a screen asked for since the last round (kept while shown)."""
        self._paged: set[int] = set()
        """Projects whose page a screen read or used since the last round (kept while shown)."""
        self.pacer: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext
        """Wraps every read: the board's request budget (set by ``app.watching``), so that triage's
        jobs pages and logs wait their turn within the per-minute budget."""

    def triager(self, client: ApiClient) -> Triager:
        """A triager on ``client`` (read it from the app each time) sharing the log cache."""
        return Triager(client, self.cache, parsed=self.parsed)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after each round; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def failure(self, job_id: int) -> Failure | None:
        """The verdict of a failed job, when known."""
        self._shown.add(job_id)
        return self.failures.get(job_id)

    def label(self, job: Job) -> str:
        """The ``Why`` cell of one job: the verdict's label, ``…`` while unknown, '' when not failed."""
        if job.status != "failed":
            return ""
        self._shown.add(job.id)
        found = self.failures.get(job.id)
        return found.verdict.label if found is not None else PENDING

    async def round(self, client: ApiClient, projects: Sequence[tuple[int, str]],
                    failed: Sequence[tuple[int, str, Job]] = (), *,
                    cut_short: Callable[[], bool] | None = None) -> TriageReport:
        """A round over ``projects`` (one jobs page each, logs only where ``failure_reason`` does not
        explain a failure). ``failed``: the failed jobs a screen shows (the board's failing
        pipelines), worked out first, listeners told as soon as they are known, those the round
        does not list (older failed pipelines on the board) from the same pages. Listeners are
        told again at the end. ``cut_short``: see :meth:`Triager.round` (heeded only within
        :data:`WHOLE_EVERY` of the last whole round); a round cut short keeps the verdicts it found
        but not its report (the clusters stay those of the last whole round) and sets
        :attr:`missing`, so that the caller asks again."""
        self._asked += 1
        ticket = self._asked
        with self.pacer():
            return await self._round(client, projects, failed, ticket, cut_short)

    async def _round(self, client: ApiClient, projects: Sequence[tuple[int, str]],
                     failed: Sequence[tuple[int, str, Job]], ticket: int,
                     cut_short: Callable[[], bool] | None) -> TriageReport:
        triager = self.triager(client)
        asked: dict[int, set[int]] = {}
        for project_id, _, job in failed:
            asked.setdefault(project_id, set()).add(job.id)
        triager.use_pages(self._reusable(projects, asked))
        unknown = [(project_id, job) for project_id, _, job in failed if job.id not in self.failures]

        shown: dict[int, Failure] = {}

        def shown_first(failures: list[Failure]) -> None:
            # The verdicts of what the caller shows, before the round's other failures are read.
            shown.update((failure.job.id, failure) for failure in failures)
            log.debug("round %d: shown verdicts %s", ticket, sorted(shown))
            if ticket < self._stored:
                return
            self.failures.update(shown)
            for listener in list(self._listeners):
                listener()

        # Those the round does not list are worked out at most AT_ONCE a round (a log read each at
        # most; logs read are cached, so the next round goes on where this one stopped).
        log.debug("round %d: %d projects, shown %s, not known %s", ticket, len(projects),
                  sorted(job.id for _, _, job in failed), sorted(job.id for _, job in unknown))
        def cut() -> bool:
            return cut_short is not None and cut_short() and self._clock() - self._whole_at < WHOLE_EVERY

        report = await triager.round(projects, since=WINDOW, first={job.id for _, _, job in failed},
                                     also=unknown, also_at_most=AT_ONCE, on_first=shown_first, cut_short=cut)
        log.debug("round %d: %s, %d pages read, %d logs read, %d failures", ticket,
                  "whole" if report.complete else "cut short", report.pages_read, report.logs_read, len(report.failures))
        now = self._clock()
        self._fresh.update((project_id, (now, page, frozenset(asked.get(project_id, ()))))
                           for project_id, page in triager.pages_from_server.items())
        found = shown | {failure.job.id: failure for failure in report.failures}
        # An older round ending last adds what no newer one worked out, and changes nothing else.
        self.failures.update(found if ticket >= self._stored else
                             {job_id: failure for job_id, failure in found.items() if job_id not in self.failures})
        left = [job for project_id, job in unknown if job.id not in self.failures and project_id in report.pages]
        self.missing = len(left) + (0 if report.complete else 1)
        if ticket < self._stored or not report.complete:
            for listener in list(self._listeners):
                listener()
            return report  # a newer round already answered, or this one is a part only
        self._stored = ticket
        self._whole_at = self._clock()
        self.report = report
        self._forget_pages(report)
        self._forget_gone(found)
        self.rounds += 1
        for listener in list(self._listeners):
            listener()
        return report

    def _reusable(self, projects: Sequence[tuple[int, str]], asked: dict[int, set[int]]) -> dict[int, ProjectJobs]:
        """The pages a round read less than :data:`REUSE_PAGE` ago when asked about the same failed
        jobs of their project, or about more that the page holds as failed: a new failure (a job
        the page holds still running), or one gone (retried, passed), needs the page again; one
        more row of the board loaded, whose failed job the page holds, does not."""
        now = self._clock()
        self._fresh = {pid: held for pid, held in self._fresh.items() if now - held[0] < REUSE_PAGE}
        reusable: dict[int, ProjectJobs] = {}
        for project_id, path in projects:
            held = self._fresh.get(project_id)
            if held is None or held[1].path != path:
                continue
            wanted = asked.get(project_id, set())
            failed_there = {job.id for job in held[1].jobs if job.status == "failed"}
            if held[2] == wanted or (held[2] <= wanted and wanted <= failed_there):
                reusable[project_id] = held[1]
        return reusable

    def _forget_pages(self, report: TriageReport) -> None:
        """Keep the pages of the projects this round read and of those a screen used since the last
        one: a project that failed once and is green again no longer needs its hundred jobs (a
        board of 300 projects left open a simulated day met most of them failing once, and held
        every page it ever read: +8 MB in three simulated hours, in ``bench/bench_soak.py``)."""
        kept = {project_id: self.pages[project_id] for project_id in self._paged if project_id in self.pages}
        self._paged = set()
        kept.update(report.pages)
        self.pages = kept
        self.parsed.keep_only(kept)

    def _forget_gone(self, kept: dict[int, Failure]) -> None:
        """Drop the verdicts of jobs no longer in the latest round nor on any project's latest
        page, and not asked for by a screen since the last round: a board left open for days met thousands of failed jobs, and kept every verdict
        (with its job, history and log facts) for good (+0.2 MB per simulated hour in
        ``bench/bench_soak.py``). One asked for again is worked out again (its log is cached)."""
        report = self.report
        wanted = set(kept) | self._shown | ({failure.job.id for failure in report.failures} if report is not None else set())
        self._shown = set()
        for page in self.pages.values():
            wanted.update(job.id for job in page if job.status == "failed")
        for job_id in [job_id for job_id in self.failures if job_id not in wanted]:
            del self.failures[job_id]

    async def verdicts(self, client: ApiClient, project_id: int, path: str, jobs: Sequence[Job]) -> None:
        """Verdicts for the failed ``jobs`` of one project not known yet (the newest :data:`AT_ONCE`):
        one jobs page, logs only where needed; listeners are told afterwards."""
        unknown = [job for job in jobs if job.status == "failed" and job.id not in self.failures][:AT_ONCE]
        if not unknown:
            return
        with self.pacer():
            await self._verdicts(client, project_id, path, unknown)

    async def _verdicts(self, client: ApiClient, project_id: int, path: str, unknown: list[Job]) -> None:
        triager = self.triager(client)
        # The whole page, as a triage round reads a failure's history (the window only picks failures).
        page = tuple((await triager.page(project_id, path)).jobs)
        self.keep_page(project_id, page)
        shares = runner_shares(page)
        for job in unknown:
            self.failures[job.id] = await triager.failure(project_id, path, job, with_job(page, job), shares=shares)
        for listener in list(self._listeners):
            listener()

    def page(self, project_id: int) -> tuple[Job, ...] | None:
        """Project ``project_id``'s latest jobs page when held; held on while a screen uses it."""
        page = self.pages.get(project_id)
        if page is not None:
            self._paged.add(project_id)
        return page

    def keep_page(self, project_id: int, page: tuple[Job, ...]) -> None:
        """Hold ``page`` as project ``project_id``'s latest jobs page (a screen read it)."""
        self.pages[project_id] = page
        self._paged.add(project_id)

    async def one(self, client: ApiClient, project_id: int, path: str, job: Job) -> tuple[Failure | None, History]:
        """The verdict (failed jobs) and history of one job: from what is held when known, else one
        jobs page (and the log only when ``failure_reason`` does not explain the failure)."""
        page = self.page(project_id)
        known = self.failures.get(job.id) if job.status == "failed" else None
        if page is None or not any(held.id == job.id for held in page) or (job.status == "failed" and known is None):
            with self.pacer():
                return await self._one(client, project_id, path, job)
        return known, job_history(page, job.name, job.ref)

    async def _one(self, client: ApiClient, project_id: int, path: str, job: Job) -> tuple[Failure | None, History]:
        known: Failure | None = None
        triager = self.triager(client)
        # The whole page, as a triage round reads a failure's history: the same verdict and evidence.
        page = tuple((await triager.page(project_id, path)).jobs)
        self.keep_page(project_id, page)
        if job.status == "failed":
            known = await triager.failure(project_id, path, job, with_job(page, job))
            self.failures[job.id] = known
        return known, job_history(page, job.name, job.ref)

    def flagged_runners(self) -> dict[int, RunnerShare]:
        """Runner id → its share, for runners failing well above the fleet (empty before a round)."""
        if self.report is None:
            return {}
        return {share.id: share for share in self.report.flagged_runners}


_ATTRIBUTE = "_labdeck_triaging"


def triaging(app: Any) -> Triaging:
    """The app's one :class:`Triaging` (made on first use), kept on the app itself.

    Not in a module-level ``WeakKeyDictionary`` keyed by the app: the Triaging refers back to the
    app (its ``pacer`` closes over the app's watching), so such an entry kept every app alive for
    good, with its screens and caches (tests start thousands of apps in a process; every full
    collection then walked all of them). On the app, the two go together."""
    found: Triaging | None = getattr(app, _ATTRIBUTE, None)
    if found is None:
        found = Triaging()
        setattr(app, _ATTRIBUTE, found)
    return found


def why_label(failures: Sequence[Failure | None]) -> str:
    """The ``Why`` cell of a pipeline from its failed jobs' verdicts: the most telling one (broken,
    infra, flaky, ?), ``+`` when the others differ, `` +…`` while some are not known yet; ``…``
    while none is."""
    if not failures:
        return ""
    order = ("broken", "infrastructure", "flaky", "unknown")
    known = sorted((f for f in failures if f is not None), key=lambda f: order.index(f.verdict.kind))
    if not known:
        return PENDING
    labels = {f.verdict.label for f in known}
    pending = " +…" if len(known) < len(failures) else ""
    return known[0].verdict.label + ("+" if len(labels) > 1 else "") + pending
