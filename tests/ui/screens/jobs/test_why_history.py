"""The history line of the job detail and the log viewer: marks and durations in one order, newest
first, and it says so (issue 28)."""

from __future__ import annotations

from labdeck.api.models import Job
from labdeck.triage.history import job_history
from labdeck.ui.screens.jobs.why import history_text


def _job(job_id: int, status: str, duration: float) -> Job:
    return Job.model_validate({"id": job_id, "name": "unit", "status": status, "ref": "main", "duration": duration,
                               "pipeline": {"id": job_id, "sha": f"{job_id:040x}", "ref": "main", "status": status}})


def test_marks_and_durations_read_newest_first() -> None:
    # Oldest to newest: passed in 45s, failed in 25s, failed in 10s.
    history = job_history([_job(1, "success", 45), _job(2, "failed", 25), _job(3, "failed", 10)], "unit", "main")
    assert history_text(history) == "last 3 runs on main (newest first): ✗✗✓ · took 10s 25s 45s"


def test_a_run_still_going_has_no_took_and_one_run_is_the_last_run() -> None:
    """Tried in the log viewer of a running job: ``last 1 runs on release-2.4 (newest first): ▶ ·
    took 17m55s`` while the job had run 20 minutes (the page's duration, read minutes before)."""
    history = job_history([_job(7, "running", 1075)], "unit", "main")
    assert history_text(history) == "last run on main (newest first): ▶ · took …"
    history = job_history([_job(1, "failed", 25), _job(2, "running", 40)], "unit", "main")
    assert history_text(history) == "last 2 runs on main (newest first): ▶✗ · took … 25s"


def test_the_job_shown_is_drawn_as_it_is_now_not_as_its_page_said() -> None:
    """The log viewer kept ``▶`` in the strip after the job had ended: its jobs page was read while
    it ran. The job the viewer shows is drawn with its status now."""
    history = job_history([_job(1, "failed", 25), _job(2, "running", 40)], "unit", "main")
    assert history_text(history.as_now(_job(2, "success", 61))) == \
        "last 2 runs on main (newest first): ✓✗ · took 1m01s 25s"
    assert history.as_now(_job(9, "success", 61)) is history  # not one of its runs: as it was
