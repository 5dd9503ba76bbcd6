"""Clusters: near matching absorbs volatile tokens only, never a changed name (issue 28)."""

from __future__ import annotations

from labdeck.api.models import Job
from labdeck.triage.report import Failure, cluster
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
