"""The jobs of one page share their equal parts: one commit, one pipeline, one user, one runner
object for every job that names the same one.

Each job of a jobs listing carries its whole commit (message included), its pipeline, its user
(bio, location, dates …) and its runner. Parsed as they come, forty jobs of one pipeline were forty
copies of the same commit and pipeline and mostly of the same user: about 8 KB of a job's 11 KB
parsed (a board of 300 projects, ``labdeck serve``'s world), kept for as long as the console holds
the page (the board's rows, triage's pages), and the more pages it held, the more copies. Parts
equal in every field are shared; a part that differs in any field (a pipeline's status read a
moment later, say) stays its own. Nothing may modify a parsed model (the board's rows share them
already), so sharing changes nothing a reader sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PARTS = ("commit", "pipeline", "user", "runner")
"""The parts of a job shared between the jobs of one page (each has an ``id``)."""


def share_parts(jobs: Any) -> Any:
    """``jobs`` (a parsed list of jobs) with each equal part shared: the same object in every job
    that has an equal one (the first met). Anything that is not a sequence is returned as it is."""
    if not isinstance(jobs, Sequence) or len(jobs) < 2:
        return jobs
    first: dict[tuple[str, Any], Any] = {}
    for job in jobs:
        values = getattr(job, "__dict__", None)
        if values is None:
            continue
        for name in PARTS:
            part = values.get(name)
            key = (name, getattr(part, "id", None))
            if key[1] is None:
                continue
            met = first.setdefault(key, part)
            if met is not part and met == part:
                values[name] = met
    return jobs
