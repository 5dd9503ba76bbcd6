"""Clusters: near matching absorbs volatile tokens only, never a changed name (issue 28)."""

from __future__ import annotations

from labdeck.api.models import Job
from labdeck.triage.report import Failure, TriageReport, cluster, merge_reports
from labdeck.triage.verdict import Verdict


def _failure(project: str, job_id: int, signature: str, kind: str = "unknown") -> Failure:
    job = Job.model_validate({"id": job_id, "name": "test", "status": "failed", "ref": "main",
                              "pipeline": {"id": job_id, "sha": "a" * 40, "ref": "main", "status": "failed"}})
    return Failure(project, job_id, job, Verdict(kind, "r"), signature)  # type: ignore[arg-type]


def _groups(*signatures: str) -> list[set[str]]:
    failures = [_failure(f"group/p{index}", index + 1, signature) for index, signature in enumerate(signatures)]
    return sorted((set(found.projects) for found in cluster(failures)), key=sorted)


def test_a_changed_module_name_is_another_cluster() -> None:
    assert _groups("ModuleNotFoundError: No module named 'yaml'", "ModuleNotFoundError: No module named 'yaml'",
                   "ModuleNotFoundError: No module named 'toml'", "ModuleNotFoundError: No module named 'toml'") == [
        {"group/p0", "group/p1"}, {"group/p2", "group/p3"}]


def test_a_changed_file_name_is_another_cluster() -> None:
    sync = "src/sync.c:<n>:<n>: error: expected ';' before '}' token"
    cache = "src/cache.c:<n>:<n>: error: expected ';' before '}' token"
    assert _groups(sync, sync, cache, cache) == [{"group/p0", "group/p1"}, {"group/p2", "group/p3"}]


def test_volatile_tokens_are_still_absorbed() -> None:
    one = "error: upload of <hex> to https://artifacts.example.com:<port>/x failed after <dur> (attempt <n>)"
    two = "error: upload of <hex> to https://artifacts.example.com:<port>/x failed after <n> (attempt <n>)"
    assert _groups(one, two) == [{"group/p0", "group/p1"}]


def test_one_path_on_two_instances_is_two_projects_and_one_cluster() -> None:
    pull = "image pull from registry.example.com failed"
    prod = TriageReport((_failure("web/app", 7, pull, "infrastructure"),), (), {})
    staging = TriageReport((_failure("web/app", 7, pull, "infrastructure"),), (), {})
    assert cluster([*prod.failures, *staging.failures]) == []  # one instance: one project, no cluster
    merged = merge_reports({"prod": prod, "staging": staging})
    assert [f.instance for f in merged.failures] == ["prod", "staging"]
    (outage,) = merged.clusters
    assert outage.projects == ["prod:web/app", "staging:web/app"] and outage.instances == ["prod", "staging"]
    assert outage.as_json()["jobs"] == [{"instance": "prod", "project": "web/app", "job_id": 7},
                                        {"instance": "staging", "project": "web/app", "job_id": 7}]
    assert merged.failures[0].as_json()["instance"] == "prod"


def test_one_instance_keeps_the_shape_it_had() -> None:
    failure = _failure("web/app", 7, "x")
    assert "instance" not in failure.as_json()
    (found,) = cluster([failure, _failure("web/api", 8, "x")])
    assert "instances" not in found.as_json() and "instances" not in found.title
