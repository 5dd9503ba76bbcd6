"""The local audit log of changes: one record per change the console sends, written before it leaves.

- :mod:`labdeck.audit.log`: :class:`~labdeck.audit.log.AuditLog`, the file, its rotation and the
  records; it implements the client's change recorder (:class:`labdeck.api.recorder.ChangeRecorder`),
  which the UI hands to the client as it hands it the token;
- :mod:`labdeck.audit.context`: :class:`AuditTarget` and the ``audit_context`` block the UI wraps around
  an action; :mod:`labdeck.audit.shape`: action and target inferred from a request path;
- :mod:`labdeck.audit.read`: :func:`~labdeck.audit.read.read_audit` and the table and JSON renderings
  used by ``labdeck audit`` and the audit screen.

This package sits below the client: it imports only :mod:`labdeck.base`.
"""
