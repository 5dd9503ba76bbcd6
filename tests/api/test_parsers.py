"""One validator per parsed type, also when a worker thread builds it ahead of the first answer."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from labdeck.api import parsers
from labdeck.api.models import Job


def test_a_validator_built_in_the_background_is_the_one_every_caller_gets(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []
    real = parsers.pydantic.TypeAdapter

    def counted(kind: Any) -> Any:
        built.append(kind)
        return real(kind)

    monkeypatch.setattr(parsers, "_parsers", {})
    monkeypatch.setattr(parsers.pydantic, "TypeAdapter", counted)
    parsers.build_in_background(list[Job])
    # The caller does not wait for the worker: it asks at once, and waits only if it is still building.
    callers = [threading.Thread(target=parsers.list_parser, args=(Job,)) for _ in range(4)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    parser = parsers.parser_for(list[Job])
    assert built == [list[Job]]
    jobs = parser.validate_json(b'[{"id": 7, "status": "failed", "tag_list": null}]')
    assert [(job.id, job.status, job.tag_list) for job in jobs] == [(7, "failed", [])]
    parsers.build_in_background(list[Job])  # built: nothing more to do
    assert built == [list[Job]]
