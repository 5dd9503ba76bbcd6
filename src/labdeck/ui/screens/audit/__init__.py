"""The audit section: the local log of changes sent from this machine (``:audit``)."""

from __future__ import annotations
