"""The poller's reads beyond the page of newest jobs (a base of
:class:`labdeck.watch.reads.PollerReads`): big pipelines completed by scoped reads, and GitLab's
pipelines API as the per-round read where the server has it.

What a round of a loaded project costs, per dialect:

- **GitLab (pipelines API)**: ``GET /projects/:id/pipelines?updated_after=<newest seen>``,
  conditional: while no pipeline's status changed the URL and the answer stay the same (304,
  nothing parsed). The page of newest jobs is read only when it shows a pipeline the rows do not
  hold or a small pipeline that moved. A pipeline's ``updated_at`` moves only with its own status
  (``pipeline.set_status``), so a job failing deep inside a big pipeline that keeps running does
  not show in the listing: a project with a big (partial) running pipeline gets that pipeline's
  failed-count probe every round (its failed jobs when the count moved), as in the spec dialect,
  and the listing every ``LIST_EVERY`` rounds, at once after a push the activity check sees or
  when a probe shows the pipeline's status moved.
- **Spec (no pipelines list)**: a project with a big unfinished pipeline is probed instead of
  re-reading its page: ``GET …/pipelines/:id/jobs?scope[]=failed&per_page=1`` (``X-Total``, and
  the pipeline's status in the one job it holds). The page of newest jobs (new pipelines, the
  running count) comes every ``deep_page_every`` rounds, or at once when the probe shows the
  pipeline's status moved.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

from labdeck.api import errors
from labdeck.api.client import ApiClient
from labdeck.api.models import Pipeline
from labdeck.api.parsers import list_parser
from labdeck.api.resources.pipelines import iso
from labdeck.watch.budget import PollStats
from labdeck.watch.clock import Clock
from labdeck.watch.deep import DeepPipeline, complete, count, first_job, read_scope
from labdeck.watch.pipelines import PipelineRow, job_unfinished, mark_latest_for_ref
from labdeck.watch.settings import PollerSettings
from labdeck.watch.tracking import ProjectTrack, signature

log = logging.getLogger("labdeck.watch")

_CLEAN = frozenset({"success", "skipped", "canceled"})
"""Server statuses that leave nothing to read about failures."""
PROBED = ("failed", "canceled")
"""Job scopes the per-round probe counts."""
MARGIN = timedelta(seconds=1)
"""``updated_after`` is strict and timestamps tie: look a second further back."""
LISTED = 20
"""Pipelines per listing (ordered by ``updated_at``, newest change first)."""
PAGE_EVERY = 12
"""Spec dialect: a project with a big unfinished pipeline re-reads its page of newest jobs every
this many rounds (probes in between; a push the activity check sees reads it at once)."""
RUNNING_EVERY = 4
"""…and its running count every this many rounds."""
LIST_EVERY = 4
"""Pipelines API: a project with a big running pipeline is probed every round and listed every
this many rounds (a push the activity check sees, or a probe showing a new status, lists at once)."""
VOUCHED_FOR = 300.0
"""Where GraphQL batches state a big pipeline's failed count, its REST probe (and the listing of a
project whose only big running pipeline it is) is spared while they state the same; once this
many seconds after the last probe it is probed anyway (a failure and a retry of another failed job
in the same moment leave the batch's count of failed jobs that are not retried as it was)."""


class DeepReads:
    """Reads for partial pipelines; state lives in each :class:`ProjectTrack`."""

    client: ApiClient
    settings: PollerSettings
    stats: PollStats
    _dirty: set[int]
    _pipelines_api: bool | None
    _pipelines_lock: asyncio.Lock
    _clock: Clock

    async def _has_pipelines(self, project_id: int) -> bool:
        """Whether rounds use the pipelines list: learned once per client, with the activity
        check (:meth:`_learn_pipelines_api`); until then the page of newest jobs is read."""
        return bool(self._pipelines_api)

    async def _learn_pipelines_api(self, project_id: int | None) -> None:
        """Ask the server once whether it lists pipelines (one request; a failure asks again later)."""
        async with self._pipelines_lock:
            if self._pipelines_api is not None:
                return
            try:
                self._pipelines_api = await self.client.has_pipelines_api(project_id)
            except errors.ApiError:
                return

    async def _round_without_page(self, track: ProjectTrack) -> bool:
        """A round of a loaded project that may spare the page of newest jobs: True when the
        round is done (nothing or only partial pipelines moved), False when the page is due."""
        if not track.loaded:
            await self._learn_pipelines_api(track.project_id)  # once per client, with the first read
            return False
        hot = track.deep_unfinished(self.settings.rows_per_project)
        pushed = track.changed_at is not None and (track.last_ok is None or track.changed_at >= track.last_ok) \
            and not _moved_inside(track, hot)
        if await self._has_pipelines(track.project_id):
            # A running pipeline's updated_at moves only with its own status: a job failing deep
            # inside it shows only in the failed count, so a hot project is probed every round and
            # listed every few rounds (and at once after a push or when a probe shows a new status).
            listing_due = (track.rounds + 1) % LIST_EVERY == 0 and not self._covered(track, hot)
            if not hot or pushed or track.watermark is None or listing_due:
                return await self._list_round(track)
            track.rounds += 1
            if not await self._probe_hot(track, hot):
                return await self._list_round(track)
            self._recomplete(track)
            return True
        if not hot or pushed or track.rounds + 1 >= PAGE_EVERY:
            return False  # the page: a push the activity check saw, or the safety net
        track.rounds += 1
        if not await self._probe_hot(track, hot):
            return False  # the pipeline moved on (finished, or running again): read the page
        self._recomplete(track)
        return True

    async def _probe_hot(self, track: ProjectTrack, hot: list[PipelineRow], *,
                         skip: frozenset[int] = frozenset()) -> bool:
        """One failed-count probe per running partial pipeline (its failed jobs read again when the
        count moved); False as soon as a probe shows the pipeline's status moved."""
        for row in hot:
            if row.pipeline_id in skip:
                continue
            state = track.deep.setdefault(row.pipeline_id, DeepPipeline(row.pipeline_id))
            stated = _batch_counts(track, row)
            if self._vouched(track, state, stated):
                # Known as of the batch's answer or our own last look, not as of now.
                known = max(track.batch_seen_at or 0.0, state.looked_at or 0.0)
                track.known_at = known if track.known_at is None else min(track.known_at, known)
                # The running count as the batch saw it move (every few rounds at most).
                moved = stated is not None and state.batch_counts is not None and stated[2] != state.batch_counts[2]
                await self._refresh_running(track, row, state, force=moved and track.rounds % RUNNING_EVERY == 0)
                continue
            before = state.server_status or row.server_status
            await self._refresh_failed(track, row, state, probe=True, moved=_failures_moved(state, stated))
            state.looked_at, state.batch_counts = self._clock(), stated
            if state.server_status != before:
                return False
            # The running count: when a failure came, and every few rounds (jobs start and end).
            await self._refresh_running(track, row, state, force=track.rounds % RUNNING_EVERY == 0)
        return True

    def _vouched(self, track: ProjectTrack, state: DeepPipeline,
                 stated: tuple[str | None, int | None, int | None] | None) -> bool:
        """Whether the last GraphQL batch states the pipeline's status and failed count as they
        were at the last REST look, and it (or that look) is younger than ``interval``: no failure
        since, the probe is spared (until :data:`VOUCHED_FOR` after that look)."""
        if stated is None or state.batch_counts is None or state.failed is None or state.looked_at is None:
            return False
        now = self._clock()
        if max(track.batch_seen_at or 0.0, state.looked_at) < now - self.settings.interval:
            return False
        if now - state.looked_at >= VOUCHED_FOR:
            return False
        return stated[:2] == state.batch_counts[:2] and stated[0] == state.server_status

    def _covered(self, track: ProjectTrack, hot: list[PipelineRow]) -> bool:
        """Whether the GraphQL batches vouch for the project's one big running pipeline, its latest:
        its listing (which would see a new pipeline or a status the batch sees as well) is spared."""
        if len(hot) != 1:
            return False
        state = track.deep.get(hot[0].pipeline_id)
        return state is not None and self._vouched(track, state, _batch_counts(track, hot[0]))

    async def _list_round(self, track: ProjectTrack, *, baseline: bool = False) -> bool:
        """GitLab: one conditional listing of the pipelines updated since the last round.
        ``baseline``: the first listing, read right after the page and before the scoped reads
        (which then know at least what it shows): it only notes where things stand."""
        params: dict[str, Any] = {"per_page": LISTED, "order_by": "updated_at", "sort": "desc"}
        first = track.watermark is None
        if first:
            track.watermark = _page_watermark(track)
        if track.watermark is not None:
            params["updated_after"] = iso(track.watermark - MARGIN)
        read = await self.client.fetch_conditional(f"projects/{track.project_id}/pipelines", params,
                                                 model=list[Pipeline])
        if track.list_url is not None and track.list_url != read.url:
            # The watermark moved: the old URL is never asked again, and its body would stay in
            # the client's ETag cache (one per move, up to its limit of a thousand entries).
            self.client.cache.discard(track.list_url)
        track.list_url = read.url
        if read.etag is not None and read.etag == track.list_etag:
            # No pipeline's status moved, yet a job deep inside a running one may have failed (its
            # updated_at stays): probe those. A quiet round also catches up a running count left
            # stale by a busy one.
            track.rounds += 1
            hot = track.deep_unfinished(self.settings.rows_per_project)
            await self._probe_hot(track, hot)
            stale = [row for row in hot
                     if (state := track.deep.get(row.pipeline_id)) is not None and state.running_for is None]
            for lagging in stale[:1]:
                await self._refresh_running(track, lagging, track.deep[lagging.pipeline_id], force=True)
            if hot:
                self._recomplete(track)
            return True
        pipelines = read.value if read.value is not None else list_parser(Pipeline).validate_json(read.content or b"[]")
        self.stats.parsed += 1
        track.list_etag = read.etag
        stamps = [p.updated_at for p in pipelines if p.updated_at is not None]
        if stamps and len(pipelines) >= LISTED // 2:
            # The listing grew: ask from its newest change on (a new URL: one more full answer).
            track.watermark = max(stamps)
        rows = {row.pipeline_id: row for row in track.page_rows}
        if baseline:
            for pipeline in pipelines:
                row = rows.get(pipeline.id)
                if row is not None and row.partial:
                    noted = track.deep.setdefault(pipeline.id, DeepPipeline(pipeline.id))
                    noted.updated_at, noted.server_status = pipeline.updated_at, pipeline.status
            return True
        need_page = False
        moved: list[tuple[PipelineRow, str | None]] = []
        for pipeline in pipelines:
            row = rows.get(pipeline.id)
            if row is None:
                # Not among the rows: new (a push), or older than the page (the first listing).
                need_page = need_page or not first or pipeline.id > max(rows, default=0)
                continue
            if not row.partial:
                if pipeline.status != row.server_status:
                    need_page = True
                continue
            state = track.deep.setdefault(pipeline.id, DeepPipeline(pipeline.id))
            if state.updated_at != pipeline.updated_at or state.server_status != pipeline.status:
                moved.append((row, state.server_status))
                state.updated_at, state.server_status = pipeline.updated_at, pipeline.status
        if need_page:
            return False
        track.rounds += 1
        for row, status in moved:
            # A job of it changed status: a new failure? (one probe); the running count when a
            # failure came or every few rounds; the times when the pipeline's own status moved.
            # A first listing only checks what the page read learned moments ago.
            state = track.deep[row.pipeline_id]
            seen = state.failed_seen
            await self._refresh_failed(track, row, state, probe=True)
            if first:
                continue
            state.running_for = None  # stale: read now, every few busy rounds, or in the next quiet one
            if state.failed_seen != seen or track.rounds % RUNNING_EVERY == 0:
                await self._refresh_running(track, row, state, force=True)
            if state.server_status != status:
                await self._refresh_timing(track, row, state)
        if not first:
            # The running big pipelines the listing did not show moved too (a failure deep inside).
            probed = frozenset(row.pipeline_id for row, _ in moved)
            await self._probe_hot(track, track.deep_unfinished(self.settings.rows_per_project), skip=probed)
        self._recomplete(track)
        return True

    async def _complete_partial(self, track: ProjectTrack) -> None:
        """After a page read: complete its partial rows (only the newest ``rows_per_project``
        pipelines and those an alert follows are read beyond the page)."""
        track.rounds = 0
        if self._pipelines_api and track.list_etag is None and any(row.partial for row in track.page_rows):
            try:
                await self._list_round(track, baseline=True)
            except errors.ApiError:
                track.watermark = None  # the next round lists from scratch
        wanted = {row.pipeline_id for row in sorted(track.page_rows, key=lambda r: r.pipeline_id,
                                                     reverse=True)[: self.settings.rows_per_project]}
        keep = {row.pipeline_id for row in track.page_rows if row.partial} | set(track.extra_rows)
        for pipeline_id in list(track.deep):
            if pipeline_id not in keep:
                self._forget_deep(track, pipeline_id)
        for row in track.page_rows:
            if not row.partial or row.pipeline_id not in wanted:
                continue
            state = track.deep.setdefault(row.pipeline_id, DeepPipeline(row.pipeline_id))
            state.server_status = row.server_status
            try:
                await self._refresh_failed(track, row, state, probe=False)
                await self._refresh_running(track, row, state, force=True)
                await self._refresh_timing(track, row, state)
            except (errors.NotFound, errors.Forbidden):
                self._forget_deep(track, row.pipeline_id)
            except errors.ApiError as exc:
                log.info("watch: reading beyond the page of %s failed: %s", track.path, exc.user_message())
                break  # what was learned stays; the next round tries again
        self._recomplete(track)

    def _forget_deep(self, track: ProjectTrack, pipeline_id: int) -> None:
        """Forget what was read beyond the page about a pipeline no longer completed (gone from the
        page, or unreadable), and the bodies of its scoped pages in the client's ETag cache: a URL
        per pipeline, never asked again, which the cache kept up to its limit of a thousand entries
        (a board left open for days meets a new big pipeline after another)."""
        state = track.deep.pop(pipeline_id, None)
        for url in state.pages if state is not None else ():
            self.client.cache.discard(url)

    async def _refresh_failed(self, track: ProjectTrack, row: PipelineRow, state: DeepPipeline, *,
                              probe: bool, moved: bool = False) -> None:
        """The failed jobs, read again only when their count moved (one ``per_page=1`` request);
        ``moved``: a GraphQL batch saw it move, so they are read without asking the count."""
        status = state.server_status or row.server_status
        if status in _CLEAN:
            return
        finished = status is not None and not job_unfinished(status)
        if finished and state.failed is not None and not probe:
            return  # a finished pipeline's failures do not change without a retry (a new pipeline status)
        if moved:
            before = state.failed
            state.failed = tuple(await read_scope(self.client, state, track.project_id, "failed"))
            state.failed_seen = None  # the count of failed and canceled jobs is not known: the next probe reads
            if before != state.failed:
                state.running_for = None
            return
        # Failed and canceled jobs together: a new failure moves the count, and so does a cancel
        # (whose canceled jobs then carry the pipeline's new status: the row says canceled at once).
        total, newest = await count(self.client, track.project_id, row.pipeline_id, PROBED)
        if newest and newest[0].pipeline is not None and newest[0].pipeline.status:
            state.server_status = newest[0].pipeline.status
        if total is not None and total == state.failed_seen and state.failed is not None:
            return
        before = state.failed
        state.failed = tuple(await read_scope(self.client, state, track.project_id, "failed"))
        state.failed_seen = total if total is not None else len(state.failed)
        if before != state.failed:
            state.running_for = None  # something failed: the running count moved too

    async def _refresh_running(self, track: ProjectTrack, row: PipelineRow, state: DeepPipeline, *,
                               force: bool) -> None:
        status = state.server_status or row.server_status
        if status is None or not job_unfinished(status):
            state.running = 0
            return
        key = (status, state.failed_seen)
        if state.running is not None and state.running_for == key and not force:
            return
        total, newest = await count(self.client, track.project_id, row.pipeline_id, "running")
        if newest and newest[0].pipeline is not None and newest[0].pipeline.status:
            state.server_status = newest[0].pipeline.status
        if total is None:
            total = len(await read_scope(self.client, state, track.project_id, "running"))
        state.running, state.running_for = total, key

    async def _refresh_timing(self, track: ProjectTrack, row: PipelineRow, state: DeepPipeline) -> None:
        status = state.server_status or row.server_status
        if status in ("created", "pending", "waiting_for_resource", "scheduled"):
            return  # nothing started yet
        if self._pipelines_api:
            finished = status is not None and not job_unfinished(status)
            have = state.detail
            if have is None or (finished and (have.status != status or have.finished_at is None)):
                state.detail = await self.client.pipelines.get(track.project_id, row.pipeline_id)
            return
        if state.first is None or state.first.started_at is None:
            state.first = await first_job(self.client, track.project_id, row.pipeline_id)

    def _recomplete(self, track: ProjectTrack) -> None:
        """``track.rows`` from its page rows and what was read beyond them; dirty when changed."""
        rows = tuple(mark_latest_for_ref(complete(row, track.deep.get(row.pipeline_id)) if row.partial else row
                                         for row in track.page_rows))
        if signature(rows) != signature(track.rows):
            track.rows = rows
            self._dirty.add(track.project_id)


def _page_watermark(track: ProjectTrack) -> datetime | None:
    """The newest moment the page of newest jobs shows (a job created, started or finished): the
    first listing asks for pipelines updated since (what moved after the page was read, and the
    pipelines whose jobs beyond the page moved later)."""
    stamps = [stamp for row in track.page_rows for job in row.jobs
              for stamp in (job.created_at, job.started_at, job.finished_at) if stamp is not None]
    return max(stamps) if stamps else None


def _batch_counts(track: ProjectTrack, row: PipelineRow) -> tuple[str | None, int | None, int | None] | None:
    """(status, failed, running) of ``row``'s pipeline as the last GraphQL batch stated it (None:
    the batch's latest pipeline is another one, or no batch answered)."""
    seen = track.batch_seen
    if seen is None or seen.pipeline_id != row.pipeline_id or seen.failed_jobs is None:
        return None
    return seen.status, seen.failed_jobs, seen.running_jobs


def _failures_moved(state: DeepPipeline, stated: tuple[str | None, int | None, int | None] | None) -> bool:
    """Whether the GraphQL batch states the same pipeline status as the last REST look, and another
    count of failed jobs: a failure (or a retry of one) came, and nothing else moved."""
    noted = state.batch_counts
    return (stated is not None and noted is not None and stated[0] == noted[0] == state.server_status
            and stated[1] != noted[1])


def _moved_inside(track: ProjectTrack, hot: list[PipelineRow]) -> bool:
    """Whether the move a GraphQL batch saw is inside a big running pipeline the rows hold (its
    counts moved, not its status, and no other pipeline is the latest): its probe reads it, the
    listing would only answer 304."""
    seen = track.batch_seen
    if seen is None or track.batch_seen_at is None or track.changed_at is None or track.batch_seen_at < track.changed_at:
        return False
    for row in hot:
        state = track.deep.get(row.pipeline_id)
        if row.pipeline_id == seen.pipeline_id and state is not None and state.server_status == seen.status:
            return True
    return False
