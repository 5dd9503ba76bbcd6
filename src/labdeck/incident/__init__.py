"""Incident bundles: the evidence about a failure, collected and packed for a hand-over.

- :mod:`labdeck.incident.collect`: :func:`~labdeck.incident.collect.collect_incident` (jobs, logs,
  runners, triage verdicts of one pipeline or job);
- :mod:`labdeck.incident.bundle`: :func:`~labdeck.incident.bundle.build_bundle` / ``write_bundle``
  (one ``.tar.gz``);
- :mod:`labdeck.incident.summary`: ``render_summary`` and ``clipboard_summary``;
- :mod:`labdeck.incident.plain_log`: a raw log as plain text (what the viewer shows).

It reads through the client (:mod:`labdeck.api`) and the triage core; the UI and ``labdeck`` commands
call it. The local audit log of changes is another package, :mod:`labdeck.audit`, below the client.
"""
