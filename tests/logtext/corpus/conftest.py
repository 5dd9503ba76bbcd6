"""The generator and the small failing projects under ``make/`` are data, not tests of labdeck."""

from __future__ import annotations

collect_ignore = ["make"]
