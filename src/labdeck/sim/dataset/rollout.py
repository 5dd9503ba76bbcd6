"""The rollout scenario of the demo (``labdeck serve --rollout`` and the console's demo): a release
deployed to six regions at once, each region's log growing at its own pace, one region failing
half-way through. The merged view (``F`` on the stage) and ``labdeck follow --stage deploy`` are
made for it.

A dedicated runner (``rollout-runner``, tag ``regions``, six at once) takes the six jobs so that the
rest of the demo's runners keep their load. Off by default: the test data set stays as it was.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from labdeck.sim.ci.engine import CiStore, JobSpec, StageSpec
from labdeck.sim.ci.model import Runner
from labdeck.sim.core.state import Project

PROJECT = "platform/api-gateway"
REF = "release-2.4"
REGIONS = (
    # region, seconds, lines a second, fails
    ("eu", 900.0, 4.0, False),
    ("us", 780.0, 8.0, False),
    ("ap", 420.0, 6.0, True),
    ("ca", 840.0, 2.0, False),
    ("sa", 960.0, 12.0, False),
    ("au", 720.0, 1.0, False),
)
"""The region that fails (``deploy-ap``) does so seven minutes in, while the others still run."""


def rollout_stages() -> list[StageSpec]:
    """One ``deploy`` stage: a job per region, each with its own log rate and length."""
    return [StageSpec("deploy", [
        JobSpec(f"deploy-{region}", ["regions"], script=[f"./scripts/deploy.sh {region}", "kubectl rollout status"],
                duration=seconds, fail=fails, line_rate=rate)
        for region, seconds, rate, fails in REGIONS])]


def add_rollout(ci: CiStore, now: datetime) -> None:
    """Start the rollout now on ``platform/api-gateway`` (its runner first)."""
    state = ci.state
    project = state.project_by_ref(PROJECT)
    if project is None or not isinstance(project, Project):
        return
    runner_id = state.next_id("runner")
    token = f"{(ci.seed * 2_654_435_761 + runner_id * 40_503) % (1 << 80):020x}"
    state.runners[runner_id] = Runner(
        id=runner_id, description="rollout-runner", token=token,
        is_shared=False, active=True, tags=["regions"], run_untagged=False, locked=True,
        access_level="not_protected", maximum_timeout=None, project_ids=[project.id], platform="linux",
        architecture="amd64", ip_address=f"10.0.{runner_id}.9", contacted_at=now - timedelta(seconds=2),
        connected=True, concurrent=len(REGIONS))
    user = state.users[project.creator_id]
    ci.create_pipeline(project, REF, rollout_stages(), user, now, title="Roll out 2.4 to every region")
