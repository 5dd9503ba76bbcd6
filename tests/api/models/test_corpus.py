"""Response bodies from GitLab's published API docs (11.x, 13.x, 15.x-16.x, 17.x-18.x; see each
``tests/api/models/corpus/*.json`` for its source and era) parse into our models without losing any field
the console shows.

Each console field is compared with the raw JSON wherever the doc's body has it, and every such
field must be met somewhere in the corpus, so an example cannot silently stop covering it.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pydantic
import pytest

from labdeck.api import models
from labdeck.api.resources.integration_kinds import slug_for_title

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("*.json"))
MODELS: dict[str, Any] = {
    "Job": models.Job, "Runner": models.Runner, "RunnerDetail": models.RunnerDetail, "Project": models.Project,
    "Issue": models.Issue, "Integration": models.Integration, "ProjectHook": models.ProjectHook,
    "ProtectedBranch": models.ProtectedBranch,
}


def _load(path: Path) -> tuple[dict[str, Any], Any, list[Any]]:
    document = json.loads(path.read_text())
    name = document["model"]
    many = name.startswith("list[")
    model = MODELS[name[5:-1] if many else name]
    body = document["body"]
    parsed = pydantic.TypeAdapter(list[model] if many else model).validate_python(body)
    raws = body if many else [body]
    return document, parsed if many else [parsed], raws


def _when(value: Any) -> datetime | None:
    return None if value is None else datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _path(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if data is None:
            return None
        data = data.get(part) if isinstance(data, dict) else getattr(data, part, None)
    return data


Check = Callable[[dict[str, Any], Any], bool | None]
"""(raw item, parsed item) → None when the raw body does not have the field, else whether it matches."""


def same(dotted: str, convert: Callable[[Any], Any] = lambda value: value) -> Check:
    def check(raw: dict[str, Any], item: Any) -> bool | None:
        value = _path(raw, dotted)
        if value is None:
            return None
        return bool(convert(value) == _path(item, dotted))

    return check


def when(name: str) -> Check:
    def check(raw: dict[str, Any], item: Any) -> bool | None:
        return None if raw.get(name) is None else _when(raw[name]) == getattr(item, name)

    return check


def _paused(raw: dict[str, Any], item: Any) -> bool | None:
    if "paused" in raw:
        return bool(item.paused is raw["paused"])
    if "active" in raw:
        return bool(item.paused is (not raw["active"]))  # derived on servers before 14.8
    return None


def _active(raw: dict[str, Any], item: Any) -> bool | None:
    if "active" in raw:
        return bool(item.active is raw["active"])
    return None if "paused" not in raw else bool(item.active is (not raw["paused"]))


def _topics(raw: dict[str, Any], item: Any) -> bool | None:
    tags = raw.get("topics") or raw.get("tag_list")
    if tags is None:
        return None
    return bool(item.topics == tags and item.tag_list == (raw.get("tag_list") or tags))


def _assignees(raw: dict[str, Any], item: Any) -> bool | None:
    if raw.get("assignees") is None:
        return None
    return [a["username"] for a in raw["assignees"]] == [a.username for a in item.assignees]


def _levels(raw: dict[str, Any], item: Any) -> bool | None:
    if "push_access_levels" not in raw:
        return None
    for kind in ("push_access_levels", "merge_access_levels", "unprotect_access_levels"):
        want = [(lvl.get("access_level"), lvl.get("access_level_description")) for lvl in raw.get(kind) or []]
        have = [(lvl.access_level, lvl.access_level_description) for lvl in getattr(item, kind)]
        if want != have:
            return False
    return True


def _force_push(raw: dict[str, Any], item: Any) -> bool | None:
    return None if "allow_force_push" not in raw else bool(item.allow_force_push is raw["allow_force_push"])


def _events(raw: dict[str, Any], item: Any) -> bool | None:
    flags = {key: value for key, value in raw.items() if key.endswith("_events") and isinstance(value, bool)}
    return None if not flags else bool(item.events == flags)


def _integration_slug(raw: dict[str, Any], item: Any, endpoint: str = "") -> bool | None:
    # The console needs a slug; servers before 13.x do not send one (the API fills it from the title).
    expected = raw.get("slug") or endpoint.rsplit("/", 1)[-1]
    return bool((item.slug or slug_for_title(item.title)) == expected)


FIELDS: dict[str, dict[str, Check]] = {
    "Job": {
        "id": same("id"), "name": same("name"), "status": same("status"), "stage": same("stage"),
        "ref": same("ref"), "failure_reason": same("failure_reason"), "queued_duration": same("queued_duration"),
        "duration": same("duration"), "tag_list": same("tag_list"), "runner.description": same("runner.description"),
        "pipeline.id": same("pipeline.id"), "user.username": same("user.username"), "user.name": same("user.name"),
        "commit.short_id": same("commit.short_id"), "created_at": when("created_at"),
    },
    "Runner": {
        "id": same("id"), "description": same("description"), "paused": _paused, "active": _active,
        "online": same("online"), "status": same("status"), "tag_list": same("tag_list"),
        "runner_type": same("runner_type"), "is_shared": same("is_shared"), "contacted_at": when("contacted_at"),
    },
    "Project": {
        "path_with_namespace": same("path_with_namespace"), "topics/tag_list": _topics,
        "last_activity_at": when("last_activity_at"), "star_count": same("star_count"), "archived": same("archived"),
        "default_branch": same("default_branch"), "shared_runners_enabled": same("shared_runners_enabled"),
    },
    "Issue": {
        "iid": same("iid"), "title": same("title"), "state": same("state"), "labels": same("labels"),
        "assignees": _assignees, "time_stats.time_estimate": same("time_stats.time_estimate"),
        "time_stats.total_time_spent": same("time_stats.total_time_spent"), "web_url": same("web_url"),
    },
    "Integration": {
        "slug": _integration_slug, "title": same("title"), "active": same("active"), "properties": same("properties"),
    },
    "ProjectHook": {"url": same("url"), "name": same("name"), "events": _events},
    "ProtectedBranch": {"name": same("name"), "access levels": _levels, "allow_force_push": _force_push},
}
FIELDS["RunnerDetail"] = FIELDS["Runner"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_documented_body_parses_without_losing_console_fields(path: Path) -> None:
    document, parsed, raws = _load(path)
    kind = document["model"].removeprefix("list[").removesuffix("]")
    assert parsed and len(parsed) == len(raws)
    for raw, item in zip(raws, parsed, strict=True):
        for field, check in FIELDS[kind].items():
            if check is _integration_slug:
                result = _integration_slug(raw, item, document["endpoint"] if not isinstance(document["body"], list)
                                           else "")
            else:
                result = check(raw, item)
            assert result is not False, f"{path.name}: {field} lost or changed"


def test_every_console_field_is_met_in_the_corpus() -> None:
    met: Counter[tuple[str, str]] = Counter()
    eras: dict[str, set[str]] = {}
    for path in FILES:
        document, parsed, raws = _load(path)
        kind = document["model"].removeprefix("list[").removesuffix("]")
        eras.setdefault(kind.replace("Detail", ""), set()).add(path.stem.rsplit("_", 1)[-1])
        for raw, item in zip(raws, parsed, strict=True):
            for field, check in FIELDS[kind].items():
                endpoint = document["endpoint"] if not isinstance(document["body"], list) else ""
                result = _integration_slug(raw, item, endpoint) if check is _integration_slug else check(raw, item)
                if result:
                    met[(kind.replace("Detail", ""), field)] += 1
    missing = [(kind, field) for kind, fields in FIELDS.items() for field in fields
               if met[(kind.replace("Detail", ""), field)] == 0]
    assert missing == []
    # Every resource is covered by at least two GitLab eras.
    assert all(len(found) >= 2 for found in eras.values()), eras


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_null_where_a_list_is_expected_reads_as_empty(path: Path) -> None:
    document = json.loads(path.read_text())
    name = document["model"].removeprefix("list[").removesuffix("]")
    model = MODELS[name]
    raws = document["body"] if isinstance(document["body"], list) else [document["body"]]
    for raw in raws:
        nulled = copy.deepcopy(raw)
        lists = [key for key, value in raw.items() if isinstance(value, list)]
        for key in lists:
            nulled[key] = None
        item = model.model_validate(nulled)
        for key in lists:
            if key in model.model_fields:
                assert getattr(item, key) == [], (path.name, key)


def test_generic_null_handling_covers_fields_nobody_listed() -> None:
    job = models.Job.model_validate_json(b'{"id": 1, "tag_list": null, "artifacts": null}')
    project = models.Project.model_validate({"id": 1, "tag_list": None, "topics": None, "shared_with_groups": None})
    branch = models.ProtectedBranch.model_validate({"name": "main", "push_access_levels": None})
    assert job.tag_list == [] and job.artifacts == [] and project.topics == [] and project.tag_list == []
    assert branch.push_access_levels == []
    with pytest.raises(pydantic.ValidationError):
        models.Job.model_validate({"id": None})  # a null where a value is required is still an error
