"""Why is this job pending? A pure explanation from the facts about the project's runners.

A job leaves ``pending`` when a runner that may take it asks for work. A runner may take a job when
it is available to the project (its own specific runner, or a shared one with shared runners
enabled), has every tag of the job (or, for an untagged job, runs untagged jobs), and, when it runs
only protected refs (``access_level: ref_protected``), the job's ref is protected. It asks for work
when it is active (not paused) and online (contacted within the last hour, docs/wire-facts.md §6.2), and
it gets a job when it has a free slot.

:func:`explain_pending` checks those conditions in that order and returns the first one that
stops every runner, as a :class:`PendingExplanation` with a one-line headline and detail lines.
Nothing here does I/O; :mod:`labdeck.triage.gather` collects the facts with the API client. Times
("offline since 9d") are measured from ``now``, which should be the server's clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

ONLINE_WINDOW = timedelta(hours=1)
"""A runner is online when it was contacted within this window (``ONLINE_CONTACT_TIMEOUT``)."""

Reason = Literal["not_pending", "not_queued", "manual", "no_runners", "shared_disabled", "untagged_refused",
                 "no_tag_match", "protected_only", "none_online", "all_busy", "waiting"]


@dataclass(frozen=True)
class RunnerFacts:
    """What is known about one runner. ``None`` means the server did not say."""

    id: int
    description: str
    is_shared: bool = False
    active: bool = True
    online: bool | None = None
    status: str | None = None
    contacted_at: datetime | None = None
    tag_list: tuple[str, ...] = ()
    run_untagged: bool | None = None
    locked: bool | None = None
    access_level: str | None = None
    running_jobs: int | None = None
    """Jobs it is running now (``GET /runners/:id/jobs?status=running``), None when not readable."""

    @property
    def label(self) -> str:
        """```description``` (or ``runner #id``) for headlines."""
        return f"`{self.description or f'runner #{self.id}'}`"


@dataclass(frozen=True)
class JobFacts:
    """The job being explained. ``tags`` None: the server does not report job tags."""

    id: int
    status: str
    name: str | None = None
    tags: tuple[str, ...] | None = ()
    ref: str | None = None
    protected_ref: bool | None = None
    """Whether ``ref`` is a protected branch (None: unknown, or not needed)."""


@dataclass(frozen=True)
class PendingExplanation:
    """The answer: ``headline`` (one line), ``details`` (one line each), the ``reason`` code and the
    runners that could take the job once the problem is solved (``candidates``)."""

    reason: Reason
    headline: str
    details: tuple[str, ...] = ()
    candidates: tuple[int, ...] = field(default=())

    @property
    def is_problem(self) -> bool:
        """False when the job is merely waiting its turn (or is not pending at all)."""
        return self.reason not in ("waiting", "not_pending", "not_queued", "manual")

    def to_markdown(self) -> str:
        """The headline, then the details as a bullet list."""
        return "\n".join([self.headline, *(f"- {line}" for line in self.details)])


def age(since: datetime | None, now: datetime) -> str:
    """``9d``, ``3h``, ``12m``, ``40s`` (the largest whole unit)."""
    if since is None:
        return "?"
    seconds = max(0, int((now - since).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _online(runner: RunnerFacts, now: datetime) -> bool:
    if runner.status in ("offline", "not_connected"):
        return False
    if runner.online is not None:
        return runner.online
    return runner.contacted_at is not None and now - runner.contacted_at < ONLINE_WINDOW


def availability(runner: RunnerFacts, now: datetime) -> str | None:
    """Why the runner does not ask for work (``paused``, ``offline since 9d``, ``never contacted``),
    or None when it is active and online."""
    if not runner.active or runner.status == "paused":
        return "paused"
    if _online(runner, now):
        return None
    if runner.contacted_at is None or runner.status == "not_connected":
        return "never contacted"
    return f"offline since {age(runner.contacted_at, now)}"


def _tags(tags: Sequence[str]) -> str:
    return f"tags {', '.join(tags)}" if tags else "no tags"


def _mismatch(runner: RunnerFacts, job: JobFacts, shared_enabled: bool | None) -> str | None:
    """Why the runner may not take the job whatever its state, or None."""
    if runner.is_shared and shared_enabled is False:
        return "shared"
    if job.tags is not None:
        if job.tags:
            missing = [tag for tag in job.tags if tag not in runner.tag_list]
            if missing:
                return "tags"
        elif runner.run_untagged is False:
            return "untagged"
    if runner.access_level == "ref_protected" and job.protected_ref is False:
        return "protected"
    return None


def _describe(runner: RunnerFacts, now: datetime, why: str | None) -> str:
    state = availability(runner, now) or "online"
    kind = "shared" if runner.is_shared else "specific"
    text = f"{runner.label} ({kind}, {_tags(runner.tag_list)}) is {state}"
    notes = {
        "shared": "shared runners are disabled for this project",
        "tags": "lacks a tag the job needs",
        "untagged": "does not run untagged jobs",
        "protected": "runs only protected branches and tags",
    }
    if why:
        text += f"; {notes[why]}"
    if state == "online" and runner.running_jobs:
        text += f"; running {runner.running_jobs} job{'s' if runner.running_jobs != 1 else ''}"
    return text


def _join(parts: Sequence[str], limit: int = 3) -> str:
    shown = list(parts[:limit])
    if len(parts) > limit:
        shown.append(f"{len(parts) - limit} more")
    return "; ".join(shown)


def explain_pending(job: JobFacts, runners: Sequence[RunnerFacts], *, now: datetime,
                    shared_runners_enabled: bool | None = None) -> PendingExplanation:
    """Explain why ``job`` is pending given every runner that could concern it.

    ``runners`` are the project's runners plus, when shared runners are disabled, the shared
    runners (so the answer can say that enabling them would help). ``now`` is the server's time.
    """
    status = job.status
    if status == "created":
        return PendingExplanation("not_queued", "not queued yet: waiting for earlier stages of the pipeline")
    if status == "manual":
        return PendingExplanation("manual", "manual job: waiting for someone to start it")
    if status not in ("pending", "waiting_for_resource", "preparing"):
        return PendingExplanation("not_pending", f"the job is {status}, not pending")
    notes: list[str] = []
    if job.tags is None:
        notes.append("the server does not report the job's tags: tag matching was not checked")
    elif not job.tags and runners and all(r.run_untagged is None for r in runners):
        notes.append("the server does not report whether runners take untagged jobs")
    tag_text = f"tags [{', '.join(job.tags)}]" if job.tags else "no tags"
    if not runners:
        extra = ("shared runners are disabled for this project",) if shared_runners_enabled is False else ()
        return PendingExplanation("no_runners", "no runner is available to this project at all", (*extra, *notes))
    why = {runner.id: _mismatch(runner, job, shared_runners_enabled) for runner in runners}
    details = tuple(_describe(runner, now, why[runner.id]) for runner in runners) + tuple(notes)
    capable = [runner for runner in runners if why[runner.id] is None]
    if not capable:
        return _no_capable(job, runners, why, details, tag_text)
    online = [runner for runner in capable if availability(runner, now) is None]
    if not online:
        states = [f"{r.label} ({_tags(r.tag_list)}) is {availability(r, now)}" for r in capable]
        needs = f"has {tag_text}" if job.tags else "runs untagged jobs"
        return PendingExplanation("none_online", f"no online runner {needs} — {_join(states)}", details,
                                  tuple(r.id for r in capable))
    free = [runner for runner in online if not runner.running_jobs]
    if not free:
        busy = [f"{r.label} is running {r.running_jobs}" for r in online]
        return PendingExplanation("all_busy", f"all matching runners busy — {_join(busy)}", details,
                                  tuple(r.id for r in online))
    names = ", ".join(r.label for r in free[:3]) + (f" and {len(free) - 3} more" if len(free) > 3 else "")
    plural = "s" if len(free) > 1 else ""
    return PendingExplanation("waiting", f"waiting for a runner to pick it up (matching online runner{plural}: {names})",
                              details, tuple(r.id for r in free))


def _no_capable(job: JobFacts, runners: Sequence[RunnerFacts], why: dict[int, str | None],
                details: tuple[str, ...], tag_text: str) -> PendingExplanation:
    """No runner may take the job: say what stops the ones that come closest."""
    # A runner that fails only because shared runners are off would match otherwise.
    shared_only = [r for r in runners if why[r.id] == "shared"
                   and _mismatch(r, job, None) is None]
    if shared_only:
        names = ", ".join(r.label for r in shared_only[:3])
        return PendingExplanation("shared_disabled", f"shared runners disabled for this project — {names} would "
                                  "take the job", details, tuple(r.id for r in shared_only))
    protected = [r for r in runners if why[r.id] == "protected"]
    if protected:
        names = ", ".join(r.label for r in protected[:3])
        return PendingExplanation("protected_only", f"only runners for protected refs match ({names}) and "
                                  f"`{job.ref}` is not protected", details, tuple(r.id for r in protected))
    if job.tags is not None and not job.tags:
        return PendingExplanation("untagged_refused", "runners exist but do not run untagged jobs — "
                                  + _join([f"{r.label} ({_tags(r.tag_list)})" for r in runners]), details)
    return PendingExplanation("no_tag_match", f"no runner has {tag_text} — "
                              + _join([f"{r.label} has {_tags(r.tag_list)}" for r in runners
                                       if why[r.id] == "tags"] or [r.label for r in runners]), details)
