"""GraphQL batches as the change check on GitLab: the latest pipeline of up to 100 projects per
request (:mod:`labdeck.api.resources.graphql`), compared with the previous round. A project whose
latest pipeline, its status, ``updatedAt`` or its failed/running job counts moved is read in
detail at once; the others are confirmed unchanged (their rows' age starts again).

The batch size starts at the page size (100 fits GitLab's 250 for a signed-in user); when the
server answers ``Query has complexity of N, which exceeds max complexity of M`` it shrinks in
proportion and is remembered. A 401/403/404 on ``/api/graphql``, or any other error answer, means
no GraphQL here: learned once per client, and the REST change check (activity) is used instead.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from labdeck.api.core import HttpEngine
from labdeck.api.resources.graphql import MAX_FIRST, LatestPipeline, NoGraphql, TooComplex, latest_pipelines

log = logging.getLogger("labdeck.watch")


@dataclass
class BatchRound:
    """What one round learned."""

    changed: set[int] = field(default_factory=set)
    """Projects whose latest pipeline moved since the previous round (or since their last read)."""
    progressed: set[int] = field(default_factory=set)
    """Those of :attr:`changed` whose move is only progress: the same pipeline, status and failed
    count, its running count or ``updatedAt`` moved (a busy monorepo's pipeline at every round)."""
    first: set[int] = field(default_factory=set)
    """Projects seen for the first time (compared with their rows by the poller)."""
    confirmed: set[int] = field(default_factory=set)
    """Projects the round answered for (changed or not)."""
    latest: dict[int, LatestPipeline] = field(default_factory=dict)


class GraphqlBatches:
    """The GraphQL change check of one client (see the module docstring)."""

    def __init__(self, engine: HttpEngine) -> None:
        self._engine = engine
        self.available: bool | None = None
        """None: not tried yet; False: refused (REST from now on, for this client)."""
        self.batch = MAX_FIRST
        self.known: dict[int, tuple[object, ...]] = {}
        self.latest: dict[int, LatestPipeline] = {}
        """Each project's latest pipeline as last seen (which ones moved within the hour)."""
        self.refusal: str | None = None

    def use_engine(self, engine: HttpEngine) -> None:
        """A new sign-in: another token may see GraphQL differently: ask again."""
        self._engine = engine
        self.available, self.refusal = None, None

    def requests_per_round(self, projects: int) -> int:
        """Requests one round over ``projects`` costs."""
        return max(1, -(-projects // max(1, self.batch)))

    async def round(self, project_ids: Sequence[int], watched: Collection[int] | None = None) -> BatchRound:
        """One round over ``project_ids``; raises :class:`NoGraphql` (and remembers it) when the
        server has none to offer. ``watched``: every project still of interest (others are forgotten)."""
        result = BatchRound()
        ids = list(project_ids)
        start = 0
        while start < len(ids):
            chunk = ids[start:start + self.batch]
            try:
                found = await latest_pipelines(self._engine, chunk)
            except TooComplex as exc:
                smaller = min(len(chunk) - 1, int(len(chunk) * exc.maximum / max(exc.complexity, 1) * 0.9))
                if smaller < 1:
                    self.refuse(f"even one project is too complex ({exc.complexity} > {exc.maximum})")
                    raise NoGraphql(self.refusal or "", method="POST", url="") from None
                log.info("watch: GraphQL batch %d → %d (complexity %d > %d)", self.batch, smaller,
                         exc.complexity, exc.maximum)
                self.batch = smaller
                continue
            except NoGraphql as exc:
                self.refuse(exc.user_message())
                raise
            self.available = True
            start += len(chunk)
            for item in found:
                signature = item.signature
                before = self.known.get(item.project_id)
                if before is None:
                    result.first.add(item.project_id)
                elif before != signature:
                    result.changed.add(item.project_id)
                    previous = self.latest.get(item.project_id)
                    if previous is not None and _progress_only(previous, item):
                        result.progressed.add(item.project_id)
                self.known[item.project_id] = signature
                self.latest[item.project_id] = item
                result.confirmed.add(item.project_id)
                result.latest[item.project_id] = item
        keep = set(watched) if watched is not None else set(ids)
        for gone in set(self.known) - keep:
            del self.known[gone]  # no longer watched: its next first sight is a baseline
            self.latest.pop(gone, None)
        return result

    def refuse(self, why: str) -> None:
        """No GraphQL for this client from now on (until :meth:`use_engine`), for ``why``."""
        self.available, self.refusal = False, why
        log.info("watch: no GraphQL on this server (%s): REST change checks", why)


def _progress_only(before: LatestPipeline, after: LatestPipeline) -> bool:
    """True when only the running count or ``updatedAt`` moved: no new pipeline, no new status, no
    new failure."""
    return (before.pipeline_id, before.status, before.failed_jobs) == (after.pipeline_id, after.status, after.failed_jobs)
