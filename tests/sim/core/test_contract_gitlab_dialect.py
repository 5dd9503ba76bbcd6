"""Contract test: unmodified python-gitlab against the gitlab dialect, on the code paths current
GitLab changed: ``paused`` runners, project ``topics`` and ``project.integrations``."""

from __future__ import annotations

from collections.abc import Callable

import gitlab
import pytest

from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory(dialect="gitlab")


def _gl(server: SimServer, role: str = "admin") -> gitlab.Gitlab:
    return gitlab.Gitlab(server.base_url, private_token=DEMO_TOKENS[role])


def test_pause_a_runner_with_python_gitlab(server: SimServer) -> None:
    gl = _gl(server)
    team = next(r for r in server.state.runners.values() if r.description == "team-runner")
    runner = gl.runners.get(team.id)
    assert runner.paused is False and runner.runner_type == "project_type" and runner.is_shared is False
    runner.paused = True
    runner.save()
    assert team.active is False
    assert gl.runners.get(team.id).status == "paused"
    paused = {r.id for r in gl.runners_all.list(paused=True, get_all=True)}
    assert team.id in paused and all(not server.state.runners[rid].active for rid in paused)
    assert {r.id for r in gl.runners_all.list(type="instance_type", get_all=True)} == \
           {r.id for r in server.state.runners.values() if r.is_shared}
    runner.paused = False
    runner.save()
    assert team.active is True


def test_project_topics_with_python_gitlab(server: SimServer) -> None:
    gl = _gl(server)
    project = gl.projects.get("platform/infra/k8s-manifests")
    assert project.topics == project.tag_list
    project.topics = ["kubernetes", "gitops"]
    project.save()
    again = gl.projects.get(project.id)
    assert again.topics == ["kubernetes", "gitops"] and again.tag_list == ["kubernetes", "gitops"]
    listed = {p.id: p for p in gl.projects.list(search="k8s-manifests", get_all=True)}
    assert listed[project.id].topics == ["kubernetes", "gitops"]


def test_project_integrations_with_python_gitlab(server: SimServer) -> None:
    gl = _gl(server)
    project_id = next(p.id for p in sorted(server.state.projects.values(), key=lambda p: p.id)
                      if not any(key[0] == p.id for key in server.state.integrations))
    project = gl.projects.get(project_id, lazy=True)
    assert project.integrations.list(get_all=True) == []
    slack = project.integrations.get("slack")
    assert (slack.slug, slack.active) == ("slack", False)
    slack.webhook = "https://hooks.slack.example/services/T0/B0/secret"
    slack.channel = "#ops"
    slack.save()
    saved = project.integrations.get("slack")
    assert saved.active is True and saved.properties == {"channel": "#ops"}  # the webhook is never returned
    project.integrations.update("pipelines-email", {"recipients": "oncall@labdeck.example"})
    listed = project.integrations.list(get_all=True)
    assert sorted(item.slug for item in listed) == ["pipelines-email", "slack"]
    assert all(item.title and not hasattr(item, "properties") for item in listed)
    assert project.services.get("pipelines-email").slug == "pipelines-email"
    project.integrations.delete("slack")
    assert project.integrations.get("slack").active is False
    assert [item.slug for item in project.integrations.list(get_all=True)] == ["pipelines-email"]
    with pytest.raises(gitlab.exceptions.GitlabGetError) as removed:
        project.integrations.get("hipchat")
    assert removed.value.response_code == 400
