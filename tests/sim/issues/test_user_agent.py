"""An issue created through the API records the request's user agent and client address, so that
an administrator gets its user agent detail (as real servers do); issues of the data set without one
still answer ``404 UserAgentDetail Not Found``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labdeck.sim.server import SimServer
from tests.sim.helpers import client, project


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_created_issue_has_a_user_agent_detail(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    target = project(server.state, "platform/api-gateway")
    with client(server, "user") as alice, client(server) as root:
        created = alice.post(f"/projects/{target.id}/issues", data={"title": "Board shows stale pipelines"},
                             headers={"User-Agent": "labdeck-board/0.3 (+tests)"})
        assert created.status_code == 201
        iid = created.json()["iid"]
        detail = root.get(f"/projects/{target.id}/issues/{iid}/user_agent_detail")
        assert detail.status_code == 200
        assert detail.json() == {"user_agent": "labdeck-board/0.3 (+tests)", "ip_address": "127.0.0.1",
                                 "spamcheck_submitted": False, "akismet_submitted": False}
        refused = alice.get(f"/projects/{target.id}/issues/{iid}/user_agent_detail")
        assert refused.status_code == 403
        without = next(i for i in sorted(server.state.issues.values(), key=lambda i: i.id) if i.user_agent is None)
        missing = root.get(f"/projects/{without.project_id}/issues/{without.iid}/user_agent_detail")
        assert missing.status_code == 404 and missing.json() == {"message": "404 UserAgentDetail Not Found"}
