"""The change recorder the client is handed: a record of every change, written before it leaves.

The client does not know where records go. Whoever builds it hands it a recorder (the console
hands it the session's :class:`labdeck.audit.log.AuditLog`), as it hands it the token; a client
built without one records nothing. Every request that is not GET/HEAD/OPTIONS goes through
:func:`recorded` (the decorator on :meth:`labdeck.api.core.HttpEngine.send`):

1. :meth:`ChangeRecorder.begin` writes the ``sent`` record before the request leaves and returns
   the record's handle, whose ``id`` goes to the server as ``X-Request-Id``; when it returns None
   the record could not be written and the change is refused here with
   :class:`~labdeck.api.errors.AuditUnavailable` (nothing is sent);
2. :meth:`ChangeRecorder.finish` completes it with the outcome the client read from the answer or
   the failure (:func:`record_answer`, :func:`record_failure`): ``done``, ``refused``, ``unknown``
   (no answer, or a 500/502/503/504: the change may or may not have happened) or ``failed``
   (certainly never reached the server).

A change refused locally by read-only mode is one record (``begin(..., refused_locally=True)``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from labdeck.api import errors

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Not recorded: the same set as ``labdeck.api.retry.IDEMPOTENT_METHODS`` (a test keeps them equal)."""

F = TypeVar("F", bound=Callable[..., Any])


def is_read(method: str, path: object) -> bool:
    """A read: a ``GET``-like method, or a ``POST`` of a GraphQL query to ``/api/graphql`` (the
    console sends no mutations): not recorded as a change, allowed read-only, retried."""
    verb = method.upper()
    return verb in READ_METHODS or (verb == "POST" and str(path).split("?", 1)[0].rstrip("/").endswith("/api/graphql"))


class RecordedChange(Protocol):
    """The handle of one change on record, between its ``sent`` and ``result`` records."""

    @property
    def id(self) -> str:
        """Sent to the server as ``X-Request-Id``."""
        ...


class ChangeRecorder(Protocol):
    """Where the client records each change it sends (implemented by the audit log)."""

    @property
    def enabled(self) -> bool:
        """False: changes go out without records (a recorder switched off on purpose)."""
        ...

    @property
    def write_error(self) -> str | None:
        """Why the last record could not be written, if it could not."""
        ...

    def begin(self, method: str, raw_path: str, *, params: Any = None, data: Any = None,
              json_body: Any = None, files: Any = None, refused_locally: bool = False) -> RecordedChange | None:
        """Record a change about to be sent; None when the record cannot be written and the change
        must not leave."""
        ...

    def finish(self, attempt: Any, outcome: str, *, status: int | None = None,
               server_date: str | None = None, detail: str | None = None) -> None:
        """Record how ``attempt`` (the handle :meth:`begin` returned) ended (``done``/``refused``/``unknown``/``failed``)."""
        ...

    def learn_user(self, username: str) -> None:
        """The account the requests are sent as (from the first ``GET /user`` answer)."""
        ...


def record_answer(recorder: ChangeRecorder, change: RecordedChange, response: Any) -> None:
    """Complete ``change`` from the server's answer (an ``httpx.Response``)."""
    status = int(response.status_code)
    if status < 300 or status == 304:
        outcome, detail = "done", None
    else:
        outcome = "unknown" if status in errors.AMBIGUOUS_STATUSES else "refused"
        detail = errors.server_message(_body(response), f"HTTP {status}")
    recorder.finish(change, outcome, status=status, server_date=response.headers.get("date"), detail=detail)


def record_failure(recorder: ChangeRecorder, change: RecordedChange, exc: BaseException) -> None:
    """Complete ``change`` after sending it raised ``exc``."""
    if isinstance(exc, errors.ReadOnlyError):
        outcome, detail = "refused", "read-only mode"
    elif isinstance(exc, errors.OutcomeUnknown):
        outcome, detail = "unknown", exc.user_message()
    elif isinstance(exc, errors.TransportError):
        # The engine raises TransportError for a change only when it certainly never left.
        outcome, detail = "failed", exc.user_message()
    else:
        outcome, detail = "unknown", f"interrupted ({type(exc).__name__})"
    recorder.finish(change, outcome, detail=detail)


def _learn_user(recorder: ChangeRecorder, response: Any) -> None:
    if response.status_code != 200:
        return
    body = _body(response)
    if isinstance(body, dict) and isinstance(body.get("username"), str):
        recorder.learn_user(body["username"])


def _body(response: Any) -> Any:
    try:
        content = response.content
    except Exception:  # a streamed body that was not read: nothing to learn from it
        return None
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace")


def recorded(send: F) -> F:
    """Decorator for :meth:`HttpEngine.send`: every non-GET is recorded by ``self.audit``.

    Engines without a recorder (``self.audit`` None) or with it disabled are untouched.
    """

    @functools.wraps(send)
    async def wrapper(self: Any, method: str, path: str, **kwargs: Any) -> Any:
        recorder: ChangeRecorder | None = getattr(self, "audit", None)
        verb = method.upper()
        if recorder is None or not recorder.enabled or is_read(verb, path):
            response = await send(self, method, path, **kwargs)
            if recorder is not None and verb == "GET" and path.strip("/") == "user":
                _learn_user(recorder, response)
            return response
        raw_path = self.http.base_url.join(path).raw_path.decode("ascii", "replace")
        body: dict[str, Any] = {"params": kwargs.get("params"), "data": kwargs.get("data"),
                                "json_body": kwargs.get("json"), "files": kwargs.get("files")}
        if getattr(self, "read_only", False):
            recorder.begin(verb, raw_path, refused_locally=True, **body)
            return await send(self, method, path, **kwargs)
        change = recorder.begin(verb, raw_path, **body)
        if change is None:
            raise errors.AuditUnavailable(verb, raw_path, recorder.write_error or "the audit log could not be written")
        kwargs["headers"] = {**(kwargs.get("headers") or {}), "X-Request-Id": change.id}
        try:
            response = await send(self, method, path, **kwargs)
        except BaseException as exc:
            record_failure(recorder, change, exc)
            raise
        record_answer(recorder, change, response)
        return response

    return wrapper  # type: ignore[return-value]
