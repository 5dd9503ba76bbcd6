"""What happened, on record: the local audit log of changes and the incident bundle.

- :mod:`labdeck.trail.audit`: :class:`~labdeck.trail.audit.AuditLog` (one per client,
  ``client.audit``) and the ``audited`` hook of the request engine;
  :mod:`labdeck.trail.audit_context`: :class:`AuditTarget` and the ``audit_context`` block the UI
  wraps around an action; :mod:`labdeck.trail.audit_shape`: action and target from a path.
- :mod:`labdeck.trail.audit_read`: :func:`~labdeck.trail.audit_read.read_audit` and the table and
  JSON renderings used by ``labdeck audit``.
- :mod:`labdeck.trail.incident`: :func:`~labdeck.trail.incident.collect_incident` (the evidence);
  :mod:`labdeck.trail.bundle`: :func:`~labdeck.trail.bundle.build_bundle` / ``write_bundle`` (one
  ``.tar.gz``); :mod:`labdeck.trail.summary`: ``render_summary`` and ``clipboard_summary``;
  :mod:`labdeck.trail.logtext`: a raw log as plain text.

This package is imported by the request engine (:mod:`labdeck.api.core`), so nothing here may
import :mod:`labdeck.api.core` or :mod:`labdeck.api.client` at module level.
"""

from __future__ import annotations
