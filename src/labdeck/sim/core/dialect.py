"""Which GitLab the simulator plays: ``spec`` (the shared spec, GitLab 10.x/11.x) or ``gitlab``
(current GitLab, 18.x).

The dialect is fixed when the data set is built (``build_state(dialect=…)``, ``labdeck serve
--dialect``) and read by the families through :func:`is_gitlab`. What differs between the two is
listed in the docstrings of the code that branches on it; the short version:

- integrations: neutral slugs (spec) or real ones (gitlab), ``/integrations`` list shape, removed
  integrations, chat webhooks hidden;
- runners: ``paused``, ``runner_type``, the ``stale``/``never_contacted`` statuses, a 2 h online
  window, ``paused``/``type``/``status``/``tag_list`` filters;
- projects: ``topics``, ``last_activity_after``/``_before``, last activity reset at most hourly
  (by a push or an edit);
- jobs: ``failure_reason``, the current status list (``scheduled``, ``preparing``,
  ``waiting_for_resource``, ``canceling``), stuck jobs dropped, no counts on the project job list;
- pipelines: the pipelines API (list, one pipeline, retry, cancel; 404 in the spec dialect), only the
  latest try of each job in a pipeline's job list (``include_retried``), the status rules of
  ``Gitlab::Ci::Status::Composite``;
- ``GET /version``.
"""

from __future__ import annotations

from datetime import timedelta

from labdeck.sim.core.state import SimState

# Current GitLab moves a project's ``last_activity_at`` at most this often
# (``Event::RESET_PROJECT_ACTIVITY_INTERVAL``).
ACTIVITY_RESET_INTERVAL = timedelta(hours=1)

SPEC = "spec"
GITLAB = "gitlab"
DIALECTS = (SPEC, GITLAB)
_KEY = "dialect"

# ``GET /version``: a 10.x answer for the spec, a current one for gitlab.
SPEC_VERSION = {"version": "10.8.7-labdeck-sim", "revision": "5b3c2e1a"}
GITLAB_VERSION = {
    "version": "18.4.1-ee",
    "revision": "c1b4d8f2e07",
    "kas": {"enabled": False, "externalUrl": None, "externalK8sProxyUrl": None, "version": None},
    "enterprise": True,
}


def set_dialect(state: SimState, dialect: str) -> None:
    """Fix the dialect of ``state`` (``ValueError`` for an unknown one)."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
    state.extra[_KEY] = dialect


def dialect_of(state: SimState) -> str:
    """``spec`` unless the state was built for another dialect."""
    value = state.extra.get(_KEY, SPEC)
    return value if value in DIALECTS else SPEC


def is_gitlab(state: SimState) -> bool:
    """Whether the simulator plays current GitLab."""
    return state.extra.get(_KEY) == GITLAB
