"""Contract test: unmodified python-gitlab drives the simulator's project families.

python-gitlab is a mature, independent client of the real API; if it cannot use an endpoint, the
simulator's shapes or statuses are off.
"""

from __future__ import annotations

import io
import tarfile

import gitlab
import pytest
from gitlab import exceptions as gl_errors

from labdeck.sim.dataset.build import DEMO_TOKENS


@pytest.fixture
def server(sim_factory):
    return sim_factory()


def _gl(server, role: str = "user") -> gitlab.Gitlab:
    return gitlab.Gitlab(server.base_url, private_token=DEMO_TOKENS[role])


def test_auth_and_project_listing(server) -> None:
    gl = _gl(server)
    gl.auth()
    assert gl.user is not None and gl.user.username == "alice"
    public = gl.projects.list(visibility="public", order_by="name", sort="asc", get_all=True)
    names = [p.name.lower() for p in public]
    assert names == sorted(names) and all(p.visibility == "public" for p in public)
    starred = gl.projects.list(starred=True, get_all=True)
    assert "platform/api-gateway" in [p.path_with_namespace for p in starred]
    pages = gl.projects.list(per_page=10, iterator=True)
    assert len(list(pages)) == pages.total
    project = gl.projects.get("platform/infra/terraform-modules", statistics=True)
    assert project.statistics["commit_count"] > 0


def test_create_edit_star_archive_fork_share_delete(server) -> None:
    gl = _gl(server)
    project = gl.projects.create({"name": "Contract Project", "description": "made by python-gitlab"})
    assert project.path == "contract-project"
    project.description = "edited"
    project.save()
    assert gl.projects.get(project.id).description == "edited"
    project.star()
    assert project.star_count == 1
    with pytest.raises(gl_errors.GitlabCreateError) as error:
        project.star()  # 304: python-gitlab treats it as an error
    assert error.value.response_code == 304
    project.unstar()
    project.archive()
    assert gl.projects.get(project.id).archived is True
    project.unarchive()
    fork = gl.projects.get("tools/ci-templates").forks.create({"namespace": "alice", "path": "ci-fork",
                                                               "name": "ci fork"})
    assert gl.projects.get(fork.id).import_status == "scheduled"
    server.state.clock.advance(5)
    assert gl.projects.get(fork.id).import_status == "finished"
    assert fork.id in [f.id for f in gl.projects.get("tools/ci-templates").forks.list(get_all=True)]
    project.share(5, 30)
    assert gl.projects.get(project.id).shared_with_groups[0]["group_id"] == 5
    project.unshare(5)
    members = project.users.list()
    assert [u.username for u in members] == ["alice"]
    upload = project.upload("shot.png", filedata=b"\x89PNG")
    assert upload["markdown"].startswith("![shot]")
    project.delete()
    with pytest.raises(gl_errors.GitlabGetError):
        gl.projects.get(project.id)
    with pytest.raises(gl_errors.GitlabGetError) as missing:
        gl.projects.get("data/etl-jobs")
    assert missing.value.response_code == 404


def test_hooks(server) -> None:
    project = _gl(server).projects.get("alice/sandbox")
    hook = project.hooks.create({"url": "https://hooks.test/x", "job_events": True, "token": "t0ken"})
    assert hook.job_events is True and not hasattr(hook, "token")
    hook.push_events = False
    hook.save()
    assert project.hooks.get(hook.id).push_events is False
    assert hook.id in [h.id for h in project.hooks.list(get_all=True)]
    hook.delete()
    with pytest.raises(gl_errors.GitlabGetError):
        project.hooks.get(hook.id)


def test_group_badges(server) -> None:
    group = _gl(server).groups.get("web", lazy=True)
    badge = group.badges.create({"link_url": "https://l.test/%{project_path}", "image_url": "https://i.test/x.svg"})
    assert badge.kind == "group" and "%{" not in badge.rendered_link_url
    badge.image_url = "https://i.test/y.svg"
    badge.save()
    assert group.badges.get(badge.id).image_url == "https://i.test/y.svg"
    rendered = group.badges.render(link_url="https://l.test/%{project_id}", image_url="https://i.test/%{commit_sha}")
    assert rendered["rendered_link_url"].startswith("https://l.test/") and "%{" not in rendered["rendered_link_url"]
    badge.delete()
    assert badge.id not in [b.id for b in group.badges.list(get_all=True)]


def test_protected_branches(server) -> None:
    project = _gl(server).projects.get("web/storefront")
    rule = project.protectedbranches.create({"name": "release/*", "push_access_level": 30})
    assert rule.push_access_levels[0]["access_level"] == 30
    assert project.protectedbranches.get("release/*").name == "release/*"
    with pytest.raises(gl_errors.GitlabCreateError) as duplicate:
        project.protectedbranches.create({"name": "release/*"})
    assert duplicate.value.response_code == 409
    project.protectedbranches.delete("release/*")
    with pytest.raises(gl_errors.GitlabGetError):
        project.protectedbranches.get("release/*")


def test_export_and_import(server) -> None:
    gl = _gl(server)
    project = gl.projects.get("alice/blog")
    export = project.exports.create()
    assert export.refresh() is None and export.export_status == "started"
    server.state.clock.advance(5)
    export.refresh()
    assert export.export_status == "finished"
    data = export.download()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        assert "project.json" in archive.getnames()
    output = gl.projects.import_project(io.BytesIO(data), path="blog-restored", name="Blog restored")
    assert output["import_status"] == "scheduled"
    server.state.clock.advance(5)
    status = gl.projects.get(output["id"], lazy=True).imports.get()
    assert status.import_status == "finished"
    assert gl.projects.get(output["id"]).name == "Blog restored"
