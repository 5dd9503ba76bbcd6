"""The jobs of one page share their equal parts (commit, pipeline, user, runner)."""

from __future__ import annotations

import json
from typing import Any

from labdeck.api.models import Job, RunnerJob
from labdeck.api.parsers import list_parser, parser_for


def _job(job_id: int, *, pipeline: int = 7, status: str = "failed", user: str = "erin") -> dict[str, Any]:
    return {"id": job_id, "name": f"unit-{job_id}", "status": status,
            "commit": {"id": f"{pipeline:040x}", "title": "Rename internal modules", "message": "Rename\n"},
            "pipeline": {"id": pipeline, "project_id": 1, "ref": "main", "status": "failed"},
            "user": {"id": 6, "username": user, "name": "Erin Castillo", "bio": "Erin works on the platform team."},
            "runner": {"id": 3, "description": "docker-1", "active": True}}


def test_the_jobs_of_one_pipeline_hold_one_commit_one_pipeline_one_user() -> None:
    first, second, other = list_parser(Job).validate_json(json.dumps([_job(1), _job(2), _job(3, pipeline=8)]))
    assert first.commit is second.commit and first.pipeline is second.pipeline
    assert first.user is second.user is other.user and first.runner is other.runner
    assert other.commit is not first.commit and other.commit is not None and other.commit.id == f"{8:040x}"
    assert other.pipeline is not None and other.pipeline.id == 8
    assert [job.name for job in (first, second, other)] == ["unit-1", "unit-2", "unit-3"]


def test_a_part_that_differs_in_any_field_stays_its_own() -> None:
    renamed = _job(2)
    renamed["user"]["username"] = "erin2"
    moved = _job(3)
    moved["pipeline"]["status"] = "success"  # read a moment later
    first, second, third = list_parser(Job).validate_python([_job(1), renamed, moved])
    assert second.user is not first.user and second.user is not None and second.user.username == "erin2"
    assert third.pipeline is not first.pipeline and third.pipeline is not None
    assert third.pipeline.status == "success" and first.pipeline is not None and first.pipeline.status == "failed"


def test_runners_job_lists_and_tuples_share_too() -> None:
    one, two = parser_for(list[RunnerJob]).validate_json(json.dumps([_job(1), _job(2)]))
    assert one.commit is two.commit
    three, four = parser_for(tuple[Job, ...]).validate_json(json.dumps([_job(3), _job(4)]))
    assert three.user is four.user


def test_jobs_naming_the_same_fields_share_one_set_of_names_and_copies_stay_apart() -> None:
    one, two = list_parser(Job).validate_json(json.dumps([_job(1), _job(2, pipeline=8)]))
    (three,) = list_parser(Job).validate_json(json.dumps([_job(3, pipeline=9)]))  # another page
    assert one.model_fields_set is two.model_fields_set is three.model_fields_set
    assert one.commit is not None and two.commit is not None
    assert one.commit.model_fields_set is two.commit.model_fields_set
    bare = {"id": 4, "status": "failed"}
    (four,) = list_parser(Job).validate_python([bare])
    assert four.model_fields_set == {"id", "status"} and "commit" in one.model_fields_set
    copied = one.model_copy(update={"status": "pending"})
    assert copied.status == "pending" and one.status == "failed"
    assert copied.model_fields_set is not one.model_fields_set
    assert two.model_fields_set == one.model_fields_set and "status" in one.model_fields_set


def test_the_words_jobs_repeat_are_one_string_and_one_list_of_tags() -> None:
    raw = [{**_job(job_id), "name": "unit-tests", "stage": "test", "ref": "main", "tag_list": ["docker", "linux"]}
           for job_id in (1, 2)]
    raw.append({**_job(3), "name": "lint", "tag_list": ["docker"]})
    one, two, three = list_parser(Job).validate_json(json.dumps(raw))
    assert one.name is two.name and one.stage is two.stage and one.ref is two.ref and one.status is two.status
    assert one.tag_list is two.tag_list == ["docker", "linux"]
    assert three.name == "lint" and three.tag_list == ["docker"] and three.status is one.status
