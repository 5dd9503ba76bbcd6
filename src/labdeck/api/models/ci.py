"""Jobs and runners."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from labdeck.api.models.base import Model, Status, Timestamp
from labdeck.api.models.common import Commit, PipelineRef, ProjectIdentity, User


class JobStatus:
    """Known job statuses; the ``status`` field stays a plain ``str`` so new values survive."""

    CREATED = "created"
    WAITING_FOR_RESOURCE = "waiting_for_resource"
    PREPARING = "preparing"
    PENDING = "pending"
    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    CANCELING = "canceling"
    CANCELED = "canceled"
    SKIPPED = "skipped"
    MANUAL = "manual"
    SCHEDULED = "scheduled"
    SCOPES = (CREATED, PENDING, RUNNING, FAILED, SUCCESS, CANCELED, SKIPPED, MANUAL)
    """Values the spec accepts as ``scope`` filters."""
    ACTIVE = frozenset({PENDING, RUNNING, PREPARING, WAITING_FOR_RESOURCE, CANCELING})
    FINISHED = frozenset({SUCCESS, FAILED, CANCELED, SKIPPED})
    KNOWN = frozenset({CREATED, WAITING_FOR_RESOURCE, PREPARING, PENDING, RUNNING, SUCCESS, FAILED,
                       CANCELING, CANCELED, SKIPPED, MANUAL, SCHEDULED})

    @staticmethod
    def is_finished(status: str | None) -> bool:
        return status in JobStatus.FINISHED


class RunnerStatus:
    """Known runner statuses (``not_connected`` comes from later servers; ``stale`` and
    ``never_contacted`` from 15.x/16.x, where ``paused`` moved to its own field)."""

    ONLINE = "online"
    OFFLINE = "offline"
    PAUSED = "paused"
    NOT_CONNECTED = "not_connected"
    STALE = "stale"
    NEVER_CONTACTED = "never_contacted"
    KNOWN = frozenset({ONLINE, OFFLINE, PAUSED, NOT_CONNECTED, STALE, NEVER_CONTACTED})


class RunnerType:
    """Known ``runner_type`` values (12.x+; older servers only say ``is_shared``)."""

    INSTANCE = "instance_type"
    GROUP = "group_type"
    PROJECT = "project_type"


class ArtifactsFile(Model):
    filename: str | None = None
    size: int | None = None


class Artifact(Model):
    file_type: str | None = None
    size: int | None = None
    filename: str | None = None
    file_format: str | None = None


class Runner(Model):
    """A runner, summary view.

    ``active`` (10.x–16.x) and ``paused`` (14.8+, which later servers send instead) always
    agree here: whichever the server sent, the other is derived, so ``runner.paused`` and
    ``runner.active`` work with every server (a 10.x ``status: "paused"`` counts too).
    """

    id: int
    description: str | None = None
    name: str | None = None
    active: bool | None = None
    paused: bool | None = None
    is_shared: bool | None = None
    runner_type: str | None = None
    online: bool | None = None
    status: str | None = None
    ip_address: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _active_or_paused(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        active, paused = data.get("active"), data.get("paused")
        if isinstance(active, bool) and not isinstance(paused, bool):
            return {**data, "paused": not active}
        if isinstance(paused, bool) and not isinstance(active, bool):
            return {**data, "active": not paused}
        if active is None and paused is None and data.get("status") == RunnerStatus.PAUSED:
            return {**data, "active": False, "paused": True}
        return data

    @property
    def shared(self) -> bool | None:
        """An instance-wide runner (``is_shared``, or ``runner_type`` on servers that only send that)."""
        if self.is_shared is not None:
            return self.is_shared
        return None if self.runner_type is None else self.runner_type == RunnerType.INSTANCE


class RunnerDetail(Runner):
    """A runner, detail view (``GET``/``PUT /runners/:id``)."""

    architecture: str | None = None
    platform: str | None = None
    revision: str | None = None
    version: str | None = None
    contacted_at: Timestamp = None
    projects: list[ProjectIdentity] = Field(default_factory=list)
    token: str | None = Field(default=None, repr=False)
    tag_list: list[str] = Field(default_factory=list)
    access_level: str | None = None
    maximum_timeout: int | None = None
    run_untagged: bool | None = None
    locked: bool | None = None
    maintenance_note: str | None = None


class Job(Model):
    """A job record. ``pipeline`` is absent from action responses (cancel, retry, play…)."""

    id: int
    name: str | None = None
    stage: str | None = None
    ref: str | None = None
    tag: bool | None = None
    status: Status = ""
    failure_reason: str | None = None
    """Why a failed job failed (``script_failure``, ``runner_system_failure``, ``stuck_or_timeout_failure`` …; 10.x has none)."""
    coverage: float | None = None
    allow_failure: bool | None = None
    created_at: Timestamp = None
    started_at: Timestamp = None
    finished_at: Timestamp = None
    erased_at: Timestamp = None
    duration: float | None = None
    """Seconds the job ran."""
    queued_duration: float | None = None
    """Seconds the job waited for a runner (13.x+)."""
    commit: Commit | None = None
    pipeline: PipelineRef | None = None
    artifacts_file: ArtifactsFile | None = None
    artifacts: list[Artifact] = Field(default_factory=list)
    artifacts_expire_at: Timestamp = None
    download_url: str | None = None
    runner: Runner | None = None
    user: User | None = None
    web_url: str | None = None
    tag_list: list[str] = Field(default_factory=list)

    @property
    def finished(self) -> bool:
        """True for a status that will not change on its own."""
        return JobStatus.is_finished(self.status)


class RunnerJob(Job):
    """An item of ``GET /runners/:id/jobs`` (adds the project)."""

    project: ProjectIdentity | None = None


class DetailedStatus(Model):
    """``detailed_status`` of a pipeline detail (the web UI's badge)."""

    icon: str | None = None
    text: str | None = None
    label: str | None = None
    group: str | None = None
    tooltip: str | None = None
    has_details: bool | None = None
    details_path: str | None = None


class Pipeline(Model):
    """A pipeline (GitLab's ``GET /projects/:id/pipelines`` basic object, and the detail of
    ``GET /projects/:id/pipelines/:pipeline_id``, whose extra fields stay None in a list).

    ``status`` is the server's composite over the newest try of every job (allowed failures
    ignored, manual and skipped stages as GitLab's rules say); ``updated_at`` moves only when that
    status changes (or the pipeline is retried or canceled): a job failing inside a pipeline that
    keeps running does not move it, so ``updated_after`` does not find that. The spec
    (10.x) documents no pipelines endpoint: see ``ApiClient.has_pipelines_api``."""

    id: int
    iid: int | None = None
    project_id: int | None = None
    sha: str | None = None
    ref: str | None = None
    status: Status = ""
    source: str | None = None
    created_at: Timestamp = None
    updated_at: Timestamp = None
    web_url: str | None = None
    before_sha: str | None = None
    tag: bool | None = None
    yaml_errors: str | None = None
    user: User | None = None
    started_at: Timestamp = None
    finished_at: Timestamp = None
    committed_at: Timestamp = None
    duration: float | None = None
    """Seconds the pipeline ran (detail only; None while running on some servers)."""
    queued_duration: float | None = None
    coverage: str | float | None = None
    detailed_status: DetailedStatus | None = None

    @property
    def finished(self) -> bool:
        """True for a status that will not change on its own."""
        return JobStatus.is_finished(self.status)
