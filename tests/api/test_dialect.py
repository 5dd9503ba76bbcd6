"""Dialect discovery and the integrations/runners/projects calls that depend on it.

The simulator plays the spec dialect (``10.8.7-labdeck-sim``, neutral slugs): those checks run
over real HTTP. Real GitLab servers (10.x without a list endpoint, 13.x lists without ``slug``,
16.x ``/integrations``) are wire shapes the simulator cannot produce yet, so they are served by
MockTransport handlers that answer as the GitLab docs show (docs/wire-facts.md §5).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.dialect import SPEC, Dialect, dialect_from_version
from labdeck.api.resources.integration_kinds import INTEGRATIONS
from tests.support.fake_time import FakeTime
from tests.support.mock_api import mock_client

PROJECT = "platform/api-gateway"
NEUTRAL_ONLY = {slug for slug, spec in INTEGRATIONS.items() if spec.real_slug != slug}


def _record(client: ApiClient) -> list[httpx.Request]:
    seen: list[httpx.Request] = []

    async def hook(request: httpx.Request) -> None:
        seen.append(request)

    client.http.event_hooks["request"].append(hook)
    return seen


# --- against the simulator (spec dialect) --------------------------------------------------------


async def test_discovery_against_the_simulator(private_admin: ApiClient) -> None:
    client = private_admin
    assert client.dialect == SPEC and not client.dialect.discovered  # nothing asked yet
    dialect = await client.discover()
    assert dialect.discovered and dialect.flavour == "spec" and dialect.version == "10.8.7-labdeck-sim"
    assert dialect.release == (10, 8) and dialect.integrations_path == "services"
    requests = _record(client)
    assert await client.discover() is dialect and requests == []  # cached: no second GET /version


async def test_integrations_speak_neutral_slugs_to_the_spec_simulator(private_admin: ApiClient) -> None:
    client = private_admin
    requests = _record(client)
    saved = await client.integrations.update(PROJECT, "chat-d", {"webhook": "https://hooks.example/x",
                                                                 "channel": "#ops"})
    again = await client.integrations.get(PROJECT, "slack")  # a real slug is translated too
    listed = await client.integrations.list(PROJECT)
    paths = [r.url.path for r in requests if "/services" in r.url.path or "/integrations" in r.url.path]
    assert paths[0].endswith("/services/chat-d") and paths[1].endswith("/services/chat-d")
    assert saved is not None and saved.title == "Slack notifications" and saved.active
    assert again.slug == "chat-d" and again.properties and again.properties.get("channel") == "#ops"
    chat = next(item for item in listed if item.slug == "chat-d")
    assert chat.title == "Slack notifications" and client.dialect.lists_integrations is True
    assert client.integrations.title("chat-d") == client.integrations.title("slack") == "Slack notifications"


async def test_runner_pause_is_sent_as_active_to_the_spec_simulator(private_admin: ApiClient) -> None:
    client = private_admin
    runner = next(r for r in await client.runners.list_all().all() if r.active)
    requests = _record(client)
    paused = await client.runners.update(runner.id, paused=True)
    body = parse_qs(requests[-1].content.decode())
    assert body == {"active": ["false"]}
    assert paused.paused is True and paused.active is False
    resumed = await client.runners.update(runner.id, active=True)
    assert resumed.paused is False and resumed.active is True


# --- GitLab servers (MockTransport) --------------------------------------------------------------


class FakeGitLab:
    """Answers /version and the integration routes the way a GitLab release does."""

    def __init__(self, version: str, *, list_slugs: bool = True) -> None:
        self.version = version
        self.release = tuple(int(part) for part in version.split(".")[:2])
        self.list_slugs = list_slugs
        self.requests: list[httpx.Request] = []
        self.stored: dict[str, dict[str, Any]] = {
            "slack": {"webhook": "https://hooks.slack.example/T0", "channel": "#ops"},
            "bamboo": {"bamboo_url": "https://bamboo.example", "build_key": "KEY", "username": "ci"},
        }

    @property
    def prefix(self) -> str:
        return "integrations" if self.release >= (14, 4) else "services"

    def record(self, slug: str) -> dict[str, Any]:
        title = {"slack": "Slack notifications", "bamboo": "Atlassian Bamboo CI"}.get(slug, slug.title())
        record: dict[str, Any] = {"id": len(slug), "title": title, "active": slug in self.stored,
                                  "push_events": True, "properties": dict(self.stored.get(slug, {}))}
        if self.list_slugs:
            record["slug"] = slug
        return record

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        parts = request.url.path.split("/")
        if request.url.path == "/api/v4/version":
            return httpx.Response(200, json={"version": self.version, "revision": "abc123"})
        if len(parts) >= 6 and parts[5] in ("services", "integrations"):
            if parts[5] == "integrations" and self.release < (14, 4):
                return httpx.Response(404, json={"error": "404 Not Found"})
            if len(parts) == 6:
                if self.release < (12, 7):
                    return httpx.Response(404, json={"error": "404 Not Found"})
                return httpx.Response(200, json=[self.record(slug) for slug in self.stored])
            slug = parts[6]
            if slug in NEUTRAL_ONLY:
                if self.release >= (14, 4):
                    return httpx.Response(404, json={"error": "404 Not Found"})
                return httpx.Response(400, json={"error": "service_slug does not have a valid value"})
            if request.method == "PUT":
                self.stored[slug] = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
            return httpx.Response(200, json=self.record(slug))
        if parts[3:5] == ["runners", "6"] and request.method == "PUT":
            sent = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
            paused = sent.get("paused") == "true" or sent.get("active") == "false"
            return httpx.Response(200, json={"id": 6, "active": not paused, "paused": paused,
                                             "tag_list": None} if self.release >= (14, 8)
                                  else {"id": 6, "active": not paused, "tag_list": None})
        if parts[3:5] == ["projects", "1"] and request.method == "PUT":
            return httpx.Response(200, json={"id": 1, "name": "p", "topics": ["a"], "tag_list": None})
        return httpx.Response(404, json={"error": "404 Not Found"})

    def paths(self) -> list[str]:
        return [r.url.path for r in self.requests if r.url.path != "/api/v4/version"]


async def test_gitlab_16_uses_integrations_and_real_slugs_both_ways() -> None:
    server = FakeGitLab("16.11.2-ee")
    async with mock_client(server) as client:
        dialect = await client.discover()
        chat = await client.integrations.get(1, "chat-d")
        bamboo = await client.integrations.update(1, "ci-server-a", {"ci_server_a_url": "https://b.example",
                                                                     "build_key": "K", "username": "u",
                                                                     "password": "p"})
        listed = await client.integrations.list(1)
    assert dialect.flavour == "gitlab" and dialect.integrations_path == "integrations"
    assert server.paths()[:2] == ["/api/v4/projects/1/integrations/slack", "/api/v4/projects/1/integrations/bamboo"]
    assert parse_qs(server.requests[2].content.decode())["bamboo_url"] == ["https://b.example"]
    assert chat.slug == "slack" and chat.title == "Slack notifications"
    # Properties come back under the spec's names, so the form built from INTEGRATIONS is filled in.
    assert bamboo is not None and bamboo.properties and bamboo.properties["ci_server_a_url"] == "https://b.example"
    assert {item.slug for item in listed} == {"slack", "bamboo"}
    assert not any(part in NEUTRAL_ONLY for path in server.paths() for part in path.split("/"))


async def test_gitlab_10_has_no_list_endpoint_so_each_integration_is_read() -> None:
    server = FakeGitLab("10.8.7")
    async with mock_client(server) as client:
        listed = await client.integrations.list(1)
        again = await client.integrations.list(1)
    assert client.dialect.integrations_path == "services" and client.dialect.lists_integrations is False
    assert sorted(item.slug or "" for item in listed) == ["bamboo", "slack"] == sorted(i.slug or "" for i in again)
    assert next(i for i in listed if i.slug == "slack").title == "Slack notifications"
    # Only real slugs went on the wire, and the missing list endpoint was asked about only once.
    assert all("/services/" in path for path in server.paths() if path.count("/") > 5)
    assert not any(part in NEUTRAL_ONLY for path in server.paths() for part in path.split("/"))
    assert server.paths().count("/api/v4/projects/1/services") == 0  # 10.x: not even tried


async def test_gitlab_13_lists_without_slug_fields_slugs_come_from_titles() -> None:
    server = FakeGitLab("13.12.15", list_slugs=False)
    async with mock_client(server) as client:
        listed = await client.integrations.list(1)
    assert server.paths() == ["/api/v4/projects/1/services"]
    assert {(i.slug, i.title) for i in listed} == {("slack", "Slack notifications"), ("bamboo", "Atlassian Bamboo CI")}


async def test_a_refused_neutral_slug_is_asked_again_with_the_real_one_and_remembered() -> None:
    # A server that calls itself a simulator but speaks GitLab slugs (e.g. a GitLab dialect).
    server = FakeGitLab("13.12.0")
    original = server.__call__

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v4/version":
            server.requests.append(request)
            return httpx.Response(200, json={"version": "13.12.0-labdeck-sim"})
        return original(request)

    async with mock_client(handler) as client:
        first = await client.integrations.get(1, "chat-d")
        second = await client.integrations.get(1, "chat-d")
    assert first.slug == second.slug == "slack" and client.dialect.flavour == "gitlab"
    assert server.paths() == ["/api/v4/projects/1/services/chat-d", "/api/v4/projects/1/services/slack",
                              "/api/v4/projects/1/services/slack"]


async def test_a_missing_project_is_not_mistaken_for_a_refused_slug() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v4/version":
            return httpx.Response(200, json={"version": "16.0.0"})
        return httpx.Response(404, json={"message": "404 Project Not Found"})

    calls = []
    async with mock_client(lambda r: calls.append(r) or handler(r)) as client:  # type: ignore[func-returns-value]
        with pytest.raises(errors.NotFound, match="Project Not Found"):
            await client.integrations.get(99, "chat-d")
    assert len(calls) == 2  # /version and one GET, no second spelling


async def test_discovery_failure_falls_back_to_the_spec_quickly_and_is_retried_later() -> None:
    fake = FakeTime()
    state = {"up": False}

    def handler(request: httpx.Request) -> httpx.Response:
        if not state["up"]:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json={"version": "17.3.1"})

    async with mock_client(handler, fake=fake) as client:
        client.dialects.retry_after = 0.0
        down = await client.discover()
        state["up"] = True
        up = await client.discover()
    assert not down.discovered and down.flavour == "spec" and down.problem
    assert up.discovered and up.flavour == "gitlab" and up.release == (17, 3)


def test_versions_map_to_dialects() -> None:
    assert dialect_from_version({"version": "10.8.7"}).integrations_path == "services"
    assert dialect_from_version({"version": "10.8.7"}).lists_integrations is False
    assert dialect_from_version({"version": "12.7.0"}).lists_integrations is True
    assert dialect_from_version({"version": "14.4.0"}).integrations_path == "integrations"
    assert dialect_from_version({"version": "14.7.9"}).runner_pause_param == "active"
    assert dialect_from_version({"version": "14.8.0"}).runner_pause_param == "paused"
    assert dialect_from_version({"version": "18.2.1-ee"}).project_topics_param == "topics"
    assert dialect_from_version({"version": "10.8.7-labdeck-sim"}).flavour == "spec"
    assert dialect_from_version({"nonsense": True}).flavour == "spec"
    assert Dialect().runner_pause_param == "active" and not Dialect().keyset_projects


@pytest.mark.parametrize(("version", "sent"), [("16.0.1", {"paused": ["true"]}), ("11.9.0", {"active": ["false"]})])
async def test_runner_pause_speaks_the_servers_parameter(version: str, sent: dict[str, list[str]]) -> None:
    server = FakeGitLab(version)
    async with mock_client(server) as client:
        runner = await client.runners.update(6, paused=True)
        with pytest.raises(ValueError):
            await client.runners.update(6, paused=True, active=True)
    put = next(r for r in server.requests if r.method == "PUT")
    assert parse_qs(put.content.decode()) == sent
    assert runner.paused is True and runner.active is False and runner.tag_list == []


async def test_project_tags_go_as_topics_to_servers_that_renamed_them() -> None:
    server = FakeGitLab("15.0.0")
    async with mock_client(server) as client:
        project = await client.projects.update(1, name="p", tag_list=["a"])
    put = next(r for r in server.requests if r.method == "PUT")
    assert "topics[]" in parse_qs(put.content.decode()) and "tag_list[]" not in parse_qs(put.content.decode())
    assert project.topics == ["a"] and project.tag_list == ["a"]


def test_every_integration_has_a_title_and_a_real_slug() -> None:
    for slug, spec in INTEGRATIONS.items():
        assert spec.title and spec.real_slug and spec.real_slug not in NEUTRAL_ONLY, slug
    assert json.dumps(sorted(NEUTRAL_ONLY))  # the neutral-only slugs exist (chat-d, task-tracker …)
    assert {"chat-d", "task-tracker"} <= NEUTRAL_ONLY
