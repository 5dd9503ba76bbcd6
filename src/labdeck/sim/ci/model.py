"""CI entities of the simulator (runners, pipelines, jobs) and their JSON views.

The views follow the 10.x/11.x Grape entities (docs/wire-facts.md §4.4 and §6.1): ``Runner`` (summary),
``RunnerDetails``, ``Job`` (with 11.x additions ``allow_failure``, ``web_url``, ``artifacts`` and
``artifacts_expire_at``) and ``JobBasicWithProject`` for a runner's job list. In the gitlab dialect
they follow current GitLab: runners add ``paused`` and ``runner_type``, report ``stale`` and
``never_contacted``, count as online for 2 h and hide ``ip_address``; failed jobs carry
``failure_reason``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from labdeck.sim.core.clock import iso
from labdeck.sim.core.state import Project, SimState, User

JOB_STATUSES = ("created", "pending", "running", "failed", "success", "canceled", "skipped", "manual")
# Ci::HasStatus::AVAILABLE_STATUSES of current GitLab (the gitlab dialect's job scopes).
CURRENT_JOB_STATUSES = ("created", "waiting_for_resource", "preparing", "waiting_for_callback", "pending",
                        "running", "success", "failed", "canceling", "canceled", "skipped", "manual", "scheduled")
ACTIVE_STATUSES = frozenset({"pending", "running"})
COMPLETED_STATUSES = frozenset({"success", "failed", "canceled", "skipped"})
RETRYABLE_STATUSES = frozenset({"success", "failed", "canceled"})
RUNNER_JOB_STATUSES = ("running", "success", "failed", "canceled")
ONLINE_CONTACT_TIMEOUT = timedelta(hours=1)
# Current GitLab (app/models/ci/runner.rb): online within 2 h, stale after 7 days without contact.
CURRENT_ONLINE_CONTACT_TIMEOUT = timedelta(hours=2)
STALE_TIMEOUT = timedelta(days=7)
ARTIFACTS_FILENAME = "artifacts.zip"
_OBSERVED = frozenset({"status", "retried", "queued_at"})


@dataclass
class Runner:
    """A CI runner, shared (every project with shared runners enabled) or specific."""

    id: int
    description: str
    token: str
    is_shared: bool
    active: bool = True
    tags: list[str] = field(default_factory=list)
    run_untagged: bool = True
    locked: bool = False
    access_level: str = "not_protected"
    maximum_timeout: int | None = None
    project_ids: list[int] = field(default_factory=list)
    version: str | None = "10.8.0"
    revision: str | None = "079aad9e"
    platform: str | None = "linux"
    architecture: str | None = "amd64"
    ip_address: str | None = "10.0.0.10"
    contacted_at: datetime | None = None
    connected: bool = True  # an online runner keeps polling; contacted_at follows the clock
    failing: bool = False  # every job it picks up fails with runner_system_failure (a broken host)
    concurrent: int = 2
    name: str | None = "gitlab-runner"
    created_at: datetime | None = None
    maintenance_note: str | None = None

    @property
    def runner_type(self) -> str:
        """``instance_type`` for shared runners, ``project_type`` for specific ones."""
        return "instance_type" if self.is_shared else "project_type"

    def online(self, now: datetime, *, gitlab: bool = False) -> bool:
        """Contacted within the last hour (``ONLINE_CONTACT_TIMEOUT``; two hours in current GitLab)."""
        window = CURRENT_ONLINE_CONTACT_TIMEOUT if gitlab else ONLINE_CONTACT_TIMEOUT
        return self.contacted_at is not None and now - self.contacted_at < window

    def stale(self, now: datetime) -> bool:
        """Current GitLab: neither created nor contacted within the last 7 days."""
        latest = max((moment for moment in (self.created_at, self.contacted_at) if moment is not None), default=None)
        return latest is not None and now - latest >= STALE_TIMEOUT

    def status(self, now: datetime, *, gitlab: bool = False) -> str:
        """``not_connected`` (never contacted), ``online``, ``offline`` or ``paused`` (10.x
        app/models/ci/runner.rb); current GitLab's ``deprecated_rest_status`` says ``stale`` first
        and ``never_contacted`` instead of ``not_connected``."""
        if gitlab and self.stale(now):
            return "stale"
        if self.contacted_at is None:
            return "never_contacted" if gitlab else "not_connected"
        if not self.active:
            return "paused"
        return "online" if self.online(now, gitlab=gitlab) else "offline"

    def summary(self, now: datetime, *, gitlab: bool = False) -> dict[str, Any]:
        """The Runner summary entity (current GitLab's in the gitlab dialect)."""
        if gitlab:
            return {
                "id": self.id,
                "description": self.description,
                "ip_address": None,  # moved to runner managers; the entity still names it
                "active": self.active,
                "paused": not self.active,
                "is_shared": self.is_shared,
                "runner_type": self.runner_type,
                "name": self.name,
                "online": self.online(now, gitlab=True),
                "status": self.status(now, gitlab=True),
            }
        return {
            "id": self.id,
            "description": self.description,
            "ip_address": self.ip_address,
            "active": self.active,
            "is_shared": self.is_shared,
            "name": self.name,
            "online": self.online(now),
            "status": self.status(now),
        }


@dataclass
class Pipeline:
    id: int
    project_id: int
    ref: str
    sha: str
    user_id: int
    created_at: datetime
    stages: list[str]
    commit_title: str
    commit_message: str
    author_name: str
    author_email: str
    parent_sha: str
    tag: bool = False
    status: str = "created"
    started_at: datetime | None = None
    finished_at: datetime | None = None
    updated_at: datetime | None = None
    iid: int = 0
    source: str = "push"
    name: str | None = None  # ``workflow:name``; set only through the control surface

    def brief(self) -> dict[str, Any]:
        """``{id, sha, ref, status}`` as embedded in job records."""
        return {"id": self.id, "sha": self.sha, "ref": self.ref, "status": self.status}

    def commit(self) -> dict[str, Any]:
        """The Commit entity of the pipeline's sha."""
        created = iso(self.created_at - timedelta(minutes=3))
        return {
            "id": self.sha,
            "short_id": self.sha[:8],
            "title": self.commit_title,
            "created_at": created,
            "parent_ids": [self.parent_sha],
            "message": self.commit_message,
            "author_name": self.author_name,
            "author_email": self.author_email,
            "authored_date": created,
            "committer_name": self.author_name,
            "committer_email": self.author_email,
            "committed_date": created,
        }


@dataclass
class Job:
    """A CI job (a ``ci_builds`` row). Its trace and artifacts are generated lazily from ``seed``."""

    id: int
    project_id: int
    pipeline_id: int
    name: str
    stage: str
    stage_idx: int
    ref: str
    user_id: int
    created_at: datetime
    seed: int
    status: str = "created"
    tag: bool = False
    when: str = "on_success"
    allow_failure: bool = False
    tags: list[str] = field(default_factory=list)
    script: list[str] = field(default_factory=list)
    planned_duration: float | None = 60.0  # None: runs until canceled
    will_fail: bool = False
    failure_message: str | None = None  # the runner's reason, for the log ("exit code 1" when None)
    planned_failure: str | None = None  # the failure_reason a planned failure gets (script_failure when None)
    failure_reason: str | None = None  # set when the job fails (exposed in the gitlab dialect)
    flaky: bool = False  # fails, and every retry passes
    failure_log: str | None = None  # "image_pull": a failure's log is a failed image pull from the registry
    resource_group: str | None = None
    prepare: bool = False  # passes through ``preparing`` (gitlab dialect)
    start_in: float | None = None  # ``when: delayed``
    scheduled_at: datetime | None = None
    prepared_at: datetime | None = None
    cancel_at: datetime | None = None
    queued_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    runner_id: int | None = None
    runner_label: str = ""  # "<description> <token>" of the runner that ran it, for the log header
    retried: bool = False
    outcome_fixed: bool = False  # a retry keeps will_fail (control-surface jobs) instead of re-rolling it
    coverage: float | None = None
    # artifacts: "small" (a few generated files), "big" (one payload of artifact_bytes), or None
    artifacts: str | None = None
    artifact_bytes: int = 0
    artifacts_expire_at: datetime | None = None
    erased_at: datetime | None = None
    erased_by: int | None = None
    # trace: "script" (realistic runner output), "bulk" (benchmark logs), or "none" (only appended data)
    trace_kind: str = "script"
    bulk_initial_bytes: int = 0
    bulk_rate: float = 0.0
    bulk_lines: int | None = None
    trace_log: bytearray | None = None  # materialised once something was appended through the control surface
    trace_gen_pos: int = 0
    trace_erased: bool = False
    # Told ``(job, attribute, old value)`` when ``status``, ``retried`` or ``queued_at`` changes, so
    # that the CI store keeps its per-pipeline tallies and its queue without scanning every job.
    observer: Callable[[Job, str, Any], None] | None = field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OBSERVED:
            observer = self.__dict__.get("observer")
            if observer is not None:
                old = self.__dict__.get(name)
                object.__setattr__(self, name, value)
                if old != value:
                    observer(self, name, old)
                return
        object.__setattr__(self, name, value)

    @property
    def complete(self) -> bool:
        return self.status in COMPLETED_STATUSES

    @property
    def retryable(self) -> bool:
        return self.status in RETRYABLE_STATUSES

    @property
    def playable(self) -> bool:
        """Manual (and delayed) jobs that wait, or finished ones (played again as a retry)."""
        return self.when in ("manual", "delayed") and (self.status in ("manual", "scheduled") or self.retryable)

    def has_artifacts(self) -> bool:
        return self.artifacts is not None and self.erased_at is None

    def duration(self, now: datetime) -> float | None:
        """Seconds from start to finish (or to ``now`` while running)."""
        if self.started_at is None:
            return None
        end = self.finished_at or now
        return round((end - self.started_at).total_seconds(), 3)


# --- views -------------------------------------------------------------------------------------------


def user_entity(user: User | None, base_url: str) -> dict[str, Any] | None:
    """The full User entity used inside job records."""
    if user is None:
        return None
    body = user.brief(base_url)
    body.update(
        {
            "created_at": iso(user.created_at),
            "bio": user.bio or None,
            "location": user.location or None,
            "skype": "",
            "linkedin": "",
            "twitter": "",
            "website_url": "",
            "organization": user.organization or None,
        }
    )
    return body


def project_identity(state: SimState, project: Project) -> dict[str, Any]:
    """ProjectIdentity, as in a runner's job list."""
    return {
        "id": project.id,
        "description": project.description,
        "name": project.name,
        "name_with_namespace": f"{state.namespace_name(project)} / {project.name}",
        "path": project.path,
        "path_with_namespace": state.project_full_path(project),
        "created_at": iso(project.created_at),
    }


def runner_project(state: SimState, project: Project) -> dict[str, Any]:
    """A project inside a runner's detail view."""
    return {
        "id": project.id,
        "name": project.name,
        "name_with_namespace": f"{state.namespace_name(project)} / {project.name}",
        "path": project.path,
        "path_with_namespace": state.project_full_path(project),
    }


def runner_detail(state: SimState, runner: Runner, viewer: User, now: datetime, *, gitlab: bool = False) -> dict[str, Any]:
    """RunnerDetails: the summary plus configuration, token (admin or specific) and projects; in
    the gitlab dialect no token, but ``maintenance_note`` and ``groups``."""
    body = runner.summary(now, gitlab=gitlab)
    projects = [state.projects[pid] for pid in runner.project_ids if pid in state.projects]
    projects = [p for p in projects if not p.deleted]
    if not viewer.is_admin:
        projects = [p for p in projects if state.access_level(viewer, p) > 0]
    body.update(
        {
            "tag_list": list(runner.tags),
            "run_untagged": runner.run_untagged,
            "locked": runner.locked,
            "maximum_timeout": runner.maximum_timeout,
            "access_level": runner.access_level,
            "version": runner.version,
            "revision": runner.revision,
            "platform": runner.platform,
            "architecture": runner.architecture,
            "contacted_at": iso(runner.contacted_at),
            "projects": [runner_project(state, p) for p in projects],
        }
    )
    if gitlab:
        body["maintenance_note"] = runner.maintenance_note
        body["groups"] = []
    elif viewer.is_admin or not runner.is_shared:
        body["token"] = runner.token
    return body


def job_basic(state: SimState, job: Job, base_url: str, now: datetime, *, with_pipeline: bool = True) -> dict[str, Any]:
    """JobBasic: identity, timing, user, commit and (unless an action response) the pipeline."""
    pipeline = state.pipelines.get(job.pipeline_id)
    body: dict[str, Any] = {
        "id": job.id,
        "status": job.status,
        "stage": job.stage,
        "name": job.name,
        "ref": job.ref,
        "tag": job.tag,
        "coverage": job.coverage,
        "allow_failure": job.allow_failure,
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "finished_at": iso(job.finished_at),
        "duration": job.duration(now),
        "queued_duration": _queued_duration(job, now),
        "user": user_entity(state.users.get(job.user_id), base_url),
        "commit": pipeline.commit() if pipeline else None,
        "tag_list": list(job.tags),
    }
    if with_pipeline and pipeline is not None:
        body["pipeline"] = {**pipeline.brief(), "project_id": pipeline.project_id}
    project = state.projects.get(job.project_id)
    if project is not None:
        body["web_url"] = f"{base_url}/{state.project_full_path(project)}/-/jobs/{job.id}"
    return body


def _queued_duration(job: Job, now: datetime) -> float | None:
    if job.queued_at is None:
        return None
    end = job.started_at or now
    return round(max((end - job.queued_at).total_seconds(), 0.0), 3)
