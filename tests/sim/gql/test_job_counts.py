"""``Pipeline.jobs(statuses:, retried:) { count }`` on a 1,500-job pipeline: a failure deep in the
running stage counts at once (while the pipeline stays ``RUNNING`` and its ``updatedAt`` does not
move, as on GitLab), a retry moves it from the latest tries to the earlier ones, and the count is
GitLab's limited count (1001 past 1000)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, graphql, pipeline, quiet, widen_runner

PROJECT = 1
QUERY = """query($p: ID!) { project(fullPath: $p) { pipelines(first: 1) { nodes {
  status updatedAt
  failedJobs: jobs(statuses: [FAILED], retried: false) { count }
  everyFailedTry: jobs(statuses: [FAILED]) { count }
  retriedJobs: jobs(retried: true) { count }
  runningJobs: jobs(statuses: [RUNNING, PENDING]) { count }
  running50: jobs(statuses: [RUNNING]) { count(limit: 50) } } } } }"""


def _latest(server: SimServer) -> dict[str, Any]:
    response = graphql(server, QUERY, {"p": "platform/api-gateway"})
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    [node] = body["data"]["project"]["pipelines"]["nodes"]
    latest: dict[str, Any] = node
    return latest


def test_a_failure_deep_in_a_running_1500_job_pipeline_counts_at_once(sim_factory: Callable[..., SimServer]) -> None:
    server = quiet(sim_factory(dialect="gitlab"))
    widen_runner(server)
    tests = [{"name": f"unit-{i:04d}", "duration": 5 if i == 1137 else 3600, "fail": i == 1137}
             for i in range(1, 1201)]
    pipeline(server, PROJECT, [{"name": "test", "jobs": tests},
                               {"name": "deploy", "jobs": [{"name": "deploy", "count": 300, "duration": 30}]}])
    advance(server, 2)
    before = _latest(server)
    assert before["status"] == "RUNNING" and before["failedJobs"] == {"count": 0}
    assert before["runningJobs"] == {"count": 1001} and before["running50"] == {"count": 51}
    advance(server, 10)
    after = _latest(server)
    assert after["status"] == "RUNNING" and after["failedJobs"] == {"count": 1}
    assert after["updatedAt"] == before["updatedAt"]  # GitLab saves a pipeline only when its status changes
    with client(server) as api:
        failed = api.get(f"/projects/{PROJECT}/jobs", params={"scope[]": "failed", "per_page": 1}).json()[0]
        assert failed["name"] == "unit-1137"
        assert api.post(f"/projects/{PROJECT}/jobs/{failed['id']}/retry").status_code == 201
    retried = _latest(server)
    assert retried["failedJobs"] == {"count": 0} and retried["everyFailedTry"] == {"count": 1}
    assert retried["retriedJobs"] == {"count": 1}
