"""Sending under :class:`labdeck.api.core.HttpEngine`: retries, the per-client gate while the server
is in trouble, error mapping, read-only enforcement, rate-limit and connection-health tracking."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from labdeck.api import answers, errors
from labdeck.api.cache import EtagCache
from labdeck.api.holding import SendClock
from labdeck.api.recorder import ChangeRecorder, is_read, recorded
from labdeck.api.results import ConnectionHealth
from labdeck.api.retry import (
    GATED_STATUSES,
    IDEMPOTENT_METHODS,
    RateLimit,
    RetryPolicy,
    ServerGate,
    never_left,
    retryable_exception,
    server_wait,
)
from labdeck.api.wire import TOKEN_REFUSED, body_of, describe_transport_error, status_reason

FilesFactory = Callable[[], Mapping[str, Any]]
Belief = Callable[[httpx.Response], None]
"""Checks a read's ``200`` before the client believes it: raises :class:`errors.WrongAnswer`."""
_OK_NO_RAISE = frozenset({304})
_STALE_CONNECTION = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)
"""How a request on a kept-alive connection the server has just closed fails (no answer begun)."""
log = logging.getLogger(__name__)


ANSWER_ROOM = 3.0
"""Seconds of its call's budget a read must still have after the gate's wait to be sent: with less,
the gate's failure is said (``not what the API returns``, a 502) rather than a request sent to time
out as ``no answer within 30 s`` from a server that had been answering."""
SLOW_ANSWER = 8.0
"""Seconds a request may wait for its answer before the status line says so (``no answer for 9 s``):
longer than a slow page of a big project, shorter than the time budget that gives up."""


class _Retry(Exception):
    """Internal: a transport failure the engine retries (after its back-off)."""


class Exchange:
    """Owns one ``httpx.AsyncClient`` (and one for changes) and sends through it: a response or an
    :mod:`errors` exception. :class:`labdeck.api.core.HttpEngine` adds parsing, conditional reads
    and downloads."""

    def __init__(self, http: httpx.AsyncClient, *, read_only: bool, retry: RetryPolicy,
                 writes: httpx.AsyncClient | None = None) -> None:
        self._http = http
        self._writes = writes
        """The client changes go through (None: ``http``): see :data:`labdeck.api.transport.WRITE_KEEPALIVE`."""
        self.read_only = read_only
        self.retry = retry
        self.cache = EtagCache()
        self.audit: ChangeRecorder | None = None
        """The change recorder (:mod:`labdeck.api.recorder`); set by the client."""
        self.rate_limit: RateLimit | None = None
        self.gate = ServerGate(base=retry.base, clock=retry.clock, rng=retry.rng)
        """Holds every read back while the server answers 429/502/503/504 (see :class:`ServerGate`)."""
        self._health = ConnectionHealth()
        self._resent = False
        """A read was sent again at once since the last answer (see :meth:`_attempt`)."""
        self._unanswered: dict[int, SendClock] = {}
        """Requests sent and not answered yet: when each left, or that it is held back before
        leaving (:mod:`labdeck.api.holding`)."""

    @property
    def health(self) -> ConnectionHealth:
        """Connection state: ``ok``, ``reconnecting`` (retrying, or a request has waited
        :data:`SLOW_ANSWER` seconds for its answer: ``waiting`` says how long) or ``error`` (gave up)."""
        health = self._health
        left = [clock.left_at for clock in self._unanswered.values() if not clock.held]
        if health.state == "ok" and left:
            waited = time.monotonic() - min(left)
            if waited >= SLOW_ANSWER:
                return replace(health, state="reconnecting", waiting=waited)
        return health

    @property
    def http(self) -> httpx.AsyncClient:
        return self._http

    # --- sending -----------------------------------------------------------------------------------

    def _build(self, method: str, path: str, params: Any, data: Any, opened: Mapping[str, Any] | None,
               json: Any, headers: Mapping[str, str] | None) -> httpx.Request:
        return self._http.build_request(method, path, params=params, data=data, files=opened,
                                        json=json, headers=headers)

    @staticmethod
    def _close_files(opened: Mapping[str, Any] | None) -> None:
        for value in (opened or {}).values():
            handle = value[1] if isinstance(value, tuple) and len(value) > 1 else value
            close = getattr(handle, "close", None)
            if callable(close):
                close()

    def _mark(self, state: str, error: str | None = None, *, wait: float | None = None,
              answered: bool = False) -> None:
        """Note the connection's state; ``answered``: ``error`` is what the server said."""
        if state == "ok":
            self._health = ConnectionHealth("ok", None, datetime.now(UTC))
            self._resent = False
        else:
            retry_at = datetime.now(UTC) + timedelta(seconds=wait) if wait is not None else None
            self._health = ConnectionHealth(state, error, self._health.last_ok_at, retry_at,  # type: ignore[arg-type]
                                            error if answered else None)

    def _held(self, method: str, url: str, wait: float) -> errors.ApiError:
        """The error of a read the gate did not let go (nothing was sent): the last failure's kind."""
        gate = self.gate
        status = gate.status
        if status is None:  # no answer came: the server cannot be reached
            return errors.TransportError(gate.reason or "no answer", method=method, url=url)
        if status < 300:  # an answer that was not the API's (a sign-in page)
            return errors.WrongAnswer(gate.reason or answers.WEB_PAGE, method=method, url=url)
        if status == 429:
            return errors.RateLimited(429, method, url, "rate limited", retry_after=wait)
        return errors.ServerError(status, method, url, gate.reason or f"HTTP {status}")

    @property
    def retry_in(self) -> float | None:
        """Seconds until this client sends a read again while the server is in trouble (refused
        connections, 5xx, 429, a sign-in page): 0 when a read may go now (the next one tests the
        server), None when nothing is held back. :attr:`health` has it as ``retry_at``."""
        return None if self.gate.closed else self.gate.wait()

    def try_now(self) -> bool:
        """``ctrl+r`` while the server is in trouble: the next read tests it now rather than at the
        end of the back-off (see :meth:`ServerGate.hurry`); the countdown on screen follows. False
        when nothing is held back."""
        gate = self.gate
        if gate.closed:
            return False
        wait = gate.hurry()
        if self._health.state != "ok":
            self._mark("reconnecting", gate.reason, wait=wait, answered=gate.status is not None)
        return True

    async def _pass_gate(self, method: str, url: str, started: float, attempt: int) -> tuple[bool, int]:
        """Wait until a read may go while the server is in trouble: ``(probe, attempt)``, where
        ``probe`` says this request is the one testing the server. Raises the last failure when
        the wait does not fit the call's budget or attempts (nothing is sent then)."""
        gate, policy = self.gate, self.retry
        while not gate.closed:
            wait = gate.wait()
            if wait > 0:
                if (attempt + 1 >= policy.max_attempts
                        or policy.clock() - started + wait + ANSWER_ROOM > policy.budget):
                    raise self._held(method, url, wait)
                self._mark("reconnecting", gate.reason, wait=wait, answered=gate.status is not None)
                until = gate.open_until
                await gate.pause(policy.sleep, wait)  # ctrl+r or an answer may cut it short
                attempt += 1
                if gate.closed:
                    break
                if gate.open_until > until or gate.wait() > 0.01:
                    continue  # a probe failed while this read slept: the server asked for longer
                # The whole wait was slept (on the policy's clock, which may be a test's): go.
                if gate.claim():
                    return True, attempt
            elif gate.claim():
                return True, attempt
            remaining = policy.budget - (policy.clock() - started)
            try:
                async with asyncio.timeout(max(remaining, 0.0)):
                    await gate.probe_answered()
            except TimeoutError:
                raise self._held(method, url, gate.wait()) from None
        return False, attempt

    @recorded  # every non-GET is recorded by the client's change recorder (self.audit) before it leaves
    async def send(self, method: str, path: str, *, params: Any = None, data: Any = None,
                   files: FilesFactory | None = None, json: Any = None,
                   headers: Mapping[str, str] | None = None, stream: bool = False,
                   believe: Belief | None = None, marks_refusal: bool = True) -> httpx.Response:
        """Send with the retry rules of :mod:`labdeck.api.retry`; return the final response.

        Error statuses are returned, not raised (see :meth:`check`). Raises ReadOnlyError,
        TransportError, or OutcomeUnknown (a non-GET that may have reached the server). A read
        waits while :attr:`gate` holds the client back (the server failing or rate limiting), or
        raises that failure at once when the wait does not fit its budget.

        ``believe`` checks a read's ``200`` before the gate counts it as an answer: one it refuses
        (another JSON shape, items that are not the model's) is a failure like a 502 for the
        whole client (issue 32.3: a wrong-shape storm is held back too), and its WrongAnswer raised.

        ``marks_refusal=False``: a 401 to this request is the caller's to judge, not the sign of a
        refused token for the whole client (GraphQL may refuse a token that REST takes).
        """
        method = method.upper()
        idempotent = is_read(method, path)  # GraphQL queries are reads too
        policy = self.retry
        started = policy.clock()
        attempt = 0
        while True:
            if self.read_only and not idempotent:
                url = str(self._http.build_request(method, path, params=params).url)
                raise errors.ReadOnlyError(method, url)
            probe = False
            if idempotent and not self.gate.closed:
                where = str(self._http.build_request(method, path, params=params).url)
                probe, attempt = await self._pass_gate(method, where, started, attempt)
                if probe and headers and self._refused_bodies():
                    # While bodies are refused, the probe asks for one: a 304 would prove nothing.
                    headers = {k: v for k, v in headers.items() if k.lower() != "if-none-match"}
            try:
                response = await self._attempt(method, path, params, data, files, json, headers, stream,
                                               started, attempt, probe, marks_refusal=marks_refusal)
            except _Retry:
                if probe:
                    self.gate.abandoned()
                if not idempotent:
                    attempt += 1  # a read's next try is counted by the gate's wait (_pass_gate)
                continue
            except BaseException:
                if probe:
                    self.gate.abandoned()
                raise
            if not idempotent:
                return response
            status = response.status_code
            if status < 300 and not stream and answers.is_web_page(response.headers.get("content-type"),
                                                                  response.content):
                # A proxy's or SSO gateway's page in place of every answer: a failure like a 502
                # (the whole client holds back), never data.
                wait = self.gate.failed(status, answers.WEB_PAGE, probe=probe)
                self._mark("error", answers.WEB_PAGE, wait=wait, answered=True)
                raise errors.WrongAnswer(answers.WEB_PAGE, method=method, url=str(response.request.url))
            if status not in GATED_STATUSES:
                if believe is not None and status == 200 and not stream:
                    self._believe(response, believe, probe)
                if status == 304 and self._refused_bodies():
                    self._unproven(probe)
                    return response
                self.gate.answered()
                return response
            asked = server_wait(response.headers, policy.wall(), status)
            reason = "rate limited" if status == 429 else status_reason(response)
            wait = self.gate.failed(status, reason, asked, probe=probe)
            self._mark("error" if status >= 500 else "reconnecting", reason, wait=wait, answered=True)
            if status in policy.statuses and (asked is None or asked <= policy.max_wait) \
                    and attempt + 1 < policy.max_attempts and policy.clock() - started + wait <= policy.budget:
                await response.aclose()
                continue  # the gate makes this call (and every other read) wait, then retries
            return response

    async def _attempt(self, method: str, path: str, params: Any, data: Any, files: FilesFactory | None,
                       json: Any, headers: Mapping[str, str] | None, stream: bool, started: float,
                       attempt: int, probe: bool = False, *, marks_refusal: bool = True) -> httpx.Response:
        """One exchange; raises :class:`_Retry` when a transport failure may be retried: a read
        after the gate's wait (:meth:`_unreachable`), a change that never left after a back-off."""
        policy = self.retry
        idempotent = is_read(method, path)  # GraphQL queries are reads too
        opened = files() if files is not None else None
        request = self._build(method, path, params, data, opened, json, headers)
        url = str(request.url)
        remaining = policy.budget - (policy.clock() - started)
        resent = 0
        try:
            async with asyncio.timeout(max(remaining, 0.01)) as deadline:
                sender = self._http if idempotent or self._writes is None else self._writes
                clock = SendClock(deadline, time.monotonic())
                clock.attach(request)
                self._unanswered[id(request)] = clock
                try:
                    try:
                        response = await sender.send(request, stream=stream)
                    except _STALE_CONNECTION:
                        if not (idempotent and not probe and self._health.state == "ok" and not self._resent
                                and attempt + 1 < policy.max_attempts):
                            raise
                        # Most often a kept-alive connection the server closed as its idle time
                        # ran out, a moment before ours did: httpx drops it and the read goes once
                        # more, at once (an attempt of its policy); only a failure again counts.
                        # One such resend between answers: in a reset storm, reads failing
                        # together are not each sent twice.
                        self._resent, resent = True, 1
                        log.debug("resending %s %s after a dropped connection", method, errors.redact_url(url))
                        response = await sender.send(request, stream=stream)
                finally:
                    self._unanswered.pop(id(request), None)
                if stream and response.status_code >= 300:
                    await response.aread()
        except TimeoutError:
            text = f"no answer within {policy.budget:g} s"
            if idempotent:
                self._unreachable(text, probe, started, attempt, retry=False)
                raise errors.TransportError(text, method=method, url=url) from None
            self._mark("error", "no answer within the time budget")
            raise errors.OutcomeUnknown(text, method=method, url=url) from None
        except httpx.RequestError as exc:
            text = describe_transport_error(exc)
            if isinstance(exc, httpx.LocalProtocolError):
                # Refused while building the request head, before anything was sent; resending
                # the same headers cannot help.
                self._mark("error", text)
                raise errors.TransportError(text, method=method, url=url) from None
            if idempotent and retryable_exception(exc, method):
                # Refused, reset, timed out: the same gate as a 502, so every read of this client
                # waits together and one tests the server (issue 32: not 63 connects a minute).
                self._unreachable(text, probe, started, attempt + resent, retry=True)
                raise errors.TransportError(text, method=method, url=url) from None
            if retryable_exception(exc, method) and attempt + 1 < policy.max_attempts:
                delay = policy.backoff(attempt)
                if policy.clock() - started + delay < policy.budget:
                    self._mark("reconnecting", text)
                    await policy.sleep(delay)
                    raise _Retry from None
            self._mark("error", text)
            if idempotent or never_left(exc):
                raise errors.TransportError(text, method=method, url=url) from None
            raise errors.OutcomeUnknown(text, method=method, url=url) from None
        finally:
            self._close_files(opened)
        self._note(response, marks_refusal)
        return response

    def _believe(self, response: httpx.Response, believe: Belief, probe: bool) -> None:
        """Run ``believe`` on a read's 200; a refused answer fails the gate (every read holds back)."""
        try:
            believe(response)
        except errors.WrongAnswer as exc:
            self.cache.discard(str(response.request.url))  # nor any copy a 304 could stand for
            wait = self.gate.failed(response.status_code, exc.message, probe=probe)
            self._mark("error", exc.message, wait=wait, answered=True)
            raise

    def _refused_bodies(self) -> bool:
        """The client holds back because a 200's body was refused (another shape, cut off): not a
        web page in place of the API, which a 304 disproves (a sign-in gateway never answers one)."""
        gate = self.gate
        return (not gate.closed and gate.status is not None and gate.status < 300
                and gate.reason != answers.WEB_PAGE)

    def _unproven(self, probe: bool) -> None:
        """A 304 while answers' bodies are refused: it carries no body, so it proves nothing about
        them (a broken proxy mangles only what it passes on). The copy it stands for was believed
        before, so the read succeeds; the client keeps holding back and the status line keeps the
        trouble. (A probe asks without ``If-None-Match``, so one is rarely answered 304; if it is,
        the next read tests the server.)"""
        if probe:
            self.gate.abandoned()
        self._mark("error", self.gate.reason, wait=self.gate.wait(), answered=True)

    def _unreachable(self, text: str, probe: bool, started: float, attempt: int, *, retry: bool) -> None:
        """A read got no answer: the gate holds every read back (waits growing to a minute, with
        jitter); raises :class:`_Retry` when this call may try again within its attempts and budget."""
        policy = self.retry
        wait = self.gate.failed(None, text, probe=probe)
        if retry and attempt + 1 < policy.max_attempts and policy.clock() - started + wait < policy.budget:
            self._mark("reconnecting", text, wait=wait)
            raise _Retry from None
        self._mark("error", text, wait=wait)

    def _note(self, response: httpx.Response, marks_refusal: bool = True) -> None:
        limit = RateLimit.from_headers(response.headers)
        if limit is not None:
            self.rate_limit = limit
        status = response.status_code
        if status >= 500:
            self._mark("error", status_reason(response), answered=True)
        elif status == 401:
            if marks_refusal:
                self._mark("error", TOKEN_REFUSED, answered=True)
        elif status == 429:
            wait = server_wait(response.headers, self.retry.wall(), 429)
            self._mark("reconnecting", "rate limited", wait=wait, answered=True)
        else:
            self._mark("ok")

    def check(self, response: httpx.Response) -> None:
        """Raise the :mod:`errors` exception for an error status (304 is not an error)."""
        status = response.status_code
        if status < 300 or status in _OK_NO_RAISE:
            return
        method, url = response.request.method, str(response.request.url)
        if 300 <= status < 400:
            where = errors.redact_url(response.headers.get("location", "?"))
            raise errors.HttpError(status, method, url, f"unexpected redirect to {where}")
        retry_after = server_wait(response.headers, self.retry.wall(), status) if status == 429 else None
        # A 5xx to a write does not say whether the change happened: AmbiguousServerError is also an
        # OutcomeUnknown, so callers re-read instead of assuming it failed (or replaying it).
        raise errors.error_for_status(status, method, url, body_of(response), retry_after=retry_after,
                                      ambiguous=method.upper() not in IDEMPOTENT_METHODS)

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """:meth:`send` then :meth:`check`."""
        response = await self.send(method, path, **kwargs)
        self.check(response)
        return response
