"""The watched set: ``w`` kept in the state file per instance across restarts (other keys
untouched), starred projects and groups listed from the simulator over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.watch.watched import WatchedSet, WatchStore, in_group
from tests.support.sim_control import project_id
from tests.watch.helpers import api_client


def test_w_survives_a_restart_and_keeps_other_keys(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    StateStore(path).update(history=["jobs", "board"], drafts={"issue:x": "text"}, ui={"board": {"sort": "x"}})
    other = WatchStore(StateStore(path), "https://other.example.com")
    other.add(99, "elsewhere/project")
    store = WatchStore(StateStore(path), "https://gitlab.example.com/api/v4/")
    assert store.add(12, "platform/api") is True
    assert store.add(12, "platform/api") is False
    assert store.toggle(13, "platform/web") is True
    assert store.add_group("platform/infra/") is True and store.add_group("Platform/Infra") is False

    again = WatchStore(StateStore(path), "https://gitlab.example.com")  # a new process
    assert [(ref.id, ref.path) for ref in again.projects] == [(12, "platform/api"), (13, "platform/web")]
    assert again.groups == ("platform/infra",)
    data = json.loads(path.read_text())
    assert data["history"] == ["jobs", "board"] and data["drafts"] == {"issue:x": "text"}
    assert data["ui"] == {"board": {"sort": "x"}}
    assert data["watch"]["https://other.example.com"]["projects"] == [{"id": 99, "path": "elsewhere/project"}]
    assert path.stat().st_mode & 0o777 == 0o600

    assert again.toggle(13, "platform/web") is False and again.remove(12) is True and again.remove(12) is False
    assert again.remove_group("platform/infra") is True
    assert WatchStore(StateStore(path), "https://gitlab.example.com").projects == ()
    assert "https://gitlab.example.com" not in json.loads(path.read_text())["watch"]


def test_a_damaged_entry_is_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    StateStore(path).save({"watch": {"https://g.example.com": {"projects": [{"id": "x"}, {"id": 5, "path": "a/b"},
                                                                            "junk", {"id": True}],
                                                               "groups": [3, "g"]}}})
    store = WatchStore(StateStore(path), "https://g.example.com")
    assert [(ref.id, ref.path) for ref in store.projects] == [(5, "a/b")]
    assert store.groups == ("g",)


def test_in_group() -> None:
    assert in_group("platform/infra/dns", "platform")
    assert in_group("platform/infra/dns", "platform/infra")
    assert in_group("Platform/Infra/dns", "platform/infra/")
    assert not in_group("platform/infra/dns", "platform/inf")
    assert not in_group("platform-x/dns", "platform")
    assert not in_group("platform", "platform")
    assert not in_group(None, "platform")


async def test_starred_added_and_group_projects_from_the_simulator(sim: SimServer, tmp_path: Path) -> None:
    store = WatchStore(StateStore(tmp_path / "state.json"), sim.base_url)
    search = project_id(sim, "platform/search")
    store.add(search, "platform/search")
    store.add_group("platform/infra")
    async with api_client(sim, "user") as client:  # alice
        watched = await WatchedSet(client, store).resolve()
    paths = watched.paths()
    assert {"platform/api-gateway", "platform/auth-service", "web/design-system"} <= set(paths.values())
    assert paths[search] == "platform/search"
    infra = {p for p in paths.values() if p.startswith("platform/infra/")}
    assert infra == {"platform/infra/ansible-roles", "platform/infra/dns", "platform/infra/k8s-manifests",
                     "platform/infra/observability", "platform/infra/terraform-modules"}
    by_id = {project.id: project for project in watched.projects}
    assert by_id[search].sources == {"added"}
    assert by_id[project_id(sim, "platform/auth-service")].sources == {"starred"}
    assert watched.starred_ids and watched.member_ids and watched.problems == ()


async def test_an_admin_who_is_no_member_still_gets_the_group(sim: SimServer, tmp_path: Path) -> None:
    store = WatchStore(StateStore(tmp_path / "state.json"), sim.base_url)
    store.add_group("platform/infra")
    async with api_client(sim, "admin") as client:
        watched = await WatchedSet(client, store, starred=False).resolve()
    assert len(watched.projects) == 5 and all(p.path.startswith("platform/infra/") for p in watched.projects)


async def test_current_shows_a_w_at_once_without_a_request(sim: SimServer, tmp_path: Path) -> None:
    store = WatchStore(StateStore(tmp_path / "state.json"), sim.base_url)
    async with api_client(sim, "user") as client:
        watched = WatchedSet(client, store)
        before = len((await watched.resolve()).projects)
        store.add(project_id(sim, "data/reports"), "data/reports")
        assert len(watched.current().projects) == before + 1
