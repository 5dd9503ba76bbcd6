"""``ApiClient``: the one object the UI and the tail follower use to talk to the server.

    async with ApiClient(base_url, Secret(token)) as client:
        me = await client.users.current()
        async for project in client.projects.list(membership=True):
            ...

It owns one ``httpx.AsyncClient`` for its lifetime (connection reuse for polling), attaches the
token per request, retries only what is safe to retry, and raises :mod:`labdeck.api.errors`.
"""

from __future__ import annotations

from functools import cached_property
from types import TracebackType
from typing import TYPE_CHECKING

import httpx

from labdeck.api.auth import TokenAuth, install_redactor
from labdeck.api.core import HttpEngine
from labdeck.api.dialect import Dialect, DialectDiscovery
from labdeck.api.recorder import ChangeRecorder
from labdeck.api.retry import RetryPolicy
from labdeck.api.transport import WRITE_LIMITS, build_http_client, share_event_hooks
from labdeck.base.secret import Secret

if TYPE_CHECKING:
    from labdeck.api.models import Version
    from labdeck.api.resources.badges import BadgesResource
    from labdeck.api.resources.exports import ExportsResource
    from labdeck.api.resources.hooks import HooksResource
    from labdeck.api.resources.integrations import IntegrationsResource
    from labdeck.api.resources.issues import IssuesResource
    from labdeck.api.resources.jobs import JobsResource
    from labdeck.api.resources.notifications import NotificationsResource
    from labdeck.api.resources.pipelines import PipelinesResource
    from labdeck.api.resources.projects import ProjectsResource
    from labdeck.api.resources.protected_branches import ProtectedBranchesResource
    from labdeck.api.resources.runners import RunnersResource
    from labdeck.api.resources.users import UsersResource

API_PREFIX = "/api/v4"


def instance_root(base_url: str) -> str:
    """``https://host[/prefix]`` without a trailing slash or ``/api/v4``."""
    root = base_url.strip().rstrip("/")
    if root.endswith(API_PREFIX):
        root = root[: -len(API_PREFIX)]
    return root


class ApiClient(HttpEngine):
    """Async client for every endpoint of the two spec documents.

    Args:
        base_url: the instance root (``https://gitlab.example.com``); a trailing ``/api/v4`` is accepted.
        token: the personal token, sent as ``PRIVATE-TOKEN`` to this origin only; None for anonymous.
        read_only: refuse every non-GET before sending (settable later).
        verify: True (system/env/certifi trust), a CA bundle path, or False. False is the explicit
            ``--insecure`` switch: nothing else turns verification off.
        ca_file: a per-profile CA bundle, used when ``verify`` is True.
        timeout: an ``httpx.Timeout``; default connect 5 s, read 30 s, pool 5 s.
        retry: a :class:`RetryPolicy` (attempts, backoff, budget; injectable sleep/clock for tests).
        transport: test seam only; a custom transport disables ``HTTPS_PROXY``/``NO_PROXY``.
        audit: the change recorder (:class:`labdeck.api.recorder.ChangeRecorder`; the console hands
            the session's audit log). Without one, changes are sent unrecorded. ``client.audit``.
    """

    def __init__(self, base_url: str, token: Secret | None = None, *, read_only: bool = False,
                 verify: bool | str = True, timeout: httpx.Timeout | float | None = None,
                 retry: RetryPolicy | None = None, transport: httpx.AsyncBaseTransport | None = None,
                 ca_file: str | None = None, user_agent: str = "labdeck/0.1", audit: ChangeRecorder | None = None) -> None:
        if token is not None and not isinstance(token, Secret):
            raise TypeError("token must be a labdeck.base.secret.Secret")
        self.base_url = instance_root(base_url)
        self.api_url = self.base_url + API_PREFIX
        self.insecure = verify is False
        install_redactor(token)
        auth = TokenAuth(token, self.base_url) if token else None
        http = build_http_client(self.api_url + "/", auth=auth, verify=verify, ca_file=ca_file,
                                 timeout=timeout, transport=transport, user_agent=user_agent)
        # Changes on their own short-lived connections, reads on long-lived ones (see transport).
        writes = build_http_client(self.api_url + "/", auth=auth, verify=verify, ca_file=ca_file,
                                   timeout=timeout, transport=transport, user_agent=user_agent,
                                   limits=WRITE_LIMITS)
        share_event_hooks(http, writes)
        super().__init__(http, read_only=read_only, retry=retry or RetryPolicy(), writes=writes)
        self.dialects = DialectDiscovery(self)
        self.audit = audit

    # Each endpoint family is imported (with its models) and bound when first used: `labdeck
    # triage` reads projects and jobs, and a command's start-up pays for no other family.

    @cached_property
    def users(self) -> UsersResource:
        from labdeck.api.resources.users import UsersResource

        return UsersResource(self)

    @cached_property
    def projects(self) -> ProjectsResource:
        from labdeck.api.resources.projects import ProjectsResource

        return ProjectsResource(self, self.dialects)

    @cached_property
    def hooks(self) -> HooksResource:
        from labdeck.api.resources.hooks import HooksResource

        return HooksResource(self)

    @cached_property
    def badges(self) -> BadgesResource:
        from labdeck.api.resources.badges import BadgesResource

        return BadgesResource(self)

    @cached_property
    def protected_branches(self) -> ProtectedBranchesResource:
        from labdeck.api.resources.protected_branches import ProtectedBranchesResource

        return ProtectedBranchesResource(self)

    @cached_property
    def exports(self) -> ExportsResource:
        from labdeck.api.resources.exports import ExportsResource

        return ExportsResource(self)

    @cached_property
    def runners(self) -> RunnersResource:
        from labdeck.api.resources.runners import RunnersResource

        return RunnersResource(self, self.dialects)

    @cached_property
    def jobs(self) -> JobsResource:
        from labdeck.api.resources.jobs import JobsResource

        return JobsResource(self)

    @cached_property
    def pipelines(self) -> PipelinesResource:
        from labdeck.api.resources.pipelines import PipelinesResource

        return PipelinesResource(self, self.dialects)

    @cached_property
    def issues(self) -> IssuesResource:
        from labdeck.api.resources.issues import IssuesResource

        return IssuesResource(self)

    @cached_property
    def integrations(self) -> IntegrationsResource:
        from labdeck.api.resources.integrations import IntegrationsResource

        return IntegrationsResource(self, self.dialects)

    @cached_property
    def notifications(self) -> NotificationsResource:
        from labdeck.api.resources.notifications import NotificationsResource

        return NotificationsResource(self)

    def __repr__(self) -> str:
        return f"ApiClient({self.base_url!r}, read_only={self.read_only})"

    async def version(self) -> Version:
        """``GET /version``."""
        return await self.users.version()

    @property
    def dialect(self) -> Dialect:
        """What the server speaks, as known now (the spec's dialect until :meth:`discover` ran or
        an integration call discovered it). Never does I/O."""
        return self.dialects.current

    async def discover(self, *, refresh: bool = False) -> Dialect:
        """Find out what the server speaks (``GET /version``, once; cached for this client).
        Never raises: on failure the spec's dialect is used and retried later. Run it in the
        background at start-up; calls that depend on it also trigger it."""
        return await self.dialects.discover(refresh=refresh)

    async def has_pipelines_api(self, project: int | str | None = None) -> bool:
        """Whether the server has ``GET /projects/:id/pipelines`` (GitLab: yes; the spec and the
        simulator's spec dialect: no). Asked once per client, then known (``dialect.lists_pipelines``).
        ``project``: one the caller can read, to ask about (optional)."""
        return await self.pipelines.available(project)

    @property
    def closed(self) -> bool:
        return self._http.is_closed

    async def aclose(self) -> None:
        """Close the connection pools (idempotent)."""
        await self._http.aclose()
        if self._writes is not None:
            await self._writes.aclose()

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
