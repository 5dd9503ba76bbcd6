"""``labdeck triage --profile prod,staging`` (issue 30): every instance read with its own session,
each failure naming its instance, a cluster across instances, one instance's trouble reported for it
alone, and a token that never reaches another instance's origin (checked in both simulators'
request logs), not even when one instance redirects to the other."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from labdeck.auth.keyring_store import KeyringStore
from labdeck.commands import cli
from labdeck.sim.core.requests import RequestRecord, request_log, token_fingerprint
from labdeck.sim.instances import demo_tokens, start_instances
from labdeck.sim.server import SimServer, free_port
from tests.sim.helpers import advance, pipeline, project, quiet
from tests.support.fault_switch import FaultSwitch

PATH = "platform/auth-service"
IMAGE_PULL = {"name": "build-image", "tags": ["docker"], "fail": True, "failure_log": "image_pull", "duration": 20}


@pytest.fixture(scope="module")
def pair() -> Iterator[list[SimServer]]:
    """Two instances (spec and gitlab dialect, tokens of their own), each with a registry outage
    failing ``build-image`` of the same project."""
    servers = start_instances(2, seed=42, dialects="spec,gitlab")
    for server in servers:
        quiet(server)
        pipeline(server, project(server.state, PATH).id, [{"name": "build", "jobs": [IMAGE_PULL]}])
        advance(server, 600)
    yield servers
    for server in servers:
        server.stop()


def _admin(server: SimServer) -> str:
    return demo_tokens(server.state)["admin"]


def _profiles(**urls: str) -> None:
    text = "".join(f'[profiles.{name}]\nurl = "{url}"\n' for name, url in urls.items())
    Path(os.environ["LABDECK_CONFIG"]).parent.mkdir(parents=True, exist_ok=True)
    Path(os.environ["LABDECK_CONFIG"]).write_text(f'default_profile = "{next(iter(urls))}"\n{text}')


def _log(server: SimServer) -> list[RequestRecord]:
    return [record for record in request_log(server.state).records() if record.path.startswith("/api/")]


@pytest.fixture
def logins(pair: list[SimServer]) -> list[SimServer]:
    """Profiles ``prod`` (the spec instance) and ``staging`` (the gitlab one), each with its own
    admin token in the keyring; the request logs emptied."""
    prod, staging = pair
    _profiles(prod=prod.base_url, staging=staging.base_url)
    KeyringStore().set("prod", prod.base_url, _admin(prod))
    KeyringStore().set("staging", staging.base_url, _admin(staging))
    for server in pair:
        request_log(server.state).clear()
    return pair


def _only_own_token(server: SimServer) -> None:
    """Every API request the server saw carried its own admin token, and no other."""
    seen = {record.token for record in _log(server)}
    assert seen == {token_fingerprint(_admin(server))}, seen


def test_json_names_the_instance_of_each_failure_and_a_cluster_spans_both(
        logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    prod, staging = logins
    code = cli.main(["triage", "--profile", "prod,staging", "--json", PATH])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    pulls = [f for f in data["failures"] if f["job_name"] == "build-image"]
    assert sorted(f["instance"] for f in pulls) == ["prod", "staging"]
    assert all(f["verdict"] == "infrastructure" for f in pulls)
    outage = next(c for c in data["clusters"] if c["instances"] == ["prod", "staging"])
    assert outage["projects"] == [f"prod:{PATH}", f"staging:{PATH}"] and "on 2 instances" in outage["title"]
    assert sorted((j["instance"], j["job_id"]) for j in outage["jobs"]) == sorted((f["instance"], f["job_id"])
                                                                                  for f in pulls)
    assert [(i["name"], i["url"], i["read"]) for i in data["instances"]] == [
        ("prod", prod.base_url, True), ("staging", staging.base_url, True)]
    _only_own_token(prod)
    _only_own_token(staging)


def test_the_table_names_the_instance_per_failure(logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["triage", "--profile", "prod,staging", PATH]) == 0
    out, _ = capsys.readouterr()
    rows = [line.split() for line in out.splitlines() if "build-image" in line and not line.startswith(" ")]
    assert sorted(row[0] for row in rows) == ["prod", "staging"] and all(row[1] == PATH for row in rows)
    assert "on 2 instances" in out and "prod#" in out and "staging#" in out


def test_a_refused_token_is_that_instances_problem_and_the_other_is_still_printed(
        logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    prod, staging = logins
    KeyringStore().set("staging", staging.base_url, "glpat-revoked-long-ago")
    code = cli.main(["triage", "--profile", "prod,staging", "--json", PATH])
    out, err = capsys.readouterr()
    assert code == 1
    data = json.loads(out)
    assert {f["instance"] for f in data["failures"]} == {"prod"}
    assert [(i["name"], i["read"]) for i in data["instances"]] == [("prod", True), ("staging", False)]
    assert "401" in data["instances"][1]["problem"]
    assert err.startswith("labdeck triage: staging: nothing read:") and "401" in err
    _only_own_token(prod)


def test_an_instance_without_a_token_names_its_url_and_how_to_sign_in(
        logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    _, staging = logins
    KeyringStore().delete("staging", staging.base_url)
    code = cli.main(["triage", "--profile", "prod,staging", "--json", PATH])
    out, err = capsys.readouterr()
    assert code == 1
    unread = json.loads(out)["instances"][1]
    assert (unread["name"], unread["url"], unread["read"]) == ("staging", staging.base_url, False)
    # The environment's token is not used with several profiles: it is not offered as a way out.
    assert "labdeck login --profile staging" in err and "LABDECK_TOKEN" not in err.replace(
        "LABDECK_TOKEN and GITLAB_TOKEN not used", "")


def test_an_instance_that_is_down_is_that_instances_problem(
        logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    prod, _ = logins
    gone = f"http://127.0.0.1:{free_port()}"
    _profiles(prod=prod.base_url, gone=gone)
    KeyringStore().set("gone", gone, "glpat-for-the-gone-one")
    code = cli.main(["triage", "--profile", "gone,prod", PATH])
    out, err = capsys.readouterr()
    assert code == 1 and "build-image" in out and "prod" in out
    assert err.count("\n") == 1 and err.startswith("labdeck triage: gone: nothing read:")


def test_a_redirect_to_the_other_instance_is_not_followed_with_the_token(
        logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    prod, staging = logins
    with FaultSwitch(prod.base_url) as switch:
        # prod's origin (the switch) answers every API request with a redirect to staging's.
        switch.set("redirect", location=staging.base_url)
        _profiles(prod=switch.url, staging=staging.base_url)
        KeyringStore().set("prod", switch.url, _admin(prod))
        code = cli.main(["triage", "--profile", "prod,staging", "--json", PATH])
        out, err = capsys.readouterr()
        redirected = [entry for entry in switch.api_requests() if entry[3] == 302]
    assert redirected, "the redirect was never answered"
    assert code == 1 and "prod: nothing read" in err and "redirect" in err
    assert {f["instance"] for f in json.loads(out)["failures"]} == {"staging"}
    _only_own_token(staging)  # prod's token never reached staging: the redirect was not followed
    assert _log(prod) == []


def test_an_environment_token_is_not_sent_to_every_instance(
        logins: list[SimServer], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    prod, staging = logins
    monkeypatch.setenv("LABDECK_TOKEN", _admin(prod))
    assert cli.main(["triage", "--profile", "prod,staging", PATH]) == 0
    capsys.readouterr()
    _only_own_token(staging)
    _only_own_token(prod)


@pytest.mark.parametrize("option", ["--url=http://127.0.0.1:1", "--token-stdin", "--ca-file=/etc/ssl/ca.pem"])
def test_options_naming_one_instance_are_refused_with_several_profiles(
        option: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["triage", "--profile", "prod,staging", option]) == 2
    assert option.split("=")[0] in capsys.readouterr().err


def test_a_project_aimed_at_one_instance_is_read_there_only(
        logins: list[SimServer], capsys: pytest.CaptureFixture[str]) -> None:
    prod, staging = logins
    assert cli.main(["triage", "--profile", "prod,staging", "--json", f"staging:{PATH}"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {f["instance"] for f in data["failures"]} == {"staging"}
    assert [(i["name"], i["read"]) for i in data["instances"]] == [("prod", False), ("staging", True)]
    assert _log(prod) == []
    _only_own_token(staging)
