"""A stand-in for ``client.jobs`` in follower unit tests: a job whose log the test controls.

It answers like the real client's ``JobsResource.trace`` would for a server that honours Range
(206/416) or one that ignores it (200 + ETag/304), and raises injected errors.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from types import SimpleNamespace

from labdeck.api.results import TraceRead


@dataclass
class FakeJobs:
    """The job ``(1, 7)``: ``log`` grows as the test's ``world`` callback says."""

    honour_range: bool = False
    log: bytes = b""
    status: str = "running"
    failures: list[Exception] = field(default_factory=list)
    """Raised, one per call, by the next ``get``/``trace`` calls."""
    calls: list[tuple[str, int, str | None]] = field(default_factory=list)
    bytes_sent: int = 0

    def _maybe_fail(self) -> None:
        if self.failures:
            raise self.failures.pop(0)

    async def get(self, project_id: object, job_id: int) -> SimpleNamespace:
        self._maybe_fail()
        return SimpleNamespace(id=job_id, status=self.status)

    async def trace(self, project_id: object, job_id: int, *, offset: int = 0,
                    etag: str | None = None) -> TraceRead:
        self._maybe_fail()
        self.calls.append(("trace", offset, etag))
        body = self.log
        if self.honour_range and offset > 0:
            if offset >= len(body):
                return TraceRead(416, b"", None, False, len(body))
            self.bytes_sent += len(body) - offset
            return TraceRead(206, body[offset:], None, True, len(body))
        tag = 'W/"' + hashlib.md5(body).hexdigest() + '"'
        if etag == tag:
            return TraceRead(304, b"", etag, False, None)
        self.bytes_sent += len(body)
        return TraceRead(200, body[offset:], tag, False, len(body))


def fake_client(jobs: FakeJobs) -> SimpleNamespace:
    """A stand-in client whose ``jobs`` is ``jobs``."""
    return SimpleNamespace(jobs=jobs)
