"""The projects resource over real loopback HTTP."""

from __future__ import annotations


def _paths(response) -> list[str]:
    return [p["path_with_namespace"] for p in response.json()]


def test_anonymous_sees_public_projects_in_basic_shape(api) -> None:
    response = api(None).get("projects", params={"per_page": 100})
    assert response.status_code == 200
    projects = response.json()
    assert projects and all("permissions" not in p and "_links" not in p for p in projects)
    visibilities = {p["path_with_namespace"]: p for p in api("admin").get("projects", params={"per_page": 100}).json()}
    assert all(visibilities[p["path_with_namespace"]]["visibility"] == "public" for p in projects)


def test_authenticated_list_has_permissions_and_full_fields(api) -> None:
    project = api("user").get("projects", params={"membership": True, "per_page": 1}).json()[0]
    assert "permissions" in project and "namespace" in project and "_links" in project
    assert project["permissions"]["project_access"] or project["permissions"]["group_access"]


def test_user_does_not_see_private_projects_of_others(api) -> None:
    user_paths = set(_paths(api("user").get("projects", params={"per_page": 100})))
    assert "data/etl-jobs" not in user_paths  # private group alice is not in
    assert "platform/billing" in user_paths  # private, but alice is a developer in platform
    admin_paths = set(_paths(api("admin").get("projects", params={"per_page": 100})))
    assert "data/etl-jobs" in admin_paths


def test_private_project_is_404_for_non_member(api) -> None:
    response = api("user").get("projects/data%2Fetl-jobs")
    assert response.status_code == 404
    assert response.json() == {"message": "404 Project Not Found"}
    assert api(None).get("projects/platform%2Fbilling").status_code == 404
    assert api("admin").get("projects/data%2Fetl-jobs").status_code == 200


def test_single_project_by_nested_encoded_path_and_statistics(api) -> None:
    client = api("admin")
    project = client.get("projects/platform%2Finfra%2Fterraform-modules", params={"statistics": True}).json()
    assert project["path_with_namespace"] == "platform/infra/terraform-modules"
    assert project["namespace"]["full_path"] == "platform/infra"
    assert set(project["statistics"]) == {"commit_count", "storage_size", "repository_size",
                                          "lfs_objects_size", "job_artifacts_size"}
    by_id = client.get(f"projects/{project['id']}").json()
    assert "statistics" not in by_id and by_id["name"] == project["name"]


def test_anonymous_single_public_project(api) -> None:
    project = api(None).get("projects/platform%2Fapi-gateway")
    assert project.status_code == 200
    assert "permissions" not in project.json() and project.json()["visibility"] == "public"


def test_list_filters(api) -> None:
    client = api("user")
    archived = client.get("projects", params={"archived": True, "per_page": 100}).json()
    assert archived and all(p["archived"] for p in archived)
    public = client.get("projects", params={"visibility": "public", "per_page": 100}).json()
    assert public and all(p["visibility"] == "public" for p in public)
    search = _paths(client.get("projects", params={"search": "gateway"}))
    assert "platform/api-gateway" in search and all("gateway" in p for p in search)
    starred = _paths(client.get("projects", params={"starred": True, "per_page": 100}))
    assert "platform/api-gateway" in starred
    owned = client.get("projects", params={"owned": True, "per_page": 100}).json()
    assert "alice/sandbox" in [p["path_with_namespace"] for p in owned]
    assert "platform/api-gateway" not in [p["path_with_namespace"] for p in owned]
    membership = _paths(client.get("projects", params={"membership": True, "per_page": 100}))
    assert "web/storefront" in membership and "tools/dotfiles" not in membership
    issues = client.get("projects", params={"with_issues_enabled": True, "per_page": 100}).json()
    assert all(p["issues_enabled"] for p in issues)


def test_order_by_and_sort(api) -> None:
    client = api("admin")
    names = [p["name"].lower() for p in client.get("projects", params={"order_by": "name", "sort": "asc",
                                                                        "per_page": 100}).json()]
    assert names == sorted(names)
    default = [p["created_at"] for p in client.get("projects", params={"per_page": 100}).json()]
    assert default == sorted(default, reverse=True)


def test_simple_shape(api) -> None:
    project = api("user").get("projects", params={"simple": True, "per_page": 1}).json()[0]
    assert {"id", "name", "path", "web_url"} <= set(project)
    assert "permissions" not in project and "namespace" not in project


def test_custom_attributes_admin_only(api) -> None:
    admin = api("admin")
    gold = admin.get("projects", params={"custom_attributes[tier]": "gold", "with_custom_attributes": True,
                                         "per_page": 100}).json()
    assert "platform/api-gateway" in [p["path_with_namespace"] for p in gold]
    assert all({"key": "tier", "value": "gold"} in p["custom_attributes"] for p in gold)
    user_view = api("user").get("projects/platform%2Fapi-gateway", params={"with_custom_attributes": True})
    assert "custom_attributes" not in user_view.json()


def test_user_projects_and_project_users(api) -> None:
    client = api("user")
    mine = _paths(client.get("users/alice/projects", params={"per_page": 100}))
    assert "alice/sandbox" in mine and all(p.startswith("alice/") for p in mine)
    assert _paths(client.get("users/2/projects", params={"per_page": 100})) == mine
    assert client.get("users/nobody-here/projects").json() == {"message": "404 User Not Found"}
    bob_public = _paths(api(None).get("users/bob/projects"))
    assert "bob/talks" in bob_public and "bob/scratch" not in bob_public
    members = client.get("projects/web%2Fstorefront/users").json()
    assert "alice" in [u["username"] for u in members]
    assert set(members[0]) == {"id", "name", "username", "state", "avatar_url", "web_url"}
    found = client.get("projects/web%2Fstorefront/users", params={"search": "eri"}).json()
    assert [u["username"] for u in found] == ["erin"]


def test_create_defaults_and_validation(api) -> None:
    client = api("user")
    created = client.post("projects", data={"name": "My New Thing"})
    assert created.status_code == 201
    project = created.json()
    assert project["path"] == "my-new-thing" and project["visibility"] == "private"
    assert project["namespace"]["full_path"] == "alice"
    taken = client.post("projects", data={"name": "My New Thing"})
    assert taken.status_code == 400
    assert taken.json() == {"message": {"name": ["has already been taken"], "path": ["has already been taken"]}}
    missing = client.post("projects", data={"description": "no name"})
    assert missing.status_code == 400
    assert missing.json() == {"error": "name, path are missing, at least one parameter must be provided"}
    in_group = client.post("projects", data={"path": "grp-made", "namespace_id": "web"})
    assert in_group.status_code == 201 and in_group.json()["namespace"]["full_path"] == "web"
    refused = client.post("projects", data={"path": "nope", "namespace_id": "data"})
    assert refused.status_code == 400 and refused.json() == {"message": {"namespace": ["is not valid"]}}
    assert client.post("projects", data={"path": "bad-vis", "visibility": "secret"}).json() == {
        "error": "visibility does not have a valid value"}
    for pid in (project["id"], in_group.json()["id"]):
        assert client.delete(f"projects/{pid}").json() == {"message": "202 Accepted"}
    assert client.get(f"projects/{project['id']}").status_code == 404


def test_create_for_user_is_admin_only(api) -> None:
    assert api("user").post("projects/user/3", data={"name": "for bob"}).status_code == 403
    created = api("admin").post("projects/user/3", data={"name": "for bob", "default_branch": "main"})
    assert created.status_code == 201
    assert created.json()["namespace"]["full_path"] == "bob" and created.json()["default_branch"] == "main"
    assert api("admin").post("projects/user/999", data={"name": "x"}).status_code == 404
    assert api("admin").delete(f"projects/{created.json()['id']}").status_code == 202


def test_edit_project(sim_factory, api) -> None:
    server = sim_factory()
    client = api("user", server=server)
    edited = client.put("projects/alice%2Fsandbox", data={"description": "edited", "merge_method": "ff"})
    assert edited.status_code == 200
    assert edited.json()["description"] == "edited" and edited.json()["merge_method"] == "ff"
    renamed = client.put("projects/alice%2Fsandbox", json={"name": "Sandbox Two", "path": "sandbox-two"})
    assert renamed.json()["path_with_namespace"] == "alice/sandbox-two"
    assert client.get("projects/alice%2Fsandbox").status_code == 404
    taken = client.put("projects/alice%2Fsandbox-two", data={"path": "blog"})
    assert taken.status_code == 400 and taken.json()["message"]["path"] == ["has already been taken"]
    assert client.put("projects/alice%2Fsandbox-two", data={}).status_code == 400
    # alice is only a developer in platform.
    assert client.put("projects/platform%2Fbilling", data={"description": "x"}).status_code == 403


def test_star_unstar_and_304(sim_factory, api) -> None:
    client = api("user", server=sim_factory())
    before = client.get("projects/tools%2Flint-rules").json()["star_count"]
    starred = client.post("projects/tools%2Flint-rules/star")
    assert starred.status_code == 201 and starred.json()["star_count"] == before + 1
    again = client.post("projects/tools%2Flint-rules/star")
    assert again.status_code == 304 and again.content == b""
    assert client.post("projects/tools%2Flint-rules/unstar").json()["star_count"] == before
    assert client.post("projects/tools%2Flint-rules/unstar").status_code == 304


def test_archive_needs_owner(sim_factory, api) -> None:
    server = sim_factory()
    user = api("user", server=server)
    assert user.post("projects/platform%2Fsearch/archive").status_code == 403
    archived = user.post("projects/alice%2Fblog/archive")
    assert archived.status_code == 201 and archived.json()["archived"] is True
    assert user.post("projects/alice%2Fblog/archive").json()["archived"] is True
    assert user.post("projects/alice%2Fblog/unarchive").json()["archived"] is False
    assert api("admin", server=server).post("projects/platform%2Fsearch/archive").json()["archived"] is True


def test_delete_needs_owner(sim_factory, api) -> None:
    server = sim_factory()
    assert api("user", server=server).delete("projects/platform%2Fsearch").status_code == 403
    assert api("admin", server=server).delete("projects/platform%2Fsearch").status_code == 202
    assert api("admin", server=server).get("projects/platform%2Fsearch").status_code == 404


def test_fork_is_asynchronous(sim_factory, api) -> None:
    server = sim_factory()
    client = api("user", server=server)
    response = client.post("projects/platform%2Fnotifications/fork", data={"namespace": "alice"})
    assert response.status_code == 201
    fork = response.json()
    assert fork["import_status"] == "scheduled"
    assert fork["forked_from_project"]["path_with_namespace"] == "platform/notifications"
    server.state.clock.advance(1.5)
    assert client.get(f"projects/{fork['id']}").json()["import_status"] == "started"
    server.state.clock.advance(5)
    assert client.get(f"projects/{fork['id']}").json()["import_status"] == "finished"
    forks = client.get("projects/platform%2Fnotifications/forks").json()
    assert [f["id"] for f in forks] == [fork["id"]]
    assert client.post("projects/platform%2Fnotifications/fork", data={"namespace": "alice"}).status_code == 409
    assert client.post("projects/platform%2Fnotifications/fork",
                       data={"namespace": "data"}).json() == {"message": "404 Target Namespace Not Found"}


def test_uploads(api) -> None:
    client = api("user")
    image = client.post("projects/alice%2Fsandbox/uploads", files={"file": ("diagram.png", b"\x89PNG", "image/png")})
    assert image.status_code == 201
    body = image.json()
    assert body["alt"] == "diagram" and body["url"].endswith("/diagram.png")
    assert body["markdown"] == f"![diagram]({body['url']})"
    text = client.post("projects/alice%2Fsandbox/uploads", files={"file": ("notes.txt", b"hi", "text/plain")}).json()
    assert text["markdown"] == f"[notes.txt]({text['url']})"
    assert client.post("projects/alice%2Fsandbox/uploads", data={"x": "1"}).json() == {"error": "file is missing"}


def test_share_and_unshare(sim_factory, api) -> None:
    client = api("user", server=sim_factory())
    shared = client.post("projects/alice%2Fsandbox/share", data={"group_id": 5, "group_access": 30,
                                                                "expires_at": "2027-01-31"})
    assert shared.status_code == 201
    assert shared.json()["group_id"] == 5 and shared.json()["expires_at"] == "2027-01-31"
    project = client.get("projects/alice%2Fsandbox").json()
    assert [g["group_id"] for g in project["shared_with_groups"]] == [5]
    assert client.post("projects/alice%2Fsandbox/share", data={"group_id": 5, "group_access": 30}).status_code == 409
    assert client.post("projects/alice%2Fsandbox/share", data={"group_id": 5, "group_access": 50}).json() == {
        "error": "group_access does not have a valid value"}
    assert client.post("projects/alice%2Fsandbox/share", data={"group_access": 30}).json() == {
        "error": "group_id is missing"}
    assert client.post("projects/alice%2Fsandbox/share", data={"group_id": 99, "group_access": 30}).status_code == 404
    assert client.delete("projects/alice%2Fsandbox/share/5").status_code == 204
    assert client.delete("projects/alice%2Fsandbox/share/5").json() == {"message": "404 Group Link Not Found"}
