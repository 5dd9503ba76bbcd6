"""Models parse real GitLab shapes (python-gitlab fixtures, docs/wire-facts.md §6.1) and survive
unknown fields, missing optional fields and unknown enum values (Hypothesis)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labdeck.api import models

# python-gitlab tests/unit/objects/test_jobs.py (job fixture)
GITLAB_JOB = {
    "commit": {"author_email": "admin@example.com", "author_name": "Administrator"},
    "coverage": None, "allow_failure": False, "created_at": "2015-12-24T15:51:21.880Z",
    "started_at": "2015-12-24T17:54:30.733Z", "finished_at": "2015-12-24T17:54:31.198Z",
    "duration": 0.465, "queued_duration": 0.010, "artifacts_expire_at": "2016-01-23T17:54:31.198Z",
    "tag_list": ["docker runner", "macos-10.15"], "id": 1, "name": "rubocop",
    "pipeline": {"id": 1, "project_id": 1}, "ref": "main", "artifacts": [], "runner": None,
    "stage": "test", "status": "failed", "tag": False, "web_url": "https://example.com/foo/bar/-/jobs/1",
    "user": {"id": 1},
}
# python-gitlab tests/unit/objects/test_runners.py (runner detail)
GITLAB_RUNNER = {
    "active": True, "architecture": None, "description": "test-1-20150125", "id": 6, "ip_address": "",
    "is_shared": False, "contacted_at": "2016-01-25T16:39:48.066Z", "name": None, "online": True,
    "status": "online", "platform": None,
    "projects": [{"id": 1, "name": "GitLab Community Edition", "name_with_namespace": "GitLab.org / GitLab CE",
                  "path": "gitlab-ce", "path_with_namespace": "gitlab-org/gitlab-ce"}],
    "revision": None, "tag_list": ["ruby", "mysql"], "version": None, "access_level": "ref_protected",
    "maximum_timeout": 3600,
}
GITLAB_EXPORT = {
    "id": 1, "description": "Itaque perspiciatis minima aspernatur", "name": "Gitlab Test",
    "name_with_namespace": "Gitlab Org / Gitlab Test", "path": "gitlab-test",
    "path_with_namespace": "gitlab-org/gitlab-test", "created_at": "2017-08-29T04:36:44.383Z",
    "export_status": "finished",
    "_links": {"api_url": "https://gitlab.test/api/v4/projects/1/export/download",
               "web_url": "https://gitlab.test/gitlab-test/download_export"},
}
GITLAB_INTEGRATION = {
    "id": 1, "title": "Pipelines emails", "slug": "pipelines-email", "created_at": "2018-05-08T14:54:57.000Z",
    "updated_at": "2018-05-08T14:54:57.000Z", "active": True, "commit_events": True, "push_events": True,
    "issues_events": True, "confidential_issues_events": True, "merge_requests_events": True,
    "tag_push_events": True, "note_events": True, "confidential_note_events": True, "pipeline_events": True,
    "wiki_page_events": True, "job_events": True, "comment_on_event_enabled": True, "project_id": 1,
}
GITLAB_PROTECTED_BRANCH = {
    "id": 1, "name": "main",
    "push_access_levels": [{"access_level": 40, "access_level_description": "Maintainers"}],
    "merge_access_levels": [{"access_level": 30, "access_level_description": "Developers + Maintainers"}],
    "unprotect_access_levels": [{"access_level": 40, "access_level_description": "Maintainers"}],
    "code_owner_approval_required": False,
}
GITLAB_ISSUE = {
    "id": 76, "iid": 6, "project_id": 1, "title": "Consequatur vero maxime", "description": "Ratione dolores",
    "state": "opened", "created_at": "2016-01-04T15:31:51.081Z", "updated_at": "2016-01-04T15:31:51.081Z",
    "closed_at": None, "closed_by": None, "labels": [], "milestone": None, "assignees": [],
    "author": {"id": 1, "name": "Administrator", "username": "root", "state": "active", "avatar_url": None,
               "web_url": "https://gitlab.example.com/root"},
    "assignee": None, "user_notes_count": 1, "upvotes": 4, "downvotes": 0, "due_date": None,
    "confidential": False, "discussion_locked": False, "web_url": "http://example.com/example/example/issues/6",
    "time_stats": {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None,
                   "human_total_time_spent": None},
    "_links": {"self": "http://gitlab.example.com/api/v4/projects/1/issues/76",
               "notes": "http://gitlab.example.com/api/v4/projects/1/issues/76/notes",
               "award_emoji": "http://gitlab.example.com/api/v4/projects/1/issues/76/award_emoji",
               "project": "http://gitlab.example.com/api/v4/projects/1"},
    "subscribed": True, "task_status": "", "has_tasks": False,
}
GITLAB_PROJECT = {"name": "name", "id": 1, "owner": {"id": 1, "username": "owner_username", "name": "owner_name"},
                  "forks_count": 2, "forked_from_project": {"id": 9, "name": "src", "forks_count": 2},
                  "visibility": "private", "star_count": 0, "last_activity_at": "2018-01-01T10:00:00"}

SAMPLES: list[tuple[type[models.Model], dict[str, Any]]] = [
    (models.Job, GITLAB_JOB), (models.RunnerDetail, GITLAB_RUNNER), (models.ExportStatus, GITLAB_EXPORT),
    (models.Integration, GITLAB_INTEGRATION), (models.ProtectedBranch, GITLAB_PROTECTED_BRANCH),
    (models.Issue, GITLAB_ISSUE), (models.Project, GITLAB_PROJECT),
    (models.ImportStatus, {**{k: v for k, v in GITLAB_EXPORT.items() if k not in ("export_status", "_links")},
                           "import_status": "scheduled"}),
    (models.Badge, {"name": "Coverage", "id": 1, "link_url": "http://example.com/ci_status.svg?project=%{project_path}",
                    "image_url": "https://shields.io/my/badge", "rendered_link_url": "http://example.com/x",
                    "rendered_image_url": "https://shields.io/my/badge", "kind": "group"}),
    (models.ProjectGroupLink, {"id": 1, "project_id": 1, "group_id": 1, "group_access": 30, "expires_at": None}),
    (models.UploadedFile, {"alt": "filename", "url": "/uploads/x/filename.png", "full_path": "/g/p/uploads/x",
                           "markdown": "![filename](/uploads/x/filename.png)"}),
    (models.NotificationSettings, {"level": "custom", "events": {"new_note": True, "issue_due": False}}),
    (models.User, {"id": 1, "username": "root", "name": "Administrator", "state": "active", "is_admin": True,
                   "identities": [{"provider": "ldap", "extern_uid": "x"}], "created_at": "2012-05-23T08:00:58Z"}),
]


@pytest.mark.parametrize(("model", "sample"), SAMPLES, ids=lambda value: getattr(value, "__name__", ""))
def test_real_gitlab_samples_parse(model: type[models.Model], sample: dict[str, Any]) -> None:
    parsed = model.model_validate(sample)
    for value in parsed.__dict__.values():
        if isinstance(value, datetime):
            assert value.tzinfo is not None


def test_naive_timestamps_become_utc_and_aliases_work() -> None:
    project = models.Project.model_validate(GITLAB_PROJECT)
    assert project.last_activity_at is not None and project.last_activity_at.utcoffset() is not None
    issue = models.Issue.model_validate(GITLAB_ISSUE)
    assert issue.links is not None and issue.links["notes"].endswith("/notes")  # type: ignore[union-attr]


def test_secrets_in_models_stay_out_of_repr() -> None:
    runner = models.RunnerDetail.model_validate({**GITLAB_RUNNER, "token": "runner-secret-token"})
    project = models.Project.model_validate({**GITLAB_PROJECT, "runners_token": "runners-secret"})
    assert "runner-secret-token" not in repr(runner) and "runners-secret" not in repr(project)


def test_unknown_statuses_are_kept() -> None:
    for status in ("preparing", "scheduled", "waiting_for_resource", "canceling", "started"):
        job = models.Job.model_validate({**GITLAB_JOB, "status": status})
        assert job.status == status and not job.finished
    assert models.Runner.model_validate({**GITLAB_RUNNER, "status": "not_connected"}).status == "not_connected"
    assert models.Job.model_validate({**GITLAB_JOB, "status": None}).status == ""
    assert models.Job.model_validate({**GITLAB_JOB, "status": "canceled"}).finished


_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
_json = st.recursive(_json_scalars, lambda children: st.one_of(
    st.lists(children, max_size=3), st.dictionaries(st.text(max_size=6), children, max_size=3)), max_leaves=6)
_keys = st.text(min_size=1, max_size=12).filter(lambda k: k not in {"id", "iid", "name"})


def _known(model: type[pydantic.BaseModel]) -> set[str]:
    names = set()
    for name, field in model.model_fields.items():
        names.add(field.alias or name)
    return names


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model_sample=st.sampled_from(SAMPLES), extra=st.dictionaries(_keys, _json, max_size=5),
       data=st.data())
def test_extra_and_missing_fields_never_break_parsing(model_sample: tuple[type[models.Model], dict[str, Any]],
                                                      extra: dict[str, Any], data: Any) -> None:
    model, sample = model_sample
    known = _known(model)
    required = {field.alias or name for name, field in model.model_fields.items() if field.is_required()}
    optional = sorted(k for k in sample if k not in required)
    removed = data.draw(st.sets(st.sampled_from(optional), max_size=len(optional))) if optional else set()
    payload = {k: v for k, v in sample.items() if k not in removed}
    payload.update({k: v for k, v in extra.items() if k not in known})
    model.model_validate(payload)


@settings(max_examples=60, deadline=None)
@given(status=st.text(max_size=20), runner_status=st.text(max_size=20), state=st.text(max_size=20),
       level=st.text(max_size=20))
def test_any_enum_value_is_kept(status: str, runner_status: str, state: str, level: str) -> None:
    assert models.Job.model_validate({**GITLAB_JOB, "status": status}).status == status
    assert models.Runner.model_validate({**GITLAB_RUNNER, "status": runner_status}).status == runner_status
    assert models.Issue.model_validate({**GITLAB_ISSUE, "state": state}).state == state
    assert models.NotificationSettings.model_validate({"level": level}).level == level


@settings(max_examples=40, deadline=None)
@given(stamp=st.one_of(st.datetimes(), st.text(max_size=25)))
def test_any_timestamp_text_parses_or_becomes_none(stamp: Any) -> None:
    value = stamp.isoformat() if isinstance(stamp, datetime) else stamp
    job = models.Job.model_validate({**GITLAB_JOB, "created_at": value})
    assert job.created_at is None or job.created_at.tzinfo is not None


async def test_simulator_output_parses_for_every_list(admin: Any) -> None:
    project = (await admin.projects.list(per_page=1, statistics=True).first_page())[0]
    assert project.permissions is not None or project.namespace is not None
    runners = await admin.runners.list_all().all()
    details = [await admin.runners.get(r.id) for r in runners]
    assert all(d.contacted_at is None or d.contacted_at.tzinfo for d in details)


def test_a_null_collection_reads_as_its_default_in_subclasses_and_lists() -> None:
    """The null rule sits on the collection fields: a subclass's own fields have it too, and a page
    parsed as a list (the JSON read by pydantic-core directly) gets the same values as one record."""
    from pydantic import Field

    from labdeck.api.models import Job
    from labdeck.api.parsers import list_parser

    class Tagged(Job):
        labels: list[str] = Field(default_factory=list)
        extra: dict[str, int] = Field(default_factory=dict)

    body = b'[{"id": 1, "tag_list": null, "labels": null, "extra": null, "artifacts": null}]'
    (item,) = list_parser(Tagged).validate_json(body)
    assert (item.tag_list, item.labels, item.extra, item.artifacts) == ([], [], {}, [])
    assert list_parser(Job).validate_json(body)[0] == Job.model_validate({"id": 1})
