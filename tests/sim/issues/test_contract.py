"""Contract test: unmodified python-gitlab against the simulator's issue, integration and
notification-settings endpoints (spec document 001)."""

from __future__ import annotations

from collections.abc import Callable

import gitlab
import gitlab.exceptions
import pytest

from labdeck.sim.server import SimServer


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory()


def _gl(server: SimServer, token: str) -> gitlab.Gitlab:
    return gitlab.Gitlab(server.base_url, private_token=token, timeout=10)


def _owned_project_id(server: SimServer) -> int:
    alice = next(user for user in server.state.users.values() if user.username == "alice")
    return next(p.id for p in sorted(server.state.projects.values(), key=lambda p: p.id)
                if server.state.access_level(alice, p) >= 50 and p.settings.get("issues_enabled", True))


def test_issue_crud_and_filters(server: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(server, tokens["user"])
    project = gl.projects.get(_owned_project_id(server), lazy=True)
    issue = project.issues.create({"title": "Contract issue", "description": "from python-gitlab",
                                   "labels": ["contract", "api"], "due_date": "2027-02-01"})
    assert issue.iid and issue.author["username"] == "alice"
    assert sorted(issue.labels) == ["api", "contract"]
    fetched = project.issues.get(issue.iid)
    assert fetched.title == "Contract issue" and fetched.subscribed is True
    fetched.title = "Contract issue (edited)"
    fetched.state_event = "close"
    fetched.save()
    assert fetched.state == "closed" and fetched.attributes["closed_by"]["username"] == "alice"
    closed = project.issues.list(state="closed", labels=["contract"], get_all=True)
    assert [i.iid for i in closed] == [issue.iid]
    assert project.issues.list(state="opened", iids=[issue.iid], get_all=True) == []
    assert [i.iid for i in project.issues.list(search="python-gitlab", get_all=True)] == [issue.iid]
    mine = gl.issues.list(get_all=True)
    assert issue.id in [i.id for i in mine]
    assert all(i.author["username"] == "alice" for i in mine)
    assert gl.issues.list(scope="all", per_page=5, get_all=False).__len__() == 5
    project.issues.delete(issue.iid)
    with pytest.raises(gitlab.exceptions.GitlabGetError) as missing:
        project.issues.get(issue.iid)
    assert missing.value.response_code == 404


def test_group_issue_list(server: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(server, tokens["admin"])
    group = next(g for g in server.state.groups.values() if g.path == "web")
    issues = gl.groups.get(group.id, lazy=True).issues.list(get_all=True)
    assert issues and all(server.state.projects[i.project_id].namespace_id == group.id for i in issues)


def project_issue_subscribed(server: SimServer, project_id: int, iid: int, token: str) -> bool:
    """Whether the admin is already subscribed (data sets differ by seed; pick a clean issue)."""
    gl = _gl(server, token)
    return bool(gl.projects.get(project_id, lazy=True).issues.get(iid).subscribed)


def test_issue_actions(server: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(server, tokens["admin"])
    state = server.state
    source = next(
        i for i in sorted(state.issues.values(), key=lambda i: i.id)
        if i.state == "opened" and not project_issue_subscribed(server, i.project_id, i.iid, tokens["admin"])
    )
    project = gl.projects.get(source.project_id, lazy=True)
    issue = project.issues.get(source.iid)
    issue.subscribe()
    assert issue.subscribed is True
    with pytest.raises(gitlab.exceptions.GitlabSubscribeError):
        issue.subscribe()
    issue.unsubscribe()
    assert issue.subscribed is False
    issue.todo()
    with pytest.raises(gitlab.exceptions.GitlabTodoError):
        issue.todo()
    assert issue.time_estimate("3h30m")["human_time_estimate"] == "3h 30m"
    issue.reset_spent_time()
    assert issue.add_spent_time("1h")["total_time_spent"] == 3600
    assert issue.reset_time_estimate()["time_estimate"] == 0
    assert issue.reset_spent_time()["total_time_spent"] == 0
    stats = project.issues.get(source.iid).time_stats()
    assert stats["time_estimate"] == 0 and stats["total_time_spent"] == 0
    participants = issue.participants()
    assert participants[0]["id"] == source.author_id
    assert isinstance(issue.closed_by(), list)
    with_agent = next(i for i in sorted(state.issues.values(), key=lambda i: i.id) if i.user_agent)
    detail = gl.projects.get(with_agent.project_id, lazy=True).issues.get(with_agent.iid).user_agent_detail()
    assert detail["ip_address"]
    target = next(p.id for p in sorted(state.projects.values(), key=lambda p: p.id) if p.id != source.project_id)
    issue.move(target)
    assert issue.project_id == target
    original = project.issues.get(source.iid)
    assert original.state == "closed" and original.moved_to_id == issue.id
    with pytest.raises(gitlab.exceptions.GitlabUpdateError) as same:
        project.issues.get(source.iid).move(source.project_id)
    assert same.value.response_code == 400


def test_closed_by_with_python_gitlab(sim: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(sim, tokens["admin"])
    mr = next(m for m in sorted(sim.state.merge_requests.values(), key=lambda m: m.id) if m.closes_issue_ids)
    issue = sim.state.issues[mr.closes_issue_ids[0]]
    closing = gl.projects.get(issue.project_id, lazy=True).issues.get(issue.iid).closed_by()
    assert mr.iid in [item["iid"] for item in closing]


def test_user_agent_detail_refused_to_non_admin(sim: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(sim, tokens["user"])
    alice = next(user for user in sim.state.users.values() if user.username == "alice")
    issue = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id)
                 if i.author_id == alice.id)
    with pytest.raises(gitlab.exceptions.GitlabGetError) as refused:
        gl.projects.get(issue.project_id, lazy=True).issues.get(issue.iid).user_agent_detail()
    assert refused.value.response_code == 403


def test_integrations_by_real_slug(server: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(server, tokens["admin"])
    project_id = next(p.id for p in sorted(server.state.projects.values(), key=lambda p: p.id)
                      if (p.id, "pipelines-email") not in server.state.integrations)
    project = gl.projects.get(project_id, lazy=True)
    integration = project.integrations.get("pipelines-email")
    assert integration.active is False
    integration.recipients = "ops@labdeck.example"
    integration.notify_only_broken_pipelines = True
    integration.save()
    again = project.integrations.get("pipelines-email")
    assert again.active is True
    assert again.properties == {"recipients": "ops@labdeck.example", "notify_only_broken_pipelines": True}
    assert "pipelines-email" in [item.slug for item in project.integrations.list(get_all=True)]
    project.integrations.update("asana", {"api_key": "secret-key"})
    asana = project.services.get("asana")
    # Stored and active, but a key is never sent back, not even to an administrator.
    assert asana.active is True and "api_key" not in asana.properties
    assert server.state.integrations[(project_id, "task-tracker")].properties["api_key"] == "secret-key"
    with pytest.raises(gitlab.exceptions.GitlabUpdateError) as missing:
        project.integrations.update("slack", {"channel": "#x"})
    assert missing.value.response_code == 400
    project.integrations.delete("pipelines-email")
    assert project.integrations.get("pipelines-email").active is False


def test_notification_settings(server: SimServer, tokens: dict[str, str]) -> None:
    gl = _gl(server, tokens["user"])
    settings = gl.notificationsettings.get()
    settings.level = "watch"
    settings.save()
    assert gl.notificationsettings.get().level == "watch"
    group = next(g for g in server.state.groups.values() if g.path == "web")
    group_settings = gl.groups.get(group.id, lazy=True).notificationsettings.get()
    group_settings.level = "custom"
    group_settings.new_issue = True
    group_settings.save()
    reread = gl.groups.get(group.id, lazy=True).notificationsettings.get()
    assert reread.level == "custom" and reread.events["new_issue"] is True
    project_id = _owned_project_id(server)
    project_settings = gl.projects.get(project_id, lazy=True).notificationsettings.get()
    project_settings.level = "disabled"
    project_settings.save()
    assert gl.projects.get(project_id, lazy=True).notificationsettings.get().level == "disabled"
    with pytest.raises(gitlab.exceptions.GitlabUpdateError) as bad:
        gl.notificationsettings.update(new_data={"level": "loud"})
    assert bad.value.response_code == 400
