"""The cheap activity check: which projects moved since the last look.

``GET /projects?order_by=last_activity_at&sort=desc&simple=true&per_page=20`` (narrowed by
``starred=true`` or ``membership=true`` when the watched projects allow it), read conditionally:
while nothing moved the server answers 304 and nothing is parsed. To current GitLab (the ``gitlab``
dialect) ``last_activity_after`` is sent too, so it returns only what moved; a 10.x server ignores
it (the descending order does the same job: only the top of the list is read), so it is not sent
there: a URL that changes with every move would cost a second full read after each one.

What it can see: new pipelines (a push), at most once an hour per project on current GitLab
(``Event::RESET_PROJECT_ACTIVITY_INTERVAL``). What it cannot: job status changes, retries. Those
are the poller's unfinished-job reads and its sweep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from labdeck.api.core import HttpEngine
from labdeck.api.models import Project
from labdeck.api.parsers import list_parser

MARGIN = timedelta(seconds=1)
"""``last_activity_after`` is strict and timestamps tie: look a second further back."""
KNOWN_LIMIT = 2000
"""Projects whose last activity is remembered. Past it the longest-quiet are forgotten: one seen
again is then compared with the watermark instead (it moved if it is newer), which is what a
project seen for the first time gets. Without a limit, a console left open for a week on a large
instance would remember every project that ever reached the top of the list."""


@dataclass
class ActivityResult:
    """One check: the projects that moved, and whether the check could see everything."""

    moved: set[int] = field(default_factory=set)
    pages: int = 0
    parsed: int = 0
    """Pages parsed (0 when every page was unchanged)."""
    overflow: bool = False
    """More projects moved than the pages read could show: sweep everything soon."""
    first: bool = False
    """The first check: it only learns the current state (nothing has "moved" yet)."""


class ActivityCheck:
    """Remembers each project's ``last_activity_at`` and the newest one seen (the watermark)."""

    def __init__(self, engine: HttpEngine, *, per_page: int = 20, max_pages: int = 3) -> None:
        self._engine = engine
        self.per_page = max(1, min(per_page, 100))
        self.max_pages = max(1, max_pages)
        self.watermark: datetime | None = None
        self.known: dict[int, datetime] = {}
        self._etags: dict[int, str | None] = {}
        """The ETag of each page (by number) as last parsed. By page, not by URL: with
        ``last_activity_after`` every move of the watermark makes new URLs, one entry each."""
        self._urls: dict[int, str] = {}
        """The URL each page was last read at: when a move of the watermark changes it, the old
        one is never asked again, and its body goes from the client's ETag cache (which otherwise
        kept one per move, up to its limit of a thousand entries)."""
        self.scope: str | None = None

    def use_engine(self, engine: HttpEngine) -> None:
        """Read through ``engine`` from now on (a new sign-in replaced the client)."""
        self._engine = engine

    def _params(self, scope: str | None, page: int, since: bool) -> dict[str, Any]:
        params: dict[str, Any] = {"order_by": "last_activity_at", "sort": "desc", "simple": "true",
                                  "per_page": self.per_page}
        if scope in ("starred", "membership"):
            params[scope] = "true"
        if since and self.watermark is not None:
            params["last_activity_after"] = _iso(self.watermark - MARGIN)
        if page > 1:
            params["page"] = page
        return params

    async def run(self, scope: str | None, *, since: bool = False) -> ActivityResult:
        """Read the top of the activity-ordered list (more pages only while everything on a page
        moved). ``scope``: ``starred``, ``membership`` or None (every visible project); ``since``:
        send ``last_activity_after`` (servers that filter on it)."""
        if scope != self.scope:
            # Another list: what was learned about the old one says nothing about this one.
            self.scope, self.watermark = scope, None
            self.known.clear()
            self._etags.clear()
        result = ActivityResult(first=self.watermark is None)
        previous = self.watermark
        newest = previous
        for page in range(1, self.max_pages + 1):
            read = await self._engine.fetch_conditional("projects", self._params(scope, page, since),
                                                         model=list[Project])
            result.pages += 1
            left = self._urls.get(page)
            if left is not None and left != read.url:
                self._engine.cache.discard(left)
            self._urls[page] = read.url
            if read.etag is not None and self._etags.get(page) == read.etag:
                return result  # the same page as last time: nothing moved
            projects = read.value if read.value is not None else list_parser(Project).validate_json(read.content or b"[]")
            result.parsed += 1
            self._etags[page] = read.etag
            all_moved = bool(projects)
            for project in projects:
                moment = project.last_activity_at
                if moment is None:
                    all_moved = False
                    continue
                if newest is None or moment > newest:
                    newest = moment
                known = self.known.get(project.id)
                # A project first seen on a further page moved only if it is newer than the watermark.
                baseline = known if known is not None else previous
                if known is None or moment > known:
                    self.known[project.id] = moment
                if not result.first and (baseline is None or moment > baseline):
                    result.moved.add(project.id)
                if previous is not None and moment <= previous:
                    all_moved = False
            if result.first or not all_moved or len(projects) < self.per_page:
                break
        else:
            result.overflow = True
        self.watermark = newest
        self._forget_quiet()
        return result

    def _forget_quiet(self) -> None:
        """Keep :attr:`known` within :data:`KNOWN_LIMIT`: forget the projects quiet the longest."""
        excess = len(self.known) - KNOWN_LIMIT
        if excess > 0:
            for pid, _ in sorted(self.known.items(), key=lambda item: item[1])[:excess]:
                del self.known[pid]


def _iso(moment: datetime) -> str:
    """GitLab's timestamp form (UTC, milliseconds, ``Z``)."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
