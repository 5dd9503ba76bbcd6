"""How the statuses of jobs make up the status of a stage or a pipeline, at any size.

Both rules work on counts of ``(status, allow_failure)`` over the LATEST try of each job (a retried
job counts once, as its newest try), so the CI store keeps them up to date as jobs move
(:mod:`labdeck.sim.ci.tally`) instead of reading every job of a 1,500-job pipeline per event.

- The spec dialect follows 10.x ``HasStatus.status_sql``: allowed failures and optional manual jobs
  (``allow_failure``) are left out, then the first matching rule wins.
- The gitlab dialect follows current GitLab's ``Gitlab::Ci::Status::Composite``: an allowed failed or
  canceled job counts as ``success_with_warnings``, an optional manual job as ``ignored``, and the
  answer depends on which statuses are present, in Composite's order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

COMPLETED = frozenset({"success", "failed", "canceled", "skipped"})
_WARNING = frozenset({"failed", "canceled"})  # Ci::HasStatus::PASSED_WITH_WARNINGS_STATUSES
_IGNORED = frozenset({"manual"})  # Ci::HasStatus::IGNORED_STATUSES

Counts = Mapping[tuple[str, bool], int]
"""How many latest jobs have each ``(status, allow_failure)``."""

# Composite's "only of" rules, in order: (allowed statuses, result).
_ONLY_OF: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"skipped", "ignored"}), "skipped"),
    (frozenset({"success", "skipped", "success_with_warnings", "ignored"}), "success"),
    (frozenset({"created", "success_with_warnings", "ignored"}), "created"),
    (frozenset({"preparing", "success_with_warnings", "ignored"}), "preparing"),
    (frozenset({"canceled", "success", "skipped", "success_with_warnings", "ignored"}), "canceled"),
    (frozenset({"pending", "created", "skipped", "success_with_warnings", "ignored"}), "pending"),
)
# Then its "any of" rules, in order.
_ANY_OF: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"running", "pending"}), "running"),
    (frozenset({"waiting_for_resource"}), "waiting_for_resource"),
    (frozenset({"waiting_for_callback"}), "waiting_for_callback"),
    (frozenset({"manual"}), "manual"),
    (frozenset({"scheduled"}), "scheduled"),
    (frozenset({"preparing"}), "preparing"),
    (frozenset({"created"}), "running"),
    (frozenset({"canceling"}), "canceling"),
)


def counts_of(pairs: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], int]:
    """Counts of ``(status, allow_failure)`` pairs."""
    counts: dict[tuple[str, bool], int] = {}
    for pair in pairs:
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def composite(counts: Counts, *, gitlab: bool) -> str:
    """The status of a stage or pipeline whose latest jobs have ``counts``."""
    return current(counts) if gitlab else legacy(counts)


def current(counts: Counts) -> str:
    """``Gitlab::Ci::Status::Composite#status`` (with allow_failure); ``skipped`` for no jobs."""
    present: set[str] = set()
    for (status, allow_failure), count in counts.items():
        if count <= 0:
            continue
        if allow_failure and status in _WARNING:
            present.add("success_with_warnings")
        elif allow_failure and status in _IGNORED:
            present.add("ignored")
        else:
            present.add(status)
    if not present:
        return "skipped"
    for allowed, result in _ONLY_OF:
        if present <= allowed:
            return result
    for wanted, result in _ANY_OF:
        if present & wanted:
            return result
    return "failed"


def legacy(counts: Counts) -> str:
    """10.x ``HasStatus.status_sql`` over the jobs that are neither allowed failures nor optional
    manual jobs."""
    relevant: dict[str, int] = {}
    ignored: set[str] = set()
    for (status, allow_failure), count in counts.items():
        if count <= 0:
            continue
        if allow_failure and status in ("failed", "canceled", "manual"):
            ignored.add(status)
        else:
            relevant[status] = relevant.get(status, 0) + count
    total = sum(relevant.values())

    def n(*names: str) -> int:
        return sum(relevant.get(name, 0) for name in names)

    if total == 0:
        if "manual" in ignored:
            return "manual"
        return "success" if "failed" in ignored else "skipped"
    if total == n("skipped"):
        return "skipped"
    if total == n("success", "skipped"):
        return "success"
    if total == n("created"):
        return "created"
    if total == n("success", "skipped", "canceled"):
        return "canceled"
    if total == n("created", "skipped", "pending"):
        return "pending"
    if n("running", "pending") > 0:
        return "running"
    if n("manual") > 0:
        return "manual"
    if n("created") > 0:
        return "running"
    return "failed"


def stage_done(counts: Counts) -> bool:
    """Whether a stage no longer holds later stages back: every latest job complete, or an optional
    manual job."""
    return all(status in COMPLETED or (status == "manual" and allow_failure)
               for (status, allow_failure), count in counts.items() if count > 0)


def with_warnings(counts: Counts) -> bool:
    """Whether an allowed failure is among the jobs (GitLab shows ``passed with warnings``)."""
    return any(allow_failure and status in _WARNING and count > 0 for (status, allow_failure), count in counts.items())
