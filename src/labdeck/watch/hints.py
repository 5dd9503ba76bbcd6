"""The console's own actions as change hints: a retry, cancel, play (or any other change) the
console sends about a project's jobs or pipelines, from whatever screen or dialog, makes the poller
read that project at once and follow it until its pipelines settle.

The :class:`~labdeck.watch.tap.WireTap` sees every response of the client (not only the
poller's); :func:`acted_on` tells which project a successful change was about.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from labdeck.api.retry import IDEMPOTENT_METHODS

_ACTION = re.compile(r"/projects/([^/]+)/(?:jobs|pipelines?|trigger)(?:/|$)")
"""A change under a project's jobs or pipelines (``…/jobs/:id/retry``, ``…/pipelines/:id/cancel``,
``…/pipeline`` to run one, ``…/trigger/pipeline``)."""


def acted_on(method: str, path: str, status: int) -> int | str | None:
    """The project (id, or its path) a successful change was about; None for reads, failures and
    changes that do not touch pipelines."""
    if method.upper() in IDEMPOTENT_METHODS or status >= 400 or "/graphql" in path:
        return None
    found = _ACTION.search(path)
    if found is None:
        return None
    ref = unquote(found.group(1))
    return int(ref) if ref.isdigit() else ref
