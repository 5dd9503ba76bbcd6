"""The request engine under :class:`labdeck.api.client.ApiClient`: retries, error mapping,
read-only enforcement, rate-limit and health tracking, conditional GETs and streamed downloads."""

from __future__ import annotations

import asyncio
import json as jsonlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx

from labdeck.api import answers, errors
from labdeck.api.cache import EtagCache
from labdeck.api.recorder import ChangeRecorder, is_read, recorded
from labdeck.api.results import ActionResult, ConnectionHealth
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
from labdeck.base import logsafe

T = TypeVar("T")
Progress = Callable[[int, int | None], None]
FilesFactory = Callable[[], Mapping[str, Any]]
Belief = Callable[[httpx.Response], None]
"""Checks a read's ``200`` before the client believes it: raises :class:`errors.WrongAnswer`."""
_OK_NO_RAISE = frozenset({304})


SLOW_ANSWER = 8.0
"""Seconds a request may wait for its answer before the status line says so (``no answer for 9 s``):
longer than a slow page of a big project, shorter than the time budget that gives up."""

def _claim(part: Path, target: Path) -> None:
    """Give the finished ``part`` its final name, never replacing a file that is already there."""
    try:
        os.link(part, target)  # fails when ``target`` exists: no silent replacement
    except FileExistsError:
        raise FileExistsError(f"{target} already exists; nothing was replaced") from None
    except OSError:  # a file system without hard links
        if target.exists():
            raise FileExistsError(f"{target} already exists; nothing was replaced") from None
        os.replace(part, target)
        return
    part.unlink(missing_ok=True)


def describe_transport_error(exc: BaseException) -> str:
    """A short description of an httpx transport failure, safe to show (never quotes a header)."""
    names: dict[type[BaseException], str] = {
        httpx.ConnectTimeout: "connection timed out",
        httpx.ReadTimeout: "no answer in time",
        httpx.WriteTimeout: "sending timed out",
        httpx.PoolTimeout: "no free connection in time",
        httpx.ConnectError: "connection failed",
        httpx.RemoteProtocolError: "connection dropped",
        httpx.ReadError: "connection broken while reading",
        httpx.WriteError: "connection broken while sending",
    }
    if isinstance(exc, httpx.LocalProtocolError):
        # h11 quotes the offending header value, and the one header we add holds the token.
        return "invalid request header (check the token)"
    name = names.get(type(exc), type(exc).__name__)
    detail = logsafe.redact(str(exc).strip())
    return f"{name} ({detail})" if detail and detail != name else name


def body_of(response: httpx.Response) -> Any:
    """The parsed JSON body, the text when it is not JSON, or None when empty."""
    content = response.content
    if not content:
        return None
    try:
        return jsonlib.loads(content)
    except ValueError:
        return response.text


def _filename_from(disposition: str | None) -> str | None:
    if not disposition:
        return None
    match = re.search(r"filename\*?=(?:UTF-8'')?\"?([^\";]+)\"?", disposition)
    if not match:
        return None
    name = os.path.basename(match.group(1).strip().replace("\\", "/"))
    return name if name not in ("", ".", "..") else None


class _Retry(Exception):
    """Internal: a transport failure the engine retries (after its back-off)."""


TOKEN_REFUSED = "token refused (401)"
"""What the status line and the board say once the server refuses the token."""


def status_reason(response: httpx.Response) -> str:
    """A short, safe name for an error answer: ``502 Bad Gateway (nginx)`` for a proxy's HTML page,
    the server's message otherwise (never the page itself)."""
    status = response.status_code
    try:
        body = body_of(response)
    except httpx.ResponseNotRead:
        body = None
    if isinstance(body, str):
        page = errors.html_page_summary(body, response.headers.get("server"))
        text = page if page is not None else body
    else:
        text = errors.server_message(body, f"HTTP {status}")
    text = " ".join(logsafe.printable(text).split())[:80] or f"HTTP {status}"
    return text if text.startswith(str(status)) else f"HTTP {status}: {text}"


@dataclass(frozen=True)
class ConditionalRead:
    """One conditional GET: the full body either way; ``not_modified`` when it came from the cache."""

    url: str
    content: bytes
    headers: httpx.Headers
    etag: str | None
    not_modified: bool
    value: Any = None  # the body parsed as the caller's ``model`` (a 200 read with one)


class HttpEngine:
    """Owns one ``httpx.AsyncClient`` and turns HTTP exchanges into models or :mod:`errors`."""

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
        self._unanswered: dict[int, float] = {}
        """Requests sent and not answered yet: when each left (``time.monotonic``)."""

    @property
    def health(self) -> ConnectionHealth:
        """Connection state: ``ok``, ``reconnecting`` (retrying, or a request has waited
        :data:`SLOW_ANSWER` seconds for its answer: ``waiting`` says how long) or ``error`` (gave up)."""
        health = self._health
        if health.state == "ok" and self._unanswered:
            waited = time.monotonic() - min(self._unanswered.values())
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
                if attempt + 1 >= policy.max_attempts or policy.clock() - started + wait > policy.budget:
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
                   believe: Belief | None = None) -> httpx.Response:
        """Send with the retry rules of :mod:`labdeck.api.retry`; return the final response.

        Error statuses are returned, not raised (see :meth:`check`). Raises ReadOnlyError,
        TransportError, or OutcomeUnknown (a non-GET that may have reached the server). A read
        waits while :attr:`gate` holds the client back (the server failing or rate limiting), or
        raises that failure at once when the wait does not fit its budget.

        ``believe`` checks a read's ``200`` before the gate counts it as an answer: one it refuses
        (another JSON shape, items that are not the model's) is a failure like a 502 for the
        whole client (issue 32.3: a wrong-shape storm is held back too), and its WrongAnswer raised.
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
                                               started, attempt, probe)
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
                       attempt: int, probe: bool = False) -> httpx.Response:
        """One exchange; raises :class:`_Retry` when a transport failure may be retried: a read
        after the gate's wait (:meth:`_unreachable`), a change that never left after a back-off."""
        policy = self.retry
        idempotent = is_read(method, path)  # GraphQL queries are reads too
        opened = files() if files is not None else None
        request = self._build(method, path, params, data, opened, json, headers)
        url = str(request.url)
        remaining = policy.budget - (policy.clock() - started)
        try:
            async with asyncio.timeout(max(remaining, 0.01)):
                sender = self._http if idempotent or self._writes is None else self._writes
                self._unanswered[id(request)] = time.monotonic()
                try:
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
                self._unreachable(text, probe, started, attempt, retry=True)
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
        self._note(response)
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

    def _retry_wait(self, response: httpx.Response, attempt: int) -> float | None:
        """The wait before retrying a retryable status; None when the server asks too long."""
        asked = server_wait(response.headers, self.retry.wall(), response.status_code)
        if asked is None:
            return self.retry.backoff(attempt)
        return asked if asked <= self.retry.max_wait else None

    def _note(self, response: httpx.Response) -> None:
        limit = RateLimit.from_headers(response.headers)
        if limit is not None:
            self.rate_limit = limit
        status = response.status_code
        if status >= 500:
            self._mark("error", status_reason(response), answered=True)
        elif status == 401:
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

    # --- parsing -----------------------------------------------------------------------------------

    @staticmethod
    def parse(response: httpx.Response, model: Any) -> Any:
        """Validate the body against ``model`` (a type such as ``Project`` or ``list[Job]``); a body
        that is not it raises :class:`errors.WrongAnswer` saying why (a web page, cut off …)."""
        return answers.validate(response.content, response.headers, model, response.request.method,
                         str(response.request.url))

    async def get(self, path: str, model: Any, params: Any = None) -> Any:
        """GET and parse (an answer that does not parse is a failed read, see ``send``'s ``believe``)."""
        checked = answers.Checked(model)
        response = await self.request("GET", path, params=params, believe=checked)
        return checked.value if response.status_code == 200 else self.parse(response, model)

    async def call(self, method: str, path: str, model: Any = None, **kwargs: Any) -> Any:
        """Any method; parse the body with ``model`` unless it is None or the body is empty."""
        response = await self.request(method, path, **kwargs)
        if model is None or not response.content:
            return None
        return self.parse(response, model)

    async def action(self, method: str, path: str, model: Any, **kwargs: Any) -> ActionResult[Any]:
        """An action that may answer 304 ("nothing changed") instead of the new state."""
        response = await self.request(method, path, **kwargs)
        if response.status_code == 304:
            return ActionResult(None, changed=False, status=304)
        value = self.parse(response, model) if response.content else None
        return ActionResult(value, changed=True, status=response.status_code)

    async def fetch_conditional(self, path: str, params: Any = None, *, expect: answers.Shape | None = None,
                                model: Any = None) -> ConditionalRead:
        """GET ``path`` with ``If-None-Match`` from the client's ETag cache; always the full body.

        The cache is shared by every caller of this client, so the server may answer 304 to a
        caller that never saw the data: the body then comes from the cache entry the ETag was
        sent from (never an empty "no data"). A 304 without a cached copy (e.g. a proxy that
        invented it) is retried once without the condition.

        A 200 is checked before it is stored or returned (:mod:`labdeck.api.answers`): JSON, whole,
        and of the ``expect``-ed shape (a listing, asked with ``per_page``, is a list when the
        caller does not say). One that is not raises :class:`errors.WrongAnswer` and leaves nothing
        in the cache: the next read asks without ``If-None-Match`` and gets the real answer. With
        ``model``, a 200 is parsed before it is stored (``value``): a 304 stands for a believed body.
        """
        url = str(self._http.build_request("GET", path, params=params).url)
        cached = self.cache.get(url)
        headers = {"If-None-Match": cached.etag} if cached else None
        checked = answers.Checked(model, expect)
        response = await self.request("GET", url, headers=headers, believe=checked)
        if response.status_code == 304:
            if cached is not None:
                return ConditionalRead(url, cached.content, cached.headers, cached.etag, True)
            self.cache.discard(url)
            response = await self.request("GET", url, believe=checked)
            if response.status_code == 304:
                raise errors.UnexpectedResponse("304 Not Modified to an unconditional request",
                                                method="GET", url=url)
        self.cache.store(url, response)
        return ConditionalRead(url, response.content, response.headers, response.headers.get("etag"), False,
                               checked.value)

    async def reread(self, url: str, *, expect: answers.Shape | None = None, model: Any = None) -> ConditionalRead:
        """After a read of ``url`` came from the cache (a 304) and did not parse: forget the
        cached copy and read it again without ``If-None-Match``."""
        self.cache.discard(url)
        return await self.fetch_conditional(url, expect=expect, model=model)

    async def poll(self, path: str, model: Any, params: Any = None, *, since: str | None = None) -> ActionResult[Any]:
        """A conditional GET of one resource for a caller that may already hold a copy.

        ``since`` is the :attr:`ActionResult.etag` of the result the caller holds (None: it holds
        nothing). A caller without a copy always gets the value with ``changed`` True, even when
        the server answered 304 to the client (the cached body is used). Only when the server's
        ETag still equals ``since`` is the answer ``changed`` False with ``value`` None, and
        nothing is parsed.
        """
        expect = answers.shape_of(model)
        read = await self.fetch_conditional(path, params, expect=expect, model=model)
        status = 304 if read.not_modified else 200
        if since is not None and read.etag == since:
            return ActionResult(None, changed=False, status=status, etag=read.etag)
        value = read.value
        if read.not_modified:
            try:
                value = answers.validate(read.content, read.headers, model, "GET", read.url)
            except errors.WrongAnswer:
                # The copy the 304 stood for does not parse: never believed again, read afresh.
                read = await self.reread(read.url, expect=expect, model=model)
                status, value = 200, read.value
        return ActionResult(value, changed=True, status=status, etag=read.etag)

    def forget_listing(self, path: str) -> int:
        """Drop the cached pages of the listing at ``path`` (every query string): a view that read
        a big listing conditionally lets go of its bodies when it closes (a 5,000-job pipeline's
        pages are 8 MB). A later read of it just goes without ``If-None-Match``. Returns how many
        entries went."""
        return self.cache.discard_path(str(self._http.build_request("GET", path).url.copy_with(query=None)))

    async def get_cached(self, path: str, model: Any, params: Any = None) -> Any:
        """:meth:`poll`, returning only the value."""
        return (await self.poll(path, model, params)).value

    # --- downloads ---------------------------------------------------------------------------------

    async def download(self, path: str, dest: Path, *, params: Any = None, progress: Progress | None = None,
                       chunk_size: int = 256 * 1024) -> Path:
        """Stream a GET body to ``dest`` (a file, or a directory to use the server's file name).

        The body goes to a new ``<dest>.<random>.part`` and is renamed when complete, so a broken
        transfer never leaves a truncated file under the final name. ``progress(done, total)`` is
        called per chunk (``total`` None when the size is unknown). Memory stays at about one chunk.
        """
        response = await self.send("GET", path, params=params, stream=True)
        method, url = "GET", str(response.request.url)
        part: Path | None = None
        try:
            self.check(response)
            target = Path(dest)
            if target.is_dir():  # noqa: ASYNC240 - a single stat, not worth a thread hop
                name = _filename_from(response.headers.get("content-disposition")) or "download"
                target = target / name
            length = response.headers.get("content-length")
            total = int(length) if length and length.isdigit() else None
            done = 0
            if progress is not None:
                progress(0, total)
            # Private to the user (0600): artifacts and exports may hold secrets of the project. A new
            # file (O_EXCL): a leftover or a browser's ``<name>.part`` is neither truncated nor lends
            # its mode to the download.
            descriptor, part_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
            part = Path(part_name)
            with os.fdopen(descriptor, "wb") as handle:
                async for chunk in response.aiter_bytes(chunk_size):
                    handle.write(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
            _claim(part, target)
            part = None
            return target
        except httpx.RequestError as exc:
            self._mark("error", describe_transport_error(exc))
            raise errors.TransportError(f"download interrupted: {describe_transport_error(exc)}", method=method, url=url) from None
        finally:
            await response.aclose()
            if part is not None:
                part.unlink(missing_ok=True)
