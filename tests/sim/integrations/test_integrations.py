"""Project integrations over loopback HTTP: both path spellings, neutral and real slugs, validation,
secrets, the deprecated cluster integration and permissions."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from labdeck.sim.core.state import DEVELOPER, MAINTAINER, Project
from labdeck.sim.integrations.catalog import CATALOG, EVENT_FLAGS, IntegrationKind
from labdeck.sim.server import SimServer

RECORD_KEYS = {"id", "title", "slug", "created_at", "updated_at", "active", "properties", *EVENT_FLAGS}


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory()


def _client(server: SimServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": token}, timeout=10)


def _alice_project(server: SimServer, predicate: Callable[[int], bool]) -> Project:
    me = next(user for user in server.state.users.values() if user.username == "alice")
    return next(
        project for project in sorted(server.state.projects.values(), key=lambda p: p.id)
        if server.state.can_read(me, project) and predicate(server.state.access_level(me, project))
        and not any(key[0] == project.id for key in server.state.integrations)
    )


def _unconfigured(server: SimServer) -> Project:
    return next(project for project in sorted(server.state.projects.values(), key=lambda p: p.id)
                if not any(key[0] == project.id for key in server.state.integrations))


@pytest.mark.parametrize("kind", [kind for kind in CATALOG if not kind.deprecated and not kind.development_only],
                         ids=lambda kind: kind.slug)
def test_every_slug_reads_as_an_unsaved_record(sim: SimServer, tokens: dict[str, str], kind: IntegrationKind) -> None:
    project = _unconfigured(sim)
    with _client(sim, tokens["admin"]) as root:
        for slug in sorted({kind.slug, kind.real_slug}):
            for prefix in ("services", "integrations"):
                response = root.get(f"/projects/{project.id}/{prefix}/{slug}")
                assert response.status_code == 200, response.text
                body = response.json()
                assert RECORD_KEYS <= set(body)
                assert (body["id"], body["active"], body["properties"]) == (None, False, {})


def test_put_get_delete_cycle(server: SimServer, tokens: dict[str, str]) -> None:
    project = _unconfigured(server)
    path = f"/projects/{project.id}/services/task-tracker"
    with _client(server, tokens["admin"]) as root:
        missing = root.put(path, data={"restrict_to_branch": "main"})
        assert missing.status_code == 400 and missing.json() == {"error": "api_key is missing"}
        saved = root.put(path, data={"api_key": "k-123", "restrict_to_branch": "main", "push_events": "false"})
        assert saved.status_code == 200
        body = saved.json()
        assert body["active"] is True and isinstance(body["id"], int)
        assert body["push_events"] is False and body["issues_events"] is True
        assert body["properties"] == {"restrict_to_branch": "main"}  # the key is stored, never returned
        again = root.get(f"/projects/{project.id}/integrations/task-tracker").json()
        assert again["id"] == body["id"] and again["active"] is True
        listed = root.get(f"/projects/{project.id}/integrations").json()
        assert [item["slug"] for item in listed] == ["task-tracker"]
        deleted = root.delete(path)
        assert deleted.status_code == 204 and deleted.content == b""
        after = root.get(path).json()
        assert after["active"] is False and after["properties"] == {}
        assert root.get(f"/projects/{project.id}/services").json() == []


def test_several_missing_required_params_are_all_named(server: SimServer, tokens: dict[str, str]) -> None:
    project = _unconfigured(server)
    with _client(server, tokens["admin"]) as root:
        response = root.put(f"/projects/{project.id}/integrations/ci-server-a", data={"username": "u"})
        assert response.status_code == 400
        assert response.json() == {"error": "ci_server_a_url is missing, build_key is missing, password is missing"}
        blank = root.put(f"/projects/{project.id}/integrations/chat-f", data={"webhook": ""})
        assert blank.status_code == 400 and blank.json() == {"message": "400 Bad Request"}


def test_typed_params_are_validated(server: SimServer, tokens: dict[str, str]) -> None:
    project = _unconfigured(server)
    path = f"/projects/{project.id}/integrations/irc-gateway"
    with _client(server, tokens["admin"]) as root:
        port = root.put(path, data={"recipients": "#ops", "server_port": "six"})
        assert port.status_code == 400 and port.json() == {"error": "server_port is invalid"}
        colour = root.put(path, data={"recipients": "#ops", "colorize_messages": "maybe"})
        assert colour.status_code == 400 and colour.json() == {"error": "colorize_messages is invalid"}
        good = root.put(path, data={"recipients": "#ops", "server_port": "6697", "colorize_messages": "true"})
        assert good.status_code == 200
        assert good.json()["properties"] == {"recipients": "#ops", "server_port": 6697, "colorize_messages": True}


def test_real_slugs_and_parameter_names_are_accepted(server: SimServer, tokens: dict[str, str]) -> None:
    project = _unconfigured(server)
    with _client(server, tokens["admin"]) as root:
        saved = root.put(f"/projects/{project.id}/integrations/bamboo",
                         data={"bamboo_url": "https://ci.example", "build_key": "KEY", "username": "u",
                               "password": "p"})
        assert saved.status_code == 200, saved.text
        assert saved.json()["properties"]["bamboo_url"] == "https://ci.example"
        neutral = root.get(f"/projects/{project.id}/services/ci-server-a").json()
        assert neutral["active"] is True and neutral["properties"]["ci_server_a_url"] == "https://ci.example"
        jira = root.put(f"/projects/{project.id}/services/jira",
                        data={"url": "https://t.example", "project_key": "LAB", "username": "u", "password": "p",
                              "jira_issue_transition_id": "5"})
        assert jira.status_code == 200 and jira.json()["properties"]["jira_issue_transition_id"] == 5


def test_secrets_are_stored_but_never_returned(server: SimServer, tokens: dict[str, str]) -> None:
    project = _alice_project(server, lambda level: level >= MAINTAINER)
    path = f"/projects/{project.id}/integrations/package-registry"
    with _client(server, tokens["user"]) as alice:
        saved = alice.put(path, data={"username": "ci", "token": "s3cret", "server": "https://pkg.example"})
        assert saved.status_code == 200
        assert saved.json()["properties"] == {"username": "ci", "server": "https://pkg.example"}
        assert "token" not in alice.get(path).json()["properties"]
    with _client(server, tokens["admin"]) as root:
        assert root.get(path).json()["properties"] == {"username": "ci", "server": "https://pkg.example"}
    assert server.state.integrations[(project.id, "package-registry")].properties["token"] == "s3cret"


def test_permission_and_slug_errors(server: SimServer, tokens: dict[str, str]) -> None:
    developer = _alice_project(server, lambda level: level == DEVELOPER)
    me = next(user for user in server.state.users.values() if user.username == "alice")
    hidden = next(p for p in server.state.projects.values() if not server.state.can_read(me, p))
    with _client(server, tokens["user"]) as alice:
        forbidden = alice.get(f"/projects/{developer.id}/services/chat-b")
        assert forbidden.status_code == 403 and forbidden.json() == {"message": "403 Forbidden"}
        assert alice.put(f"/projects/{developer.id}/services/chat-b", data={"token": "t"}).status_code == 403
        invisible = alice.get(f"/projects/{hidden.id}/services/chat-b")
        assert invisible.status_code == 404 and invisible.json() == {"message": "404 Project Not Found"}
    with _client(server, tokens["admin"]) as root:
        for method in ("GET", "PUT", "DELETE"):
            unknown = root.request(method, f"/projects/{developer.id}/integrations/no-such-thing")
            assert unknown.status_code == 400
            assert unknown.json() == {"error": "service_slug does not have a valid value"}
        # mock-ci exists only on a development server
        assert root.get(f"/projects/{developer.id}/services/mock-ci").status_code == 400
    assert httpx.get(f"{server.api_url}/projects/{developer.id}/services/chat-b").status_code == 401


def test_cluster_platform_answers_400_while_inactive(server: SimServer, tokens: dict[str, str]) -> None:
    active_on = next(pid for (pid, slug), record in server.state.integrations.items()
                     if slug == "cluster-platform" and record.active)
    plain = _unconfigured(server)
    with _client(server, tokens["admin"]) as root:
        for method, data in (("GET", None), ("PUT", {"namespace": "n", "api_url": "https://k", "token": "t"}),
                             ("DELETE", None)):
            response = root.request(method, f"/projects/{plain.id}/services/cluster-platform", data=data)
            assert response.status_code == 400 and response.json() == {"message": "400 Bad Request"}
        kubernetes = root.get(f"/projects/{active_on}/services/kubernetes")
        assert kubernetes.status_code == 200 and kubernetes.json()["active"] is True
        assert root.delete(f"/projects/{active_on}/services/cluster-platform").status_code == 204
        assert root.get(f"/projects/{active_on}/services/cluster-platform").status_code == 400
