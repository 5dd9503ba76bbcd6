"""A jobs page read again unchanged is not parsed again: the jobs parsed from the same body before
are used as they are.

A board left open runs a triage round whenever its failures change, and each round reads the
failing projects' jobs pages again (a hundred jobs each, from the server or from the pages kept by
:mod:`labdeck.triage.kept`), most of them byte for byte what the round before read. Parsed anew,
every page became a hundred new ``Job`` objects (each with its user, commit, pipeline and runner),
kept until the next round, while the previous round's identical ones were freed: thousands of
long-lived objects a round, placed among the round's short-lived ones, so the freed memory stayed
scattered over the allocator's arenas and the console's resident set crept up through the day
(``bench/bench_soak.py``). :class:`ParsedPages` holds, per project, a digest of the last body
parsed and its jobs (the same tuple the console holds as the project's page: nothing more is
kept alive), and hands that tuple back when the body is the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import pydantic

from labdeck.api.models import Job
from labdeck.api.parsers import parser_for


def digest(body: bytes) -> bytes:
    """A short fingerprint of a page's body (two bodies with the same one are taken as the same)."""
    return hashlib.blake2b(body, digest_size=16).digest()


class ParsedPages:
    """Project id → the digest of the last jobs page body parsed and the jobs parsed from it."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[bytes, tuple[Job, ...]]] = {}

    def __len__(self) -> int:
        return len(self._held)

    def get(self, project_id: int, fingerprint: bytes) -> tuple[Job, ...] | None:
        """The jobs parsed before from a body with this ``fingerprint`` (:func:`digest`), or None."""
        held = self._held.get(project_id)
        return held[1] if held is not None and held[0] == fingerprint else None

    def put(self, project_id: int, fingerprint: bytes, jobs: tuple[Job, ...]) -> None:
        """Remember ``jobs`` as parsed from the project's body with this ``fingerprint``."""
        self._held[project_id] = (fingerprint, jobs)

    def parse(self, project_id: int, body: bytes) -> tuple[Job, ...] | None:
        """The jobs of ``body``: those parsed before from the same body, else parsed now (None when
        it does not parse as a jobs page)."""
        fingerprint = digest(body)
        found = self.get(project_id, fingerprint)
        if found is not None:
            return found
        try:
            jobs = tuple(parser_for(list[Job]).validate_json(body))
        except (pydantic.ValidationError, ValueError):
            return None
        self.put(project_id, fingerprint, jobs)
        return jobs

    def keep_only(self, project_ids: Iterable[int]) -> None:
        """Forget the projects not among ``project_ids`` (the pages the console no longer holds)."""
        wanted = set(project_ids)
        for project_id in [held for held in self._held if held not in wanted]:
            del self._held[project_id]
