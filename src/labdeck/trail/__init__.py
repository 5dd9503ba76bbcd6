"""What happened, on record: the local audit log of changes and the incident bundle.

- :mod:`labdeck.trail.audit`: :class:`~labdeck.trail.audit.AuditLog` (one per client,
  ``client.audit``), :class:`~labdeck.trail.audit.AuditTarget`, the ``audit_context`` that the UI
  wraps around an action, and the ``audited`` hook of the request engine.
- :mod:`labdeck.trail.audit_read`: :func:`~labdeck.trail.audit_read.read_audit` and the table and
  JSON renderings used by ``labdeck audit``.
- :mod:`labdeck.trail.bundle`: :func:`~labdeck.trail.bundle.build_bundle` (one ``.tar.gz`` per
  incident) and the clipboard summary.

This package is imported by the request engine (:mod:`labdeck.api.core`), so nothing here may
import :mod:`labdeck.api.core` or :mod:`labdeck.api.client` at module level.
"""

from __future__ import annotations
