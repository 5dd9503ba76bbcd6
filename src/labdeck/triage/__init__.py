"""Triage helpers without any UI: why a job is pending.

- :mod:`labdeck.triage.pending`: the pure :func:`~labdeck.triage.pending.explain_pending` over
  :class:`~labdeck.triage.pending.JobFacts` and :class:`~labdeck.triage.pending.RunnerFacts`.
- :mod:`labdeck.triage.gather`: :func:`~labdeck.triage.gather.explain_job` and
  :func:`~labdeck.triage.gather.gather_pending_facts`, which read those facts with the API client.
"""

from __future__ import annotations
