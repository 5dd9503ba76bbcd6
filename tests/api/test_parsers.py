"""The parsers: one validator per parsed type, also when a worker thread builds it ahead of the
first answer; and parsing an answer keeps none of its strings (issue 29, point 6): pydantic's JSON
parser caches up to 16,384 short strings process-wide by default, so a 5,000-job pipeline's names
and dates stayed after its view closed, scattered over the allocator's arenas, each keeping an
otherwise empty arena from going back to the system."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from labdeck.api import answers, parsers
from labdeck.api.models import Job
from labdeck.api.parsers import list_parser


def test_a_validator_built_in_the_background_is_the_one_every_caller_gets(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []
    real = parsers.pydantic.TypeAdapter

    def counted(kind: Any, **options: Any) -> Any:
        built.append(kind)
        return real(kind, **options)

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


def _page(tag: str) -> bytes:
    return json.dumps([{"id": index, "name": f"{tag}-{index:05d}", "status": "failed", "stage": "test",
                        "ref": f"{tag}-ref", "created_at": "2026-11-28T10:00:00Z"}
                       for index in range(3)]).encode()


def test_two_reads_of_a_page_share_no_string_values() -> None:
    page = _page("parsers-page")
    first, second = list_parser(Job).validate_json(page), list_parser(Job).validate_json(page)
    assert first[0].name == second[0].name
    assert first[0].name is not second[0].name, "the parser keeps the strings it read"
    assert first[0].ref is not second[0].ref


def test_checking_an_answer_s_shape_keeps_no_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape check of a 200 answer parses the whole body too (then drops it): its strings
    must not stay in the parser's cache."""
    seen: list[Any] = []
    real = answers.pydantic_core.from_json

    def spy(content: bytes, **options: Any) -> Any:
        seen.append(real(content, **options))
        return seen[-1]

    monkeypatch.setattr(answers.pydantic_core, "from_json", spy)
    page = _page("parsers-shape")
    assert answers.problem(page, {"content-type": "application/json"}, "list") is None
    assert answers.problem(page, {"content-type": "application/json"}, "list") is None
    first, second = seen
    assert first[0]["name"] == second[0]["name"]
    assert first[0]["name"] is not second[0]["name"], "the shape check keeps the strings it read"
