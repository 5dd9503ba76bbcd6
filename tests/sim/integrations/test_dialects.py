"""Integrations in both dialects: one slug per record whichever alias asked, the gitlab dialect's
real slugs, list shape and removed integrations, and no secret ever in a response body."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labdeck.sim.core.state import Project
from labdeck.sim.integrations.catalog import EVENT_FLAGS, IntegrationKind, available
from labdeck.sim.server import SimServer
from tests.sim.helpers import client

BASIC_KEYS = {"id", "title", "slug", "created_at", "updated_at", "active", "commit_events", "incident_events",
              "alert_events", "deployment_events", "confidential_note_events", "comment_on_event_enabled",
              "inherited", *EVENT_FLAGS}


def _unconfigured(server: SimServer) -> Project:
    return next(project for project in sorted(server.state.projects.values(), key=lambda p: p.id)
                if not any(key[0] == project.id for key in server.state.integrations))


@pytest.mark.parametrize(("dialect", "canonical"), [("spec", "chat-d"), ("gitlab", "slack")])
def test_an_alias_and_the_list_give_the_same_slug(sim_factory: Callable[..., SimServer], dialect: str,
                                                  canonical: str) -> None:
    server = sim_factory(dialect=dialect)
    project = _unconfigured(server)
    with client(server) as root:
        saved = root.put(f"/projects/{project.id}/integrations/slack", data={"webhook": "https://chat.example/h/1"})
        assert saved.status_code == 200 and saved.json()["slug"] == canonical
        for prefix in ("services", "integrations"):
            for alias in ("slack", "chat-d"):
                assert root.get(f"/projects/{project.id}/{prefix}/{alias}").json()["slug"] == canonical
            listed = root.get(f"/projects/{project.id}/{prefix}").json()
            assert [item["slug"] for item in listed] == [canonical]


def test_gitlab_list_is_integration_basic_with_real_slugs(sim_gitlab: SimServer) -> None:
    project_id = min(pid for (pid, slug), record in sim_gitlab.state.integrations.items()
                     if record.active and slug != "cluster-platform")
    with client(sim_gitlab) as root:
        listed = root.get(f"/projects/{project_id}/integrations").json()
        single = root.get(f"/projects/{project_id}/integrations/{listed[0]['slug']}").json()
    assert listed and all(set(item) == BASIC_KEYS | {"project_id"} and item["title"] for item in listed)
    assert {item["slug"] for item in listed} <= {kind.real_slug for kind in available(gitlab=True)}
    assert "properties" in single and single["slug"] == listed[0]["slug"]


def test_gitlab_uses_real_parameter_names_and_drops_removed_integrations(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    project = _unconfigured(server)
    with client(server) as root:
        bamboo = root.put(f"/projects/{project.id}/integrations/ci-server-a",
                          data={"bamboo_url": "https://ci.example", "build_key": "KEY", "username": "u",
                                "password": "p"}).json()
        assert bamboo["slug"] == "bamboo" and bamboo["properties"]["bamboo_url"] == "https://ci.example"
        jira = root.put(f"/projects/{project.id}/integrations/jira",
                        data={"url": "https://jira.example", "username": "u", "password": "p"})
        assert jira.status_code == 200, jira.text  # no project_key in current GitLab
        for gone in ("hipchat", "flowdock", "gemnasium", "kubernetes", "chat-c"):
            refused = root.get(f"/projects/{project.id}/integrations/{gone}")
            assert refused.status_code == 400
            assert refused.json() == {"error": "service_slug does not have a valid value"}
    spec = sim_factory()
    with client(spec) as root:
        assert root.get(f"/projects/{project.id}/services/hipchat").status_code == 200
        missing = root.put(f"/projects/{project.id}/integrations/jira",
                           data={"url": "https://jira.example", "username": "u", "password": "p"})
        assert missing.status_code == 400 and missing.json() == {"error": "project_key is missing"}


def _secret(name: str, gitlab: bool) -> bool:
    """Password-, token- and key-type settings (and, in current GitLab, chat webhook URLs), named
    here independently of the simulator's own list."""
    return name in ("password", "token", "api_key", "user_key") or (gitlab and name == "webhook")


def _value(kind: IntegrationKind, name: str, secret: str) -> str:
    kind_of = kind.param_type(name)
    if kind_of == "int":
        return "6697"
    if kind_of == "bool":
        return "true"
    return secret if secret else f"https://{kind.slug}.example/{name}"


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_no_secret_comes_back_from_any_integration(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    gitlab = dialect == "gitlab"
    project = _unconfigured(server)
    cluster_project = next(pid for (pid, slug), record in server.state.integrations.items()
                           if slug == "cluster-platform" and record.active)
    secrets: list[str] = []
    bodies: list[str] = []
    with client(server) as root:
        for kind in available(gitlab=gitlab):
            pid = cluster_project if kind.deprecated else project.id
            data = {}
            for name in kind.params:
                secret = f"SECRET-{kind.slug}-{name}-7f3c" if _secret(name, gitlab) else ""
                data[name] = _value(kind, name, secret)
                if secret:
                    secrets.append(secret)
            for real, spec_name in kind.param_aliases.items():
                data[real] = data.pop(spec_name)
            saved = root.put(f"/projects/{pid}/integrations/{kind.real_slug}", data=data)
            assert saved.status_code == 200, (kind.slug, saved.text)
            assert saved.json()["active"] is True
            bodies.append(saved.text)
            stored = server.state.integrations[(pid, kind.slug)].properties
            assert all(stored[name] for name in kind.required)  # secrets are kept
            for slug in {kind.slug, kind.real_slug}:
                for prefix in ("services", "integrations"):
                    single = root.get(f"/projects/{pid}/{prefix}/{slug}")
                    assert single.status_code == 200
                    bodies.append(single.text)
        for pid in (project.id, cluster_project) if not gitlab else (project.id,):
            for prefix in ("services", "integrations"):
                listed = root.get(f"/projects/{pid}/{prefix}")
                assert listed.status_code == 200 and listed.json()
                bodies.append(listed.text)
    assert len(secrets) >= 12
    leaked = sorted({secret for secret in secrets for body in bodies if secret in body})
    assert leaked == []


def test_hooks_never_return_their_token(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    project = _unconfigured(server)
    token = "hook-token-5e1d"
    with client(server) as root:
        created = root.post(f"/projects/{project.id}/hooks", data={"url": "https://hooks.example/x", "token": token})
        assert created.status_code == 201
        hook_id = created.json()["id"]
        bodies = [created.text, root.get(f"/projects/{project.id}/hooks").text,
                  root.get(f"/projects/{project.id}/hooks/{hook_id}").text]
        edited = root.put(f"/projects/{project.id}/hooks/{hook_id}",
                          data={"url": "https://hooks.example/y", "token": token})
        bodies.append(edited.text)
    assert server.state.hooks[hook_id].token == token
    assert all(token not in body and '"token"' not in body for body in bodies)
