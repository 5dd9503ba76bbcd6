"""What a pipeline is made of (the specs the data set and the control surface build); how the
statuses of its jobs make up its own is :mod:`labdeck.sim.ci.status`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class JobSpec:
    """How to create one job (the control surface and the data set build these)."""

    name: str
    tags: list[str] = field(default_factory=list)
    when: str = "on_success"
    script: list[str] = field(default_factory=list)
    fail: bool = False
    duration: float | None = 60.0
    allow_failure: bool | None = None
    artifacts: str | None = None
    artifact_bytes: int = 0
    trace_kind: str = "script"
    bulk_initial_bytes: int = 0
    bulk_rate: float = 0.0
    bulk_lines: int | None = None
    outcome_fixed: bool = True
    failure: str | None = None  # the failure_reason of a planned failure (script_failure when None)
    flaky: bool = False  # fails, passes on retry
    failure_log: str | None = None  # "image_pull": a failure's log shows a failed image pull (script_failure)
    resource_group: str | None = None
    prepare: bool = False  # an environment with prerequisites: ``preparing`` first (gitlab dialect)
    start_in: float | None = None  # seconds, for ``when: delayed``
    line_rate: float | None = None  # lines a second of the script's output (None: one to three)


@dataclass
class StageSpec:
    name: str
    jobs: list[JobSpec]


def go_duration(seconds: int) -> str:
    """Seconds as Go prints a duration (``1h0m0s``), as the runner's timeout message does."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes}m{secs}s"
