"""The issues family of the demo data set: deterministic, and rich enough to exercise every filter."""

from __future__ import annotations

from collections import Counter

from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import build_state
from labdeck.sim.issues.model import issue_basic


def _snapshot(seed: int) -> list[dict[str, object]]:
    state = build_state(seed=seed, clock=SimClock(mode="manual"))
    return [issue_basic(state, issue, "http://sim") for issue in sorted(state.issues.values(), key=lambda i: i.id)]


def test_same_seed_same_issues() -> None:
    first = _snapshot(42)
    assert first == _snapshot(42)
    assert first != _snapshot(7)


def test_data_set_covers_what_the_filters_and_actions_need() -> None:
    state = build_state(seed=42, clock=SimClock(mode="manual"))
    issues = list(state.issues.values())
    assert len(issues) >= 200
    assert len({issue.project_id for issue in issues}) >= 20
    assert Counter(issue.state for issue in issues)["closed"] >= 20
    assert sum(issue.confidential for issue in issues) >= 10
    assert any(issue.state == "closed" and issue.closed_by_id for issue in issues)
    assert any(issue.user_agent for issue in issues) and any(not issue.user_agent for issue in issues)
    assert any(issue.time_estimate for issue in issues) and any(issue.total_time_spent for issue in issues)
    assert any(issue.due_date for issue in issues) and any(issue.subscriptions for issue in issues)
    assert any(issue.labels for issue in issues) and any(not issue.labels for issue in issues)
    titles = Counter(milestone.title for milestone in state.milestones.values())
    assert any(count > 1 for count in titles.values())  # same-named milestones for move
    assert any(mr.closes_issue_ids for mr in state.merge_requests.values())
    authors = {state.users[issue.author_id].username for issue in issues}
    assert {"alice", "bob", "carol"} <= authors
    assert any(record.active for record in state.integrations.values())
    assert {key[0] for key in state.notification_settings} == {"global", "group", "project"}
