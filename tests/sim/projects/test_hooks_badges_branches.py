"""Project hooks, group badges and protected branches over real loopback HTTP."""

from __future__ import annotations


def test_hooks_crud_never_returns_token(sim_factory, api) -> None:
    client = api("user", server=sim_factory())
    created = client.post("projects/alice%2Fsandbox/hooks", data={
        "url": "https://example.test/hook", "pipeline_events": "true", "token": "s3cret"})
    assert created.status_code == 201
    hook = created.json()
    assert "token" not in hook and "s3cret" not in created.text
    assert hook["push_events"] is True and hook["pipeline_events"] is True and hook["job_events"] is False
    assert hook["enable_ssl_verification"] is True and hook["project_id"] > 0
    listed = client.get("projects/alice%2Fsandbox/hooks").json()
    assert hook["id"] in [h["id"] for h in listed]
    edited = client.put(f"projects/alice%2Fsandbox/hooks/{hook['id']}", json={
        "url": "https://example.test/other", "push_events": False})
    assert edited.status_code == 200 and edited.json()["push_events"] is False
    assert client.get(f"projects/alice%2Fsandbox/hooks/{hook['id']}").json()["url"] == "https://example.test/other"
    assert client.delete(f"projects/alice%2Fsandbox/hooks/{hook['id']}").status_code == 204
    assert client.get(f"projects/alice%2Fsandbox/hooks/{hook['id']}").json() == {"message": "404 Not found"}


def test_hook_errors(api) -> None:
    client = api("user")
    assert client.post("projects/alice%2Fsandbox/hooks", data={"push_events": "true"}).json() == {
        "error": "url is missing"}
    bad = client.post("projects/alice%2Fsandbox/hooks", data={"url": "ftp://x"})
    assert bad.status_code == 400 and "url" in bad.json()["message"]
    assert client.get("projects/platform%2Fsearch/hooks").status_code == 403  # alice is a developer there
    assert api("readonly").get("projects/platform%2Fsearch/hooks").status_code == 403
    assert api(None).get("projects/platform%2Fsearch/hooks").status_code == 401


def test_group_badges_render_from_first_project(api, sim) -> None:
    client = api("user")
    badges = client.get("groups/platform/badges").json()
    assert badges and all(b["kind"] == "group" for b in badges)
    first = min((p for p in sim.state.projects.values() if p.namespace_kind == "group"
                 and p.namespace_id == 1 and not p.deleted), key=lambda p: p.created_at)
    pipeline = next(b for b in badges if "pipeline.svg" in b["image_url"])
    assert "%{project_path}" in pipeline["link_url"]
    assert pipeline["rendered_link_url"] == (
        f"https://ci.labdeck.example/platform/{first.path}/pipelines?ref={first.default_branch}")
    rendered = client.get("groups/platform/badges/render", params={
        "link_url": "https://x.test/%{project_id}", "image_url": "https://x.test/%{commit_sha}.svg"}).json()
    assert rendered["rendered_link_url"] == f"https://x.test/{first.id}"
    assert rendered["rendered_image_url"] == f"https://x.test/{first.commit_sha}.svg"
    assert rendered["link_url"] == "https://x.test/%{project_id}"


def test_badge_variables_unchanged_without_projects(sim_factory, api) -> None:
    server = sim_factory()
    admin = api("admin", server=server)
    for project in list(server.state.projects.values()):
        if project.namespace_kind == "group" and server.state.groups[project.namespace_id].path == "tools":
            project.deleted = True
    rendered = admin.get("groups/tools/badges/render", params={
        "link_url": "https://x.test/%{project_path}", "image_url": "https://x.test/%{default_branch}"}).json()
    assert rendered["rendered_link_url"] == "https://x.test/%{project_path}"
    assert rendered["rendered_image_url"] == "https://x.test/%{default_branch}"


def test_badge_crud_and_permissions(sim_factory, api) -> None:
    server = sim_factory()
    owner = api("user", server=server)  # alice owns web
    created = owner.post("groups/web/badges", data={"link_url": "https://l.test/%{project_id}",
                                                     "image_url": "https://i.test/b.svg"})
    assert created.status_code == 201
    badge = created.json()
    assert badge["rendered_link_url"] != badge["link_url"]
    edited = owner.put(f"groups/web/badges/{badge['id']}", data={"image_url": "https://i.test/c.svg"})
    assert edited.json()["image_url"] == "https://i.test/c.svg" and edited.json()["link_url"] == badge["link_url"]
    assert owner.get(f"groups/web/badges/{badge['id']}").json()["id"] == badge["id"]
    assert owner.post("groups/platform/badges", data={"link_url": "a", "image_url": "b"}).status_code == 403
    assert owner.post("groups/web/badges", data={"link_url": "a"}).json() == {"error": "image_url is missing"}
    assert owner.delete(f"groups/web/badges/{badge['id']}").status_code == 204
    assert owner.get(f"groups/web/badges/{badge['id']}").json() == {"message": "404 Badge Not Found"}
    assert api(None, server=server).get("groups/data/badges").json() == {"message": "404 Group Not Found"}
    assert owner.get("groups/nope/badges").json() == {"message": "404 Group Not Found"}
    nested = owner.get("groups/platform%2Finfra/badges")
    assert nested.status_code == 200 and nested.json()


def test_protected_branches(sim_factory, api) -> None:
    client = api("user", server=sim_factory())
    listed = client.get("projects/web%2Fstorefront/protected_branches").json()
    assert listed and {"name", "push_access_levels", "merge_access_levels"} <= set(listed[0])
    created = client.post("projects/web%2Fstorefront/protected_branches", data={
        "name": "feature/*", "push_access_level": 30})
    assert created.status_code == 201
    assert created.json()["push_access_levels"] == [{"access_level": 30,
                                                    "access_level_description": "Developers + Masters"}]
    assert created.json()["merge_access_levels"][0]["access_level"] == 40
    got = client.get("projects/web%2Fstorefront/protected_branches/feature%2F%2A")
    assert got.status_code == 200 and got.json()["name"] == "feature/*"
    dup = client.post("projects/web%2Fstorefront/protected_branches", data={"name": "feature/*"})
    assert dup.status_code == 409 and dup.json() == {"message": "Protected branch 'feature/*' already exists"}
    bad = client.post("projects/web%2Fstorefront/protected_branches", data={"name": "x", "merge_access_level": 20})
    assert bad.status_code == 400 and bad.json() == {"error": "merge_access_level does not have a valid value"}
    assert client.delete("projects/web%2Fstorefront/protected_branches/feature%2F*").status_code == 204
    assert client.get("projects/web%2Fstorefront/protected_branches/feature%2F*").json() == {
        "message": "404 Not found"}
    assert client.get("projects/platform%2Fsearch/protected_branches").status_code == 403


def test_wildcard_protected_branch_in_dataset(api) -> None:
    rule = api("admin").get("projects/platform%2Fapi-gateway/protected_branches/release-*").json()
    assert rule["name"] == "release-*" and rule["push_access_levels"][0]["access_level"] == 30
