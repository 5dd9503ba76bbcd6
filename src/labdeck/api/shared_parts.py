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

The same goes for the set of field names pydantic keeps in every model (``model_fields_set``: 2.2 KB
for a job's 23 names, more than the job's own values): every job a server sends names the same
fields, so one set of each content serves them all (:data:`FIELD_SETS`). pydantic adds a name to
it only when a field is assigned, which nothing does to a parsed model; ``model_copy`` copies it.

Measured: a job of the simulator's 300-project pages took ~11 KB parsed, ~5.3 KB with its parts
shared, ~2.7 KB with the names too. The board left open (``bench/bench_soak.py``, 48 simulated
hours at ``--speed 120``, three runs each) grew +0.19/+0.19/+0.21 MB per simulated hour after
warm-up before, +0.11/+0.10/+0.11 with the parts shared, +0.07/+0.07/+0.06 with the names too
(ending at 91.6-92.5 MB instead of 109-110): what still grows there is the jobs triage holds (the
failing projects' pages of a hundred jobs, filling as the world runs), not the allocator. Four
5,000-job pipelines opened and closed (``bench/bench_pipeline_memory.py``): peak 148 → 97 MB,
kept after closing +41 → +9 MB.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PARTS = ("commit", "pipeline", "user", "runner")
"""The parts of a job shared between the jobs of one page (each has an ``id``)."""
WORDS = ("name", "stage", "ref", "status", "failure_reason", "tag_list")
"""Values most jobs of a page repeat (``unit-tests``, ``test``, ``main``, ``failed``, their tags):
one string (one list of tags) for every job that has an equal one. Parsed without pydantic's
string cache (which would keep every string of every page it read), each job had its own copies:
about 400 bytes of a job's 2.9 KB."""
FIELD_SETS_KEPT = 256
"""Distinct sets of field names shared (a few per server in practice; past this, not shared)."""
_field_sets: dict[frozenset[str], set[str]] = {}


def _shared_names(model: Any) -> None:
    names = getattr(model, "__pydantic_fields_set__", None)
    if not isinstance(names, set):
        return
    key = frozenset(names)
    shared = _field_sets.get(key)
    if shared is None:
        if len(_field_sets) >= FIELD_SETS_KEPT:
            return
        shared = _field_sets.setdefault(key, names)
    if shared is not names:
        object.__setattr__(model, "__pydantic_fields_set__", shared)


def share_parts(jobs: Any) -> Any:
    """``jobs`` (a parsed list of jobs) with each equal part shared: the same object in every job
    that has an equal one (the first met), the same string or list of tags for equal
    :data:`WORDS`, and one set of field names for every model naming the same fields. Anything
    that is not a sequence is returned as it is."""
    if not isinstance(jobs, Sequence):
        return jobs
    first: dict[tuple[str, Any], Any] = {}
    words: dict[Any, Any] = {}
    for job in jobs:
        values = getattr(job, "__dict__", None)
        if values is None:
            continue
        _shared_names(job)
        for name in WORDS:
            word = values.get(name)
            if isinstance(word, str):
                values[name] = words.setdefault(word, word)
            elif isinstance(word, list) and word and all(isinstance(tag, str) for tag in word):
                values[name] = words.setdefault(tuple(word), word)
        for name in PARTS:
            part = values.get(name)
            key = (name, getattr(part, "id", None))
            if key[1] is None:
                continue
            met = first.setdefault(key, part)
            if met is part:
                _shared_names(part)
            elif met == part:
                values[name] = met
    return jobs
